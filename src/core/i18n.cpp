// Translations through glibc's gettext (libintl): the catalog of domain "tfx" for the language
// chosen by --lang or the environment. Only LC_MESSAGES is touched (numbers keep the C locale's
// decimal point), and LANGUAGE names the catalog, so Korean output needs no generated ko_KR
// locale on the machine: C.UTF-8 (built into glibc) carries it.
#include "tfx/core/i18n.hpp"

#include <libintl.h>
#include <unistd.h>

#include <cctype>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

#include "tfx/core/error.hpp"

#ifndef TFX_INSTALL_LOCALEDIR
#define TFX_INSTALL_LOCALEDIR "/usr/local/share/locale"
#endif

namespace tfx {

namespace {

constexpr const char* kDomain = "tfx";
Language g_language = Language::en;
bool g_strict = false;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has_catalog(const std::filesystem::path& dir, Language lang) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / language_code(lang) / "LC_MESSAGES" / "tfx.mo", ec);
}

std::filesystem::path executable_directory() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

void report_untranslated(const char* msgid) {
  static std::mutex m;
  static std::set<std::string> seen;
  std::lock_guard lock(m);
  if (seen.insert(msgid).second) std::fprintf(stderr, "tfx: untranslated: %s\n", msgid);
}

}  // namespace

Language language() { return g_language; }

const char* language_code(Language lang) { return choice_name<Language>(kLanguageChoices, lang); }

Language parse_language(std::string_view name, std::string_view what) {
  const std::string n = lower(name);
  for (const auto& c : kLanguageChoices)
    if (n == c.name) return c.value;
  throw usage_error(fmt::format("{}: expected {}, got '{}'", what, choice_list<Language>(kLanguageChoices, true), name));
}

std::string locale_directory(const CatalogSettings& settings) {
  std::vector<std::filesystem::path> dirs;
  if (!settings.directory.empty()) dirs.emplace_back(settings.directory);
  if (const auto exe = executable_directory(); !exe.empty()) {
    dirs.push_back(exe / "locale");
    dirs.push_back(exe.parent_path() / "share" / "locale");
  }
  dirs.emplace_back(TFX_INSTALL_LOCALEDIR);
  for (const auto& d : dirs)
    if (has_catalog(d, Language::ko)) return d.string();
  return {};
}

std::string set_language(Language lang, const CatalogSettings& settings) {
  g_strict = settings.strict;
  if (lang == Language::en) {
    g_language = Language::en;
    return {};
  }
  const std::string dir = locale_directory(settings);
  if (dir.empty())
    return fmt::format("no {} catalog (tfx.mo) in the given directory ($TFX_LOCALEDIR), beside tfx or in {}; output stays English",
                       language_code(lang), TFX_INSTALL_LOCALEDIR);
  // gettext picks the catalog from LANGUAGE whenever the messages locale is not "C"
  ::setenv("LANGUAGE", language_code(lang), 1);
  if (!std::setlocale(LC_MESSAGES, "C.UTF-8") && !std::setlocale(LC_MESSAGES, "ko_KR.UTF-8"))
    return "neither the C.UTF-8 nor the ko_KR.UTF-8 locale is available; output stays English";
  ::bindtextdomain(kDomain, dir.c_str());
  ::bind_textdomain_codeset(kDomain, "UTF-8");
  // LANGUAGE reaches every domain, glibc's own too: its strerror() texts inside tfx's error lines
  // would turn Korean, and — the C locale's character set being ASCII — print as "?? ????".
  // Error messages stay English, so libc's catalog is pointed where there is none.
  ::bindtextdomain("libc", "/nonexistent");
  g_language = lang;
  return {};
}

const char* tr(const char* msgid) {
  if (g_language == Language::en || msgid == nullptr || *msgid == '\0') return msgid;
  const char* t = ::dgettext(kDomain, msgid);
  if (t == msgid && g_strict) report_untranslated(msgid);
  return t;
}

const char* trn(const char* singular, const char* plural, unsigned long n) {
  const char* original = n == 1 ? singular : plural;
  if (g_language == Language::en) return original;
  const char* t = ::dngettext(kDomain, singular, plural, n);
  if ((t == singular || t == plural) && g_strict) report_untranslated(singular);
  return t;
}

std::string tr_runtime(const std::string& text) {
  if (g_language == Language::en || text.empty()) return text;
  return ::dgettext(kDomain, text.c_str());
}

}  // namespace tfx
