# The Python helper python/tfx.py: `cmake --install` copies it where Python imports it. By
# default that is the site-packages directory /usr/bin/python3 uses under the install prefix
# (/usr/local/lib/python3.X/dist-packages, ~/.local/lib/python3.X/site-packages, ...), chosen at
# install time so `cmake --install build --prefix ~/.local` works too; TFX_PYTHON_DIR overrides it.
set(TFX_PYTHON_DIR "" CACHE STRING
    "Where cmake --install puts tfx.py (absolute, or relative to the install prefix; empty = Python's site directory under the prefix)")
install(CODE "set(TFX_PYTHON_DIR [==[${TFX_PYTHON_DIR}]==])
set(TFX_PYTHON_SOURCE [==[${CMAKE_SOURCE_DIR}/python/tfx.py]==])")
install(SCRIPT ${CMAKE_SOURCE_DIR}/cmake/install/python_helper.cmake)
# the tiny random-weight BERT the notebooks open (tfx.sample_model("bert") finds it under the prefix)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data/hf_models/bert/ DESTINATION share/tfx/models/bert
        PATTERN "reference.safetensors" EXCLUDE)
