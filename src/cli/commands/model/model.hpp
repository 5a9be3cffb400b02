// `tfx model …`: a local Hugging Face checkpoint folder (config.json, safetensors, tokenizer
// files) opened offline. Each subcommand registers itself from its own file in this folder:
//   model_tokenize.cpp  tfx model tokenize DIR TEXT        (the checkpoint's real tokenizer)
//   model_info.cpp, model_attention.cpp, model_hidden.cpp, model_logits.cpp, model_next.cpp,
//   model_fill.cpp      tfx model info | attention | hidden | logits | next | fill (what they
//                       share: model_input.hpp)
//   model_generate.cpp  tfx model generate DIR TEXT    (KV cache, greedy or sampled)
//   model_lens.cpp, model_ablate.cpp, model_patch.cpp  the microscope: logit lens, head ablation,
//                       activation patching (what they share: model_microscope.hpp)
//   model_quantize.cpp  tfx model quantize SRC --type T -o OUT.gguf [--measure TEXT]
//   model_attention_views.cpp, model_generate_views.cpp  the microscope's attention views:
//                       attention --sink / --neurons, info/generate --cache, generate --html
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "tfx/text/hf_tokenizer.hpp"

namespace tfx::cli {

struct OutputFlags;
struct FigureFlags;

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

// What model_tokenize.cpp and its --compare (model_tokenize_compare.cpp) share: the sequences of
// `text` (the whole text, or each line with `lines`) encoded by `tok`, a progress bar over the
// bytes at a terminal labelled with `file` ("" = TEXT, "-" = stdin)…
std::vector<HfEncoding> encode_document(const HfTokenizer& tok, std::string_view text, bool lines, bool special, bool readable,
                                        const std::string& file, bool offsets = false);
// …and --compare DIR DIR… over `texts` (TEXT's or each --file's, as `files` names them).
void run_model_tokenize_compare(const std::vector<std::string>& dirs, const std::vector<std::string>& files, const std::string& text,
                                const std::vector<std::string>& texts, bool lines, const OutputFlags& out, const FigureFlags& fig);

}  // namespace tfx::cli
