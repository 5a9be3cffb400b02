// `tfx attention` and `tfx attention variance` end to end: values in csv/json/npy against hand
// computations, --show, heads, sentences, figures, and every bad input of issue 7 (one error
// line, the right exit code, no output file).
#include <cmath>
#include <sstream>
#include <cstring>
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

namespace {


// Q = K = I (2×2), V = [[1, 2], [3, 4]]: weights row 0 = (σ(1/√2), 1 − σ(1/√2)).
struct Files {
  TempDir dir;
  Files() {
    write_file(dir / "q.json", "[[1, 0], [0, 1]]");
    write_file(dir / "k.csv", "1,0\n0,1\n");
    write_file(dir / "v.csv", "1 2\n3 4\n");
    write_file(dir / "q3.csv", "1,0,0\n0,1,0\n");
    write_file(dir / "v3rows.csv", "1,2\n3,4\n5,6\n");
    write_file(dir / "ragged.csv", "1,0\n0\n");
    write_file(dir / "words.csv", "1,0\n0,banana\n");
    write_file(dir / "empty.json", "");
    write_file(dir / "x4.csv", "1,0,0,0\n0,1,0,0\n0,0,1,1\n");
  }
  std::string operator()(const std::string& name) const { return shell_quote((dir / name).string()); }
};

const double kW = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0)));  // σ(1/√2) = 0.66976

