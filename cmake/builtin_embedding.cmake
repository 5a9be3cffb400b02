# The built-in teaching embedding: gen_builtin_embedding (a small host program) turns
# samples/teaching_embedding.tsv into ${CMAKE_BINARY_DIR}/generated/builtin_embedding_data.cpp,
# which is compiled into tfxcore. Editing the TSV regenerates the vectors on the next build.
add_executable(gen_builtin_embedding ${CMAKE_SOURCE_DIR}/cmake/gen_builtin_embedding.cpp)
target_compile_options(gen_builtin_embedding PRIVATE ${TFX_WARNINGS})
set(TFX_BUILTIN_TSV ${CMAKE_SOURCE_DIR}/samples/teaching_embedding.tsv)
set(TFX_BUILTIN_CPP ${CMAKE_BINARY_DIR}/generated/builtin_embedding_data.cpp)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/generated)
add_custom_command(
  OUTPUT ${TFX_BUILTIN_CPP}
  COMMAND gen_builtin_embedding ${TFX_BUILTIN_TSV} ${TFX_BUILTIN_CPP}
  DEPENDS gen_builtin_embedding ${TFX_BUILTIN_TSV}
  COMMENT "Generating the built-in teaching embedding from samples/teaching_embedding.tsv"
  VERBATIM)
target_sources(tfxcore PRIVATE ${TFX_BUILTIN_CPP})
set_source_files_properties(${TFX_BUILTIN_CPP} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
