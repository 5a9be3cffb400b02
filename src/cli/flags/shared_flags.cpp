// Flags that several commands share, each defined once (shared_flags.hpp).
#include "cli/flags/shared_flags.hpp"

#include <cstdio>

#include "tfx/core/gemm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>

#include "cli/flags/flag_names.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/embeddings/embeddings.hpp"
#include "tfx/model/model_notes.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

CLI::Option* add_model_flag(CLI::App* cmd, std::string& model) {
  return cmd
      ->add_option("--model", model,
                   tr("A model: teaching (the built-in translator), a checkpoint folder with config.json, or a "
                      "FILE.safetensors written by tfx train -o (vocabulary in FILE.vocab.txt)"))
      ->type_name("teaching|DIR|FILE")
      ->option_text("teaching|DIR|FILE");
}

CLI::Option* add_target_flag(CLI::App* cmd, std::string& target, const char* note) {
  return cmd->add_option("--target", target, fmt::format("{} ({})", tr("The target, what the model should predict"), note));
}

namespace {
CLI::Validator temperatures() { return comma_list(N_("temperature values"), "0.5,1,2", positive_number()); }
const char* temperature_help() {
  return tr("Temperature T > 0 dividing the scores before softmax (< 1 sharper, > 1 flatter); where a command shows "
            "several, comma-separated");
}
}  // namespace

CLI::Option* add_temperature_flag(CLI::App* cmd, std::vector<std::string>& t) {
  return cmd->add_option("--temperature,-T", t, temperature_help())->option_text("T[,T…]")->check(temperatures());
}

CLI::Option* add_temperature_flag(CLI::App* cmd, double& t) {
  return cmd
      ->add_option_function<std::vector<std::string>>(
          "--temperature,-T",
          [&t](const std::vector<std::string>& values) {
            const std::vector<std::string> items = list_items(values);
            if (items.size() != 1)
              throw usage_error(fmt::format("--temperature: this command takes one temperature, got {}: {}", items.size(),
                                            fmt::join(items, ",")));
            t = std::strtod(items.front().c_str(), nullptr);  // checked by temperatures()
          },
          temperature_help())
      ->option_text("T[,T…]")
      ->check(temperatures());
}

CLI::Option* add_no_progress_flag(CLI::App* cmd, bool& no_progress) {
  return cmd->add_flag("--no-progress", no_progress, tr("No progress bar or progress lines on stderr"));
}

CLI::Option* add_strict_flag(CLI::App* cmd, bool& strict) {
  return cmd->add_flag("--strict", strict,
                       tr("Stop with an error (exit 1) at the first query, pair or question with a word outside the "
                          "vocabulary instead of skipping it"));
}

CLI::Option* add_restrict_vocab_flag(CLI::App* cmd, std::int64_t& restrict_vocab) {
  return cmd->add_option("--restrict-vocab", restrict_vocab, tr("Use only the first N words (the most frequent): items with other words are skipped"))
      ->capture_default_str()
      ->check(whole_number(1, std::int64_t{1} << 40));
}

CLI::Option* add_case_sensitive_flag(CLI::App* cmd, bool& case_sensitive) {
  return cmd->add_flag("--case-sensitive", case_sensitive, tr("Compare words as written (default: upper-case both sides, as gensim)"));
}

CLI::Option* add_dummy4unknown_flag(CLI::App* cmd, bool& dummy4unknown) {
  return cmd->add_flag("--dummy4unknown", dummy4unknown,
                       tr("Keep items with an unknown word instead of skipping them: a pair scores cosine 0, a question "
                          "counts as a wrong answer (gensim dummy4unknown=True)"));
}

CLI::Option* add_skip_invalid_flag(CLI::App* cmd, bool& skip_invalid) {
  return cmd->add_flag("--skip-invalid", skip_invalid, tr("Skip malformed lines (gensim does) instead of stopping"));
}

