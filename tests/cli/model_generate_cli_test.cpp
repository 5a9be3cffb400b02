// `tfx model generate` end to end on the tiny checkpoints of tests/data/hf_models: greedy steps
// agree with `tfx model next` (the whole-prefix forward, another code path) on the prompt and on
// the prompt plus the first token; JSON carries every step; a seeded sampled run reproduces
// itself; several temperatures draw the flattening figure; the bad inputs of the issue are one-line
// errors (prompt longer than the positions, -n 0, temperature 0 or negative, top-p outside (0, 1],
// an empty prompt with a BOS-less tokenizer, an encoder, a memory budget below the mapped weights).
#include <nlohmann/json.hpp>

#include <cmath>
#include <tuple>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

std::string gdir(const std::string& name) { return shell_quote(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name); }

}  // namespace

TEST_CASE("model generate: greedy steps are model next's rank 1, JSON has every step") {
  for (const char* name : {"gpt2", "llama", "qwen2"}) {
    CAPTURE(name);
    const Run r = run_tfx("model generate " + gdir(name) + " 'the cat' -n 4 --format json");
    const nlohmann::json j = json_of(r);
    const auto& rows = j["data"];
    REQUIRE(rows.size() == 4);
    // step 1: the argmax after the prompt, as `model next` ranks it from the full forward
    const nlohmann::json next = json_of(run_tfx("model next " + gdir(name) + " 'the cat' -k 1 --format json"));
    CHECK(rows[0]["id"] == next["data"][0]["id"]);
    CHECK(std::fabs(rows[0]["probability"].get<double>() - next["data"][0]["probability"].get<double>()) < 1e-5);
    for (const auto& row : rows) {
      CHECK(row["probability"].get<double>() > 0);
      CHECK(row["probability"].get<double>() <= 1);
      CHECK(row["entropy (nats)"].get<double>() > 0);
      CHECK(row["temperature"] == "greedy");
      CHECK(has(row["top"].get<std::string>(), "="));
    }
  }
}

TEST_CASE("model generate: a seeded sample reproduces itself; temperatures side by side draw a figure") {
  const std::string args = "model generate " + gdir("llama") + " 'the cat' -n 6 -T 1.5 --top-k 50 --top-p 0.9 --seed 7 --format csv";
  const Run a = run_tfx(args), b = run_tfx(args);
  CAPTURE(a.err);
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  TempDir d;
  const Run f = run_tfx("model generate " + gdir("gpt2") + " 'the cat' -n 3 -T 0.5,1,2 --png t.png", d.path);
  CAPTURE(f.err);
  CHECK(f.code == 0);
  CHECK(read_file(d.path / "t.png").rfind("\x89PNG", 0) == 0);
  CHECK(has(f.out, "t.png"));
  // the texts side by side: one per temperature, steps labelled with theirs
  const nlohmann::json j = json_of(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -n 3 -T 0.5,1,2 --format json"));
  CHECK(j["tables"]["texts"].size() == 3);
  CHECK(j["data"].size() == 9);
  CHECK(j["data"][0]["temperature"] == "0.5");
}

TEST_CASE("model generate: bad inputs are one-line errors") {
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -n 0"), 2, "--max-new-tokens");
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -T 0"), 2, "--temperature");
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -T -1"), 2, "--temperature");
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -T 1 --top-p 0"), 2, "--top-p");
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -T 1 --top-p 1.5"), 2, "--top-p");
  // 16 positions: a prompt of 16 or more tokens leaves no room
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat sat on the mat and the dog sat on the log'"), 2,
                       "positions");
  check_one_line_error(run_tfx("model generate " + gdir("bert") + " 'the cat'"), 2, "encoder");
  // the budget counts the mapped weights (143 KB here) with the cache (1.5 KB) before allocating
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -n 3", {}, "TFX_MEMORY_LIMIT=100K"), 1,
                       "hf_models/gpt2 (mapped as stored) needs about 140.2 KiB, over the memory budget of 100.0 KiB");
  // 141 KiB holds the file (140.2 KiB) but not the file and the cache
  check_one_line_error(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -n 3", {}, "TFX_MEMORY_LIMIT=141K"), 1, "the mapped weights and the KV cache");
  CHECK(run_tfx("model generate " + gdir("gpt2") + " 'the cat' -n 3 --format csv", {}, "TFX_MEMORY_LIMIT=200K").code == 0);
  // a BOS-less tokenizer and an empty prompt: nothing to start from
  TempDir d;
  const std::filesystem::path m = d.path / "m";
  std::filesystem::create_directory(m);
  for (const char* f : {"config.json", "model.safetensors", "merges.txt"})
    std::filesystem::copy_file(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/gpt2/" + f, m / f);
  nlohmann::json vocab = nlohmann::json::parse(read_file(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/gpt2/vocab.json"));
  vocab.erase("<|endoftext|>");
  write_file(m / "vocab.json", vocab.dump());
  check_one_line_error(run_tfx("model generate m ''", d.path), 2, "no beginning-of-text token");
  check_one_line_error(run_tfx("model generate m 'the cat' --stop", d.path), 2, "no end-of-text token");
  // config.json's eos_token_id that is not a token id (or null), or past the tokenizer: --stop
  // could never fire (it was read as "none" and the vocabulary's </s> taken, or kept and never met)
  const std::string config = read_file(m / "config.json");
  for (const auto& [value, code, want] : std::vector<std::tuple<std::string, int, std::string>>{
           {"-5", 1, "m/config.json: eos_token_id is -5; expected a token id or a list of token ids"},
           {"[1, \"a\"]", 1, "eos_token_id is [1,\"a\"]"},
           {"1000000000", 2, "--stop: m's end-of-text token id 1000000000 (config.json's eos_token_id) is past the tokenizer's"}}) {
    nlohmann::json j = nlohmann::json::parse(config);
    j["eos_token_id"] = nlohmann::json::parse(value);
    write_file(m / "config.json", j.dump());
    check_one_line_error(run_tfx("model generate m 'the cat' -n 2 --stop", d.path), code, want);
  }
  write_file(m / "config.json", config);
  // rope_scaling that is not an object (or null) is refused, not ignored
  TempDir r;
  std::filesystem::copy(std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/llama", r.path / "l");
  nlohmann::json lj = nlohmann::json::parse(read_file(r.path / "l" / "config.json"));
  lj["rope_scaling"] = "linear";
  write_file(r.path / "l" / "config.json", lj.dump());
  check_one_line_error(run_tfx("model info l", r.path), 1, "l/config.json: \"rope_scaling\" is \"linear\"; expected an object");
  lj["rope_scaling"] = nullptr;
  write_file(r.path / "l" / "config.json", lj.dump());
  CHECK(run_tfx("model info l", r.path).code == 0);
  // with a prompt, the BOS-less model still writes on
  CHECK(run_tfx("model generate m 'the cat' -n 2 --format csv", d.path).code == 0);
  // a GGUF file without a tokenizer: generate reads TEXT, so the error names the commands that read ids
  check_one_line_error(run_tfx("model generate " + std::string(TFX_SOURCE_DIR) + "/tests/data/gguf/llama_q8_0.gguf 'the cat'"), 1,
                       "the file carries no tokenizer: model logits, next, hidden and attention read token ids with --ids");
}
