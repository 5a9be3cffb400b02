// The microscope's attention views (tfx/model/attention_views.hpp) on the tiny checkpoint of every
// family, against independent references: the attentions PyTorch's Hugging Face model wrote into
// each reference.safetensors (tests/reference/gen_hf_models.py) for the sink shares and the neuron
// view's softmax; the neuron view's scores against dot products done here from the q and k taps; the
// attention of a KV-cached generation against a whole forward pass over the final tokens; the KV
// cache held at the end against 2 × layers × kv_heads × head_dim × 4 bytes × positions.
#include <cmath>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/model/attention_views.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/generate.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;

namespace {

std::string av_dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

std::vector<std::size_t> av_ids(const TensorMap& ref) {
  std::vector<std::size_t> ids;
  for (float v : ref.at("input_ids").values()) ids.push_back(static_cast<std::size_t>(v));
  return ids;
}

const char* const kDecoders[] = {"gpt2", "llama", "qwen2", "qwen3", "mistral", "gemma", "gemma2", "gemma3"};
const char* const kFamilies[] = {"gpt2", "llama", "qwen2", "qwen3", "mistral", "gemma", "gemma2", "gemma3", "bert", "vit"};

}  // namespace

TEST_CASE("first_token_share: the mean over queries of each head's weight on key 0 (a hand-made case)") {
  // one layer, two heads, T = 2: head 0 rows (1, 0), (0.25, 0.75) → 0.625; head 1 rows (1, 0), (1, 0) → 1
  const Tensor a = Tensor::from({2, 2, 2}, {1, 0, 0.25f, 0.75f, 1, 0, 1, 0});
  const Tensor s = first_token_share({a, a});
  REQUIRE(s.shape() == std::vector<std::size_t>{2, 2});
  CHECK(s(0, 0) == doctest::Approx(0.625));
  CHECK(s(0, 1) == doctest::Approx(1.0));
  CHECK(s(1, 0) == doctest::Approx(0.625));
}

TEST_CASE("attention sinks: the share on position 0 equals the one computed from PyTorch's attentions, on every text family") {
  for (const char* name : {"gpt2", "llama", "qwen2", "qwen3", "mistral", "bert"}) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(av_dir(name));
    const TensorMap ref = read_safetensors(av_dir(name) + "/reference.safetensors");
    const std::vector<std::size_t> ids = av_ids(ref);
    const Tensor& att = ref.at("attentions");  // (L, H, T, T) from transformers
    const std::size_t L = m.config.layers, H = m.config.heads, T = ids.size();
    REQUIRE(att.size() == L * H * T * T);
    const AttentionSinks s = attention_sinks(m, ids);
    double maxdiff = 0;
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t h = 0; h < H; ++h) {
        double sum = 0;
        for (std::size_t i = 0; i < T; ++i) sum += att[((l * H + h) * T + i) * T];
        maxdiff = std::max(maxdiff, std::fabs(sum / static_cast<double>(T) - s.share(l, h)));
      }
    CAPTURE(maxdiff);
    CHECK(maxdiff <= 1e-5);
    // without the first token: the share on the new position 0 of a pass over ids[1 …]
    const std::vector<std::size_t> rest(ids.begin() + 1, ids.end());
    const ForwardPass f = model_forward(m, rest, false);
    const std::size_t R = rest.size();
    double maxdiff_rest = 0;
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t h = 0; h < H; ++h) {
        double sum = 0;
        for (std::size_t i = 0; i < R; ++i) sum += f.attentions[l][(h * R + i) * R];
        maxdiff_rest = std::max(maxdiff_rest, std::fabs(sum / static_cast<double>(R) - s.share_without_first(l, h)));
      }
    CHECK(maxdiff_rest <= 1e-6);
    CHECK_THROWS_AS(attention_sinks(m, std::vector<std::size_t>(ids.begin(), ids.begin() + 1)), Error);
  }
}

