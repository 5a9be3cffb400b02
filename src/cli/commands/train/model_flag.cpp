// --model FILE: a trained translator from a file instead of the built-in one (model_flag.hpp).
#include "cli/commands/train/model_flag.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

std::string& mf_path() {
  static std::string path;
  return path;
}

}  // namespace

std::string model_vocab_path(const std::string& model) {
  const std::string tail = ".safetensors";
  if (model.size() > tail.size() && model.compare(model.size() - tail.size(), tail.size(), tail) == 0)
    return model.substr(0, model.size() - tail.size()) + ".vocab.txt";
  return model + ".vocab.txt";
}

std::string translator_weights_label() {
  if (mf_path().empty()) return tr("trained teaching translator");
  return trf("weights: {}", std::filesystem::path(mf_path()).filename().string());
}

void add_model_flag(CLI::App* cmd) {
  cmd->add_option_function<std::string>(
         "--model", [](const std::string& p) { mf_path() = p; },
         tr("A model written by tfx train -o FILE.safetensors (vocabulary in FILE.vocab.txt) instead of the built-in translator"))
      ->type_name("FILE");
}

std::string cli_vocab_name() { return mf_path().empty() ? std::string("teaching translator") : model_vocab_path(mf_path()); }

std::string cli_vocab_label() {
  const std::size_t n = cli_translator().vocab.size();
  if (mf_path().empty()) return trf("the teaching translator's vocabulary ({} tokens)", n);
  return trf("{} ({} tokens)", model_vocab_path(mf_path()), n);
}

Translator read_translator_file(const std::string& path) {
  TensorMetadata meta;
  const TensorMap tensors = read_safetensors(path, &meta);
  const auto says = [&](const char* key, const char* value) {
    const auto it = meta.find(key);
    return it != meta.end() && it->second == value;
  };
  if (says("norm_first", "true") || says("positional_encoding", "none") || says("scale_scores", "false"))
    throw Error(fmt::format(N_("--model {}: trained with --pre-ln, --no-pe or --no-scale; the translator commands run "
                            "the lecture's model (post-LN, sinusoidal PE, 1/√d_k)"),
                            path));
  Vocabulary vocab = read_vocab(model_vocab_path(path));
  vocab.name = path;
  const auto heads = metadata_heads(meta, path);
  if (!heads) throw Error(fmt::format(N_("--model {}: no nhead in the file's metadata (expected a model written by tfx train)"), path));
  return load_translator(tensors, std::move(vocab), *heads, path);
}

const Translator& cli_translator() {
  static std::unique_ptr<Translator> loaded;
  if (mf_path().empty()) return teaching_translator();
  if (!loaded) loaded = std::make_unique<Translator>(read_translator_file(mf_path()));
  return *loaded;
}

}  // namespace tfx::cli
