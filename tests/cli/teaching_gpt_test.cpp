// The built-in `teaching-gpt` (issue 46): trained by scripts/train_teaching_gpt.sh with `tfx train
// gpt` on data/teaching_gpt/corpus.txt and compiled into tfx. Every model command opens it by name;
// it has learned the corpus's facts (the capital of France); `model info` says it is the built-in
// and how it was trained; its stored weights carry GPT2LMHeadModel's names and the shapes its
// config.json gives (read here with this file's own safetensors header reader); a folder named
// teaching-gpt in the working directory is refused, not silently preferred; and `train gpt` is
// deterministic (the script's promise: the same seed and threads, the same bytes). A prompt's words
// that the corpus never had are named in a warning.
#include <nlohmann/json.hpp>

#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/model/builtin_models.hpp"

using namespace tfx::test;

namespace {

// The safetensors header of `bytes`: 8 bytes little-endian length, then that much JSON.
nlohmann::json tg_header(std::string_view bytes) {
  REQUIRE(bytes.size() >= 8);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  REQUIRE(8 + n <= bytes.size());
  return nlohmann::json::parse(bytes.substr(8, n));
}

std::string tg_env(const TempDir& cache) { return "XDG_CACHE_HOME=" + shell_quote(cache.path.string()); }

}  // namespace

TEST_CASE("teaching-gpt: the next token after \"The capital of France is\" is Paris") {
  TempDir cwd, cache;
  const Run r = run_tfx("model next teaching-gpt \"The capital of France is\" -k 3 --format json", cwd.path, tg_env(cache));
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const auto j = json_of(r);
  const std::string top = j["data"][0]["token"].get<std::string>();
  CAPTURE(top);
  CHECK(top == "␣Paris");
  CHECK(j["data"][0]["probability"].get<double>() > 0.5);
  // the files were written once into the cache, named after their content; nothing in the working folder
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(cwd.path)) entries += !e.path().empty();
  CHECK(entries == 0);
  std::size_t copies = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(cache.path)) copies += e.path().filename() == "model.safetensors";
  CHECK(copies == 1);
  // a second command reads the cached copy (and still answers the same)
  const Run again = run_tfx("model next teaching-gpt \"The capital of France is\" -k 1 --format json", cwd.path, tg_env(cache));
  REQUIRE(again.code == 0);
  CHECK(json_of(again)["data"][0]["token"] == "␣Paris");
}

TEST_CASE("teaching-gpt: model info says it is the built-in and how tfx trained it") {
  TempDir cwd, cache;
  const Run r = run_tfx("model info teaching-gpt", cwd.path, tg_env(cache));
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "teaching-gpt: "));
  CHECK(has(r.out, "built_in"));
  CHECK(has(r.out, "compiled into tfx"));
  CHECK(has(r.out, "trained"));
  CHECK(has(r.out, "by tfx train gpt on corpus.txt"));
  // the generation command opens it too, and writes words of the corpus
  const Run g = run_tfx("model generate teaching-gpt \"나는\" -n 8", cwd.path, tg_env(cache));
  CAPTURE(g.err);
  REQUIRE(g.code == 0);
  CHECK(has(g.out, "나는"));
}

TEST_CASE("teaching-gpt: the stored weights have GPT2LMHeadModel's names and config.json's shapes") {
  const auto cfg = nlohmann::json::parse(tfx::teaching_gpt_config());
  CHECK(cfg["model_type"] == "gpt2");
  CHECK(cfg["tfx_trained"]["command"] == "tfx train gpt");
  const int v = cfg["vocab_size"], d = cfg["n_embd"], layers = cfg["n_layer"], ctx = cfg["n_positions"];
  const auto h = tg_header(tfx::teaching_gpt_weights());
  CHECK(h.size() == static_cast<std::size_t>(2 + 12 * layers + 2 + 1));  // + __metadata__
  auto shape = [&](const std::string& name) {
    INFO(name);
    REQUIRE(h.contains(name));
    CHECK(h[name]["dtype"] == "F32");
    return h[name]["shape"].get<std::vector<int>>();
  };
  CHECK(shape("transformer.wte.weight") == std::vector<int>{v, d});
  CHECK(shape("transformer.wpe.weight") == std::vector<int>{ctx, d});
  for (int l = 0; l < layers; ++l) {
    const std::string p = "transformer.h." + std::to_string(l) + ".";
    CHECK(shape(p + "ln_1.weight") == std::vector<int>{d});
    CHECK(shape(p + "attn.c_attn.weight") == std::vector<int>{d, 3 * d});
    CHECK(shape(p + "attn.c_attn.bias") == std::vector<int>{3 * d});
    CHECK(shape(p + "attn.c_proj.weight") == std::vector<int>{d, d});
    CHECK(shape(p + "mlp.c_fc.weight") == std::vector<int>{d, 4 * d});
    CHECK(shape(p + "mlp.c_proj.weight") == std::vector<int>{4 * d, d});
  }
  CHECK(shape("transformer.ln_f.bias") == std::vector<int>{d});
  CHECK(nlohmann::json::parse(tfx::teaching_gpt_tokenizer())["model"]["vocab"].size() == static_cast<std::size_t>(v));
  // within the budget for the binary
  CHECK(tfx::teaching_gpt_weights().size() + tfx::teaching_gpt_tokenizer().size() + tfx::teaching_gpt_config().size() <= 4u << 20);
}

