// The Transformer's size flags, one definition each (model_size_flags.hpp).
#include "cli/flags/model_size_flags.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/flags/validators.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

CLI::Option* size_flag(CLI::App* cmd, const char* name, std::int64_t& value, const char* help, const std::string& note, std::int64_t hi,
                       const SizeBound& bound, bool show_default = true) {
  CLI::Option* o = cmd->add_option(name, value, with_note(help, note))->check(whole_number(1, hi));
  if (show_default) o->capture_default_str();
  if (bound) o->check(command_bound(bound->first, bound->second));
  return o;
}
constexpr std::int64_t kMaxWidth = std::int64_t{1} << 24;
}  // namespace

std::string vocab_size_help(const std::string& note) { return with_note(tr("Tokens in the vocabulary V"), note); }

CLI::Option* add_d_model_flag(CLI::App* cmd, std::int64_t& d_model, const std::string& note, SizeBound bound) {
  return size_flag(cmd, "--d-model", d_model, tr("Model width d_model"), note, kMaxWidth, bound);
}

CLI::Option* add_d_model_flag(CLI::App* cmd, double& d_model, const std::string& note) {
  return cmd->add_option("--d-model", d_model, with_note(tr("Model width d_model"), note))
      ->capture_default_str()
      ->type_name("INT")
      ->check(whole_number(1, kMaxWidth));
}

CLI::Option* add_heads_size_flag(CLI::App* cmd, std::int64_t& heads, const std::string& note, SizeBound bound) {
  return size_flag(cmd, "--heads", heads, tr("Attention heads H"), note, 4096, bound);
}

CLI::Option* add_layers_flag(CLI::App* cmd, std::int64_t& layers, const std::string& note, SizeBound bound) {
  return size_flag(cmd, "--layers", layers, tr("Layers in the stack"), note, 64, bound);
}

CLI::Option* add_ffn_flag(CLI::App* cmd, std::int64_t& ffn, const std::string& note, SizeBound bound, bool show_default) {
  return size_flag(cmd, "--ffn", ffn, tr("Feed-forward width"), note, 65536, bound, show_default);
}

CLI::Option* add_batch_flag(CLI::App* cmd, std::int64_t& batch, const std::string& note, SizeBound bound) {
  return size_flag(cmd, "--batch", batch, tr("Batch size B: examples processed together"), note, kMaxWidth, bound);
}

CLI::Option* add_steps_flag(CLI::App* cmd, std::int64_t& steps, const std::string& note, SizeBound bound) {
  return size_flag(cmd, "--steps", steps, tr("Training steps"), note, std::int64_t{1} << 40, bound);
}

namespace {
CLI::Validator warmups() { return comma_list(N_("warm-up steps"), "4000,8000", whole_number(1, std::int64_t{1} << 40)); }
std::string warmup_help(const std::string& note) {
  return with_note(tr("Warm-up steps of the learning-rate schedule; where a command draws several, comma-separated"), note);
}
}  // namespace

CLI::Option* add_warmup_flag(CLI::App* cmd, std::vector<std::string>& w, const std::string& note) {
  return cmd->add_option("--warmup", w, warmup_help(note))->capture_default_str()->type_name("INT")->check(warmups());
}

CLI::Option* add_warmup_flag(CLI::App* cmd, double& w, const std::string& note) {
  return cmd
      ->add_option_function<std::vector<std::string>>(
          "--warmup",
          [&w](const std::vector<std::string>& values) {
            const std::vector<std::string> items = list_items(values);
            if (items.size() != 1)
              throw usage_error(fmt::format(N_("--warmup: this command takes one warm-up, got {}: {}"), items.size(), fmt::join(items, ",")));
            w = static_cast<double>(whole_number_items(values).front());  // checked by warmups()
          },
          warmup_help(note))
      ->default_str(fmt::format("{:g}", w))
      ->type_name("INT")
      ->check(warmups());
}

}  // namespace tfx::cli
