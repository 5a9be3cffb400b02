// Tests of include/tfx/embeddings.hpp: loading every format and quirk, the cache, the built-in
// teaching embedding, most_similar/cosmul against values computed here in double precision from
// the file's own numbers, close spellings; and `tfx analogy` / `tfx embeddings` end to end.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "helpers.hpp"
#include "tfx/embeddings/embeddings.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {

// Loads `text` written to a temp file (no cache).
// The file at `p` read without the cache, as format `f`.
Embeddings load_uncached(const std::filesystem::path& p, EmbeddingFormat f = EmbeddingFormat::detect) {
  EmbeddingSource s;
  s.path = p.string();
  s.format = f;
  s.use_cache = false;
  return load_embeddings(s);
}

Embeddings load_text(const TempDir& dir, const std::string& name, const std::string& text,
                     EmbeddingFormat f = EmbeddingFormat::detect) {
  write_file(dir / name, text);
  return load_uncached(dir / name, f);
}

}  // namespace

TEST_CASE("built-in teaching embedding: the lecture's analogies") {
  const Embeddings& e = builtin_embedding();
  CHECK(e.size() >= 300);
  for (const char* w : {"king", "queen", "man", "woman", "prince", "princess", "dog", "dogs", "cat", "cats", "car", "cars",
                        "apple", "apples", "france", "paris", "germany", "berlin", "italy", "rome", "japan", "tokyo",
                        "korea", "seoul", "walk", "walked", "i", "love", "playing", "football", "the", "a", "is", "sat",
                        "on", "mat", "thinking", "machines", "<unk>"})
    CHECK_MESSAGE(e.find(w).has_value(), w);
  auto best = [&](const char* a, const char* b, const char* c) {
    auto r = analogy(e, *e.find(a), *e.find(b), *e.find(c), 1);
    return std::string(e.word(r.at(0).index));
  };
  CHECK(best("king", "man", "woman") == "queen");
  CHECK(best("paris", "france", "germany") == "berlin");
  CHECK(best("tokyo", "japan", "korea") == "seoul");
  CHECK(best("dogs", "dog", "cat") == "cats");
  CHECK(best("walked", "walk", "go") == "went");
  CHECK(best("bigger", "big", "small") == "smaller");
}

TEST_CASE("GloVe text: hand-built geometry, 3CosAdd and 3CosMul computed here in double") {
  TempDir dir;
  const std::vector<std::vector<double>> v = {{1, 0, 0}, {0, 2, 0}, {0, 0, 3}, {1, 1, 0}, {1, 0, 1}, {-1, 0.5, 2}};
  const std::vector<std::string> w = {"a", "b", "c", "d", "e", "f"};
  std::string text;
  for (std::size_t i = 0; i < v.size(); ++i) text += w[i] + " " + std::to_string(v[i][0]) + " " + std::to_string(v[i][1]) + " " + std::to_string(v[i][2]) + "\n";
  Embeddings e = load_text(dir, "g.txt", text);
  REQUIRE(e.size() == 6);
  REQUIRE(e.dim() == 3);
  auto unit = [](std::vector<double> x) {
    double n = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (auto& y : x) y /= n;
    return x;
  };
  auto cosd = [&](const std::vector<double>& x, const std::vector<double>& y) {
    auto a = unit(x), b = unit(y);
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  };
  // add: m = unit(a) − unit(b) + unit(c)
  std::vector<double> m(3);
  for (int j = 0; j < 3; ++j) m[j] = unit(v[0])[j] - unit(v[1])[j] + unit(v[2])[j];
  auto r = analogy(e, 0, 1, 2, 3);
  REQUIRE(r.size() == 3);
  std::vector<std::pair<double, std::size_t>> want;
  for (std::size_t i = 3; i < 6; ++i) want.push_back({cosd(v[i], m), i});
  std::sort(want.begin(), want.end(), [](auto& x, auto& y) { return x.first > y.first; });
  for (int k = 0; k < 3; ++k) {
    CHECK(r[k].index == want[k].second);
    CHECK(r[k].score == doctest::Approx(want[k].first).epsilon(1e-6));
  }
  // mul: Π (1+cos)/2 over a, c / ((1+cos(w,b))/2 + 1e-6)
  auto rm = analogy(e, 0, 1, 2, 3, AnalogyMethod::mul);
  want.clear();
  for (std::size_t i = 3; i < 6; ++i)
    want.push_back({(1 + cosd(v[i], v[0])) / 2 * (1 + cosd(v[i], v[2])) / 2 / ((1 + cosd(v[i], v[1])) / 2 + 1e-6), i});
  std::sort(want.begin(), want.end(), [](auto& x, auto& y) { return x.first > y.first; });
  for (int k = 0; k < 3; ++k) {
    CHECK(rm[k].index == want[k].second);
    CHECK(rm[k].score == doctest::Approx(want[k].first).epsilon(1e-6));
  }
}