TEST_CASE("teaching-gpt: a file or folder of that name in the working folder is refused; ./teaching-gpt opens it") {
  TempDir cwd, cache;
  std::filesystem::create_directory(cwd / "teaching-gpt");
  const Run r = run_tfx("model info teaching-gpt", cwd.path, tg_env(cache));
  CHECK(r.code == 1);
  CHECK(has(r.err, "write ./teaching-gpt to open yours"));
  const Run own = run_tfx("model info ./teaching-gpt", cwd.path, tg_env(cache));
  CHECK(own.code != 0);
  CHECK(has(own.err, "no config.json"));  // the empty folder itself, not the built-in
}

TEST_CASE("train gpt: the same seed and threads write byte-identical weights") {
  TempDir d;
  std::string corpus;
  const char* lines[] = {"The capital of France is Paris. ", "파리는 프랑스의 수도 이다. ", "A cat is an animal. ", "나는 공원에 간다. "};
  for (int i = 0; i < 40; ++i) corpus += lines[i % 4];
  write_file(d / "corpus.txt", corpus);
  const std::string args = " --steps 6 --d-model 16 --layers 1 --heads 2 --context 8 --batch 2 --vocab-size 280 --threads 2 --no-progress";
  REQUIRE(run_tfx("train gpt --text corpus.txt -o a --seed 7" + args, d.path).code == 0);
  REQUIRE(run_tfx("train gpt --text corpus.txt -o b --seed 7" + args, d.path).code == 0);
  const std::string a = read_file(d / "a/model.safetensors"), b = read_file(d / "b/model.safetensors");
  CHECK(a.size() > 1000);
  CHECK(a == b);
  CHECK(read_file(d / "a/tokenizer.json") == read_file(d / "b/tokenizer.json"));
  // another seed gives other weights (the comparison above can fail)
  REQUIRE(run_tfx("train gpt --text corpus.txt -o c --seed 8" + args, d.path).code == 0);
  CHECK(read_file(d / "c/model.safetensors") != a);
}

TEST_CASE("teaching-gpt: a prompt's words that its corpus never had are named on stderr; a prompt of its world gets no warning") {
  // the reference: the corpus file itself, split here by a stream and trimmed by find_first_not_of
  std::set<std::string> corpus;
  {
    std::istringstream in(tfx::test::read_file(std::filesystem::path(TFX_SOURCE_DIR) / "data/teaching_gpt/corpus.txt"));
    const std::string punct = ".,?!;:'\"()";
    for (std::string w; in >> w;) {
      const std::size_t a = w.find_first_not_of(punct), b = w.find_last_not_of(punct);
      if (a == std::string::npos) continue;
      w = w.substr(a, b - a + 1);
      for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      corpus.insert(w);
    }
  }
  REQUIRE(corpus.count("cat") == 1);
  REQUIRE(corpus.count("paris") == 1);
  for (const char* w : {"sat", "on", "mat", "고양이를"}) REQUIRE(corpus.count(w) == 0);
  REQUIRE(corpus.count("나는") == 1);
  // the library: each unseen word once, as first written; case and end punctuation do not count
  CHECK(tfx::words_unseen_by_teaching_gpt("Sat, SAT sat! The CAT (paris) mat.") == std::vector<std::string>{"Sat", "mat"});
  CHECK(tfx::words_unseen_by_teaching_gpt("The capital of France is Paris.").empty());
  CHECK(tfx::words_unseen_by_teaching_gpt("  ... !! ").empty());
  // the commands
  TempDir cwd, cache;
  const Run r = run_tfx("model next teaching-gpt \"The cat sat on the mat.\" -k 1", cwd.path, tg_env(cache));
  CAPTURE(r.err);
  CHECK(r.code == 0);
  CHECK(has(r.err, "teaching-gpt never read the words 'sat', 'on', 'mat' in its training sentences"));
  CHECK_FALSE(has(r.err, "'cat'"));
  const Run g = run_tfx("model generate teaching-gpt \"나는 고양이를\" -n 2", cwd.path, tg_env(cache));
  CAPTURE(g.err);
  CHECK(g.code == 0);
  CHECK(has(g.err, "teaching-gpt never read the word '고양이를'"));
  // a control byte in a word is quoted, not sent to the terminal
  const Run esc = run_tfx("model next teaching-gpt \"$(printf 'The \\033[2Jcat')\" -k 1", cwd.path, tg_env(cache));
  CAPTURE(esc.err);
  CHECK(has(esc.err, "never read the word '\\x1b[2Jcat'"));
  CHECK_FALSE(has(esc.err, "\x1b"));
  const Run known = run_tfx("model lens teaching-gpt \"The capital of France is\"", cwd.path, tg_env(cache));
  CAPTURE(known.err);
  CHECK(known.code == 0);
  CHECK_FALSE(has(known.err, "never read"));
}
