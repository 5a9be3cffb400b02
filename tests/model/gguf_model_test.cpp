// GGUF files as checkpoints (gguf.hpp, gguf_model.hpp), against tests/reference/gen_gguf_models.py's
// files (written by llama.cpp's own gguf-py writer, the way convert_hf_to_gguf.py writes them):
//  - F32 llama (Q/K rows permuted by the converter), qwen2 and gpt2 (Conv1D weights transposed)
//    from the same weights as tests/data/hf_models/<family>: logits ≤ 1e-5 from the folder's;
//  - llama in Q8_0 (gguf-py's quantizer): equal to the folder of gguf-py's dequantized weights;
//  - a Q4_K/Q5_K/Q6_K llama: equal to the forward pass on its weights dequantized to float32;
//  - the reader's refusals of broken files (one line, no crash), the CLI on a .gguf file.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/gguf.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/quantize.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

std::string gguf_data(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/" + name; }

std::vector<std::size_t> gguf_ids(std::size_t n, std::size_t vocab) {
  std::vector<std::size_t> ids;
  for (std::size_t i = 0; i < n; ++i) ids.push_back((i * 37 + 5) % vocab);
  return ids;
}

double gguf_maxdiff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(static_cast<double>(a[i]) - b[i]));
  return d;
}

}  // namespace

TEST_CASE("gguf: F32 llama, qwen2 and gpt2 files give the logits of the same weights' folder (≤ 1e-5)") {
  for (const std::string family : {"llama", "qwen2", "gpt2", "llama_llama3"}) {
    CAPTURE(family);
    const Checkpoint folder = load_checkpoint(gguf_data("hf_models/" + family));
    const Checkpoint file = load_checkpoint(gguf_data("gguf/" + family + ".gguf"));
    CHECK(file.config.model_type == folder.config.model_type);
    CHECK(file.config.layers == folder.config.layers);
    CHECK(file.config.heads == folder.config.heads);
    CHECK(file.config.kv_heads == folder.config.kv_heads);
    CHECK(file.config.ffn == folder.config.ffn);
    CHECK(file.config.vocab == folder.config.vocab);
    CHECK(file.config.max_positions == folder.config.max_positions);
    CHECK(file.config.eps == doctest::Approx(folder.config.eps).epsilon(1e-6));
    CHECK(file.config.rope.base == folder.config.rope.base);
    CHECK(file.config.rope.scaling == folder.config.rope.scaling);  // llama_llama3: found again from rope_freqs.weight
    CHECK(file.config.rope.factor == folder.config.rope.factor);
    CHECK(file.config.rope.original_max_pos == folder.config.rope.original_max_pos);
    CHECK(file.parameter_count() >= folder.parameter_count());
    const std::vector<std::size_t> ids = gguf_ids(9, folder.config.vocab);
    const ForwardPass a = model_forward(folder, ids), b = model_forward(file, ids);
    const double d = gguf_maxdiff(a.logits, b.logits);
    MESSAGE(family << ".gguf (F32): max |logits − folder's| = " << d);
    CHECK(d <= 1e-5);
    for (std::size_t l = 0; l < a.hidden.size(); ++l) CHECK(gguf_maxdiff(a.hidden[l], b.hidden[l]) <= 1e-5);
  }
}

