# Script mode (see doctest_ctest.cmake): the guard. The number of cases EXE holds now must equal
# the number of ctest entries in LIST, each of which is required to run exactly one case.
execute_process(COMMAND "${EXE}" --count --no-version=true OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "test cases passing the current filters: ([0-9]+)")
  message(FATAL_ERROR "could not count the cases of ${EXE}:\n${out}")
endif()
set(held ${CMAKE_MATCH_1})
file(READ "${LIST}" text)
string(REGEX MATCHALL "(^|\n)add_test\\(" starts "${text}")
list(LENGTH starts entries)
if(NOT held EQUAL entries)
  message(FATAL_ERROR "the test binary holds ${held} doctest cases but ctest has ${entries} entries")
endif()
message("all ${held} doctest cases have one ctest entry each")
