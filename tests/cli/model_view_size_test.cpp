// The model view (every layer × head of `model attention --png`) of a checkpoint with thousands
// of heads is refused before its panels are built, naming the size and the way out (--layer,
// --head, --scale), as --html refuses a page too large; one layer of the same checkpoint draws.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "helpers.hpp"
#include "png.hpp"

using namespace tfx::test;

namespace {

// A GPT-2 checkpoint of `layers` layers × `heads` heads (head size 2, all weights zero, so every
// attention row is uniform) in Hugging Face's layout, with the tiny test model's tokenizer.
void write_wide_gpt2(const std::filesystem::path& dir, int layers, int heads) {
  std::filesystem::create_directories(dir);
  for (const char* f : {"vocab.json", "merges.txt"})
    std::filesystem::copy_file(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/gpt2/" + f, dir / f);
  const std::int64_t D = 2 * heads, V = 272, P = 16;
  nlohmann::json config = {{"model_type", "gpt2"}, {"n_embd", D},        {"n_layer", layers}, {"n_head", heads},
                           {"n_positions", P},     {"vocab_size", V},    {"layer_norm_epsilon", 1e-5},
                           {"activation_function", "gelu_new"}};
  std::ofstream(dir / "config.json") << config.dump();
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes = {
      {"transformer.wte.weight", {V, D}}, {"transformer.wpe.weight", {P, D}}, {"transformer.ln_f.weight", {D}}, {"transformer.ln_f.bias", {D}}};
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    for (const char* ln : {"ln_1", "ln_2"}) shapes.push_back({p + ln + ".weight", {D}}), shapes.push_back({p + ln + ".bias", {D}});
    shapes.push_back({p + "attn.c_attn.weight", {D, 3 * D}});
    shapes.push_back({p + "attn.c_attn.bias", {3 * D}});
    shapes.push_back({p + "attn.c_proj.weight", {D, D}});
    shapes.push_back({p + "attn.c_proj.bias", {D}});
    shapes.push_back({p + "mlp.c_fc.weight", {D, 4 * D}});
    shapes.push_back({p + "mlp.c_fc.bias", {4 * D}});
    shapes.push_back({p + "mlp.c_proj.weight", {4 * D, D}});
    shapes.push_back({p + "mlp.c_proj.bias", {D}});
  }
  nlohmann::json header = nlohmann::json::object();
  std::int64_t offset = 0;
  for (const auto& [name, shape] : shapes) {
    std::int64_t n = 4;
    for (auto s : shape) n *= s;
    header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string h = header.dump();
  h.append((8 - h.size() % 8) % 8, ' ');
  std::ofstream out(dir / "model.safetensors", std::ios::binary);
  const std::uint64_t len = h.size();
  out.write(reinterpret_cast<const char*>(&len), 8);
  out << h;
  const std::string zeros(static_cast<std::size_t>(offset), '\0');
  out.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
}

}  // namespace

TEST_CASE("model attention --png: a model view of 48 layers × 25 heads is refused at once; one layer of it draws") {
  TempDir dir;
  write_wide_gpt2(dir / "wide", 48, 25);
  const Run r = run_tfx("model attention wide \"the cat sat\" --png view.png", dir.path);
  CHECK(r.code == 2);
  CHECK(has(r.err, "model view of 48 layers × 25 heads would be about"));
  CHECK(has(r.err, "--layer N or --head N"));
  CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  CHECK_FALSE(std::filesystem::exists(dir / "view.png"));
  // one layer's 25 heads and one head's 48 layers are drawn
  CHECK(run_tfx("model attention wide \"the cat sat\" --layer 3 --png layer.png", dir.path).code == 0);
  CHECK(run_tfx("model attention wide \"the cat sat\" --head 7 --png head.png", dir.path).code == 0);
  const tfx::test::Decoded layer = decode_png(read_file(dir / "layer.png"));
  CHECK(layer.w * layer.h > 0);
  CHECK(static_cast<double>(layer.w) * layer.h < 1.5e8);
}
