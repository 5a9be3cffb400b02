// `tfx model info | attention | hidden | logits | next | fill` end to end on the tiny checkpoints
// of tests/data/hf_models (tests/reference/gen_hf_models.py): the npy files have HF's shapes and
// equal the torch reference (read from each folder's reference.safetensors), next/fill rank by the
// reference's own logits, and the bad inputs of the issue are one-line errors.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "helpers.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;

namespace {

std::string dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }
std::string qdir(const std::string& name) { return shell_quote(dir(name)); }

// A float32 .npy file: its shape (from the header) and values.
std::pair<std::string, std::vector<float>> npy(const std::filesystem::path& p) {
  const std::string b = read_file(p);
  REQUIRE(b.size() > 10);
  const std::size_t hl = static_cast<unsigned char>(b[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
  const std::string header = b.substr(10, hl);
  const auto s = header.find("'shape': (");
  REQUIRE(s != std::string::npos);
  const std::string shape = header.substr(s + 10, header.find(')', s) - s - 10);
  std::vector<float> v((b.size() - 10 - hl) / 4);
  std::memcpy(v.data(), b.data() + 10 + hl, v.size() * 4);
  return {shape, v};
}

double maxdiff(const std::vector<float>& a, const tfx::Tensor& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

// "2, 4, 10, 10": a shape as numpy writes it in the .npy header
std::string fmt_shape(const std::vector<std::size_t>& shape) {
  std::string s;
  for (std::size_t d : shape) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return s;
}

std::string ids_of(const tfx::TensorMap& ref) {
  std::string s;
  for (float v : ref.at("input_ids").values()) s += (s.empty() ? "" : ",") + std::to_string(static_cast<int>(v));
  return s;
}

}  // namespace

TEST_CASE("model attention/hidden/logits --format npy: HF's shapes and the torch reference's values") {
  TempDir tmp;
  for (const char* name : {"gpt2", "bert", "llama"}) {
    CAPTURE(name);
    const tfx::TensorMap ref = tfx::read_safetensors(dir(name) + "/reference.safetensors");
    const std::string ids = ids_of(ref);
    REQUIRE(run_tfx(std::string("model attention ") + qdir(name) + " --ids " + ids + " -o att.npy", tmp.path).code == 0);
    const auto [ashape, a] = npy(tmp.path / "att.npy");
    const auto& at = ref.at("attentions");
    CHECK(ashape == fmt_shape(at.shape()));
    CHECK(maxdiff(a, at) < 1e-4);
    REQUIRE(run_tfx(std::string("model hidden ") + qdir(name) + " --ids " + ids + " -o h.npy", tmp.path).code == 0);
    const auto [hshape, h] = npy(tmp.path / "h.npy");
    CHECK(hshape == fmt_shape(ref.at("hidden_states").shape()));
    CHECK(maxdiff(h, ref.at("hidden_states")) < 1e-4);
    REQUIRE(run_tfx(std::string("model logits ") + qdir(name) + " --ids " + ids + " -o l.npy", tmp.path).code == 0);
    CHECK(maxdiff(npy(tmp.path / "l.npy").second, ref.at("logits")) < 1e-4);
  }
  // one layer → (heads, T, T); one layer and head → (T, T)
  REQUIRE(run_tfx("model attention " + qdir("gpt2") + " 'the cat sat' --layer 1 -o one.npy", tmp.path).code == 0);
  CHECK(npy(tmp.path / "one.npy").first == "4, 4, 4");
  REQUIRE(run_tfx("model attention " + qdir("gpt2") + " 'the cat sat' --layer 1 --head 2 -o two.npy", tmp.path).code == 0);
  CHECK(npy(tmp.path / "two.npy").first == "4, 4");
}

TEST_CASE("model next/fill: the top token is the argmax of the reference logits; info names the family and sizes") {
  // fill: BERT's [MASK] is at position 3 of the reference input ([CLS] the cat [MASK] on mat …)
  const tfx::TensorMap bert = tfx::read_safetensors(dir("bert") + "/reference.safetensors");
  const auto& lg = bert.at("logits");
  std::size_t best = 0;
  for (std::size_t v = 0; v < lg.cols(); ++v)
    if (lg(3, v) > lg(3, best)) best = v;
  const Run f = run_tfx("model fill " + qdir("bert") + " --ids " + ids_of(bert) + " -k 3 --format json");
  REQUIRE(f.code == 0);
  const auto fj = json_of(f);
  CHECK(fj["data"][0]["position"] == 3);
  CHECK(fj["data"][0]["id"] == best);
  // next: the last row of GPT-2's reference logits
  const tfx::TensorMap gpt2 = tfx::read_safetensors(dir("gpt2") + "/reference.safetensors");
  const auto& gl = gpt2.at("logits");
  const std::size_t last = gl.rows() - 1;
  best = 0;
  for (std::size_t v = 0; v < gl.cols(); ++v)
    if (gl(last, v) > gl(last, best)) best = v;
  const Run n = run_tfx("model next " + qdir("gpt2") + " --ids " + ids_of(gpt2) + " -k 5 --format json");
  REQUIRE(n.code == 0);
  const auto nj = json_of(n);
  CHECK(nj["data"][0]["id"] == best);
  double sum = 0;
  for (const auto& row : nj["data"]) sum += row["probability"].get<double>();
  CHECK(sum < 1.0);
  CHECK(nj["data"][0]["probability"].get<double>() >= nj["data"][1]["probability"].get<double>());
  // info
  const Run i = run_tfx("model info " + qdir("llama_llama3"));
  REQUIRE(i.code == 0);
  CHECK(i.out.find("kv_heads              2") != std::string::npos);
  CHECK(i.out.find("scaling llama3 × 8 (original 16 positions)") != std::string::npos);
  CHECK(i.out.find("BPE over ▁ with byte fallback") != std::string::npos);
}

TEST_CASE("model attention --png: one head, one layer's heads, the model view of every layer × head") {
  TempDir tmp;
  REQUIRE(run_tfx("model attention " + qdir("gpt2") + " 'the cat sat' --png all.png", tmp.path).code == 0);
  REQUIRE(run_tfx("model attention " + qdir("bert") + " 'the cat sat' --layer 0 --head 1 --png one.png", tmp.path).code == 0);
  CHECK(std::filesystem::file_size(tmp.path / "all.png") > 10000);
  CHECK(std::filesystem::file_size(tmp.path / "one.png") > 5000);
}

TEST_CASE("model commands: bad input is a one-line error") {
  check_one_line_error(run_tfx("model next " + qdir("bert") + " 'the cat'"), 2, "is an encoder (bert): it does not predict a next token");
  check_one_line_error(run_tfx("model fill " + qdir("bert") + " 'the cat sat'"), 2, "TEXT has no mask token [MASK]");
  check_one_line_error(run_tfx("model fill " + qdir("bert_legacy") + " 'the [MASK] sat'"), 2, "has no MLM head");
  {
    // a vocabulary without [MASK]: said as such (it was "TEXT has no mask token")
    TempDir t;
    std::filesystem::copy(dir("bert"), t.path / "b");
    std::string vocab = read_file(t.path / "b" / "vocab.txt");
    vocab.replace(vocab.find("[MASK]\n"), 7, "[XMASK]\n");
    write_file(t.path / "b" / "vocab.txt", vocab);
    check_one_line_error(run_tfx("model fill b 'the [MASK] sat'", t.path), 2,
                         "b: the tokenizer's vocabulary has no mask token ([MASK]), so fill has nothing to predict at");
  }
  check_one_line_error(run_tfx("model attention " + qdir("gpt2") + " 'the cat' --layer 2"), 2, "--layer 2: the model has 2 layers (0 … 1)");
  check_one_line_error(run_tfx("model attention " + qdir("gpt2") + " 'the cat' --head x"), 2, "--head x: expected a head number from 0 or all");
  check_one_line_error(run_tfx("model hidden " + qdir("bert") + " 'the the the the the the the the the the the the the the the the'"), 2,
                       "18 tokens are more than the model's 16 positions");
  check_one_line_error(run_tfx("model logits " + qdir("gpt2") + " --ids 1,2,999"), 1, "token id 999 is past the embedding's 272 rows");
  // Mistral's window is applied, not warned about
  const Run w = run_tfx("model hidden " + qdir("mistral") + " --ids 1,2,3,4,5,6");
  CHECK(w.code == 0);
  CHECK(!has(w.err, "sliding window"));
}

TEST_CASE("--embeddings DIR: a checkpoint's token embedding as word vectors; GPT-2's Ġcat is 'cat', its inner piece 'at' is '##at'") {
  const tfx::TensorMap w = tfx::read_safetensors(dir("gpt2") + "/model.safetensors");
  const tfx::Tensor& wte = w.at("transformer.wte.weight");
  auto cosine = [&](std::size_t a, std::size_t b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t j = 0; j < wte.cols(); ++j) ab += wte(a, j) * wte(b, j), aa += wte(a, j) * wte(a, j), bb += wte(b, j) * wte(b, j);
    return ab / std::sqrt(aa * bb);
  };
  // the tiny GPT-2 vocabulary: 256 bytes, then merges … Ġc 259, at 260, Ġcat 261, … Ġdog 270
  const Run r = run_tfx("similarity cat dog --embeddings " + qdir("gpt2") + " --format json");
  REQUIRE(r.code == 0);
  CHECK(std::fabs(json_of(r)["summary"]["cosine"].get<double>() - cosine(261, 270)) < 1e-5);
  const Run p = run_tfx("similarity '##at' cat --embeddings " + qdir("gpt2") + " --format json");
  REQUIRE(p.code == 0);
  CHECK(std::fabs(json_of(p)["summary"]["cosine"].get<double>() - cosine(260, 261)) < 1e-5);
  const Run s = run_tfx("similar cat --embeddings " + qdir("bert") + " -k 3");
  check_stdout(s, 0, "embeddings.word_embeddings.weight");
  CHECK(s.out.find("constructed for teaching") == std::string::npos);
}

TEST_CASE("pe sim --model: BERT's learned position table P·Pᵀ; rope freqs --config: the model's own llama3-scaled frequencies") {
  const tfx::TensorMap w = tfx::read_safetensors(dir("bert") + "/model.safetensors");
  const tfx::Tensor& p = w.at("bert.embeddings.position_embeddings.weight");
  const Run r = run_tfx("pe sim --model " + qdir("bert") + " --len 6 --format json");
  REQUIRE(r.code == 0);
  const auto data = json_of(r)["data"];
  REQUIRE(data.size() == 6);
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 6; ++j) {
      double d = 0;
      for (std::size_t k = 0; k < p.cols(); ++k) d += static_cast<double>(p(i, k)) * p(j, k);
      CHECK(std::fabs(data[i][j].get<double>() - d) < 1e-5);
    }
  TempDir tmp;
  REQUIRE(run_tfx("pe sim --model " + qdir("gpt2") + " --png g.png", tmp.path).code == 0);
  CHECK(std::filesystem::exists(tmp.path / "g.png"));
  check_one_line_error(run_tfx("pe sim --model " + qdir("llama")), 2, "has no position table (it rotates Q and K by RoPE)");
  // llama3 (θ = 500000, head_dim 8, f = 8, L₀ = 16, low 1, high 4), HF's _compute_llama3_parameters by hand:
  // pair 0: ω = 1, λ = 2π between L₀/4 and L₀/1 → s = (L₀/λ − 1)/3, ω' = (1 − s)·ω/8 + s·ω; pairs 1–3: λ > 16 → ω/8
  const Run f = run_tfx("rope freqs --config " + shell_quote(dir("llama_llama3") + "/config.json") + " --format json");
  REQUIRE(f.code == 0);
  const auto fd = json_of(f)["data"];
  const double pi = 3.14159265358979323846;
  for (std::size_t j = 0; j < 4; ++j) {
    const double inv = std::pow(500000.0, -2.0 * static_cast<double>(j) / 8.0), lambda = 2 * pi / inv;
    double want = inv / 8;
    if (lambda < 16.0 / 4.0) want = inv;
    else if (lambda <= 16.0) {
      const double s = (16.0 / lambda - 1.0) / 3.0;
      want = (1 - s) * inv / 8 + s * inv;
    }
    CAPTURE(j);
    CHECK(std::fabs(fd[j][2].get<double>() - want) < 1e-6 * std::max(1.0, want));
    CHECK(std::fabs(fd[j][0].get<double>() - inv) < 1e-6);
  }
}

