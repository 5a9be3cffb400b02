// `tfx train` end to end: default training reaches the shipped model's quality (held-out exact
// match ≥ 95 %, decoder-layer-2 alignment ≥ 90 %, 나는 학생 이다 → I am a student) and writes a model
// that `tfx translate --model` runs; the same seed and thread count give the same curve; --pairs
// with its own vocabulary and split; progress lines on stderr only. (Bad --pairs files are in
// tests/bad_inputs/cases.tsv.) --gif: the frames decode and the watched sentence's attention sharpens.
// --corpus en-ko: word order needs PE (≥ 90 % with it, ≤ 60 % and the roles swapped without);
// --png: a 16:9 page at --scale 1 and 2, the experiment in the title, the table still printed.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "gif.hpp"
#include "png.hpp"
#include "helpers.hpp"
#include "tfx/core/words.hpp"

using namespace tfx::test;

TEST_CASE("train: default flags reach held-out exact match ≥ 95 %, alignment ≥ 90 %, 나는 학생 이다 → I am a student") {
  if (skip_learning_outcome_under_sanitizer()) return;
  TempDir dir;
  // the default run: 3000 steps, about 25 s of CPU in Release
  const Run r = run_tfx("train --threads 2 --no-progress --format json -o model.safetensors", dir.path);
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
  // piped: a line at each held-out checkpoint on stderr (step 10 of the dense start, then every
  // --every steps), stdout only the JSON
  CHECK(count_lines(r.err) == 3);
  CHECK(has(r.err, "step 10/40: loss"));
  CHECK(has(r.err, "step 20/40: loss"));
}

TEST_CASE("train --gif: the requested frames decode, and the watched sentence's attention sharpens onto the gold words") {
  if (skip_learning_outcome_under_sanitizer()) return;
  TempDir dir;
  const Run r = run_tfx("train --steps 300 --threads 2 --no-progress --gif w.gif --frames 12 --format json", dir.path);
  REQUIRE(r.code == 0);
  const tfx::test::GifDecoded gif = tfx::test::decode_gif(read_file(dir / "w.gif"));
  CHECK(gif.frames.size() == 12);
  CHECK(gif.w > 600);
  CHECK(gif.h > 300);
  CHECK(has(r.err, "w.gif"));  // "wrote w.gif …" on stderr: stdout is the JSON
  const nlohmann::json j = json_of(r);
  const nlohmann::json& w = j["tables"]["watch"];
  REQUIRE(w.size() == 12);
  // the capture steps run from the initial weights (0) to the last step, strictly increasing
  CHECK(w.front()["step"] == 0);
  CHECK(w.back()["step"] == 300);
  for (std::size_t k = 1; k < w.size(); ++k) CHECK(w[k]["step"].get<long long>() > w[k - 1]["step"].get<long long>());
  // 그녀는 커피를 마셨다 → she drank coffee (she ← 그녀는, drank ← 마셨다, coffee ← 커피를). With the
  // initial weights the 3 rows are close to uniform (entropy near ln 3 = 1.0986 nats, a third of the
  // attention on the gold word); once trained, nearly one-hot on the gold word. A run that did not
  // learn keeps the first frame's numbers.
  const double h0 = w.front()["attention_entropy"], h1 = w.back()["attention_entropy"];
  const double g0 = w.front()["gold_attention"], g1 = w.back()["gold_attention"];
  MESSAGE("entropy " << h0 << " → " << h1 << " nats, gold attention " << g0 << " → " << g1);
  CHECK(h0 > 0.9 * std::log(3.0));
  CHECK(h0 <= std::log(3.0) + 1e-6);
  CHECK(h1 < 0.5 * h0);
  CHECK(g0 < 0.5);
  CHECK(g1 > 0.8);
  CHECK(w.back()["translation"] == "she drank coffee");
  CHECK(w.front()["translation"] != "she drank coffee");
}

TEST_CASE("train --watch: a sentence outside the data is watched on the model's own translation; --pairs watches a held-out pair") {
  TempDir dir;
  // 커피를 그녀는 마셨다 (reordered) is not a pair of the corpus (no reference): rows are the greedy translation, no gold column
  const Run r = run_tfx("train --steps 20 --threads 2 --no-progress --d-model 16 --heads 2 --ffn 32 --frames 5 --watch '커피를 그녀는 마셨다' "
                        "--format json",
                        dir.path);
  REQUIRE(r.code == 0);
  const nlohmann::json w = json_of(r)["tables"]["watch"];
  CHECK(w.size() == 5);
  CHECK(!w.front().contains("gold_attention"));
  CHECK(!std::filesystem::exists(dir / "train_watch.gif"));  // --watch alone: the table, no animation
  // more frames than steps + 1: one frame a step
  const Run s = run_tfx("train --steps 3 --threads 2 --no-progress --d-model 16 --heads 2 --ffn 32 --gif --format json", dir.path);
  REQUIRE(s.code == 0);
  CHECK(json_of(s)["tables"]["watch"].size() == 4);
  CHECK(tfx::test::decode_gif(read_file(dir / "train_watch.gif")).frames.size() == 4);
  // --pairs: the first held-out pair is watched (its target as the rows; no gold alignment in a file)
  write_file(dir / "p.tsv", "one two\teins zwei\ntwo one\tzwei eins\none one\teins eins\ntwo two\tzwei zwei\n");
  const Run p = run_tfx("train --pairs p.tsv --test-fraction 0.25 --steps 4 --frames 3 --threads 2 --no-progress --d-model 16 --heads 2 "
                        "--ffn 32 --gif p.gif --format json",
                        dir.path);
  REQUIRE(p.code == 0);
  const nlohmann::json pj = json_of(p);
  CHECK(pj["tables"]["watch"].size() == 3);
  CHECK(!pj["tables"]["watch"].front().contains("gold_attention"));
  CHECK(has(pj["notes"].dump(), "watched"));
  CHECK(tfx::test::decode_gif(read_file(dir / "p.gif")).frames.size() == 3);
}

