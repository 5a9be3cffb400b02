// The Gemma family (HF's GemmaForCausalLM, Gemma2ForCausalLM, Gemma3ForCausalLM) against
// tests/reference/gen_gemma_reference.py, a numpy forward written independently after
// modeling_gemma.py, modeling_gemma2.py and modeling_gemma3.py: RMSNorm weights as offsets from 1,
// the embedding times √hidden_size, GELU (tanh) gates, head_dim 16 apart from hidden_size / heads
// (8); gemma2's post-norms, query_pre_attn_scalar 24, soft-capped scores (5) and logits (3) and a
// window of 4 on its even layers; gemma3's q/k norms, its sliding layers' RoPE base and its full
// layer's linear RoPE scaling. Hidden states, attentions and logits within 1e-5. (Greedy generation
// with the KV cache, where the window cuts off cached keys, is generate_test.cpp's, on these folders
// too.)
#include <cmath>
#include <nlohmann/json.hpp>
#include <span>

#include "helpers.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;

namespace {

std::string gemma_dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

double gemma_diff(std::span<const float> a, const float* b, std::size_t n) {
  REQUIRE(a.size() == n);
  double d = 0;
  for (std::size_t i = 0; i < n; ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

std::vector<std::size_t> gemma_ids(const Tensor& t) {
  std::vector<std::size_t> ids;
  for (float v : t.values()) ids.push_back(static_cast<std::size_t>(v));
  return ids;
}

}  // namespace

TEST_CASE("gemma, gemma2, gemma3_text: the forward = the numpy reference within 1e-5 (hidden states, attentions, logits)") {
  for (const char* name : {"gemma", "gemma2", "gemma3"}) {
    CAPTURE(std::string(name));
    const Checkpoint m = load_checkpoint(gemma_dir(name));
    CHECK(m.head == OutputHead::tied);
    CHECK(m.config.head_dim == 16);
    const TensorMap ref = read_safetensors(gemma_dir(name) + "/reference.safetensors");
    const ForwardPass f = model_forward(m, gemma_ids(ref.at("input_ids")));
    const Tensor &hs = ref.at("hidden_states"), &at = ref.at("attentions"), &lg = ref.at("logits");
    REQUIRE(f.hidden.size() == hs.dim(0));
    REQUIRE(f.attentions.size() == at.dim(0));
    const std::size_t hn = hs.size() / hs.dim(0), an = at.size() / at.dim(0);
    for (std::size_t l = 0; l < f.hidden.size(); ++l) CHECK(gemma_diff(f.hidden[l].values(), hs.data() + l * hn, hn) <= 1e-5);
    for (std::size_t l = 0; l < f.attentions.size(); ++l) CHECK(gemma_diff(f.attentions[l].values(), at.data() + l * an, an) <= 1e-5);
    MESSAGE(std::string(name), ": max |logits − numpy| = ", gemma_diff(f.logits.values(), lg.data(), lg.size()));
    CHECK(gemma_diff(f.logits.values(), lg.data(), lg.size()) <= 1e-5);
  }
}

TEST_CASE("gemma2 and gemma3_text: a sliding layer's query sees only the last 4 positions; a full layer sees them all") {
  for (const char* name : {"gemma2", "gemma3"}) {
    CAPTURE(std::string(name));
    const Checkpoint m = load_checkpoint(gemma_dir(name));
    REQUIRE(m.config.sliding_window == std::optional<std::size_t>(4));
    // gemma2: the even layers; gemma3 (layer_types): sliding, full, sliding
    CHECK(m.config.sliding_layers == std::vector<bool>{true, false, true});
    const std::vector<std::size_t> ids = {259, 262, 264, 266, 258, 268, 259};
    const ForwardPass f = model_forward(m, ids);
    const std::size_t T = ids.size();
    for (std::size_t l = 0; l < f.attentions.size(); ++l)
      for (std::size_t h = 0; h < m.config.heads; ++h)
        for (std::size_t t = 0; t < T; ++t)
          for (std::size_t j = 0; j < T; ++j) {
            const float w = f.attentions[l][(h * T + t) * T + j];
            const bool visible = j <= t && (!m.config.sliding_layers[l] || t - j < 4);
            if (visible) CHECK(w > 0.0f);
            else CHECK(w == 0.0f);
          }
  }
}

TEST_CASE("gemma: config.json's defaults (Gemma's, not Llama's) and errors that name the field") {
  const std::string base = R"({"hidden_size": 8, "num_hidden_layers": 12, "num_attention_heads": 2, "intermediate_size": 16,
                               "vocab_size": 10)";
  // GemmaConfig: head_dim 256, a tied head, the tanh GELU
  const ModelConfig g1 = parse_model_config(R"({"model_type": "gemma", )" + base.substr(1) + "}", "config.json");
  CHECK(g1.head_dim == 256);
  CHECK(g1.tied_head);
  CHECK(g1.norm_plus_one);
  CHECK(g1.sliding_layers.empty());
  CHECK(g1.query_pre_attn_scalar == 0.0);
  CHECK(g1.attention_rule(0).scale == 0.0f);
  // Gemma2Config: query_pre_attn_scalar 256, caps 50 and 30, a window of 4096 on the even layers
  const ModelConfig g2 = parse_model_config(R"({"model_type": "gemma2", )" + base.substr(1) + "}", "config.json");
  CHECK(g2.query_pre_attn_scalar == 256.0);
  CHECK(g2.attention_rule(0).scale == doctest::Approx(1.0 / 16.0));
  CHECK(g2.attn_softcap == 50.0);
  CHECK(g2.final_softcap == 30.0);
  CHECK(g2.sliding_window == std::optional<std::size_t>(4096));
  for (std::size_t i = 0; i < 12; ++i) CHECK(g2.sliding_layers[i] == (i % 2 == 0));
  // Gemma3TextConfig: no caps, every 6th layer full, the sliding layers' RoPE base 10000, rope_theta 1e6
  const ModelConfig g3 = parse_model_config(R"({"model_type": "gemma3_text", )" + base.substr(1) + "}", "config.json");
  CHECK(g3.attn_softcap == 0.0);
  CHECK(g3.final_softcap == 0.0);
  for (std::size_t i = 0; i < 12; ++i) CHECK(g3.sliding_layers[i] == (i != 5 && i != 11));
  REQUIRE(g3.rope_local);
  CHECK(g3.rope_local->base == 10000.0);
  CHECK(g3.rope.base == 1000000.0);
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "gemma2", "layer_types": ["sliding_attention"], )" + base.substr(1) + "}", "config.json"),
                       doctest::Contains("layer_types should list 12 layers"), Error);
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "gemma", "hidden_activation": "relu", )" + base.substr(1) + "}", "config.json"),
                       doctest::Contains("hidden_activation \"relu\" is not supported"), Error);
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "gemma", "tie_word_embeddings": false, )" + base.substr(1) + "}", "config.json"),
                       doctest::Contains("tie_word_embeddings false is not supported"), Error);
}

