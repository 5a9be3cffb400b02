// Hugging Face checkpoints against Hugging Face's modeling code: tests/reference/gen_hf_models.py
// builds tiny random checkpoints of every family in HF's layout (BERT with and without the MLM head
// and with legacy gamma/beta names, GPT-2 in F32/F16/BF16 and sharded, Llama with GQA, tied and
// untied heads, every rope_scaling type, Qwen2's biases, Mistral) and records, with each family's
// forward written in plain torch after modeling_*.py, the hidden states, attentions and logits.
// tfx's forward must match all three within 1e-4. ViT: the picture through ViTImageProcessor (PIL),
// the forward in torch checked there by an independent numpy forward, and the attention rollout.
#include <cmath>
#include <filesystem>

#include "helpers.hpp"
#include "tfx/attention/vision.hpp"
#include "tfx/core/error.hpp"
#include "tfx/io/image_file.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

std::string model_dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

double max_abs_diff(const Tensor& a, const float* b, std::size_t n) {
  REQUIRE(a.size() == n);
  double d = 0;
  for (std::size_t i = 0; i < n; ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

void check_model(const std::string& name) {
  CAPTURE(name);
  const Checkpoint m = load_checkpoint(model_dir(name));
  const TensorMap ref = read_safetensors(model_dir(name) + "/reference.safetensors");
  std::vector<std::size_t> ids;
  for (float v : ref.at("input_ids").values()) ids.push_back(static_cast<std::size_t>(v));
  const ForwardPass f = model_forward(m, ids);
  const Tensor& hs = ref.at("hidden_states");
  const Tensor& at = ref.at("attentions");
  REQUIRE(f.hidden.size() == hs.dim(0));
  REQUIRE(f.attentions.size() == at.dim(0));
  const std::size_t hn = hs.dim(1) * hs.dim(2), an = at.size() / at.dim(0);
  for (std::size_t l = 0; l < f.hidden.size(); ++l) {
    CAPTURE(l);
    CHECK(max_abs_diff(f.hidden[l], hs.data() + l * hn, hn) <= 1e-4);
  }
  for (std::size_t l = 0; l < f.attentions.size(); ++l) {
    CAPTURE(l);
    CHECK(max_abs_diff(f.attentions[l], at.data() + l * an, an) <= 1e-4);
  }
  if (ref.count("logits")) {
    const Tensor& lg = ref.at("logits");
    MESSAGE(name << ": max |logits − torch| = " << max_abs_diff(f.logits, lg.data(), lg.size()));
    CHECK(max_abs_diff(f.logits, lg.data(), lg.size()) <= 1e-4);
  } else {
    CHECK(f.logits.empty());
  }
}

}  // namespace

TEST_CASE("hf checkpoint: BERT (MLM head; legacy gamma/beta names without the bert. prefix) = HF's forward within 1e-4") {
  check_model("bert");
  check_model("bert_legacy");
  CHECK(load_checkpoint(model_dir("bert")).has_lm_head);
  CHECK(!load_checkpoint(model_dir("bert_legacy")).has_lm_head);
}

TEST_CASE("hf checkpoint: GPT-2 in F32, F16, BF16 and sharded = HF's forward within 1e-4") {
  for (const char* n : {"gpt2", "gpt2_f16", "gpt2_bf16", "gpt2_sharded"}) check_model(n);
  CHECK(load_checkpoint(model_dir("gpt2_bf16")).dtype() == "BF16");
  CHECK(load_checkpoint(model_dir("gpt2_sharded")).files().size() == 2);
}

TEST_CASE("hf checkpoint: Llama (GQA, untied / tied head), every rope_scaling, Qwen2 biases, Mistral = HF's forward within 1e-4") {
  for (const char* n : {"llama", "llama_tied", "llama_linear", "llama_dynamic", "llama_yarn", "llama_llama3", "qwen2", "mistral"})
    check_model(n);
  const Checkpoint m = load_checkpoint(model_dir("llama"));
  CHECK(m.config.kv_heads == 2);
  CHECK(m.config.heads == 4);
}

TEST_CASE("hf checkpoint: a missing tensor, a wrong shape, an unknown model_type, a missing shard are errors naming them") {
  TempDir tmp;
  const std::filesystem::path d = tmp.path / "m";
  std::filesystem::copy(model_dir("gpt2"), d);
  // unknown model_type
  write_file(d / "config.json", R"({"model_type": "t5"})");
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("model_type \"t5\" is not supported (supported: bert, gpt2, llama, qwen2, qwen3, mistral, gemma, gemma2, gemma3_text, gemma3, vit)"),
                       Error);
  // a config whose width does not match the tensors
  std::filesystem::copy_file(model_dir("gpt2") + "/config.json", d / "config.json", std::filesystem::copy_options::overwrite_existing);
  TensorMap t = read_safetensors((d / "model.safetensors").string());
  t.erase("transformer.h.1.mlp.c_fc.bias");
  write_file(d / "model.safetensors", encode_safetensors(t));
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("no tensor 'h.1.mlp.c_fc.bias'"), Error);
  t["transformer.h.1.mlp.c_fc.bias"] = Tensor({3});
  write_file(d / "model.safetensors", encode_safetensors(t));
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("tensor 'h.1.mlp.c_fc.bias' is [3], expected [128]"), Error);
  // a shard the index names but the folder lacks
  const std::filesystem::path s = tmp.path / "s";
  std::filesystem::copy(model_dir("gpt2_sharded"), s);
  std::filesystem::remove(s / "model-00002-of-00002.safetensors");
  CHECK_THROWS_WITH_AS(load_checkpoint(s.string()), doctest::Contains("names the shard model-00002-of-00002.safetensors, which the folder does not have"),
                       Error);
  CHECK_THROWS_WITH_AS(load_checkpoint((tmp.path / "none").string()), doctest::Contains("not a directory"), Error);
}

