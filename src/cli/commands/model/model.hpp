// `tfx model …`: a local Hugging Face checkpoint folder (config.json, safetensors, tokenizer
// files) opened offline. Each subcommand registers itself from its own file in this folder:
//   model_tokenize.cpp  tfx model tokenize DIR TEXT        (the checkpoint's real tokenizer)
//   model_info.cpp, model_attention.cpp, model_hidden.cpp, model_logits.cpp, model_next.cpp,
//   model_fill.cpp      tfx model info | attention | hidden | logits | next | fill (what they
//                       share: model_input.hpp)
//   model_generate.cpp  tfx model generate DIR TEXT    (KV cache, greedy or sampled)
//   model_lens.cpp, model_ablate.cpp, model_patch.cpp  the microscope: logit lens, head ablation,
//                       activation patching (what they share: model_microscope.hpp)
//   model_quantize.cpp  tfx model quantize SRC --type T -o OUT.gguf [--show TEXT]
//   model_attention_views.cpp, model_generate_views.cpp  the microscope's attention views:
//                       attention --sink / --neurons, info/generate --cache, generate --html
#pragma once
#include <CLI/CLI.hpp>

namespace tfx::cli {

void register_model_tokenize(CLI::App& model);
void register_model_info(CLI::App& model);
void register_model_attention(CLI::App& model);
void register_model_hidden(CLI::App& model);
void register_model_logits(CLI::App& model);
void register_model_next(CLI::App& model);
void register_model_fill(CLI::App& model);
void register_model_generate(CLI::App& model);
void register_model_lens(CLI::App& model);
void register_model_ablate(CLI::App& model);
void register_model_patch(CLI::App& model);
void register_model_quantize(CLI::App& model);

}  // namespace tfx::cli