TEST_CASE("gemma3: a multimodal checkpoint's text model (text_config; language_model.model.* names, a vision tower beside) = gemma3_text's") {
  // the gemma3 folder laid out as Gemma3ForConditionalGeneration saves it
  test::TempDir tmp;
  const std::string src = gemma_dir("gemma3");
  nlohmann::json text = nlohmann::json::parse(test::read_file(src + "/config.json"));
  text.erase("tfx_random_weights");
  text["model_type"] = "gemma3_text";
  const nlohmann::json config = {{"model_type", "gemma3"},
                                 {"architectures", {"Gemma3ForConditionalGeneration"}},
                                 {"text_config", text},
                                 {"vision_config", {{"model_type", "siglip_vision_model"}, {"hidden_size", 8}}},
                                 {"tfx_random_weights", true}};
  test::write_file(tmp / "config.json", config.dump());
  TensorMap renamed;
  for (auto& [name, t] : read_safetensors(src + "/model.safetensors")) renamed["language_model." + name] = t;
  renamed["vision_tower.vision_model.embeddings.patch_embedding.weight"] = Tensor({8, 3});
  test::write_file(tmp / "model.safetensors", encode_safetensors(renamed));
  const Checkpoint mm = load_checkpoint(tmp.path.string()), text_only = load_checkpoint(src);
  CHECK(mm.config.model_type == "gemma3");
  CHECK(mm.config.sliding_layers == text_only.config.sliding_layers);
  const std::vector<std::size_t> ids = {259, 262, 264, 266, 258, 268};
  CHECK(model_forward(mm, ids).logits.values() == model_forward(text_only, ids).logits.values());
  // no text_config: one error naming it
  test::write_file(tmp / "config.json", R"({"model_type": "gemma3"})");
  CHECK_THROWS_WITH_AS(load_checkpoint(tmp.path.string()), doctest::Contains("no \"text_config\" object"), Error);
}
