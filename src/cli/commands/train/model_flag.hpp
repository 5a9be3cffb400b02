// --model FILE of the translator commands (translate, trace, attention, encoder, decoder): a model
// written by `tfx train -o FILE.safetensors` (vocabulary in FILE.vocab.txt beside it) used instead
// of the built-in teaching translator. The flag only records the path; the model is loaded, checked
// and kept on first use.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "tfx/model/translator.hpp"

namespace tfx::cli {

// Adds --model FILE to a command.
void add_model_flag(CLI::App* cmd);
// A translator written by `tfx train -o FILE.safetensors` (vocabulary beside it), checked: errors
// name --model FILE.
Translator read_translator_file(const std::string& path);
// The --model translator when one was given, else the built-in teaching translator.
const Translator& cli_translator();
// What the translator's weights are, for titles and headers: "trained teaching translator", or for
// --model FILE "weights: NAME" (the file's name, never its directories).
std::string translator_weights_label();
// The vocabulary file beside a model: FILE.safetensors → FILE.vocab.txt (else FILE + ".vocab.txt").
std::string model_vocab_path(const std::string& model);

// The fingerprint of a vocabulary file's bytes (FNV-1a, 64 bits, as 16 hex digits) that tfx train
// stores in the weights' metadata under kVocabFingerprintKey: --model refuses a vocabulary whose
// fingerprint differs (the two files come from different saves). Models without the key load as
// before.
inline constexpr const char* kVocabFingerprintKey = "vocab_fnv1a64";
std::string vocab_fingerprint(std::string_view bytes);

// The vocabulary whose ids the translator commands print and whose rows their embedding holds:
// "teaching translator" (built in) or the --model's FILE.vocab.txt, for params["vocab"]; its size
// is cli_translator().vocab.size().
std::string cli_vocab_name();
// The same for a header line: "the teaching translator's vocabulary (112 tokens)" or
// "FILE.vocab.txt (N tokens)".
std::string cli_vocab_label();

}  // namespace tfx::cli
