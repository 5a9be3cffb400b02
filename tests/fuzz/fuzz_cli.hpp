// Shared by the fuzz_cli_* targets: runs the whole tfx command line (tfx::cli::run, what main()
// runs) in the fuzz working directory with stdout discarded. Errors are the expected outcome;
// only a crash or a sanitizer report is a finding.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "cli/run.hpp"
#include "fuzz_common.hpp"

namespace tfx::fuzz {

inline int run_cli(std::vector<std::string> args) {
  static const bool ready = [] {
    work_dir();
    return std::freopen("/dev/null", "w", stdout) != nullptr;
  }();
  (void)ready;
  args.insert(args.begin(), "tfx");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return tfx::cli::run(static_cast<int>(args.size()), argv.data());
}

// The bytes as one command-line argument (argv cannot hold a NUL: it ends the text).
inline std::string as_argument(const std::uint8_t* data, std::size_t size) {
  std::string s(reinterpret_cast<const char*>(data), size);
  return s.substr(0, s.find('\0'));
}

}  // namespace tfx::fuzz
