// --model FILE: a trained translator from a file instead of the built-in one (model_flag.hpp); the
// loading is the library's (read_translator_file, tfx/model/translator.hpp).
#include "cli/commands/train/model_flag.hpp"

#include <filesystem>
#include <memory>

#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

std::string& mf_path() {
  static std::string path;
  return path;
}

}  // namespace

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

std::string cli_vocab_name() { return mf_path().empty() ? std::string("teaching translator") : translator_vocab_path(mf_path()); }

std::string cli_vocab_label() {
  const std::size_t n = cli_translator().vocab.size();
  if (mf_path().empty()) return trf("the teaching translator's vocabulary ({} tokens)", n);
  return trf("{} ({} tokens)", translator_vocab_path(mf_path()), n);
}

const Translator& cli_translator() {
  static std::unique_ptr<Translator> loaded;
  if (mf_path().empty()) return teaching_translator();
  if (!loaded) loaded = std::make_unique<Translator>(read_translator_file(mf_path()));
  return *loaded;
}

}  // namespace tfx::cli
