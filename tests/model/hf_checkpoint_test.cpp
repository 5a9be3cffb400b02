// Hugging Face checkpoints against Hugging Face's modeling code: tests/reference/gen_hf_models.py
// builds tiny random checkpoints of every family in HF's layout (BERT with and without the MLM head
// and with legacy gamma/beta names, GPT-2 in F32/F16/BF16 and sharded, Llama with GQA, tied and
// untied heads, every rope_scaling type, Qwen2's biases, Mistral) and records, with each family's
// forward written in plain torch after modeling_*.py, the hidden states, attentions and logits.
// tfx's forward must match all three within 1e-4.
#include <cmath>
#include <filesystem>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
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
  CHECK(load_checkpoint(model_dir("gpt2_bf16")).dtype == "BF16");
  CHECK(load_checkpoint(model_dir("gpt2_sharded")).files.size() == 2);
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
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("model_type \"t5\" is not supported (supported: bert, gpt2, llama, qwen2, mistral)"),
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
