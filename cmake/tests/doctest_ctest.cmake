# One ctest entry per doctest case, each required to run exactly that one case.
#
# Debian's doctest_discover_tests() passes a case's name through CMake lists, so a name holding
# ';' became several ctest entries that matched no case and "passed" with 0 cases run. Instead,
# after each link the test binary writes its own entries (tests/test_main.cpp, reporter "ctest"):
#  - PASS_REGULAR_EXPRESSION demands doctest's summary "test cases: 1 | 1 passed | 0 failed": an
#    entry that runs no case, two cases, or a failing case fails (a crash prints no summary);
#  - a case that needs ../shared/data prints "TFX-SKIP: <reason>" and is reported as skipped;
#  - tfx_doctest_count, a guard, fails when the binary holds a different number of cases than
#    ctest has entries, so a case can never again be left out of the count.
function(tfx_doctest_ctest target)
  set(ctest_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_cases.cmake")
  target_compile_definitions(${target} PRIVATE TFX_TESTS_BINARY="$<TARGET_FILE:${target}>")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND $<TARGET_FILE:${target}> --list-test-cases --reporters=ctest --no-version=true
            --out=${ctest_file}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${ctest_file}.tmp ${ctest_file}
    VERBATIM)
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${ctest_file}")
  add_test(NAME tfx_doctest_count
           COMMAND ${CMAKE_COMMAND} -D "EXE=$<TARGET_FILE:${target}>" -D "LIST=${ctest_file}"
                   -P "${CMAKE_SOURCE_DIR}/cmake/tests/doctest_count.cmake")
endfunction()
