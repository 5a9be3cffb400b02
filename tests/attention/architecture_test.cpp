// `tfx architecture` and architecture_blocks: the diagram's blocks and shapes against the model's
// own files read here independently (the teaching translator's safetensors header and vocabulary,
// a tiny checkpoint's config.json), the figure (PNG decodes, size, ink), bad input.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <set>

#include "helpers.hpp"
#include "png.hpp"
#include "tfx/attention/architecture.hpp"

using nlohmann::json;
using namespace tfx;
using namespace tfx::test;

namespace {

// The JSON header of a safetensors file: 8 bytes little-endian length, then the header.
json arch_safetensors_header(const std::string& path) {
  const std::string bytes = read_file(path);
  REQUIRE(bytes.size() > 8);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  REQUIRE(8 + n <= bytes.size());
  return json::parse(bytes.substr(8, n));
}

const json* arch_row(const json& data, const std::string& stack, const std::string& block) {
  for (const auto& r : data)
    if (r["stack"] == stack && r["block"] == block) return &r;
  return nullptr;
}

std::string arch_shape(long long a, long long b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

}  // namespace

TEST_CASE("architecture_blocks: encoder–decoder blocks in the paper's order with S and T shapes") {
  ArchitectureSpec s;
  s.encoder_layers = 6;
  s.decoder_layers = 6;
  s.cross_attention = true;
  s.d_model = 512;
  s.heads = 8;
  s.ffn = 2048;
  s.vocab = 37000;
  s.source_len = 10;
  s.target_len = 12;
  const auto b = architecture_blocks(s);
  std::vector<std::string> kinds;
  for (const auto& x : b) kinds.push_back(x.kind);
  CHECK(kinds == std::vector<std::string>{"embedding", "positions", "attention", "add_norm", "ffn", "add_norm", "embedding", "positions",
                                           "masked_attention", "add_norm", "cross_attention", "add_norm", "ffn", "add_norm", "linear",
                                           "softmax"});
  CHECK(b[2].detail == "h = 8, d_k = 64; weights (8, 10, 10)");  // the paper's base model: 512 / 8 = 64
  CHECK(b[2].layers == 6);
  CHECK(b[10].input == "Q (12, 512), K V (10, 512)");
  CHECK(b[10].detail == "h = 8, d_k = 64; weights (8, 12, 10)");
  CHECK(b[12].detail == "512 → 2048 (ReLU) → 512");
  CHECK(b[14].output == "(12, 37000)");
  // decoder-only, pre-norm: Norm → sublayer → Add, and a final norm before the head
  ArchitectureSpec g = s;
  g.encoder_layers = 0;
  g.cross_attention = false;
  g.pre_norm = true;
  g.kv_heads = 2;
  kinds.clear();
  for (const auto& x : architecture_blocks(g)) kinds.push_back(x.kind);
  CHECK(kinds == std::vector<std::string>{"embedding", "positions", "norm", "masked_attention", "add", "norm", "ffn", "add", "norm", "linear",
                                           "softmax"});
  CHECK(architecture_blocks(g)[3].detail == "h = 8, d_k = 64, 2 KV heads; causal mask (10, 10)");
  // bad specs name the field
  ArchitectureSpec bad = s;
  bad.heads = 3;
  CHECK(has(error_of([&] { architecture_blocks(bad); }), "heads = 3 does not divide d_model = 512"));
  bad = s;
  bad.encoder_layers = 0;
  CHECK(has(error_of([&] { architecture_blocks(bad); }), "cross-attention needs both"));
}

TEST_CASE("cli: tfx architecture (teaching) — shapes from the model file's own header and vocabulary") {
  // the reference: data/teaching_model's safetensors header and vocab.txt, read here
  const std::string dir = std::string(TFX_SOURCE_DIR) + "/data/teaching_model/";
  const json h = arch_safetensors_header(dir + "model.safetensors");
  const long long V = h["embedding.weight"]["shape"][0], D = h["embedding.weight"]["shape"][1];
  const long long F = h["encoder.layers.0.linear1.weight"]["shape"][0];
  const long long H = std::stoll(h["__metadata__"]["nhead"].get<std::string>());
  std::set<std::string> enc, dec;
  for (const auto& [k, v] : h.items()) {
    if (k.rfind("encoder.layers.", 0) == 0) enc.insert(k.substr(0, k.find('.', 15)));
    if (k.rfind("decoder.layers.", 0) == 0) dec.insert(k.substr(0, k.find('.', 15)));
  }
  CHECK(count_lines(read_file(dir + "vocab.txt")) == V);

  const json j = json_of(run_tfx("architecture --format json"));
  const auto& s = j["summary"];
  CHECK(s["d_model"] == D);
  CHECK(s["heads"] == H);
  CHECK(s["d_k"] == D / H);
  CHECK(s["ffn"] == F);
  CHECK(s["vocab"] == V);
  CHECK(s["encoder layers"] == enc.size());
  CHECK(s["decoder layers"] == dec.size());
  // "나는 학생 이다": 3 source words; the decoder reads <bos> I am a student (5)
  CHECK(s["S"] == 3);
  CHECK(s["T"] == 5);
  const json& d = j["data"];
  const json* emb = arch_row(d, "input", "Input Embedding");
  REQUIRE(emb != nullptr);
  CHECK((*emb)["input"] == "(3)");
  CHECK((*emb)["output"] == arch_shape(3, D));
  CHECK((*emb)["sizes"] == "table " + arch_shape(V, D));
  const json* mmha = arch_row(d, "decoder", "Masked Multi-Head Attention");
  REQUIRE(mmha != nullptr);
  CHECK((*mmha)["layers"] == dec.size());
  CHECK((*mmha)["sizes"] == "h = " + std::to_string(H) + ", d_k = " + std::to_string(D / H) + "; causal mask (5, 5)");
  const json* cross = arch_row(d, "decoder", "Multi-Head Attention (cross)");
  REQUIRE(cross != nullptr);
  CHECK((*cross)["input"] == "Q " + arch_shape(5, D) + ", K V " + arch_shape(3, D));
  const json* ffn = arch_row(d, "encoder", "Feed Forward");
  REQUIRE(ffn != nullptr);
  CHECK((*ffn)["sizes"] == std::to_string(D) + " → " + std::to_string(F) + " (ReLU) → " + std::to_string(D));
  const json* lin = arch_row(d, "head", "Linear");
  REQUIRE(lin != nullptr);
  CHECK((*lin)["output"] == arch_shape(5, V));
  // another sentence, another S and T
  const json k = json_of(run_tfx("architecture --sentence '그는 의사 이었다' --format json"));
  CHECK(k["summary"]["S"] == 3);
  CHECK(k["summary"]["T"].get<int>() >= 2);
}

TEST_CASE("cli: tfx architecture --model a BERT folder — encoder only, sizes from its config.json") {
  const std::string dir = std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/bert";
  const json c = json::parse(read_file(dir + "/config.json"));
  const Run r = run_tfx("architecture --model " + shell_quote(dir) + " --format json");
  const json j = json_of(r);
  const auto& s = j["summary"];
  CHECK(s["d_model"] == c["hidden_size"]);
  CHECK(s["heads"] == c["num_attention_heads"]);
  CHECK(s["d_k"] == c["hidden_size"].get<int>() / c["num_attention_heads"].get<int>());
  CHECK(s["ffn"] == c["intermediate_size"]);
  CHECK(s["vocab"] == c["vocab_size"]);
  CHECK(s["encoder layers"] == c["num_hidden_layers"]);
  CHECK(s["decoder layers"] == 0);
  for (const auto& row : j["data"]) {
    CHECK(row["stack"] != "decoder");
    CHECK(row["block"] != "Masked Multi-Head Attention");
  }
  CHECK(has(j["notes"][0].get<std::string>(), "encoder only"));
  // GPT-2 is decoder only: masked self-attention and no cross-attention
  const json g = json_of(run_tfx("architecture --model " + shell_quote(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/gpt2") +
                                 " --format json"));
  CHECK(g["summary"]["encoder layers"] == 0);
  CHECK(arch_row(g["data"], "decoder", "Masked Multi-Head Attention") != nullptr);
  CHECK(arch_row(g["data"], "decoder", "Multi-Head Attention (cross)") == nullptr);
}

TEST_CASE("cli: tfx architecture --model gemma2 / qwen3 / a GGUF file — head_dim apart from D/H, Gemma's extra norms, window and cap") {
  const std::string data = std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/";
  // qwen3 and gemma2: head_dim 16, not hidden_size / heads = 8
  for (const char* m : {"qwen3", "gemma2"}) {
    CAPTURE(std::string(m));
    const json j = json_of(run_tfx("architecture --model " + shell_quote(data + m) + " --format json"));
    CHECK(j["summary"]["d_k"] == 16);
    CHECK(has(arch_row(j["data"], "decoder", "Masked Multi-Head Attention")->at("sizes").get<std::string>(), "d_k = 16"));
  }
  const Run r = run_tfx("architecture --model " + shell_quote(data + "gemma2") + " --format json");
  const json g = json_of(r);
  std::size_t norms = 0, post = 0;
  for (const auto& row : g["data"])
    if (row["stack"] == "decoder" && row["block"] == "RMSNorm") {
      ++norms;
      post += has(row["sizes"].get<std::string>(), "on the sublayer's output, before the add");
    }
  CHECK(norms == 4);  // before and after each of the two sublayers
  CHECK(post == 2);
  const std::string attn = arch_row(g["data"], "decoder", "Masked Multi-Head Attention")->at("sizes").get<std::string>();
  CHECK(has(attn, "2 of 3 layers see only the last 4 keys"));
  CHECK(has(attn, "scores soft-capped at 5"));
  CHECK(has(arch_row(g["data"], "input", "Input Embedding")->at("sizes").get<std::string>(), "× √32"));
  // a GGUF file, as every model command takes one (tfx's own F32 file of the gemma3 folder)
  TempDir tmp;
  REQUIRE(run_tfx("model quantize " + shell_quote(data + "gemma3") + " --type f32 -o g.gguf", tmp.path).code == 0);
  const Run f = run_tfx("architecture --model g.gguf --format json", tmp.path);
  REQUIRE(f.code == 0);
  CHECK(has(arch_row(json_of(f)["data"], "decoder", "Masked Multi-Head Attention")->at("sizes").get<std::string>(),
            "2 of 3 layers see only the last 4 keys"));
}

TEST_CASE("cli: tfx architecture --png / --svg draw the diagram, twice the size at --scale 2, Korean too") {
  TempDir dir;
  const Run a = run_tfx("architecture --png " + shell_quote((dir / "a.png").string()));
  const Run b = run_tfx("architecture --lang ko --scale 2 --png " + shell_quote((dir / "b.png").string()));
  const Run v = run_tfx("architecture --svg " + shell_quote((dir / "a.svg").string()));
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  REQUIRE(v.code == 0);
  const Decoded x = decode_png(read_file(dir / "a.png")), y = decode_png(read_file(dir / "b.png"));
  CHECK(x.w > 900);
  CHECK(x.h > 800);
  CHECK(std::abs(y.w - 2 * x.w) <= 2);
  std::size_t ink = 0, tinted = 0;
  for (const Rgb& c : x.px) {
    ink += c.r < 100 && c.g < 100 && c.b < 100;
    tinted += !(c.r == c.g && c.g == c.b);  // the coloured block fills
  }
  CHECK(ink > 3000);
  CHECK(tinted > 50000);
  const std::string svg = read_file(dir / "a.svg");
  CHECK(has(svg, "Masked Multi-Head Attention"));
  CHECK(has(svg, "(5, 112)"));  // the head's output shape on its arrow
  CHECK(has(svg, "2×"));
}

TEST_CASE("cli: tfx architecture bad input: one-line errors") {
  check_one_line_error(run_tfx("architecture --model /nonexistent/folder"), 1, "--model /nonexistent/folder: no such folder or file");
  TempDir dir;
  std::filesystem::create_directory(dir / "empty");
  check_one_line_error(run_tfx("architecture --model " + shell_quote((dir / "empty").string())), 1, "--model");
  write_file(dir / "bad.safetensors", "abc");
  check_one_line_error(run_tfx("architecture --model " + shell_quote((dir / "bad.safetensors").string())), 1, "bad.safetensors");
  check_one_line_error(run_tfx("architecture --sentence 'xyzzy'"), 2, "xyzzy");
}
