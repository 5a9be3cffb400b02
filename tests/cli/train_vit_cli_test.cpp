// `tfx train vit -o DIR`: the folder it writes read back without tfx's loader — config.json and
// preprocessor_config.json as JSON, model.safetensors by its header alone (8-byte length, JSON,
// then the data) — against ViTForImageClassification's names and shapes written out here, and then
// opened by the model commands (info, attention --image --rollout, logits); the same seed and
// threads write the same bytes; SIGINT mid-training leaves nothing.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

std::string tvc_picture() { return shell_quote(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/vit/picture.png"); }
const char* kTvcArgs = " --classes 3 --image 16 --patch 8 --d-model 16 --heads 2 --layers 1 --batch 6 --steps 3 --threads 1 --no-progress";

// HF's names and shapes for hidden 16, 1 layer, 3 labels, image 16, patch 8 (T = 5)
std::map<std::string, std::vector<std::uint64_t>> tvc_expected() {
  std::map<std::string, std::vector<std::uint64_t>> m = {
      {"vit.embeddings.cls_token", {1, 1, 16}},
      {"vit.embeddings.position_embeddings", {1, 5, 16}},
      {"vit.embeddings.patch_embeddings.projection.weight", {16, 3, 8, 8}},
      {"vit.embeddings.patch_embeddings.projection.bias", {16}},
      {"vit.layernorm.weight", {16}},
      {"vit.layernorm.bias", {16}},
      {"classifier.weight", {3, 16}},
      {"classifier.bias", {3}}};
  const std::string p = "vit.encoder.layer.0.";
  for (const char* n : {"attention.attention.query", "attention.attention.key", "attention.attention.value", "attention.output.dense"}) {
    m[p + n + ".weight"] = {16, 16};
    m[p + n + ".bias"] = {16};
  }
  m[p + "intermediate.dense.weight"] = {64, 16};
  m[p + "intermediate.dense.bias"] = {64};
  m[p + "output.dense.weight"] = {16, 64};
  m[p + "output.dense.bias"] = {16};
  for (const char* n : {"layernorm_before", "layernorm_after"}) {
    m[p + n + ".weight"] = {16};
    m[p + n + ".bias"] = {16};
  }
  return m;
}

}  // namespace

TEST_CASE("train vit: the folder has HF's config keys, processor and tensor names, read without tfx's loader") {
  TempDir d;
  const Run r = run_tfx(std::string("train vit -o m") + kTvcArgs, d.path);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "wrote m (config.json, preprocessor_config.json, model.safetensors)"));
  const nlohmann::json cfg = nlohmann::json::parse(read_file(d / "m/config.json"));
  CHECK(cfg["model_type"] == "vit");
  CHECK(cfg["architectures"][0] == "ViTForImageClassification");
  CHECK(cfg["id2label"] == nlohmann::json({{"0", "circle"}, {"1", "square"}, {"2", "triangle"}}));
  CHECK(cfg["label2id"] == nlohmann::json({{"circle", 0}, {"square", 1}, {"triangle", 2}}));
  CHECK(cfg["image_size"] == 16);
  CHECK(cfg["patch_size"] == 8);
  CHECK(cfg["num_channels"] == 3);
  CHECK(cfg["hidden_size"] == 16);
  CHECK(cfg["num_hidden_layers"] == 1);
  CHECK(cfg["num_attention_heads"] == 2);
  CHECK(cfg["intermediate_size"] == 64);
  CHECK(cfg["hidden_act"] == "gelu");
  CHECK(cfg["layer_norm_eps"].get<double>() == 1e-12);
  CHECK(cfg["qkv_bias"] == true);
  CHECK(cfg["tfx_trained"]["command"] == "tfx train vit");
  CHECK(cfg["tfx_trained"]["steps"] == 3);
  const nlohmann::json pre = nlohmann::json::parse(read_file(d / "m/preprocessor_config.json"));
  CHECK(pre["image_processor_type"] == "ViTImageProcessor");
  CHECK(pre["size"] == nlohmann::json({{"height", 16}, {"width", 16}}));
  CHECK(pre["image_mean"] == nlohmann::json({0.5, 0.5, 0.5}));
  CHECK(pre["image_std"] == nlohmann::json({0.5, 0.5, 0.5}));
  CHECK(pre["do_normalize"] == true);
  CHECK(pre["rescale_factor"].get<double>() == doctest::Approx(1.0 / 255));
  // model.safetensors: u64 header length, the header JSON, the tensors back to back
  const std::string st = read_file(d / "m/model.safetensors");
  REQUIRE(st.size() > 8);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(st[static_cast<std::size_t>(i)]);
  REQUIRE(n + 8 <= st.size());
  const nlohmann::json h = nlohmann::json::parse(st.substr(8, n));
  const auto want = tvc_expected();
  std::size_t tensors = 0, bytes = 0;
  for (const auto& item : h.items()) {
    if (item.key() == "__metadata__") continue;
    ++tensors;
    INFO(item.key());
    REQUIRE(want.count(item.key()) == 1);
    CHECK(item.value()["dtype"] == "F32");
    CHECK(item.value()["shape"].get<std::vector<std::uint64_t>>() == want.at(item.key()));
    std::uint64_t count = 1;
    for (std::uint64_t s : want.at(item.key())) count *= s;
    const auto off = item.value()["data_offsets"].get<std::vector<std::uint64_t>>();
    CHECK(off[1] - off[0] == 4 * count);
    bytes += off[1] - off[0];
  }
  CHECK(tensors == want.size());
  CHECK(st.size() == 8 + n + bytes);
  // every model command that takes a ViT folder opens it
  const Run info = run_tfx("model info m", d.path);
  CHECK(info.code == 0);
  CHECK(has(info.out, "by tfx train vit on built-in shapes"));
  const Run att = run_tfx("model attention m --image " + tvc_picture() + " --rollout -o roll.csv", d.path);
  INFO(att.err);
  CHECK(att.code == 0);
  const Run logits = run_tfx("model logits m --image " + tvc_picture(), d.path);
  INFO(logits.err);
  CHECK(logits.code == 0);
  CHECK((has(logits.out, "circle") || has(logits.out, "square") || has(logits.out, "triangle")));
}

