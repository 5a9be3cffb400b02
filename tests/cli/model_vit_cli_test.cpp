// `tfx model info | attention | hidden | logits DIR --image FILE` on the tiny ViT of
// tests/data/hf_models/vit (tests/reference/gen_hf_models.py): the npy files have HF's shapes and
// equal the torch reference (checked there by a numpy forward) for the picture tfx preprocesses
// itself, the labels come from id2label ranked as the reference logits rank them, the rollout's
// [CLS] row is the numpy one, figures are drawn, and bad pictures and configs are one-line errors.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "helpers.hpp"
#include "xml_check.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;

namespace {

std::string vit_dir() { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/vit"; }
std::string vit_q() { return shell_quote(vit_dir()); }
std::string vit_picture() { return shell_quote(vit_dir() + "/picture.png"); }

// A float32 .npy file: its shape as numpy writes it ("2, 2, 17, 17") and its values.
std::pair<std::string, std::vector<float>> vit_npy(const std::filesystem::path& p) {
  const std::string b = read_file(p);
  REQUIRE(b.size() > 10);
  const std::size_t hl = static_cast<unsigned char>(b[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
  const std::string header = b.substr(10, hl);
  const auto s = header.find("'shape': (");
  REQUIRE(s != std::string::npos);
  std::string shape = header.substr(s + 10, header.find(')', s) - s - 10);
  if (!shape.empty() && shape.back() == ',') shape.pop_back();
  std::vector<float> v((b.size() - 10 - hl) / 4);
  std::memcpy(v.data(), b.data() + 10 + hl, v.size() * 4);
  return {shape, v};
}

double vit_maxdiff(const std::vector<float>& a, const float* b, std::size_t n) {
  REQUIRE(a.size() == n);
  double d = 0;
  for (std::size_t i = 0; i < n; ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

}  // namespace

TEST_CASE("model attention/hidden --image: HF's shapes and the torch reference's values for tfx's own preprocessing") {
  TempDir tmp;
  const tfx::TensorMap ref = tfx::read_safetensors(vit_dir() + "/reference.safetensors");
  REQUIRE(run_tfx("model attention " + vit_q() + " --image " + vit_picture() + " -o att.npy", tmp.path).code == 0);
  const auto [ashape, a] = vit_npy(tmp.path / "att.npy");
  CHECK(ashape == "2, 2, 17, 17");
  CHECK(vit_maxdiff(a, ref.at("attentions").data(), ref.at("attentions").size()) < 1e-4);
  REQUIRE(run_tfx("model hidden " + vit_q() + " --image " + vit_picture() + " -o h.npy", tmp.path).code == 0);
  const auto [hshape, h] = vit_npy(tmp.path / "h.npy");
  CHECK(hshape == "3, 17, 32");
  CHECK(vit_maxdiff(h, ref.at("hidden_states").data(), ref.at("hidden_states").size()) < 1e-4);
  // one layer and head: (T, T), the [CLS] row first
  REQUIRE(run_tfx("model attention " + vit_q() + " --image " + vit_picture() + " --layer 1 --head 0 -o one.npy", tmp.path).code == 0);
  const auto [oshape, one] = vit_npy(tmp.path / "one.npy");
  CHECK(oshape == "17, 17");
  CHECK(vit_maxdiff(std::vector<float>(one.begin(), one.begin() + 17), ref.at("attentions").data() + 2 * 17 * 17, 17) < 1e-4);
  // --rollout: (T, T), row [CLS] = the numpy rollout's
  REQUIRE(run_tfx("model attention " + vit_q() + " --image " + vit_picture() + " --rollout -o roll.npy", tmp.path).code == 0);
  const auto [rshape, roll] = vit_npy(tmp.path / "roll.npy");
  CHECK(rshape == "17, 17");
  CHECK(vit_maxdiff(std::vector<float>(roll.begin(), roll.begin() + 17), ref.at("rollout_cls").data(), 17) < 1e-5);
}

TEST_CASE("model logits --image: id2label's labels ranked by the reference logits, softmax probabilities; info") {
  const tfx::TensorMap ref = tfx::read_safetensors(vit_dir() + "/reference.safetensors");
  const tfx::Tensor& lg = ref.at("logits");
  const std::vector<std::string> labels = {"tabby cat", "golden retriever", "airliner", "volcano", "teapot"};
  std::vector<std::size_t> order = {0, 1, 2, 3, 4};
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return lg[x] > lg[y]; });
  double z = 0;
  for (std::size_t k = 0; k < 5; ++k) z += std::exp(static_cast<double>(lg[k]));
  const Run r = run_tfx("model logits " + vit_q() + " --image " + vit_picture() + " --top 3 --format json");
  REQUIRE(r.code == 0);
  const auto j = json_of(r);
  REQUIRE(j["data"].size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CAPTURE(k);
    CHECK(j["data"][k]["label"] == labels[order[k]]);
    CHECK(j["data"][k]["id"] == order[k]);
    CHECK(j["data"][k]["probability"].get<double>() == doctest::Approx(std::exp(static_cast<double>(lg[order[k]])) / z).epsilon(1e-4));
  }
  const Run i = run_tfx("model info " + vit_q());
  REQUIRE(i.code == 0);
  CHECK(i.out.find("32×32 pixels, 3 channels; patches 8×8 → 4×4 = 16 tokens + [CLS]") != std::string::npos);
  CHECK(i.out.find("5 (id2label): tabby cat, golden retriever") != std::string::npos);
  CHECK(i.out.find("mean 0.485/0.456/0.406") != std::string::npos);
}

TEST_CASE("model attention --image --png/--svg/--html: the [CLS] heat over the picture, the rollout, every layer × head") {
  TempDir tmp;
  const std::string base = "model attention " + vit_q() + " --image " + vit_picture();
  REQUIRE(run_tfx(base + " --layer 1 --head 0 --png one.png", tmp.path).code == 0);
  REQUIRE(run_tfx(base + " --png all.png --scale 2", tmp.path).code == 0);
  REQUIRE(run_tfx(base + " --rollout --png roll.png", tmp.path).code == 0);
  REQUIRE(run_tfx(base + " --rollout -o roll.svg", tmp.path).code == 0);
  REQUIRE(run_tfx(base + " --html page.html", tmp.path).code == 0);
  CHECK(std::filesystem::file_size(tmp.path / "one.png") > 3000);
  CHECK(std::filesystem::file_size(tmp.path / "all.png") > 3000);
  CHECK(std::filesystem::file_size(tmp.path / "roll.png") > 3000);
  CHECK(svg_problem(read_file(tmp.path / "roll.svg")) == "");
  CHECK(read_file(tmp.path / "page.html").find("[CLS]") != std::string::npos);
}

TEST_CASE("model --image: bad pictures, configs and inputs are one-line errors; a missing preprocessor_config.json is a warning") {
  TempDir tmp;
  const std::string pic = " --image " + vit_picture();
  check_one_line_error(run_tfx("model attention " + vit_q() + " --image nope.png", tmp.path), 1, "nope.png");
  write_file(tmp.path / "bad.png", "\x89PNG\r\n\x1a\n not really");
  check_one_line_error(run_tfx("model logits " + vit_q() + " --image bad.png", tmp.path), 1, "bad.png: not a picture tfx can read");
  check_one_line_error(run_tfx("model hidden " + vit_q() + " 'a cat'", tmp.path), 2, "is an image model (ViT): it reads a picture");
  check_one_line_error(run_tfx("model hidden " + vit_q() + " 'a cat'" + pic, tmp.path), 2, "--image FILE goes without TEXT or --ids");
  check_one_line_error(run_tfx("model next " + vit_q() + " --ids 1,2", tmp.path), 2, "is an image model (ViT)");
  const std::string bert = shell_quote(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/bert");
  check_one_line_error(run_tfx("model attention " + bert + pic, tmp.path), 2, "is a bert checkpoint, which reads text");
  check_one_line_error(run_tfx("model attention " + bert + " 'the cat' --rollout", tmp.path), 2, "--rollout goes with an image model's --image FILE");
  check_one_line_error(run_tfx("model attention " + vit_q() + pic + " --rollout --layer 1", tmp.path), 2, "drop --layer and --head");
  check_one_line_error(run_tfx("model attention " + vit_q() + pic + " --head 2", tmp.path), 2, "--head 2: the model has 2 heads (0 … 1)");
  // a copy of the folder with a bad config or preprocessor
  const std::filesystem::path m = tmp.path / "m";
  std::filesystem::copy(vit_dir(), m);
  std::string cfg = read_file(m / "config.json");
  write_file(m / "config.json", std::string(cfg).replace(cfg.find("\"patch_size\": 8"), 15, "\"patch_size\": 5"));
  check_one_line_error(run_tfx("model info m", tmp.path), 1, "image_size 32 is not a multiple of patch_size 5");
  write_file(m / "config.json", std::string(cfg).replace(cfg.find("\"num_channels\": 3"), 17, "\"num_channels\": 4"));
  check_one_line_error(run_tfx("model info m", tmp.path), 1, "num_channels 4: tfx reads pictures as RGB, 3 channels");
  write_file(m / "config.json", cfg);
  write_file(m / "preprocessor_config.json", R"({"size": {"height": 32, "width": 32}, "do_resize": false})");
  check_one_line_error(run_tfx("model logits m" + pic, tmp.path), 1, "the picture is 48×40 and the model reads 32×32, but preprocessor_config.json says do_resize false");
  write_file(m / "preprocessor_config.json", R"({"size": {"height": 224, "width": 224}})");
  check_one_line_error(run_tfx("model logits m" + pic, tmp.path), 1, "size 224×224 is not config.json's image_size 32");
  std::filesystem::remove(m / "preprocessor_config.json");
  const Run w = run_tfx("model logits m" + pic + " --format json", tmp.path);
  check_stderr(w, 0, "has no preprocessor_config.json: using ViTImageProcessor's defaults (resize to 32×32 bilinear, rescale 1/255, mean 0.5, std 0.5)");
  CHECK(json_of(w)["data"].size() == 5);
}