TEST_CASE("gguf: F32 gemma, gemma2 and gemma3 files (1 + w norms, caps, windows as metadata) give their folder's logits (≤ 1e-5)") {
  for (const std::string family : {"gemma", "gemma2", "gemma3"}) {
    CAPTURE(family);
    // llama.cpp keeps no query_pre_attn_scalar: it scales by 1/√head_dim (the 27B models aside), which
    // the gemma2 folder's 24 is not; that folder is read again with 16 = its head_dim
    TempDir tmp;
    std::string dir = gguf_data("hf_models/" + family);
    if (family == "gemma2") {
      auto config = nlohmann::json::parse(read_file(dir + "/config.json"));
      config["query_pre_attn_scalar"] = 16;
      write_file(tmp / "config.json", config.dump());
      std::filesystem::copy_file(dir + "/model.safetensors", tmp / "model.safetensors");
      dir = tmp.path.string();
    }
    const Checkpoint folder = load_checkpoint(dir);
    const Checkpoint file = load_checkpoint(gguf_data("gguf/" + family + ".gguf"));
    const ModelConfig &a = folder.config, &b = file.config;
    CHECK(b.model_type == a.model_type);
    CHECK(b.head_dim == a.head_dim);
    CHECK(b.kv_heads == a.kv_heads);
    CHECK(a.norm_plus_one);
    CHECK(!b.norm_plus_one);  // the converter added the 1
    CHECK(b.query_pre_attn_scalar == a.query_pre_attn_scalar);
    CHECK(b.attn_softcap == doctest::Approx(a.attn_softcap));
    CHECK(b.final_softcap == doctest::Approx(a.final_softcap));
    CHECK(b.sliding_window == a.sliding_window);
    CHECK(b.sliding_layers == a.sliding_layers);
    CHECK(b.rope.base == a.rope.base);
    CHECK(b.rope.scaling == a.rope.scaling);
    CHECK(b.rope.factor == a.rope.factor);
    CHECK(b.rope_local.has_value() == a.rope_local.has_value());
    if (a.rope_local) CHECK(b.rope_local->base == a.rope_local->base);
    const std::vector<std::size_t> ids = gguf_ids(9, a.vocab);  // longer than the window of 4
    const ForwardPass x = model_forward(folder, ids), y = model_forward(file, ids);
    const double d = gguf_maxdiff(x.logits, y.logits);
    MESSAGE(family << ".gguf (F32): max |logits − folder's| = " << d);
    CHECK(d <= 1e-5);
    for (std::size_t l = 0; l < x.hidden.size(); ++l) CHECK(gguf_maxdiff(x.hidden[l], y.hidden[l]) <= 1e-5);
  }
}

TEST_CASE("gguf: a Q8_0 llama equals the folder of gguf-py's dequantized weights") {
  const Checkpoint folder = load_checkpoint(gguf_data("gguf/llama_q8_0_dequant"));
  const Checkpoint file = load_checkpoint(gguf_data("gguf/llama_q8_0.gguf"));
  CHECK(std::get<LlamaWeights>(file.weights).layers[0].q_w.type == StoredType::q8_0);
  CHECK(std::get<LlamaWeights>(file.weights).layers[0].down.type == StoredType::f32);  // rows of 48: not whole blocks
  CHECK(file.dtype() == "mixed");
  const std::vector<std::size_t> ids = gguf_ids(9, folder.config.vocab);
  const ForwardPass a = model_forward(folder, ids), b = model_forward(file, ids);
  const double d = gguf_maxdiff(a.logits, b.logits);
  MESSAGE("llama_q8_0.gguf: max |logits − dequantized folder's| = " << d);
  CHECK(d <= 1e-6);
  // and it is close to the unquantized model, not equal
  const Checkpoint original = load_checkpoint(gguf_data("hf_models/llama"));
  const double q = gguf_maxdiff(model_forward(original, ids).logits, b.logits);
  MESSAGE("llama_q8_0.gguf: max |logits − F32 folder's| = " << q);
  CHECK(q > 0);
  CHECK(q < 0.25);  // Q8_0's error on these random weights (logits of size ~1)
}

TEST_CASE("gguf: a Q4_K / Q5_K / Q6_K llama equals the forward pass on its dequantized weights, bit for bit") {
  const std::string path = gguf_data("gguf/llama_kquant.gguf");
  const Checkpoint file = load_checkpoint(path);
  Checkpoint wide = load_checkpoint(path);
  LlamaWeights& w = std::get<LlamaWeights>(wide.weights);
  CHECK(w.embed.type == StoredType::q4_k);
  CHECK(w.layers[0].gate.type == StoredType::q5_k);
  CHECK(w.layers[0].down.type == StoredType::q6_k);
  CHECK(w.lm_head.type == StoredType::q6_k);
  std::vector<Tensor> keep;  // the float32 copies the views of `wide` point into
  keep.reserve(16);
  auto widen_slot = [&](StoredMatrix& m) {
    keep.push_back(widen(m));
    m = StoredMatrix(keep.back());
  };
  widen_slot(w.embed);
  widen_slot(w.lm_head);
  for (LlamaLayerWeights& l : w.layers)
    for (StoredMatrix* m : {&l.q_w, &l.k_w, &l.v_w, &l.o_w, &l.gate, &l.up, &l.down}) widen_slot(*m);
  const std::vector<std::size_t> ids = gguf_ids(7, file.config.vocab);
  const ForwardPass a = model_forward(file, ids), b = model_forward(wide, ids);
  CHECK(a.logits.values() == b.logits.values());
  std::vector<std::size_t> one = {3};  // decode-sized: the skinny path
  CHECK(model_forward(file, one).logits.values() == model_forward(wide, one).logits.values());
}

