// Help in plain words, and everything else generated from the same CLI11 command table: the
// --help formatter ("--len N   Number of positions L (≥ 1, default 50)"), the man page tfx(1),
// bash and zsh completion, and "did you mean" suggestions for misspelled commands and flags.
#pragma once
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace tfx::cli {

// The formatter every command's --help uses (set on the top-level app before commands are
// registered; subcommands inherit it). Descriptions wrap at `width` columns.
std::shared_ptr<CLI::Formatter> help_formatter(int width);

// "N", "X", "FILE", "NAME", or "" for a flag: the placeholder for an option's value.
std::string option_metavar(const CLI::Option* opt);
// "≥ 1, default 50", "one of table, csv, json, npy, md; default table", or "".
std::string option_facts(const CLI::Option* opt);

// Generated documents (written by `tfx --generate man|bash|zsh`, installed by cmake --install).
std::string man_page(const CLI::App& app);
std::string bash_completion(const CLI::App& app);
std::string zsh_completion(const CLI::App& app);
// Every command with its flags (name, type, default, help) and examples as JSON, for the Python
// helper's signatures and docstrings (`tfx --generate python`).
std::string python_commands(const CLI::App& app);

// The candidate closest to `word` (edit distance ≤ 2, or a prefix/extension of it), or "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// Every long and short flag name of a command ("--len", "-o"), in help order.
std::vector<std::string> flag_names(const CLI::App* app);
// The visible subcommands of a command.
std::vector<const CLI::App*> visible_subcommands(const CLI::App* app);

}  // namespace tfx::cli