namespace {

// Rows a..f with values exactly representable in float32 (so every format must give them bit for bit).
const std::vector<std::string> kWords = {"the", "king", "man", "woman", "queen", "prince"};
const std::vector<std::vector<float>> kVecs = {{0.5f, -1.25f, 3.0f, 0.0f},  {1.5f, 2.0f, -0.75f, 0.25f},
                                               {1.0f, 0.5f, 0.0f, -2.0f},   {-1.0f, 0.5f, 0.125f, 2.0f},
                                               {0.0625f, 3.5f, -1.0f, 1.0f}, {2.0f, 1.0f, -0.5f, -0.25f}};

std::string text_rows(const std::string& eol = "\n", const std::string& trail = "") {
  std::string t;
  for (std::size_t i = 0; i < kWords.size(); ++i) {
    t += kWords[i];
    for (float x : kVecs[i]) {
      t += ' ';
      t += std::to_string(x);
    }
    t += trail + eol;
  }
  return t;
}

std::string binary_rows(bool newline_after_vector) {
  std::string t = std::to_string(kWords.size()) + " 4\n";
  for (std::size_t i = 0; i < kWords.size(); ++i) {
    t += kWords[i] + " ";
    t.append(reinterpret_cast<const char*>(kVecs[i].data()), 16);
    if (newline_after_vector) t += "\n";
  }
  return t;
}

void check_known(const Embeddings& e) {
  REQUIRE(e.size() == kWords.size());
  REQUIRE(e.dim() == 4);
  for (std::size_t i = 0; i < kWords.size(); ++i) {
    CHECK(std::string(e.word(i)) == kWords[i]);
    for (std::size_t j = 0; j < 4; ++j) CHECK(e.row(i)[j] == kVecs[i][j]);
    double ss = 0;
    for (float x : kVecs[i]) ss += static_cast<double>(x) * x;
    CHECK(e.norm(i) == doctest::Approx(std::sqrt(ss)).epsilon(1e-7));
  }
}

EmbeddingSource cached_source(const std::filesystem::path& file, const std::filesystem::path& cache) {
  EmbeddingSource s;
  s.path = file.string();
  s.cache_dir = cache.string();
  return s;
}

}  // namespace

TEST_CASE("every format gives the same table: GloVe, word2vec text, fastText, word2vec binary ±newline, gzip") {
  TempDir dir;
  const std::string header = std::to_string(kWords.size()) + " 4\n";
  SUBCASE("glove") { check_known(load_text(dir, "g.txt", text_rows())); }
  SUBCASE("word2vec text") {
    auto e = load_text(dir, "w.txt", header + text_rows());
    check_known(e);
    CHECK(e.info().format == EmbeddingFormat::word2vec);
  }
  SUBCASE("fastText .vec (trailing space)") {
    auto e = load_text(dir, "f.vec", header + text_rows("\n", " "));
    check_known(e);
    CHECK(e.info().format == EmbeddingFormat::fasttext);
  }
  SUBCASE("word2vec binary, C tool layout ('\\n' after each vector)") {
    auto e = load_text(dir, "c.bin", binary_rows(true));
    check_known(e);
    CHECK(e.info().format == EmbeddingFormat::word2vec_bin);
  }
  SUBCASE("word2vec binary, gensim layout (no '\\n')") { check_known(load_text(dir, "g.bin", binary_rows(false))); }
  SUBCASE("gzip-compressed GloVe and binary") {
    write_file(dir / "g.txt", text_rows());
    write_file(dir / "b.bin", binary_rows(false));
    REQUIRE(std::system(("gzip -k " + shell_quote((dir / "g.txt").string()) + " " + shell_quote((dir / "b.bin").string())).c_str()) == 0);
    EmbeddingSource s;
    s.use_cache = false;
    s.path = (dir / "g.txt.gz").string();
    auto e = load_embeddings(s);
    check_known(e);
    CHECK(e.info().gzip);
    s.path = (dir / "b.bin.gz").string();
    check_known(load_embeddings(s));
  }
  SUBCASE("forced format") { check_known(load_text(dir, "x.dat", header + text_rows(), EmbeddingFormat::word2vec)); }
}

