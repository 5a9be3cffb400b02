// `tfx model tokenize --compare DIR DIR…` (issue 41): one document in several real tokenizers
// (../shared/data/tokenizers, skipped when absent) — the token and [UNK] counts and vocabulary sizes
// Hugging Face's Rust engine gives (tests/reference/gen_tokenize_compare_reference.mjs), ratios
// against counts made here by hand, the figure, and the usage errors; `tfx tokenize --stats`.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string_view>

#include "helpers.hpp"
#include "xml_check.hpp"
#include "png.hpp"
#include "reference/tokenize_compare_reference.inc"

using namespace tfx::test;

namespace {

const std::string kCmpParagraphs = std::string(TFX_SOURCE_DIR) + "/tests/data/tokenize/";

std::string cmp_folders(const std::filesystem::path& dir) {
  std::string s;
  for (const char* m : {"gpt2", "bert-base-uncased", "llama3", "qwen3"}) s += " " + shell_quote((dir / m).string());
  return s;
}

}  // namespace

TEST_CASE("model tokenize --compare: Hugging Face's token counts for the English and the Korean paragraph") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  // words counted by hand: 9 + 17 in English, 6 + 12 in Korean (runs between spaces)
  const struct {
    const char* file;
    std::size_t words;
  } docs[] = {{"paragraph_en.txt", 26}, {"paragraph_ko.txt", 18}};
  std::size_t gpt2_tokens[2] = {};
  for (std::size_t d = 0; d < 2; ++d) {
    const std::string path = kCmpParagraphs + docs[d].file;
    const double bytes = static_cast<double>(std::filesystem::file_size(path));
    const Run r = run_tfx("model tokenize --file " + shell_quote(path) + " --compare" + cmp_folders(dir) + " --format json");
    REQUIRE(r.code == 0);
    const auto j = json_of(r);
    CHECK(j["summary"]["words"] == docs[d].words);
    CHECK(j["summary"]["bytes"].get<double>() == bytes);
    const auto& rows = j["data"];
    REQUIRE(rows.size() == 4);
    std::size_t seen = 0;
    for (const auto& c : kHfCompareCases) {
      if (std::string_view(c.paragraph) != docs[d].file) continue;
      const auto row = std::find_if(rows.begin(), rows.end(), [&c](const nlohmann::json& x) { return x["tokenizer"] == c.tokenizer; });
      REQUIRE(row != rows.end());
      ++seen;
      CAPTURE(c.tokenizer);
      CAPTURE(c.paragraph);
      CHECK((*row)["tokens"] == c.tokens);
      CHECK((*row)["unknown"] == c.unknown);
      CHECK((*row)["vocabulary"] == c.vocabulary);
      CHECK((*row)["tokens per word"].get<double>() == doctest::Approx(static_cast<double>(c.tokens) / static_cast<double>(docs[d].words)));
      CHECK((*row)["bytes per token"].get<double>() == doctest::Approx(bytes / static_cast<double>(c.tokens)));
      CHECK((*row)["byte fallback"] == 0);  // none of the four falls back to <0xXX> tokens
      CHECK((*row)["file"].get<std::string>().ends_with("tokenizer.json"));
      if (std::string_view(c.tokenizer) == "gpt2") gpt2_tokens[d] = c.tokens;
    }
    CHECK(seen == 4);
  }
  // the known gap: the Korean paragraph costs GPT-2 more than five times the English tokens
  CHECK(gpt2_tokens[1] > 5 * gpt2_tokens[0]);
}

