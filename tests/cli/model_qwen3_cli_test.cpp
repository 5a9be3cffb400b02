// Qwen3 in every model command, end to end on tests/data/hf_models/qwen3 (values from
// tests/reference/gen_qwen3_reference.py's numpy forward, ids from its own BPE): info, tokenize
// (the tiny tokenizer, and the real Qwen3 tokenizer of ../shared/data against Hugging Face's ids,
// skipped when absent), attention / hidden / logits as .npy, next, generate, the model view and
// the HTML page.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "helpers.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;

namespace {

std::string q3dir() { return shell_quote(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/qwen3"); }
tfx::TensorMap q3ref(const char* file) { return tfx::read_safetensors(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/qwen3/" + file); }

std::vector<float> q3npy(const std::filesystem::path& p, std::string& shape) {
  const std::string b = read_file(p);
  REQUIRE(b.size() > 10);
  const std::size_t hl = static_cast<unsigned char>(b[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
  const std::string header = b.substr(10, hl);
  const auto s = header.find("'shape': (");
  REQUIRE(s != std::string::npos);
  shape = header.substr(s + 10, header.find(')', s) - s - 10);
  std::vector<float> v((b.size() - 10 - hl) / 4);
  std::memcpy(v.data(), b.data() + 10 + hl, v.size() * 4);
  return v;
}

double q3diff(const std::vector<float>& a, const tfx::Tensor& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

constexpr const char* kQ3Text = "'the cat sat on the mat'";  // the reference's input

}  // namespace

TEST_CASE("model qwen3: info, tokenize, attention/hidden/logits = the numpy reference, next, generate") {
  const tfx::TensorMap ref = q3ref("reference.safetensors");
  const Run i = run_tfx("model info " + q3dir() + " --format json");
  REQUIRE(i.code == 0);
  CHECK(has(i.out, "qwen3"));
  const nlohmann::json info = json_of(i);
  CHECK(info.dump().find("\"head_dim\"") != std::string::npos);
  const Run tok = run_tfx("model tokenize " + q3dir() + " " + kQ3Text + " --format json");
  REQUIRE(tok.code == 0);
  nlohmann::json want_ids = nlohmann::json::array();
  for (float v : ref.at("input_ids").values()) want_ids.push_back(static_cast<int>(v));
  CHECK(json_of(tok)["summary"]["ids"] == want_ids);
  TempDir tmp;
  std::string shape;
  REQUIRE(run_tfx("model attention " + q3dir() + " " + kQ3Text + " -o a.npy", tmp.path).code == 0);
  CHECK(q3diff(q3npy(tmp.path / "a.npy", shape), ref.at("attentions")) <= 1e-5);
  CHECK(shape == "2, 4, 6, 6");
  REQUIRE(run_tfx("model hidden " + q3dir() + " " + kQ3Text + " -o h.npy", tmp.path).code == 0);
  CHECK(q3diff(q3npy(tmp.path / "h.npy", shape), ref.at("hidden_states")) <= 1e-5);
  REQUIRE(run_tfx("model logits " + q3dir() + " " + kQ3Text + " -o l.npy", tmp.path).code == 0);
  CHECK(q3diff(q3npy(tmp.path / "l.npy", shape), ref.at("logits")) <= 1e-5);
  // next: the argmax of the reference's last row; generate: the reference's greedy tokens
  const tfx::TensorMap gen = q3ref("generation.safetensors");
  const nlohmann::json next = json_of(run_tfx("model next " + q3dir() + " " + kQ3Text + " -k 1 --format json"));
  CHECK(next["data"][0]["id"] == static_cast<int>(gen.at("tokens")[0]));
  const nlohmann::json g = json_of(run_tfx("model generate " + q3dir() + " " + kQ3Text + " -n 12 --format json"));
  REQUIRE(g["data"].size() == 12);
  for (std::size_t s = 0; s < 12; ++s) CHECK(g["data"][s]["id"] == static_cast<int>(gen.at("tokens")[s]));
}

TEST_CASE("model qwen3: the model view (every layer × head), the HTML page, the generation figure") {
  TempDir tmp;
  REQUIRE(run_tfx("model attention " + q3dir() + " 'the cat' --png view.png", tmp.path).code == 0);
  CHECK(std::filesystem::file_size(tmp.path / "view.png") > 1000);
  REQUIRE(run_tfx("model attention " + q3dir() + " 'the cat' --html page.html", tmp.path).code == 0);
  CHECK(has(read_file(tmp.path / "page.html"), "qwen3"));
  REQUIRE(run_tfx("model generate " + q3dir() + " 'the' -n 2 -o g.svg", tmp.path).code == 0);
}

TEST_CASE("model tokenize: the real Qwen3 tokenizer gives Hugging Face's ids") {
  const auto dir = shared_data("tokenizers/qwen3");
  if (dir.empty()) return;
  const Run r = run_tfx("model tokenize " + shell_quote(dir.string()) + " 'Hello, my dog is cute' --format json");
  REQUIRE(r.code == 0);
  // tests/reference/hf_tokenizer_reference.inc (Hugging Face's Rust engine), the qwen3 row of this text
  CHECK(json_of(r)["summary"]["ids"] == nlohmann::json::array({9707, 11, 847, 5562, 374, 18838}));
}