CLI::Option* add_activations_flag(CLI::App* cmd, std::string& activations) {
  return cmd
      ->add_option("--activations", activations,
                   tr("Decoding with a GGUF file's Q8_0/Q4_0/Q5_0/Q4_K/Q6_K weights: f32 = the exact float forward on the dequantized "
                      "weights; q8 = llama.cpp's arithmetic (the activations quantized to 8 bits, integer dot products): faster, "
                      "and the outputs then differ slightly from the exact forward. A prompt of more than 4 tokens takes it too "
                      "(Q8_0/Q4_0/Q5_0) on a CPU with AMX-INT8 tiles, as llama.cpp does; TFX_AMX=off computes as a CPU without "
                      "them"))
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& v) -> std::string { return v == "f32" || v == "q8" ? std::string() : fmt::format(N_("expected f32 or q8, got '{}'"), v); },
          "{f32,q8}"));
}

void apply_activations(const std::string& activations) {
  const bool q8 = activations == "q8";
  set_quant_activations(q8 ? QuantActivations::q8 : QuantActivations::f32);
  if (q8)
    std::fprintf(stderr, "%s\n",
                 tr("tfx: note: --activations q8: llama.cpp's 8-bit arithmetic for the quantized weights; the outputs differ "
                    "slightly from the exact forward"));
}

CLI::Option* add_cache_flag(CLI::App* cmd, bool& cache) {
  return cmd->add_flag("--cache", cache,
                       tr("The KV cache's size: 2 × layers × kv_heads × head_dim × bytes per token, F32 and BF16, the model's "
                          "grouping and multi-head, at the context length and at the length asked (model info: --len; model generate: "
                          "the prompt + -n)"));
}

CLI::Option* add_stats_flag(CLI::App* cmd, bool& stats) {
  return cmd->add_flag("--stats", stats,
                       tr("What the text costs: characters, bytes and words per script (Hangul, Latin, Han, other), tokens "
                          "per word and per character, [UNK] / byte-fallback share, the most frequent tokens"));
}

CLI::Option* add_no_special_flag(CLI::App* cmd, bool& no_special) {
  return cmd->add_flag("--no-special", no_special, tr("Leave out the special tokens the tokenizer adds ([CLS] … [SEP], <s>)"));
}

CLI::Option* add_no_pe_flag(CLI::App* cmd, bool& no_pe) {
  return cmd->add_flag("--no-pe", no_pe, tr("No positional encoding: X = the token embeddings only"));
}

CLI::Option* add_compare_flag(CLI::App* cmd, std::vector<std::string>& items, const std::string& what) {
  return cmd->add_option("--compare", items, std::string(tr("Compare several side by side")) + " (" + what + ")")->expected(1, -1)->option_text("ITEM");
}

CLI::Option* add_no_scale_flag(CLI::App* cmd, bool& no_scale) {
  return cmd->add_flag("--no-scale", no_scale, tr("Attention scores without 1/√d_k: softmax(QKᵀ)V"));
}

CLI::Option* add_embeddings_format_flag(CLI::App* cmd, std::string& format) {
  return cmd->add_option("--embeddings-format", format, tr("Format of the word-vector file: ") + choice_list<EmbeddingFormat>(kEmbeddingFormatChoices, true))
      ->capture_default_str()
      ->check(one_of<EmbeddingFormat>(kEmbeddingFormatChoices));
}

CLI::Option* add_limit_flag(CLI::App* cmd, std::int64_t& limit) {
  return cmd->add_option("--limit", limit, tr("Read only the first N words (the most frequent, in GloVe/word2vec order); 0 = all"))
      ->capture_default_str()
      ->check(whole_number(0, std::int64_t{1} << 40));
}

CLI::Option* add_random_flag(CLI::App* cmd, bool& random) {
  return cmd->add_flag("--random", random,
                       tr("Seeded random weights even for a sentence the built-in teaching translator knows (its trained "
                          "weights are the default there)"));
}

std::string with_note(const char* help, const std::string& note) { return note.empty() ? std::string(help) : fmt::format("{} ({})", help, note); }