// One-line error, given exit code, message containing `part`, nothing on stdout.
void check_error(const Run& r, int code, const std::string& part) {
  CAPTURE(r.err);
  CHECK(r.code == code);
  CHECK(has(r.err, "tfx: error: "));
  CHECK(has(r.err, part));
  CHECK(count_lines(r.err.substr(r.err.find("tfx: error: "))) == 1);
  CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("cli: attention from Q/K/V files: csv weights and json matrices match the hand values") {
  Files f;
  Run csv = run_tfx("attention --q " + f("q.json") + " --k " + f("k.csv") + " --v " + f("v.csv") + " --format csv");
  REQUIRE(csv.code == 0);
  std::istringstream in(csv.out);
  std::string header, row0, row1;
  std::getline(in, header), std::getline(in, row0), std::getline(in, row1);
  CHECK(header == "query,0,1");
  CHECK(std::stod(row0.substr(row0.find(',') + 1)) == doctest::Approx(kW).epsilon(1e-6));
  CHECK(std::stod(row1.substr(row1.rfind(',') + 1)) == doctest::Approx(kW).epsilon(1e-6));

  nlohmann::json j =
      json_of(run_tfx("attention --q " + f("q.json") + " --k " + f("k.csv") + " --v " + f("v.csv") + " --format json"));
  CHECK(j["command"] == "attention");
  CHECK(j["shape"] == nlohmann::json::array({2, 2}));
  CHECK(j["data"][0][0].get<double>() == doctest::Approx(kW).epsilon(1e-6));
  // Z row 0 = w·(1, 2) + (1 − w)·(3, 4)
  CHECK(j["matrices"]["output"]["data"][0][0].get<double>() == doctest::Approx(3 - 2 * kW).epsilon(1e-6));
  CHECK(j["matrices"]["output"]["data"][0][1].get<double>() == doctest::Approx(4 - 2 * kW).epsilon(1e-6));
  CHECK(j["summary"]["d_k"] == 2);
}

TEST_CASE("cli: --show all prints every step with its shape; JSON carries each by name; csv/npy write the named one") {
  Files f;
  const std::string qkv = "attention --q " + f("q.json") + " --k " + f("k.csv") + " --v " + f("v.csv");
  Run t = run_tfx(qkv + " --causal --show all");
  REQUIRE(t.code == 0);
  for (const char* title : {"scores [2, 2]", "scaled [2, 2]", "masked [2, 2]", "weights [2, 2]", "output [2, 2]"}) {
    CAPTURE(title);
    CHECK(has(t.out, title));
  }
  CHECK(has(t.out, "-inf"));
  CHECK(has(t.out, "0.0000*"));
  CHECK(has(t.out, "(* = masked: weight exactly 0)"));
  CHECK(t.out.find("scores [2, 2]") < t.out.find("scaled [2, 2]"));
  CHECK(t.out.find("masked [2, 2]") < t.out.find("weights [2, 2]"));

  nlohmann::json j = json_of(run_tfx(qkv + " --causal --show all --format json"));
  // the main matrix (weights) at the top level, the others once each under "matrices"
  CHECK(j["name"] == "weights");
  for (const char* name : {"scores", "scaled", "masked", "output"}) CHECK(j["matrices"].contains(name));
  CHECK(!j["matrices"].contains("weights"));
  CHECK(j["masked"][0][1] == 1);
  CHECK(j["data"][0][1] == 0.0);
  CHECK(j["data"][0][0] == 1.0);
  // scaled = QKᵀ/√2: the diagonal is 1/√2
  CHECK(j["matrices"]["scaled"]["data"][1][1].get<double>() == doctest::Approx(1 / std::sqrt(2.0)).epsilon(1e-6));

  Run scores = run_tfx(qkv + " --show scores --format csv");
  REQUIRE(scores.code == 0);
  CHECK(scores.out == "query,0,1\n0,1,0\n1,0,1\n");
  // npy of the weights: 2×2 float32 after a 128-byte header (see encode_npy)
  Run npy = run_tfx(qkv + " --format npy -o w.npy", f.dir.path);
  REQUIRE(npy.code == 0);
  const std::string b = read_file(f.dir / "w.npy");
  CHECK(has(b.substr(0, 128), "'shape': (2, 2)"));
  REQUIRE(b.size() == 128 + 16);
  float w00;
  std::memcpy(&w00, b.data() + 128, 4);
  CHECK(w00 == doctest::Approx(kW).epsilon(1e-6));
  // --show output --format csv writes Z
  Run z = run_tfx(qkv + " --show output --format csv");
  REQUIRE(z.code == 0);
  CHECK(has(z.out, "query,0,1\n0,"));
}

TEST_CASE("cli: --x with --identity equals Q = K = V = X from files; --heads gives one slice per head, then W_O") {
  Files f;
  Run x = run_tfx("attention --x " + f("x4.csv") + " --identity --format json");
  Run qkv = run_tfx("attention --q " + f("x4.csv") + " --k " + f("x4.csv") + " --v " + f("x4.csv") + " --format json");
  CHECK(json_of(x)["data"] == json_of(qkv)["data"]);
  CHECK(json_of(x)["matrices"]["output"]["data"] == json_of(qkv)["matrices"]["output"]["data"]);

  nlohmann::json h = json_of(run_tfx("attention --x " + f("x4.csv") + " --identity --heads 2 --format json"));
  CHECK(h["shape"] == nlohmann::json::array({2, 3, 3}));
  CHECK(h["matrices"].contains("z"));
  CHECK(h["matrices"]["concat"]["shape"] == nlohmann::json::array({3, 4}));
  // W_O = I: the output is the concatenation; head 1 sees columns 2, 3 only: row 0 of X is 0 there,
  // so query 0's scores in head 1 are all 0 and its weights uniform 1/3
  CHECK(h["matrices"]["output"]["data"] == h["matrices"]["concat"]["data"]);
  for (int j = 0; j < 3; ++j) CHECK(h["data"][1][0][j].get<double>() == doctest::Approx(1.0 / 3));
  Run table = run_tfx("attention --x " + f("x4.csv") + " --heads 2 --seed 3");
  REQUIRE(table.code == 0);
  CHECK(has(table.out, "weights [2, 3, 3]"));
  CHECK(has(table.out, "head 0\n"));
  CHECK(has(table.out, "head 1\n"));
  CHECK(has(table.out, "4. output = Concat · W_O"));
}

TEST_CASE("cli: --dv sets the value width: V (T, H·d_v), Z per head (H, T, d_v), output back to d_model") {
  nlohmann::json j =
      json_of(run_tfx("attention --sentence \"the cat sat\" --dk 4 --dv 2 --heads 2 --show v,output --format json"));
  CHECK(j["matrices"]["v"]["shape"] == nlohmann::json::array({3, 4}));
  CHECK(j["matrices"]["z"]["shape"] == nlohmann::json::array({2, 3, 2}));
  CHECK(j["name"] == "output");  // the main matrix when weights are not shown
  CHECK(j["shape"] == nlohmann::json::array({3, 64}));
  CHECK(j["params"]["d_v"] == 2);
  CHECK(j["params"]["d_k"] == 4);
}

TEST_CASE("cli: the same seed gives the same table, another seed another one") {
  Files f;
  const std::string base = "attention --x " + f("x4.csv") + " --dk 2 --format csv";
  Run a = run_tfx(base + " --seed 5"), b = run_tfx(base + " --seed 5"), c = run_tfx(base + " --seed 6");
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  CHECK(a.out != c.out);
}

TEST_CASE("cli: sentences — token labels, rows sum to 1, causal zeros, cross-attention shape, OOV warning") {
  nlohmann::json j = json_of(run_tfx("attention --sentence \"I love playing football\" --dk 8 --seed 1 --format json"));
  CHECK(j["rows"] == nlohmann::json::array({"I", "love", "playing", "football"}));  // labels as written
  CHECK(j["columns"] == j["rows"]);
  for (const auto& row : j["data"]) {
    double sum = 0;
    for (const auto& w : row) sum += w.get<double>();
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  }
  CHECK(j["matrices"]["output"]["shape"] == nlohmann::json::array({4, 8}));

  nlohmann::json c = json_of(run_tfx("attention --sentence \"the king sat down\" --causal --dk 4 --format json"));
  for (int i = 0; i < 4; ++i)
    for (int k = i + 1; k < 4; ++k) CHECK(c["data"][i][k] == 0.0);
  CHECK(c["data"][0][0] == 1.0);

  Run x = run_tfx("attention --sentence \"I love you\" --cross \"the king is here now\" --dk 4 --format json");
  nlohmann::json xj = json_of(x);
  CHECK(xj["shape"] == nlohmann::json::array({3, 5}));
  CHECK(xj["columns"][1] == "king");

  nlohmann::json punct = json_of(run_tfx("attention --sentence \"Hello, World! (the) end.\" --dk 2 --format json"));
  // issue 15: punctuation is a token of its own (tfx tokenize --mode word), not dropped
  CHECK(punct["rows"] == nlohmann::json::array({"Hello", ",", "World", "!", "(", "the", ")", "end", "."}));

  Run oov = run_tfx("attention --sentence \"hello zzqqxx\" --dk 2 --format csv");
  REQUIRE(oov.code == 0);
  CHECK(has(oov.err, "warning: --sentence: 'zzqqxx' not in"));
  CHECK(has(oov.out, "zzqqxx"));
}

TEST_CASE("cli: with --causal, row i does not depend on the tokens after i (same prefix, same rows)") {
  nlohmann::json a = json_of(run_tfx("attention --sentence \"the cat sat down\" --causal --dk 4 --seed 1 --format json"));
  nlohmann::json b = json_of(run_tfx("attention --sentence \"the cat sat on the mat\" --causal --dk 4 --seed 1 --format json"));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j <= i; ++j) CHECK(a["data"][i][j] == b["data"][i][j]);
  // without the mask, later tokens change earlier rows
  nlohmann::json c = json_of(run_tfx("attention --sentence \"the cat sat down\" --dk 4 --seed 1 --format json"));
  nlohmann::json d = json_of(run_tfx("attention --sentence \"the cat sat on the mat\" --dk 4 --seed 1 --format json"));
  CHECK(c["data"][0][0] != d["data"][0][0]);
}