TEST_CASE("hf checkpoint: config.json fields of the wrong type are errors naming the field, not aborts") {
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "gpt2", "n_embd": 8, "n_layer": 1, "n_head": 2, "vocab_size": 10,
                                              "activation_function": 3})", "config.json"),
                       doctest::Contains("config.json: \"activation_function\" should be a string, got 3"), Error);
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                                              "intermediate_size": 16, "vocab_size": 10, "tie_word_embeddings": "no"})", "config.json"),
                       doctest::Contains("\"tie_word_embeddings\" should be true or false, got \"no\""), Error);
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                                              "intermediate_size": 16, "vocab_size": 10, "rope_scaling": {"rope_type": 2}})", "config.json"),
                       doctest::Contains("config.json rope_scaling: \"rope_type\" should be a string, got 2"), Error);
  // the same fields of the right type load
  CHECK(parse_model_config(R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
                               "intermediate_size": 16, "vocab_size": 10, "tie_word_embeddings": true})", "config.json").tied_head);
}

TEST_CASE("hf checkpoint: ViT — PIL-preprocessed pixels, torch/numpy forward within 1e-4, labels, rollout, the unfold route") {
  const std::string dir = model_dir("vit");
  const Checkpoint m = load_checkpoint(dir);
  const ModelConfig& c = m.config;
  REQUIRE(c.family->image());
  CHECK(c.image_size == 32);
  CHECK(c.patch_size == 8);
  CHECK(c.labels == std::vector<std::string>{"tabby cat", "golden retriever", "airliner", "volcano", "teapot"});
  CHECK(m.head == OutputHead::classifier);
  const TensorMap ref = read_safetensors(dir + "/reference.safetensors");
  // preprocessing: PIL's 8-bit bilinear resize of the 48×40 picture, rescale, ImageNet mean/std
  const VitProcessor proc = read_vit_processor(dir, c);
  CHECK(proc.from_file);
  CHECK(proc.mean[1] == doctest::Approx(0.456));
  const Image picture = read_image(dir + "/picture.png");
  REQUIRE(picture.width == 48);
  const Tensor pixels = vit_pixel_values(picture, proc);
  const Tensor& want_px = ref.at("pixel_values");
  REQUIRE(pixels.shape() == want_px.shape());
  CHECK(max_abs_diff(pixels, want_px.data(), want_px.size()) <= 1e-5);
  // the forward over the reference pixels and over tfx's own
  for (const Tensor* px : {&want_px, &pixels}) {
    const ForwardPass f = model_forward_image(m, *px);
    const Tensor& hs = ref.at("hidden_states");
    const Tensor& at = ref.at("attentions");
    REQUIRE(f.hidden.size() == 3);
    REQUIRE(f.attentions.size() == 2);
    const std::size_t hn = hs.dim(1) * hs.dim(2), an = at.size() / at.dim(0);
    for (std::size_t l = 0; l < 3; ++l) CHECK(max_abs_diff(f.hidden[l], hs.data() + l * hn, hn) <= 1e-4);
    for (std::size_t l = 0; l < 2; ++l) CHECK(max_abs_diff(f.attentions[l], at.data() + l * an, an) <= 1e-4);
    CHECK(max_abs_diff(f.logits, ref.at("logits").data(), 5) <= 1e-4);
    const Tensor roll = attention_rollout(f.attentions);
    double d = 0;
    for (std::size_t k = 0; k < 17; ++k) d = std::max(d, std::fabs(static_cast<double>(roll(0, k)) - ref.at("rollout_cls")[k]));
    CHECK(d <= 1e-5);
    double sum = 0;  // rollout rows stay distributions
    for (std::size_t k = 0; k < 17; ++k) sum += roll(0, k);
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
  // a text model refuses a picture, the ViT refuses text
  CHECK_THROWS_WITH_AS(model_forward_image(load_checkpoint(model_dir("bert")), want_px), doctest::Contains("reads text, not a picture"), Error);
  CHECK_THROWS_WITH_AS(model_forward(m, {1, 2}), doctest::Contains("a vit checkpoint reads a picture, not text"), Error);
}

TEST_CASE("hf checkpoint: ViT's patch embedding is tfx patches' unfold route: Conv2d = unfolded patches × the flattened kernel") {
  const std::string dir = model_dir("vit");
  const Checkpoint m = load_checkpoint(dir);
  // no normalization: the pixel values are rgb / 255, the values `tfx patches --image` unfolds
  VitProcessor proc = read_vit_processor(dir, m.config);
  proc.mean = {0, 0, 0};
  proc.std = {1, 1, 1};
  const Image shown = vit_resized_picture(read_image(dir + "/picture.png"), proc);
  const Tensor pixels = vit_pixel_values(shown, proc);
  const Tensor rows = unfold_patches(shown, 8);  // tfx patches' data block
  REQUIRE(rows.shape() == std::vector<std::size_t>{16, 192});
  CHECK(max_abs_diff(unfold_patches(pixels, 8), rows.data(), rows.size()) <= 1e-7);
  // Conv2d(3, D, kernel = stride = 8) by its definition, over the 4-D kernel as the file stores it
  const TensorMap file = read_safetensors(dir + "/model.safetensors");
  const Tensor& K = file.at("vit.embeddings.patch_embeddings.projection.weight");
  const Tensor& B = file.at("vit.embeddings.patch_embeddings.projection.bias");
  const Tensor& pos = file.at("vit.embeddings.position_embeddings");
  const ForwardPass f = model_forward_image(m, pixels, false);
  double worst = 0;
  for (std::size_t gy = 0; gy < 4; ++gy)
    for (std::size_t gx = 0; gx < 4; ++gx)
      for (std::size_t d = 0; d < 32; ++d) {
        double conv = B[d];
        for (std::size_t ch = 0; ch < 3; ++ch)
          for (std::size_t y = 0; y < 8; ++y)
            for (std::size_t x = 0; x < 8; ++x)
              conv += static_cast<double>(K[((d * 3 + ch) * 8 + y) * 8 + x]) * pixels[(ch * 32 + gy * 8 + y) * 32 + gx * 8 + x];
        const std::size_t t = 1 + gy * 4 + gx;  // token t: patch t − 1 in reading order, after [CLS]
        worst = std::max(worst, std::fabs(conv + pos[t * 32 + d] - f.hidden[0](t, d)));
      }
  CHECK(worst <= 1e-5);
}

TEST_CASE("hf checkpoint: ViT config and preprocessor errors name the field") {
  const std::string base = R"({"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, )";
  CHECK_THROWS_WITH_AS(parse_model_config(base + R"("image_size": 30, "patch_size": 8})", "config.json"),
                       doctest::Contains("image_size 30 is not a multiple of patch_size 8"), Error);
  CHECK_THROWS_WITH_AS(parse_model_config(base + R"("num_channels": 1})", "config.json"), doctest::Contains("num_channels 1: tfx reads pictures as RGB"),
                       Error);
  CHECK_THROWS_WITH_AS(parse_model_config(base + R"("id2label": {"0": "a", "2": "b"}})", "config.json"),
                       doctest::Contains("id2label: \"2\" should be a class id from 0 to 1"), Error);
  const ModelConfig c = parse_model_config(base + R"("image_size": 32, "patch_size": 8})", "config.json");
  CHECK(c.max_positions == 17);
  CHECK(c.ffn == 32);  // intermediate_size's default: 4 × hidden_size
  TempDir tmp;
  // no preprocessor_config.json: ViTImageProcessor's defaults at the model's size
  VitProcessor p = read_vit_processor(tmp.path.string(), c);
  CHECK(!p.from_file);
  CHECK(p.height == 32);
  CHECK(p.mean[0] == 0.5);
  write_file(tmp.path / "preprocessor_config.json", R"({"size": {"height": 224, "width": 224}})");
  CHECK_THROWS_WITH_AS(read_vit_processor(tmp.path.string(), c), doctest::Contains("size 224×224 is not config.json's image_size 32"), Error);
  write_file(tmp.path / "preprocessor_config.json", R"({"size": 32, "resample": 3})");
  CHECK_THROWS_WITH_AS(read_vit_processor(tmp.path.string(), c), doctest::Contains("resample 3 is not supported"), Error);
  write_file(tmp.path / "preprocessor_config.json", R"({"size": 32, "image_std": [0.5, 0, 0.5]})");
  CHECK_THROWS_WITH_AS(read_vit_processor(tmp.path.string(), c), doctest::Contains("\"image_std\" should be 3 positive numbers"), Error);
  write_file(tmp.path / "preprocessor_config.json", R"({"size": 32, "do_resize": false})");
  p = read_vit_processor(tmp.path.string(), c);
  CHECK_THROWS_WITH_AS(vit_pixel_values(gradient_picture(40, 32), p), doctest::Contains("says do_resize false"), Error);
  CHECK(vit_pixel_values(gradient_picture(32, 32), p).shape() == std::vector<std::size_t>{3, 32, 32});
}
