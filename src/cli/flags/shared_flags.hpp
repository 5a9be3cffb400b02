// Flags that several commands share, each defined once here with one meaning, one range and one
// help text (docs/architecture.md, "One definition per flag"); the size flags are in
// shape_flags.hpp. tests/cli/flag_table_test.cpp walks every command and fails on a flag name
// whose help, range or type differs between two commands.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tfx::cli {

// --model teaching|DIR|FILE: a model — `teaching` (the built-in translator), a checkpoint folder
// with config.json, or a FILE.safetensors written by `tfx train -o` (vocabulary in
// FILE.vocab.txt). A command that cannot use one kind refuses it in one line naming --model.
CLI::Option* add_model_flag(CLI::App* cmd, std::string& model);

// --temperature,-T T[,T…]: temperatures > 0, comma-separated (the flag may repeat). A command
// that shows one temperature takes the double overload: the same flag (help, range, type), and a
// list or a second value is refused in one line.
// --target: what the model should predict; `note` (a marked string) says what it is on this command
// (trace: the decoder's input words; model ablate: one token).
CLI::Option* add_target_flag(CLI::App* cmd, std::string& target, const char* note);
CLI::Option* add_temperature_flag(CLI::App* cmd, std::vector<std::string>& temperatures);
CLI::Option* add_temperature_flag(CLI::App* cmd, double& temperature);

// --no-progress: no progress bar on stderr.
CLI::Option* add_no_progress_flag(CLI::App* cmd, bool& no_progress);
// --strict: stop with an error at the first item (a query, pair or question) with a word outside
// the vocabulary instead of skipping it.
CLI::Option* add_strict_flag(CLI::App* cmd, bool& strict);

// The word-list evaluations' gensim flags (eval-similarity, eval-analogies): --restrict-vocab N,
// --case-sensitive, --dummy4unknown, --skip-invalid.
CLI::Option* add_restrict_vocab_flag(CLI::App* cmd, std::int64_t& restrict_vocab);
CLI::Option* add_case_sensitive_flag(CLI::App* cmd, bool& case_sensitive);
CLI::Option* add_dummy4unknown_flag(CLI::App* cmd, bool& dummy4unknown);
CLI::Option* add_skip_invalid_flag(CLI::App* cmd, bool& skip_invalid);

// The tokenizer commands' --stats (tokenize, model tokenize) and --no-special (model commands).
CLI::Option* add_stats_flag(CLI::App* cmd, bool& stats);
CLI::Option* add_no_special_flag(CLI::App* cmd, bool& no_special);

// The KV cache's size (model info, model generate): --cache.
CLI::Option* add_cache_flag(CLI::App* cmd, bool& cache);

// The attention experiments (attention, train): --no-pe and --no-scale.
CLI::Option* add_no_pe_flag(CLI::App* cmd, bool& no_pe);
CLI::Option* add_no_scale_flag(CLI::App* cmd, bool& no_scale);

// --compare ITEM…: several things side by side (model tokenize: tokenizer folders; train:
// experiments). `what` (translated) is the command's own note: what the items are and what is drawn.
CLI::Option* add_compare_flag(CLI::App* cmd, std::vector<std::string>& items, const std::string& what);

// --random: seeded random weights even where the built-in teaching translator's trained ones
// would run (attention, encoder, decoder).
CLI::Option* add_random_flag(CLI::App* cmd, bool& random);

// The word-vector file's --embeddings-format NAME and --limit N (the embedding commands, and
// embeddings convert for its IN).
CLI::Option* add_embeddings_format_flag(CLI::App* cmd, std::string& format);
CLI::Option* add_limit_flag(CLI::App* cmd, std::int64_t& limit);

}  // namespace tfx::cli