TEST_CASE("cli: --no-pe makes repeated words attend identically; --no-scale and --temperature √d_k agree") {
  // without PE, both "the" rows are the same vector, so their weight rows are equal
  nlohmann::json j = json_of(run_tfx("attention --sentence \"the cat saw the dog\" --no-pe --dk 4 --format json"));
  CHECK(j["data"][0] == j["data"][3]);
  nlohmann::json pe = json_of(run_tfx("attention --sentence \"the cat saw the dog\" --dk 4 --format json"));
  CHECK(pe["data"][0] != pe["data"][3]);
  // dividing by √4 = 2 via --no-scale --temperature 2 is the default scaling
  Files f;
  const std::string qkv = "attention --q " + f("x4.csv") + " --k " + f("x4.csv") + " --v " + f("x4.csv") + " --format csv";
  CHECK(run_tfx(qkv).out == run_tfx(qkv + " --no-scale --temperature 2").out);
  CHECK(run_tfx(qkv).out != run_tfx(qkv + " --no-scale").out);
}

TEST_CASE("cli: --png writes the default-named figure; a grid for heads; --view draws without a table") {
  Files f;
  Run png = run_tfx("attention --sentence \"I love you\" --dk 4 --png", f.dir.path);
  REQUIRE(png.code == 0);
  CHECK(has(png.out, "wrote attention_i_love_you_dk4_seed42.png"));
  CHECK(read_file(f.dir / "attention_i_love_you_dk4_seed42.png").substr(1, 3) == "PNG");
  Run heads = run_tfx("attention --x " + f("x4.csv") + " --heads 2 --causal --png heads.png", f.dir.path);
  REQUIRE(heads.code == 0);
  CHECK(std::filesystem::exists(f.dir / "heads.png"));
  // --png with JSON on stdout: the notice goes to stderr, stdout stays parseable
  Run both = run_tfx("attention --x " + f("x4.csv") + " --dk 2 --png both.png --format json", f.dir.path);
  REQUIRE(both.code == 0);
  CHECK(nlohmann::json::parse(both.out)["command"] == "attention");
  CHECK(has(both.err, "wrote both.png"));
  Run view = run_tfx("attention --x " + f("x4.csv") + " --heads 2 --view --width 40", f.dir.path, "NO_COLOR=1");
  REQUIRE(view.code == 0);
  CHECK(has(view.out, "head 0\n"));
  CHECK(has(view.out, "head 1\n"));
  CHECK(!has(view.out, "weights ["));
}

