// The library speaks its own terms: notes in tables and terminal views name library options
// (`full`, encode_png) unless the caller names them otherwise, the embedding cache states name
// EmbeddingSource fields and the cache folder comes from the caller, not the environment; the
// CLI puts its flags and $XDG_CACHE_HOME there.
#include <cstdlib>
#include <optional>
#include <string>

#include "helpers.hpp"
#include "tfx/embeddings/embeddings.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("library notes: a summarized table names `full`, the CLI names --full") {
  Result r;
  r.command = "test";
  Matrix m;
  m.name = "big";
  m.values = Tensor({30, 20});  // more than 24 rows and 12 columns: summarized
  r.blocks.push_back(m);
  OutputOptions o;
  const std::string lib = encode_table(r, o);
  CHECK(lib.find("; full prints all)") != std::string::npos);
  CHECK(lib.find("--") == std::string::npos);
  o.full_name = "--full";
  CHECK(encode_table(r, o).find("; --full prints all)") != std::string::npos);
  o.full = true;
  CHECK(encode_table(r, o).find("prints all") == std::string::npos);  // nothing elided

  const Run cli = run_tfx("pe --len 30 --dim 20", {}, "-u COLUMNS NO_COLOR=1");
  check_stdout(cli, 0, "(… = not shown: 16 of 30 rows, 10 of 20 columns shown; --full prints all)");
}

TEST_CASE("library notes: a view without heatmaps names encode_png, or the caller's word for it") {
  Figure f;
  LineChart line;
  line.series.push_back(Series{"a", {0, 1}, {0, 1}});
  f.panels.push_back(line);
  ViewOptions v{100, false};
  CHECK(render_view(f, v).find("(no heatmap to draw in the terminal; use encode_png for this figure)") != std::string::npos);
  v.whole_figure = "--png";
  CHECK(render_view(f, v).find("use --png for this figure") != std::string::npos);
}

TEST_CASE("library notes: embedding cache states name EmbeddingSource fields; the cache folder is the caller's") {
  TempDir t;
  write_file(t / "v.txt", "king 1 2 3\nqueen 1 2 4\nman 0 1 0\n");
  EmbeddingSource s;
  s.path = (t / "v.txt").string();
  s.cache_dir = (t / "cache").string();
  s.use_cache = false;
  CHECK(load_embeddings(s).info().cache_state == "disabled (use_cache = false)");
  s.use_cache = true;
  s.limit = 2;
  CHECK(load_embeddings(s).info().cache_state == "not written (limit reads only part of the file)");

  // no cache_dir: the library's fallback whatever $XDG_CACHE_HOME says (only the CLI reads it)
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  setenv("XDG_CACHE_HOME", (t / "xdg").string().c_str(), 1);
  const std::string path = cache_path_for(s.path);
  if (saved) setenv("XDG_CACHE_HOME", saved->c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");
  CHECK(path.rfind(fallback_cache_dir() + "/", 0) == 0);

  // the CLI: $XDG_CACHE_HOME/tfx, and its flags in the states
  const std::string env = "XDG_CACHE_HOME=" + (t / "xdg").string();
  const Run limited = run_tfx("embeddings info --format csv --limit 2 " + shell_quote(s.path), {}, env);  // before a cache exists
  CHECK(limited.out.find("cache,not written (--limit reads only part of the file)") != std::string::npos);
  CHECK(run_tfx("embeddings info --format csv --no-cache " + shell_quote(s.path), {}, env).out.find("cache,disabled (--no-cache)") !=
        std::string::npos);
  const Run info = run_tfx("embeddings info --format csv " + shell_quote(s.path), {}, env);
  CHECK(info.code == 0);
  CHECK(info.out.find("cache file," + (t / "xdg" / "tfx").string() + "/") != std::string::npos);
  write_file(t / "w.txt", "3 3\nking 1 2 3\nqueen 1 2 4\nman 0 1 0\n");  // word2vec text, also read as fastText .vec
  const std::string w = shell_quote((t / "w.txt").string());
  CHECK(run_tfx("embeddings info --format csv " + w, {}, env).out.find("cache,written") != std::string::npos);
  const Run other = run_tfx("embeddings info --format csv --embeddings-format fasttext " + w, {}, env);
  CHECK(other.out.find("cache,rebuilt (stale: read with another --embeddings-format)") != std::string::npos);
}