TEST_CASE("real-file quirks: CRLF, BOM, trailing spaces, words with spaces, non-ASCII, duplicates, blank lines") {
  TempDir dir;
  SUBCASE("CRLF line ends and trailing spaces") { check_known(load_text(dir, "crlf.txt", text_rows(" \r\n"))); }
  SUBCASE("UTF-8 byte-order mark") { check_known(load_text(dir, "bom.txt", "\xEF\xBB\xBF" + text_rows())); }
  SUBCASE("blank lines") { check_known(load_text(dir, "blank.txt", "\n" + text_rows("\n\n") + "\n  \n")); }
  SUBCASE("no newline at the end") {
    std::string t = text_rows();
    t.pop_back();
    check_known(load_text(dir, "nonl.txt", t));
  }
  SUBCASE("GloVe 840B: words containing spaces (the last D fields are the numbers)") {
    auto e = load_text(dir, "sp.txt", text_rows() + "new york 1 2 3 4\n. . . 0.5 0.5 0.5 0.5\n");
    REQUIRE(e.size() == kWords.size() + 2);
    CHECK(e.find("new york").has_value());
    CHECK(e.row(*e.find("new york"))[3] == 4.0f);
    CHECK(e.find(". . .").has_value());
  }
  SUBCASE("non-ASCII and invalid UTF-8 words are kept byte for byte") {
    auto e = load_text(dir, "u.txt", text_rows() + "königin 1 2 3 4\n\xED\x95\x9C 1 0 0 0\nbad\xff\xfe 0 1 0 0\n");
    CHECK(e.find("königin").has_value());
    CHECK(e.find("\xED\x95\x9C").has_value());  // 한
    CHECK(e.find("bad\xff\xfe").has_value());
  }
  SUBCASE("a duplicate dropped mid-file: the later rows and their lengths move up together") {
    auto e = load_text(dir, "dn.txt", "a 3 4 0 0\nb 1 0 0 0\na 0 0 0 1\nc 0 6 8 0\nd 0 0 0 2\n");
    REQUIRE(e.size() == 4);
    const std::vector<std::pair<std::string, float>> want = {{"a", 5}, {"b", 1}, {"c", 10}, {"d", 2}};
    for (std::size_t i = 0; i < want.size(); ++i) {
      CHECK(e.word(i) == want[i].first);
      CHECK(e.norm(i) == want[i].second);
    }
  }
  SUBCASE("duplicate words: the first is kept, the rest counted") {
    auto e = load_text(dir, "d.txt", text_rows() + "king 9 9 9 9\nman 8 8 8 8\nking 7 7 7 7\n");
    check_known(e);
    CHECK(e.info().duplicates == 3);
    CHECK(e.info().first_duplicate.find("'king' (line 7)") != std::string::npos);
  }
}

TEST_CASE("--limit reads the first N words; text, binary and gzip") {
  TempDir dir;
  EmbeddingSource s;
  s.use_cache = false;
  s.limit = 2;
  write_file(dir / "g.txt", text_rows());
  write_file(dir / "b.bin", binary_rows(true));
  for (const char* f : {"g.txt", "b.bin"}) {
    s.path = (dir / f).string();
    auto e = load_embeddings(s);
    REQUIRE(e.size() == 2);
    CHECK(e.word(1) == "king");
    CHECK(!e.find("man").has_value());
  }
  // gzip: text stops inflating early; binary (whose floats may hold '\n' bytes) is never cut
  // short — 100,000 rows, each vector holding four '\n' bytes, --limit 60,000 (1.2 MB inflated)
  std::string bin = "100000 4\n";
  for (int i = 0; i < 100000; ++i) {
    bin += 'w';
    bin += std::to_string(i);
    bin += ' ';
    float nl[4] = {1.0f, 0.0f, 2.0f, static_cast<float>(i)};
    std::memcpy(&nl[1], "\n\n\n\n", 4);  // a finite float whose four bytes are all '\n'
    bin.append(reinterpret_cast<const char*>(nl), 16);
  }
  write_file(dir / "nl.bin", bin);
  REQUIRE(std::system(("gzip -kf " + shell_quote((dir / "nl.bin").string()) + " " + shell_quote((dir / "g.txt").string())).c_str()) == 0);
  s.limit = 60000;
  s.path = (dir / "nl.bin.gz").string();
  auto eb = load_embeddings(s);
  REQUIRE(eb.size() == 60000);
  CHECK(eb.row(59999)[3] == 59999.0f);
  s.limit = 5;
  s.path = (dir / "g.txt.gz").string();
  CHECK(load_embeddings(s).size() == 5);
  s.limit = 2;
  // a header promising 6 words but --limit 2: only 2 are read, so a short file is fine
  write_file(dir / "short.txt", "6 4\n" + text_rows().substr(0, text_rows().find("man")));
  s.path = (dir / "short.txt").string();
  CHECK(load_embeddings(s).size() == 2);
  s.path = "";
  CHECK(load_embeddings(s).size() == 2);  // the built-in table too
}

TEST_CASE("numbers parse exactly like float32(strtod(token)) — gensim's float32(float(token))") {
  TempDir dir;
  const std::vector<std::string> toks = {"0.1", "-0.24587", "1e-3", "-0.0", "2.5E-5", ".5", "5.", "+1.5",
                                         "-1.671300083398818970e-02", "123456789012345678901", "3.4028234e38",
                                         "1.17549435e-38", "1e-45", "0.333333333333333333333", "9007199254740993",
                                         "-8.269973595356034e-05", "1e22", "1e23", "0.000001", "4.1"};
  std::string line = "w";
  for (const auto& t : toks) {
    line += ' ';
    line += t;
  }
  auto e = load_text(dir, "n.txt", line + "\n");
  REQUIRE(e.dim() == toks.size());
  for (std::size_t j = 0; j < toks.size(); ++j) {
    const float want = static_cast<float>(std::strtod(toks[j].c_str(), nullptr));
    CHECK_MESSAGE(std::memcmp(&e.row(0)[j], &want, 4) == 0, toks[j]);
  }
}

