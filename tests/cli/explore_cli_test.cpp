// End-to-end tests of the embedding explorers (similar, similarity, lookup, direction,
// eval-analogies, eval-similarity, project) on a small GloVe file written here with known
// geometry, on the built-in embedding, and on ../shared/data against numbers gensim printed;
// plus every bad input of the issue.
#include <nlohmann/json.hpp>

#include <cmath>
#include <numbers>

#include "helpers.hpp"

using namespace tfx::test;
using nlohmann::json;

namespace {

// Axes: royalty, gender (+male), person, fruit, plural. Every expected value below follows from
// these rows by hand.
const char* kGeo =
    "man 0 1 1 0 0\n"
    "woman 0 -1 1 0 0\n"
    "king 1 1 1 0 0\n"
    "queen 1 -1 1 0 0\n"
    "apple 0 0 0 1 0\n"
    "apples 0 0 0 1 1\n"
    "kings 1 1 1 0 1\n"
    "queens 1 -1 1 0 1\n";

struct Geo {
  TempDir dir;
  std::string emb;
  Geo() {
    write_file(dir / "geo.txt", kGeo);
    emb = " --no-cache --embeddings " + shell_quote((dir / "geo.txt").string());
  }
  std::string path(const std::string& name) const { return shell_quote((dir / name).string()); }
  // `tfx COMMAND NAME` with the geometry embedding, the file NAME written with `text` first.
  Run run_on(const std::string& command, const std::string& name, const std::string& text) const {
    write_file(dir / name, text);
    return run_tfx(command + " " + path(name) + emb);
  }
};

json run_json(const std::string& args) {
  Run r = run_tfx(args + " --format json");
  INFO(args << "\nstderr: " << r.err);
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

// Pearson's r written out, for expected values of tiny samples.
double hand_pearson(std::vector<double> x, std::vector<double> y) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / x.size(), my += y[i] / y.size();
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my);
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace

// ---- similar / similarity ----------------------------------------------------------------------

TEST_CASE("cli similar: neighbours of king on known geometry") {
  Geo g;
  // cos(king, kings) = 3/(√3·2) = √3/2, cos(king, man) = 2/(√3·√2) = √(2/3), cos(king, queen) = 1/3
  json j = run_json("similar king -k 3" + g.emb);
  REQUIRE(j["data"].size() == 3);
  CHECK(j["data"][0]["word"] == "kings");
  CHECK(j["data"][0]["cosine"].get<double>() == doctest::Approx(std::sqrt(3.0) / 2).epsilon(1e-6));
  CHECK(j["data"][1]["word"] == "man");
  CHECK(j["data"][1]["cosine"].get<double>() == doctest::Approx(std::sqrt(2.0 / 3)).epsilon(1e-6));
  CHECK(j["data"][2]["word"] == "queen");
  CHECK(j["data"][2]["cosine"].get<double>() == doctest::Approx(1.0 / 3).epsilon(1e-6));
  CHECK(j["data"][0]["rank"] == 1);
  // king + woman − man: the query words are excluded, queen is first
  json a = run_json("similar king woman --negative man -k 1" + g.emb);
  CHECK(a["data"][0]["word"] == "queen");
  Run csv = run_tfx("similar king -k 2 --format csv" + g.emb);
  CHECK(csv.out.starts_with("rank,word,cosine\n1,kings,0.866"));
}

TEST_CASE("cli similarity: cosine, dot, distance, angle and norms of king and queen") {
  Geo g;
  json j = run_json("similarity king queen" + g.emb);
  auto s = j["summary"];
  // king = (1,1,1,0,0), queen = (1,−1,1,0,0): dot 1, norms √3, cos 1/3, ‖k − q‖ = 2
  CHECK(s["dot"].get<double>() == doctest::Approx(1.0));
  CHECK(s["cosine"].get<double>() == doctest::Approx(1.0 / 3));
  CHECK(s["euclidean"].get<double>() == doctest::Approx(2.0));
  CHECK(s["norm1"].get<double>() == doctest::Approx(std::sqrt(3.0)));
  CHECK(s["angle_degrees"].get<double>() == doctest::Approx(std::acos(1.0 / 3) * 180 / std::numbers::pi));
  Run r = run_tfx("similarity king" + g.emb);
  CHECK(r.code == 2);
}

// ---- lookup -------------------------------------------------------------------------------------

TEST_CASE("cli lookup: two id lists give shape [2, 3, D] and the rows") {
  Geo g;
  json j = run_json("lookup --ids 0,2,5 --ids 1,3,7" + g.emb);
  CHECK(j["shape"] == json::array({2, 3, 5}));
  CHECK(j["data"][0][1] == json::array({1, 1, 1, 0, 0}));   // id 2 = king
  CHECK(j["data"][1][2] == json::array({1, -1, 1, 0, 1}));  // id 7 = queens
  CHECK(j["params"]["tokens"][0][2] == "apples");
  json one = run_json("lookup --ids 4" + g.emb);
  CHECK(one["shape"] == json::array({1, 5}));
  json w = run_json("lookup --words king queen" + g.emb);
  CHECK(w["shape"] == json::array({2, 5}));
  CHECK(w["rows"] == json::array({"king", "queen"}));
  Run t = run_tfx("lookup --ids 0,2,5 --ids 1,3,7" + g.emb);
  check_stdout(t, 0, "[2, 3, 5]");
}

TEST_CASE("cli lookup: built-in embedding works with no file") {
  Run r = run_tfx("lookup --words king,queen --table named-dims --format json", {}, "TFX_EMBEDDINGS=");
  REQUIRE(r.code == 0);
  json j = json::parse(r.out);
  CHECK(j["shape"][0] == 2);
}

TEST_CASE("cli lookup: bad ids") {
  Geo g;
  check_one_line_error(run_tfx("lookup --ids=-1,2" + g.emb), 2, "--ids");
  check_one_line_error(run_tfx("lookup --ids 0,a" + g.emb), 2, "'a' is not a non-negative integer");
  check_one_line_error(run_tfx("lookup --ids 1.5" + g.emb), 2);
  check_one_line_error(run_tfx("lookup --ids 0,8" + g.emb), 2, "valid ids are 0..7");
  check_one_line_error(run_tfx("lookup --ids 99999999999999999999999" + g.emb), 2);
  check_one_line_error(run_tfx("lookup --ids 0,1 --ids 2" + g.emb), 2, "same length");
  check_one_line_error(run_tfx("lookup" + g.emb), 2);
  Run oov = run_tfx("lookup --words kng" + g.emb);
  CHECK(oov.code != 0);
  CHECK(oov.err.find("kng") != std::string::npos);
}

// ---- direction ----------------------------------------------------------------------------------

TEST_CASE("cli direction: the plural direction is the plural axis") {
  Geo g;
  // d = mean(apples − apple, kings − king) = e_plural = (0,0,0,0,1)
  json j = run_json("direction --from apple,king --to apples,kings --words apple,apples,man,queens --top 2" + g.emb);
  CHECK(j["name"] == "direction");
  auto d = j["data"];
  CHECK(d[0]["word"] == "apple");
  CHECK(d[0]["dot"].get<double>() == doctest::Approx(0.0));
  CHECK(d[1]["dot"].get<double>() == doctest::Approx(1.0));
  CHECK(d[3]["dot"].get<double>() == doctest::Approx(1.0));
  CHECK(j["summary"]["direction_norm"].get<double>() == doctest::Approx(1.0));
  auto top = j["tables"]["top"];
  // apples, kings, queens score 1; ties go to the earlier row: apples (5), kings (6)
  CHECK(top[0]["word"] == "apples");
  CHECK(top[1]["word"] == "kings");
  CHECK(top[2]["end"] == "lowest");
  CHECK(top[2]["dot"].get<double>() == doctest::Approx(0.0));
  // --cosine: cos(d, apples) = 1/√2
  json c = run_json("direction --from apple --to apples --words apples --cosine" + g.emb);
  CHECK(c["data"][0]["cosine"].get<double>() == doctest::Approx(1 / std::sqrt(2.0)));
}

TEST_CASE("cli direction: the lecture's plural probe on the built-in embedding") {
  Run r = run_tfx("direction --from dog,cat,car --to dogs,cats,cars --words dog,dogs,apple,apples --format json", {},
                  "TFX_EMBEDDINGS=");
  REQUIRE(r.code == 0);
  json j = json::parse(r.out);
  auto d = j["data"];
  CHECK(d[0]["dot"].get<double>() < d[1]["dot"].get<double>());  // plur·E(dog) < plur·E(dogs)
  CHECK(d[2]["dot"].get<double>() < d[3]["dot"].get<double>());  // and for a word not in the pairs
}

TEST_CASE("cli direction: bad input") {
  Geo g;
  Run r = run_tfx("direction --from apple,king --to apples" + g.emb);
  check_stderr(r, 2, "same number");
  Run oov = run_tfx("direction --from apple --to pears" + g.emb);
  CHECK(oov.code != 0);
  CHECK(oov.err.find("--to") != std::string::npos);
  Run top = run_tfx("direction --from apple --to apples --top -3" + g.emb);
  CHECK(top.code == 2);
}

// ---- eval-analogies -----------------------------------------------------------------------------

namespace {
// Answers by hand (cosines to b̂ − â + ĉ over the rows not in the question):
//  man woman king queen:    queen 0.98, queens 0.85                         -> correct
//  king kings queen queens: queens 0.99, woman 0.75                         -> correct
//  apple apples king kings: kings 0.97, man 0.65                           -> correct
//  apple apples dog dogs:   dog is not in the table                         -> skipped (OOV)
//  man king woman apple:    queen 0.98 wins, not apple                      -> wrong
const char* kQuestions =
    ": family\n"
    "man woman king queen\n"
    "king kings queen queens\n"
    ": plural\n"
    "apple apples king kings\n"
    "apple apples dog dogs\n"
    "man king woman apple\n";
}  // namespace

TEST_CASE("cli eval-analogies: accuracy per section, total, OOV and errors on known geometry") {
  Geo g;
  write_file(g.dir / "q.txt", kQuestions);
  json j = run_json("eval-analogies " + g.path("q.txt") + " --errors 5" + g.emb);
  auto s = j["summary"];
  CHECK(s["questions"] == 5);
  CHECK(s["oov"] == 1);
  CHECK(s["oov_percent"].get<double>() == doctest::Approx(20.0));
  CHECK(s["correct"] == 3);
  CHECK(s["answered"] == 4);
  CHECK(s["accuracy"].get<double>() == doctest::Approx(0.75));
  CHECK(s["semantic_accuracy"].get<double>() == doctest::Approx(0.75));  // both sections are among the first five
  CHECK(s["syntactic_accuracy"].is_null());
  CHECK(j["name"] == "sections");  // the main table, at the top level
  auto sec = j["data"];
  CHECK(sec[0]["section"] == "family");
  CHECK(sec[0]["accuracy"].get<double>() == doctest::Approx(1.0));
  CHECK(sec[1]["correct"] == 1);
  CHECK(sec[1]["answered"] == 2);
  CHECK(sec[1]["oov_skipped"] == 1);
  auto err = j["tables"]["errors"];
  REQUIRE(err.size() == 1);
  CHECK(err[0]["line"] == 7);
  CHECK(err[0]["expected"] == "apple");
  CHECK(err[0]["predicted"] == "queen");
  // table output: the total line; no progress bar when stderr is not a terminal
  Run t = run_tfx("eval-analogies " + g.path("q.txt") + g.emb);
  check_stdout(t, 0, "Total accuracy: 75.0% (3/4)");
  CHECK(count_lines(t.err) == 1);  // only the skipped question's report (tests/batch_test.cpp)
  CHECK(t.err.rfind("tfx: skipped ", 0) == 0);
  // 3CosMul gives the same answers here; --restrict-vocab 4 leaves only man, woman, king, queen
  json m = run_json("eval-analogies " + g.path("q.txt") + " --method mul" + g.emb);
  CHECK(m["summary"]["correct"] == 3);
  json r4 = run_json("eval-analogies " + g.path("q.txt") + " --restrict-vocab 4" + g.emb);
  CHECK(r4["summary"]["answered"] == 1);
  CHECK(r4["summary"]["oov"] == 4);
  // --dummy4unknown (gensim): the OOV question counts as wrong: 3 of 5
  json d = run_json("eval-analogies " + g.path("q.txt") + " --dummy4unknown" + g.emb);
  CHECK(d["summary"]["answered"] == 5);
  CHECK(d["summary"]["accuracy"].get<double>() == doctest::Approx(0.6));
  Run csv = run_tfx("eval-analogies " + g.path("q.txt") + " --format csv" + g.emb);
  CHECK(csv.out.starts_with("section,correct,answered,accuracy,oov_skipped\nfamily,2,2,1,0\n"));
}

TEST_CASE("cli eval-analogies: blank lines, Windows line ends and case are accepted") {
  Geo g;
  std::string crlf;
  for (char c : std::string(kQuestions)) {
    if (c == '\n') crlf += "\r\n\r\n";  // CRLF and a blank line after every line
    else crlf += c;
  }
  write_file(g.dir / "crlf.txt", crlf);
  json j = run_json("eval-analogies " + g.path("crlf.txt") + g.emb);
  CHECK(j["summary"]["correct"] == 3);
  CHECK(j["data"][0]["section"] == "family");  // no '\r' in the name
  write_file(g.dir / "upper.txt", ": s\nMAN Woman KING queen\n");
  CHECK(run_json("eval-analogies " + g.path("upper.txt") + g.emb)["summary"]["correct"] == 1);
  Run cs = run_tfx("eval-analogies " + g.path("upper.txt") + " --case-sensitive --format json" + g.emb);
  check_stderr(cs, 1, "none of the 1 questions could be answered (line 2: 'MAN' is not among the first");  // its only question is out of vocabulary: none could be answered
}

TEST_CASE("cli eval-analogies: bad files and flags") {
  Geo g;
  Run three = g.run_on("eval-analogies", "three.txt", ": s\nman woman king\n");
  check_stderr(three, 1, "three.txt:2: expected a question of 4 words");
  CHECK(three.out.empty());
  Run skip = run_tfx("eval-analogies " + g.path("three.txt") + " --skip-invalid" + g.emb);
  CHECK(skip.code == 1);  // nothing left to evaluate
  Run nosec = g.run_on("eval-analogies", "nosec.txt", "man woman king queen\n");
  check_stderr(nosec, 1, "nosec.txt:1: question before the first section");
  Run empty = g.run_on("eval-analogies", "empty.txt", "");
  check_stderr(empty, 1, "no analogy questions");
  Run missing = run_tfx("eval-analogies " + g.path("nope.txt") + g.emb);
  check_stderr(missing, 1, "no such analogy file");
  Run dir = run_tfx("eval-analogies " + shell_quote(g.dir.path.string()) + g.emb);
  check_stderr(dir, 1, "is a directory");
  write_file(g.dir / "q.txt", kQuestions);
  Run zero = run_tfx("eval-analogies " + g.path("q.txt") + " --restrict-vocab 0" + g.emb);
  check_stderr(zero, 2, "--restrict-vocab");
  Run meth = run_tfx("eval-analogies " + g.path("q.txt") + " --method cos" + g.emb);
  CHECK(meth.code == 2);
  Run ic = run_tfx("eval-analogies " + g.path("q.txt") + " --ignore-case" + g.emb);
  CHECK(ic.code == 2);  // case folding is on by default here; --case-sensitive turns it off
  Run oov = g.run_on("eval-analogies", "alloov.txt", ": s\na b c d\n");  // nothing answered: an error, not "n/a"
  check_stderr(oov, 1, "none of the 1 questions could be answered");
  CHECK(oov.out.empty());
}

// ---- eval-similarity ----------------------------------------------------------------------------

TEST_CASE("cli eval-similarity: correlations and OOV ratio on known geometry") {
  Geo g;
  // cosines: king/queen 1/3, king/man √(2/3), king/apple 0; man/zebra is OOV
  write_file(g.dir / "p.tsv", "# word1\tword2\tscore\nking\tqueen\t5\nKing\tman\t8\nking\tapple\t1\nman\tzebra\t3\n");
  json j = run_json("eval-similarity " + g.path("p.tsv") + g.emb);
  auto s = j["summary"];
  CHECK(s["pairs"] == 4);
  CHECK(s["used"] == 3);
  CHECK(s["oov_percent"].get<double>() == doctest::Approx(25.0));
  CHECK(s["spearman"].get<double>() == doctest::Approx(1.0));
  CHECK(s["pearson"].get<double>() == doctest::Approx(hand_pearson({5, 8, 1}, {1.0 / 3, std::sqrt(2.0 / 3), 0})).epsilon(1e-6));
  // --dummy4unknown (gensim): man/zebra enters with cosine 0
  json d = run_json("eval-similarity " + g.path("p.tsv") + " --dummy4unknown" + g.emb);
  CHECK(d["summary"]["used"] == 4);
  CHECK(d["summary"]["pearson"].get<double>() ==
        doctest::Approx(hand_pearson({5, 8, 1, 3}, {1.0 / 3, std::sqrt(2.0 / 3), 0, 0})).epsilon(1e-6));
  json l = run_json("eval-similarity " + g.path("p.tsv") + " --list" + g.emb);
  CHECK(l["data"].size() == 4);
  CHECK(l["data"][3]["word2"] == "zebra");
  CHECK(l["data"][3]["cosine"].is_null());
  Run png = run_tfx("eval-similarity " + g.path("p.tsv") + " --png " + g.path("s.png") + g.emb);
  CHECK(png.code == 0);
  CHECK(read_file(g.dir / "s.png").starts_with("\x89PNG"));
}

TEST_CASE("cli eval-similarity: bad files") {
  Geo g;
  Run bad = g.run_on("eval-similarity", "bad.tsv", "king\tqueen\tvery\n");
  check_stderr(bad, 1, "bad.tsv:1: score \"very\" is not a number");
  Run two = g.run_on("eval-similarity", "two.tsv", "king\tqueen\n");
  check_stderr(two, 1, "two.tsv:1:");
  Run oov = g.run_on("eval-similarity", "oov.tsv", "cat\tdog\t5\n");
  check_stderr(oov, 1, "none of the 1 pairs");
  Run zero = run_tfx("eval-similarity " + g.path("bad.tsv") + " --restrict-vocab 0" + g.emb);
  CHECK(zero.code == 2);
}

// ---- project ------------------------------------------------------------------------------------

TEST_CASE("cli project: PCA axes of king, queen, man, woman are gender then royalty") {
  Geo g;
  // centred rows (royalty, gender): (±0.5, ±1): variance 4/3 along gender, 1/3 along royalty
  json j = run_json("project king queen man woman --arrows king:queen,man:woman" + g.emb);
  auto ratio = j["summary"]["explained_variance_ratio"];
  CHECK(ratio[0].get<double>() == doctest::Approx(0.8).epsilon(1e-5));
  CHECK(ratio[1].get<double>() == doctest::Approx(0.2).epsilon(1e-5));
  auto d = j["data"];
  CHECK(d[0]["word"] == "king");
  CHECK(std::abs(d[0]["pc1"].get<double>()) == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(std::abs(d[0]["pc2"].get<double>()) == doctest::Approx(0.5).epsilon(1e-5));
  CHECK(d[0]["pc1"].get<double>() == doctest::Approx(-d[1]["pc1"].get<double>()));  // queen opposite on gender
  auto off = j["tables"]["offsets"];
  // the two arrows are parallel: the same 2-D offset (0 along royalty, ∓2 along gender)
  CHECK(off[0]["d_pc1"].get<double>() == doctest::Approx(off[1]["d_pc1"].get<double>()).epsilon(1e-5));
  CHECK(std::abs(off[0]["d_pc1"].get<double>()) == doctest::Approx(2.0).epsilon(1e-5));
  CHECK(off[0]["d_pc2"].get<double>() == doctest::Approx(0.0).scale(1));
  Run png = run_tfx("project king queen man woman --arrows king:queen,man:woman --png" + g.emb, g.dir.path);
  check_stdout(png, 0, "wrote project_king_queen_man_woman.png");
  CHECK(read_file(g.dir / "project_king_queen_man_woman.png").starts_with("\x89PNG"));
  Run csv = run_tfx("project king queen man woman --format csv" + g.emb);
  CHECK(csv.out.starts_with("word,pc1,pc2\nking,"));
}

TEST_CASE("cli project: bad input") {
  Geo g;
  check_one_line_error(run_tfx("project king" + g.emb), 2, "at least 3 different words");
  check_one_line_error(run_tfx("project king king king" + g.emb), 2);
  check_one_line_error(run_tfx("project king queen zebra" + g.emb), 1, "zebra");
  check_one_line_error(run_tfx("project king queen man --arrows king" + g.emb), 2, "not FROM:TO");
  check_one_line_error(run_tfx("project king queen man --projection tsne" + g.emb), 2);
}

TEST_CASE("cli project: the built-in embedding's king/queen and man/woman offsets are parallel") {
  Run r = run_tfx("project --arrows king:queen,man:woman,boy:girl --format json", {}, "TFX_EMBEDDINGS=");
  REQUIRE(r.code == 0);
  auto off = json::parse(r.out)["tables"]["offsets"];
  const double ax = off[0]["d_pc1"], ay = off[0]["d_pc2"], bx = off[1]["d_pc1"], by = off[1]["d_pc2"];
  CHECK((ax * bx + ay * by) / std::hypot(ax, ay) / std::hypot(bx, by) > 0.95);
}

// ---- shared data vs gensim ----------------------------------------------------------------------

// The expected values were printed by gensim 4.2.0 (Debian python3-gensim) with
//   kv = KeyedVectors.load_word2vec_format('glove.6B.100d.top2604.txt', no_header=True)
//   kv.most_similar('king'); kv.evaluate_word_analogies('questions-words.txt')
//   kv.evaluate_word_pairs('wordsim353.tsv'); kv.evaluate_word_pairs('simlex999.txt')
// (and the same calls with dummy4unknown=True)
// and, for --method mul, evaluate_word_analogies with kv.most_similar replaced by
// most_similar_cosmul (gensim 4.2 ignores its similarity_function argument).
TEST_CASE("cli shared data: similar, eval-analogies and eval-similarity match gensim on GloVe 100d") {
  auto glove = shared_data("glove.6B.100d.top2604.txt");
  auto q = shared_data("questions-words.txt");
  auto ws = shared_data("wordsim353.tsv");
  auto sl = shared_data("simlex999.txt");
  if (glove.empty() || q.empty() || ws.empty() || sl.empty()) return;
  const std::string emb = " --no-cache --embeddings " + shell_quote(glove.string());

  json sim = run_json("similar king -k 10" + emb);
  const std::vector<std::pair<std::string, double>> gensim{
      {"prince", 0.7682328820228577}, {"queen", 0.7507690787315369},  {"son", 0.7020888328552246},
      {"brother", 0.6985775232315063}, {"kingdom", 0.6811409592628479}, {"father", 0.6802029013633728},
      {"ii", 0.6676074266433716},      {"henry", 0.6578148603439331},   {"charles", 0.6414701342582703},
      {"george", 0.63741534948349}};
  REQUIRE(sim["data"].size() == 10);
  for (std::size_t i = 0; i < 10; ++i) {
    CHECK(sim["data"][i]["word"] == gensim[i].first);
    CHECK(sim["data"][i]["cosine"].get<double>() == doctest::Approx(gensim[i].second).epsilon(1e-5));
  }

  // Total accuracy 804/1039 = 0.7738209817131858; semantic 136/191; 3CosMul 807/1039
  json ev = run_json("eval-analogies " + shell_quote(q.string()) + emb);
  CHECK(ev["summary"]["answered"] == 1039);
  CHECK(ev["summary"]["accuracy"].get<double>() == doctest::Approx(0.7738209817131858).epsilon(0.001 / 0.77));
  CHECK(ev["summary"]["questions"] == 19544);
  CHECK(ev["summary"]["semantic_accuracy"].get<double>() == doctest::Approx(136.0 / 191).epsilon(0.001));
  json mul = run_json("eval-analogies " + shell_quote(q.string()) + " --method mul" + emb);
  CHECK(mul["summary"]["accuracy"].get<double>() == doctest::Approx(807.0 / 1039).epsilon(0.001 / 0.77));
  // dummy4unknown=True: 804 correct, 18740 incorrect = 0.04113794514940647
  json dummy = run_json("eval-analogies " + shell_quote(q.string()) + " --dummy4unknown" + emb);
  CHECK(dummy["summary"]["answered"] == 19544);
  CHECK(dummy["summary"]["accuracy"].get<double>() == doctest::Approx(0.04113794514940647).epsilon(0.001 / 0.04));

  // wordsim353: pearson 0.655308461517998, spearman 0.6608904029047856, OOV 60.90651558073654 %
  json w = run_json("eval-similarity " + shell_quote(ws.string()) + emb);
  CHECK(w["summary"]["pearson"].get<double>() == doctest::Approx(0.655308461517998).epsilon(1e-5));
  CHECK(w["summary"]["spearman"].get<double>() == doctest::Approx(0.6608904029047856).epsilon(1e-5));
  CHECK(w["summary"]["oov_percent"].get<double>() == doctest::Approx(60.90651558073654));
  // dummy4unknown=True: pearson 0.12357870802674806, spearman 0.09832412988310948
  json wd = run_json("eval-similarity " + shell_quote(ws.string()) + " --dummy4unknown" + emb);
  CHECK(wd["summary"]["pearson"].get<double>() == doctest::Approx(0.12357870802674806).epsilon(1e-5));
  CHECK(wd["summary"]["spearman"].get<double>() == doctest::Approx(0.09832412988310948).epsilon(1e-5));
  // simlex999: pearson 0.256367611805076, spearman 0.2294553283198281, OOV 80.18018018018019 %
  json s = run_json("eval-similarity " + shell_quote(sl.string()) + emb);
  CHECK(s["summary"]["pearson"].get<double>() == doctest::Approx(0.256367611805076).epsilon(1e-5));
  CHECK(s["summary"]["spearman"].get<double>() == doctest::Approx(0.2294553283198281).epsilon(1e-5));
  CHECK(s["summary"]["oov_percent"].get<double>() == doctest::Approx(80.18018018018019));
}

TEST_CASE("cli shared data: eval-analogies on GloVe 50d matches gensim") {
  auto glove = shared_data("glove.6B.50d.top2446.txt");
  auto q = shared_data("questions-words.txt");
  if (glove.empty() || q.empty()) return;
  const std::string emb = " --no-cache --embeddings " + shell_quote(glove.string());
  // gensim: 646/961 = 0.6722164412070759 (3CosAdd), 633/961 = 0.6586888657648283 (3CosMul),
  // restrict_vocab=1000: 0.7432432432432432, case_insensitive=False: 0.5200729927007299
  json ev = run_json("eval-analogies " + shell_quote(q.string()) + emb);
  CHECK(ev["summary"]["answered"] == 961);
  CHECK(ev["summary"]["accuracy"].get<double>() == doctest::Approx(0.6722164412070759).epsilon(0.001 / 0.67));
  json mul = run_json("eval-analogies " + shell_quote(q.string()) + " --method mul" + emb);
  CHECK(mul["summary"]["accuracy"].get<double>() == doctest::Approx(0.6586888657648283).epsilon(0.001 / 0.66));
  json r = run_json("eval-analogies " + shell_quote(q.string()) + " --restrict-vocab 1000" + emb);
  CHECK(r["summary"]["accuracy"].get<double>() == doctest::Approx(0.7432432432432432).epsilon(0.001 / 0.74));
  json cs = run_json("eval-analogies " + shell_quote(q.string()) + " --case-sensitive" + emb);
  CHECK(cs["summary"]["accuracy"].get<double>() == doctest::Approx(0.5200729927007299).epsilon(0.001 / 0.52));
}
