// Reads the environment's language and catalog settings for set_language.
#include "cli/language_env.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

namespace tfx::cli {

namespace {

std::string env_value(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Language language_from_environment() {
  std::string locale = env_value("LC_ALL");
  if (locale.empty()) locale = env_value("LC_MESSAGES");
  if (locale.empty()) locale = env_value("LANG");
  if (locale.empty() || locale == "C" || locale == "POSIX" || locale.rfind("C.", 0) == 0) return Language::en;
  std::string wanted = env_value("LANGUAGE");
  wanted = wanted.substr(0, wanted.find(':'));
  if (wanted.empty()) wanted = locale;
  const bool ko = wanted.size() >= 2 && std::tolower(static_cast<unsigned char>(wanted[0])) == 'k' &&
                  std::tolower(static_cast<unsigned char>(wanted[1])) == 'o';
  return ko ? Language::ko : Language::en;
}

CatalogSettings catalog_settings_from_environment() {
  CatalogSettings s;
  s.directory = env_value("TFX_LOCALEDIR");
  s.strict = !env_value("TFX_I18N_STRICT").empty();
  return s;
}

}  // namespace tfx::cli
