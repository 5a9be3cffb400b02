// The cost table of "Attention Is All You Need" (Table 1) that the notes reproduce: per layer
// type, the complexity per layer, the number of sequential operations and the maximum path
// length between two positions, as formulas and as numbers for a sequence length n and width d.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace tfx {

struct LayerCost {
  std::string layer;        // "self-attention", "recurrent", "convolutional", "self-attention (restricted)"
  std::string per_layer;    // "n²·d"
  std::string sequential;   // "1"
  std::string path_length;  // "1"
  double per_layer_ops = 0, sequential_ops = 0, path = 0;  // the formulas evaluated at (n, d, k, r)
};

// The four rows at sequence length n, width d, kernel width k ≥ 2, neighbourhood r ≥ 1.
// Path lengths: convolutional ⌈log_k n⌉ (dilated convolutions), restricted ⌈n / r⌉.
std::vector<LayerCost> layer_costs(double n, double d, double k, double r);

}  // namespace tfx
