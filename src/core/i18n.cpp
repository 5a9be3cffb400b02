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
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <set>

#include "tfx/core/error.hpp"
#include "tfx/core/korean_particles.hpp"

#ifndef TFX_INSTALL_LOCALEDIR
#define TFX_INSTALL_LOCALEDIR "/usr/local/share/locale"
#endif

namespace tfx {

namespace {

constexpr const char* kDomain = "tfx";
Language g_language = Language::en;
bool g_strict = false;
std::string g_catalog_directory;  // where set_language found the catalog

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
  throw usage_error(fmt::format(N_("{}: expected {}, got '{}'"), what, choice_list<Language>(kLanguageChoices, true), name));
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
  g_catalog_directory = dir;
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

namespace tfx {

namespace {

// The system's reasons (strerror) error lines carry, in English whatever LANGUAGE says (libc's
// catalog is turned off in set_language): marked here so the catalog translates them in the line.
[[maybe_unused]] constexpr const char* kSystemReasons[] = {
    N_("No such file or directory"), N_("Permission denied"), N_("Is a directory"), N_("Not a directory"),
    N_("No space left on device"), N_("File exists"), N_("Read-only file system"), N_("Too many levels of symbolic links"),
    N_("File name too long"), N_("Input/output error"), N_("Operation not permitted"), N_("Invalid argument"),
    N_("Broken pipe"), N_("Cannot allocate memory"), N_("Disk quota exceeded"), N_("File too large"),
    N_("Device or resource busy"), N_("No such device or address"), N_("Too many open files"), N_("Bad file descriptor"),
    N_("Resource temporarily unavailable"), N_("Text file busy"), N_("No such device"), N_("Illegal seek"),
};

// One field of a format string: where it is, which argument, its spec (":.4f" or "").
struct Field {
  std::size_t begin = 0, end = 0;  // [begin, end) in the pattern, braces included
  std::size_t index = 0;
  std::string spec;
};

// The literal text and fields of `pattern`; "{{" / "}}" are literal braces (kept unescaped in the
// pieces). Throws fmt::format_error on an unbalanced brace.
void parse_fields(std::string_view pattern, std::vector<std::string>& literals, std::vector<Field>& fields) {
  literals.assign(1, "");
  fields.clear();
  std::size_t automatic = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
      literals.back() += '{';
      ++i;
    } else if (c == '}' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
      literals.back() += '}';
      ++i;
    } else if (c == '{') {
      const std::size_t close = pattern.find('}', i);
      if (close == std::string_view::npos) throw fmt::format_error("unmatched '{' in a translation");
      const std::string_view inside = pattern.substr(i + 1, close - i - 1);
      if (inside.find('{') != std::string_view::npos) throw fmt::format_error("nested field in a translation");
      Field f;
      f.begin = i;
      f.end = close + 1;
      const std::size_t colon = inside.find(':');
      const std::string_view id = inside.substr(0, colon);
      if (id.empty()) {
        f.index = automatic++;
      } else {
        f.index = 0;
        for (const char d : id) {
          if (d < '0' || d > '9') throw fmt::format_error("named field in a translation");
          f.index = f.index * 10 + static_cast<std::size_t>(d - '0');
        }
      }
      f.spec = colon == std::string_view::npos ? "" : std::string(inside.substr(colon));
      fields.push_back(std::move(f));
      literals.emplace_back();
      i = close;
    } else if (c == '}') {
      throw fmt::format_error("unmatched '}' in a translation");
    } else {
      literals.back() += c;
    }
  }
}

// The closing quotes and brackets `text` starts with (their length in bytes).
std::size_t closing_marks_length(std::string_view text) {
  static constexpr std::string_view kMarks[] = {"'", "\"", ")", "]", "\u201D", "\u2019", "\u00BB", "\u300D"};
  std::size_t at = 0;
  for (bool more = true; more;) {
    more = false;
    for (const auto m : kMarks)
      if (text.substr(at, m.size()) == m) {
        at += m.size();
        more = true;
      }
  }
  return at;
}

// literals[0] value literals[1] value … with each particle marker that opens a literal after a
// value replaced by its agreeing form.
std::string join_with_particles(const std::vector<std::string>& literals, const std::vector<std::string>& values) {
  std::string out = literals[0];
  for (std::size_t k = 0; k < values.size(); ++k) {
    out += values[k];
    std::string_view rest = literals[k + 1];
    const std::size_t quotes = closing_marks_length(rest);  // '{}'은(는): the value in quotes
    if (const std::size_t n = particle_marker_length(rest.substr(quotes)); n > 0) {
      out += rest.substr(0, quotes);
      out += particle_for(values[k], rest.substr(quotes, n));
      rest.remove_prefix(quotes + n);
    }
    out += rest;
  }
  return out;
}

// ---- the catalog's entries, read from the .mo file (for matching error messages) ----

struct Entry {
  std::string msgid, msgstr;
  std::vector<std::string> literals;  // the msgid's literal pieces (fields between them)
  std::size_t letters = 0;            // ASCII letters in the literal pieces: how specific it is
};

std::uint32_t read_u32(const std::string& data, std::size_t at, bool swap) {
  if (at + 4 > data.size()) return 0;
  std::uint32_t v;
  std::memcpy(&v, data.data() + at, 4);
  return swap ? __builtin_bswap32(v) : v;
}

const std::vector<Entry>& catalog_entries() {
  static std::once_flag once;
  static std::vector<Entry> entries;
  std::call_once(once, [] {
    if (g_catalog_directory.empty()) return;
    const auto path = std::filesystem::path(g_catalog_directory) / language_code(g_language) / "LC_MESSAGES" / "tfx.mo";
    std::ifstream in(path, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.size() < 28) return;
    const std::uint32_t magic = read_u32(data, 0, false);
    const bool swap = magic == 0xde120495u;
    if (!swap && magic != 0x950412deu) return;
    const std::uint32_t n = read_u32(data, 8, swap), originals = read_u32(data, 12, swap), translations = read_u32(data, 16, swap);
    const auto string_at = [&](std::uint32_t table, std::uint32_t k) -> std::optional<std::string> {
      const std::uint32_t len = read_u32(data, table + 8 * std::size_t(k), swap);
      const std::uint32_t off = read_u32(data, table + 8 * std::size_t(k) + 4, swap);
      if (std::size_t(off) + len > data.size()) return std::nullopt;
      return data.substr(off, len);
    };
    for (std::uint32_t k = 0; k < n && k < 100000; ++k) {
      auto id = string_at(originals, k);
      auto str = string_at(translations, k);
      if (!id || !str || id->empty() || id->find('\4') != std::string::npos) continue;
      Entry e;
      e.msgid = id->substr(0, id->find('\0'));  // a plural entry: its singular
      e.msgstr = str->substr(0, str->find('\0'));
      if (e.msgstr.empty()) continue;
      std::vector<Field> fields;
      try {
        parse_fields(e.msgid, e.literals, fields);
      } catch (const fmt::format_error&) {
        continue;
      }
      for (const auto& l : e.literals)
        for (const char c : l) e.letters += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (e.letters < 3) continue;  // "{}: {}", "{} ({})": no words to know a message by
      entries.push_back(std::move(e));
    }
  });
  return entries;
}

// Every way `message` is literals[0] v0 literals[1] v1 … (the values maybe empty: "number{}"
// takes "s" or ""), each reading's values appended to `out` (at most kMaxReadings: a literal such
// as " " may stand in several places, "{} {}: …" with "analogy file /dev/zero").
constexpr std::size_t kMaxReadings = 8;
void match_from(const std::vector<std::string>& literals, std::size_t k, std::string_view rest, std::vector<std::string>& values,
                std::vector<std::vector<std::string>>& out) {
  if (out.size() >= kMaxReadings) return;
  if (k + 1 == literals.size()) {  // the last literal must end the message, after the last value
    if (rest.size() < literals[k].size() || rest.substr(rest.size() - literals[k].size()) != literals[k]) return;
    values.emplace_back(rest.substr(0, rest.size() - literals[k].size()));
    out.push_back(values);
    values.pop_back();
    return;
  }
  const std::string& next = literals[k];
  for (std::size_t at = rest.find(next); at != std::string_view::npos && out.size() < kMaxReadings; at = rest.find(next, at + 1)) {
    values.emplace_back(rest.substr(0, at));
    match_from(literals, k + 1, rest.substr(at + next.size()), values, out);
    values.pop_back();
  }
}

std::vector<std::vector<std::string>> match(const Entry& e, std::string_view message) {
  std::vector<std::vector<std::string>> out;
  const auto& lit = e.literals;
  if (lit.size() == 1) {
    if (message == lit[0]) out.emplace_back();
    return out;
  }
  if (message.substr(0, lit[0].size()) != lit[0]) return out;
  // every literal in order somewhere: a quick refusal before backtracking
  std::size_t at = lit[0].size();
  for (std::size_t k = 1; k < lit.size(); ++k) {
    at = message.find(lit[k], at);
    if (at == std::string_view::npos) return out;
    at += lit[k].size();
  }
  std::vector<std::string> values;
  match_from(lit, 1, message.substr(lit[0].size()), values, out);
  return out;
}

std::optional<std::string> translate_parts(const std::string& message, int depth);

// A value a message carried: itself a message (a library message inside the command's, a
// validator's inside CLI11's "(see … --help)"), or data, which stays as it is.
std::string translate_value(const std::string& value, int depth) {
  if (depth > 3 || value.find(' ') == std::string::npos) return value;
  if (auto t = translate_parts(value, depth + 1)) return *t;
  return value;
}

// ASCII letters left in a translation: the fewer, the more of the message was translated (flags,
// file names and values are the same in every reading).
std::size_t ascii_letters(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s) n += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return n;
}

// Every format string that matches the whole message is tried (its captured values translated in
// turn); the reading that leaves the least English wins, then the more specific format string.
std::optional<std::string> translate_whole(const std::string& message, int depth) {
  std::optional<std::string> best;
  std::size_t best_english = 0, best_letters = 0;
  for (const auto& e : catalog_entries()) {
    for (std::vector<std::string> values : match(e, message)) {
      for (auto& v : values) v = translate_value(v, depth);
      std::string t;
      try {
        t = fill_translation(e.msgstr, values);
      } catch (const fmt::format_error&) {
        continue;
      }
      const std::size_t english = ascii_letters(t);
      if (!best || english < best_english || (english == best_english && e.letters > best_letters)) {
        best = std::move(t);
        best_english = english;
        best_letters = e.letters;
      }
    }
  }
  return best;
}


// The message translated whole, or in its parts ("what; hint", "where: what"), whichever leaves
// the least English: a general format string ("{}: expected {}, got '{}'") may match the whole
// message while a more specific one matches its part.
std::optional<std::string> translate_parts(const std::string& message, int depth) {
  std::optional<std::string> best = translate_whole(message, depth);
  if (depth > 6) return best;
  const auto consider = [&](std::optional<std::string> candidate) {
    if (candidate && (!best || ascii_letters(*candidate) < ascii_letters(*best))) best = std::move(candidate);
  };
  if (const std::size_t at = message.find("; "); at != std::string::npos) {
    const auto left = translate_parts(message.substr(0, at), depth + 1);
    const auto right = translate_parts(message.substr(at + 2), depth + 1);
    if (left || right) consider((left ? *left : message.substr(0, at)) + "; " + (right ? *right : message.substr(at + 2)));
  }
  for (std::size_t at = message.find(": "); at != std::string::npos; at = message.find(": ", at + 1))
    if (auto right = translate_parts(message.substr(at + 2), depth + 1)) {
      consider(message.substr(0, at + 2) + *right);
      break;  // the first "where: " that leads to a translated rest
    }
  return best;
}

}  // namespace