TEST_CASE("neuron view: Σ q∘k × 1/√d_k is q·k from the taps, and its softmax is PyTorch's attention row, on every family") {
  for (const char* name : kFamilies) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(av_dir(name));
    const ModelConfig& c = m.config;
    const TensorMap ref = read_safetensors(av_dir(name) + "/reference.safetensors");
    const bool image = c.family->image();
    const std::vector<std::size_t> ids = image ? std::vector<std::size_t>{} : av_ids(ref);
    const Tensor pixels = image ? ref.at("pixel_values").reshaped({c.channels, c.image_size, c.image_size}) : Tensor();
    const Tensor& att = ref.at("attentions");
    const std::size_t L = c.layers, H = c.heads, hd = c.head_dim;
    const std::size_t layer = L - 1;
    const LayerQk taps = layer_qk(m, ids, pixels, layer);
    const std::size_t T = taps.q.rows();
    REQUIRE(att.size() == L * H * T * T);
    double score_diff = 0, weight_diff = 0, row_diff = 0;
    for (std::size_t head = 0; head < H; ++head)
      for (std::size_t query : {std::size_t{0}, T / 2, T - 1}) {
        const NeuronView v = neuron_view(taps.q, taps.k, H, c.kv_heads, head, query, c.decoder(), c.attention_rule(layer));
        const std::size_t n = c.decoder() ? query + 1 : T;
        REQUIRE(v.scores.size() == n);
        const std::size_t g = head / (H / c.kv_heads);
        for (std::size_t j = 0; j < n; ++j) {
          // the score from the taps: q_head(query) · k_group(j) / √hd (Gemma 2/3: / √query_pre_attn_scalar,
          // then gemma2's cap·tanh(s / cap))
          double dot = 0, sum_qk = 0;
          for (std::size_t d = 0; d < hd; ++d) {
            dot += static_cast<double>(taps.q(query, head * hd + d)) * taps.k(j, g * hd + d);
            sum_qk += v.qk(j, d);
          }
          const double cap = c.attn_softcap;
          const auto capped = [&](double s) { return cap > 0 ? cap * std::tanh(s / cap) : s; };
          const double factor = 1 / std::sqrt(c.query_pre_attn_scalar > 0 ? c.query_pre_attn_scalar : static_cast<double>(hd));
          score_diff = std::max(score_diff, std::fabs(capped(dot * factor) - v.scores[j]));
          score_diff = std::max(score_diff, std::fabs(capped(sum_qk * v.scale) - v.scores[j]) / (1 + std::fabs(v.scores[j])));
          weight_diff = std::max(weight_diff, std::fabs(v.weights[j] - att[((layer * H + head) * T + query) * T + j]));
          row_diff = std::max(row_diff, std::fabs(v.weights[j] - taps.attentions[(head * T + query) * T + j]));
        }
      }
    CAPTURE(score_diff);
    CAPTURE(weight_diff);
    CAPTURE(row_diff);
    CHECK(score_diff <= 1e-5);
    CHECK(weight_diff <= 1e-5);
    CHECK(row_diff <= 1e-5);
  }
}

TEST_CASE("generation's cached attention equals a whole forward pass over the final tokens; the cache held equals the formula") {
  for (const char* name : kDecoders) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(av_dir(name));
    const ModelConfig& c = m.config;
    const std::vector<std::size_t> prompt = {1, 2, 3};
    GenerateOptions o;
    o.max_new_tokens = 4;
    o.keep_attentions = true;
    const Generation g = generate(m, prompt, o);
    std::vector<std::size_t> seq = prompt;
    for (const GenerationStep& s : g.steps) seq.push_back(s.token);
    const std::size_t N = seq.size();
    REQUIRE(N == 7);
    REQUIRE(g.attentions.size() == c.layers);
    const ForwardPass f = model_forward(m, seq, false);
    double maxdiff = 0;
    for (std::size_t l = 0; l < c.layers; ++l) {
      REQUIRE(g.attentions[l].size() == f.attentions[l].size());
      for (std::size_t i = 0; i < f.attentions[l].size(); ++i)
        maxdiff = std::max(maxdiff, std::fabs(static_cast<double>(g.attentions[l][i]) - f.attentions[l][i]));
    }
    CAPTURE(maxdiff);
    CHECK(maxdiff <= 1e-5);
    // the cache: every fed token's keys and values, 2 × L × KV × hd floats each
    const std::size_t formula = 2 * c.layers * c.kv_heads * c.head_dim * 4 * g.cache_capacity;
    CHECK(g.cache_capacity == N);
    CHECK(g.cache_length == N);
    CHECK(g.cache_held_bytes == formula);
    CHECK(kv_cache_bytes_per_token(c, 4) * N == formula);
    CHECK(kv_cache_bytes_per_token(c, 2, false) == 2 * c.layers * c.heads * c.head_dim * 2);
    // without the attentions the last token is not fed: one position fewer cached, the same held
    GenerateOptions po;
    po.max_new_tokens = 4;
    const Generation plain = generate(m, prompt, po);
    CHECK(plain.cache_length == N - 1);
    CHECK(plain.cache_held_bytes == formula);
    for (std::size_t i = 0; i < g.steps.size(); ++i) CHECK(plain.steps[i].token == g.steps[i].token);
  }
}
