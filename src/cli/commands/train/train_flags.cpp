// The training commands' shared flags (train_flags.hpp).
#include "cli/flags/model_size_flags.hpp"
#include "cli/commands/train/train_flags.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "cli/commands/train/train_compare.hpp"
#include "cli/flags/flag_names.hpp"
#include "tfx/model/translator.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {
std::string tf_with_note(const std::string& help, const std::string& note) { return note.empty() ? help : help + " (" + note + ")"; }
}  // namespace

CLI::Option* add_train_steps_flag(CLI::App* cmd, std::int64_t& steps) {
  return add_steps_flag(cmd, steps, tr("optimizer steps, at most 1000000"), SizeBound{{1, 1000000}});
}

CLI::Option* add_train_d_model_flag(CLI::App* cmd, std::int64_t& d_model) {
  return add_d_model_flag(cmd, d_model, tr("training: 2…1024"), SizeBound{{2, 1024}});
}

CLI::Option* add_train_heads_flag(CLI::App* cmd, std::int64_t& heads) {
  return add_heads_size_flag(cmd, heads, tr("training: 1…64; H must divide --d-model"), SizeBound{{1, 64}});
}

unsigned train_threads(std::int64_t threads) {
  return threads > 0 ? static_cast<unsigned>(threads) : std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

CLI::Option* add_train_threads_flag(CLI::App* cmd, std::int64_t& threads) {
  return cmd->add_option("--threads", threads, tr("Worker threads (0 = every core, at most 8); the result depends only on this number"))
      ->capture_default_str()
      ->check(whole_number(0, 64));
}

CLI::Option* add_train_warmup_flag(CLI::App* cmd, double& warmup, const std::string& note) {
  return add_warmup_flag(cmd, warmup, note);
}

CLI::Option* add_train_every_flag(CLI::App* cmd, std::int64_t& every, const std::string& note) {
  return cmd->add_option("--every", every, tf_with_note(tr("Held-out scores and, when piped, a progress line every N steps"), note))
      ->capture_default_str()
      ->check(whole_number(1, 1000000));
}

CLI::Option* add_train_lr_flag(CLI::App* cmd, double& lr) {
  return cmd->add_option("--lr", lr, tr("Peak learning rate of Adam"))->capture_default_str()->check(positive_number());
}

void add_train_experiment_flags(CLI::App* cmd, bool& pre_ln, bool& no_warmup, std::vector<std::string>& compare, std::string& corpus,
                                std::string& pairs, double& test_fraction) {
  cmd->add_flag("--pre-ln", pre_ln, tr("Experiment: pre-LN layers, x + f(LayerNorm(x)), instead of post-LN"));
  cmd->add_flag("--no-warmup", no_warmup,
                tr("Experiment: no warm-up; the learning rate starts at the schedule's peak and decays as it would after --warmup steps"));
  add_compare_flag(cmd, compare,
                   tr("train these experiments, same seed and batches (--threads N: up to N side by side), and draw them together: a comma list of "
                      "pe, no-pe, scale, no-scale, post-ln, pre-ln, warmup, no-warmup, and the --pe choices sinusoidal, learned, rope, "
                      "none, joined by + to combine, e.g. post-ln+no-warmup; the other flags apply to every run; with --train-max-len "
                      "the figure is accuracy by length"))
      ->delimiter(',')
      ->check(compare_item_validator());
  CLI::Option* corpus_opt = cmd->add_option("--corpus", corpus,
                  tr("The built-in corpus: ko-en (Korean → English, the lecture's), en-ko (English → Korean, where word order "
                     "carries who does what: the word-order experiment) or lengths (lists of 1 to 18 animals, English → Korean "
                     "word for word: the extrapolation experiment, with --train-max-len)"))
      ->capture_default_str()
      ->check(CLI::IsMember({"ko-en", "en-ko", "lengths"}));
  cmd->add_option("--pairs", pairs, tr("Your own pairs: a UTF-8 file of source<TAB>target lines (default: the built-in corpus)"))
      ->check(non_empty_path("a .tsv file"))
      ->excludes(corpus_opt);
  cmd->add_option("--test-fraction", test_fraction, tr("With --pairs: the fraction of pairs held out for testing"))
      ->capture_default_str()
      ->check(number_in(0.0, 0.9));
}

CLI::Option* add_train_pe_flag(CLI::App* cmd, std::string& pe) {
  return cmd->add_option("--pe", pe,
                         tr("Experiment: the positional encoding, sinusoidal (the lecture's), learned (a trained table), rope (q and k "
                            "rotated in the self-attention) or none (as --no-pe); stored with the model"))
      ->capture_default_str()
      ->check(one_of<PositionalEncoding>(kPositionalEncodingChoices));
}

CLI::Option* add_train_max_len_flag(CLI::App* cmd, std::int64_t& max_len) {
  return cmd->add_option("--train-max-len", max_len,
                         tr("Experiment: train only on the sentences of at most N source words, and report held-out accuracy by "
                            "length (the extrapolation experiment, e.g. --corpus lengths --train-max-len 6)"))
      ->option_text("N")
      ->check(whole_number(1, 64));
}

PositionalEncoding train_positional_encoding(const std::string& pe_name, const CLI::Option* pe_opt, bool no_pe, std::int64_t d_model,
                                             std::int64_t heads, const std::vector<std::string>& compare) {
  PositionalEncoding pe = parse_positional_encoding(pe_name, "--pe");
  if (no_pe) {
    if (pe_opt && pe_opt->count() > 0 && pe != PositionalEncoding::none)
      throw usage_error(fmt::format(N_("--no-pe and --pe {} disagree; --no-pe is --pe none, give one of them"), pe_name));
    pe = PositionalEncoding::none;
  }
  const bool rope = pe == PositionalEncoding::rope || std::find(compare.begin(), compare.end(), "rope") != compare.end();
  if (rope && heads > 0 && d_model % heads == 0 && (d_model / heads) % 2 != 0)
    throw usage_error(fmt::format(N_("--pe rope rotates pairs of a head's columns: --d-model {} / --heads {} = {} is odd; expected an "
                                     "even head width"),
                                  d_model, heads, d_model / heads));
  return pe;
}

}  // namespace tfx::cli
