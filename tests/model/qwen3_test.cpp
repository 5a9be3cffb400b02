// Qwen3 (HF's Qwen3ForCausalLM) against tests/reference/gen_qwen3_reference.py, a numpy forward
// written independently after modeling_qwen3.py: Llama's block with q/k RMS-normalized per head
// before RoPE, head_dim (16) set apart from hidden_size / heads (8), grouped-query attention, a
// tied head. Hidden states, attentions and logits within 1e-5; greedy generation (KV cache) picks
// the reference's tokens, which re-ran the whole prefix at every step.
#include <cmath>
#include <span>

#include "helpers.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/generate.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;

namespace {

std::string qwen3_dir() { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/qwen3"; }

double qwen3_diff(std::span<const float> a, const float* b, std::size_t n) {
  REQUIRE(a.size() == n);
  double d = 0;
  for (std::size_t i = 0; i < n; ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

std::vector<std::size_t> qwen3_ids(const Tensor& t) {
  std::vector<std::size_t> ids;
  for (float v : t.values()) ids.push_back(static_cast<std::size_t>(v));
  return ids;
}

}  // namespace

TEST_CASE("qwen3: config (head_dim apart from the width, GQA, tied head) and the forward = the numpy reference within 1e-5") {
  const Checkpoint m = load_checkpoint(qwen3_dir());
  const ModelConfig& c = m.config;
  CHECK(c.model_type == "qwen3");
  CHECK(c.head_dim == 16);
  CHECK(c.d_model / c.heads == 8);
  CHECK(c.kv_heads == 2);
  CHECK(m.head == OutputHead::tied);
  CHECK(c.family->decoder);
  const TensorMap ref = read_safetensors(qwen3_dir() + "/reference.safetensors");
  const ForwardPass f = model_forward(m, qwen3_ids(ref.at("input_ids")));
  const Tensor &hs = ref.at("hidden_states"), &at = ref.at("attentions"), &lg = ref.at("logits");
  REQUIRE(f.hidden.size() == hs.dim(0));
  REQUIRE(f.attentions.size() == at.dim(0));
  const std::size_t hn = hs.size() / hs.dim(0), an = at.size() / at.dim(0);
  for (std::size_t l = 0; l < f.hidden.size(); ++l) CHECK(qwen3_diff(f.hidden[l].values(), hs.data() + l * hn, hn) <= 1e-5);
  for (std::size_t l = 0; l < f.attentions.size(); ++l) CHECK(qwen3_diff(f.attentions[l].values(), at.data() + l * an, an) <= 1e-5);
  MESSAGE("qwen3: max |logits − numpy| = ", qwen3_diff(f.logits.values(), lg.data(), lg.size()));
  CHECK(qwen3_diff(f.logits.values(), lg.data(), lg.size()) <= 1e-5);
}

TEST_CASE("qwen3: greedy generation with the KV cache = the reference re-run on the whole prefix at every step") {
  const Checkpoint m = load_checkpoint(qwen3_dir());
  const TensorMap ref = read_safetensors(qwen3_dir() + "/generation.safetensors");
  const std::vector<std::size_t> prompt = qwen3_ids(ref.at("prompt")), want = qwen3_ids(ref.at("tokens"));
  const Tensor& logits = ref.at("logits");
  KvDecoder dec(m, prompt.size() + want.size());
  std::vector<float> l = dec.feed(prompt);
  double worst = 0;
  for (std::size_t s = 0; s < want.size(); ++s) {
    CAPTURE(s);
    worst = std::max(worst, qwen3_diff(l, logits.data() + s * logits.dim(1), logits.dim(1)));
    std::size_t best = 0;
    for (std::size_t i = 0; i < l.size(); ++i)
      if (l[i] > l[best]) best = i;
    REQUIRE(best == want[s]);
    l = dec.feed(std::vector<std::size_t>{best});
  }
  CHECK(worst <= 1e-5);
  GenerateOptions o;
  o.max_new_tokens = want.size();
  const Generation g = generate(m, prompt, o);
  REQUIRE(g.steps.size() == want.size());
  for (std::size_t s = 0; s < want.size(); ++s) CHECK(g.steps[s].token == want[s]);
}

TEST_CASE("qwen3: config.json errors name the field") {
  const std::string base = R"({"model_type": "qwen3", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                               "intermediate_size": 16, "vocab_size": 10)";
  // HF's Qwen3Config defaults: head_dim 128 (not hidden_size / heads), an untied head
  const ModelConfig c = parse_model_config(base + "}", "config.json");
  CHECK(c.head_dim == 128);
  CHECK(!c.tied_head);
  CHECK_THROWS_WITH_AS(parse_model_config(base + R"(, "use_sliding_window": true})", "config.json"),
                       doctest::Contains("use_sliding_window true is not supported"), Error);
}
