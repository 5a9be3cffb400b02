// The family table and the typed weights (tfx/model/family.hpp, tfx/model/<family>.hpp), and the
// loader's defences against checkpoint folders that do not fit (issue 36): tensors whose shape the
// forward pass would index out of bounds, a layer count far past the file, a FIFO in place of the
// weights, a file over the memory budget, weights that overflow float32.
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/generate.hpp"
#include "tfx/model/microscope.hpp"
#include "tfx/embeddings/checkpoint_embeddings.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

std::string family_model_dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

// A copy of a test checkpoint in `tmp` whose model.safetensors tensors `edit` may change.
template <class Edit>
std::string edited_copy(const TempDir& tmp, const std::string& name, Edit edit) {
  const std::filesystem::path d = tmp.path / name;
  std::filesystem::copy(family_model_dir(name), d);
  TensorMap t = read_safetensors((d / "model.safetensors").string());
  edit(t);
  write_file(d / "model.safetensors", encode_safetensors(t));
  return d.string();
}

}  // namespace

TEST_CASE("model families: the table knows each model_type with its traits, and nothing else") {
  struct Row {
    const char* type;
    bool decoder, rope, masked_lm;
  };
  for (const Row& r : {Row{"bert", false, false, true}, Row{"gpt2", true, false, false}, Row{"llama", true, true, false},
                       Row{"qwen2", true, true, false}, Row{"mistral", true, true, false},
                       Row{"gemma", true, true, false}, Row{"gemma2", true, true, false}, Row{"gemma3_text", true, true, false},
                       Row{"gemma3", true, true, false}}) {
    CAPTURE(r.type);
    const Family* f = find_family(r.type);
    REQUIRE(f != nullptr);
    CHECK(std::string(f->model_type) == r.type);
    CHECK(f->decoder == r.decoder);
    CHECK(f->rope == r.rope);
    CHECK(f->masked_lm == r.masked_lm);
    CHECK((f->position_table_name[0] == '\0') == r.rope);  // a learned table exactly when there is no RoPE
  }
  CHECK(find_family("t5") == nullptr);
  CHECK(find_family("BERT") == nullptr);  // config.json's spelling, case and all
  CHECK(find_family("") == nullptr);
  CHECK(supported_model_types() == "bert, gpt2, llama, qwen2, qwen3, mistral, gemma, gemma2, gemma3_text, gemma3, vit");
}

TEST_CASE("model families: the typed weights hold every layer with the file's tensors, counted as the file counts them") {
  for (const std::string name : {"bert", "gpt2", "llama", "qwen2"}) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(family_model_dir(name));
    // the reference: every tensor of the file, by its own count, minus what the family does not use
    // (GPT-2's attention-mask buffers, a tied head stored twice, BERT's tied decoder, its pooler and
    // next-sentence head)
    const TensorMap file = read_safetensors(family_model_dir(name) + "/model.safetensors");
    std::size_t expected = 0;
    for (const auto& [n, t] : file) {
      const bool unused = n.find(".attn.bias") != std::string::npos || n.find(".attn.masked_bias") != std::string::npos ||
                          n == "cls.predictions.decoder.weight" || n.find("pooler.") != std::string::npos ||
                          n.rfind("cls.seq_relationship.", 0) == 0 || (n == "lm_head.weight" && m.head == OutputHead::tied);
      if (!unused) expected += t.size();
    }
    CHECK(m.parameter_count() == expected);
    CHECK(m.token_embedding().rows == m.config.vocab);
    CHECK(m.token_embedding().cols == m.config.d_model);
  }
  const Checkpoint b = load_checkpoint(family_model_dir("bert"));
  const BertWeights& bw = std::get<BertWeights>(b.weights);
  CHECK(bw.layers.size() == b.config.layers);
  CHECK(bw.layers.back().ffn_in_w.rows == b.config.ffn);
  CHECK(bw.layers.back().ffn_in_w.cols == b.config.d_model);
  const Checkpoint l = load_checkpoint(family_model_dir("llama"));
  const LlamaWeights& lw = std::get<LlamaWeights>(l.weights);
  CHECK(lw.layers[0].k_w.rows == l.config.kv_heads * l.config.head_dim);
  CHECK(lw.layers[0].k_w.cols == l.config.d_model);
  CHECK(lw.layers[0].q_b.empty());  // llama: no q/k/v biases
  CHECK(!std::get<LlamaWeights>(load_checkpoint(family_model_dir("qwen2")).weights).layers[0].q_b.empty());
}

