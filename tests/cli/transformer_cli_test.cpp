// `tfx tokenize`, `tfx complexity`, `tfx encoder`, `tfx decoder` end to end: the lecture's
// examples, the outputs with PyTorch's weights against PyTorch's forward pass (constants from
// tests/reference/gen_transformer_reference.py), --save-weights round trips, and the bad
// inputs (one error line, the right exit code, no output file).
#include <cmath>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "reference_files.hpp"
#include "reference/transformer_reference.hpp"

using namespace tfx::test;

TEST_CASE("tfx tokenize: the notes' example at three levels, Korean by code point, --vocab with --lower") {
  auto tokens = [](const Run& r) { return json_of(r)["summary"]["tokens"].get<std::vector<std::string>>(); };
  using V = std::vector<std::string>;
  CHECK(tokens(run_tfx("tokenize 'I love playing football.' --vocab wordpiece --format json")) == V{"I", "love", "play", "##ing", "foot", "##ball", "."});
  CHECK(tokens(run_tfx("tokenize 'I love playing football.' --mode word --format json")) == V{"I", "love", "playing", "football", "."});
  CHECK(tokens(run_tfx("tokenize '나는 학생 이다' --mode char --format json")).size() == 8);
  TempDir d;
  write_file(d / "vocab.txt", "[PAD]\n[UNK]\ntrans\n##form\n##ers\nare\ngreat\n");
  const auto j = json_of(run_tfx("tokenize 'Transformers are GREAT' --lower --format json --vocab " + shell_quote((d / "vocab.txt").string())));
  CHECK(j["summary"]["tokens"].get<V>() == V{"trans", "##form", "##ers", "are", "great"});
  CHECK(j["summary"]["ids"].get<std::vector<long long>>() == std::vector<long long>{2, 3, 4, 5, 6});
  const Run table = run_tfx("tokenize 'I love playing football.' --vocab wordpiece");
  CHECK(has(table.out, "##ball"));
}

TEST_CASE("tfx tokenize: a vocab with a duplicate or an empty line, a missing vocab, empty text") {
  TempDir d;
  write_file(d / "dup.txt", "a\nb\na\n");
  write_file(d / "gap.txt", "a\n\nb\n");
  check_one_line_error(run_tfx("tokenize x --vocab " + shell_quote((d / "dup.txt").string())), 1, "dup.txt:3: duplicate token 'a'");
  check_one_line_error(run_tfx("tokenize x --vocab " + shell_quote((d / "gap.txt").string())), 1, "gap.txt:2: empty line");
  check_one_line_error(run_tfx("tokenize x --vocab /nonexistent/vocab.txt"), 1, "no such file");
  // a blank text has no tokens and is no error (issue 36: Hugging Face gives no ids either)
  const Run blank = run_tfx("tokenize '  ' --format json");
  CHECK(blank.code == 0);
  CHECK(json_of(blank)["summary"]["count"] == 0);
  check_one_line_error(run_tfx("tokenize x --mode bpe"), 2, "--mode");
}

TEST_CASE("tfx complexity: the paper's table at n = 512, d = 768, and the n = d crossover figure") {
  const auto j = json_of(run_tfx("complexity --n 512 --d 768 --kernel 3 --r 32 --format json"));
  const auto& rows = j["data"];
  REQUIRE(rows.size() == 4);
  CHECK(rows[0]["operations"].get<double>() == 512.0 * 512 * 768);
  CHECK(rows[1]["operations"].get<double>() == 512.0 * 768 * 768);
  CHECK(rows[2]["operations"].get<double>() == 3.0 * 512 * 768 * 768);
  CHECK(rows[3]["operations"].get<double>() == 32.0 * 512 * 768);
  CHECK(rows[1]["path"].get<double>() == 512);
  CHECK(rows[2]["path"].get<double>() == 6);  // ⌈log_3 512⌉ = 6 (3^5 = 243 < 512 ≤ 729)
  CHECK(rows[3]["path"].get<double>() == 16);
  CHECK(j["summary"]["attention_over_recurrent"].get<double>() == doctest::Approx(512.0 / 768));
  TempDir d;
  const Run png = run_tfx("complexity --png c.png", d.path);
  CHECK(png.code == 0);
  CHECK(read_file(d / "c.png").substr(1, 3) == "PNG");
  check_one_line_error(run_tfx("complexity --kernel 1"), 2, "--kernel");
}

TEST_CASE("tfx encoder --weights: PyTorch's nn.TransformerEncoderLayer state_dict gives PyTorch's output (post-LN, norm-first, 2 layers)") {
  const std::string x = " --x " + ref("transformer_x.npy") + " --heads 2 --format json";
  CHECK(maxdiff(json_of(run_tfx("encoder --weights " + ref("encoder_layer.safetensors") + x))["data"], tfx::reference::kEncoderLayer) < 1e-5);
  CHECK(maxdiff(json_of(run_tfx("encoder --norm-first --weights " + ref("encoder_layer.safetensors") + x))["data"],
                tfx::reference::kEncoderLayerNormFirst) < 1e-5);
  CHECK(maxdiff(json_of(run_tfx("encoder --layers 2 --weights " + ref("encoder_2layers.safetensors") + x))["data"],
                tfx::reference::kEncoder2Layers) < 1e-5);
}

