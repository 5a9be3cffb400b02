// `tfx model lens / ablate / patch` end to end on the tiny checkpoints: --format npy has the shape
// the issue names and the library's numbers (tfx/model/microscope.hpp, itself checked against numpy
// in tests/model/microscope_test.cpp), figures are written, ViT reads its picture.
#include <cmath>
#include <cstring>

#include "helpers.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/microscope.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;

namespace {

std::string ms_model(const char* name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

// A float32 .npy: its values and the shape as the header spells it ("3, 4, 272")
std::vector<float> ms_npy(const std::filesystem::path& p, std::string& shape) {
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

double ms_diff(const std::vector<float>& a, const tfx::Tensor& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

}  // namespace

TEST_CASE("model lens/ablate/patch: npy shapes and values = the library's, figures written (gpt2)") {
  TempDir dir;
  const std::string m = shell_quote(ms_model("gpt2"));
  const tfx::Checkpoint ck = tfx::load_checkpoint(ms_model("gpt2"));
  const std::vector<std::size_t> ids = {84, 257, 261, 263};  // "The cat sat" in its tokenizer
  const tfx::MicroscopeRun run = [&](const tfx::ForwardOptions& o) { return tfx::model_forward(ck, ids, o); };
  const tfx::CleanRun clean = tfx::clean_run(run);
  std::string shape;

  check_stdout(run_tfx("model lens " + m + " \"The cat sat\" --format npy -o lens.npy", dir.path), 0, "");
  std::vector<float> v = ms_npy(dir / "lens.npy", shape);
  CHECK(shape == "3, 4, 272");
  CHECK(ms_diff(v, tfx::logit_lens(ck, clean)) <= 1e-6);

  check_stdout(run_tfx("model ablate " + m + " \"The cat sat\" --all-heads --format npy -o all.npy", dir.path), 0, "");
  v = ms_npy(dir / "all.npy", shape);
  CHECK(shape == "2, 4");
  const std::size_t top = tfx::top_probabilities(tfx::answer_row(clean.logits, 3), 1)[0].id;
  CHECK(ms_diff(v, tfx::all_heads_effect(ck, run, clean, tfx::HeadAblation::Mode::zero, top, 3)) <= 1e-6);

  check_stdout(run_tfx("model ablate " + m + " \"The cat sat\" --ablate-heads 1.2,0.1 --mean --format npy -o one.npy", dir.path), 0, "");
  v = ms_npy(dir / "one.npy", shape);
  CHECK(shape == "4, 272");
  using Mode = tfx::HeadAblation::Mode;
  CHECK(ms_diff(v, tfx::ablated_logits(run, clean, {{1, 2, Mode::mean}, {0, 1, Mode::mean}})) <= 1e-6);

  check_stdout(run_tfx("model patch " + m + " --clean \"The cat sat\" --corrupt \"The dog sat\" --format npy -o patch.npy", dir.path), 0, "");
  v = ms_npy(dir / "patch.npy", shape);
  CHECK(shape == "2, 4");
  // the position where the prompts differ, patched at block 0, restores the clean metric: the clean run's own
  const Run table = run_tfx("model patch " + m + " --clean \"The cat sat\" --corrupt \"The dog sat\"", dir.path);
  CHECK(has(table.out, "clean metric: "));
  CHECK(v[2] == doctest::Approx(std::stod(table.out.substr(table.out.find("clean metric: ") + 14))).epsilon(1e-5));

  for (const char* args : {"lens $M \"The cat sat\" --png l.png", "ablate $M \"The cat sat\" --all-heads --png a.png",
                           "ablate $M \"The cat sat\" --ablate-heads 1.2 --png h.png --lang ko",
                           "patch $M --clean \"The cat sat\" --corrupt \"The dog sat\" --svg p.svg"}) {
    std::string a = args;
    a.replace(a.find("$M"), 2, m);
    const Run r = run_tfx("model " + a, dir.path);
    CHECK(r.code == 0);
  }
  for (const char* f : {"l.png", "a.png", "h.png", "p.svg"}) CHECK(std::filesystem::file_size(dir / f) > 1000);
}

TEST_CASE("model lens/ablate: a ViT's [CLS] classifier through every layer, every head ablated") {
  TempDir dir;
  const std::string m = shell_quote(ms_model("vit")), pic = shell_quote(ms_model("vit") + "/picture.png");
  std::string shape;
  check_stdout(run_tfx("model lens " + m + " --image " + pic + " --format npy -o lens.npy", dir.path), 0, "");
  ms_npy(dir / "lens.npy", shape);
  CHECK(shape == "3, 17, 5");  // layers + 1, [CLS] + 16 patches, 5 labels
  check_stdout(run_tfx("model ablate " + m + " --image " + pic + " --all-heads --target teapot --format npy -o all.npy", dir.path), 0, "");
  ms_npy(dir / "all.npy", shape);
  CHECK(shape == "2, 2");
}

TEST_CASE("model patch: prompts past 256 tokens are refused at once, naming the passes (the work grows with T³)") {
  // 257 tokens of the RoPE llama (no position limit): refused before any pass; 1,000 ran for minutes
  std::string clean, corrupt;
  for (int i = 0; i < 300; ++i) clean += "a ", corrupt += i == 299 ? "c " : "a ";
  const Run r = run_tfx("model patch " + shell_quote(ms_model("llama")) + " --clean '" + clean + "' --corrupt '" + corrupt + "' -o /dev/null");
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(has(r.err, "tokens: activation patching runs one pass per layer and position (2 × "));
  CHECK(has(r.err, "so the prompts are limited to 256 tokens"));
  // one error line (after the warning that 302 positions are past what the toy model saw)
  CHECK(r.err.find("tfx: error: ") == r.err.rfind("tfx: error: "));
  CHECK(r.err.find('\n', r.err.find("tfx: error: ")) == r.err.size() - 1);
  // a short pair runs
  CHECK(run_tfx("model patch " + shell_quote(ms_model("llama")) + " --clean 'a a a' --corrupt 'a a c' -o /dev/null --format csv").code == 0);
}