TEST_CASE("cli: attention bad input (issue 7) — one error line, exit code, no output file") {
  Files f;
  const std::string out = " -o " + f("out.csv");
  // Q and K with different d_k
  check_error(run_tfx("attention --q " + f("q3.csv") + " --k " + f("k.csv") + " --v " + f("v.csv") + out), 1,
              "differ in d_k");
  // V rows ≠ K rows
  check_error(run_tfx("attention --q " + f("q.json") + " --k " + f("k.csv") + " --v " + f("v3rows.csv") + out), 1,
              "has 3 rows but K");
  // ragged and non-numeric matrix files, an empty file
  check_error(run_tfx("attention --x " + f("ragged.csv") + out), 1, "ragged.csv:2: 1 values, expected 2");
  check_error(run_tfx("attention --x " + f("words.csv") + out), 1, "words.csv:2: column 2: 'banana' is not a number");
  check_error(run_tfx("attention --x " + f("empty.json") + out), 1, "empty file");
  // an endless device is read up to a cap, not into memory without end
  check_error(run_tfx("attention --x /dev/zero" + out), 1, "more than 64 MiB from a pipe or device");
  // an empty sentence, and one of punctuation only
  check_error(run_tfx("attention --sentence \"\"" + out), 2, "--sentence '' has no words");
  check_error(run_tfx("attention --sentence \"   \"" + out), 2, "has no words");
  check_error(run_tfx("attention --sentence \"a b\" --cross \"  \"" + out), 2, "--cross '  ' has no words");
  // --heads not dividing d_model
  check_error(run_tfx("attention --x " + f("x4.csv") + " --heads 3" + out), 2, "--heads 3 does not divide d_model = 4");
  check_error(run_tfx("attention --q " + f("x4.csv") + " --k " + f("x4.csv") + " --v " + f("x4.csv") + " --heads 3" + out), 2,
              "--heads 3 does not divide d_model = 4");
  // --dk 0, here and in variance
  check_error(run_tfx("attention --x " + f("x4.csv") + " --dk 0" + out), 2, "--dk");
  check_error(run_tfx("attention variance --dk 8,0" + out), 2, "--dk");
  // --pad ≥ sequence length: a clear error, not NaN
  check_error(run_tfx("attention --x " + f("x4.csv") + " --pad 3" + out), 2, "--pad 3 masks every one of the 3 key positions");
  check_error(run_tfx("attention --sentence \"one two\" --pad 5" + out), 2, "--pad 5");
  CHECK(!std::filesystem::exists(f.dir / "out.csv"));
}

