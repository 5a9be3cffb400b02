# Install-time script (see cmake/python_helper.cmake): copies TFX_PYTHON_SOURCE (python/tfx.py)
# into TFX_PYTHON_DIR, or, when that is empty, into the directory of Python's import path that
# lies under CMAKE_INSTALL_PREFIX (asked of /usr/bin/python3, else python3 on PATH); failing
# that, into PREFIX/lib/python3/dist-packages with a note to add it to PYTHONPATH.
set(prefix "${CMAKE_INSTALL_PREFIX}")
set(note "")
if(TFX_PYTHON_DIR)
  if(IS_ABSOLUTE "${TFX_PYTHON_DIR}")
    set(dir "${TFX_PYTHON_DIR}")
  else()
    set(dir "${prefix}/${TFX_PYTHON_DIR}")
  endif()
else()
  set(dir "")
  find_program(python NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(NOT python)
    find_program(python NAMES python3)
  endif()
  if(python)
    # the first site directory under the prefix that is on sys.path, else the user site (on
    # sys.path once it exists) when it is under the prefix
    set(code [==[
import os, site, sys
prefix = os.path.realpath(sys.argv[1])
under = lambda p: os.path.realpath(p).startswith(prefix + os.sep)
on_path = {os.path.realpath(p) for p in sys.path}
found = [p for p in site.getsitepackages([prefix]) if under(p) and os.path.realpath(p) in on_path]
user = site.getusersitepackages()
print(found[0] if found else (user if site.ENABLE_USER_SITE and under(user) else ""))
]==])
    execute_process(COMMAND "${python}" -c "${code}" "${prefix}" OUTPUT_VARIABLE dir
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT dir)
    set(dir "${prefix}/lib/python3/dist-packages")
    set(note " (not on Python's import path: add it to PYTHONPATH, or set TFX_PYTHON_DIR)")
  endif()
endif()
file(INSTALL "${TFX_PYTHON_SOURCE}" DESTINATION "${dir}")
message(STATUS "tfx Python helper: ${dir}/tfx.py${note}")
