// The shared embedding flags and the load they describe.
#include "cli/flags/embedding_flags.hpp"
#include "cli/common.hpp"

#include "cli/present/progress_bar.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli/flags/flag_names.hpp"
#include "tfx/embeddings/checkpoint_embeddings.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

void add_embedding_flags(CLI::App* app, EmbeddingFlags& f) {
  app->add_option("--embeddings", f.path,
                  tr("Word-vector file: GloVe .txt, word2vec .txt/.bin, a Hugging Face checkpoint folder (its token embedding), fastText .vec or .bin model (subword vectors for "
                     "unknown words), optionally .gz, or a tfx table "
                     "(default: $TFX_EMBEDDINGS, else the built-in teaching embedding)"))
      ->check(CLI::Validator(
          [](std::string& path) {
            return path.empty() ? fmt::format(N_("expected a file name, got an empty one ({})"), N_("leave --embeddings out for the default"))
                                : std::string();
          },
          ""))
      ->group(tr("Embeddings"));
  add_embeddings_format_flag(app, f.format)->group(tr("Embeddings"));
  add_limit_flag(app, f.limit)->group(tr("Embeddings"));
  app->add_flag("--no-cache", f.no_cache, tr("Neither read nor write the binary cache ($XDG_CACHE_HOME/tfx)"))->group(tr("Embeddings"));
  app->add_flag("--ignore-case", f.ignore_case,
                tr("Case-insensitive word lookup (ASCII): an exact match wins, else the first word in file order"))
      ->group(tr("Embeddings"));
  add_translator_flag(app, f.translator,
                      tr("its trained embedding table instead of word vectors; ids as tfx tokenize prints them; tfx lookup's default"))
      ->group(tr("Embeddings"));
}

namespace {

// The file to use: --embeddings if given, else $TFX_EMBEDDINGS if set and non-empty, else "" (the
// built-in embedding).
std::string resolve_embeddings_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("TFX_EMBEDDINGS"); env && *env) return env;
  return "";
}

// $XDG_CACHE_HOME/tfx, else $HOME/.cache/tfx, else the library's fallback (a temporary folder).
std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') return std::string(x) + "/tfx";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tfx";
  return fallback_cache_dir();
}

}  // namespace

EmbeddingSource embedding_source(const EmbeddingFlags& f) {
  EmbeddingSource s;
  s.path = f.builtin ? std::string() : resolve_embeddings_path(f.path);
  s.cache_dir = default_cache_dir();
  // a stale $TFX_EMBEDDINGS must be named, or "no such file" points at a flag the user never gave
  if (f.path.empty() && !f.builtin && !s.path.empty() && !std::filesystem::exists(s.path))
    throw Error(fmt::format(N_("$TFX_EMBEDDINGS is {}: no such file (give --embeddings FILE, or unset TFX_EMBEDDINGS for the "
                            "built-in teaching embedding)"),
                            s.path));
  s.format = parse_embedding_format(f.format, "embeddings_format");
  s.limit = static_cast<std::size_t>(f.limit);
  s.use_cache = !f.no_cache;
  return s;
}

Embeddings load_embeddings(const EmbeddingFlags& f) {
  if (checkpoint_folder(f.path)) return checkpoint_embeddings(f.path);
  if (f.translator) {
    if (!f.path.empty()) throw usage_error(N_("give one table: --translator or --embeddings FILE (not both)"));
    const Translator& m = cli_translator();
    return Embeddings::from_rows(m.vocab.tokens, m.embedding, tr("the teaching translator's trained embedding"));
  }
  EmbeddingSource src = embedding_source(f);
  // a big file takes seconds to parse the first time: a bar on stderr (only on a terminal); a
  // text file is read once before, to count its rows (at the disk's speed when it is not cached)
  const std::string name = std::filesystem::path(src.path).filename().string();
  ProgressBar count_bar(trf("counting the rows of {}", name), "B");
  ProgressBar bar(trf("loading {}", name), "B", true, ProgressBar::Clock::at_first_report);
  src.count_progress = count_bar.callback();
  src.progress = bar.callback();
  Embeddings e = tfx::load_embeddings(src);
  bar.finish();
  const LoadInfo& info = e.info();
  if (info.duplicates > 0) {
    std::fflush(stdout);
    const std::string note =
        info.duplicates == 1
            ? trf("tfx: warning: {}: {} duplicate word dropped (the first of each is kept), e.g. {}", e.name(), info.duplicates,
                  info.first_duplicate)
            : trf("tfx: warning: {}: {} duplicate words dropped (the first of each is kept), e.g. {}", e.name(), info.duplicates,
                  info.first_duplicate);
    std::fprintf(stderr, "%s\n", note.c_str());
  }
  // a read-only or full cache directory: the load worked, only the cache is missing
  if (const std::string not_written = "not written: "; info.cache_state.rfind(not_written, 0) == 0) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n",
                 trf("tfx: warning: the cache of {} was not written ({}); the next load parses the file again "
                     "(--no-cache skips the cache)",
                     e.name(), info.cache_state.substr(not_written.size()))
                     .c_str());
  }
  return e;
}

std::size_t lookup_word(const Embeddings& e, const std::string& word, const EmbeddingFlags& f) {
  try {
    return require_word(e, word, f.ignore_case);
  } catch (const Error& err) {
    // the library names its parameter; the command line has the flag
    std::string msg = err.what();
    const std::string param = "use ignore_case)";
    if (const auto at = msg.find(param); at != std::string::npos) msg.replace(at, param.size(), "add --ignore-case)");
    throw Error(msg, err.kind(), err.params());
  }
}

}  // namespace tfx::cli