TEST_CASE("tfx decoder --weights: PyTorch's nn.TransformerDecoderLayer with memory, and both weight tables") {
  const auto j = json_of(run_tfx("decoder --weights " + ref("decoder_layer.safetensors") + " --x " + ref("transformer_x.npy") +
                                 " --memory-x " + ref("transformer_memory.npy") + " --heads 2 --format json"));
  CHECK(maxdiff(j["data"], tfx::reference::kDecoderLayer) < 1e-5);
  // head-averaged self weights from the per-head tables
  const auto& self = j["matrices"]["self_weights"]["data"];
  REQUIRE(self.size() == 2);
  std::vector<float> avg;
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t k = 0; k < 4; ++k) avg.push_back(0.5f * (self[0][i][k].get<float>() + self[1][i][k].get<float>()));
  nlohmann::json as_rows = nlohmann::json::array();
  for (std::size_t i = 0; i < 4; ++i) as_rows.push_back(std::vector<float>(avg.begin() + 4 * i, avg.begin() + 4 * i + 4));
  CHECK(maxdiff(as_rows, tfx::reference::kDecoderSelfWeights) < 1e-5);
}

TEST_CASE("tfx encoder/decoder: the notes' Korean example end to end, tokens as labels, '.' kept") {
  const auto e = json_of(run_tfx("encoder --sentence '나는 학생 이다' --random --format json"));
  CHECK(e["rows"].get<std::vector<std::string>>() == std::vector<std::string>{"나는", "학생", "이다"});
  CHECK(e["shape"] == nlohmann::json({3, 16}));
  const auto d = json_of(run_tfx("decoder --sentence 'I am a student.' --memory '나는 학생 이다' --format json"));
  CHECK(d["rows"].get<std::vector<std::string>>() == std::vector<std::string>{"I", "am", "a", "student", "."});
  CHECK(d["matrices"]["cross_weights"]["shape"] == nlohmann::json({2, 5, 3}));
  // causal: the first query's self-attention weight on itself is 1 in every head
  CHECK(d["matrices"]["self_weights"]["data"][0][0][0].get<double>() == 1.0);
  const Run t = run_tfx("decoder --sentence 'I am a student' --memory '나는 학생 이다'");
  CHECK(has(t.out, "나는"));
  CHECK(has(t.out, "cross"));
  TempDir dir;
  CHECK(run_tfx("decoder --sentence 'I am a student' --memory '나는 학생 이다' --png d.png", dir.path).code == 0);
  CHECK(read_file(dir / "d.png").substr(1, 3) == "PNG");
}

TEST_CASE("tfx encoder/decoder: a sentence the teaching translator knows runs on its trained weights; cross-attention then aligns") {
  const Run enc = run_tfx("encoder --sentence '나는 학생 이다' --format json");
  REQUIRE(enc.code == 0);
  const auto e = json_of(enc);
  CHECK(e["shape"] == nlohmann::json({3, 64}));
  CHECK(e["params"]["weights"] == "teaching translator");
  CHECK(e["params"]["layers"] == 2);
  CHECK(e["params"]["heads"] == 4);
  const Run dec = run_tfx("decoder --sentence 'I am a student' --memory '나는 학생 이다' --format json");
  REQUIRE(dec.code == 0);
  const auto d = json_of(dec);
  CHECK(d["rows"].get<std::vector<std::string>>() == std::vector<std::string>{"<bos>", "I", "am", "a", "student"});
  const auto& cross = d["matrices"]["layer2.cross_weights"];
  REQUIRE(cross["shape"] == nlohmann::json({4, 5, 3}));
  // mean over the heads: the row that predicts the next word looks at its source word
  auto argmax_mean = [&](std::size_t row) {
    std::vector<double> m(3, 0.0);
    for (std::size_t h = 0; h < 4; ++h)
      for (std::size_t j = 0; j < 3; ++j) m[j] += cross["data"][h][row][j].get<double>();
    return static_cast<std::size_t>(std::max_element(m.begin(), m.end()) - m.begin());
  };
  CHECK(argmax_mean(0) == 0);  // <bos> → predicts I → 나는
  CHECK(argmax_mean(1) == 2);  // I → predicts am → 이다
  CHECK(argmax_mean(3) == 1);  // a → predicts student → 학생
  // a word the translator does not know: seeded weights, and the note says why
  const Run seeded = run_tfx("decoder --sentence 'I am a cat' --memory '나는 학생 이다'");
  REQUIRE(seeded.code == 0);
  CHECK(has(seeded.out, "not the trained translator: 'cat' not in the teaching translator's vocabulary"));
  const Run random = run_tfx("encoder --sentence '나는 학생 이다' --random");
  CHECK(has(random.out, "weights: seeded (seed 42)"));
}

