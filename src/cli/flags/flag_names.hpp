// The command layer's side of the library's names: the flag that carries each library parameter
// (tfx::Error::params()), a library message with those flags put in place of the parameter
// names, and the validator of a flag whose values come from a choice table (tfx/choices.hpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "tfx/core/choices.hpp"
#include "tfx/core/error.hpp"

namespace tfx::cli {

// The flag for a library parameter: "--" + the name with '_' as '-' ("restrict_vocab" →
// "--restrict-vocab"), except where a flag is spelled otherwise ("d_k" → "--dk").
std::string flag_for(std::string_view param);

// `text` with each whole-word occurrence of a parameter in `params` replaced by its flag:
// "heads 3 does not divide d_model = 4" → "--heads 3 does not divide d_model = 4".
std::string with_flags(std::string text, const std::vector<std::string>& params);
// with_flags(e.what(), e.params()): a library error as the command line says it.
std::string message_with_flags(const Error& e);

// A CLI11 validator accepting the names and aliases of a choice table (tfx/choices.hpp).
template <class E>
CLI::Validator one_of(std::span<const Choice<E>> table) {
  return CLI::IsMember(choice_names(table, true));
}

}  // namespace tfx::cli