TEST_CASE("cli: attention bad flags and combinations") {
  Files f;
  check_error(run_tfx("attention"), 2, "give the input");
  check_error(run_tfx("attention --sentence hi --x " + f("x4.csv")), 2, "give one input");
  check_error(run_tfx("attention --q " + f("q.json") + " --k " + f("k.csv")), 2, "--q, --k and --v go together (missing: --v)");
  check_error(run_tfx("attention --x " + f("x4.csv") + " --cross \"a b\""), 2, "--cross goes with --sentence");
  check_error(run_tfx("attention --x " + f("x4.csv") + " --no-pe"), 2, "--no-pe goes with --sentence");
  check_error(run_tfx("attention --q " + f("q.json") + " --k " + f("k.csv") + " --v " + f("v.csv") + " --dk 2"), 2,
              "--dk goes with");
  check_error(run_tfx("attention --x " + f("x4.csv") + " --identity --dk 2"), 2,
              "--identity needs --heads × --dk = --heads × --dv = d_model");
  check_error(run_tfx("attention --x " + f("x4.csv") + " --show weights,nonsense"), 2, "--show: unknown matrix 'nonsense'");
  check_error(run_tfx("attention --x " + f("x4.csv") + " --temperature 0"), 2, "--temperature");
  check_error(run_tfx("attention --q " + f("x4.csv") + " --k " + f("x4.csv") + " --v " + f("x4.csv") + " --show x"), 2,
              "--show x");
  check_error(run_tfx("attention --x " + f("x4.csv") + " --heads 0"), 2, "--heads");
  // a missing input file is a data error (1), whichever flag names it
  check_error(run_tfx("attention --x " + f("missing.csv")), 1, "--x");
}

TEST_CASE("cli: attention variance — table and json near theory, png, bad input") {
  Run t = run_tfx("attention variance --dk 1,16 --samples 4000 --keys 4 --seed 7");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "var(q·k/√d_k)"));
  nlohmann::json j = json_of(run_tfx("attention variance --dk 4,64 --samples 4000 --keys 4 --seed 7 --format json"));
  REQUIRE(j["data"].size() == 2);
  // 16000 products: the variance estimate is within a few percent of d_k (relative s.e. ≈ 1.3%)
  CHECK(j["data"][0]["var(q·k)"].get<double>() == doctest::Approx(4.0).epsilon(0.08));
  CHECK(j["data"][1]["var(q·k)"].get<double>() == doctest::Approx(64.0).epsilon(0.08));
  CHECK(j["data"][1]["var(q·k/√d_k)"].get<double>() == doctest::Approx(1.0).epsilon(0.08));
  CHECK(j["data"][1]["max weight"].get<double>() > j["data"][1]["max weight scaled"].get<double>());
  TempDir dir;
  Run png = run_tfx("attention variance --dk 1,8 --samples 100 --png", dir.path);
  REQUIRE(png.code == 0);
  CHECK(std::filesystem::exists(dir / "attention_variance_dk1-8_seed42.png"));
  check_error(run_tfx("attention variance --samples 1"), 2, "--samples");
  check_error(run_tfx("attention variance --dk 1000000 --samples 100000"), 2, "lower --samples or --dk");
  check_error(run_tfx("attention variance --dk x"), 2, "--dk");
  check_error(run_tfx("attention variance --dist cauchy"), 2, "--dist");
}

TEST_CASE("cli: the samples (CSV with labels, tfx-style JSON, float64 .npy) give the PyTorch reference weights") {
  const std::string dir = std::string(TFX_SOURCE_DIR) + "/samples/attention/";
  nlohmann::json j = json_of(run_tfx("attention --q " + shell_quote(dir + "q.csv") + " --k " + shell_quote(dir + "k.json") +
                                     " --v " + shell_quote(dir + "v.npy") + " --format json"));
  CHECK(j["rows"] == nlohmann::json::array({"je", "suis", "ici"}));
  CHECK(j["columns"] == nlohmann::json::array({"i", "am", "here", "now"}));
  // torch.softmax(Q @ K.T / 2, -1), row 0 (tests/reference/gen_attention_reference.py)
  const double want[4] = {0.0424442569, 0.0792963113, 0.0257437431, 0.8525156887};
  for (int c = 0; c < 4; ++c) CHECK(j["data"][0][c].get<double>() == doctest::Approx(want[c]).epsilon(1e-5));
  CHECK(j["matrices"]["output"]["data"][0][0].get<double>() == doctest::Approx(2.5335668831).epsilon(1e-5));
  Run x = run_tfx("attention --x " + shell_quote(dir + "x.csv") + " --heads 2");
  REQUIRE(x.code == 0);
  CHECK(has(x.out, "the        "));
}

