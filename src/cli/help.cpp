// Help text, man page, completion and suggestions from the one CLI11 command table (help.hpp).
#include "cli/help.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <sstream>

#include "tfx/core/i18n.hpp"
#include "tfx/core/text_width.hpp"

namespace tfx::cli {

namespace {

// CLI11's type name is "INT:≥ 1" or "TEXT:{table,csv}": the base type, then the validators'
// descriptions.
std::pair<std::string, std::string> split_type(const CLI::Option* opt) {
  const std::string t = opt->get_type_name();
  const auto colon = t.find(':');
  if (colon == std::string::npos) return {t, ""};
  return {t.substr(0, colon), t.substr(colon + 1)};
}

std::string choices_words(std::string set) {  // "{a,b,c}" -> "a, b, c"
  if (set.size() >= 2 && set.front() == '{' && set.back() == '}') set = set.substr(1, set.size() - 2);
  std::string out;
  for (char c : set) out += c == ',' ? std::string(", ") : std::string(1, c);
  return out;
}

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(int width) : width_(width) {
    column_width(26);
    // CLI11's words in "Usage: tfx [OPTIONS] SUBCOMMAND" and the heading of positional arguments
    label("Usage", tr("Usage"));
    // TRANSLATORS: placeholders in the usage line "Usage: tfx [OPTIONS] SUBCOMMAND"
    label("OPTIONS", tr("OPTIONS"));
    label("SUBCOMMAND", tr("SUBCOMMAND"));
    label("SUBCOMMANDS", tr("SUBCOMMANDS"));
    label("Positionals", tr("Positionals"));
  }
  // CLI11's default group of options ("Options:"); the groups tfx names are translated where they are set
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    if (group == "Options") group = tr("Options");
    return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }
  // CLI11's line, padded by display width ("N …" and Hangul are narrower than their bytes)
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    const std::string name = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::string desc = make_option_desc(opt);
    const std::size_t wid = get_column_width(), w = display_width(name);
    std::string out = name;
    if (!desc.empty()) {
      out += w >= wid ? "\n" + std::string(wid, ' ') : std::string(wid - w, ' ');
      for (char c : desc) out += c == '\n' ? "\n" + std::string(wid, ' ') : std::string(1, c);
    }
    return out + "\n";
  }
  // "--annotate,--no-annotate", not CLI11's "--annotate,--no-annotate{false}" (the value a
  // negated flag stores is not the user's business)
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional), out;
    int depth = 0;
    for (char c : name) {
      if (c == '{') ++depth;
      else if (c == '}' && depth > 0) --depth;
      else if (depth == 0) out += c;
    }
    return out;
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    const std::string m = option_metavar(opt);
    std::string out = m.empty() ? "" : " " + m;
    if (opt->get_expected_max() >= CLI::detail::expected_max_vector_size) out += " …";
    return out;
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string desc = opt->get_description();
    // CLI11's own -h/--help and --version texts
    if (desc == "Print this help message and exit") desc = tr("Print this help message and exit");
    else if (desc == "Display program version information and exit") desc = tr("Display program version information and exit");
    const std::string facts = option_facts(opt);
    if (!facts.empty()) desc += " (" + facts + ")";
    if (opt->get_required()) desc += std::string(" ") + tr("[required]");
    const auto room = static_cast<std::size_t>(std::max(width_ - 26, 30));
    std::string out;
    for (const std::string& line : wrap_words(desc, room)) out += (out.empty() ? "" : "\n") + line;
    return out;
  }

 private:
  int width_;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    // a swap of neighbours counts as one edit ("lenght" -> "length")
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// man(7) escapes: backslashes and leading dots/quotes; '-' as \- in flag names.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// Commands depth first with their full names: ("pe", app), ("pe sim", app), …
void walk(const CLI::App* app, const std::string& path, const std::function<void(const std::string&, const CLI::App*)>& f) {
  for (const CLI::App* sub : visible_subcommands(app)) {
    const std::string name = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    f(name, sub);
    walk(sub, name, f);
  }
}

}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter(int width) { return std::make_shared<HelpFormatter>(width); }

std::string option_metavar(const CLI::Option* opt) {
  if (opt->get_expected_max() == 0) return "";  // a flag
  if (!opt->get_option_text().empty()) return opt->get_option_text();
  const auto [base, checks] = split_type(opt);
  if (base == "INT" || base == "UINT") return "N";
  if (base == "FLOAT") return "X";
  if (base == "FILE") return "FILE";  // set with type_name("FILE")
  const std::string desc = lower(opt->get_description());
  if (opt->get_positional()) return "";
  if (checks.find('{') != std::string::npos) return "NAME";
  // in Korean help the description is translated: 파일 (file), 경로 (path)
  if (desc.find("file") != std::string::npos || desc.find("path") != std::string::npos ||
      desc.find("파일") != std::string::npos || desc.find("경로") != std::string::npos)
    return "FILE";
  return "TEXT";
}

