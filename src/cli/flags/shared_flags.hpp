// Flags that several commands share, each defined once here with one meaning, one range and one
// help text (docs/architecture.md, "One definition per flag"); the size flags are in
// shape_flags.hpp. tests/cli/flag_table_test.cpp walks every command and fails on a flag name
// whose help, range or type differs between two commands.
#pragma once
#include <CLI/CLI.hpp>

#include "cli/flags/validators.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfx::cli {

// A shared flag's help: "HELP", or "HELP (NOTE)" with the command's own words about it.
std::string with_note(const char* help, const std::string& note);

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

// --activations f32|q8 (model generate, next, logits): how a GGUF model's quantized weights meet
// the activations while decoding (tfx/core/gemm.hpp's QuantActivations); apply_activations sets it
// process-wide and, for q8, says on stderr that the outputs are llama.cpp's arithmetic.
CLI::Option* add_activations_flag(CLI::App* cmd, std::string& activations);
void apply_activations(const std::string& activations);

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

// The input flags several commands share, one help each; `note` (translated, may be empty) is the
// command's final parenthesis on the same meaning.
// --sentence TEXT: the input sentence.
CLI::Option* add_sentence_flag(CLI::App* cmd, std::string& sentence, const std::string& note);
// --file FILE: a UTF-8 file (- = standard input) to tokenize instead of TEXT (the help; tokenize keeps
// one file, model tokenize takes them all).
std::string file_flag_help(const std::string& note);
// --lower: lower-case the text first.
CLI::Option* add_lower_flag(CLI::App* cmd, bool& lower, const std::string& note);
// --translator: the built-in teaching translator (its embedding table, or its vocabulary).
CLI::Option* add_translator_flag(CLI::App* cmd, bool& translator, const std::string& note);
// --pos P: a position p (0 … 2^40).
CLI::Option* add_pos_flag(CLI::App* cmd, std::int64_t& pos, const std::string& note);
CLI::Option* add_pos_flag(CLI::App* cmd, std::optional<std::int64_t>& pos, const std::string& note);
// --weights FILE: a PyTorch state_dict as .safetensors or a directory of <key>.npy files.
CLI::Option* add_weights_flag(CLI::App* cmd, std::string& weights, const std::string& note);
// --pad N: padding, the last N key positions never attended to (≥ 0).
CLI::Option* add_pad_flag(CLI::App* cmd, std::int64_t& pad, const std::string& note);
// --top N (and -k, where `k_alias`): how many to list, 0 … 2^20 (0 = none where the command allows
// it); the command's own bound lo…hi (command_bound) and its note say what is listed.
std::string top_flag_help(const std::string& note);
template <class T>
CLI::Option* add_top_flag(CLI::App* cmd, T& top, const std::string& note, std::int64_t lo, std::int64_t hi, bool k_alias) {
  constexpr std::int64_t kMaxTop = std::int64_t{1} << 20;
  CLI::Option* o = cmd->add_option(k_alias ? "-k,--top" : "--top", top, top_flag_help(note))
                       ->capture_default_str()
                       ->type_name("INT")
                       ->check(whole_number(0, kMaxTop));
  if (lo != 0 || hi != kMaxTop) o->check(command_bound(lo, hi));
  return o;
}
// --dk D[,D…]: the key width d_k (1 … 2^24, comma-separated where a command measures several:
// attention variance). A command that builds one attention takes the optional overload: the same
// flag, one value of at most `max` (a list or a larger value refused in one line).
CLI::Option* add_dk_flag(CLI::App* cmd, std::vector<std::string>& dks, const std::string& note);
CLI::Option* add_dk_flag(CLI::App* cmd, std::optional<std::int64_t>& dk, const std::string& note, std::int64_t max);
// --ids I[,I…]: token ids, comma-separated (the help; lookup repeats the flag for a batch, the
// model commands take one sequence: add_one_ids_flag refuses a second --ids in one line).
std::string ids_flag_help(const std::string& note);
CLI::Option* add_one_ids_flag(CLI::App* cmd, std::string& ids, const std::string& example, const std::string& note);
// --image N|FILE: a picture file (PNG, JPEG, …), or its side N in pixels where the command makes
// the pictures. `side` (nullptr: this command reads a file only) takes a number in lo…hi,
// `picture` (nullptr: a side only) a file name; what the command cannot use is refused in one line.
CLI::Option* add_image_flag(CLI::App* cmd, std::int64_t* side, std::string* picture, std::int64_t lo, std::int64_t hi,
                            const std::string& note);
// --head H|all: one attention head, from 0, or all (model attention; trace draws one head and
// refuses all). pick_head reads it: nullopt for all, else a head < `heads` (errors name --head).
CLI::Option* add_head_flag(CLI::App* cmd, std::string& head, const std::string& note);
std::optional<std::size_t> pick_head(const std::string& text, std::size_t heads);
// --show NAME[,NAME…]|all: the matrices to print, by the steps' names (attention, encoder,
// decoder, trace); each command checks the names it knows after parsing.
CLI::Option* add_show_flag(CLI::App* cmd, std::string& show, const std::string& note);
// The matrix inputs, each a JSON, CSV or .npy file or the rows inline ("4,2,3,5;2,1,-3,2", ';'
// between rows), read by read_matrix_arg (tfx/io/matrix_io.hpp): --x the input matrix X
// (attention, encoder, decoder, layernorm), --q the queries Q and --k the keys K (attention,
// rope relative, which then checks for one row after parsing).
CLI::Option* add_x_flag(CLI::App* cmd, std::string& x, const std::string& note);
CLI::Option* add_q_flag(CLI::App* cmd, std::string& q, const std::string& note);
CLI::Option* add_k_flag(CLI::App* cmd, std::string& k, const std::string& note);
// --words W[,W…]: vocabulary words, comma-separated; the flag may repeat.
std::string words_flag_help(const std::string& note);
CLI::Validator words_flag_check();
template <class T>
CLI::Option* add_words_flag(CLI::App* cmd, T& words, const std::string& note) {
  return cmd->add_option("--words", words, words_flag_help(note))->check(words_flag_check());
}

}  // namespace tfx::cli