TEST_CASE("gguf: the reader refuses broken files with one error naming what is wrong") {
  const std::string good = test::read_file(gguf_data("gguf/llama.gguf"));
  const GgufFile f = parse_gguf(good, "llama.gguf");
  CHECK(f.version == 3);
  CHECK(f.alignment == 32);
  CHECK(f.data_offset % 32 == 0);
  CHECK(f.get_string("general.architecture", "x") == "llama");
  CHECK(f.get_uint("llama.block_count", "x") == 2u);
  REQUIRE(f.tensor("token_embd.weight"));
  CHECK(f.tensor("token_embd.weight")->ne == std::vector<std::uint64_t>{32, 400});
  auto fails = [](const std::string& bytes, const std::string& want) {
    CAPTURE(want);
    CHECK_THROWS_WITH_AS(parse_gguf(bytes, "bad.gguf"), doctest::Contains(want.c_str()), Error);
  };
  // truncated anywhere: in the header, the metadata, the tensor infos, the data
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{10}, std::size_t{30}, std::size_t{200}, f.data_offset - 1,
                          good.size() - 1})
    CHECK_THROWS_AS(parse_gguf(std::string_view(good).substr(0, cut), "bad.gguf"), Error);
  fails(good.substr(0, good.size() - 1), "goes past the end");
  fails("GGML" + good.substr(4), "does not start with \"GGUF\"");
  std::string v = good;
  v[4] = 1;
  fails(v, "version 1");
  std::string huge = good;  // metadata count 2^40
  const std::uint64_t n = std::uint64_t{1} << 40;
  std::memcpy(huge.data() + 16, &n, 8);
  fails(huge, "metadata entries are more than the file could hold");
  std::memcpy(huge.data() + 8, &n, 8);
  // the first key's length made absurd
  std::string key = good;
  std::memcpy(key.data() + 24, &n, 8);
  fails(key, "longer than");
  // a tensor's type and offset (the first tensor info: found by its name)
  const std::string first = f.tensors.front().name;
  const std::size_t at = good.find(first, 24);
  REQUIRE(at != std::string::npos);
  const std::size_t dims_at = at + first.size(), type_at = dims_at + 4 + 8 * f.tensors.front().ne.size();
  std::string type = good;
  const std::uint32_t q2k = 10;
  std::memcpy(type.data() + type_at, &q2k, 4);
  fails(type, "ggml type 10");
  std::string off = good;
  const std::uint64_t past = good.size();
  std::memcpy(off.data() + type_at + 4, &past, 8);
  CHECK_THROWS_AS(parse_gguf(off, "bad.gguf"), Error);
  std::string overlap = good;  // the first tensor moved onto the second
  const std::uint64_t second = f.tensors[1].offset;
  std::memcpy(overlap.data() + type_at + 4, &second, 8);
  fails(overlap, "overlap");
  std::string dims = good;
  const std::uint32_t five = 5;
  std::memcpy(dims.data() + dims_at, &five, 4);
  fails(dims, "5 dimensions");
}

TEST_CASE("gguf: the CLI reads a .gguf file where it reads a folder; broken ones are one line, exit 1") {
  const std::string ids = "--ids 5,42,79,116 --format json";
  const test::Run folder = test::run_tfx("model logits " + test::shell_quote(gguf_data("hf_models/llama")) + " " + ids);
  const test::Run file = test::run_tfx("model logits " + test::shell_quote(gguf_data("gguf/llama.gguf")) + " " + ids);
  REQUIRE(folder.code == 0);
  CHECK(file.code == 0);
  const test::Run info = test::run_tfx("model info " + test::shell_quote(gguf_data("gguf/llama_kquant.gguf")));
  CHECK(info.code == 0);
  CHECK(info.out.find("llama") != std::string::npos);
  // the tokenizer from tokenizer.ggml.*: the same tokens as the folder's
  const std::string text = " -- 'the cat sat, 33 한국어'";
  const test::Run tok_folder = test::run_tfx("model tokenize --no-special --format csv " + test::shell_quote(gguf_data("hf_models/gpt2")) + text);
  const test::Run tok_file = test::run_tfx("model tokenize --no-special --format csv " + test::shell_quote(gguf_data("gguf/gpt2.gguf")) + text);
  REQUIRE(tok_folder.code == 0);
  CHECK(tok_file.code == 0);
  CHECK(tok_file.out == tok_folder.out);
  test::TempDir dir;
  const std::string good = test::read_file(gguf_data("gguf/qwen2.gguf"));
  test::write_file(dir.path / "cut.gguf", good.substr(0, good.size() / 2));
  const test::Run cut = test::run_tfx("model logits cut.gguf --ids 1,2", dir.path);
  CHECK(cut.code == 1);
  CHECK(cut.err.find("tfx: error: cut.gguf: not a valid GGUF file") == 0);
  CHECK(std::count(cut.err.begin(), cut.err.end(), '\n') == 1);
  std::string arch = good;
  const std::size_t at = arch.find("qwen2");
  arch.replace(at, 5, "qwen9");
  test::write_file(dir.path / "arch.gguf", arch);
  const test::Run bad_arch = test::run_tfx("model info arch.gguf", dir.path);
  CHECK(bad_arch.code == 1);
  CHECK(bad_arch.err.find("architecture \"qwen9\" is not supported") != std::string::npos);
}

