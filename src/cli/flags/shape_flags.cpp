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
// "Vector dimension D (the head dimension; even)" or "… (the head dimension; even; NOTE)"
std::string rope_dim_help(const std::string& note) {
  return dim_help(note.empty() ? std::string(tr("the head dimension; even")) : trf("the head dimension; even; {}", note));
}
}  // namespace

std::string dim_help(const std::string& note) { return shape_flag_help(tr("Vector dimension D"), note); }

CLI::Option* add_dim_flag(CLI::App* app, std::int64_t& dim, const std::string& note) {
  return app->add_option("--dim", dim, dim_help(note))->check(whole_number(1, kMaxSizeFlag));
}

CLI::Option* add_base_flag(CLI::App* app, double& base, const std::string& note) {
  return app->add_option("--base", base, shape_flag_help(tr("Base of the wavelengths"), note))->capture_default_str()->check(positive_number());
}

PeShapeOptions add_pe_shape_flags(CLI::App* app, PeShape& s, const std::string& len_note, const std::string& dim_note) {
  PeShapeOptions o;
  o.len = add_len_flag(app, s.len, len_note);
  o.dim = app->add_option("--dim", s.dim, dim_help(dim_note.empty() ? std::string("d_model") : "d_model; " + dim_note))
              ->capture_default_str()
              ->check(whole_number(1, kMaxSizeFlag));
  o.base = add_base_flag(app, s.base);
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