TEST_CASE("model families: checkpoint_embeddings names the token embedding's rows, the table the family names") {
  const Embeddings e = checkpoint_embeddings(family_model_dir("gpt2"));
  const Checkpoint m = load_checkpoint(family_model_dir("gpt2"));
  CHECK(e.size() == m.config.vocab);
  CHECK(checkpoint_folder(family_model_dir("gpt2")));
  CHECK(!checkpoint_folder(family_model_dir("gpt2") + "/config.json"));
}

TEST_CASE("model families: a BERT token-type table with no rows is refused at load, not read past its end (issue 36)") {
  TempDir tmp;
  const std::string d = edited_copy(tmp, "bert", [](TensorMap& t) {
    for (auto& [n, v] : t)
      if (n.find("token_type_embeddings") != std::string::npos) v = Tensor({0, v.dim(1)});
  });
  CHECK_THROWS_WITH_AS(load_checkpoint(d), doctest::Contains("token_type_embeddings.weight' is [0, 32], expected [rows ≥ 1, 32]"), Error);
}

TEST_CASE("model families: an optional tensor of the wrong shape is refused too (GPT-2's untied lm_head)") {
  TempDir tmp;
  const std::string d = edited_copy(tmp, "gpt2", [](TensorMap& t) { t["lm_head.weight"] = Tensor({3, 32}); });
  CHECK_THROWS_WITH_AS(load_checkpoint(d), doctest::Contains("tensor 'lm_head.weight' is [3, 32], expected ["), Error);
}

TEST_CASE("model families: n_layer 16777216 beside a one-file checkpoint fails at once, before a name per layer (issue 36)") {
  TempDir tmp;
  const std::filesystem::path d = tmp.path / "g";
  std::filesystem::copy(family_model_dir("gpt2"), d);
  std::string cfg = read_file(d / "config.json");
  const std::size_t at = cfg.find("\"n_layer\"");
  REQUIRE(at != std::string::npos);
  const std::size_t colon = cfg.find(':', at), end = cfg.find_first_of(",}", colon);
  cfg.replace(colon + 1, end - colon - 1, " 16777216");
  write_file(d / "config.json", cfg);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("config.json says 16777216 layers, but the weights hold only"), Error);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
}

TEST_CASE("model families: a FIFO in place of model.safetensors is refused, not waited on (issue 36)") {
  TempDir tmp;
  const std::filesystem::path d = tmp.path / "g";
  std::filesystem::copy(family_model_dir("gpt2"), d);
  std::filesystem::remove(d / "model.safetensors");
  REQUIRE(::mkfifo((d / "model.safetensors").c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("not a regular file"), Error);
}

TEST_CASE("model families: a dangling model.safetensors link is named with its target, not reported missing (issue 36)") {
  TempDir tmp;
  const std::filesystem::path d = tmp.path / "g";
  std::filesystem::copy(family_model_dir("gpt2"), d);
  std::filesystem::remove(d / "model.safetensors");
  std::filesystem::create_symlink("../blobs/4f2a", d / "model.safetensors");
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("model.safetensors: a symbolic link to ../blobs/4f2a, which does not exist"),
                       Error);
}