TEST_CASE("train --corpus en-ko: word order needs PE — with PE ≥ 90 % held-out, with --no-pe ≤ 60 % and the roles swapped") {
  if (skip_learning_outcome_under_sanitizer()) return;
  // the word-order experiment at a small, fast size (1 + 1 layers, d_model 32, 400 steps: about 2 s a
  // run in Release); measured 108/108 with PE and 50/108 without at this seed
  const std::string args = "train --corpus en-ko --steps 400 --d-model 32 --heads 2 --layers 1 --ffn 64 --threads 2 --no-progress "
                           "--format json";
  const Run pe = run_tfx(args), no_pe = run_tfx(args + " --no-pe");
  REQUIRE(pe.code == 0);
  REQUIRE(no_pe.code == 0);
  const nlohmann::json a = json_of(pe), b = json_of(no_pe);
  MESSAGE("held-out exact with PE " << a["summary"]["held_out_exact"] << ", without " << b["summary"]["held_out_exact"]);
  CHECK(a["summary"]["held_out_pairs"] == 108);
  CHECK(a["summary"]["held_out_exact"].get<double>() >= 0.90);
  CHECK(b["summary"]["held_out_exact"].get<double>() <= 0.60);
  // the titles name the experiment
  CHECK(has(a["notes"][0].get<std::string>(), "--corpus en-ko"));
  CHECK(has(b["notes"][0].get<std::string>(), "--corpus en-ko --no-pe"));
  // without PE the wrong translations are the swapped ones: "the A v the B" → "B가 A를 v" (the
  // subject's and the object's nouns exchanged; particles are 이/가 and 을/를)
  REQUIRE(b["tables"].contains("held_out_wrong"));
  const auto& rows = b["tables"]["held_out_wrong"];
  REQUIRE(!rows.empty());
  std::size_t swapped = 0;
  for (const auto& row : rows) {
    const std::vector<std::string> src = tfx::split_words(row["source"].get<std::string>());
    const std::vector<std::string> want = tfx::split_words(row["expected"].get<std::string>());
    const std::vector<std::string> got = tfx::split_words(row["model"].get<std::string>());
    REQUIRE(src.size() == 5);
    REQUIRE(want.size() == 3);
    // the swap: the model's subject starts with the expected object's noun and vice versa, same verb
    const auto stem = [](const std::string& w) { return w.substr(0, w.size() - 3); };  // one Hangul particle: 3 bytes
    if (got.size() == 3 && stem(got[0]) == stem(want[1]) && stem(got[1]) == stem(want[0]) && got[2] == want[2]) ++swapped;
  }
  CHECK(swapped * 10 >= rows.size() * 8);  // at least 80 % of the listed mistakes are role swaps
  // with every held-out pair right the result has no tables at all (a const json's [] must not look up a missing key)
  if (!(a.contains("tables") && a["tables"].contains("held_out_wrong"))) CHECK(a["summary"]["held_out_exact"].get<double>() == 1.0);
}

TEST_CASE("train --png: a 16:9 figure at --scale 1 and 2, titled with the experiment, and the results table still printed") {
  TempDir dir;
  const std::string args = "train --corpus en-ko --no-pe --steps 20 --d-model 16 --heads 2 --layers 1 --ffn 32 --threads 2 --no-progress";
  const Run r = run_tfx(args + " --png t.png", dir.path);
  REQUIRE(r.code == 0);
  const Decoded one = decode_png(read_file(dir / "t.png"));
  CHECK(one.w == 1920);
  CHECK(one.h == 1080);
  // the table as the run without --png prints it: its experiment line, the score and the curve
  CHECK(has(r.out, "tfx train, experiment: --corpus en-ko --no-pe"));
  CHECK(has(r.out, "held-out exact match:"));
  CHECK(has(r.out, "step"));
  const Run two = run_tfx(args + " --png t2.png --scale 2", dir.path);
  REQUIRE(two.code == 0);
  const Decoded d2 = decode_png(read_file(dir / "t2.png"));
  CHECK(d2.w == 3840);
  CHECK(d2.h == 2160);
  // the SVG carries the title naming the experiment
  const Run svg = run_tfx(args + " --svg t.svg", dir.path);
  REQUIRE(svg.code == 0);
  CHECK(has(read_file(dir / "t.svg"), "--corpus en-ko --no-pe"));
}