TEST_CASE("every shape of field and separator parses like float32(strtod), plain and gzip (rows past 64-byte chunks)") {
  // The parser finds where a row's fields start from separator bitmasks 64 bytes at a time, takes
  // "[-]d.ddd…" with 1–8 digits after the point and one separator after it in one step, and every
  // other field the long way. Random fields of every shape around those limits (0–3 digits before
  // the point, 0–11 after, signs, exponents) and 1–3 spaces or tabs between them, in rows of 70
  // fields (three or more chunks), checked value by value against float32(strtod(token)); the
  // gzip copy is read from memory, where the last row has no padding after it.
  TempDir dir;
  std::mt19937 rng(11);
  auto digits = [&](int n) {
    std::string d;
    for (int k = 0; k < n; ++k) d += static_cast<char>('0' + rng() % 10);
    return d;
  };
  auto token = [&] {
    const unsigned shape = rng() % 10;
    std::string t = rng() % 3 == 0 ? "-" : (rng() % 17 == 0 ? "+" : "");
    if (shape < 6) return t + digits(1) + "." + digits(static_cast<int>(rng() % 10) + 1);  // the common field and its edges
    if (shape == 6) return t + digits(static_cast<int>(rng() % 3) + 2) + "." + digits(static_cast<int>(rng() % 6));
    if (shape == 7) return t + digits(static_cast<int>(rng() % 3) + 1);                                           // whole numbers
    if (shape == 8) return t + digits(1) + "." + digits(static_cast<int>(rng() % 8) + 1) + (rng() % 2 ? "e-0" : "E+") + digits(1);
    return t + "." + digits(static_cast<int>(rng() % 4) + 1);                                                        // ".5"
  };
  auto sep = [&] {
    static const char* const seps[] = {" ", " ", " ", " ", "\t", "  ", " \t", "   "};
    return std::string(seps[rng() % 8]);
  };
  const std::size_t n = 3000, d = 70;
  std::string text;
  std::vector<std::string> toks;
  for (std::size_t i = 0; i < n; ++i) {
    text += "w" + std::to_string(i);
    for (std::size_t j = 0; j < d; ++j) {
      toks.push_back(token());
      text += sep() + toks.back();
    }
    text += i + 1 < n ? (rng() % 4 ? "\n" : " \r\n") : "";  // the last row: no newline
  }
  write_file(dir / "shapes.txt", text);
  REQUIRE(std::system(("gzip -k " + shell_quote((dir / "shapes.txt").string())).c_str()) == 0);
  for (const char* name : {"shapes.txt", "shapes.txt.gz"}) {
    CAPTURE(name);
    auto e = load_uncached(dir / name);
    REQUIRE(e.size() == n);
    REQUIRE(e.dim() == d);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j) {
        const float want = static_cast<float>(std::strtod(toks[i * d + j].c_str(), nullptr));
        if (std::memcmp(&e.row(i)[j], &want, 4) != 0 && ++wrong <= 5)
          MESSAGE("row ", i, " field ", j, ": '", toks[i * d + j], "' read as ", e.row(i)[j], ", expected ", want);
      }
    CHECK(wrong == 0);
  }
}

TEST_CASE("a big text file is read in windows: rows cut at window ends, rows longer than a window") {
  // The loader reads a mapped file with pread, 4 MiB at a time cut after the last whole line
  // (doubled when one line is longer). Every value is checked against float32(strtod(token)),
  // every word against the file, so a row lost, doubled or split at a window end fails.
  TempDir dir;
  std::mt19937 rng(7);
  auto token = [&](bool long_digits) {
    std::string t = rng() % 2 ? "-0." : "0.";
    const int digits = long_digits ? 40 : 5;  // 40 digits: past the fast path, through strtod
    for (int k = 0; k < digits; ++k) t += static_cast<char>('0' + rng() % 10);
    return t;
  };
  // n rows "<prefix>i v…" of d random tokens, loaded; counts the words and values that differ
  // from the file (values against float32(strtod))
  auto mismatches = [&](const std::string& name, const std::string& prefix, std::size_t n, std::size_t d, bool long_digits,
                        std::size_t min_row_bytes) {
    std::string text;
    std::vector<std::string> toks;
    for (std::size_t i = 0; i < n; ++i) {
      text += prefix + std::to_string(i);
      for (std::size_t j = 0; j < d; ++j) {
        toks.push_back(token(long_digits));
        text += ' ' + toks.back();
      }
      text += '\n';
    }
    REQUIRE(text.size() / n > min_row_bytes);
    auto e = load_text(dir, name, text);
    REQUIRE(e.size() == n);
    REQUIRE(e.dim() == d);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += e.word(i) != prefix + std::to_string(i);
      for (std::size_t j = 0; j < d; ++j) {
        const float want = static_cast<float>(std::strtod(toks[i * d + j].c_str(), nullptr));
        wrong += std::memcmp(&e.row(i)[j], &want, 4) != 0;
      }
    }
    return wrong;
  };
  SUBCASE("200,000 short rows (17 MB): five windows, split between two threads") {
    CHECK(mismatches("many.txt", "w", 200000, 10, false, 80) == 0);
  }
  SUBCASE("three rows of 4.3 MB each: the window grows to hold a row") {
    CHECK(mismatches("wide.txt", "long", 3, 100000, true, std::size_t{4} << 20) == 0);
  }
}

