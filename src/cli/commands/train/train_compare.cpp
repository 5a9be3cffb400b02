// `tfx train --compare` in the command layer (train_compare.hpp).
#include "cli/commands/train/train_compare.hpp"

#include <cstdio>

namespace tfx::cli {

CLI::Validator compare_item_validator() {
  return CLI::Validator([](std::string& item) -> std::string { return compare_item_error(item); }, "");
}

void present_train_compare(const std::vector<std::string>& compare, const TrainConfig& c, const TrainOptions& to, const IdPairs& data,
                           const std::string& data_name, const std::string& context, std::size_t every, std::size_t train_max_len, bool progress,
                           const OutputFlags& out, const FigureFlags& fig) {
  CompareSetup setup;
  setup.data = &data;
  setup.data_name = data_name;
  setup.context = context;
  setup.every = every;
  setup.train_max_len = train_max_len;
  if (progress) setup.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  Figure figure;
  check_compare_list(compare);
  const Result r = run_compare(compare_runs(compare, c, to), setup, figure_drawn(fig, out) ? &figure : nullptr);
  present_all(r, out, fig, &figure, nullptr, "train_compare.png");
  if (fig.png_requested() && !out.format_given() && fig.png != "-" && fig.svg != "-") present(r, out);
}

}  // namespace tfx::cli
