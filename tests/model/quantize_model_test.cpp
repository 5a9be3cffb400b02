// tfx model quantize (tfx/model/quantize.hpp): the GGUF it writes read back by parse_gguf; a
// folder quantized to Q8_0 equal byte for byte, tensor by tensor, to the file llama.cpp's own
// gguf-py wrote from the same weights (tests/data/gguf/llama_q8_0.gguf: its names, the Q/K
// permutation, its quantizer); F32 files whose logits and tokens equal the folder's; a Q8_0 file close to it;
// next_token_cost against numpy (tests/reference/gen_quantize_reference.py) and its properties
// (a model against itself: KL 0, top-1 1); the command's --show on F32 (KL 0, agreement 1).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/gguf.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/quantize.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;

namespace {

std::string quant_data(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/" + name; }

// the source quantized to `type` and written to dir/name
std::string quant_write(const test::TempDir& dir, const std::string& src, StoredType type, const std::string& name,
                        std::optional<StoredType> fallback = std::nullopt) {
  const QuantizedModel q = quantize_model(read_quant_source(src), type, fallback);
  const std::string path = (dir / name).string();
  test::write_file(path, encode_gguf(q.metadata, q.tensors));
  return path;
}

double quant_maxdiff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(static_cast<double>(a.data()[i]) - b.data()[i]));
  return d;
}

}  // namespace

TEST_CASE("quantize: next_token_cost equals numpy's KL, top-1 agreement and perplexities") {
  // the logits of tests/reference/gen_quantize_reference.py
  const std::size_t T = 5, V = 7;
  Tensor ref({T, V}), q({T, V});
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t v = 0; v < V; ++v) {
      const double r = 2 * std::sin(1.3 * static_cast<double>(t) + 0.7 * static_cast<double>(v));
      ref.data()[t * V + v] = static_cast<float>(r);
      q.data()[t * V + v] = static_cast<float>(static_cast<double>(static_cast<float>(r)) +
                                               0.3 * std::cos(2.1 * static_cast<double>(t) + 0.3 * static_cast<double>(v)));
    }
  const std::vector<std::size_t> ids = {1, 3, 0, 6, 2};
  const NextTokenCost c = next_token_cost(ref, q, ids);
  CHECK(c.kl == doctest::Approx(0.0055148566873515865).epsilon(1e-9));
  CHECK(c.top1 == doctest::Approx(0.8));
  CHECK(c.ppl_ref == doctest::Approx(6.74830459056246).epsilon(1e-9));
  CHECK(c.ppl_q == doctest::Approx(6.035382812164294).epsilon(1e-9));
  // a model against itself
  const NextTokenCost same = next_token_cost(ref, ref, ids);
  CHECK(same.kl == 0.0);
  CHECK(same.top1 == 1.0);
  CHECK(same.ppl_q == same.ppl_ref);
  CHECK_THROWS_AS(next_token_cost(ref, Tensor({T, V + 1}), ids), Error);
}

TEST_CASE("quantize: encode_gguf is read back by parse_gguf: metadata, tensor infos, aligned data") {
  std::vector<std::pair<std::string, GgufValue>> md = {{"general.architecture", gguf_string("llama")},
                                                       {"a.u32", gguf_u32(7)},
                                                       {"a.f32", gguf_f32(0.5f)},
                                                       {"a.bool", gguf_bool(true)}};
  GgufValue arr;
  arr.type = GgufValueType::array;
  arr.elem = GgufValueType::string;
  arr.items = {gguf_string("토큰"), gguf_string("b")};
  md.emplace_back("a.arr", arr);
  std::vector<GgufTensorOut> ts(2);
  ts[0].name = "x";
  ts[0].ne = {3};
  ts[0].data.assign(12, 1);
  ts[1].name = "y";
  ts[1].ne = {32, 2};
  ts[1].type = StoredType::q8_0;
  ts[1].data.assign(68, 2);
  const std::string bytes = encode_gguf(md, ts);
  const GgufFile f = parse_gguf(bytes, "mem.gguf");
  CHECK(f.version == 3);
  CHECK(f.get_string("general.architecture", "m") == std::optional<std::string>("llama"));
  CHECK(f.get_uint("a.u32", "m") == std::optional<std::uint64_t>(7));
  CHECK(f.get_float("a.f32", "m") == std::optional<double>(0.5));
  REQUIRE(f.find("a.arr"));
  CHECK(f.find("a.arr")->items.at(0).s == "토큰");
  REQUIRE(f.tensors.size() == 2);
  CHECK(f.tensors[1].type == StoredType::q8_0);
  CHECK(f.tensors[1].offset % 32 == 0);
  CHECK(f.tensors[1].data[0] == 2);
  CHECK(f.data_offset % 32 == 0);
}