TEST_CASE("tfx encoder --save-weights: the seeded weights written as safetensors give the same output when read back") {
  TempDir d;
  const std::string base = "encoder --sentence 'I love playing football.' --layers 2 --heads 4 --d-model 16 --format json";
  const auto a = json_of(run_tfx(base + " --save-weights w.safetensors", d.path));
  const auto b = json_of(run_tfx("encoder --sentence 'I love playing football.' --heads 4 --format json --weights w.safetensors", d.path));
  CHECK(a["data"] == b["data"]);
  CHECK(b["params"]["layers"] == 2);
  CHECK(b["params"]["ffn"] == 64);
}

TEST_CASE("tfx encoder/decoder: bad weights files and flags give one error line and the right exit code") {
  TempDir d;
  write_file(d / "lying.safetensors", std::string("\xff\0\0\0\0\0\0\0{}", 10));
  const std::string sent = "encoder --sentence 'I am a student' ";
  check_one_line_error(run_tfx(sent + "--weights " + shell_quote((d / "lying.safetensors").string())), 1, "header length 255");
  check_one_line_error(run_tfx(sent + "--weights " + ref("mha.safetensors")), 1, "self_attn.in_proj_weight");
  check_one_line_error(run_tfx(sent + "--weights " + ref("encoder_layer.safetensors") + " --heads 3"), 2, "--heads 3 does not divide d_model = 8");
  check_one_line_error(run_tfx(sent + "--weights " + ref("encoder_layer.safetensors") + " --layers 2"), 2, "--layers 2");
  check_one_line_error(run_tfx(sent + "--weights /nonexistent.safetensors"), 1, "no such file");
  check_one_line_error(run_tfx(sent + "--heads 3"), 2, "--heads 3 does not divide d_model = 16");
  check_one_line_error(run_tfx(sent + "--ffn 0"), 2, "--ffn");
  check_one_line_error(run_tfx(sent + "--layers 0"), 2, "--layers");
  check_one_line_error(run_tfx("encoder --sentence ''"), 2, "no tokens");
  check_one_line_error(run_tfx(sent + "--memory '나는 학생 이다'"), 2, "--memory goes with tfx decoder");
  check_one_line_error(run_tfx("decoder --sentence 'I am'"), 2, "--memory");
  check_one_line_error(run_tfx(sent + "--show bogus"), 2, "--show");
  // a missing tensor named, and no --save-weights file left behind
  check_one_line_error(run_tfx("decoder --sentence 'I am' --memory x --heads 2 --weights " + ref("encoder_layer.safetensors") + " --save-weights out.safetensors", d.path),
                       1, "no tensor 'multihead_attn.in_proj_weight'");
  CHECK(!std::filesystem::exists(d / "out.safetensors"));
}

TEST_CASE("tfx rope relative --q --k: the user's own vectors; s_00 = q·k/√D and diagonals constant") {
  const auto j = json_of(run_tfx("rope relative --q 1,0,0.5,-1 --k 0,1,1,0.25 --len 4 --format json"));
  CHECK(j["data"][0][0].get<double>() == doctest::Approx((0.5 - 0.25) / 2.0));
  CHECK(j["data"][1][2].get<double>() == doctest::Approx(j["data"][0][1].get<double>()).epsilon(1e-5));
  check_one_line_error(run_tfx("rope relative --q 1,0 --k 1,0,0,1"), 2, "--q has 2 values but --k has 4");
  check_one_line_error(run_tfx("rope relative --q 1,0"), 2, "--q and --k go together");
  check_one_line_error(run_tfx("rope relative --q 1,x --k 1,0"), 2, "--q: 'x' is not a finite number (row 1, value 2)");
}

TEST_CASE("tfx attention --heads 2 --weights: nn.MultiheadAttention's output and head-averaged weights equal PyTorch's") {
  const auto j = json_of(run_tfx("attention --x " + ref("transformer_x.npy") + " --heads 2 --weights " + ref("mha.safetensors") +
                                 " --format json"));
  CHECK(maxdiff(j["matrices"]["output"]["data"], tfx::reference::kMhaOutput) < 1e-5);
  CHECK(maxdiff(j["matrices"]["average_weights"]["data"], tfx::reference::kMhaWeights) < 1e-5);
  // an encoder layer's file works too (self_attn.* keys); F16 weights
  CHECK(maxdiff(json_of(run_tfx("attention --x " + ref("transformer_x.npy") + " --heads 2 --weights " + ref("mha_f16.safetensors") +
                                " --format json"))["matrices"]["output"]["data"],
                tfx::reference::kMhaF16Output) < 1e-5);
  check_one_line_error(run_tfx("attention --x " + ref("transformer_x.npy") + " --heads 3 --weights " + ref("mha.safetensors")), 2,
                       "--heads 3 does not divide d_model = 8");
  check_one_line_error(run_tfx("attention --x " + ref("transformer_x.npy") + " --identity --weights " + ref("mha.safetensors")), 2,
                       "--identity goes without --weights");
}

TEST_CASE("tfx attention --sentence keeps '.' as a token and prints the tokens it used") {
  const Run r = run_tfx("attention --sentence 'I love playing football.' --format json");
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["params"]["tokens"] == nlohmann::json({"I", "love", "playing", "football", "."}));
}
