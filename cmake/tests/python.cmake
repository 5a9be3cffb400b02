# ctest entries for the Python helper and the sample notebooks, run with Debian's /usr/bin/python3
# (not a pyenv python3 earlier on PATH) against the built tfx and the checkout's python/tfx.py:
#   python_helper              tests/python/test_helper.py (arrays = the CLI's npy, errors, install)
#   notebook_lecture[_ko], notebook_head_view
#                              executes samples/lecture[.ko].ipynb / head_view.ipynb afresh (as scripts/gen-notebooks.py
#                              does); fails on any error and on any output that differs from the
#                              committed one (the notebooks are committed executed)
#   notebooks_committed        the committed notebooks' cells are what scripts/gen-notebooks.py
#                              writes (English and Korean share the code), and their sizes are the
#                              ones docs/python.md states
#   tutorial_output            tests/python/check_tutorial.py: every `$ tfx` command of
#                              docs/tutorial.md (attention, positional, vision, translate, models) prints the lines shown
#   teaching_model_reproducible  20 steps of scripts/train_teaching_model.py from its seed give the
#                              committed log's first 20 losses (skipped without python3-torch)
#   i18n_catalog               tests/i18n/check_catalog.py: every marked string of the sources is in
#                              po/ko.po, translated, with the original's fmt placeholders
#   i18n_glossary              tests/i18n/check_glossary.py: po/ko.po keeps docs/korean.md's glossary
#   i18n_korean_output         tests/i18n/check_korean.py: every gallery figure and every command's
#                              table under --lang ko, failing on an untranslated or unmarked string
#   unicode_tables_committed   src/text/unicode_tables.inc is what scripts/gen_unicode_tables.py writes
# An entry whose tools are missing prints "TFX-SKIP: <reason>" and is reported as skipped.
set(tfx_python /usr/bin/python3)
# LC_ALL=C.UTF-8: English output whatever the machine's locale (a Korean LANG would switch tfx to
# Korean); the Korean checks pass --lang ko themselves
set(tfx_python_env "LC_ALL=C.UTF-8" "LANGUAGE=" "TFX_BINARY=$<TARGET_FILE:tfx>" "PYTHONPATH=${CMAKE_SOURCE_DIR}/python"
    "XDG_CACHE_HOME=${CMAKE_BINARY_DIR}/test-cache" "TFX_BUILD_DIR=${CMAKE_BINARY_DIR}")
# the sanitizer build tells the checks so (tests/python/build_kind.py: long training is left to Release)
if(TFX_SANITIZE)
  list(APPEND tfx_python_env "TFX_SANITIZED=1")
endif()
set(tfx_notebooks ${CMAKE_SOURCE_DIR}/samples/lecture.ipynb ${CMAKE_SOURCE_DIR}/samples/lecture.ko.ipynb
    ${CMAKE_SOURCE_DIR}/samples/head_view.ipynb)

function(tfx_python_test name)
  if(EXISTS ${tfx_python})
    add_test(NAME ${name} COMMAND ${tfx_python} ${ARGN})
  else()
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "TFX-SKIP: ${tfx_python} not found (Debian: python3, python3-numpy)")
  endif()
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${tfx_python_env}" SKIP_REGULAR_EXPRESSION "TFX-SKIP: "
                       TIMEOUT 900)
endfunction()

# A check that runs in the Release suite only; in the sanitizer build it is reported as skipped,
# saying why (reason: the rest of "TFX-SKIP: <name> …").
function(tfx_python_release_only name reason)
  if(TFX_SANITIZE)
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "TFX-SKIP: ${name} ${reason}")
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "TFX-SKIP: ")
  else()
    tfx_python_test(${name} ${ARGN})
  endif()
endfunction()
# A check that does not depend on how tfx was built (the sources, the catalogue, pip's install)
function(tfx_python_check name)
  tfx_python_release_only(${name} "does not depend on the build; the Release suite runs it" ${ARGN})
endfunction()

tfx_python_test(python_helper ${CMAKE_SOURCE_DIR}/tests/python/test_helper.py)
# python_pip_install: pip install . (pyproject.toml) offline into a fresh venv, with and without build
# isolation, and with --prefix; the installed helper runs the installed binary
tfx_python_check(python_pip_install ${CMAKE_SOURCE_DIR}/tests/python/test_pip_install.py)
# python_views: tfx.head_view / tfx.model_view (their data, scale, ids; two views inline in headless Chromium)
tfx_python_test(python_views ${CMAKE_SOURCE_DIR}/tests/python/test_views.py)
tfx_python_test(notebook_lecture ${CMAKE_SOURCE_DIR}/tests/python/run_notebook.py ${CMAKE_SOURCE_DIR}/scripts/gen-notebooks.py
                ${CMAKE_SOURCE_DIR}/samples/lecture.ipynb)