TEST_CASE("cache: written on first load, mapped later, rebuilt when stale or corrupt, never for bad input") {
  TempDir dir;
  const auto cache = dir / "cache";
  write_file(dir / "g.txt", text_rows());
  auto src = cached_source(dir / "g.txt", cache);
  auto first = load_embeddings(src);
  CHECK(first.info().cache_state == "written");
  const std::string cp = cache_path_for(src.path, src.cache_dir);
  REQUIRE(std::filesystem::exists(cp));
  auto second = load_embeddings(src);
  CHECK(second.info().cache_state == "hit");
  check_known(second);
  CHECK(second.find("queen") == std::optional<std::size_t>(4));
  SUBCASE("stale: the file changed") {
    write_file(dir / "g.txt", text_rows() + "extra 1 1 1 1\n");
    auto e = load_embeddings(src);
    CHECK(e.info().cache_state.find("stale") != std::string::npos);
    CHECK(e.size() == kWords.size() + 1);
    CHECK(load_embeddings(src).info().cache_state == "hit");
  }
  SUBCASE("corrupt: truncated, or a flipped byte in the word table") {
    std::string bytes = read_file(cp);
    write_file(cp, bytes.substr(0, bytes.size() - 10));
    auto e = load_embeddings(src);
    CHECK(e.info().cache_state.find("corrupt") != std::string::npos);
    check_known(e);
    bytes = read_file(cp);
    bytes[bytes.size() - 3] ^= 0x20;  // inside the word bytes / strings
    write_file(cp, bytes);
    auto e2 = load_embeddings(src);
    CHECK(e2.info().cache_state.find("corrupt") != std::string::npos);
    check_known(e2);
  }
  SUBCASE("--limit uses the full cache's first rows") {
    src.limit = 3;
    auto e = load_embeddings(src);
    CHECK(e.info().cache_state == "hit");
    CHECK(e.size() == 3);
    CHECK(!e.find("woman").has_value());
    CHECK(!e.find_ignore_case("WOMAN").has_value());
  }
  SUBCASE("a bad file writes no cache") {
    write_file(dir / "bad.txt", "a 1 2\nb 1 x\n");
    auto bad = cached_source(dir / "bad.txt", cache);
    CHECK_THROWS_AS(load_embeddings(bad), Error);
    CHECK(!std::filesystem::exists(cache_path_for(bad.path, bad.cache_dir)));
  }
}

