// The training commands' shared flags (train_flags.hpp).
#include "cli/commands/train/train_flags.hpp"

#include "cli/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {
std::string tf_with_note(const std::string& help, const std::string& note) { return note.empty() ? help : help + " (" + note + ")"; }
}  // namespace

CLI::Option* add_train_steps_flag(CLI::App* cmd, std::int64_t& steps) {
  return cmd->add_option("--steps", steps, tr("Optimizer steps"))->capture_default_str()->check(whole_number(1, 1000000));
}

CLI::Option* add_train_d_model_flag(CLI::App* cmd, std::int64_t& d_model) {
  return cmd->add_option("--d-model", d_model, tr("Model width d_model"))->capture_default_str()->check(whole_number(2, 1024));
}

CLI::Option* add_train_heads_flag(CLI::App* cmd, std::int64_t& heads) {
  return cmd->add_option("--heads", heads, tr("Attention heads (must divide --d-model)"))->capture_default_str()->check(whole_number(1, 64));
}

CLI::Option* add_train_threads_flag(CLI::App* cmd, std::int64_t& threads) {
  return cmd->add_option("--threads", threads, tr("Worker threads (0 = every core, at most 8); the result depends only on this number"))
      ->capture_default_str()
      ->check(whole_number(0, 64));
}

CLI::Option* add_train_warmup_flag(CLI::App* cmd, double& warmup, const std::string& note) {
  return cmd->add_option("--warmup", warmup, tf_with_note(tr("Warm-up steps of the learning-rate schedule"), note))
      ->capture_default_str()
      ->check(positive_number());
}

CLI::Option* add_train_every_flag(CLI::App* cmd, std::int64_t& every, const std::string& note) {
  return cmd->add_option("--every", every, tf_with_note(tr("Held-out scores and, when piped, a progress line every N steps"), note))
      ->capture_default_str()
      ->check(whole_number(1, 1000000));
}

CLI::Option* add_train_lr_flag(CLI::App* cmd, double& lr) {
  return cmd->add_option("--lr", lr, tr("Peak learning rate of Adam"))->capture_default_str()->check(positive_number());
}

}  // namespace tfx::cli