TEST_CASE("cli: tfx's own outputs read back as inputs (pe csv as --x, attention json as --q/--k/--v)") {
  TempDir dir;
  REQUIRE(run_tfx("pe --len 5 --dim 4 --format csv -o pe.csv", dir.path).code == 0);
  nlohmann::json a = json_of(run_tfx("attention --x pe.csv --identity --format json", dir.path));
  CHECK(a["shape"] == nlohmann::json::array({5, 5}));
  // PE rows all have norm √2 and differ, so each query's largest weight is on itself
  for (int i = 0; i < 5; ++i) {
    double best = -1;
    int arg = -1;
    for (int j = 0; j < 5; ++j)
      if (a["data"][i][j].get<double>() > best) best = a["data"][i][j].get<double>(), arg = j;
    CHECK(arg == i);
  }
  REQUIRE(run_tfx("attention --sentence \"the king sat\" --dk 4 --show q --format json -o q.json", dir.path).code == 0);
  REQUIRE(run_tfx("attention --sentence \"the king sat\" --dk 4 --show k --format json -o k.json", dir.path).code == 0);
  REQUIRE(run_tfx("attention --sentence \"the king sat\" --dk 4 --show v --format json -o v.json", dir.path).code == 0);
  nlohmann::json direct = json_of(run_tfx("attention --sentence \"the king sat\" --dk 4 --format json"));
  nlohmann::json back = json_of(run_tfx("attention --q q.json --k k.json --v v.json --format json", dir.path));
  CHECK(back["rows"] == direct["rows"]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      CHECK(back["data"][i][j].get<double>() == doctest::Approx(direct["data"][i][j].get<double>()).epsilon(1e-6));
}

TEST_CASE("cli: real GloVe vectors, --identity --no-pe: weights = softmax(E·Eᵀ/√50) from the file's own numbers") {
  const std::filesystem::path glove = shared_data("glove.6B.50d.top2446.txt");
  if (glove.empty()) return;
  const std::vector<std::string> words{"king", "queen", "man", "woman"};
  // the rows of those words, read straight from the text file in double
  std::vector<std::vector<double>> e(words.size());
  std::istringstream file(read_file(glove));
  for (std::string line; std::getline(file, line);) {
    std::istringstream ls(line);
    std::string w;
    ls >> w;
    for (std::size_t i = 0; i < words.size(); ++i)
      if (w == words[i] && e[i].empty())
        for (double x; ls >> x;) e[i].push_back(x);
  }
  for (const auto& row : e) REQUIRE(row.size() == 50);
  nlohmann::json j =
      json_of(run_tfx("attention --sentence \"king queen man woman\" --identity --no-pe --no-cache --format json --embeddings " +
                      shell_quote(glove.string())));
  for (std::size_t i = 0; i < 4; ++i) {
    std::vector<double> s(4);
    double sum = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      double dotp = 0;
      for (std::size_t c = 0; c < 50; ++c) dotp += e[i][c] * e[k][c];
      s[k] = std::exp(dotp / std::sqrt(50.0));
      sum += s[k];
    }
    for (std::size_t k = 0; k < 4; ++k) CHECK(j["data"][i][k].get<double>() == doctest::Approx(s[k] / sum).epsilon(1e-5));
  }
}

namespace {

double max_abs_difference(const nlohmann::json& a, const nlohmann::json& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].size() == b[i].size());
    for (std::size_t j = 0; j < a[i].size(); ++j) worst = std::max(worst, std::fabs(a[i][j].get<double>() - b[i][j].get<double>()));
  }
  return worst;
}

}  // namespace

