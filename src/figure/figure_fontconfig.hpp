// Private to figure_text.cpp: the font files fontconfig names for a family or for a character.
// Built without fontconfig (no libfontconfig-dev), both say "" and figure_text.cpp falls back
// to Debian's fixed paths.
#pragma once
#include <string>

namespace tfx::fontconfig {

// The file fontconfig gives for `family` (bold or regular) when its family really is that one.
std::string family_file(const std::string& family, bool bold);
// A scalable font holding code point cp, as fontconfig ranks them; empty when none does.
std::string file_for(char32_t cp);

}  // namespace tfx::fontconfig