TEST_CASE("quantize: the llama folder as Q8_0 equals gguf-py's llama_q8_0.gguf tensor by tensor, byte for byte") {
  test::TempDir dir;
  const std::string mine = quant_write(dir, quant_data("hf_models/llama"), StoredType::q8_0, "q8.gguf", StoredType::f32);
  const std::string a = test::read_file(mine), b = test::read_file(quant_data("gguf/llama_q8_0.gguf"));
  const GgufFile fa = parse_gguf(a, mine), fb = parse_gguf(b, "llama_q8_0.gguf");
  REQUIRE(fa.tensors.size() == fb.tensors.size());
  std::size_t same = 0;
  for (const GgufTensor& t : fb.tensors) {
    const GgufTensor* u = fa.tensor(t.name);
    REQUIRE(u != nullptr);
    CHECK(u->type == t.type);
    CHECK(u->ne == t.ne);
    same += u->bytes == t.bytes && std::equal(t.data, t.data + t.bytes, u->data);
  }
  MESSAGE(same << " of " << fb.tensors.size() << " tensors byte-identical to gguf-py's");
  CHECK(same == fb.tensors.size());
  // the streaming writer (-o) gives the same bytes as the file made in memory
  std::string streamed;
  const QuantSource src = read_quant_source(quant_data("hf_models/llama"));
  const std::vector<TensorError> errors =
      write_quantized_gguf(src, StoredType::q8_0, StoredType::f32, [&streamed](std::string_view b) { streamed.append(b); });
  CHECK(streamed == a);
  CHECK(errors.size() == fb.tensors.size());
  // without --fallback the 48-wide ffn_down rows are an error naming the tensor
  try {
    (void)quantize_model(read_quant_source(quant_data("hf_models/llama")), StoredType::q8_0);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("blk.0.ffn_down.weight has rows of 48 values") != std::string::npos);
  }
}