CLI::Option* add_sentence_flag(CLI::App* cmd, std::string& sentence, const std::string& note) {
  return cmd->add_option("--sentence", sentence, with_note(tr("The input sentence"), note));
}

std::string file_flag_help(const std::string& note) {
  return with_note(tr("Tokenize this UTF-8 file (- = standard input) instead of TEXT"), note);
}

CLI::Option* add_lower_flag(CLI::App* cmd, bool& lower, const std::string& note) {
  return cmd->add_flag("--lower", lower, with_note(tr("Lower-case the text first"), note));
}

CLI::Option* add_translator_flag(CLI::App* cmd, bool& translator, const std::string& note) {
  return cmd->add_flag("--translator", translator, with_note(tr("Use the built-in teaching translator (tfx translate: 112 tokens, d = 64)"), note));
}

CLI::Option* add_pos_flag(CLI::App* cmd, std::int64_t& pos, const std::string& note) {
  return cmd->add_option("--pos", pos, with_note(tr("Position p"), note))->check(whole_number(0, std::int64_t{1} << 40));
}

CLI::Option* add_pos_flag(CLI::App* cmd, std::optional<std::int64_t>& pos, const std::string& note) {
  return cmd->add_option("--pos", pos, with_note(tr("Position p"), note))->check(whole_number(0, std::int64_t{1} << 40));
}

CLI::Option* add_weights_flag(CLI::App* cmd, std::string& weights, const std::string& note) {
  return cmd->add_option("--weights", weights, with_note(tr("A PyTorch state_dict as .safetensors (F32/F16/BF16) or a directory of <key>.npy files"), note))
      ->type_name("FILE");
}

CLI::Option* add_pad_flag(CLI::App* cmd, std::int64_t& pad, const std::string& note) {
  return cmd->add_option("--pad", pad, with_note(tr("Padding mask: the last N key positions are never attended to"), note))
      ->capture_default_str()
      ->check(whole_number(0, std::int64_t{1} << 40));
}

namespace {
CLI::Validator dk_list() { return comma_list(N_("key widths d_k"), "1,8,64,512", whole_number(1, std::int64_t{1} << 24)); }
std::string dk_help(const std::string& note) {
  return with_note(tr("Key width d_k: the columns of each head's Q and K; where a command measures several, comma-separated"), note);
}
}  // namespace

CLI::Option* add_dk_flag(CLI::App* cmd, std::vector<std::string>& dks, const std::string& note) {
  return cmd->add_option("--dk", dks, dk_help(note))->capture_default_str()->type_name("INT")->check(dk_list());
}

CLI::Option* add_dk_flag(CLI::App* cmd, std::optional<std::int64_t>& dk, const std::string& note, std::int64_t max) {
  return cmd
      ->add_option_function<std::vector<std::string>>(
          "--dk",
          [&dk, max](const std::vector<std::string>& values) {
            const std::vector<std::int64_t> items = whole_number_items(values);  // checked by dk_list()
            if (items.size() != 1 || items.front() > max)
              throw usage_error(fmt::format(N_("--dk: this command takes one d_k from 1 to {}, got '{}'"), max,
                                            fmt::join(list_items(values), ",")));
            dk = items.front();
          },
          dk_help(note))
      ->type_name("INT")
      ->check(dk_list());
}

std::string ids_flag_help(const std::string& note) { return with_note(tr("Token ids, comma-separated"), note); }

CLI::Option* add_one_ids_flag(CLI::App* cmd, std::string& ids, const std::string& example, const std::string& note) {
  return cmd
      ->add_option_function<std::vector<std::string>>(
          "--ids",
          [&ids](const std::vector<std::string>& values) {
            if (values.size() != 1)
              throw usage_error(fmt::format(N_("--ids: this command reads one sequence: give its ids in one comma-separated list, got {} lists"),
                                            values.size()));
            ids = values.front();
          },
          ids_flag_help(note))
      ->check(comma_list("ids", example));
}

