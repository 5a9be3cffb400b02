// `tfx trace --slides DIR`: one 16:9 slide per step drawn (1920×1080 at --scale 1, twice that at
// --scale 2), named in order after the poster, every file whole (no temporaries), tick labels at
// least 18 px on the slide, the tokens slide showing the ids the translator itself reports, and
// the folder refused when it is a file.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <set>

#include "helpers.hpp"
#include "png.hpp"

using namespace tfx::test;

namespace {

const std::vector<std::string> kSlideNames = {
    "00-poster",      "00a-poster",     "00b-poster",        "00c-poster",      "00d-poster", "00e-poster", "01-tokens",      "02-embedding",      "03-pe",           "04-x",     "05-q",
    "06-k",           "07-v",           "08-scores",         "09-softmax",      "10-z",     "11-concat",
    "12-add-norm",    "13-ffn",         "14-ffn-norm",       "15-memory",       "16-decoder-input",
    "17-masked-scores", "18-masked-softmax", "19-cross-attention", "20-next-token"};

std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename().string());
  return {names.begin(), names.end()};
}

std::vector<std::string> with_ext(const std::string& ext) {
  std::vector<std::string> v;
  for (const auto& n : kSlideNames) v.push_back(n + ext);
  return v;
}

}  // namespace

TEST_CASE("trace --slides: 00-poster, its 16:9 parts 00a … 00e, then 01-tokens … 20-next-token, each slide 1920×1080 PNG") {
  TempDir dir;
  const Run r = run_tfx("trace '나는 학생 이다' --slides deck/new", dir.path);  // created, parents too
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out == "wrote 26 slides to deck/new (00-poster.png … 20-next-token.png, 1920×1080)\n");
  CHECK(r.err.empty());
  const auto deck = dir.path / "deck" / "new";
  CHECK(files_in(deck) == with_ext(".png"));  // the names, in order, and nothing else (no temporaries)
  for (const std::string& name : kSlideNames) {
    CAPTURE(name);
    const Decoded d = decode_png(read_file(deck / (name + ".png")));
    if (name == "00-poster") {
      CHECK(d.w > 1920);  // the poster: every step on one page, at its own size
    } else {
      CHECK(d.w == 1920);
      CHECK(d.h == 1080);
    }
  }
  // again into the same folder: the files are replaced, nothing added
  REQUIRE(run_tfx("trace '나는 학생 이다' --slides deck/new", dir.path).code == 0);
  CHECK(files_in(deck) == with_ext(".png"));
}

TEST_CASE("trace --slides --slides-format svg: 1920×1080 pages at scale 1, 3840×2160 at 2, tick labels ≥ 18 px") {
  TempDir dir;
  REQUIRE(run_tfx("trace '나는 학생 이다' --slides one --slides-format svg", dir.path).code == 0);
  REQUIRE(run_tfx("trace '나는 학생 이다' --slides two --slides-format svg --scale 2", dir.path).code == 0);
  CHECK(files_in(dir.path / "one") == with_ext(".svg"));
  const std::regex size_re(R"re(<svg [^>]*width="([0-9.]+)" height="([0-9.]+)" viewBox="0 0 ([0-9.]+) ([0-9.]+)")re");
  const std::regex font_re(R"re(font-size="([0-9.]+)")re");
  for (std::size_t k = 1; k < kSlideNames.size(); ++k) {
    const bool poster_part = kSlideNames[k].rfind("00", 0) == 0;  // four steps on one page: smaller text
    for (const char* sub : {"one", "two"}) {
      const double scale = std::string(sub) == "two" ? 2 : 1;
      CAPTURE(kSlideNames[k]);
      CAPTURE(sub);
      const std::string svg = read_file(dir.path / sub / (kSlideNames[k] + ".svg"));
      std::smatch m;
      REQUIRE(std::regex_search(svg, m, size_re));
      const double w = std::stod(m[1]), h = std::stod(m[2]), vw = std::stod(m[3]);
      CHECK(w == 1920 * scale);
      CHECK(h == 1080 * scale);
      // every text on the slide (tick labels, axis labels, titles, cell values) at ≥ 18 px per scale unit
      double smallest = 1e9;
      for (auto it = std::sregex_iterator(svg.begin(), svg.end(), font_re); it != std::sregex_iterator(); ++it)
        smallest = std::min(smallest, std::stod((*it)[1]) * w / vw / scale);
      CHECK(smallest >= (poster_part ? 11 : 18));
      CHECK(smallest < 1e9);
    }
  }
  // the tokens slide shows each token over the id the translator itself reports for it
  const nlohmann::json t = json_of(run_tfx("translate '나는 학생 이다' --format json"));
  const std::string tokens = read_file(dir.path / "one" / "01-tokens.svg");
  for (const auto& word : {"나는", "학생", "이다"}) CHECK(has(tokens, std::string(">") + word + "<"));
  REQUIRE(t["summary"]["source_ids"].size() == 3);
  for (const auto& id : t["summary"]["source_ids"]) CHECK(has(tokens, ">" + std::to_string(id.get<int>()) + "<"));
}

