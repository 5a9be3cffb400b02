// `tfx train` end to end: default training reaches the shipped model's quality (held-out exact
// match ≥ 95 %, decoder-layer-2 alignment ≥ 90 %, 나는 학생 이다 → I am a student) and writes a model
// that `tfx translate --model` runs; the same seed and thread count give the same curve; --pairs
// with its own vocabulary and split; progress lines on stderr only. (Bad --pairs files are in
// tests/bad_inputs/cases.tsv.)
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

constexpr bool kUnderAsan =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
    __has_feature(address_sanitizer);
#else
    false;
#endif

}  // namespace

TEST_CASE("train: default flags reach held-out exact match ≥ 95 %, alignment ≥ 90 %, 나는 학생 이다 → I am a student") {
  TempDir dir;
  // the default run is 3000 steps (about 25 s of CPU in Release); AddressSanitizer makes every
  // step several times slower, so there the test trains 600 steps (the curve is flat by then)
  const std::string steps = kUnderAsan ? " --steps 600" : "";
  if (kUnderAsan) MESSAGE("under AddressSanitizer: 600 steps instead of the default 3000");
  const Run r = run_tfx("train --threads 2 --no-progress --format json -o model.safetensors" + steps, dir.path);
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  CHECK(j["summary"]["held_out_exact"].get<double>() >= 0.95);
  CHECK(j["summary"]["alignment"].get<double>() >= 0.90);
  CHECK(j["summary"]["held_out_pairs"] == 50);
  CHECK(j["summary"]["translation"] == "I am a student");
  MESSAGE("held-out exact " << j["summary"]["held_out_exact"] << ", alignment " << j["summary"]["alignment"]);
  // the model and its vocabulary, and the translator commands run it
  REQUIRE(std::filesystem::exists(dir / "model.safetensors"));
  CHECK(read_file(dir / "model.vocab.txt").rfind("<pad>\n<bos>\n<eos>\n<unk>\n", 0) == 0);
  const Run t = run_tfx("translate --model model.safetensors '그녀는 커피를 마셨다' --format json", dir.path);
  REQUIRE(t.code == 0);
  CHECK(json_of(t)["summary"]["translation"] == "she drank coffee");
  CHECK(has(t.out, "model.safetensors"));
}

TEST_CASE("train: the same seed and thread count give the same curve; another seed another one") {
  const std::string args = "train --steps 30 --every 10 --no-progress --format csv --d-model 16 --heads 2 --ffn 32";
  const Run a = run_tfx(args + " --threads 2"), b = run_tfx(args + " --threads 2"), c = run_tfx(args + " --threads 2 --seed 7");
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  CHECK(a.out != c.out);
  CHECK(count_lines(a.out) == 4);  // header + steps 10, 20, 30
  CHECK(a.err.empty());
}

TEST_CASE("train: --pairs trains on your own pairs with their own vocabulary and split; progress lines go to stderr") {
  TempDir dir;
  std::string tsv = "# numbers\n";
  const char* en[] = {"one", "two", "three", "four", "five", "six"};
  const char* de[] = {"eins", "zwei", "drei", "vier", "fünf", "sechs"};
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) tsv += fmt::format("{} {}\t{} {}\r\n", en[i], en[k], de[i], de[k]);
  write_file(dir / "p.tsv", tsv);
  const Run r = run_tfx("train --pairs p.tsv --test-fraction 0.25 --steps 40 --every 20 --format json -o m.safetensors", dir.path);
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  CHECK(j["summary"]["held_out_pairs"] == 9);  // ⌈0.25 · 36⌉
  CHECK(!j["summary"].contains("alignment"));  // no gold alignment in a --pairs file
  // not the lecture's words: the probe is a pair of the file
  CHECK(has(j["summary"]["probe"].get<std::string>(), " "));
  // vocabulary: 4 specials + 6 source words + 6 target words
  CHECK(count_lines(read_file(dir / "m.vocab.txt")) == 16);
  // piped: a line every --every steps on stderr, stdout only the JSON
  CHECK(count_lines(r.err) == 2);
  CHECK(has(r.err, "step 20/40: loss"));
}
