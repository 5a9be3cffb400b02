// `tfx train --compare pe,no-pe` in the command layer (the runs and their measures:
// tfx/model/train_compare.hpp): the item validator of --compare, and the run presented.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/common.hpp"
#include "tfx/model/train_compare.hpp"

namespace tfx::cli {

// --compare's item check (compare_item_error) as a CLI11 validator.
CLI::Validator compare_item_validator();
// `tfx train --compare LIST`: checks the list, trains the runs (the data, `context`: the flags every
// run shares; a line on stderr after each run unless !progress), and presents the table and figure
// (train_compare.png).
void present_train_compare(const std::vector<std::string>& compare, const TrainConfig& c, const TrainOptions& to, const IdPairs& data,
                           const std::string& data_name, const std::string& context, std::size_t every, std::size_t train_max_len, bool progress,
                           const OutputFlags& out, const FigureFlags& fig);

}  // namespace tfx::cli