CLI::Option* add_image_flag(CLI::App* cmd, std::int64_t* side, std::string* picture, std::int64_t lo, std::int64_t hi,
                            const std::string& note) {
  return cmd
      ->add_option_function<std::string>(
          "--image",
          [side, picture, lo, hi](const std::string& v) {
            // a number (or what was meant as one: -3, 2.5, 1e3) is a side; anything else a file
            const bool number = !v.empty() && v.find_first_not_of("0123456789+-.eE") == std::string::npos &&
                                v.find_first_of("0123456789") != std::string::npos;
            if (number && !side)
              throw usage_error(fmt::format(N_("--image {}: this command reads a picture file, not a side in pixels"), v), {"image"});
            if (!number && !picture)
              throw usage_error(fmt::format(N_("--image {}: this command takes a side in pixels, not a picture file"), v), {"image"});
            if (number) {
              if (v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos || std::stoll(v) < lo || std::stoll(v) > hi)
                throw usage_error(picture ? fmt::format(N_("--image: expected a side from {} to {} pixels or a picture file, got '{}'"), lo, hi, v)
                                          : fmt::format(N_("--image: expected a side from {} to {} pixels, got '{}'"), lo, hi, v),
                                  {"image"});
              *side = std::stoll(v);
            } else {
              *picture = v;
            }
          },
          with_note(tr("An image: a picture file (PNG, JPEG, …), or its side N in pixels where the command makes the pictures"), note))
      ->type_name("N|FILE");
}

std::string top_flag_help(const std::string& note) { return with_note(tr("How many to list"), note); }

std::string words_flag_help(const std::string& note) { return with_note(tr("Vocabulary words, comma-separated"), note); }

CLI::Validator words_flag_check() { return comma_list(N_("vocabulary words"), "dog,cat,car"); }

CLI::Option* add_head_flag(CLI::App* cmd, std::string& head, const std::string& note) {
  return cmd->add_option("--head", head, with_note(tr("Head, from 0, or all"), note))->capture_default_str();
}

std::optional<std::size_t> pick_head(const std::string& text, std::size_t heads) {
  if (text == "all") return std::nullopt;
  const std::optional<unsigned long long> h = model_whole_number(text);
  if (!h) throw usage_error(fmt::format(N_("{} {}: expected a {} number from 0 or all"), "--head", text, "head"));
  if (*h >= heads) throw usage_error(fmt::format(N_("--head {}: the model has {} heads (0 … {})"), text, heads, heads - 1));
  return static_cast<std::size_t>(*h);
}

CLI::Option* add_show_flag(CLI::App* cmd, std::string& show, const std::string& note) {
  return cmd->add_option("--show", show, with_note(tr("Matrices to print, by the steps' names, comma-separated, or all"), note));
}

namespace {
CLI::Option* add_matrix_flag(CLI::App* cmd, const char* name, std::string& value, const char* help, const std::string& note) {
  return cmd->add_option(name, value, with_note(help, note))
      ->type_name("FILE|ROWS")
      ->option_text("FILE|ROWS")
      ->check(non_empty_path(N_("give a JSON, CSV or .npy file, or the rows inline like 1,0;0,1")));
}
}  // namespace

CLI::Option* add_x_flag(CLI::App* cmd, std::string& x, const std::string& note) {
  return add_matrix_flag(cmd, "--x", x, tr("The input matrix X: a JSON, CSV or .npy file, or its rows inline as 4,2,3,5;2,1,-3,2 with ';' between rows"), note);
}

CLI::Option* add_q_flag(CLI::App* cmd, std::string& q, const std::string& note) {
  return add_matrix_flag(cmd, "--q", q, tr("Queries Q: a JSON, CSV or .npy file, or the rows inline as 1,0;0,1 with ';' between rows"), note);
}

CLI::Option* add_k_flag(CLI::App* cmd, std::string& k, const std::string& note) {
  return add_matrix_flag(cmd, "--k", k, tr("Keys K: a JSON, CSV or .npy file, or the rows inline as 1,0;0,1 with ';' between rows"), note);
}

}  // namespace tfx::cli
