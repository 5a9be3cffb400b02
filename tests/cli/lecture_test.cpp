// The lecture's worked examples (docs/tutorial.md), each run as the tutorial's one tfx command
// and checked against the number printed in the notes (../shared/seeds), a hand computation,
// or the corrected value where the notes are wrong (μ of "thinking" is 3.5, not 2.5).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <vector>

#include "helpers.hpp"

using nlohmann::json;
using namespace tfx::test;

namespace {

json run_json(const std::string& args, const std::filesystem::path& cwd = {}) {
  Run r = run_tfx(args + " --format json", cwd, "TFX_EMBEDDINGS=");
  INFO(args, " → ", r.err);
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("lecture: PE(0,0) = 0, PE(0,1) = 1, PE(1,2) = 0.00999983 for d_model = 4") {
  CHECK(run_json("pe --dim 4 --pos 0 --i 0")["summary"]["value"].get<double>() == doctest::Approx(0.0));
  CHECK(run_json("pe --dim 4 --pos 0 --i 1")["summary"]["value"].get<double>() == doctest::Approx(1.0));
  // the notes print 0.00999983
  CHECK(run_json("pe --dim 4 --pos 1 --i 2")["summary"]["value"].get<double>() ==
        doctest::Approx(0.00999983).epsilon(1e-6));
}

TEST_CASE("lecture: p0 and p1 for d = 8 are (sin 0, cos 0, …) and (sin 1, cos 1, sin 1/10, cos 1/10, …)") {
  json j = run_json("pe --len 2 --dim 8");
  REQUIRE(j["shape"] == json::array({2, 8}));
  for (int c = 0; c < 8; ++c) CHECK(j["data"][0][c].get<double>() == doctest::Approx(c % 2 ? 1.0 : 0.0));
  const double arg[4] = {1.0, 0.1, 0.01, 0.001};  // 1 / 10000^(2m/8)
  for (int m = 0; m < 4; ++m) {
    CHECK(j["data"][1][2 * m].get<double>() == doctest::Approx(std::sin(arg[m])).epsilon(1e-6));
    CHECK(j["data"][1][2 * m + 1].get<double>() == doctest::Approx(std::cos(arg[m])).epsilon(1e-6));
  }
}

TEST_CASE("lecture: nn.Embedding lookup of ids [[0,2,5],[0,99,24]] has shape [2, 3, 64]") {
  json j = run_json("lookup --ids 0,2,5 --ids 0,99,24");
  CHECK(j["summary"]["shape"] == json::array({2, 3, 64}));
}

TEST_CASE("lecture (note 002): nn.Embedding(50000, 512) as a seeded random table, looked up by ids") {
  json j = run_json("lookup --vocab-size 50000 --dim 512 --ids 0,2,5 --ids 0,99,24");
  REQUIRE(j["summary"]["shape"] == json::array({2, 3, 512}));
  const auto& d = j["data"];
  // id 0 in both sequences is the same row; ids 2 and 99 differ
  CHECK(d[0][0] == d[1][0]);
  CHECK(d[0][1] != d[1][1]);
  // the same row whatever else is looked up (a row depends only on seed and id)
  json one = run_json("lookup --vocab-size 50000 --dim 512 --ids 99");
  CHECK(one["data"][0] == d[1][1]);
  CHECK(run_json("lookup --vocab-size 50000 --dim 512 --ids 99 --seed 7")["data"][0] != one["data"][0]);
  // N(0, 1) entries as PyTorch initialises nn.Embedding: mean ≈ 0, variance ≈ 1 over 6 × 512 draws
  double sum = 0, sq = 0, n = 0;
  for (const auto& seq : d)
    for (const auto& row : seq)
      for (const auto& v : row) sum += v.get<double>(), sq += v.get<double>() * v.get<double>(), ++n;
  const double mean = sum / n, var = sq / n - mean * mean;
  CHECK(std::abs(mean) < 0.1);  // 5 standard errors of 1/√3072
  CHECK(std::abs(var - 1) < 0.15);
  // a table row too large for the memory budget is refused before anything is drawn or written
  TempDir t;
  Run big = run_tfx("lookup --vocab-size 10 --dim 16777216 --ids 0,1,2,3 -o big.npy", t.path, "TFX_MEMORY_LIMIT=64M");
  CHECK(big.code != 0);
  CHECK(big.err.find("TFX_MEMORY_LIMIT") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(t / "big.npy"));
  for (const char* bad : {"lookup --vocab-size 10 --dim 4 --ids 10", "lookup --vocab-size 10 --ids 1", "lookup --dim 4 --ids 1",
                          "lookup --vocab-size 10 --dim 4 --words king", "lookup --vocab-size 10 --dim 4 --ids 1,2 --ids 3"}) {
    Run r = run_tfx(bad);
    INFO(bad, " → ", r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("lecture (notes 000, 001, 004): pe add — e′ = e + p from lookup's rows and pe's rows; ‖p‖ = √(D/2); √d_model scaling") {
  json a = run_json("pe add --sentence \"I love you\"");
  json e = run_json("lookup --words i,love,you --table named-dims");
  json p = run_json("pe --len 3 --dim 64 --full");
  const auto& sum = a["data"];
  REQUIRE(sum.size() == 3);
  REQUIRE(sum[0].size() == 64);
  for (int t = 0; t < 3; ++t) {
    double ee = 0, ep = 0, pp = 0;
    for (int d = 0; d < 64; ++d) {
      const double ev = e["data"][t][d].get<double>(), pv = p["data"][t][d].get<double>();
      CHECK(sum[t][d].get<double>() == doctest::Approx(ev + pv).epsilon(1e-6));
      ee += ev * ev, ep += ev * pv, pp += pv * pv;
    }
    const auto& row = a["tables"]["norms"][t];
    CHECK(row["‖p‖"].get<double>() == doctest::Approx(std::sqrt(32.0)).epsilon(1e-6));
    CHECK(row["‖e‖"].get<double>() == doctest::Approx(std::sqrt(ee)).epsilon(1e-6));
    CHECK(row["‖√D·e‖"].get<double>() == doctest::Approx(8 * std::sqrt(ee)).epsilon(1e-6));
    CHECK(row["cos(e, e + p)"].get<double>() == doctest::Approx((ee + ep) / (std::sqrt(ee) * std::sqrt(ee + 2 * ep + pp))).epsilon(1e-6));
    const double s = 8;  // √64
    CHECK(row["cos(√D·e, √D·e + p)"].get<double>() ==
          doctest::Approx((s * ee + ep) / (std::sqrt(ee) * std::sqrt(s * s * ee + 2 * s * ep + pp))).epsilon(1e-6));
    // the scaling keeps more of e's direction
    CHECK(row["cos(√D·e, √D·e + p)"].get<double>() > row["cos(e, e + p)"].get<double>());
  }
  CHECK(a["rows"] == json::array({"I", "love", "you"}));
  // --scale-embedding: the sum is 8·e + p
  json b = run_json("pe add --sentence \"I love you\" --scale-embedding");
  CHECK(b["data"][1][5].get<double>() ==
        doctest::Approx(8 * e["data"][1][5].get<double>() + p["data"][1][5].get<double>()).epsilon(1e-5));
}

TEST_CASE("lecture (note 001 fig. 3): project --components 3 — coordinates on three principal components") {
  json three = run_json("project king queen man woman kings queens --components 3");
  json two = run_json("project king queen man woman kings queens");
  REQUIRE(three["data"].size() == 6);
  const auto& d3 = three["data"];
  double var[3] = {0, 0, 0}, cov01 = 0, cov02 = 0, cov12 = 0, mean[3] = {0, 0, 0};
  for (const auto& row : d3)
    for (int c = 0; c < 3; ++c) mean[c] += row["pc" + std::to_string(c + 1)].get<double>() / 6;
  for (const auto& row : d3) {
    const double a = row["pc1"].get<double>(), b = row["pc2"].get<double>(), c = row["pc3"].get<double>();
    var[0] += a * a, var[1] += b * b, var[2] += c * c, cov01 += a * b, cov02 += a * c, cov12 += b * c;
  }
  // centred, uncorrelated, variance decreasing — principal components, checked from the coordinates alone
  for (double m : mean) CHECK(std::abs(m) < 1e-5);
  CHECK(std::abs(cov01) < 1e-4 * var[0]);
  CHECK(std::abs(cov02) < 1e-4 * var[0]);
  CHECK(std::abs(cov12) < 1e-4 * var[0]);
  CHECK(var[0] >= var[1]);
  CHECK(var[1] >= var[2]);
  CHECK(var[2] > 0);
  // the first two agree with the 2-D projection up to each axis's sign
  for (std::size_t i = 0; i < 6; ++i)
    for (const char* pc : {"pc1", "pc2"})
      CHECK(std::abs(d3[i][pc].get<double>()) == doctest::Approx(std::abs(two["data"][i][pc].get<double>())).epsilon(1e-4));
  TempDir t;
  Run fig = run_tfx("project king queen man woman kings queens --components 3 --azimuth -60,30 --png p.png", t.path, "TFX_EMBEDDINGS=");
  CHECK(fig.code == 0);
  CHECK(std::filesystem::file_size(t / "p.png") > 1000);
  for (const char* bad : {"project king queen man --components 3", "project king queen man woman --components 4",
                          "project king queen man woman --components 3 --azimuth x", "project king queen man woman --components 3 --azimuth 1,2,3,4,5"}) {
    Run r = run_tfx(bad, {}, "TFX_EMBEDDINGS=");
    INFO(bad, " → ", r.err);
    CHECK(r.code == 2);
  }
}

TEST_CASE("lecture: king − man + woman = queen, paris − france + germany = berlin (built-in)") {
  CHECK(run_json("analogy king man woman")["data"][0]["word"] == "queen");
  CHECK(run_json("analogy paris france germany")["data"][0]["word"] == "berlin");
}

TEST_CASE("lecture (note 001, Korean): 왕 − 남자 + 여자 = 여왕, and the English analogy stays queen") {
  CHECK(run_json("analogy 왕 남자 여자")["data"][0]["word"] == "여왕");
  CHECK(run_json("analogy king man woman")["data"][0]["word"] == "queen");
  // the plural direction in Korean: 개들 scores far above 개, as dogs above dog
  json d = run_json("direction --from 개,고양이 --to 개들,고양이들 --words 개,개들");
  CHECK(d["data"][1]["dot"].get<double>() > d["data"][0]["dot"].get<double>() + 3);
}

TEST_CASE("lecture: the plural direction, plur·E(dog) = −1.13 and plur·E(dogs) = 3.40") {
  json d = run_json("direction --from dog,cat,car --to dogs,cats,cars --words dog,dogs,apple,apples")["data"];
  REQUIRE(d.size() == 4);
  // the notes' (3Blue1Brown's) numbers; the built-in plural axis is scaled to give them, up to the
  // noise of the construction, to the two decimals the notes print
  CHECK(d[0]["dot"].get<double>() == doctest::Approx(-1.13).epsilon(0.002));
  CHECK(d[1]["dot"].get<double>() == doctest::Approx(3.40).epsilon(0.002));
  // same sign pattern for a pair that did not build the direction
  CHECK(d[2]["dot"].get<double>() < 0.0);
  CHECK(d[3]["dot"].get<double>() > 3.0);
  // and every number is the dot product with plur = mean(E(dogs) − E(dog), E(cats) − E(cat),
  // E(cars) − E(car)), computed here from the vectors `tfx lookup` returns
  json v = run_json("lookup --words dog,dogs,cat,cats,car,cars,apple,apples --table named-dims")["data"];
  REQUIRE(v.size() == 8);
  const std::size_t D = v[0].size();
  std::vector<double> plur(D);
  for (std::size_t j = 0; j < D; ++j)
    for (int p = 0; p < 3; ++p) plur[j] += (v[2 * p + 1][j].get<double>() - v[2 * p][j].get<double>()) / 3.0;
  auto dot_with = [&](std::size_t w) {
    double s = 0;
    for (std::size_t j = 0; j < D; ++j) s += plur[j] * v[w][j].get<double>();
    return s;
  };
  const std::size_t rows[4] = {0, 1, 6, 7};  // dog, dogs, apple, apples
  for (std::size_t i = 0; i < 4; ++i) CHECK(d[i]["dot"].get<double>() == doctest::Approx(dot_with(rows[i])).epsilon(1e-5));
  // plur·E(dogs) − plur·E(dog) = plur·(E(dogs) − E(dog)): the pair's own difference along plur
  CHECK(d[1]["dot"].get<double>() - d[0]["dot"].get<double>() > 0.5 * std::inner_product(plur.begin(), plur.end(), plur.begin(), 0.0));
}

TEST_CASE("lecture: layer norm of thinking (4,2,3,5) and machines (2,1,-3,2)") {
  json j = run_json("layernorm");
  auto st = j["tables"]["stats"];
  REQUIRE(st.size() == 2);
  CHECK(st[0]["mean μ"].get<double>() == doctest::Approx(3.5));  // (4+2+3+5)/4; the notes' 2.5 is a slip
  CHECK(st[0]["std σ"].get<double>() == doctest::Approx(std::sqrt(1.25)));
  CHECK(st[1]["mean μ"].get<double>() == doctest::Approx(0.5));   // the notes' μ = 0.5
  CHECK(st[1]["std σ"].get<double>() == doctest::Approx(2.06).epsilon(0.002));  // the notes' σ = 2.06
  // y = γ x̂ + β with the notes' lines y = 3x+1, x+1, −x, −2x+2; x̂ of thinking = (0.5,−1.5,−0.5,1.5)/√1.25
  const double s = std::sqrt(1.25);
  const double y0[4] = {3 * 0.5 / s + 1, -1.5 / s + 1, 0.5 / s, -2 * 1.5 / s + 2};
  for (int c = 0; c < 4; ++c) CHECK(j["data"][0][c].get<double>() == doctest::Approx(y0[c]).epsilon(1e-4));
}

TEST_CASE("lecture: the warm-up learning rate peaks at 512^-0.5 · 4000^-0.5 = 6.99e-4") {
  json j = run_json("lr --step 4000");
  CHECK(j["summary"]["lr_warmup4000"].get<double>() == doctest::Approx(1.0 / std::sqrt(512.0 * 4000.0)));
  // rising linearly before the warm-up ends: step 1000 is a quarter of the peak
  json q = run_json("lr --step 1000");
  CHECK(q["summary"]["lr_warmup4000"].get<double>() == doctest::Approx(0.25 / std::sqrt(512.0 * 4000.0)));
}

TEST_CASE("lecture: attention weights k1 → 0.2, k2 → 0.8 and the weighted average of the values") {
  TempDir t;
  write_file(t / "q.csv", "1,0\n");
  write_file(t / "k.csv", "0,0\n1.3862944,0\n");  // scores differ by ln 4
  write_file(t / "v.csv", "1,0\n0,1\n");
  json j = run_json("attention --no-scale --q q.csv --k k.csv --v v.csv", t.path);
  CHECK(j["data"][0][0].get<double>() == doctest::Approx(0.2).epsilon(1e-6));
  CHECK(j["data"][0][1].get<double>() == doctest::Approx(0.8).epsilon(1e-6));
  CHECK(j["matrices"]["output"]["data"][0][1].get<double>() == doctest::Approx(0.8).epsilon(1e-6));
}

TEST_CASE("lecture: softmax of the scores [0, -11, 7] with and without the 1/10 = 1/√100 scale") {
  TempDir t;
  write_file(t / "q.csv", "1\n");
  write_file(t / "k.csv", "0\n-11\n7\n");
  const double z = 1 + std::exp(-11.0) + std::exp(7.0);
  json j = run_json("attention --no-scale --q q.csv --k k.csv --v k.csv", t.path);
  CHECK(j["data"][0][2].get<double>() == doctest::Approx(std::exp(7.0) / z).epsilon(1e-6));
  json s = run_json("attention --no-scale --temperature 10 --q q.csv --k k.csv --v k.csv", t.path);
  const double zs = 1 + std::exp(-1.1) + std::exp(0.7);
  CHECK(s["data"][0][0].get<double>() == doctest::Approx(1 / zs).epsilon(1e-5));
  CHECK(s["data"][0][2].get<double>() == doctest::Approx(std::exp(0.7) / zs).epsilon(1e-5));
}

TEST_CASE("lecture: tfx softmax 1,1,0.8,0.7 and 0,-11,7 --temperature 1,10, against e^x / Σ e^x in double") {
  // the note's scores: probabilities, their exponentials (shifted by the largest) and the sum
  json j = run_json("softmax 1,1,0.8,0.7");
  const double x[4] = {1, 1, 0.8, 0.7};
  double z = 0;
  for (double v : x) z += std::exp(v);
  REQUIRE(j["data"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    CHECK(j["data"][i]["softmax"].get<double>() == doctest::Approx(std::exp(x[i]) / z).epsilon(1e-6));
    CHECK(j["data"][i]["e^(x/T − m)"].get<double>() == doctest::Approx(std::exp(x[i] - 1.0)).epsilon(1e-12));
  }
  CHECK(j["data"][0]["softmax"].get<double>() == doctest::Approx(0.2809).epsilon(1e-3));  // 2.718 / 9.676
  // σ = 10 scores: peaked at T = 1 (0.99909 on 7), moderate after dividing by √d_k = 10
  json t = run_json("softmax 0,-11,7 --temperature 1,10");
  const json& p = t["data"];  // the probabilities matrix: one row per temperature
  REQUIRE(p.size() == 2);
  const double z1 = 1 + std::exp(-11.0) + std::exp(7.0), z10 = 1 + std::exp(-1.1) + std::exp(0.7);
  CHECK(p[0][2].get<double>() == doctest::Approx(std::exp(7.0) / z1).epsilon(1e-6));
  CHECK(p[0][1].get<double>() == doctest::Approx(std::exp(-11.0) / z1).epsilon(1e-3));
  CHECK(p[1][0].get<double>() == doctest::Approx(1 / z10).epsilon(1e-6));
  CHECK(p[1][1].get<double>() == doctest::Approx(std::exp(-1.1) / z10).epsilon(1e-6));
  CHECK(p[1][2].get<double>() == doctest::Approx(std::exp(0.7) / z10).epsilon(1e-6));
  // the figure's title names the temperatures as numbers (it printed the flag's words, ["1,10"])
  const Run svg = run_tfx("softmax 0,-11,7 --temperature 1,10 --format svg");
  CHECK(has(svg.out, "softmax of 0,-11,7 at temperatures 1, 10<"));
  // a huge score does not overflow: the shifted exponentials stay finite
  json big = run_json("softmax 1000,999,0");
  CHECK(big["data"][0]["softmax"].get<double>() == doctest::Approx(1 / (1 + std::exp(-1.0))).epsilon(1e-6));
  // bad input: one line, exit 2
  for (const char* bad : {"softmax 1,x,3", "softmax 1,2 --temperature 0", "softmax 1,2 --temperature -1", "softmax 1,nan",
                          "softmax 1,2 --labels a", "softmax ,"}) {
    Run r = run_tfx(bad);
    INFO(bad, " → ", r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("lecture: tfx pe curves --dims 4,5,6,7 — the PE matrix's columns over positions, as sin/cos(p / 10000^(2m/D))") {
  json c = run_json("pe curves --len 100 --dim 20 --dims 4,5,6,7");
  json m = run_json("pe --len 100 --dim 20 --full");
  REQUIRE(c["shape"] == json::array({100, 4}));
  const int dims[4] = {4, 5, 6, 7};
  for (int p = 0; p < 100; ++p)
    for (int k = 0; k < 4; ++k) {
      const int d = dims[k];
      const double a = p / std::pow(10000.0, (d - d % 2) / 20.0);
      CHECK(c["data"][p][k].get<double>() == doctest::Approx(d % 2 ? std::cos(a) : std::sin(a)).epsilon(1e-6));
      CHECK(c["data"][p][k].get<double>() == doctest::Approx(m["data"][p][d].get<double>()).epsilon(1e-6));
    }
  // dim 4's wavelength 2π·10000^(4/20) ≈ 39.64 positions
  CHECK(c["tables"]["wavelengths"][0]["wavelength 2π/ω"].get<double>() == doctest::Approx(2 * M_PI * std::pow(10000.0, 0.2)));
  Run bad = run_tfx("pe curves --dim 4 --dims 4");
  check_stderr(bad, 2, "--dims 4");
}

TEST_CASE("lecture (note 004): pe sim --metric euclidean — equal offsets, equal distances, ‖PE(i) − PE(j)‖ by hand") {
  const int L = 12, D = 16;
  json j = run_json("pe sim --len 12 --dim 16 --metric euclidean");
  auto pe = [&](int p, int c) {
    const double a = p / std::pow(10000.0, (c - c % 2) / static_cast<double>(D));
    return c % 2 ? std::cos(a) : std::sin(a);
  };
  for (int i = 0; i < L; ++i)
    for (int k = 0; k < L; ++k) {
      double d2 = 0;
      for (int c = 0; c < D; ++c) d2 += (pe(i, c) - pe(k, c)) * (pe(i, c) - pe(k, c));
      CHECK(j["data"][i][k].get<double>() == doctest::Approx(std::sqrt(d2)).epsilon(1e-4));
      // the same offset gives the same distance, wherever it starts
      if (i + 3 < L && k + 3 < L)
        CHECK(j["data"][i][k].get<double>() == doctest::Approx(j["data"][i + 3][k + 3].get<double>()).epsilon(1e-4));
    }
  // figure-only path (block means from the closed form) for an L too large to form
  TempDir t;
  Run big = run_tfx("pe sim --len 40000 --dim 64 --metric euclidean --png big.png", t.path);
  CHECK(big.code == 0);
  CHECK(std::filesystem::file_size(t / "big.png") > 1000);
}

TEST_CASE("lecture: Var(q·k) = d_k — 2 for d_k = 2, 100 (σ = 10) for d_k = 100") {
  json d = run_json("attention variance --dk 2,100")["data"];
  REQUIRE(d.size() == 2);
  // 10000 samples: the sample variance is within a few percent of d_k
  CHECK(d[0]["var(q·k)"].get<double>() == doctest::Approx(2.0).epsilon(0.06));
  CHECK(d[1]["var(q·k)"].get<double>() == doctest::Approx(100.0).epsilon(0.06));
  CHECK(d[1]["var(q·k/√d_k)"].get<double>() == doctest::Approx(1.0).epsilon(0.06));
}

TEST_CASE("lecture: RoPE angle table θ(pos, j) = pos / 10000^(2j/d) for d = 8") {
  json j = run_json("rope --len 4 --dim 8 --what theta");
  REQUIRE(j["shape"] == json::array({4, 4}));
  const double inv[4] = {1.0, 0.1, 0.01, 0.001};
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < 4; ++c) CHECK(j["data"][p][c].get<double>() == doctest::Approx(p * inv[c]).epsilon(1e-6));
}

TEST_CASE("lecture: ViT patch embedding [1,3,224,224] → [1,768,14,14] → [1,768,196] → [1,196,768]") {
  json j = run_json("patches");
  auto rows = j["data"];
  REQUIRE(rows.size() == 7);
  // the notes' shapes, step by step (Conv2d route)
  CHECK(rows[0]["shape"] == "[1, 3, 224, 224]");
  CHECK(rows[1]["shape"] == "[1, 768, 14, 14]");
  CHECK(rows[2]["shape"] == "[1, 768, 196]");
  CHECK(rows[3]["shape"] == "[1, 196, 768]");
  // unfold route: each patch is 3·16·16 = 768 numbers
  CHECK(rows[4]["shape"] == "[1, 768, 196]");
  CHECK(rows[6]["shape"] == "[1, 196, 768]");
  CHECK(j["summary"]["tokens"] == 196);
  CHECK(j["summary"]["parameters"] == 768 * 3 * 16 * 16 + 768);
  // not a multiple of the patch: PyTorch's floor((H − P)/P) + 1 = 7 for 230/32
  json odd = run_json("patches --image-height 230 --image-width 100 --patch 32 --d-model 8");
  CHECK(odd["summary"]["grid"] == json::array({7, 3}));
}

TEST_CASE("lecture: tfx patches bad input") {
  Run big = run_tfx("patches --image 8 --patch 16");
  check_stderr(big, 2, "--patch 16");
  CHECK(run_tfx("patches --patch 0").code == 2);
  CHECK(run_tfx("patches --image -3").code == 2);
  CHECK(run_tfx("patches --d-model x").code == 2);
  CHECK(big.err.rfind("tfx: error:", 0) == 0);
  // the largest accepted sizes only multiply counts, nothing is allocated
  Run huge = run_tfx("patches --image 16777216 --patch 1 --d-model 16777216 --channels 16777216 --format json");
  CHECK(huge.code == 0);
}

TEST_CASE("lecture: tfx patches numbers its patches one way: the CSV/JSON rows and the figure's tags 0 … N − 1") {
  TempDir dir;
  const std::string picture = (std::filesystem::path(TFX_SOURCE_DIR) / "tests" / "data" / "hf_models" / "vit" / "picture.png").string();
  // a 64×64 picture in 16×16 patches: N = 16, numbered 0 … 15 as F.unfold's rows and the ViT tokens 1 … 16
  const Run csv = run_tfx("patches --image '" + picture + "' --image-height 64 --image-width 64 --patch 16 --format csv", dir.path);
  REQUIRE(csv.code == 0);
  std::vector<std::string> labels;
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) labels.push_back(line.substr(0, line.find(',')));
  REQUIRE(labels.size() == 16);
  CHECK(labels.front() == "0");
  CHECK(labels.back() == "15");
  const json j = run_json("patches --image '" + picture + "' --image-height 64 --image-width 64 --patch 16");
  CHECK(j["rows"].front() == "0");  // the primary matrix: the patches
  CHECK(j["rows"].back() == "15");
  REQUIRE(run_tfx("patches --image '" + picture + "' --image-height 64 --image-width 64 --patch 16 --svg p.svg", dir.path).code == 0);
  const std::string svg = read_file(dir.path / "p.svg");
  CHECK(has(svg, ">0<"));
  CHECK(has(svg, ">15<"));
  CHECK_FALSE(has(svg, ">16<"));
}
