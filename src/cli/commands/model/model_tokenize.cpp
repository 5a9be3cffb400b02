// `tfx model tokenize DIR TEXT` (placeholder until the Hugging Face tokenizers land).
#include "cli/commands/model/model.hpp"

namespace tfx::cli {

void register_model_tokenize(CLI::App&) {}

}  // namespace tfx::cli
