// The terminal path: every command that can show progress, run on the real data of ../shared/data
// with stderr on a pseudo-terminal (so the progress bars are drawn, TFX_PROGRESS_DELAY=0), with a
// cold cache, a warm cache and --no-cache. The rest of the suite pipes stderr, which never draws
// a bar: a fastText .bin load once segfaulted only here (a progress ticker kept a pointer to a
// temporary). Each run must exit 0 with its answer, no signal, and leave no temporary file.
#include <doctest/doctest.h>

#include <filesystem>

#include "helpers.hpp"
#include "pty.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

namespace {

// Runs tfx ARGS on a terminal (stdout and stderr) with the cache in `cache`; checks a clean exit
// whose screen shows `answer`.
void run_on_terminal(const std::vector<std::string>& args, const fs::path& cache, const std::string& answer) {
  const std::string xdg = "XDG_CACHE_HOME=" + cache.string();
  PtyRun r = run_in_pty(args, 100, 30, {"TFX_PROGRESS_DELAY=0", xdg}, true, false);
  if (!r.ok) {
    MESSAGE("no pty available; skipped");
    return;
  }
  std::string line;
  for (const std::string& a : args) line += a + " ";
  CAPTURE(line);
  CAPTURE(r.screen.substr(0, 2000));
  CHECK(r.code == 0);  // 139 was the segfault
  CHECK(has(r.screen, answer));
  CHECK(temporaries(cache).empty());
}

}  // namespace

TEST_CASE("terminal: every fastText .bin of ../shared/data loads with progress on a terminal, cold, warm and uncached") {
  const fs::path data = shared_data();
  if (data.empty()) return;
  for (const char* bin : {"lee_fasttext.bin", "lee_fasttext_new.bin", "non_ascii_fasttext.bin", "cp852_fasttext.bin",
                          "toy-model.bin", "toy-model-pretrained.bin"}) {
    CAPTURE(bin);
    TempDir cache;
    const std::string path = (data / bin).string();
    // an out-of-vocabulary word gets its subword vector: the bar covers the whole model load
    run_on_terminal({"similar", "안녕", "--embeddings", path, "-k", "2"}, cache.path, "rank");  // cold: writes the cache
    run_on_terminal({"similar", "안녕", "--embeddings", path, "-k", "2"}, cache.path, "rank");  // warm: maps it
    run_on_terminal({"similar", "안녕", "--embeddings", path, "-k", "2", "--no-cache"}, cache.path, "rank");
  }
}

TEST_CASE("terminal: text and binary word vectors, eval-analogies, eval-similarity and project draw their bars on a terminal") {
  const fs::path data = shared_data();
  if (data.empty()) return;
  TempDir cache, out;
  const std::string glove = (data / "glove.6B.50d.top2446.txt").string();
  run_on_terminal({"analogy", "king", "man", "woman", "--embeddings", glove}, cache.path, "queen");
  run_on_terminal({"analogy", "king", "man", "woman", "--embeddings", glove}, cache.path, "queen");
  run_on_terminal({"similar", "king", "--embeddings", (data / "euclidean_vectors.bin").string(), "--no-cache"},
                  cache.path, "rank");
  run_on_terminal({"similar", "government", "--embeddings", (data / "lee_fasttext.vec").string()}, cache.path, "rank");
  run_on_terminal({"eval-analogies", (data / "questions-words.txt").string(), "--embeddings", glove}, cache.path,
                  "capital-common-countries");
  run_on_terminal({"eval-similarity", (data / "wordsim353.tsv").string(), "--embeddings", glove}, cache.path,
                  "spearman");
  run_on_terminal({"project", "king", "queen", "man", "woman", "paris", "france", "--embeddings", glove, "--png",
                   (out / "p.png").string()},
                  cache.path, "p.png");
  run_on_terminal({"pe", "sim", "--len", "3000", "--dim", "64", "-o", (out / "s.npy").string()}, cache.path, "");
  CHECK(temporaries(out.path).empty());
}