TEST_CASE("a first load that writes the cache drops the text from the page cache; a load without the cache keeps it") {
  // Share of `p`'s pages in the page cache (mincore), after reading the whole file into it.
  auto resident = [](const std::filesystem::path& p) {
    const int fd = ::open(p.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    const auto size = static_cast<std::size_t>(std::filesystem::file_size(p));
    void* m = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    REQUIRE(m != MAP_FAILED);
    const std::size_t pages = (size + 4095) / 4096;
    std::vector<unsigned char> in(pages);
    REQUIRE(mincore(m, size, in.data()) == 0);
    munmap(m, size);
    ::close(fd);
    std::size_t n = 0;
    for (unsigned char c : in) n += c & 1;
    return static_cast<double>(n) / static_cast<double>(pages);
  };
  TempDir dir;
  write_glove(dir / "big.txt", 64000, 50);  // ~24 MB: several 4 MiB windows on each thread
  // Whether this file system drops clean pages when asked (tmpfs keeps them: they are the file);
  // written to disk first, as a downloaded file long since is (dirty pages cannot be dropped)
  {
    const int fd = ::open((dir / "big.txt").c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    fsync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
  }
  if (resident(dir / "big.txt") > 0.5) {
    std::cout << "TFX-SKIP: " << dir.path.string() << " keeps a file's pages in memory after POSIX_FADV_DONTNEED (tmpfs?)\n";
    return;
  }
  const std::string text = read_file(dir / "big.txt");  // into the page cache
  REQUIRE(resident(dir / "big.txt") > 0.9);
  EmbeddingSource s;
  s.path = (dir / "big.txt").string();
  s.use_cache = false;
  CHECK(load_embeddings(s).dim() == 50);
  CHECK(resident(dir / "big.txt") > 0.9);  // no cache written: the next load reads the text again
  auto src = cached_source(dir / "big.txt", dir / "cache");
  auto e = load_embeddings(src);
  CHECK(e.info().cache_state == "written");
  CHECK(resident(dir / "big.txt") < 0.3);  // at most the folios at the two threads' seam and ends
  // row 3's second number, as float32(strtod) of the file's token
  std::istringstream line4(text.substr(text.find("\nw3 ") + 1));
  std::string word, first_number, second_number;
  line4 >> word >> first_number >> second_number;
  CHECK(e.row(3)[1] == static_cast<float>(std::strtod(second_number.c_str(), nullptr)));
}

TEST_CASE("tfx table written by write_embedding_table and text/binary writers round-trip") {
  TempDir dir;
  auto e = load_text(dir, "g.txt", text_rows());
  for (auto f : {EmbeddingFormat::tfx_cache, EmbeddingFormat::glove, EmbeddingFormat::word2vec,
                 EmbeddingFormat::word2vec_bin, EmbeddingFormat::fasttext}) {
    const std::string out = (dir / (std::string("out.") + embedding_format_name(f))).string();
    write_embedding_file(e, out, f);
    auto back = load_uncached(out);
    check_known(back);
    CHECK(back.info().format == f);
  }
}

TEST_CASE("lookup: case-sensitive by default, --ignore-case prefers the exact word, then file order") {
  TempDir dir;
  auto e = load_text(dir, "c.txt", "Apple 1 0\napple 0 1\nBERLIN 1 1\nberlin 2 2\n");
  CHECK(e.find("apple") == std::optional<std::size_t>(1));
  CHECK(!e.find("APPLE").has_value());
  CHECK(e.find_ignore_case("apple") == std::optional<std::size_t>(1));  // exact wins
  CHECK(e.find_ignore_case("APPLE") == std::optional<std::size_t>(0));  // first in file order
  CHECK(e.find_ignore_case("Berlin") == std::optional<std::size_t>(2));
}

TEST_CASE("close spellings and the out-of-vocabulary error") {
  const Embeddings& e = builtin_embedding();
  auto near = close_spellings(e, "kng");
  REQUIRE(!near.empty());
  CHECK(near[0] == "king");
  CHECK(near.size() <= 5);
  CHECK(close_spellings(e, "zzzzzzzzzzzz").empty());
  try {
    require_word(e, "quen", false);
    FAIL("expected an error");
  } catch (const Error& err) {
    const std::string m = err.what();
    CHECK(m.find("'quen'") != std::string::npos);
    CHECK(m.find("queen") != std::string::npos);
  }
  try {
    require_word(e, "King", false);
    FAIL("expected an error");
  } catch (const Error& err) {
    CHECK(std::string(err.what()).find("lookup is case-sensitive: use ignore_case") != std::string::npos);
    CHECK(err.params() == std::vector<std::string>{"ignore_case"});  // the CLI names --ignore-case
  }
  CHECK(require_word(e, "King", true) == *e.find("king"));
}

TEST_CASE("bad files: one error naming the file and line") {
  TempDir dir;
  auto err = [&](const std::string& name, const std::string& text) -> std::string {
    write_file(dir / name, text);
    try {
      load_uncached(dir / name);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  // text files: the name, the contents, a part of the error
  const std::vector<std::array<std::string, 3>> text_cases = {
      {"empty.txt", "", "empty"},
      {"h.txt", "3 2\na 1 2\nb 3 4\n", "h.txt:4: the header (line 1) says 3 words, but the file ends after 2"},
      {"more.txt", "1 2\na 1 2\nb 3 4\n", "more.txt:3: more rows"},
      // a header whose D disagrees with the rows: still text, so the error names the row
      {"hd.txt", "2 3\na 1 2\nb 3 4\n", "hd.txt:2: the row for 'a' has 2 numbers, expected 3"},
      {"z.txt", "2 0\n", "z.txt:1:"},
      {"neg.txt", "2 -5\n", "neg.txt:1:"},
      {"r.txt", "a 1 2 3\nb 1 2\n", "r.txt:2: the row for 'b' has 2 numbers, expected 3"},
      {"mac.txt", "a 1 2\rb 3 4\rc 5 6\r", "mac.txt:1: the row for 'a' has a carriage return (\\r) inside it, where a word and 8 numbers were expected"},
      {"cr.txt", "a 1 2\nb 3 4\rc 5 6\n", "cr.txt:2: the row for 'b' has a carriage return (\\r) inside it, where a word and 2 numbers were expected"},
      {"crtok.txt", "a 1 2\nb 3\r4 5\n", "crtok.txt:2: the row for 'b' has a carriage return (\\r) inside it, where a word and 2 numbers were expected"},
      {"r2.txt", "a 1 2 3\nb 1 2 3 4\n", "r2.txt:2:"},
      {"n.txt", "a 1 2\nb 0.1.2 3\n", "n.txt:2: '0.1.2'"},
      {"abc.txt", "a 1 2\nb 1 abc\n", "abc.txt:2: 'abc'"},
      {"nan.txt", "a 1 2\nb nan 1\n", "nan.txt:2: 'nan'"},
      {"inf.txt", "a 1 2\nb 1 -inf\n", "NaN and infinite"},
      {"big.txt", "a 1 2\nb 1 1e39\n", "out of float32 range"},
  };
  for (const auto& c : text_cases) {  // (not a structured binding: CAPTURE is a lambda, and clang 14 cannot capture one)
    CAPTURE(c[0]);
    CHECK(err(c[0], c[1]).find(c[2]) != std::string::npos);
  }
  std::string bin = binary_rows(false);
  CHECK(err("t.bin", bin.substr(0, bin.size() - 7)).find("truncated") != std::string::npos);
  CHECK(err("huge.bin", "1000000000000 10\nw " + std::string(40, '\0')).find("huge.bin:1: the header says 1000000000000 words") != std::string::npos);
  std::string nanbin = binary_rows(false);
  const float qnan = std::nanf("");
  std::memcpy(nanbin.data() + nanbin.size() - 4, &qnan, 4);
  CHECK(err("nan.bin", nanbin).find("NaN") != std::string::npos);
  CHECK(err("c.gz", std::string("\x1f\x8b\x08\x00garbage-not-deflate", 23)).find("gzip") != std::string::npos);
}

namespace {

// An independent reader of GloVe / word2vec text: split on spaces, strtod, float32 — no tfx code.
struct RefTable {
  std::vector<std::string> words;
  std::vector<std::vector<double>> rows;  // the float32 values, widened
};

RefTable read_text_reference(const std::filesystem::path& p, bool header) {
  RefTable t;
  std::istringstream in(read_file(p));
  std::string line;
  if (header) std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string w, tok;
    ls >> w;
    std::vector<double> v;
    while (ls >> tok) v.push_back(static_cast<float>(std::strtod(tok.c_str(), nullptr)));
    if (w.empty()) continue;
    t.words.push_back(w);
    t.rows.push_back(v);
  }
  return t;
}

// 3CosAdd / 3CosMul in double over the reference table, inputs excluded: top k (index, score).
std::vector<std::pair<std::size_t, double>> reference_analogy(const RefTable& t, std::size_t a, std::size_t b,
                                                              std::size_t c, std::size_t k, bool mul) {
  const std::size_t d = t.rows[0].size();
  auto unit = [&](std::size_t i) {
    std::vector<double> u = t.rows[i];
    double n = 0;
    for (double x : u) n += x * x;
    n = std::sqrt(n);
    for (double& x : u) x /= n;
    return u;
  };
  const auto ua = unit(a), ub = unit(b), uc = unit(c);
  std::vector<double> m(d);
  double mn = 0;
  for (std::size_t j = 0; j < d; ++j) mn += (m[j] = ua[j] - ub[j] + uc[j]) * m[j];
  mn = std::sqrt(mn);
  std::vector<std::pair<std::size_t, double>> all;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (i == a || i == b || i == c) continue;
    const auto u = unit(i);
    double ca = 0, cb = 0, cc = 0, cm = 0;
    for (std::size_t j = 0; j < d; ++j) ca += u[j] * ua[j], cb += u[j] * ub[j], cc += u[j] * uc[j], cm += u[j] * m[j];
    all.push_back({i, mul ? (1 + ca) / 2 * (1 + cc) / 2 / ((1 + cb) / 2 + 1e-6) : cm / mn});
  }
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(),
                    [](auto& x, auto& y) { return x.second > y.second; });
  all.resize(k);
  return all;
}

// Words and values of e that differ from the reference's (e must have its number of words).
std::size_t reference_mismatches(const Embeddings& e, const RefTable& ref) {
  REQUIRE(e.size() == ref.words.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    mismatches += std::string(e.word(i)) != ref.words[i];
    for (std::size_t j = 0; j < e.dim(); ++j) mismatches += static_cast<double>(e.row(i)[j]) != ref.rows[i][j];
  }
  return mismatches;
}

void check_against_reference(const std::filesystem::path& p, bool header, const std::vector<std::array<const char*, 3>>& queries) {
  const RefTable ref = read_text_reference(p, header);
  const Embeddings e = load_uncached(p);
  CHECK(reference_mismatches(e, ref) == 0);
  for (const auto& q : queries) {
    const std::size_t a = *e.find(q[0]), b = *e.find(q[1]), c = *e.find(q[2]);
    for (bool mul : {false, true}) {
      const auto want = reference_analogy(ref, a, b, c, 5, mul);
      const auto got = analogy(e, a, b, c, 5, mul ? AnalogyMethod::mul : AnalogyMethod::add);
      REQUIRE(got.size() == 5);
      for (std::size_t r = 0; r < 5; ++r) {
        CHECK_MESSAGE(got[r].index == want[r].first, q[0] << " " << q[1] << " " << q[2] << " rank " << r + 1 << (mul ? " mul" : " add"));
        CHECK(std::abs(got[r].score - want[r].second) < 1e-5);
      }
    }
  }
}

}  // namespace

TEST_CASE("real GloVe 6B (shared data): every value as float32(strtod), analogies as computed in double here") {
  const auto p100 = shared_data("glove.6B.100d.top2604.txt");
  if (!p100.empty())
    check_against_reference(p100, false, {{"king", "man", "woman"}, {"paris", "france", "germany"},
                                          {"london", "england", "france"}, {"his", "he", "she"}, {"better", "good", "bad"}});
  const auto p50 = shared_data("glove.6B.50d.top2446.txt");  // no newline after the last line
  if (!p50.empty()) check_against_reference(p50, false, {{"king", "man", "woman"}, {"paris", "france", "england"}});
}

TEST_CASE("real word2vec / fastText files (shared data): text with header, %f and %.18e values, .vec") {
  for (const char* f : {"word2vec_pre_kv_c.txt", "lee_fasttext.vec", "EN.1-10.cbow1_wind5_hs0_neg10_size300_smpl1e-05.txt",
                        "crime-and-punishment.vec", "high_precision.kv.txt"}) {
    const auto p = shared_data(f);
    if (p.empty()) continue;
    CAPTURE(f);
    const RefTable ref = read_text_reference(p, true);
    CHECK(reference_mismatches(load_uncached(p), ref) == 0);
  }
}

TEST_CASE("real word2vec binary (shared data): gensim's layout, read independently here") {
  for (const char* f : {"euclidean_vectors.bin", "poincare_vectors.bin", "high_precision.kv.bin"}) {
    const auto p = shared_data(f);
    if (p.empty()) continue;
    CAPTURE(f);
    const std::string bytes = read_file(p);
    std::size_t pos = bytes.find('\n');
    std::istringstream hs(bytes.substr(0, pos));
    std::size_t n = 0, d = 0;
    hs >> n >> d;
    ++pos;
    EmbeddingSource s;
    s.path = p.string();
    s.use_cache = false;
    const Embeddings e = load_embeddings(s);
    REQUIRE(e.size() == n);
    REQUIRE(e.dim() == d);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < n; ++i) {
      while (bytes[pos] == '\n') ++pos;
      const std::size_t sp = bytes.find(' ', pos);
      mismatches += bytes.substr(pos, sp - pos) != e.word(i);
      pos = sp + 1;
      mismatches += std::memcmp(bytes.data() + pos, e.row(i).data(), 4 * d) != 0;
      pos += 4 * d;
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("test_glove.txt (shared data): non-ASCII keys") {
  const auto p = shared_data("test_glove.txt");
  if (p.empty()) return;
  EmbeddingSource s;
  s.path = p.string();
  s.use_cache = false;
  const Embeddings e = load_embeddings(s);
  CHECK(e.size() == 76);
  CHECK(e.dim() == 50);
  for (const char* w : {"ö", "é", "हु", "ü", "हि", "या"}) CHECK_MESSAGE(e.find(w).has_value(), w);
}

TEST_CASE("nearest, rows, from_rows: the API other commands build on") {
  // from_rows drops duplicates (first kept); rows() stacks rows, unit=true normalises them
  Tensor v = Tensor::matrix({{3, 4}, {1, 0}, {0, 2}, {9, 9}});
  Embeddings e = Embeddings::from_rows({"a", "b", "c", "a"}, v, "test");
  REQUIRE(e.size() == 3);
  CHECK(e.info().duplicates == 1);
  CHECK(e.norm(0) == doctest::Approx(5.0));
  const std::size_t idx[2] = {0, 2};
  Tensor r = e.rows(idx, true);
  CHECK(r(0, 0) == doctest::Approx(0.6));
  CHECK(r(0, 1) == doctest::Approx(0.8));
  CHECK(r(1, 1) == doctest::Approx(1.0));
  // nearest to (1, 1): cosines (3+4)/(5√2), 1/√2, 2/(2√2) -> a first, then b and c tied (lower index first)
  const float q[2] = {1, 1};
  auto n = nearest(e, q, 3);
  REQUIRE(n.size() == 3);
  CHECK(n[0].index == 0);
  CHECK(n[0].score == doctest::Approx(7.0 / (5.0 * std::sqrt(2.0))));
  CHECK(n[1].index == 1);
  CHECK(n[2].index == 2);
  CHECK(n[1].score == doctest::Approx(1.0 / std::sqrt(2.0)));
  const std::size_t ex[1] = {0};
  CHECK(nearest(e, q, 1, ex)[0].index == 1);
}

TEST_CASE("require_word: a decomposed (NFD) word finds its composed (NFC) row; other misses still throw (issue 36)") {
  const Embeddings e = Embeddings::from_rows({"학생", "caf\xC3\xA9"}, Tensor::from({2, 2}, {1, 0, 0, 1}), "test");
  // 학생 as jamo ᄒ ᅡ ᆨ ᄉ ᅢ ᆼ, café as e + U+0301
  CHECK(require_word(e, "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xA8\xE1\x84\x89\xE1\x85\xA2\xE1\x86\xBC", false) == 0);
  CHECK(require_word(e, "cafe\xCC\x81", false) == 1);
  CHECK_THROWS_AS(require_word(e, "cafe", false), Error);
}
