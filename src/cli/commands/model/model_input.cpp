// The shared part of the `tfx model` subcommands (model_input.hpp).
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/builtin_models.hpp"
#include "cli/commands/model/model_input.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "tfx/io/image_file.hpp"
#include "tfx/io/text_file.hpp"

#include "cli/common.hpp"
#include "cli/heap_policy.hpp"
#include "cli/flags/validators.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/show_token.hpp"

namespace tfx::cli {

void add_model_input(CLI::App* cmd, ModelInput& in, bool text, bool image) {
  cmd->add_option("DIR", in.dir, tr("Checkpoint folder: config.json, model.safetensors (or shards), tokenizer files; or a GGUF file (llama.cpp, Ollama)"))->required();
  if (!text) return;
  in.text_opt = cmd->add_option("TEXT", in.text, tr("The text the model reads (through the checkpoint's own tokenizer)"));
  add_one_ids_flag(cmd, in.ids, "15496,11,616", tr("instead of TEXT; no tokenizer needed"));
  add_no_special_flag(cmd, in.no_special);
  if (image)
    add_image_flag(cmd, nullptr, &in.image, 0, 0,
                   tr("what an image model, ViT, reads instead of TEXT, preprocessed as preprocessor_config.json says"));
}

namespace {

// An image family's input: the picture through its preprocessor_config.json; tokens [CLS], 1 … N.
LoadedInput model_load_picture(const ModelInput& in) {
  if (!in.text.empty() || !in.ids.empty()) throw usage_error(N_("--image FILE goes without TEXT or --ids: a ViT reads the picture alone"));
  LoadedInput l{load_checkpoint(in.dir), std::nullopt, {}, {}, std::nullopt, Tensor()};
  const ModelConfig& c = l.model.config;
  if (!c.family->image())
    throw usage_error(fmt::format(N_("--image {}: {} is a {} checkpoint, which reads text (give TEXT or --ids)"), in.image, in.dir, c.model_type));
  const VitProcessor p = read_vit_processor(in.dir, c);
  if (!p.from_file)
    std::fprintf(stderr, "%s\n",
                 trf("tfx: warning: {} has no preprocessor_config.json: using ViTImageProcessor's defaults (resize to {}×{} bilinear, "
                     "rescale 1/255, mean 0.5, std 0.5)",
                     in.dir, p.width, p.height)
                     .c_str());
  const Image original = read_image(in.image);
  l.picture = vit_resized_picture(original, p);
  l.pixels = vit_pixel_values(*l.picture, p);
  l.tokens.push_back("[CLS]");
  const std::size_t n = (c.image_size / c.patch_size) * (c.image_size / c.patch_size);
  for (std::size_t k = 1; k <= n; ++k) l.tokens.push_back(std::to_string(k));
  return l;
}

// Whether DIR's config.json names an image family (for the error when TEXT or --ids are missing).
bool model_dir_is_image(const std::string& dir) {
  try {
    const std::filesystem::path config = std::filesystem::path(model_files_dir(dir)) / "config.json";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(config, ec)) return false;
    return parse_model_config(read_text_input(config.string(), "config.json"), config.string()).family->image();
  } catch (const Error&) {
    return false;  // the load below says what is wrong
  }
}

}  // namespace

