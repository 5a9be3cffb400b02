# The fuzz targets of tests/fuzz/: each fuzz_<name>.cpp defines LLVMFuzzerTestOneInput for one
# parser; corpus/<name>/ holds its seeds and regressions/<name>/ every input that once crashed it.
#  - every build: tfx_replay_<name> (the target + replay_main.cpp) runs all of those files through
#    the target as the ctest entry fuzz_replay_<name>, so a fixed crash stays fixed;
#  - with TFX_FUZZ (clang): fuzz_<name>, a libFuzzer binary (tests/fuzz/run.sh runs them).
# Targets named fuzz_cli_* drive the whole command line (tfx::cli::run) and link the commands.
file(GLOB TFX_FUZZ_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.cpp)
foreach(src ${TFX_FUZZ_SOURCES})
  get_filename_component(stem ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${stem})
  set(libs tfxcore)
  if(name MATCHES "^cli_")
    set(libs tfxcli)
  endif()
  if(name STREQUAL "image")  # reads a header's stated size with stb_image before decoding
    list(APPEND libs ${STB_LIBRARY})
  endif()
  add_executable(tfx_replay_${name} ${src} ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.cpp)
  target_compile_options(tfx_replay_${name} PRIVATE ${TFX_WARNINGS} ${TFX_OPT})
  target_include_directories(tfx_replay_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_include_directories(tfx_replay_${name} SYSTEM PRIVATE ${STB_INCLUDE_DIR})
  target_link_libraries(tfx_replay_${name} PRIVATE ${libs} ZLIB::ZLIB)
  add_test(NAME fuzz_replay_${name}
           COMMAND tfx_replay_${name} ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${name}
                   ${CMAKE_SOURCE_DIR}/tests/fuzz/regressions/${name})
  if(TFX_FUZZ)
    add_executable(fuzz_${name} ${src})
    target_compile_options(fuzz_${name} PRIVATE ${TFX_WARNINGS})
    target_include_directories(fuzz_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
    target_include_directories(fuzz_${name} SYSTEM PRIVATE ${STB_INCLUDE_DIR})
    target_link_libraries(fuzz_${name} PRIVATE ${libs} ZLIB::ZLIB)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  endif()
endforeach()
