// The committed reference files (tests/reference/: PyTorch-written safetensors and .npy inputs,
// generated constants) and the largest difference between a run's JSON matrix and PyTorch's
// values (printed as maxdiff, like llm.c's checks).
#pragma once
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace tfx::test {

inline std::string ref_path(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/reference/" + name; }
// The same, quoted for run_tfx's command line.
inline std::string ref(const std::string& name) { return shell_quote(ref_path(name)); }

// max |data − want| over a JSON matrix (rows of numbers) and PyTorch's values in row-major order.
inline double maxdiff(const nlohmann::json& data, const std::vector<float>& want) {
  std::vector<double> got;
  for (const auto& row : data)
    for (const auto& v : row) got.push_back(v.get<double>());
  REQUIRE(got.size() == want.size());
  double d = 0;
  for (std::size_t i = 0; i < got.size(); ++i) d = std::max(d, std::abs(got[i] - want[i]));
  MESSAGE("maxdiff vs PyTorch = " << d);
  return d;
}

}  // namespace tfx::test
