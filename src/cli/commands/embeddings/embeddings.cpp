// `tfx embeddings` and `tfx embeddings info [FILE]` (format, words, dimension, cache state; what
// the built-in embedding is); `convert` is in embeddings_convert.cpp.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/commands/embeddings/embeddings_commands.hpp"
#include "cli/common.hpp"
#include "tfx/text/unicode.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "cli/flags/flag_names.hpp"

namespace tfx::cli {

namespace {

struct InfoOptions {
  std::string file;
  EmbeddingFlags emb;
  OutputFlags out;
};

// LoadInfo::cache_state with the flags in place of the library's names: "disabled (--no-cache)",
// "not written (--limit reads only part of the file)", "rebuilt (stale: read with another
// --embeddings-format)".
std::string cache_state_text(const LoadInfo& info) {
  std::string s = with_flags(info.cache_state, {"use_cache = false", "limit"});
  if (const auto at = s.find("another format"); at != std::string::npos) s.replace(at + 8, 6, "--embeddings-format");
  return s;
}

void run_info(const InfoOptions& o) {
  EmbeddingFlags emb = o.emb;
  if (!o.file.empty()) emb.path = o.file;
  const Embeddings e = load_embeddings(emb);
  const LoadInfo& info = e.info();
  const bool builtin = info.format == EmbeddingFormat::builtin;
  Result r;
  r.command = "embeddings info";
  Records rec;
  rec.name = N_("info");
  rec.columns = {N_("property"), N_("value")};
  auto add = [&](const std::string& k, Cell v) { rec.rows.push_back({k, std::move(v)}); };
  add(tr("source"), builtin ? std::string(tr("built-in teaching embedding (compiled into tfx)")) : e.name());
  add(tr("format"), builtin ? std::string(tr("built-in (generated from samples/teaching_embedding.tsv)")) : format_text(info));
  add(tr("words"), static_cast<long long>(e.size()));
  add(tr("dimensions"), static_cast<long long>(e.dim()));
  add(tr("matrix"), fmt::format("{} × {} float32 = {}", e.size(), e.dim(), megabytes(4.0 * e.size() * e.dim())));
  if (!builtin) {
    add(tr("rows in file"), static_cast<long long>(info.file_rows));
    if (const auto sw = e.subwords())
      add(tr("subwords"), trf("character n-grams of {}–{} in {} buckets ({} × {} float32 = {}): words not in the "
                                  "vocabulary get the mean of their n-gram rows",
                                  sw->minn, sw->maxn, sw->buckets, sw->buckets, e.dim(), megabytes(4.0 * sw->buckets * e.dim())));
    add(tr("duplicates dropped"), info.duplicates ? trf("{} (first kept; e.g. {})", info.duplicates, info.first_duplicate)
                                              : std::string("0"));
    add(tr("cache"), cache_state_text(info));
    if (!info.cache_path.empty()) add(tr("cache file"), info.cache_path);
  }
  // words from a file in another encoding (a cp852 .bin) are shown with \xNN for their bytes
  std::string first;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < std::min<std::size_t>(10, e.size()); ++i) first += (i ? " " : "") + unicode::escape_invalid_utf8(e.word(i), &bad);
  add(tr("first words"), first);
  if (bad) add(tr("encoding"), std::string(tr("not UTF-8: bytes that are not UTF-8 are shown as \\xNN (look such words up as the file spells them)")));
  r.params = {{"embeddings", e.name()}};
  r.summary = {{"words", e.size()}, {"dim", e.dim()}, {"format", embedding_format_name(info.format)},
               {"gzip", info.gzip}, {"cache", cache_state_text(info)}, {"duplicates", info.duplicates}};
  if (const auto sw = e.subwords()) r.summary[N_("subwords")] = {{"minn", sw->minn}, {"maxn", sw->maxn}, {"buckets", sw->buckets}};
  r.blocks.push_back(std::move(rec));
  if (builtin) {
    r.blocks.push_back(Text{
        tr("The built-in embedding is CONSTRUCTED FOR TEACHING, not trained: each word's vector is its values on the named "
           "axes below (from samples/teaching_embedding.tsv), a concept-identity part shared by a word's forms "
           "(king/queen/kings, walk/walked, france/paris/french), and small deterministic noise. That is why "
           "king − man + woman lands on queen so cleanly.")});
    r.blocks.push_back(Text{
        tr("Real vectors: download e.g. glove.6B.zip from https://nlp.stanford.edu/projects/glove/ and run "
           "`tfx analogy king man woman --embeddings glove.6B.100d.txt`, or `export TFX_EMBEDDINGS=$PWD/glove.6B.100d.txt` "
           "once. GloVe, word2vec (.txt/.bin), fastText .vec and .gz files are read; the first load writes a cache "
           "($XDG_CACHE_HOME/tfx) so later calls start instantly.")});
    Records axes;
    axes.name = N_("axes");
    axes.columns = {N_("dim"), N_("axis"), N_("meaning")};
    const auto named = builtin_axes();
    for (std::size_t k = 0; k < named.size(); ++k)
      axes.rows.push_back({static_cast<long long>(k), named[k].first, named[k].second});
    axes.rows.push_back({fmt::format("{}–{}", named.size(), e.dim() - 1), std::string("concept1…"),
                         std::string(tr("concept identity: a fixed pseudo-random direction per concept (weight 1.5)"))});
    r.blocks.push_back(std::move(axes));
  }
  r.primary = "info";
  if (o.out.format != Format::json) r.summary = nlohmann::json::object();  // the table already says it
  present(r, o.out);
}

}  // namespace

void register_embeddings(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("embeddings", tr("Word-vector files: info (format, size, cache) and convert"));
  cmd->group(tr("Word embeddings"));
  cmd->require_subcommand(1);
  set_examples(cmd, {tr("tfx embeddings info                            # the built-in teaching embedding and its axes"),
                     tr("tfx embeddings info glove.6B.100d.txt          # format, words, dimension, cache state"),
                     tr("tfx embeddings convert glove.6B.300d.txt glove300.tfx")});

  auto [info, io] = add_command(*cmd, "info",
                                tr("Format, words, dimension and cache state of FILE (default: --embeddings, "
                                   "$TFX_EMBEDDINGS, else the built-in teaching embedding and its axes)"),
                                run_info, tr("Subcommands"));
  info->add_option("file", io->file, tr("Embedding file (GloVe, word2vec text/binary, fastText .vec, .gz, or a tfx table)"))
      ->check(non_empty_path(N_("leave FILE out for the default")));
  add_embedding_flags(info, io->emb);
  add_output_flags(info, io->out, false);
  set_examples(info, {tr("tfx embeddings info                       # the built-in embedding and its named axes"),
                      tr("tfx embeddings info glove.6B.100d.txt     # loads (and caches) the file"),
                      tr("tfx embeddings info vectors.bin --format json")});

  register_embeddings_convert(cmd);
}

}  // namespace tfx::cli