TEST_CASE("quantize: F32 files give the folder's logits (≤ 1e-6); Q8_0 close; every family re-opens") {
  test::TempDir dir;
  const std::vector<std::size_t> ids = {5, 42, 79, 116, 3};
  for (const std::string family : {"llama", "qwen2", "qwen3", "gpt2", "gemma", "gemma3"}) {
    CAPTURE(family);
    const Checkpoint folder = load_checkpoint(quant_data(std::string("hf_models/") + family));
    const Tensor want = model_forward(folder, ids).logits;
    const std::string f32_path = quant_write(dir, quant_data(std::string("hf_models/") + family), StoredType::f32, std::string(family) + ".gguf");
    const Checkpoint f32 = load_checkpoint(f32_path);
    // the folder's tokenizer went along (tokenizer.huggingface.json, or GPT-2's tokenizer.ggml.*)
    const std::string text = "the cat sat, 한국어 <s>";
    CHECK(load_model_tokenizer(f32_path).encode(text).ids == load_model_tokenizer(quant_data(std::string("hf_models/") + family)).encode(text).ids);
    CHECK(f32.config.random_weights == folder.config.random_weights);
    const double d32 = quant_maxdiff(model_forward(f32, ids).logits, want);
    MESSAGE(family << ": F32 file vs folder maxdiff = " << d32);
    CHECK(d32 <= 1e-6);
    const Checkpoint q8 = load_checkpoint(
        quant_write(dir, quant_data(std::string("hf_models/") + family), StoredType::q8_0, std::string(family) + "_q8.gguf", StoredType::f32));
    const Tensor got8 = model_forward(q8, ids).logits;
    const double d8 = quant_maxdiff(got8, want);
    double scale = 0;
    for (float v : want.values()) scale = std::max(scale, std::abs(static_cast<double>(v)));
    MESSAGE(family << ": Q8_0 file vs folder maxdiff = " << d8 << " (max |logit| " << scale << ")");
    CHECK(d8 > 0);
    CHECK(d8 < 0.1 * scale);  // random weights of 32 dims: 8-bit weights move the logits a few per cent
    if (family == "llama") {
      // the same weights as gguf-py dequantizes its own Q8_0 file (llama_q8_0_dequant/): equal logits
      const Checkpoint deq = load_checkpoint(quant_data("gguf/llama_q8_0_dequant"));
      const double dd = quant_maxdiff(got8, model_forward(deq, ids).logits);
      MESSAGE("llama: Q8_0 file vs gguf-py's dequantized folder maxdiff = " << dd);
      CHECK(dd <= 1e-5);
    }
  }
  // a GGUF source: gpt2.gguf (F32, with its tokenizer.ggml.*) to F16 and back to F32
  const std::string f16 = quant_write(dir, quant_data("gguf/gpt2.gguf"), StoredType::f16, "gpt2_f16.gguf");
  const std::string back = quant_write(dir, f16, StoredType::f32, "gpt2_back.gguf");
  const std::string back_bytes = test::read_file(back);
  const GgufFile g = parse_gguf(back_bytes, back);
  CHECK(g.get_string("tokenizer.ggml.model", back) == std::optional<std::string>("gpt2"));
  CHECK(g.get_uint("general.file_type", back) == std::optional<std::uint64_t>(0));
}

TEST_CASE("quantize: what llama.cpp needs beyond the family's tensors: GPT-2's output.weight, Gemma's 1 + w norms and keys") {
  test::TempDir dir;
  // convert_hf_to_gguf's GPT2Model: the tied head also as output.weight (llama.cpp's gpt2 graph requires it)
  const std::string g2 = quant_write(dir, quant_data("hf_models/gpt2"), StoredType::f32, "gpt2.gguf");
  const std::string g2_bytes = test::read_file(g2);  // the tensors' data point into it
  const GgufFile g = parse_gguf(g2_bytes, g2);
  REQUIRE(g.tensor("output.weight") != nullptr);
  REQUIRE(g.tensor("token_embd.weight") != nullptr);
  CHECK(std::memcmp(g.tensor("output.weight")->data, g.tensor("token_embd.weight")->data, g.tensor("token_embd.weight")->bytes) == 0);
  // gemma3: every norm weight stored as 1 + w (the folder's w read independently here), the window,
  // the period of the full layers and the sliding layers' RoPE base as llama.cpp reads them
  const std::string g3 = quant_write(dir, quant_data("hf_models/gemma3"), StoredType::f32, "gemma3.gguf");
  const std::string g3_bytes = test::read_file(g3);
  const GgufFile f = parse_gguf(g3_bytes, g3);
  const TensorMap w = read_safetensors(quant_data("hf_models/gemma3/model.safetensors"));
  for (const auto& names : {std::pair{"blk.1.attn_q_norm.weight", "model.layers.1.self_attn.q_norm.weight"},
                            std::pair{"blk.0.post_ffw_norm.weight", "model.layers.0.post_feedforward_layernorm.weight"},
                            std::pair{"output_norm.weight", "model.norm.weight"}}) {
    const std::string gguf_name = names.first, hf_name = names.second;  // (not a structured binding: CAPTURE's lambda takes it)
    CAPTURE(gguf_name);
    const GgufTensor* t = f.tensor(gguf_name);
    REQUIRE(t != nullptr);
    const Tensor& hf = w.at(hf_name);
    REQUIRE(t->bytes == hf.size() * 4);
    for (std::size_t i = 0; i < hf.size(); ++i) {
      float v;
      std::memcpy(&v, t->data + 4 * i, 4);
      CHECK(v == 1.0f + hf[i]);
    }
  }
  CHECK(f.get_uint("gemma3.attention.sliding_window", g3) == std::optional<std::uint64_t>(4));
  CHECK(f.get_uint("gemma3.attention.sliding_window_pattern", g3) == std::optional<std::uint64_t>(2));
  CHECK(f.get_float("gemma3.rope.freq_base_swa", g3) == std::optional<double>(10000.0));
  CHECK(f.get_uint("gemma3.attention.key_length", g3) == std::optional<std::uint64_t>(16));
  // gemma2's folder scales its scores by 24^−½; llama.cpp would take 16^−½ from the file: refused
  CHECK_THROWS_WITH_AS(quant_write(dir, quant_data("hf_models/gemma2"), StoredType::f32, "gemma2.gguf"),
                       doctest::Contains("query_pre_attn_scalar 24: a GGUF file cannot hold it (llama.cpp scales by 1/√16"), Error);
}

