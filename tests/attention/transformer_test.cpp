// Encoder/decoder layers and nn.MultiheadAttention with real weights against PyTorch 1.13's forward
// pass (eval, dropout 0, batch_first=True): the state_dicts in tests/reference/*.safetensors and the
// outputs in tests/reference/transformer_reference.hpp come from
// tests/reference/gen_transformer_reference.py. Plus properties: the seeded layer's shapes, and the
// round trip of parameters through a state_dict.
#include "tfx/attention/transformer.hpp"
#include "tfx/model/safetensors.hpp"

#include <algorithm>
#include <cmath>

#include "helpers.hpp"
#include "reference/transformer_reference.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

constexpr std::size_t kD = 8, kHeads = 2, kF = 16, kT = 4, kS = 5;

std::string ref(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/reference/" + name; }

double maxdiff(const Tensor& a, const std::vector<float>& want) {
  REQUIRE(a.size() == want.size());
  double d = 0;
  for (std::size_t i = 0; i < want.size(); ++i) d = std::max(d, std::abs(static_cast<double>(a[i]) - want[i]));
  MESSAGE("maxdiff vs PyTorch = " << d);
  return d;
}

Tensor x() { return Tensor::from({kT, kD}, reference::kX); }
Tensor memory() { return Tensor::from({kS, kD}, reference::kMemory); }

}  // namespace

TEST_CASE("PyTorch 1.13: nn.MultiheadAttention(8, 2) output and head-averaged weights, F32, F16 and BF16 weights") {
  const TensorMap m = read_safetensors(ref("mha.safetensors"));
  const MultiHeadAttention a = torch_multi_head_attention(x(), x(), mha_params(m, "", kD, "mha"), kHeads, AttentionOptions{});
  CHECK(maxdiff(a.output, reference::kMhaOutput) < 1e-5);
  CHECK(maxdiff(average_head_weights(a), reference::kMhaWeights) < 1e-5);
  const TensorMap h = read_safetensors(ref("mha_f16.safetensors"));
  CHECK(maxdiff(torch_multi_head_attention(x(), x(), mha_params(h, "", kD, "f16"), kHeads, {}).output, reference::kMhaF16Output) < 1e-5);
  const TensorMap b = read_safetensors(ref("mha_bf16.safetensors"));
  CHECK(maxdiff(torch_multi_head_attention(x(), x(), mha_params(b, "", kD, "bf16"), kHeads, {}).output, reference::kMhaBf16Output) < 1e-5);
}

TEST_CASE("PyTorch 1.13: nn.TransformerEncoderLayer post-LN and norm_first") {
  const TensorMap m = read_safetensors(ref("encoder_layer.safetensors"));
  const LayerWidths w = layer_widths(m, "", "enc");
  CHECK(w.d_model == kD);
  CHECK(w.ffn == kF);
  const EncoderLayerParams p = encoder_layer_params(m, "", w, "enc");
  CHECK(maxdiff(encoder_layer(x(), p, kHeads, false).ffn_block.output, reference::kEncoderLayer) < 1e-5);
  CHECK(maxdiff(encoder_layer(x(), p, kHeads, true).ffn_block.output, reference::kEncoderLayerNormFirst) < 1e-5);
}

TEST_CASE("PyTorch 1.13: nn.TransformerEncoder with 2 layers (keys layers.0.*, layers.1.*)") {
  const TensorMap m = read_safetensors(ref("encoder_2layers.safetensors"));
  REQUIRE(stacked_layers(m) == 2);
  Tensor y = x();
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string prefix = "layers." + std::to_string(i) + ".";
    y = encoder_layer(y, encoder_layer_params(m, prefix, layer_widths(m, prefix, "enc2"), "enc2"), kHeads, false).ffn_block.output;
  }
  CHECK(maxdiff(y, reference::kEncoder2Layers) < 1e-5);
}

TEST_CASE("PyTorch 1.13: nn.TransformerDecoderLayer with a causal mask and memory, and both weight tables") {
  const TensorMap m = read_safetensors(ref("decoder_layer.safetensors"));
  const DecoderLayerParams p = decoder_layer_params(m, "", layer_widths(m, "", "dec"), "dec");
  const DecoderLayerSteps s = decoder_layer(x(), memory(), p, kHeads, false);
  CHECK(maxdiff(s.ffn_block.output, reference::kDecoderLayer) < 1e-5);
  CHECK(maxdiff(average_head_weights(s.self_attention), reference::kDecoderSelfWeights) < 1e-5);
  CHECK(maxdiff(average_head_weights(s.cross_attention), reference::kDecoderCrossWeights) < 1e-5);
  // the causal mask: query 0 sees only key 0
  CHECK(average_head_weights(s.self_attention)(0, 0) == doctest::Approx(1.0));
}

TEST_CASE("encoder layer: a misshapen or missing tensor is named; heads must divide d_model") {
  TensorMap m = read_safetensors(ref("encoder_layer.safetensors"));
  const LayerWidths w = layer_widths(m, "", "enc.safetensors");
  m["norm2.bias"] = Tensor({7});
  CHECK(has(error_of([&] { encoder_layer_params(m, "", w, "enc.safetensors"); }), "tensor 'norm2.bias' is [7]; expected [8]"));
  m.erase("linear2.weight");
  CHECK(has(error_of([&] { encoder_layer_params(m, "", w, "enc.safetensors"); }), "no tensor 'linear2.weight' [8, 16]"));
  const TensorMap d = read_safetensors(ref("encoder_layer.safetensors"));
  CHECK(has(error_of([&] { decoder_layer_params(d, "", w, "d"); }), "no tensor 'multihead_attn.in_proj_weight'"));
  const EncoderLayerParams p = encoder_layer_params(d, "", w, "e");
  CHECK(has(error_of([&] { encoder_layer(x(), p, 3, false); }), "heads 3 does not divide d_model = 8"));
}

TEST_CASE("seeded layers: PyTorch shapes and names, and they survive a safetensors round trip unchanged") {
  Generator gen(42);
  const DecoderLayerParams p = seeded_decoder_layer(12, 48, gen);
  TensorMap m;
  store_params(p, "layers.0.", m);
  CHECK(m.size() == 18);
  CHECK(m.at("layers.0.multihead_attn.in_proj_weight").shape() == std::vector<std::size_t>{36, 12});
  const TensorMap back = parse_safetensors(encode_safetensors(m), "x");
  const DecoderLayerParams q = decoder_layer_params(back, "layers.0.", layer_widths(back, "layers.0.", "x"), "x");
  CHECK(q.ffn.w2.values() == p.ffn.w2.values());
  // Xavier bound √(6 / (fan_in + fan_out)) for the (48, 12) linear1 weight
  const float bound = std::sqrt(6.0f / 60.0f);
  for (float v : p.ffn.w1.values()) CHECK(std::abs(v) <= bound);
  // same input through the stored and the reloaded parameters: identical outputs
  Tensor xin({3, 12}, 0.5f);
  xin[1] = -1.0f;
  const Tensor a = decoder_layer(xin, xin, p, 3, false).ffn_block.output, b = decoder_layer(xin, xin, q, 3, false).ffn_block.output;
  CHECK(a.values() == b.values());
  // LayerNorm with γ = 1, β = 0 at the output: each row has mean 0
  for (std::size_t i = 0; i < 3; ++i) {
    double mean = 0;
    for (float v : a.row(i)) mean += v;
    CHECK(std::abs(mean / 12) < 1e-6);
  }
}