LoadedInput load_input(const ModelInput& in) {
  apply_activations(in.activations);
  keep_freed_blocks();  // the forward pass allocates the same activations layer after layer
  if (!in.image.empty()) return model_load_picture(in);
  if ((in.text.empty() && in.ids.empty() && model_dir_is_image(in.dir)))
    throw usage_error(fmt::format("{} is an image model (ViT): it reads a picture, not TEXT or --ids (tfx model attention|hidden|logits {} "
                                  "--image FILE)", in.dir, in.dir));
  if (in.text.empty() && in.ids.empty() && in.text_opt && in.text_opt->count() > 0)
    throw usage_error(N_("TEXT is empty; expected the text the model reads (or token ids as --ids 1,2,3)"));
  if (in.text.empty() && in.ids.empty())
    throw usage_error(N_("give the TEXT (tokenized by the checkpoint's tokenizer) or --ids 1,2,3"));
  if (!in.text.empty() && !in.ids.empty())
    throw usage_error(N_("give the TEXT (tokenized by the checkpoint's tokenizer) or --ids 1,2,3, not both"));
  LoadedInput l{load_checkpoint(in.dir), std::nullopt, {}, {}, std::nullopt, Tensor()};
  if (l.model.config.family->image())
    throw usage_error(fmt::format(N_("{} is an image model (ViT): it reads a picture, not TEXT or --ids (tfx model attention|hidden|logits {} "
                                  "--image FILE)"), in.dir, in.dir));
  if (!in.ids.empty()) {
    for (const std::string& item : split_items(in.ids)) {
      const std::optional<unsigned long long> v = model_whole_number(item);
      if (!v) throw usage_error(fmt::format(N_("--ids: '{}' is not a token id"), item));
      l.ids.push_back(static_cast<std::size_t>(*v));
    }
    std::error_code ec;
    try {
      l.tokenizer = load_model_tokenizer(in.dir);
    } catch (const Error&) {
      // ids work without a tokenizer; tokens are then shown by number
    }
    for (std::size_t id : l.ids) {
      const std::string t = l.tokenizer ? l.tokenizer->id_to_token(id) : "";
      l.tokens.push_back(t.empty() ? std::to_string(id) : t);
    }
  } else {
    l.tokenizer = load_model_tokenizer(in.dir);
    release_freed_blocks();  // before the weights' pages come in
    const HfEncoding e = l.tokenizer->encode(in.text, !in.no_special);
    if (e.ids.empty()) throw usage_error(fmt::format(N_("TEXT '{}' gives no tokens"), in.text));
    l.ids = e.ids;
    l.tokens = e.readable;
    warn_unseen_words(in.dir, in.text);
  }
  const ModelConfig& c = l.model.config;
  if (!c.position_limit() && l.ids.size() > c.max_positions)
    std::fprintf(stderr, "%s\n",
                 trf("tfx: warning: {} tokens are past max_position_embeddings {}: RoPE runs on, but the model never saw such positions",
                     l.ids.size(), c.max_positions)
                     .c_str());
  return l;
}

void warn_unseen_words(const std::string& dir, const std::string& text) {
  if (!is_builtin_model(dir) || !std::string_view(dir).starts_with(kTeachingGpt)) return;
  const std::vector<std::string> unseen = words_unseen_by_teaching_gpt(text);
  if (unseen.empty()) return;
  constexpr std::size_t kShown = 8;
  std::string list;
  for (std::size_t i = 0; i < unseen.size() && i < kShown; ++i) list += (i ? ", '" : "'") + show_token(unseen[i]) + "'";
  if (unseen.size() > kShown) list += trf(" and {} more", unseen.size() - kShown);
  std::fprintf(stderr, "%s\n",
               trnf("tfx: warning: teaching-gpt never read the word {} in its training sentences (the built-in corpus of short Korean and "
                    "English sentences of a small world): what it says about it is not learned",
                    "tfx: warning: teaching-gpt never read the words {} in its training sentences (the built-in corpus of short Korean and "
                    "English sentences of a small world): what it says about them is not learned",
                    unseen.size(), list)
                   .c_str());
}

ForwardPass model_run(const LoadedInput& l, const ForwardOptions& o) {
  return l.model.config.family->image() ? model_forward_image(l.model, l.pixels, o) : model_forward(l.model, l.ids, o);
}

nlohmann::json model_params(const ModelInput& in, const LoadedInput& l) {
  if (l.picture) return {{"model", in.dir}, {"model_type", l.model.config.model_type}, {"image", in.image}, {"tokens", l.tokens}};
  return {{"model", in.dir}, {"model_type", l.model.config.model_type}, {"tokens", l.tokens}, {"ids", l.ids}};
}

Records top_records(const LoadedInput& l, std::span<const float> logits, std::size_t k, const std::string& name) {
  Records rec;
  rec.name = name;
  rec.columns = {N_("rank"), N_("token"), N_("id"), N_("probability"), N_("logit")};
  long long rank = 1;
  for (const TokenProbability& t : top_probabilities(logits, k))
    rec.rows.push_back({rank++, l.tokenizer ? l.tokenizer->readable(t.id) : std::to_string(t.id), static_cast<long long>(t.id),
                        t.probability, static_cast<double>(t.logit)});
  return rec;
}

}  // namespace tfx::cli