TEST_CASE("quantize: the CLI writes the file, --measure on F32 costs nothing, -o over the input is refused") {
  test::TempDir dir;
  const std::string gpt2 = test::shell_quote(quant_data("hf_models/gpt2"));
  const test::Run w = test::run_tfx("model quantize " + gpt2 + " --type q4_0 -o q4.gguf", dir.path);
  REQUIRE(w.code == 0);
  CHECK(test::read_file(dir / "q4.gguf").substr(0, 4) == "GGUF");
  const test::Run info = test::run_tfx("model info q4.gguf", dir.path);
  CHECK(info.code == 0);
  const test::Run show = test::run_tfx("model quantize " + gpt2 + " --type f32,q8_0 --measure 'hello world' --format json", dir.path);
  REQUIRE(show.code == 0);
  const auto j = nlohmann::json::parse(show.out);
  const auto& rows = j["data"];
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["type"] == "F32");
  CHECK(rows[0]["KL (nats)"].get<double>() == 0.0);
  CHECK(rows[0]["top-1 agree"].get<double>() == 1.0);
  CHECK(rows[1]["KL (nats)"].get<double>() > 0.0);
  const test::Run over = test::run_tfx("model quantize q4.gguf --type q8_0 -o q4.gguf", dir.path);
  CHECK(over.code == 2);
  CHECK(over.err.find("is also the input") != std::string::npos);
}

TEST_CASE("quantize: the --measure figure fills its 2×3 grid: errors, one tensor, bits per weight; KL, top-1, perplexity") {
  test::TempDir dir;
  const std::string gpt2 = test::shell_quote(quant_data("hf_models/gpt2"));
  const test::Run svg = test::run_tfx("model quantize " + gpt2 + " --type q8_0,q4_0 --measure 'hello world' --svg -", dir.path);
  REQUIRE(svg.code == 0);
  for (const char* title : {"per-tensor relative error", "before and after", "bits per weight (quantized tensors)",
                            "next-token KL divergence", "top-1 agreement", "perplexity change"})
    CHECK_MESSAGE(svg.out.find(title) != std::string::npos, title);
  // Q8_0 stores 32 values in 34 bytes, Q4_0 in 18: 8.5 and 4.5 bits per weight
  CHECK(svg.out.find(">8.50</text>") != std::string::npos);
  CHECK(svg.out.find(">4.50</text>") != std::string::npos);
}

