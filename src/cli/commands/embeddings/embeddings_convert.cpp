// `tfx embeddings convert IN OUT`: write a word-vector file as a tfx table (memory-mapped) or
// another format.
#include <fmt/format.h>
#include <sys/stat.h>

#include "cli/commands/embeddings/embeddings_commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "cli/flags/flag_names.hpp"
#include "cli/flags/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ConvertOptions {
  std::string in, out_path;
  std::string to = "tfx";
  EmbeddingFlags emb;
  OutputFlags out;
};

EmbeddingFormat target_format(const ConvertOptions& o) {
  return parse_choice<EmbeddingFormat>(kEmbeddingWriteChoices, o.to, "to_format");
}

void run_convert(const ConvertOptions& o) {
  EmbeddingFlags emb = o.emb;
  emb.path = o.in;
  const EmbeddingFormat to = target_format(o);
  if (o.in == o.out_path) throw usage_error(fmt::format(N_("convert: OUT must differ from IN ({})"), o.in));
  emb.no_cache = true;  // convert reads the file itself; the cache is not needed
  const Embeddings e = load_embeddings(emb);
  write_embedding_file(e, o.out_path, to);
  struct stat st{};
  const double bytes = stat(o.out_path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0.0;
  Result r;
  r.command = "embeddings convert";
  r.params = {{"in", o.in}, {"out", o.out_path}, {"to", o.to}};
  if (o.out.format == Format::json) r.summary = {{"words", e.size()}, {"dim", e.dim()}, {"bytes", static_cast<long long>(bytes)}};
  r.blocks.push_back(Text{trf("wrote {}: {} words × {} dims as {} ({}), read from {} ({})", o.out_path, e.size(),
                                      e.dim(), o.to == "tfx" ? tr("a tfx table") : o.to, megabytes(bytes), o.in,
                                      format_text(e.info()))});
  if (to == EmbeddingFormat::tfx_cache)
    r.blocks.push_back(Text{trf("use it with --embeddings {} (memory-mapped: loads in milliseconds)", o.out_path)});
  present(r, o.out);
}

}  // namespace

void register_embeddings_convert(CLI::App* embeddings) {
  auto [conv, co] = add_command(*embeddings, "convert", tr("Write IN as a tfx table (memory-mapped, instant loads) or another format"),
                                run_convert, tr("Subcommands"));
  conv->add_option("in", co->in, tr("Input embedding file (any format tfx reads)"))->required()->check(non_empty_path("give a file"));
  conv->add_option("out", co->out_path, tr("Output file (written to OUT.tmp.PID, then renamed)"))
      ->required()
      ->check(CLI::Validator(
          [](std::string& path) {
            struct stat st {};
            if (path.empty()) return std::string(N_("expected a file name, got an empty one"));
            if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
              return fmt::format(N_("'{}' is {}; expected a regular file name (it is written to OUT.tmp.PID, then renamed)"), path,
                                 S_ISDIR(st.st_mode) ? N_("a directory") : N_("a device or pipe"));
            return std::string();
          },
          ""));
  conv->add_option("--to-format", co->to, tr("Output format: ") + choice_list<EmbeddingFormat>(kEmbeddingWriteChoices, true))
      ->capture_default_str()
      ->check(one_of<EmbeddingFormat>(kEmbeddingWriteChoices));
  add_embeddings_format_flag(conv, co->emb.format);
  add_limit_flag(conv, co->emb.limit);
  add_output_flags(conv, co->out, false);
  set_examples(conv, {tr("tfx embeddings convert glove.6B.300d.txt glove300.tfx"),
                      tr("tfx embeddings convert GoogleNews-vectors-negative300.bin.gz news.tfx --limit 200000"),
                      tr("tfx embeddings convert vectors.bin vectors.txt --to-format word2vec")});
}

}  // namespace tfx::cli
