// --model FILE: a trained translator from a file instead of the built-in one (model_flag.hpp); the
// loading is the library's (read_translator_file, tfx/model/translator.hpp).
#include "cli/commands/train/model_flag.hpp"

#include <filesystem>
#include <memory>

#include "tfx/core/i18n.hpp"
#include "tfx/io/text_file.hpp"
#include "cli/flags/shared_flags.hpp"

namespace tfx::cli {

namespace {

std::string& mf_path() {
  static std::string path;
  return path;
}

// no --model, or --model teaching: the built-in translator
bool builtin() { return mf_path().empty() || mf_path() == "teaching"; }

}  // namespace

std::string translator_weights_label() {
  if (builtin()) return tr("trained teaching translator");
  return trf("weights: {}", std::filesystem::path(mf_path()).filename().string());
}

void add_model_flag(CLI::App* cmd) {
  add_model_flag(cmd, mf_path());
}

std::string cli_vocab_name() { return builtin() ? std::string("teaching translator") : translator_vocab_path(mf_path()); }

std::string cli_vocab_label() {
  const std::size_t n = cli_translator().vocab.size();
  if (builtin()) return trf("the teaching translator's vocabulary ({} tokens)", n);
  return trf("{} ({} tokens)", translator_vocab_path(mf_path()), n);
}

const Translator& cli_translator() {
  static std::unique_ptr<Translator> loaded;
  if (builtin()) return teaching_translator();
  if (!loaded) loaded = std::make_unique<Translator>(read_translator_file(mf_path()));
  return *loaded;
}

}  // namespace tfx::cli
