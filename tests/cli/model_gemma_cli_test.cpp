// Gemma in the model commands, end to end on tests/data/hf_models/gemma2 and gemma3 (values from
// tests/reference/gen_gemma_reference.py's numpy forward): info names the window, the sliding layers,
// the scalar and the caps; attention as .npy = the reference (a sliding layer's zeros included);
// generate = the reference's greedy tokens, from the folder and from the GGUF file `model quantize`
// writes of it; the neuron view says what the model does to the scores; quantize refuses gemma2's
// scalar with one line.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "helpers.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;

namespace {

std::string gemma_cli_dir(const char* name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

std::vector<float> gemma_cli_npy(const std::filesystem::path& p) {
  const std::string b = read_file(p);
  REQUIRE(b.size() > 10);
  const std::size_t hl = static_cast<unsigned char>(b[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
  std::vector<float> v((b.size() - 10 - hl) / 4);
  std::memcpy(v.data(), b.data() + 10 + hl, v.size() * 4);
  return v;
}

constexpr const char* kGemmaText = "'the cat sat on the mat'";  // the reference's input

}  // namespace

TEST_CASE("model gemma2 / gemma3_text: info, attention = the numpy reference, generate from the folder and its GGUF file") {
  for (const char* name : {"gemma2", "gemma3"}) {
    CAPTURE(std::string(name));
    const std::string dir = shell_quote(gemma_cli_dir(name));
    const Run info = run_tfx("model info " + dir);
    REQUIRE(info.code == 0);
    CHECK(has(info.out, "4 positions: every layer but 1 (full attention)"));
    CHECK(has(info.out, std::string(name) == "gemma2" ? "1/√24 (query_pre_attn_scalar)" : "θ = 10000 on the sliding layers"));
    if (std::string(name) == "gemma2") CHECK(has(info.out, "scores 5, logits 3"));
    TempDir tmp;
    REQUIRE(run_tfx("model attention " + dir + " " + kGemmaText + " -o a.npy", tmp.path).code == 0);
    const tfx::TensorMap ref = tfx::read_safetensors(gemma_cli_dir(name) + "/reference.safetensors");
    const std::vector<float> a = gemma_cli_npy(tmp.path / "a.npy");
    const tfx::Tensor& want = ref.at("attentions");
    REQUIRE(a.size() == want.size());
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - want[i]));
    CHECK(d <= 1e-5);
    // the greedy tokens, from the folder and (gemma3; gemma2's scalar has no GGUF spelling) from its
    // F32 GGUF file, the tokenizer gone along
    const tfx::TensorMap gen = tfx::read_safetensors(gemma_cli_dir(name) + "/generation.safetensors");
    std::vector<std::string> models = {dir};
    if (std::string(name) == "gemma3") {
      REQUIRE(run_tfx("model quantize " + dir + " --type f32 -o m.gguf", tmp.path).code == 0);
      models.push_back("m.gguf");
    }
    for (const std::string& model : models) {
      CAPTURE(model);
      const Run g = run_tfx("model generate " + model + " " + kGemmaText + " -n 12 --format json", tmp.path);
      REQUIRE(g.code == 0);
      const nlohmann::json j = json_of(g);
      REQUIRE(j["data"].size() == 12);
      for (std::size_t s = 0; s < 12; ++s) CHECK(j["data"][s]["id"] == static_cast<int>(gen.at("tokens")[s]));
    }
  }
}

TEST_CASE("model gemma2: the neuron view follows the model's scores (the scalar, the cap, the window) and says so") {
  const Run r = run_tfx("model attention " + shell_quote(gemma_cli_dir("gemma2")) + " " + kGemmaText + " --layer 2 --head 1 --neurons --query 5 --format json");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "1/√24 (query_pre_attn_scalar)"));
  CHECK(has(r.out, "5·tanh(s / 5)"));
  CHECK(has(r.out, "the query sees only the last 4 keys (2 … 5)"));
  const nlohmann::json j = json_of(r);
  // each row: its softmax equals the model's own weight, and keys 0, 1 (outside the window) get none;
  // its score is 5·tanh(sum / √24 / 5), computed here from the row's sum
  REQUIRE(j["data"].size() == 6);
  for (std::size_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    const nlohmann::json& row = j["data"][k];
    const double sum = row["sum(q*k)"], score = row["score = sum/sqrt(d_k)"], soft = row["softmax"], model = row["model's weight"];
    CHECK(score == doctest::Approx(5 * std::tanh(sum / std::sqrt(24.0) / 5)).epsilon(1e-6));
    CHECK(soft == doctest::Approx(model).epsilon(1e-5));
    if (k < 2) CHECK(soft == 0.0);
  }
}

TEST_CASE("model quantize gemma2: a query_pre_attn_scalar llama.cpp would not take is one line, exit 1, no file") {
  TempDir tmp;
  const Run r = run_tfx("model quantize " + shell_quote(gemma_cli_dir("gemma2")) + " --type q8_0 -o g.gguf", tmp.path);
  check_one_line_error(r, 1, "query_pre_attn_scalar 24: a GGUF file cannot hold it");
  CHECK(!std::filesystem::exists(tmp.path / "g.gguf"));
  CHECK(temporaries(tmp.path).empty());
}