TEST_CASE("train vit: the same seed and threads write byte-identical weights; a tfx model folder may be replaced") {
  TempDir d;
  REQUIRE(run_tfx(std::string("train vit -o a --seed 7") + kTvcArgs, d.path).code == 0);
  REQUIRE(run_tfx(std::string("train vit -o b --seed 7") + kTvcArgs, d.path).code == 0);
  CHECK(read_file(d / "a/model.safetensors") == read_file(d / "b/model.safetensors"));
  // -o onto a folder tfx trained replaces it, leaving no temporary folder beside it
  REQUIRE(run_tfx(std::string("train vit -o a --seed 8") + kTvcArgs, d.path).code == 0);
  CHECK(read_file(d / "a/model.safetensors") != read_file(d / "b/model.safetensors"));
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 2);
}

TEST_CASE("train vit --images DIR/<label>/: the class folders become id2label in name order") {
  TempDir d;
  const std::filesystem::path pic = std::filesystem::path(TFX_SOURCE_DIR) / "tests/data/hf_models/vit/picture.png";
  for (const char* f : {"pics/dog/1.png", "pics/dog/2.PNG", "pics/cat/1.png", "pics/cat/2.png"}) {
    std::filesystem::create_directories((d / f).parent_path());
    std::filesystem::copy_file(pic, d / f);
  }
  write_file(d / "pics/cat/notes.txt", "not a picture: skipped");
  const Run r = run_tfx("train vit --images pics --image 16 --patch 8 --d-model 16 --heads 2 --layers 1 --batch 2 --steps 2 --no-progress -o m",
                        d.path);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json cfg = nlohmann::json::parse(read_file(d / "m/config.json"));
  CHECK(cfg["id2label"] == nlohmann::json({{"0", "cat"}, {"1", "dog"}}));
  CHECK(cfg["tfx_trained"]["training_pictures"] == 4);
}

TEST_CASE("train vit: SIGINT during training leaves no folder and no temporary") {
  TempDir d;
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(d.path.c_str()) != 0) _exit(99);
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(TFX_BINARY, TFX_BINARY, "train", "vit", "-o", "vit", "--steps", "100000", "--image", "16", "--d-model", "16", "--heads", "2",
          "--threads", "1", static_cast<char*>(nullptr));
    _exit(98);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 0);
}
