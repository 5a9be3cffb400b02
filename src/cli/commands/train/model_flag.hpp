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
// The --model translator when one was given, else the built-in teaching translator.
const Translator& cli_translator();
// What the translator's weights are, for titles and headers: "trained teaching translator", or for
// --model FILE "weights: NAME" (the file's name, never its directories).
std::string translator_weights_label();


// The vocabulary whose ids the translator commands print and whose rows their embedding holds:
// "teaching translator" (built in) or the --model's FILE.vocab.txt, for params["vocab"]; its size
// is cli_translator().vocab.size().
std::string cli_vocab_name();
// The same for a header line: "the teaching translator's vocabulary (112 tokens)" or
// "FILE.vocab.txt (N tokens)".
std::string cli_vocab_label();

}  // namespace tfx::cli
