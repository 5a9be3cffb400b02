// `tfx train --compare pe,no-pe`: several experiments trained (side by side, --threads split) from the same
// seed on the same batches, their curves in one figure and their results in one table — loss,
// held-out accuracy, the per-layer gradient norms at initialization (post-LN's grow toward the
// output, pre-LN's do not), the encoder self-attention's entropy and the gradient at its softmax's
// input over training (what 1/√d_k keeps alive).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/train.hpp"

namespace tfx {

// The experiments --compare offers, in the order of the help: each sets one property of the base
// run (its other flags).
const std::vector<std::string>& compare_experiment_names();

// --compare's checks: each item an experiment or several joined by '+' (post-ln+no-warmup): the
// message for an item that is not ("" when it is); the list 2 to 8 items, none twice (a usage error).
std::string compare_item_error(const std::string& item);
void check_compare_list(const std::vector<std::string>& items);

// One item of the list applied to the base run's model and schedule.
struct CompareRun {
  std::string name;  // as listed ("post-ln+no-warmup")
  TrainConfig config;
  TrainOptions options;
};
std::vector<CompareRun> compare_runs(const std::vector<std::string>& items, const TrainConfig& base, const TrainOptions& base_options);

// What every run shares: the data, the held-out schedule, the title's context (the base run's own
// flags, e.g. "--corpus en-ko --layers 6").
struct CompareSetup {
  const IdPairs* data = nullptr;
  std::string data_name, context;
  std::size_t every = 250;
  // --train-max-len N (0: none): the runs trained on sentences of at most N words; the result adds
  // the table by_length (held-out exact match per source length, a column per run) and the
  // figure is accuracy by length, one line per run, N marked
  std::size_t train_max_len = 0;
  std::function<void(const std::string&)> progress;  // a line after each run (empty: none)
};

// A single run's --train-max-len results appended to `r`: a note and the table by_length (length,
// pairs, held_out_exact, first_n_right: the first N target words right), from score_held_out's
// per-pair scores of `test`.
void add_length_results(Result& r, const std::vector<IdPair>& test, const HeldOutScore& score, std::size_t train_max_len);

// Trains each run; the results (tables compare, curves, grad_norms_at_init, and by_length with
// setup.train_max_len) and, when `figure` is given, their figure.
Result run_compare(const std::vector<CompareRun>& runs, const CompareSetup& setup, Figure* figure);

}  // namespace tfx