std::string option_facts(const CLI::Option* opt) {
  if (opt->get_expected_max() == 0) return "";
  std::vector<std::string> facts;
  const auto [base, checks] = split_type(opt);
  if (!checks.empty()) {
    if (checks.front() == '{') facts.push_back(trf("one of {}", choices_words(checks)));
    else facts.push_back(checks);
  }
  const std::string def = opt->get_default_str();
  if (!def.empty() && !(def == "-" && opt->get_name() == "--output")) facts.push_back(trf("default {}", def));
  // "≥ 1, default 50"; after a list of choices a semicolon keeps the default apart
  const std::string sep = !checks.empty() && checks.front() == '{' ? "; " : ", ";
  std::string out;
  for (const auto& f : facts) out += (out.empty() ? "" : sep) + f;
  return out;
}

std::vector<std::string> flag_names(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->get_positional() || opt->get_group().empty()) continue;
    for (const auto& s : opt->get_snames()) out.push_back("-" + s);
    for (const auto& l : opt->get_lnames()) out.push_back("--" + l);
  }
  return out;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App* app) {
  return app->get_subcommands([](const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); });
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = 3;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(lower(word), lower(c));
    // "--len" for "--lenght": a candidate that the word starts with counts as close
    if (d > 2 && word.size() > c.size() && word.rfind(c, 0) == 0 && c.size() >= 4) d = 2;
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

std::string man_page(const CLI::App& app) {
  std::ostringstream m;
  m << ".TH TFX 1 \"\" \"tfx " << TFX_VERSION << "\" \"User Commands\"\n";
  m << ".SH NAME\ntfx \\- calculator and visualizer for the building blocks of transformers\n";
  m << ".SH SYNOPSIS\n.B tfx\n.I COMMAND\n[\\fIOPTIONS\\fR]\n";
  m << ".SH DESCRIPTION\n" << roff(app.get_description()) << "\n";
  m << ".PP\nRun \\fBtfx\\fR alone for the overview and \\fBtfx COMMAND \\-\\-help\\fR for a command's flags and examples.\n";
  m << ".SH COMMANDS\n";
  walk(&app, "", [&](const std::string& name, const CLI::App* sub) {
    m << ".SS \"tfx " << roff(name) << "\"\n" << roff(sub->get_description()) << "\n";
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_group().empty()) continue;
      std::string names;
      if (opt->get_positional()) names = "\\fI" + roff(opt->get_name()) + "\\fR";
      for (const auto& s : opt->get_snames()) names += (names.empty() ? "" : ", ") + std::string("\\fB\\-") + roff(s) + "\\fR";
      for (const auto& l : opt->get_lnames()) names += (names.empty() ? "" : ", ") + std::string("\\fB\\-\\-") + roff(l) + "\\fR";
      const std::string mv = option_metavar(opt);
      if (!mv.empty()) names += " \\fI" + roff(mv) + "\\fR";
      std::string desc = roff(opt->get_description());
      const std::string facts = option_facts(opt);
      if (!facts.empty()) desc += " (" + roff(facts) + ")";
      m << ".TP\n" << names << "\n" << desc << "\n";
    }
  });
  m << ".SH ENVIRONMENT\n";
  m << ".TP\n.B TFX_EMBEDDINGS\nThe embedding file used when \\fB\\-\\-embeddings\\fR is not given.\n";
  m << ".TP\n.B NO_COLOR\nWhen set and not empty, no colors in \\fB\\-\\-view\\fR.\n";
  m << ".TP\n.B TERM\n\\fBdumb\\fR: no escape sequences at all.\n";
  m << ".TP\n.B COLUMNS, LINES\nThe terminal size when it cannot be asked from the terminal (default 80\\(mu24).\n";
  m << ".TP\n.B TFX_PROGRESS_DELAY\nSeconds before a progress bar appears on stderr (default 0.5).\n";
  m << ".SH EXIT STATUS\n0 success; 1 bad data (a missing or malformed input file, an unwritable output); 2 bad usage (a flag or value).\n";
  return m.str();
}

std::string bash_completion(const CLI::App& app) {
  // one case per command path ("pe", "pe sim"): its subcommands and flags
  std::ostringstream b;
  b << "# bash completion for tfx (generated by `tfx --generate bash`)\n";
  b << "_tfx() {\n  local cur=${COMP_WORDS[COMP_CWORD]} path=\"\" w i\n";
  b << "  for ((i = 1; i < COMP_CWORD; i++)); do\n    w=${COMP_WORDS[i]}\n    [[ $w == -* ]] && continue\n";
  b << "    case \"${path:+$path }$w\" in\n";
  std::vector<std::pair<std::string, const CLI::App*>> cmds;
  walk(&app, "", [&](const std::string& name, const CLI::App* sub) { cmds.push_back({name, sub}); });
  for (const auto& [name, sub] : cmds) b << "      \"" << name << "\") path=\"" << name << "\" ;;\n";
  b << "    esac\n  done\n  local words\n  case \"$path\" in\n";
  auto words_of = [](const CLI::App* a) {
    std::string w;
    for (const CLI::App* s : visible_subcommands(a)) w += (w.empty() ? "" : " ") + s->get_name();
    for (const std::string& f : flag_names(a)) w += (w.empty() ? "" : " ") + f;
    return w;
  };
  b << "    \"\") words=\"" << words_of(&app) << "\" ;;\n";
  for (const auto& [name, sub] : cmds) b << "    \"" << name << "\") words=\"" << words_of(sub) << "\" ;;\n";
  b << "  esac\n  if [[ $cur == -* || -n $path ]]; then\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n";
  b << "    [[ $cur != -* && ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- \"$cur\"))\n";
  b << "  else\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n  fi\n}\ncomplete -F _tfx tfx\n";
  return b.str();
}