TEST_CASE("attention --sentence: a sentence the teaching translator knows runs on its trained layer-1 attention") {
  SUBCASE("Korean: the encoder's first self-attention, the same weights trace shows") {
    const Run r = run_tfx("attention --sentence '나는 학생 이다' --format json");
    REQUIRE(r.code == 0);
    const auto j = json_of(r);
    CHECK(j["params"]["weights"] == "teaching translator: encoder.layers.0.self_attn");
    CHECK(j["params"]["causal"] == false);
    const auto trace = json_of(run_tfx("trace '나는 학생 이다' --format json"))["matrices"]["enc1.self.weights"]["data"];
    REQUIRE(trace.size() == 4);
    CHECK(max_abs_difference(j["data"][2], trace[2]) < 1e-5);  // head 2 of 4, (3, 3)
    CHECK(max_abs_difference(j["data"][0], trace[0]) < 1e-5);
  }
  SUBCASE("--cross: the decoder's first cross-attention over the encoder's memory, as translate --decoder-layer 1 averages it") {
    const Run r = run_tfx("attention --sentence 'I am a student' --cross '나는 학생 이다' --format json");
    REQUIRE(r.code == 0);
    const auto j = json_of(r);
    CHECK(j["rows"] == nlohmann::json::array({"<bos>", "I", "am", "a", "student"}));
    const auto t = json_of(run_tfx("translate '나는 학생 이다' --decoder-layer 1 --format json"))["matrices"]["cross_attention"]["data"];
    CHECK(max_abs_difference(j["matrices"]["average_weights"]["data"], t) < 1e-5);
  }
  SUBCASE("English: the decoder's masked self-attention; the causal mask it was trained with is on") {
    const Run r = run_tfx("attention --sentence 'she drank coffee' --format json");
    REQUIRE(r.code == 0);
    const auto j = json_of(r);
    CHECK(j["params"]["causal"] == true);
    const auto& w = j["data"][1];  // head 1, (4, 4): <bos> she drank coffee
    REQUIRE(w.size() == 4);
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t k = i + 1; k < 4; ++k) CHECK(w[i][k].get<double>() == 0.0);
    CHECK(j["notes"].dump().find("the decoder was trained with it") != std::string::npos);
  }
  SUBCASE("--random, --seed or an unknown Korean word: seeded weights, and the note says why") {
    const auto random = json_of(run_tfx("attention --sentence '나는 학생 이다' --random --format json"));
    CHECK(random["params"].contains("seed"));
    CHECK(!random["params"].contains("weights"));
    const Run seeded = run_tfx("attention --sentence '나는 학생 이다' --seed 3");
    CHECK(seeded.out.find("(not the trained translator: --seed given)") != std::string::npos);
    const Run unknown = run_tfx("attention --sentence '나는 고양이 이다'");
    check_stdout(unknown, 0, "'고양이' not in the teaching translator's vocabulary");
    const Run english = run_tfx("attention --sentence 'the cat sat on the mat'");
    CHECK(english.out.find("trained translator") == std::string::npos);  // not its domain: no note
  }
}

TEST_CASE("cli: --show all shows X, W_Q/W_K/W_V, Q, K, V and every step, numbered from 1 (issue 24 §13)") {
  Run all = run_tfx("attention --sentence \"I love you\" --dk 4 --show all");
  REQUIRE(all.code == 0);
  // the numbered lines count 1, 2, 3, … with no gap, whatever is shown
  for (const std::string& args : {std::string("attention --sentence \"I love you\" --dk 4 --show all"),
                                  std::string("attention --sentence \"I love you\" --dk 4"),
                                  std::string("attention --sentence \"I love you\" --dk 4 --show weights"),
                                  std::string("attention --sentence \"I love you\" --dk 4 --heads 2 --show all")}) {
    Run r = run_tfx(args);
    REQUIRE(r.code == 0);
    std::istringstream in(r.out);
    int expect = 1;
    for (std::string line; std::getline(in, line);) {
      const auto dot = line.find(". ");
      if (dot == std::string::npos || dot == 0 || dot > 3 || line.find_first_not_of("0123456789") != dot) continue;
      CHECK_MESSAGE(std::stoi(line.substr(0, dot)) == expect, args, ": ", line);
      ++expect;
    }
    CHECK_MESSAGE(expect > 1, args);
  }
  for (const char* name : {"X: one row", "W_Q [64, 4]", "W_K [64, 4]", "W_V [64, 4]", "Q: one row", "K: one row", "V: one row", "scores = QKᵀ",
                           "weights = softmax"})
    CHECK_MESSAGE(all.out.find(name) != std::string::npos, name);
  // Q = X·W_Q, checked from the shown matrices
  nlohmann::json j = json_of(run_tfx("attention --sentence \"I love you\" --dk 4 --show x,w,q --format json"));
  REQUIRE(j["name"] == "x");  // the first matrix shown is the data when weights and output are not
  const auto& x = j["data"];
  const auto& wq = j["matrices"]["w_q"]["data"];
  const auto& q = j["matrices"]["q"]["data"];
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t c = 0; c < 4; ++c) {
      double s = 0;
      for (std::size_t d = 0; d < 64; ++d) s += x[t][d].get<double>() * wq[d][c].get<double>();
      CHECK(q[t][c].get<double>() == doctest::Approx(s).epsilon(1e-5));
    }
  // with --q/--k/--v there is no X or W: all shows what there is; x alone is an error
  const std::string dir = std::string(TFX_SOURCE_DIR) + "/samples/attention/";
  const std::string qkv = "attention --q " + shell_quote(dir + "q.csv") + " --k " + shell_quote(dir + "k.json") + " --v " + shell_quote(dir + "v.npy");
  CHECK(run_tfx(qkv + " --show all").code == 0);
  CHECK(run_tfx(qkv + " --show x").code == 2);
}

