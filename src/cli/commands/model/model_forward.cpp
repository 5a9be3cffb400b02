// `tfx model info|attention|hidden|logits|next|fill` (placeholder until the model families land).
#include "cli/commands/model/model.hpp"

namespace tfx::cli {

void register_model_forward(CLI::App&) {}

}  // namespace tfx::cli
