// Issue 49 (wrong answers and messages) where a bad-input row cannot say it: a model trained on
// decomposed (NFD) Hangul answers a query in composed form (one normalization, NFC, on both
// sides); nothing held out is said, not "0/0 = 0.0 %"; a data word's ESC/NUL bytes are escaped
// in table output and a 1 MB word is cut; a top-down BMP reads with the same pixels as the
// bottom-up one; --slides at a dangling symlink says so.
#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

namespace {

// "나는 학생 이다" written decomposed: each syllable as its leading consonant, vowel (and final
// consonant) jamo, computed from the Unicode formula (S = 0xAC00 + (L·21 + V)·28 + T).
std::string nfd(const std::u32string& composed) {
  std::string out;
  const auto put = [&](char32_t cp) {  // UTF-8 of a BMP code point
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  for (char32_t cp : composed) {
    if (cp < 0xAC00 || cp > 0xD7A3) {
      put(cp);
      continue;
    }
    const char32_t s = cp - 0xAC00;
    put(0x1100 + s / (21 * 28));
    put(0x1161 + (s % (21 * 28)) / 28);
    if (s % 28) put(0x11A7 + s % 28);
  }
  return out;
}

std::string bmp(int w, int h, bool top_down) {
  const int row = (w * 3 + 3) / 4 * 4;
  std::string px;
  for (int r = 0; r < h; ++r) {
    const int y = top_down ? r : h - 1 - r;  // rows as stored: top-down or bottom-up
    std::string line;
    for (int x = 0; x < w; ++x) line += {static_cast<char>(x * 50), static_cast<char>(y * 60), static_cast<char>(100 + x + y)};
    line.resize(static_cast<std::size_t>(row), '\0');
    px += line;
  }
  const auto le = [](std::uint32_t v, int n) {
    std::string s;
    for (int k = 0; k < n; ++k) s += static_cast<char>((v >> (8 * k)) & 0xFF);
    return s;
  };
  std::string info = le(40, 4) + le(static_cast<std::uint32_t>(w), 4) + le(static_cast<std::uint32_t>(top_down ? -h : h), 4) + le(1, 2) +
                     le(24, 2) + le(0, 4) + le(static_cast<std::uint32_t>(px.size()), 4) + le(2835, 4) + le(2835, 4) + le(0, 4) + le(0, 4);
  return "BM" + le(static_cast<std::uint32_t>(54 + px.size()), 4) + le(0, 4) + le(54, 4) + info + px;
}

}  // namespace

TEST_CASE("issue 49: a model trained on NFD Hangul pairs answers an NFC query (one normalization on both sides)") {
  TempDir dir;
  std::string tsv;
  const std::u32string src[] = {U"나는 학생 이다", U"그는 교사 이다", U"나는 교사 이다", U"그는 학생 이다"};
  const char* tgt[] = {"i am student", "he is teacher", "i am teacher", "he is student"};
  for (int rep = 0; rep < 3; ++rep)
    for (int i = 0; i < 4; ++i) tsv += nfd(src[i]) + "\t" + tgt[i] + "\n";
  write_file(dir / "p.tsv", tsv);
  const Run t = run_tfx("train --pairs p.tsv --test-fraction 0 --steps 2 --threads 2 --no-progress --d-model 16 --heads 2 --ffn 32 "
                        "--format json -o m.safetensors",
                        dir.path);
  REQUIRE(t.code == 0);
  // nothing held out: said so, not a score of 0 %
  const Run table = run_tfx("train --pairs p.tsv --test-fraction 0 --steps 1 --threads 2 --no-progress --d-model 16 --heads 2 --ffn 32",
                            dir.path);
  REQUIRE(table.code == 0);
  CHECK(has(table.out, "nothing was held out"));
  CHECK(!has(table.out, "0/0"));
  // the vocabulary holds the composed words
  CHECK(has(read_file(dir / "m.vocab.txt"), "학생"));
  const Run q = run_tfx("translate --model m.safetensors '나는 학생 이다' --format json", dir.path);
  INFO(q.err);
  CHECK(q.code == 0);
}

TEST_CASE("issue 49: table output escapes ESC and NUL bytes of data words and cuts a 1 MB word") {
  TempDir dir;
  std::string tsv;
  const std::string esc_word = std::string("red\x1b[31mX") + '\x07';
  const std::string big(1 << 20, 'w');
  for (int i = 0; i < 4; ++i) tsv += esc_word + " " + big + "\tziel " + big + "\n";
  write_file(dir / "p.tsv", tsv);
  const Run r = run_tfx("train --pairs p.tsv --test-fraction 0 --steps 1 --threads 2 --no-progress --d-model 8 --heads 2 --ffn 8", dir.path);
  REQUIRE(r.code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  CHECK(has(r.out, "red\\x1b[31mX"));
  CHECK(r.out.size() < 20000);  // not the 1 MB word, let alone 20 of them
}

TEST_CASE("issue 49: a top-down BMP reads as the same picture as the bottom-up one; a cut one is refused") {
  TempDir dir;
  write_file(dir / "up.bmp", bmp(4, 4, false));
  write_file(dir / "down.bmp", bmp(4, 4, true));
  const Run up = run_tfx("patches --image up.bmp --patch 2 --format json", dir.path);
  const Run down = run_tfx("patches --image down.bmp --patch 2 --format json", dir.path);
  INFO(down.err);
  REQUIRE(up.code == 0);
  REQUIRE(down.code == 0);
  std::string same = up.out;  // the same pixels: the output differs only in the file's name, if at all
  for (std::size_t at = same.find("up.bmp"); at != std::string::npos; at = same.find("up.bmp", at)) same.replace(at, 6, "down.bmp");
  CHECK(same == down.out);
  const std::string whole = bmp(4, 4, false);
  write_file(dir / "cut.bmp", whole.substr(0, whole.size() / 2 + 20));
  const Run cut = run_tfx("patches --image cut.bmp --patch 2", dir.path);
  CHECK(cut.code == 1);
  CHECK(has(cut.err, "cut.bmp: the picture is truncated"));
}

TEST_CASE("issue 49: --slides at a dangling symlink says so (not \"File exists\")") {
  TempDir dir;
  fs::create_symlink("gone", dir / "s");
  const Run r = run_tfx("trace '나는 학생 이다' --slides s", dir.path);
  CHECK(r.code == 1);
  CHECK(has(r.err, "--slides s: is a symbolic link to gone, which does not exist"));
  CHECK(!fs::exists(dir / "gone"));
}