TEST_CASE("cli: --rope rotates Q and K by position (never V): same content, scores depend only on j − i (issue 24 §3)") {
  TempDir t;
  // six tokens with the same content: without positions every score is the same
  std::string csv = ",a,b,c,d,e,f\n";
  for (int i = 0; i < 6; ++i) csv += "w" + std::to_string(i) + ",0.3,-1.2,0.8,0.5,-0.4,1.1\n";
  write_file(t / "x.csv", csv);
  nlohmann::json plain = json_of(run_tfx("attention --x x.csv --dk 4 --show scores --format json", t.path));
  nlohmann::json rope = json_of(run_tfx("attention --x x.csv --dk 4 --rope --show q,k,scores --format json", t.path));
  const auto& s0 = plain["data"];
  const auto& s = rope["matrices"]["scores"]["data"];
  bool varies = false;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      CHECK(s0[i][j].get<double>() == doctest::Approx(s0[0][0].get<double>()).epsilon(1e-5));
      // RoPE: q_i·k_j = f(j − i) for the same content
      if (i + 1 < 6 && j + 1 < 6) CHECK(s[i][j].get<double>() == doctest::Approx(s[i + 1][j + 1].get<double>()).epsilon(1e-4));
      varies = varies || std::abs(s[i][j].get<double>() - s[0][0].get<double>()) > 1e-3;
    }
  CHECK(varies);
  // Q after = each pair of Q before rotated by θ = pos · 10000^(−2j/4), by hand
  REQUIRE(rope["name"] == "q_before_rope");  // the first matrix shown is the data
  const auto& qb = rope["data"];
  const auto& qa = rope["matrices"]["q"]["data"];
  for (int p = 0; p < 6; ++p)
    for (int j = 0; j < 2; ++j) {
      const double th = p * std::pow(10000.0, -2.0 * j / 4), a = qb[p][2 * j].get<double>(), b = qb[p][2 * j + 1].get<double>();
      CHECK(qa[p][2 * j].get<double>() == doctest::Approx(a * std::cos(th) - b * std::sin(th)).epsilon(1e-5));
      CHECK(qa[p][2 * j + 1].get<double>() == doctest::Approx(a * std::sin(th) + b * std::cos(th)).epsilon(1e-5));
    }
  // V is not rotated: identical rows of X give identical output rows
  nlohmann::json out = json_of(run_tfx("attention --x x.csv --dk 4 --rope --show output --format json", t.path));
  for (int i = 1; i < 6; ++i)
    for (std::size_t c = 0; c < out["data"][0].size(); ++c)
      CHECK(out["data"][i][c].get<double>() == doctest::Approx(out["data"][0][c].get<double>()).epsilon(1e-5));
  // an odd head width cannot be rotated in pairs
  Run odd = run_tfx("attention --x x.csv --dk 3 --rope", t.path);
  check_stderr(odd, 2, "--rope");
}