std::string fill_translation(std::string_view pattern, const std::vector<std::string>& values) {
  std::vector<std::string> literals;
  std::vector<Field> fields;
  parse_fields(pattern, literals, fields);
  std::vector<std::string> filled;
  for (const auto& f : fields) {
    if (f.index >= values.size()) throw fmt::format_error("a translation names a field the original does not have");
    filled.push_back(values[f.index]);
  }
  return join_with_particles(literals, filled);
}

std::string format_translation(std::string_view pattern, fmt::format_args args) {
  std::vector<std::string> literals;
  std::vector<Field> fields;
  parse_fields(pattern, literals, fields);
  std::vector<std::string> filled;
  for (const auto& f : fields) filled.push_back(fmt::vformat(fmt::format("{{{}{}}}", f.index, f.spec), args));
  return join_with_particles(literals, filled);
}

bool has_particle_after_field(std::string_view pattern) {
  for (std::size_t at = pattern.find('}'); at != std::string_view::npos; at = pattern.find('}', at + 1))
    if (const auto rest = pattern.substr(at + 1); particle_marker_length(rest.substr(closing_marks_length(rest))) > 0) return true;
  return false;
}

std::string translate_message(const std::string& message) {
  if (g_language == Language::en || message.empty()) return message;
  if (auto t = translate_parts(message, 0)) return *t;
  return message;
}

}  // namespace tfx