std::string zsh_completion(const CLI::App& app) {
  std::ostringstream z;
  z << "#compdef tfx\n# zsh completion for tfx (generated by `tfx --generate zsh`)\n";
  auto esc = [](std::string s) {
    std::string o;
    for (char c : s) {
      if (c == '\'') o += "'\\''";
      else if (c == ':') o += "\\:";
      else o += c;
    }
    return o;
  };
  std::vector<std::pair<std::string, const CLI::App*>> cmds{{"", &app}};
  walk(&app, "", [&](const std::string& name, const CLI::App* sub) { cmds.push_back({name, sub}); });
  z << "_tfx() {\n  local path=\"\" w\n";
  z << "  for w in ${words[2,CURRENT-1]}; do [[ $w == -* ]] && continue\n    case \"${path:+$path }$w\" in\n";
  for (const auto& [name, sub] : cmds)
    if (!name.empty()) z << "      '" << name << "') path='" << name << "' ;;\n";
  z << "    esac\n  done\n  case \"$path\" in\n";
  for (const auto& [name, sub] : cmds) {
    z << "    '" << name << "')\n      local -a subs flags\n      subs=(";
    for (const CLI::App* s : visible_subcommands(sub))
      z << " '" << s->get_name() << ":" << esc(clip_to_width(s->get_description(), 60)) << "'";
    z << " )\n      flags=(";
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_positional() || opt->get_group().empty()) continue;
      const std::string d = esc(clip_to_width(opt->get_description(), 60));
      for (const auto& s : opt->get_snames()) z << " '-" << s << ":" << d << "'";
      for (const auto& l : opt->get_lnames()) z << " '--" << l << ":" << d << "'";
    }
    z << " )\n      if [[ $PREFIX == -* ]]; then _describe -t flags 'flag' flags\n"
         "      else _describe -t commands 'tfx command' subs; _files; fi ;;\n";
  }
  z << "  esac\n}\n_tfx \"$@\"\n";
  return z.str();
}

std::string python_commands(const CLI::App& app) {
  // one entry per command path, in help order: what the Python helper turns into a function with
  // a signature (keyword names, defaults) and a docstring (description, flags, examples)
  nlohmann::ordered_json cmds = nlohmann::ordered_json::array();
  walk(&app, "", [&](const std::string& name, const CLI::App* sub) {
    nlohmann::ordered_json opts = nlohmann::ordered_json::array();
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_group().empty()) continue;  // --help and hidden flags
      const auto [base, checks] = split_type(opt);
      nlohmann::ordered_json o;
      std::string key = opt->get_lnames().empty() ? (opt->get_snames().empty() ? opt->get_name() : opt->get_snames().front())
                                                  : opt->get_lnames().front();
      o["name"] = key;
      nlohmann::ordered_json flags = nlohmann::ordered_json::array();
      for (const auto& s : opt->get_snames()) flags.push_back("-" + s);
      for (const auto& l : opt->get_lnames()) flags.push_back("--" + l);
      o["flags"] = flags;
      o["positional"] = opt->get_positional();
      o["takes_value"] = opt->get_expected_max() > 0;
      o["repeats"] = opt->get_expected_max() >= CLI::detail::expected_max_vector_size;
      o["required"] = opt->get_required();
      o["type"] = opt->get_expected_max() == 0 ? "FLAG" : base;
      o["metavar"] = option_metavar(opt);
      o["default"] = opt->get_default_str();
      o["facts"] = option_facts(opt);
      o["group"] = opt->get_group();
      o["help"] = opt->get_description();
      opts.push_back(o);
    }
    std::string footer = sub->get_footer();
    while (!footer.empty() && (footer.front() == '\n')) footer.erase(footer.begin());
    std::vector<std::string> subs;
    for (const CLI::App* s : visible_subcommands(sub)) subs.push_back(s->get_name());
    cmds.push_back({{"command", name}, {"description", sub->get_description()}, {"subcommands", subs},
                    {"options", opts}, {"examples", footer}});
  });
  return nlohmann::ordered_json{{"tfx", TFX_VERSION}, {"commands", cmds}}.dump() + "\n";
}

}  // namespace tfx::cli