TEST_CASE("model families: the memory budget sees the weights before they are mapped; 16-bit weights are not converted (issues 36, 39)") {
  TempDir tmp;
  const std::filesystem::path d = tmp.path / "g";
  std::filesystem::copy(family_model_dir("gpt2"), d);
  // a 2 GiB model.safetensors (sparse: no disk used) under a 512 MB budget
  std::filesystem::resize_file(d / "model.safetensors", std::uintmax_t{2} << 30);
  const std::size_t before = memory_budget();
  set_memory_budget(512u << 20, "TFX_MEMORY_LIMIT");
  CHECK_THROWS_WITH_AS(load_checkpoint(d.string()), doctest::Contains("over the memory budget"), Error);
  // the F16 file is used as stored (a float32 copy would be twice its size): it loads under a
  // budget of 1.5 × its size and runs; under half its size it is refused
  set_memory_budget(before, "TFX_MEMORY_LIMIT");
  const auto f16 = std::filesystem::file_size(family_model_dir("gpt2_f16") + "/model.safetensors");
  set_memory_budget(static_cast<std::size_t>(f16 / 2), "TFX_MEMORY_LIMIT");
  CHECK_THROWS_WITH_AS(load_checkpoint(family_model_dir("gpt2_f16")), doctest::Contains("over the memory budget"), Error);
  set_memory_budget(static_cast<std::size_t>(f16 * 3 / 2), "TFX_MEMORY_LIMIT");
  const Checkpoint m = load_checkpoint(family_model_dir("gpt2_f16"));
  CHECK(m.dtype() == "F16");
  CHECK(std::get<Gpt2Weights>(m.weights).wte.type == StoredType::f16);  // a view into the file, not a float32 copy
  CHECK(model_forward(m, {1, 2, 3}).logits.rows() == 3);
  set_memory_budget(before, "TFX_MEMORY_LIMIT");
}

TEST_CASE("model families: weights that overflow float32 are an error naming the layer and step, not nan output (issue 36)") {
  TempDir tmp;
  // layer 1's FFN bias and output weights at 1e30 (finite): the products reach 1e60, past float32
  // (exit 0 with nan output before)
  const std::string d = edited_copy(tmp, "gpt2", [](TensorMap& t) {
    for (const char* n : {"transformer.h.1.mlp.c_fc.bias", "transformer.h.1.mlp.c_proj.weight"})
      for (float& v : t.at(n).values()) v = 1e30f;
  });
  const Checkpoint m = load_checkpoint(d);
  CHECK_THROWS_WITH_AS(model_forward(m, {1, 2, 3}), doctest::Contains("the output of layer 1 has a non-finite value"), Error);
  // the untouched file runs
  CHECK_NOTHROW(model_forward(load_checkpoint(family_model_dir("gpt2")), {1, 2, 3}));
}

TEST_CASE("model families: a NaN weight (used as stored, unchecked at load) is named when the forward pass meets it (issue 36)") {
  TempDir tmp;
  const std::string d = edited_copy(tmp, "gpt2", [](TensorMap& t) { t.at("transformer.h.0.mlp.c_fc.bias").values()[5] = std::nanf(""); });
  const Checkpoint m = load_checkpoint(d);  // loads: the weights are a view, not read here
  CHECK_THROWS_WITH_AS(model_forward(m, {1, 2, 3}),
                       doctest::Contains("tensor 'transformer.h.0.mlp.c_fc.bias' holds NaN at index 5; weights must be finite"), Error);
}