TEST_CASE("quantize: K-quant models: each tensor of 256-wide rows is quantize()'s blocks, narrower ones take --fallback") {
  // a source in memory: one 2-D weight of rows of 256 (a K-quant's super-block), one of 48, a norm
  QuantSource src;
  src.path = "mem";
  src.arch = "llama";
  src.metadata = {{"general.architecture", gguf_string("llama")}};
  auto values = [](std::size_t n, float scale) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(std::sin(0.37 * static_cast<double>(i) + 0.1 * static_cast<double>(i % 7)));
    return v;
  };
  src.tensors.push_back({"blk.0.attn_q.weight", {256, 3}, StoredType::f32, [values] { return values(768, 0.05f); }});
  src.tensors.push_back({"blk.0.ffn_down.weight", {48, 2}, StoredType::f32, [values] { return values(96, 0.1f); }});
  src.tensors.push_back({"blk.0.attn_norm.weight", {256}, StoredType::f32, [values] { return values(256, 1.0f); }});
  for (StoredType type : {StoredType::q4_k, StoredType::q5_k, StoredType::q6_k}) {
    const std::string name = stored_type_name(type);
    CAPTURE(name);
    CHECK_THROWS_AS(quantize_model(src, type), Error);  // ffn_down's rows of 48 are not whole blocks of 256
    const QuantizedModel q = quantize_model(src, type, StoredType::f16);
    REQUIRE(q.tensors.size() == 3);
    CHECK(q.tensors[0].type == type);
    CHECK(q.tensors[1].type == StoredType::f16);
    CHECK(q.tensors[2].type == StoredType::f32);
    const std::vector<float> w = values(768, 0.05f);
    std::vector<unsigned char> want(stored_row_bytes(type, 768));
    quantize(type, w.data(), want.data(), 768);
    CHECK(q.tensors[0].data == want);
    CHECK(q.errors[0].relative_error > 0);
    CHECK(q.errors[0].relative_error < 0.12);
    // written and read back: parse_gguf sees the type and the bytes
    const std::string file = encode_gguf(q.metadata, q.tensors);
    const GgufFile g = parse_gguf(file, "mem.gguf");
    const GgufTensor* t = g.tensor("blk.0.attn_q.weight");
    REQUIRE(t != nullptr);
    CHECK(t->type == type);
    CHECK(std::equal(want.begin(), want.end(), t->data));
  }
}

TEST_CASE("quantize: the CLI's --type q4_k with --fallback on models narrower than 256") {
  test::TempDir dir;
  const std::string llama = test::shell_quote(quant_data("hf_models/llama"));
  const test::Run no = test::run_tfx("model quantize " + llama + " --type q4_k", dir.path);
  CHECK(no.code == 1);
  CHECK(no.err.find("not whole blocks of 256 (Q4_K)") != std::string::npos);
  const test::Run w = test::run_tfx("model quantize " + llama + " --type q4_k --fallback f16 -o k.gguf --format json", dir.path);
  REQUIRE(w.code == 0);
  const test::Run info = test::run_tfx("model info k.gguf", dir.path);
  CHECK(info.code == 0);
}

namespace {
#include "../reference/quant_mix_reference.inc"

// A QuantSource of llama's tensor names and shapes (the values are never read by the plan)
QuantSource mix_source(std::size_t width, std::size_t layers, std::size_t ffn, std::size_t kv_rows, std::size_t vocab, bool tied) {
  QuantSource s;
  s.path = "mix";
  s.arch = "llama";
  const auto add = [&](std::string name, std::vector<std::uint64_t> ne) {
    SourceTensor t;
    t.name = std::move(name);
    t.ne = std::move(ne);
    s.tensors.push_back(std::move(t));
  };
  add("token_embd.weight", {width, vocab});
  for (std::size_t i = 0; i < layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    add(b + "attn_norm.weight", {width});
    add(b + "attn_q.weight", {width, width});
    add(b + "attn_k.weight", {width, kv_rows});
    add(b + "attn_v.weight", {width, kv_rows});
    add(b + "attn_output.weight", {width, width});
    add(b + "ffn_norm.weight", {width});
    add(b + "ffn_gate.weight", {width, ffn});
    add(b + "ffn_up.weight", {width, ffn});
    add(b + "ffn_down.weight", {ffn, width});
  }
  add("output_norm.weight", {width});
  if (!tied) add("output.weight", {width, vocab});
  return s;
}

template <std::size_t N>
void check_mix(const QuantSource& src, const QuantRecipe& recipe, const QuantMixRow (&expected)[N]) {
  const std::vector<StoredType> plan = quantize_plan(src, recipe, std::nullopt);
  REQUIRE(plan.size() == src.tensors.size());
  REQUIRE(plan.size() == N);
  std::map<std::string, std::string> got;
  for (std::size_t i = 0; i < plan.size(); ++i) got[src.tensors[i].name] = stored_type_name(plan[i]);
  for (const QuantMixRow& row : expected) {
    INFO(row.name);
    REQUIRE(got.count(row.name) == 1);
    CHECK(got[row.name] == std::string(row.type));
  }
}

}  // namespace