TEST_CASE("model commands: a checkpoint with random weights says so in tables, JSON, figures and pages; a real one does not") {
  // every tiny checkpoint is marked by its generator (config.json "tfx_random_weights": true)
  for (const char* args : {"next gpt2 \"the cat\"", "info llama", "hidden bert --ids 2,5,6", "logits qwen2 --ids 1,2,3",
                           "attention mistral --ids 1,2,3 --layer 0 --head 0", "generate gpt2 \"the\" -n 2"}) {
    CAPTURE(args);
    std::string a = args;
    const std::size_t sp = a.find(' '), sp2 = a.find(' ', sp + 1);
    a = a.substr(0, sp) + " " + qdir(a.substr(sp + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp - 1)) +
        (sp2 == std::string::npos ? "" : a.substr(sp2));
    const Run t = run_tfx("model " + a);
    CHECK(t.code == 0);
    CHECK(t.out.find("random weights (config.json: tfx_random_weights)") != std::string::npos);
    const Run j = run_tfx("model " + a + " --format json");
    REQUIRE(j.code == 0);
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    CHECK(doc["params"].value("random_weights", false));
  }
  TempDir tmp;
  const Run svg = run_tfx("model generate " + qdir("gpt2") + " \"the\" -n 2 -o g.svg", tmp.path);
  REQUIRE(svg.code == 0);
  CHECK(read_file(tmp.path / "g.svg").find("(random weights)") != std::string::npos);
  const Run page = run_tfx("model attention " + qdir("gpt2") + " \"the cat\" --html p.html", tmp.path);
  REQUIRE(page.code == 0);
  CHECK(read_file(tmp.path / "p.html").find("(random weights)") != std::string::npos);
  // the same checkpoint without the key (as Hugging Face writes them): no such note anywhere
  std::filesystem::create_directory(tmp.path / "real");
  for (const char* f : {"model.safetensors", "vocab.json", "merges.txt"})
    std::filesystem::copy_file(dir("gpt2") + "/" + f, tmp.path / "real" / f);
  nlohmann::json cfg = nlohmann::json::parse(read_file(dir("gpt2") + "/config.json"));
  cfg.erase("tfx_random_weights");
  write_file(tmp.path / "real" / "config.json", cfg.dump());
  const Run real = run_tfx("model next real \"the cat\" --format json", tmp.path);
  REQUIRE(real.code == 0);
  CHECK(real.out.find("random") == std::string::npos);
  const Run real_svg = run_tfx("model generate real \"the\" -n 2 -o r.svg", tmp.path);
  REQUIRE(real_svg.code == 0);
  CHECK(read_file(tmp.path / "r.svg").find("random weights") == std::string::npos);
  // a key of the wrong type is a one-line error naming it
  cfg["tfx_random_weights"] = "yes";
  write_file(tmp.path / "real" / "config.json", cfg.dump());
  check_one_line_error(run_tfx("model next real \"the cat\"", tmp.path), 1, "\"tfx_random_weights\" should be true or false");
}