TEST_CASE("model families: a NaN weight is named by generation (the KV decoder) and by the logit lens too, not sampled or shown as n/a") {
  TempDir tmp;
  const std::string d = edited_copy(tmp, "gpt2", [](TensorMap& t) { t.at("transformer.h.0.mlp.c_fc.bias").values()[5] = std::nanf(""); });
  const Checkpoint m = load_checkpoint(d);
  const std::vector<std::size_t> ids = {1, 2, 3};
  // generate: the cached passes keep no hidden states, so their logits are checked (it was
  // "softmax: the logits contain NaN", naming no file)
  GenerateOptions g;
  g.max_new_tokens = 2;
  CHECK_THROWS_WITH_AS(generate(m, ids, g), doctest::Contains("the logits has a non-finite value (inf or NaN) at token 2"), Error);
  CHECK_THROWS_WITH_AS(generate(m, ids, g), doctest::Contains("tensor 'transformer.h.0.mlp.c_fc.bias' holds NaN at index 5"), Error);
  // the lens: a pass that keeps only the residual taps (no logits), then each block's input
  // through the head (exit 0 with every probability n/a before); block 0's input is the embedding,
  // still finite: block 1's is the first with the NaN
  const MicroscopeRun run = [&](const ForwardOptions& o) { return model_forward(m, ids, o); };
  const CleanRun clean = clean_run(run, LogitRows::none);
  CHECK_THROWS_WITH_AS(logit_lens(m, clean), doctest::Contains("the logit lens of block 1's input has a non-finite value"), Error);
  // the untouched model generates and lenses
  const Checkpoint ok = load_checkpoint(family_model_dir("gpt2"));
  CHECK(generate(ok, ids, g).steps.size() == 2);
  const MicroscopeRun ok_run = [&](const ForwardOptions& o) { return model_forward(ok, ids, o); };
  CHECK_NOTHROW(logit_lens(ok, clean_run(ok_run, LogitRows::none)));
}

TEST_CASE("model families: a pass that keeps no attention tables is budgeted for one layer's, not every layer's") {
  // `model next` and `model logits` keep neither the attention tables nor the hidden states: a
  // prompt of 8,000 tokens of the tiny llama needed 2.6 GB (every layer × head × T² kept) and was
  // refused under a budget it fits now. The budget here lies between the two estimates.
  const Checkpoint m = load_checkpoint(family_model_dir("llama"));
  const ModelConfig& c = m.config;
  const double T = 256, file = static_cast<double>(m.file_bytes());
  const double one_layer = 4.0 * (static_cast<double>(c.heads) * T * T + 2.0 * T * static_cast<double>(c.d_model) + static_cast<double>(c.vocab));
  const double every_layer = 4.0 * (static_cast<double>(c.layers * c.heads) * T * T + static_cast<double>(c.layers + 1) * T * static_cast<double>(c.d_model) +
                                    T * static_cast<double>(c.vocab));
  REQUIRE(c.layers >= 2);
  const std::size_t before = memory_budget();
  set_memory_budget(static_cast<std::size_t>(file + (one_layer + every_layer) / 2), "TFX_MEMORY_LIMIT");
  const std::vector<std::size_t> ids(256, 1);
  CHECK_THROWS_WITH_AS(model_forward(m, ids, true), doctest::Contains("over the memory budget"), Error);
  ForwardOptions quiet;
  quiet.logits = LogitRows::last;
  quiet.keep_attentions = false;
  quiet.keep_hidden = false;
  const ForwardPass f = model_forward(m, ids, quiet);
  CHECK(f.attentions.empty());
  CHECK(f.hidden.empty());
  CHECK(f.logits.rows() == 1);
  set_memory_budget(before, "TFX_MEMORY_LIMIT");
}

TEST_CASE("model families: the forward pass's attention weights are checked against the memory budget before it runs") {
  const Checkpoint m = load_checkpoint(family_model_dir("gpt2"));
  const std::vector<std::size_t> ids(12, 1);
  // 2 layers × 4 heads × 12² float weights alone are 4 608 bytes
  const std::size_t before = memory_budget();
  set_memory_budget(4000, "TFX_MEMORY_LIMIT");
  CHECK_THROWS_WITH_AS(model_forward(m, ids, false), doctest::Contains("the forward pass of 2 layers × 4 heads over 12 tokens"), Error);
  set_memory_budget(before, "TFX_MEMORY_LIMIT");
  CHECK(model_forward(m, ids, false).attentions.size() == 2);
}
