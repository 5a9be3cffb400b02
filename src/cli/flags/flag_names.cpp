// Library parameter names → command-line flags, for the messages of tfx::Error.
#include "cli/flags/flag_names.hpp"

#include <cctype>

#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

// Parameters whose flag is not "--" + the name with '-' for '_'.
struct Alias {
  std::string_view param, flag;
};
constexpr Alias kAliases[] = {
    {"d_k", "--dk"},
    {"d_v", "--dv"},
    {"d_ks", "--dk"},
    {"use_cache = false", "--no-cache"},  // EmbeddingSource::use_cache
};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

}  // namespace

std::string flag_for(std::string_view param) {
  for (const Alias& a : kAliases)
    if (a.param == param) return std::string(a.flag);
  std::string flag = "--";
  for (char c : param) flag += c == '_' ? '-' : c;
  return flag;
}

std::string message_with_flags(const Error& e) { return with_flags(e.what(), e.params()); }

std::string with_flags(std::string msg, const std::vector<std::string>& params) {
  // Korean: the library's message is translated while it still names its parameters as the
  // catalog's format strings do; the flags go into the translation
  msg = translate_message(msg);
  for (const std::string& p : params) {
    if (p.empty()) continue;
    const std::string flag = flag_for(p);
    std::string out;
    std::size_t i = 0;
    while (i < msg.size()) {
      const std::size_t at = msg.find(p, i);
      if (at == std::string::npos) break;
      const std::size_t end = at + p.size();
      const bool whole = (at == 0 || !is_word_char(msg[at - 1])) && (end == msg.size() || !is_word_char(msg[end]));
      out.append(msg, i, at - i);
      out += whole ? flag : p;
      i = end;
    }
    out.append(msg, i, std::string::npos);
    msg = std::move(out);
  }
  return msg;
}

}  // namespace tfx::cli