TEST_CASE("quantize: the q4_k_m and q5_k_m mixes give every tensor llama-quantize's type (use_more_bits layers, fallbacks, tied head)") {
  // model A: width 256, 8 layers, ffn 288 (ffn_down's rows fall back), untied output (Q6_K)
  const QuantSource a = mix_source(256, 8, 288, 128, 300, false);
  check_mix(a, QuantRecipe(StoredType::q4_k, QuantMix::q4_k_m), kMixA_Q4_K_M);
  check_mix(a, QuantRecipe(StoredType::q5_k, QuantMix::q5_k_m), kMixA_Q5_K_M);
  // model B: width 320 (no whole 256-blocks), 4 layers, tied embeddings: the head's rule on token_embd
  const QuantSource b = mix_source(320, 4, 512, 320, 300, true);
  check_mix(b, QuantRecipe(StoredType::q4_k, QuantMix::q4_k_m), kMixB_Q4_K_M);
  check_mix(b, QuantRecipe(StoredType::q5_k, QuantMix::q5_k_m), kMixB_Q5_K_M);
  // the layer comes from the name, so the order of a folder's tensors does not matter
  QuantSource shuffled = a;
  std::reverse(shuffled.tensors.begin(), shuffled.tensors.end());
  check_mix(shuffled, QuantRecipe(StoredType::q4_k, QuantMix::q4_k_m), kMixA_Q4_K_M);
}

TEST_CASE("quantize: a folder's BPE tokenizer.json is written as tokenizer.ggml.* too (convert_hf_to_gguf's padded vocabulary), so llama.cpp opens the file") {
  const std::string dir = quant_data("hf_models/llama");
  const QuantizedModel q = quantize_model(read_quant_source(dir), StoredType::f32);
  const std::string bytes = encode_gguf(q.metadata, q.tensors);
  const GgufFile f = parse_gguf(bytes, "llama.gguf");
  const nlohmann::json tj = nlohmann::json::parse(test::read_file(dir + "/tokenizer.json"));
  const nlohmann::json config = nlohmann::json::parse(test::read_file(dir + "/config.json"));
  const std::size_t V = config.at("vocab_size").get<std::size_t>();
  REQUIRE(f.find("tokenizer.ggml.model") != nullptr);
  CHECK(f.find("tokenizer.ggml.model")->s == "gpt2");
  CHECK(f.find("tokenizer.ggml.pre")->s == "llama-bpe");
  CHECK(f.find("tokenizer.huggingface.json") != nullptr);  // tfx's own tokenizer stays exact
  const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
  const GgufValue* types = f.find("tokenizer.ggml.token_type");
  REQUIRE(tokens != nullptr);
  REQUIRE(types != nullptr);
  REQUIRE(tokens->items.size() == V);  // padded to the embedding's rows
  REQUIRE(types->items.size() == V);
  std::vector<bool> seen(V, false);
  for (auto it = tj["model"]["vocab"].begin(); it != tj["model"]["vocab"].end(); ++it) {
    const std::size_t id = it.value().get<std::size_t>();
    CHECK(tokens->items[id].s == it.key());
    seen[id] = true;
  }
  for (const auto& a : tj["added_tokens"]) {
    const std::size_t id = a["id"].get<std::size_t>();
    CHECK(tokens->items[id].s == a["content"].get<std::string>());
    CHECK(types->items[id].i == (a["special"].get<bool>() ? 3 : 4));
    seen[id] = true;
  }
  for (std::size_t i = 0; i < V; ++i)
    if (!seen[i]) {
      CHECK(tokens->items[i].s == "[PAD" + std::to_string(i) + "]");
      CHECK(types->items[i].i == 4);
    }
  CHECK(f.find("tokenizer.ggml.merges")->items.size() == tj["model"]["merges"].size());
}
