// `tfx tokenize --file` and `tfx model tokenize --file` (issue 41): a document from a file or
// standard input, each line its own sequence with --lines, and the bad inputs — missing, a
// directory, a FIFO nothing writes to, invalid UTF-8 (with its byte, line and column), over the
// memory budget (refused before reading), TEXT and --file together or neither.
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("tokenize --file: a document from a file or stdin gives the ids TEXT gives") {
  TempDir d;
  write_file(d / "doc.txt", "I love playing football.\nI love playing football.\n");
  const auto f = json_of(run_tfx("tokenize --file doc.txt --vocab wordpiece --format json", d.path));
  const auto t = json_of(run_tfx("tokenize 'I love playing football. I love playing football.' --vocab wordpiece --format json", d.path));
  CHECK(f["summary"]["ids"] == t["summary"]["ids"]);
  CHECK(f["summary"]["count"] == 14);  // I love play ##ing foot ##ball . twice
  const auto s = json_of(run_tfx("tokenize --file - --vocab wordpiece --format json", d.path, "", (d / "doc.txt").string()));
  CHECK(s["summary"]["ids"] == t["summary"]["ids"]);
  // the default vocabulary (the translator's, split at whitespace: a line break splits too)
  const auto tf = json_of(run_tfx("tokenize --file doc.txt --format json", d.path));
  const auto tt = json_of(run_tfx("tokenize 'I love playing football. I love playing football.' --format json", d.path));
  CHECK(tf["summary"]["ids"] == tt["summary"]["ids"]);
  CHECK(tf["summary"]["count"] == 8);  // I · love · playing · football. twice
  CHECK(tf["params"]["file"] == "doc.txt");
}

TEST_CASE("tokenize --file: missing, directory, FIFO, invalid UTF-8, over budget, TEXT and --file: one-line errors") {
  TempDir d;
  check_one_line_error(run_tfx("tokenize --file missing.txt", d.path), 1, "--file missing.txt: no such file");
  check_one_line_error(run_tfx("tokenize --file .", d.path), 1, "is a directory");
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  check_one_line_error(run_tfx("tokenize --file fifo", d.path), 1, "a named pipe that nothing wrote to");
  write_file(d / "bad.txt", "ab\ncd\xff" "x");
  check_one_line_error(run_tfx("tokenize --file bad.txt", d.path), 1, "invalid UTF-8 at byte 5 (line 2, column 3)");
  write_file(d / "big.txt", std::string(4096, 'a'));
  check_one_line_error(run_tfx("tokenize --file big.txt", d.path, "TFX_MEMORY_LIMIT=4096"), 1, "over the memory budget");
  write_file(d / "ok.txt", "hello");
  check_one_line_error(run_tfx("tokenize hello --file ok.txt", d.path), 2, "not both");
  check_one_line_error(run_tfx("tokenize", d.path), 2, "no text");
}

TEST_CASE("model tokenize --file: GPT-2 on a document, --lines as encode_batch, npy ids") {
  const auto dir = shared_data("tokenizers/gpt2");
  if (dir.empty()) return;
  TempDir d;
  write_file(d / "doc.txt", "Hello, my dog is cute\nHello, my dog is cute\n");
  const std::string g = shell_quote(dir.string());
  // the data README's ids for "Hello, my dog is cute"; the newline between is Ċ (198)
  const auto whole = json_of(run_tfx("model tokenize " + g + " --file doc.txt --format json", d.path));
  CHECK(whole["summary"]["ids"] ==
        nlohmann::json::array({15496, 11, 616, 3290, 318, 13779, 198, 15496, 11, 616, 3290, 318, 13779, 198}));
  const auto lines = json_of(run_tfx("model tokenize " + g + " --file - --lines --format json", d.path, "", (d / "doc.txt").string()));
  CHECK(lines["summary"]["ids"] == nlohmann::json::array({nlohmann::json::array({15496, 11, 616, 3290, 318, 13779}),
                                                          nlohmann::json::array({15496, 11, 616, 3290, 318, 13779})}));
  const Run n = run_tfx("model tokenize " + g + " --file doc.txt -o ids.npy", d.path);
  REQUIRE(n.code == 0);
  const std::string npy = read_file(d / "ids.npy");
  REQUIRE(npy.size() >= 128 + 14 * 4);
  float v[2];
  std::memcpy(v, npy.data() + npy.size() - 14 * 4, sizeof v);  // the first two ids, as float32
  CHECK(v[0] == 15496.0f);
  CHECK(v[1] == 11.0f);
  check_one_line_error(run_tfx("model tokenize " + g + " --file bad.txt", d.path), 1, "no such file");
}

TEST_CASE("model tokenize --stats: counts per script, tokens per word, partial-character tokens (GPT-2 on Korean)") {
  const auto dir = shared_data("tokenizers/gpt2");
  if (dir.empty()) return;
  // 7 words (I am a student. | 나는 학생 이다.), 11 Latin letters, 6 Hangul syllables (18 bytes), 6
  // spaces and 2 full stops; Hugging Face's GPT-2 gives 23 tokens (tests/reference, the same text)
  const auto j = json_of(run_tfx("model tokenize " + shell_quote(dir.string()) + " 'I am a student. 나는 학생 이다.' --stats --format json"));
  const auto& s = j["summary"]["stats"];
  CHECK(s["tokens"] == 23);
  CHECK(s["words"] == 7);
  CHECK(s["characters"] == 25);
  CHECK(s["bytes"] == 37);
  CHECK(s["scripts"]["Hangul"]["characters"] == 6);
  CHECK(s["scripts"]["Hangul"]["bytes"] == 18);
  CHECK(s["scripts"]["Hangul"]["words"] == 3);
  CHECK(s["scripts"]["Latin"]["characters"] == 11);
  CHECK(s["scripts"]["Latin"]["words"] == 4);
  CHECK(s["scripts"]["other"]["characters"] == 8);
  CHECK(s["tokens_per_word"].get<double>() == doctest::Approx(23.0 / 7.0));
  CHECK(s["partial_character"].get<int>() > 0);  // byte pieces of Hangul syllables
  CHECK(s["unknown"] == 0);
}
