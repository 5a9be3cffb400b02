// `tfx embeddings info [FILE]` (format, words, dimension, cache state; what the built-in
// embedding is) and `tfx embeddings convert IN OUT` (write a tfx table or another format).
#include <fmt/format.h>
#include <sys/stat.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/text/unicode.hpp"
#include "cli/embedding_flags.hpp"
#include "cli/flag_names.hpp"

namespace tfx::cli {

namespace {

struct InfoOptions {
  std::string file;
  EmbeddingFlags emb;
  OutputFlags out;
};

struct ConvertOptions {
  std::string in, out_path;
  std::string to = "tfx";
  EmbeddingFlags emb;
  OutputFlags out;
};

std::string megabytes(double bytes) { return fmt::format("{:.1f} MB", bytes / 1e6); }

// LoadInfo::cache_state with the flags in place of the library's names: "disabled (--no-cache)",
// "not written (--limit reads only part of the file)", "rebuilt (stale: read with another
// --embeddings-format)".
std::string cache_state_text(const LoadInfo& info) {
  std::string s = with_flags(info.cache_state, {"use_cache = false", "limit"});
  if (const auto at = s.find("another format"); at != std::string::npos) s.replace(at + 8, 6, "--embeddings-format");
  return s;
}

std::string format_text(const LoadInfo& info) {
  return std::string(embedding_format_name(info.format)) + (info.gzip ? " (gzip)" : "");
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
  if (o.out.format != "json") r.summary = nlohmann::json::object();  // the table already says it
  present(r, o.out);
}

EmbeddingFormat target_format(const ConvertOptions& o) {
  return parse_choice<EmbeddingFormat>(kEmbeddingWriteChoices, o.to, "to");
}

void run_convert(const ConvertOptions& o) {
  EmbeddingFlags emb = o.emb;
  emb.path = o.in;
  const EmbeddingFormat to = target_format(o);
  if (o.in == o.out_path) throw usage_error(fmt::format("convert: OUT must differ from IN ({})", o.in));
  emb.no_cache = true;  // convert reads the file itself; the cache is not needed
  const Embeddings e = load_embeddings(emb);
  write_embedding_file(e, o.out_path, to);
  struct stat st{};
  const double bytes = stat(o.out_path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0.0;
  Result r;
  r.command = "embeddings convert";
  r.params = {{"in", o.in}, {"out", o.out_path}, {"to", o.to}};
  if (o.out.format == "json") r.summary = {{"words", e.size()}, {"dim", e.dim()}, {"bytes", static_cast<long long>(bytes)}};
  r.blocks.push_back(Text{trf("wrote {}: {} words × {} dims as {} ({}), read from {} ({})", o.out_path, e.size(),
                                      e.dim(), o.to == "tfx" ? tr("a tfx table") : o.to, megabytes(bytes), o.in,
                                      format_text(e.info()))});
  if (to == EmbeddingFormat::tfx_cache)
    r.blocks.push_back(Text{trf("use it with --embeddings {} (memory-mapped: loads in milliseconds)", o.out_path)});
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
      ->check(non_empty_path("leave FILE out for the default"));
  add_embedding_flags(info, io->emb);
  add_output_flags(info, io->out, false);
  set_examples(info, {tr("tfx embeddings info                       # the built-in embedding and its named axes"),
                      tr("tfx embeddings info glove.6B.100d.txt     # loads (and caches) the file"),
                      tr("tfx embeddings info vectors.bin --format json")});

  auto [conv, co] = add_command(*cmd, "convert", tr("Write IN as a tfx table (memory-mapped, instant loads) or another format"),
                                run_convert, tr("Subcommands"));
  conv->add_option("in", co->in, tr("Input embedding file (any format tfx reads)"))->required()->check(non_empty_path("give a file"));
  conv->add_option("out", co->out_path, tr("Output file (written to OUT.tmp.PID, then renamed)"))
      ->required()
      ->check(CLI::Validator(
          [](std::string& path) {
            struct stat st {};
            if (path.empty()) return std::string("expected a file name, got an empty one");
            if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
              return fmt::format("'{}' is {}; expected a regular file name (it is written to OUT.tmp.PID, then renamed)", path,
                                 S_ISDIR(st.st_mode) ? "a directory" : "a device or pipe");
            return std::string();
          },
          ""));
  conv->add_option("--to", co->to, tr("Output format: ") + choice_list<EmbeddingFormat>(kEmbeddingWriteChoices, true))
      ->capture_default_str()
      ->check(one_of<EmbeddingFormat>(kEmbeddingWriteChoices));
  conv->add_option("--embeddings-format", co->emb.format, tr("Format of IN: ") + choice_list<EmbeddingFormat>(kEmbeddingFormatChoices))
      ->capture_default_str()
      ->check(one_of<EmbeddingFormat>(kEmbeddingFormatChoices));
  conv->add_option("--limit", co->emb.limit, tr("Convert only the first N words; 0 = all"))
      ->capture_default_str()
      ->check(whole_number(0, std::int64_t{1} << 40));
  add_output_flags(conv, co->out, false);
  set_examples(conv, {tr("tfx embeddings convert glove.6B.300d.txt glove300.tfx"),
                      tr("tfx embeddings convert GoogleNews-vectors-negative300.bin.gz news.tfx --limit 200000"),
                      tr("tfx embeddings convert vectors.bin vectors.txt --to word2vec")});
}

}  // namespace tfx::cli