TEST_CASE("gguf: a Gemma file's own metadata, wrong, is one error naming the key") {
  // gemma3.gguf's metadata with one key changed, re-encoded by tfx's writer, opened as a model
  const QuantSource src = read_quant_source(gguf_data("gguf/gemma3.gguf"));
  const QuantizedModel q = quantize_model(src, StoredType::f32);
  test::TempDir dir;
  auto opens_with = [&](const std::string& key, std::optional<GgufValue> value, const std::string& want) {
    CAPTURE(key);
    std::vector<std::pair<std::string, GgufValue>> md;
    for (const auto& kv : q.metadata)
      if (kv.first != key) md.push_back(kv);
    if (value) md.emplace_back(key, *value);
    const std::string path = (dir / "g.gguf").string();
    test::write_file(path, encode_gguf(md, q.tensors));
    if (want.empty()) {
      CHECK_NOTHROW(load_checkpoint(path));
    } else {
      CHECK_THROWS_WITH_AS(load_checkpoint(path), doctest::Contains(want.c_str()), Error);
    }
  };
  GgufValue u32;
  u32.type = GgufValueType::u32;
  opens_with("gemma3.attention.sliding_window", std::nullopt, "no metadata gemma3.attention.sliding_window (a gemma3 model needs it)");
  u32.i = 0;
  opens_with("gemma3.attention.sliding_window_pattern", u32, "gemma3.attention.sliding_window_pattern is 0");
  u32.i = 1u << 30;
  opens_with("gemma3.attention.sliding_window", u32, "\"sliding_window\" should be a whole number from 1 to 2^24");
  GgufValue flags;
  flags.type = GgufValueType::array;
  flags.elem = GgufValueType::boolean;
  for (int k = 0; k < 2; ++k) {
    GgufValue b;
    b.type = GgufValueType::boolean;
    b.i = 1;
    flags.items.push_back(b);
  }
  opens_with("gemma3.attention.sliding_window_pattern", flags, "should be 3 booleans (one per layer)");
  GgufValue b;
  b.type = GgufValueType::boolean;
  b.i = 0;
  flags.items.push_back(b);  // sliding, sliding, full: a list is read as it is
  opens_with("gemma3.attention.sliding_window_pattern", flags, "");
  GgufValue text;
  text.type = GgufValueType::string;
  text.s = "six";
  opens_with("gemma3.attention.sliding_window_pattern", text, "gemma3.attention.sliding_window_pattern");
  // a NaN or infinite float is refused, not replaced by the default (it became JSON null on the
  // way to the config: θ = 10000 and ε = 1e-6 instead, exit 0)
  GgufValue f32;
  f32.type = GgufValueType::f32;
  f32.f = std::nan("");
  opens_with("gemma3.rope.freq_base", f32, "metadata gemma3.rope.freq_base is nan; expected a finite number");
  f32.f = HUGE_VAL;
  opens_with("gemma3.attention.layer_norm_rms_epsilon", f32, "metadata gemma3.attention.layer_norm_rms_epsilon is inf; expected a finite number");
  f32.f = -HUGE_VAL;
  opens_with("gemma3.rope.freq_base_swa", f32, "is -inf");
  f32.f = 1e6;
  opens_with("gemma3.rope.freq_base", f32, "");
}
