// Fuzz target: a checkpoint's config.json (parse_model_config, also behind rope freqs --config):
// every family's keys, rope_scaling, and hostile nesting (tests/fuzz/dict/json.dict). A parsed
// config must have the sizes the forward passes divide by.
#include "fuzz_common.hpp"
#include "tfx/model/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const tfx::ModelConfig c = tfx::parse_model_config(std::string(reinterpret_cast<const char*>(data), size), "config.json");
    tfx::fuzz::check(c.heads >= 1 && c.d_model >= 1 && c.layers >= 1);
  } catch (const tfx::Error&) {
  }
  return 0;
}