TEST_CASE("model tokenize --compare: the bar figure names the document and labels each tokenizer") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  TempDir t;
  const std::string file = shell_quote(kCmpParagraphs + "paragraph_ko.txt");
  const Run r = run_tfx("model tokenize --file " + file + " --compare" + cmp_folders(dir) + " --svg c.svg --png c.png", t.path);
  REQUIRE(r.code == 0);
  CHECK_FALSE(has(r.out, "byte-level BPE"));  // only figures were asked for: no table
  CHECK(has(r.out, "wrote c.png"));
  const std::string svg = read_file(t / "c.svg");
  CHECK(svg_problem(svg) == "");
  CHECK(has(svg, "paragraph_ko.txt"));
  for (const char* m : {"gpt2", "bert-base-uncased", "llama3", "qwen3", ">167<", ">101<"}) CHECK_MESSAGE(has(svg, m), m);
  const auto png = decode_png(read_file(t / "c.png"));
  CHECK(png.w > 300);
  CHECK(png.h > 300);
  // two documents: a panel each on one scale, a row per document and tokenizer
  const std::string en = shell_quote(kCmpParagraphs + "paragraph_en.txt");
  const Run two = run_tfx("model tokenize --file " + en + " --file " + file + " --compare" + cmp_folders(dir) + " --svg two.svg --format json", t.path);
  REQUIRE(two.code == 0);
  const auto tj = json_of(two);
  REQUIRE(tj["data"].size() == 8);
  CHECK(tj["data"][0]["document"] == "paragraph_en.txt");
  CHECK(tj["data"][4]["document"] == "paragraph_ko.txt");
  CHECK(tj["data"][4]["tokenizer"] == "gpt2");
  CHECK(tj["data"][4]["tokens"] == 167);
  CHECK(tj["summary"]["documents"][1]["words"] == 18);
  const std::string two_svg = read_file(t / "two.svg");
  CHECK(svg_problem(two_svg) == "");
  CHECK(has(two_svg, "paragraph_en.txt"));
  CHECK(has(two_svg, ">167<"));
  CHECK(has(two_svg, "paragraph_ko.txt"));
  // TEXT before --compare works as --file does; the text table is the default output
  const Run x = run_tfx("model tokenize 'hello world' --compare" + cmp_folders(dir));
  REQUIRE(x.code == 0);
  CHECK(has(x.out, "bert-base-uncased"));
}

TEST_CASE("model tokenize --compare: one folder, a folder without a tokenizer, DIR and TEXT both, figures without --compare") {
  TempDir t;
  std::filesystem::create_directory(t / "a");
  std::filesystem::create_directory(t / "b");
  write_file(t / "a" / "vocab.txt", "[UNK]\nhello\n");
  check_one_line_error(run_tfx("model tokenize hello --compare a", t.path), 2, "--compare: got one folder (a); expected two or more");
  check_one_line_error(run_tfx("model tokenize hello --compare a b", t.path), 1, "no tokenizer.json, vocab.txt or vocab.json + merges.txt");
  check_one_line_error(run_tfx("model tokenize a hello --compare a a", t.path), 2, "got DIR a too");
  check_one_line_error(run_tfx("model tokenize a hello --png", t.path), 2, "only with --compare");
  check_one_line_error(run_tfx("model tokenize hello --compare a a --stats", t.path), 2, "--stats and --compare");
  write_file(t / "x.txt", "x");
  check_one_line_error(run_tfx("model tokenize a --file x.txt --file x.txt", t.path), 2, "--file given 2 times");
  // both folders given, vocab.txt's WordPiece: runs without ../shared
  const auto j = json_of(run_tfx("model tokenize 'hello hello x' --compare a a --format json", t.path));
  REQUIRE(j["data"].size() == 2);
  CHECK(j["data"][0]["tokens"] == 3);
  CHECK(j["data"][0]["unknown"] == 1);  // x
}