TEST_CASE("trace --slides: a file where the folder should be is refused, nothing written") {
  TempDir dir;
  write_file(dir.path / "taken", "not a folder");
  check_one_line_error(run_tfx("trace '나는 학생 이다' --slides taken", dir.path), 1,
                       "--slides taken: is a file, expected a folder");
  CHECK(read_file(dir.path / "taken") == "not a folder");
  check_one_line_error(run_tfx("trace '나는 학생 이다' --slides ''", dir.path), 2, "--slides '': the files go into a folder");
  check_one_line_error(run_tfx("trace '나는 학생 이다' --slides s --slides-format gif", dir.path), 2, "--slides-format");
  CHECK(!std::filesystem::exists(dir.path / "s"));
}

TEST_CASE("trace and translate label the cross-attention rows alike: decoder input → predicted word") {
  TempDir dir;
  REQUIRE(run_tfx("translate '나는 학생 이다' --svg t.svg", dir.path).code == 0);
  REQUIRE(run_tfx("trace '나는 학생 이다' --slides s --slides-format svg", dir.path).code == 0);
  const std::string translate = read_file(dir.path / "t.svg"), trace = read_file(dir.path / "s" / "19-cross-attention.svg");
  // translate's greedy words (from its own JSON): row i reads the word before (<bos> first) and chose word i
  const nlohmann::json j = json_of(run_tfx("translate '나는 학생 이다' --format json"));
  std::vector<std::string> words;
  for (const auto& w : j["summary"]["tokens"]) words.push_back(w);
  REQUIRE(words == std::vector<std::string>{"I", "am", "a", "student"});
  std::string before = "<bos>";
  for (const std::string& w : words) {
    CAPTURE(w);
    const std::string label = (before == "<bos>" ? "&lt;bos&gt;" : before) + " → " + w;
    CHECK(has(translate, ">" + label + "<"));
    CHECK(has(trace, ">" + label + "<"));  // trace's decoder input <bos> I am a predicts I am a student
    before = w;
  }
  for (const std::string* svg : {&translate, &trace}) CHECK(has(*svg, ">decoder input → predicted word<"));
}

TEST_CASE("trace and translate figures say their weights: the trained teaching translator") {
  TempDir dir;
  REQUIRE(run_tfx("translate '나는 학생 이다' --svg t.svg", dir.path).code == 0);
  REQUIRE(run_tfx("trace '나는 학생 이다' --svg p.svg", dir.path).code == 0);
  CHECK(has(read_file(dir.path / "t.svg"), "(trained teaching translator)"));
  CHECK(has(read_file(dir.path / "p.svg"), "(trained teaching translator)"));
}

TEST_CASE("trace --slides: each step's slide carries its formula and shapes; --head picks the head; a wide matrix fills the page") {
  TempDir dir;
  REQUIRE(run_tfx("trace '나는 학생 이다' --slides s --slides-format svg --head 2", dir.path).code == 0);
  // the shapes from the trace's own matrices (its JSON), not from the slides: X is (S, D), the
  // encoder's attention weights (H, S, S)
  const nlohmann::json t = json_of(run_tfx("trace '나는 학생 이다' --format json"));
  const auto& x = t["matrices"]["src.x"]["data"];
  const std::size_t S = x.size(), D = x[0].size(), H = t["matrices"]["enc1.self.weights"]["data"].size(), dk = D / H;
  CHECK(S == 3);
  const auto shape = [](std::size_t a, std::size_t b) { return "(" + std::to_string(a) + "×" + std::to_string(b) + ")"; };
  const std::string q = read_file(dir.path / "s" / "05-q.svg");
  CHECK(has(q, "Q = X·W_Q: " + shape(S, D) + "·" + shape(D, dk) + " → " + shape(S, dk) + ", head 2"));
  CHECK(has(read_file(dir.path / "s" / "08-scores.svg"), "QKᵀ/√d_k: " + shape(S, dk) + "·" + shape(dk, S)));
  CHECK(has(read_file(dir.path / "s" / "04-x.svg"), "X = e + p: " + shape(S, D)));
  CHECK(has(read_file(dir.path / "s" / "13-ffn.svg"), "ReLU(H·W₁ + b₁): " + shape(S, D) + "·"));
  // the PE slide (S × D = 3 × 64): the coloured cells reach over more than half the page's height
  REQUIRE(run_tfx("trace '나는 학생 이다' --slides p", dir.path).code == 0);
  const Decoded pe = decode_png(read_file(dir.path / "p" / "03-pe.png"));
  REQUIRE(pe.w == 1920);
  int top = pe.h, bottom = -1;
  for (int y = 0; y < pe.h; ++y)
    for (int x = 0; x < pe.w * 3 / 4; ++x) {  // left of the colour bar
      const int r = pe.at(x, y).r, g = pe.at(x, y).g, b = pe.at(x, y).b;
      if (std::max({r, g, b}) - std::min({r, g, b}) > 60) top = std::min(top, y), bottom = std::max(bottom, y);
    }
  CAPTURE(top);
  CAPTURE(bottom);
  CHECK(bottom - top > pe.h / 2);
}
