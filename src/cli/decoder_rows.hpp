// The rows of a decoder's cross-attention figure, labelled the same way in `translate` and `trace`:
// "input → predicted", the token the decoder read at that position and the word it predicted there
// (in translate's greedy decoding the word it chose), so one sentence reads the same on both slides.
#pragma once
#include <string>
#include <vector>

#include "tfx/core/i18n.hpp"

namespace tfx::cli {

// inputs[i] → predicted[i], for every position both have.
inline std::vector<std::string> decoder_row_labels(const std::vector<std::string>& inputs, const std::vector<std::string>& predicted) {
  std::vector<std::string> rows;
  for (std::size_t i = 0; i < inputs.size() && i < predicted.size(); ++i) rows.push_back(inputs[i] + " → " + predicted[i]);
  return rows;
}

// The axis title that says so.
inline std::string decoder_rows_axis() { return tr("decoder input → predicted word"); }

}  // namespace tfx::cli