TEST_CASE("tokenize --stats: the same per-script counts and ratios as model tokenize --stats, on the built-in WordPiece") {
  // I love play ##ing foot ##ball . — 7 tokens for 4 words; 24 characters: 20 Latin letters, 3
  // spaces and a full stop (counted by hand)
  const auto j = json_of(run_tfx("tokenize 'I love playing football.' --vocab wordpiece --stats --format json"));
  const auto& s = j["summary"]["stats"];
  CHECK(s["tokens"] == 7);
  CHECK(s["words"] == 4);
  CHECK(s["characters"] == 24);
  CHECK(s["bytes"] == 24);
  CHECK(s["scripts"]["Latin"]["characters"] == 20);
  CHECK(s["scripts"]["Latin"]["words"] == 4);
  CHECK(s["scripts"]["other"]["characters"] == 4);
  CHECK(s["tokens_per_word"].get<double>() == doctest::Approx(7.0 / 4.0));
  CHECK(s["bytes_per_token"].get<double>() == doctest::Approx(24.0 / 7.0));
  CHECK(s["unknown"] == 0);
  CHECK_FALSE(s.contains("partial_character"));  // only byte-level tokenizers split a character
  // every token twice: the most frequent are all ×2
  const auto d = json_of(run_tfx("tokenize 'I love playing football. I love playing football.' --vocab wordpiece --stats --format json"));
  REQUIRE(d["summary"]["stats"]["most_frequent"].size() == 7);
  for (const auto& t : d["summary"]["stats"]["most_frequent"]) CHECK(t["count"] == 2);
  // character level on Korean: 8 code points (2 spaces), 6 Hangul syllables of 3 bytes, 3 words
  const auto k = json_of(run_tfx("tokenize '나는 학생 이다' --mode char --stats --format json"));
  const auto& ks = k["summary"]["stats"];
  CHECK(ks["tokens"] == 8);
  CHECK(ks["scripts"]["Hangul"]["characters"] == 6);
  CHECK(ks["scripts"]["Hangul"]["bytes"] == 18);
  CHECK(ks["scripts"]["Hangul"]["words"] == 3);
  CHECK(ks["tokens_per_character"].get<double>() == doctest::Approx(1.0));
  // word level with an unknown word: [UNK] counted
  const auto w = json_of(run_tfx("tokenize 'I love zyzzyva' --mode word --stats --format json"));
  CHECK(w["summary"]["stats"]["unknown"] == 1);
  const Run t = run_tfx("tokenize 'I love playing football.' --vocab wordpiece --stats");
  CHECK(has(t.out, "7 tokens for 4 words, 24 characters, 24 bytes: 1.75 tokens per word"));
}

TEST_CASE("model tokenize --format json/csv: each token's character and byte offsets are Hugging Face's") {
  const auto dir = shared_data("tokenizers");
  if (dir.empty()) return;
  // byte pieces of one character span the whole character; accents stripped, jamo of NFD, emoji
  // outside the BMP, a WordPiece [UNK] word, added tokens written in the text, the post-processor's
  // [CLS]/[SEP] at [0, 0), Llama 2's prepended ▁ on the first character, its <0xXX> byte tokens
  for (const HfOffsetCase& c : kHfOffsetCases) {
    // the committed llama2_tiny (▁ BPE, byte fallback) is named from the repository's root
    const std::string folder = std::string_view(c.tokenizer).starts_with("tests/") ? std::string(TFX_SOURCE_DIR) + "/" + c.tokenizer
                                                                                     : (dir / c.tokenizer).string();
    const Run r = run_tfx("model tokenize " + shell_quote(folder) + " " + shell_quote(std::string(c.text)) + " --format json");
    REQUIRE(r.code == 0);
    const auto j = json_of(r)["summary"];
    CAPTURE(c.tokenizer);
    CAPTURE(c.text);
    REQUIRE(j["ids"].size() == c.count);
    for (std::size_t k = 0; k < c.count; ++k) {
      const HfOffset& want = kHfOffsets[c.first + k];
      CAPTURE(k);
      CHECK(j["ids"][k] == want.id);
      CHECK(j["offsets"][k] == nlohmann::json::array({want.char_start, want.char_end}));
      CHECK(j["byte_offsets"][k] == nlohmann::json::array({want.byte_start, want.byte_end}));
    }
  }
  // CSV: the same four numbers per row; --lines: offsets into each line
  const std::string gpt2 = shell_quote((dir / "gpt2").string());
  const Run csv = run_tfx("model tokenize " + gpt2 + " '나 b' --format csv");
  REQUIRE(csv.code == 0);
  CHECK(has(csv.out, "position,token,readable,id,start,end,byte start,byte end\n"));
  CHECK(has(csv.out, ",0,1,0,3\n"));  // each of 나's three byte pieces spans the syllable
  CHECK(has(csv.out, ",1,3,3,5\n"));  // ␣b
  TempDir t;
  write_file(t / "two.txt", "ab\n가 c\n");
  const auto l = json_of(run_tfx("model tokenize " + gpt2 + " --file two.txt --lines --format json", t.path));
  REQUIRE(l["summary"]["offsets"].size() == 2);
  CHECK(l["summary"]["offsets"][1].back() == nlohmann::json::array({1, 3}));        // ␣c in line 2
  CHECK(l["summary"]["byte_offsets"][1].back() == nlohmann::json::array({3, 5}));
}
