// --model FILE: a trained translator from a file instead of the built-in one (model_flag.hpp).
#include "cli/commands/train/model_flag.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <memory>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/io/text_file.hpp"
#include "cli/shared_flags.hpp"

namespace tfx::cli {

namespace {

std::string& mf_path() {
  static std::string path;
  return path;
}

// no --model, or --model teaching: the built-in translator
bool builtin() { return mf_path().empty() || mf_path() == "teaching"; }

}  // namespace

std::string model_vocab_path(const std::string& model) {
  const std::string tail = ".safetensors";
  if (model.size() > tail.size() && model.compare(model.size() - tail.size(), tail.size(), tail) == 0)
    return model.substr(0, model.size() - tail.size()) + ".vocab.txt";
  return model + ".vocab.txt";
}

std::string vocab_fingerprint(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

std::string translator_weights_label() {
  if (builtin()) return tr("trained teaching translator");
  return trf("weights: {}", std::filesystem::path(mf_path()).filename().string());
}

void add_model_flag(CLI::App* cmd) {
  add_model_flag(cmd, mf_path());
}

std::string cli_vocab_name() { return builtin() ? std::string("teaching translator") : model_vocab_path(mf_path()); }

std::string cli_vocab_label() {
  const std::size_t n = cli_translator().vocab.size();
  if (builtin()) return trf("the teaching translator's vocabulary ({} tokens)", n);
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
  // the vocabulary, read once: its fingerprint against the one the weights were saved with
  const std::string vocab_path = model_vocab_path(path);
  std::error_code ec;
  if (!std::filesystem::exists(vocab_path, ec) || std::filesystem::is_directory(vocab_path, ec))
    (void)read_vocab(vocab_path);  // says what is wrong with it
  const std::string vocab_bytes = read_text_input(vocab_path, "vocabulary");
  if (const auto it = meta.find(kVocabFingerprintKey); it != meta.end() && vocab_fingerprint(vocab_bytes) != it->second)
    throw Error(fmt::format("--model {}: its vocabulary {} is not the one saved with these weights (the two files come "
                            "from different saves: an interrupted or mixed copy?); write both again with tfx train -o {}",
                            path, vocab_path, path));
  Vocabulary vocab = parse_vocab(vocab_bytes, vocab_path);
  vocab.name = path;
  const auto heads = metadata_heads(meta, path);
  if (!heads) throw Error(fmt::format(N_("--model {}: no nhead in the file's metadata (expected a model written by tfx train)"), path));
  return load_translator(tensors, std::move(vocab), *heads, path);
}

const Translator& cli_translator() {
  static std::unique_ptr<Translator> loaded;
  if (builtin()) return teaching_translator();
  if (!loaded) loaded = std::make_unique<Translator>(read_translator_file(mf_path()));
  return *loaded;
}

}  // namespace tfx::cli
