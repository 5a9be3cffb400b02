// Korean (and any later language) for what reaches a person: figure titles, axis labels, table
// headers, step names and notes go through tr()/trf(), looked up in gettext catalogs (po/ko.po,
// compiled by msgfmt into <build>/locale/ko/LC_MESSAGES/tfx.mo and installed under
// share/locale). English is the source language; machine-facing text (JSON keys, CSV headers,
// .npy) stays English. Error messages are built in English, their format strings marked N_(…),
// and translated whole at the one exit path (translate_message below).
//
// Marking: tr("…") for a fixed string, trf("… {} …", args…) for a fmt format string (the
// translation may reorder with {0} {1}), N_("…") for a string kept in a table and looked up
// later with tr(), trnf("1 key", "{} keys", n, …) for a count. `scripts/update-po.sh` extracts
// them all with xgettext.
#pragma once
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/choices.hpp"

#ifndef N_
#define N_(s) s
#endif

namespace tfx {

enum class Language { en, ko };
inline constexpr Choice<Language> kLanguageChoices[] = {
    {Language::en, "en", N_("English")},
    {Language::ko, "ko", N_("Korean")},
    {Language::en, "english", "", Spelling::hidden},
    {Language::ko, "korean", "", Spelling::hidden},
};

// The language output uses; English until set_language() runs.
Language language();
// "en" or "ko".
const char* language_code(Language lang);
// A name of kLanguageChoices, in any case ("KO", "Korean") -> Language; anything else throws a
// usage error naming `what` (the flag or variable) and the languages there are.
Language parse_language(std::string_view name, std::string_view what);
// Where set_language finds the catalogs and how strictly it reports: the command layer fills it
// from the environment (TFX_LOCALEDIR, TFX_I18N_STRICT; src/cli/language_env.cpp), so the library
// never reads the environment itself.
struct CatalogSettings {
  std::string directory;  // a directory to try before the others (empty: none)
  bool strict = false;    // report each marked string without a translation on stderr, once
};
// Switches every later tr()/trf() to `lang`. Korean needs the catalog: when it is missing the
// output stays English and the returned string says where tfx looked (empty when all is well).
std::string set_language(Language lang, const CatalogSettings& settings = {});
// Where the catalogs are looked for, in order: settings.directory, <tfx's directory>/locale (the
// build tree), <tfx's directory>/../share/locale (an installed tfx), the configured install
// directory.
std::string locale_directory(const CatalogSettings& settings = {});

// The translation of `msgid` in the current language, or `msgid` itself. With strict catalog
// settings, a marked string without a translation is reported on stderr once ("tfx: untranslated: …") — the Korean output test runs with it.
const char* tr(const char* msgid);
// The translation of a string known only at run time (a table header from a Records block, an
// axis name): the same lookup without the strict report, since data (a word, a file name) may
// pass through here too.
std::string tr_runtime(const std::string& text);

// `pattern` (a format string) with its fields filled from `args`, each formatted by its own spec
// ({}, {1}, {:.4f}, {2:>5}; {{ and }} as braces), and every particle marker right after a field
// replaced by the form that agrees with what was put there. Throws fmt::format_error as fmt does.
std::string format_translation(std::string_view pattern, fmt::format_args args);
// The same with the fields' values given as text (their specs are not applied).
std::string fill_translation(std::string_view pattern, const std::vector<std::string>& values);
// Whether `pattern` has a particle marker right after a field.
bool has_particle_after_field(std::string_view pattern);

// An English message (an error line) in the current language: the catalog's format strings
// (msgids) are matched against the whole message, the most specific match wins, the values it
// captured stay verbatim (or are translated the same way when they are themselves a message),
// and the translation is filled with them (particles agreeing). A message no format string
// matches is tried in its parts ("A; B", "where: what"); what still matches nothing stays
// English. English: `message` unchanged.
std::string translate_message(const std::string& message);

// fmt::format of the translated format string; a translation whose placeholders do not fit
// the arguments falls back to the English original rather than failing the command.
template <class... Args>
std::string trf(const char* msgid, Args&&... args) {
  const char* t = tr(msgid);
  if (t != msgid) {
    try {
      if (has_particle_after_field(t)) return format_translation(t, fmt::make_format_args(args...));
      return fmt::format(fmt::runtime(t), args...);
    } catch (const fmt::format_error&) {
    }
  }
  return fmt::format(fmt::runtime(msgid), args...);
}

// Plurals (gettext's ngettext): the singular or plural form for `n` in the current language
// (English: n == 1 picks the singular; Korean has one form), then fmt::format of it like trf.
const char* trn(const char* singular, const char* plural, unsigned long n);
template <class... Args>
std::string trnf(const char* singular, const char* plural, unsigned long n, Args&&... args) {
  const char* original = n == 1 ? singular : plural;
  const char* t = trn(singular, plural, n);
  if (t != original) {
    try {
      if (has_particle_after_field(t)) return format_translation(t, fmt::make_format_args(args...));
      return fmt::format(fmt::runtime(t), args...);
    } catch (const fmt::format_error&) {
    }
  }
  return fmt::format(fmt::runtime(original), args...);
}

}  // namespace tfx