# the Korean notebook runs the English one's commands with --lang ko: under the sanitizers the English
# notebook runs them, and i18n_korean_output every command's Korean
tfx_python_release_only(notebook_lecture_ko "runs notebook_lecture's commands in Korean; under the sanitizers notebook_lecture runs them and i18n_korean_output their Korean, the Release suite this notebook"
                ${CMAKE_SOURCE_DIR}/tests/python/run_notebook.py ${CMAKE_SOURCE_DIR}/scripts/gen-notebooks.py
                ${CMAKE_SOURCE_DIR}/samples/lecture.ko.ipynb)
tfx_python_test(notebook_head_view ${CMAKE_SOURCE_DIR}/tests/python/run_notebook.py ${CMAKE_SOURCE_DIR}/scripts/gen-notebooks.py
                ${CMAKE_SOURCE_DIR}/samples/head_view.ipynb)
tfx_python_check(notebooks_committed ${CMAKE_SOURCE_DIR}/tests/python/run_notebook.py --committed
                ${CMAKE_SOURCE_DIR}/scripts/gen-notebooks.py ${tfx_notebooks})
tfx_python_test(tutorial_output ${CMAKE_SOURCE_DIR}/tests/python/check_tutorial.py ${CMAKE_SOURCE_DIR}/docs/tutorial.md
                ${CMAKE_SOURCE_DIR}/docs/attention.md ${CMAKE_SOURCE_DIR}/docs/positional.md ${CMAKE_SOURCE_DIR}/docs/vision.md
                ${CMAKE_SOURCE_DIR}/docs/translate.md ${CMAKE_SOURCE_DIR}/docs/models.md ${CMAKE_SOURCE_DIR}/docs/korean.md)
# tutorial_table: docs/tutorial.md's table of the notes' examples shows every registered command,
# names only flags that exist, and every command in it runs
tfx_python_test(tutorial_table ${CMAKE_SOURCE_DIR}/tests/python/check_tutorial_table.py ${CMAKE_SOURCE_DIR}/docs/tutorial.md)
tfx_python_check(teaching_model_reproducible ${CMAKE_SOURCE_DIR}/tests/python/check_teaching_model.py)
tfx_python_check(unicode_tables_committed ${CMAKE_SOURCE_DIR}/tests/python/check_unicode_tables.py)
# attention_html_chromium: tests/python/check_attention_html.py opens --html pages (BERT, GPT-2, the
# translator, hostile token labels) in headless Chromium (Debian chromium; skipped without it)
tfx_python_test(attention_html_chromium ${CMAKE_SOURCE_DIR}/tests/python/check_attention_html.py)
tfx_python_check(i18n_catalog ${CMAKE_SOURCE_DIR}/tests/i18n/check_catalog.py ${CMAKE_SOURCE_DIR})
# i18n_glossary: tests/i18n/check_glossary.py — po/ko.po uses docs/korean.md's glossary terms (one
# term per concept), no hard-coded particle after a value, no identifier-style Korean headers
tfx_python_check(i18n_glossary ${CMAKE_SOURCE_DIR}/tests/i18n/check_glossary.py ${CMAKE_SOURCE_DIR})
tfx_python_test(i18n_korean_output ${CMAKE_SOURCE_DIR}/tests/i18n/check_korean.py $<TARGET_FILE:tfx> ${CMAKE_SOURCE_DIR})
# layering: scripts/check-layering.py — no library folder includes one after it in the order
# docs/architecture.md's "**Layering**" line gives; architecture_files: scripts/check-doc-files.py —
# every file docs/architecture.md's recipes name exists
tfx_python_check(layering ${CMAKE_SOURCE_DIR}/scripts/check-layering.py ${CMAKE_SOURCE_DIR})
tfx_python_check(architecture_files ${CMAKE_SOURCE_DIR}/scripts/check-doc-files.py ${CMAKE_SOURCE_DIR})
# shape: scripts/check-shape.py — issue 45's "lighter CLI": src/cli ≤ 30 % of the hand-written lines,
# no folder under src/ with more than 25 files, no command file over 300 lines (prints the numbers)
tfx_python_check(shape ${CMAKE_SOURCE_DIR}/scripts/check-shape.py ${CMAKE_SOURCE_DIR})
