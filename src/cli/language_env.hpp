// The language and catalog settings the environment asks for: the one place tfx reads LC_ALL,
// LC_MESSAGES, LANG, LANGUAGE, TFX_LOCALEDIR and TFX_I18N_STRICT (the library takes them as
// arguments, include/tfx/core/i18n.hpp).
#pragma once
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

// The language the environment asks for, as gettext reads it: the locale of messages (LC_ALL,
// then LC_MESSAGES, then LANG; "C", "POSIX" or unset = English) and, when that locale is set,
// the first entry of LANGUAGE. Korean when it begins with "ko", English otherwise.
Language language_from_environment();
// TFX_LOCALEDIR (a catalog directory tried first) and TFX_I18N_STRICT (set: report untranslated
// strings, as the Korean output test runs).
CatalogSettings catalog_settings_from_environment();

}  // namespace tfx::cli
