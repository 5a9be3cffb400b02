# The built-in teaching translator (issue 22): data/teaching_model/model.safetensors and vocab.txt,
# written by scripts/train_teaching_model.py, compiled into tfxcore as byte arrays by
# gen_embedded_file, so `tfx translate` needs no file. Retraining rewrites the files; the next
# build picks them up.
add_executable(gen_embedded_file ${CMAKE_SOURCE_DIR}/cmake/gen_embedded_file.cpp)
target_compile_options(gen_embedded_file PRIVATE ${TFX_WARNINGS})
# The built-in teaching GPT (issue 46): data/teaching_gpt/{config.json,model.safetensors,tokenizer.json}
# (and corpus.txt, the sentences it was trained on: the model commands name the words of a prompt it never read),
# written by scripts/train_teaching_gpt.sh (tfx train gpt), opened by every model command as
# `teaching-gpt` (include/tfx/model/builtin_models.hpp); data/teaching_vit/{config.json,
# preprocessor_config.json,model.safetensors} (scripts/train_teaching_vit.sh, tfx train vit) as
# `teaching-vit`. One loop embeds every built-in model's files.
foreach(part teaching_model/model.safetensors:teaching_model_weights teaching_model/vocab.txt:teaching_model_vocab
             teaching_model/corpus.tsv:teaching_model_corpus teaching_model/corpus_en_ko.tsv:teaching_model_corpus_en_ko
             teaching_model/corpus_lengths.tsv:teaching_model_corpus_lengths
             teaching_gpt/config.json:teaching_gpt_config teaching_gpt/model.safetensors:teaching_gpt_weights
             teaching_gpt/tokenizer.json:teaching_gpt_tokenizer teaching_gpt/corpus.txt:teaching_gpt_corpus
             teaching_vit/config.json:teaching_vit_config
             teaching_vit/preprocessor_config.json:teaching_vit_preprocessor teaching_vit/model.safetensors:teaching_vit_weights)
  string(REPLACE ":" ";" pair ${part})
  list(GET pair 0 file)
  list(GET pair 1 symbol)
  set(out ${CMAKE_BINARY_DIR}/generated/${symbol}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND gen_embedded_file ${CMAKE_SOURCE_DIR}/data/${file} ${out} ${symbol}
    DEPENDS gen_embedded_file ${CMAKE_SOURCE_DIR}/data/${file}
    COMMENT "Embedding data/${file}"
    VERBATIM)
  target_sources(tfxcore PRIVATE ${out})
  set_source_files_properties(${out} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)  # each defines its own kBytes
endforeach()
