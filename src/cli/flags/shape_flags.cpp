// The shared size flags of the positional commands (--len, PE's --dim and --base, RoPE's --dim):
// one definition, one limit and one help text each.
#include "cli/flags/shape_flags.hpp"

#include <fmt/format.h>

#include "cli/flags/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {
// "WHAT" or "WHAT (NOTE)"
std::string shape_flag_help(const char* what, const std::string& note) {
  return note.empty() ? std::string(what) : fmt::format("{} ({})", what, note);
}
// "Head dimension D (even)" or "Head dimension D (even; NOTE)"
std::string rope_dim_help(const std::string& note) {
  return note.empty() ? std::string(tr("Head dimension D (even)")) : trf("Head dimension D (even; {})", note);
}
}  // namespace

PeShapeOptions add_pe_shape_flags(CLI::App* app, PeShape& s, const std::string& len_note, const std::string& dim_note) {
  PeShapeOptions o;
  o.len = add_len_flag(app, s.len, len_note);
  o.dim = app->add_option("--dim", s.dim, shape_flag_help(tr("Model dimension d_model D"), dim_note))
              ->capture_default_str()
              ->check(whole_number(1, kMaxSizeFlag));
  o.base = app->add_option("--base", s.base, tr("Base of the wavelengths"))->capture_default_str()->check(positive_number());
  return o;
}

CLI::Option* add_len_flag(CLI::App* app, std::int64_t& len, const std::string& note) {
  return app->add_option("--len", len, shape_flag_help(tr("Number of positions L"), note))
      ->capture_default_str()
      ->check(whole_number(1, kMaxSizeFlag));
}

CLI::Option* add_len_flag(CLI::App* app, std::optional<std::int64_t>& len, const std::string& note) {
  return app->add_option("--len", len, shape_flag_help(tr("Number of positions L"), note))->check(whole_number(1, kMaxSizeFlag));
}

CLI::Option* add_rope_dim_flag(CLI::App* app, std::int64_t& dim, const std::string& note) {
  return app->add_option("--dim", dim, rope_dim_help(note))->capture_default_str()->check(whole_number(1, kMaxSizeFlag));
}

CLI::Option* add_rope_dim_flag(CLI::App* app, std::optional<std::int64_t>& dim, const std::string& note) {
  return app->add_option("--dim", dim, rope_dim_help(note))->check(whole_number(1, kMaxSizeFlag));
}

}  // namespace tfx::cli
