// `tfx lookup`: the embedding-table lookup of nn.Embedding — ids (or words) → rows, printing the
// output shape ([2, 3, D] for two id lists of three) and the vectors. By default the teaching
// translator's trained table, whose ids are the ones `tfx tokenize` prints; --table named-dims the
// built-in 531-word teaching embedding; --embeddings FILE word vectors.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>

#include "tfx/core/memory.hpp"
#include "tfx/core/random.hpp"

#include "cli/flags/model_size_flags.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "cli/flags/shape_flags.hpp"
#include "tfx/embeddings/explore.hpp"
#include "cli/commands/embeddings/word_lists.hpp"
#include "cli/commands/train/model_flag.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/core/i18n.hpp"

#include <sstream>

namespace tfx::cli {

namespace {

struct LookupOptions {
  std::vector<std::vector<std::string>> ids;    // one inner list per --ids
  std::vector<std::vector<std::string>> words;  // one inner list per --words
  std::int64_t vocab_size = 0, dim = 0;           // --vocab-size V --dim D: a seeded random N(0, 1) table
  std::uint64_t seed = 42;
  CLI::Option* seed_opt = nullptr;
  std::string table;  // --table: "" (translator unless --embeddings / $TFX_EMBEDDINGS), translator, named-dims
  EmbeddingFlags emb;
  OutputFlags out;
};

// "0,2,5" items of one --ids occurrence -> ids; anything but a non-negative integer is a usage error.
std::vector<std::size_t> parse_ids(const std::vector<std::string>& values) {
  std::vector<std::size_t> ids;
  for (const auto& item : split_lists(values)) {
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (!item.empty() && item[0] == '-')
      throw usage_error(fmt::format(N_("--ids: '{}' is negative; ids are row numbers 0..N−1"), item));
    if (ec == std::errc::result_out_of_range) throw usage_error(fmt::format(N_("--ids: '{}' is too large"), item));
    if (ec != std::errc() || p != item.data() + item.size())
      throw usage_error(fmt::format(N_("--ids: '{}' is not a non-negative integer (expected e.g. --ids 0,2,5)"), item));
    ids.push_back(static_cast<std::size_t>(v));
  }
  return ids;
}

// --vocab-size V --dim D: nn.Embedding(V, D) as PyTorch initialises it, N(0, 1) entries, seeded:
// row `id` depends only on (seed, id), so the 50000 × 512 table is never formed — only the rows
// looked up are drawn.
void run_random_lookup(const LookupOptions& o) {
  if (o.ids.empty()) throw usage_error(N_("--vocab-size: a random table has no words; look rows up with --ids 0,2,5"));
  if (!o.words.empty()) throw usage_error(N_("--words needs a vocabulary; with --vocab-size give --ids"));
  if (o.dim <= 0) throw usage_error(N_("--vocab-size needs --dim D (the width of each row, e.g. --dim 512)"));
  const auto V = static_cast<std::size_t>(o.vocab_size), D = static_cast<std::size_t>(o.dim);
  std::vector<std::vector<std::size_t>> id_lists;
  for (const auto& l : o.ids) id_lists.push_back(parse_ids(l));
  const std::size_t T = id_lists[0].size(), B = id_lists.size();
  for (std::size_t b = 1; b < B; ++b)
    if (id_lists[b].size() != T)
      throw usage_error(fmt::format(N_("--ids lists must have the same length (a batch is a B × T matrix of ids): list 1 has {}, list {} has {}"),
                                    T, b + 1, id_lists[b].size()));
  for (const auto& l : id_lists)
    for (std::size_t id : l)
      if (id >= V) throw usage_error(fmt::format(N_("--ids: id {} is out of range for --vocab-size {}; valid ids are 0..{}"), id, V, V - 1));
  checked_element_count({B * T, D}, fmt::format("--ids ({} ids) × --dim {}", B * T, D));
  // the rows, and the encoded output beside them
  check_memory(2.0 * 4.0 * static_cast<double>(B * T) * static_cast<double>(D), fmt::format("{} rows of --dim {}", B * T, D));
  Tensor rows({B * T, D});
  std::size_t k = 0;
  for (const auto& l : id_lists)
    for (std::size_t id : l) {
      Generator g(o.seed * 0x9E3779B97F4A7C15ULL + id);  // one stream per (seed, id)
      for (float& v : rows.row(k)) v = static_cast<float>(g.normal());
      ++k;
    }
  Matrix m;
  m.name = N_("embedding");
  m.values = B == 1 ? std::move(rows) : rows.reshaped({B, T, D});
  m.row_axis = B == 1 ? N_("id") : N_("position");
  m.col_axis = N_("dim");
  if (B == 1)
    for (std::size_t id : id_lists[0]) m.row_labels.push_back(std::to_string(id));
  Result r;
  r.command = "lookup";
  r.params = {{"ids", B == 1 ? nlohmann::json(id_lists[0]) : nlohmann::json(id_lists)}, {"vocab_size", V}, {"dim", D}, {"seed", o.seed}};
  const std::string in_shape = B == 1 ? fmt::format("[{}]", T) : fmt::format("[{}, {}]", B, T);
  r.blocks.push_back(Text{trf("nn.Embedding({}, {}) lookup: ids {} -> output {}", V, D, in_shape, m.values.shape_str())});
  r.blocks.push_back(Text{trf("a random table as PyTorch initialises one (every entry N(0, 1)), seed {}: row id is the same in every "
                                      "call and batch; the {} × {} table ({:.1f} MB of float32) is never formed, only the {} rows looked up",
                                      o.seed, V, D, 4.0 * static_cast<double>(V) * static_cast<double>(D) / 1e6, B * T)});
  r.blocks.push_back(Text{trf("parameters: {} × {} = {}", V, D, V * D)});
  const Format f = o.out.format;
  if (f != Format::table && f != Format::md) r.summary[N_("shape")] = m.values.shape();
  r.blocks.push_back(std::move(m));
  r.primary = "embedding";
  present(r, o.out);
}

// Which table --table, --translator, --embeddings and $TFX_EMBEDDINGS ask for: the flags with
// emb.translator or emb.builtin set; "" (a file) when --embeddings or $TFX_EMBEDDINGS names one.
EmbeddingFlags lookup_table_flags(const LookupOptions& o, std::string& table) {
  EmbeddingFlags f = o.emb;
  table = o.table;
  if (f.translator) {
    if (!table.empty() && table != "translator")
      throw usage_error(fmt::format(N_("give one table: --translator or --table {} (not both)"), table));
    table = "translator";
  }
  if (!table.empty() && !f.path.empty())
    throw usage_error(fmt::format(N_("give one table: {} or --embeddings FILE (not both)"),
                                  f.translator ? std::string("--translator") : "--table " + table));
  if (table.empty()) {
    const char* env = std::getenv("TFX_EMBEDDINGS");
    table = f.path.empty() && !(env && *env) ? "translator" : "";
  }
  if (table == "translator") {
    if (f.limit) throw usage_error(N_("--limit goes with --embeddings FILE or --table named-dims; the translator's table has 112 rows"));
    f.translator = true;
  }
  if (table == "named-dims") f.builtin = true;
  return f;
}

void run_lookup(const LookupOptions& o) {
  if (o.vocab_size > 0) {
    if (!o.table.empty() || o.emb.translator) throw usage_error(N_("--vocab-size makes a random table; leave out --table/--translator"));
    return run_random_lookup(o);
  }
  if (o.dim > 0) throw usage_error(N_("--dim goes with --vocab-size V (a random nn.Embedding(V, D)); a loaded table has its own width"));
  if (o.ids.empty() == o.words.empty())
    throw usage_error(N_("give --ids 0,2,5 (repeat for a batch: --ids 0,2,5 --ids 0,99,24) or --words king,queen, not both"));
  const bool by_id = !o.ids.empty();
  const auto& lists = by_id ? o.ids : o.words;
  const char* flag = by_id ? "--ids" : "--words";
  // 1. parse every list (before loading, so a typo fails fast)
  std::vector<std::vector<std::size_t>> id_lists;
  std::vector<std::vector<std::string>> word_lists;
  for (const auto& l : lists) {
    if (by_id) id_lists.push_back(parse_ids(l));
    else {
      // "--words '나는 학생 이다'" (one quoted sentence) is three words, as "--words 나는 학생 이다" is
      std::vector<std::string> words;
      for (const auto& item : split_lists(l)) {
        std::istringstream in(item);
        for (std::string w; in >> w;) words.push_back(w);
      }
      word_lists.push_back(std::move(words));
    }
    const std::size_t n = by_id ? id_lists.back().size() : word_lists.back().size();
    if (n == 0) throw usage_error(fmt::format(N_("{}: an empty list"), flag));
  }
  std::string table;
  const EmbeddingFlags flags = lookup_table_flags(o, table);
  const Embeddings e = load_embeddings(flags);
  const bool translator = table == "translator";
  if (!by_id)
    for (const auto& w : word_lists) {
      try {
        id_lists.push_back(lookup_words(e, w, flags, "--words"));
      } catch (const Error& err) {
        // the default table is the translator's: name its vocabulary and the flag for the other table
        if (!translator) throw;
        throw Error(trf("{}; tfx translate --list-vocab lists that vocabulary; --table named-dims looks words up in the "
                        "built-in 531-word teaching embedding",
                        err.what()),
                    err.kind());
      }
    }
  const std::size_t T = id_lists[0].size();
  for (std::size_t b = 1; b < id_lists.size(); ++b)
    if (id_lists[b].size() != T)
      throw usage_error(fmt::format(N_("{} lists must have the same length (a batch is a B × T matrix of ids): list 1 has {}, list {} has {}"),
                                    flag, T, b + 1, id_lists[b].size()));
  std::vector<std::size_t> flat;
  for (const auto& l : id_lists) flat.insert(flat.end(), l.begin(), l.end());
  for (std::size_t i = 0; i < flat.size(); ++i)
    if (!e.has_row(flat[i]))
      throw usage_error(fmt::format(N_("--ids: id {} is out of range; {} has {} words, valid ids are 0..{}{}"), flat[i], e.name(),
                                    e.size(), e.size() - 1,
                                    translator ? std::string("; ") + N_("--table named-dims: the built-in 531-word teaching embedding") : std::string()));

  // 2. the lookup: (T, D) for one list, (B, T, D) for several
  const std::size_t B = id_lists.size();
  Matrix m;
  m.name = N_("embedding");
  m.values = embedding_lookup(e, flat, B, false);
  m.row_axis = N_("token");
  m.col_axis = N_("dim");
  if (e.axes().size() == e.dim()) m.col_labels = e.axes();
  Result r;
  r.command = "lookup";
  std::vector<std::vector<std::size_t>> id_json = id_lists;
  std::vector<std::vector<std::string>> word_json;
  for (const auto& l : id_lists) {
    word_json.emplace_back();
    for (auto i : l) word_json.back().emplace_back(e.word(i));
  }
  r.params = {{"ids", B == 1 ? nlohmann::json(id_json[0]) : nlohmann::json(id_json)},
              {"tokens", B == 1 ? nlohmann::json(word_json[0]) : nlohmann::json(word_json)}};
  embedding_params(r, e);
  // the vocabulary the ids index: the translator's (the one tfx tokenize prints), or the table's own words
  r.params["table"] = translator ? "translator" : table == "named-dims" ? "named-dims" : "file";
  r.params["vocab"] = translator ? cli_vocab_name() : std::string(e.name());
  r.params["vocab_size"] = e.size();
  const std::string in_shape = B == 1 ? fmt::format("[{}]", T) : fmt::format("[{}, {}]", B, T);
  r.blocks.push_back(Text{trf("nn.Embedding({}, {}) lookup: ids {} -> output {} ({})", e.size(), e.dim(), in_shape,
                                      m.values.shape_str(), e.name())});
  if (translator)
    r.blocks.push_back(Text{trf("ids index {}, as tfx tokenize prints them; --table named-dims: the built-in 531-word "
                                "teaching embedding (named dimensions royalty, gender, …)",
                                cli_vocab_label())});
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<std::string> items;
    for (std::size_t t = 0; t < T; ++t) items.push_back(fmt::format("{}={}", id_lists[b][t], e.word(id_lists[b][t])));
    r.blocks.push_back(Text{fmt::format("{}{}", B == 1 ? "" : fmt::format("[{}] ", b), fmt::join(items, "  "))});
  }
  if (B == 1) {
    for (std::size_t t = 0; t < T; ++t) m.row_labels.push_back(std::string(e.word(id_lists[0][t])));
    m.row_axis = N_("word");
  }
  const Format f = o.out.format;
  if (f != Format::table && f != Format::md) r.summary[N_("shape")] = m.values.shape();  // the table's title shows it
  r.blocks.push_back(std::move(m));
  subword_notes(r, e, flat);
  builtin_note(r, e);
  r.primary = "embedding";
  present(r, o.out);
}

}  // namespace

void register_lookup(CLI::App& app) {
  auto [cmd, o] = add_command(app, "lookup", tr("Embedding-table lookup (nn.Embedding): ids or words -> rows; prints the output shape"),
                              run_lookup, tr("Word embeddings"));
  cmd->add_option("--ids", o->ids, ids_flag_help(tr("rows of the table; repeat the flag for a batch: --ids 0,2,5 --ids 0,99,24 -> [2, 3, D]")))
      ->expected(1, -1)
      ->allow_extra_args(false)
      ->check(comma_list("ids", "0,2,5"));
  add_words_flag(cmd, o->words, tr("or space-separated: one quoted sentence is its words; repeat the flag for a batch"))->expected(1, -1);
  add_vocab_size_flag(cmd, o->vocab_size,
                      tr("a seeded random table nn.Embedding(V, D) instead of word vectors: N(0, 1) entries, as PyTorch initialises it"));
  add_dim_flag(cmd, o->dim, tr("the random table's rows, with --vocab-size"));
  add_seed_flag(cmd, o->seed, tr("the random table of --vocab-size: the same seed, the same rows"));
  cmd->add_option("--table", o->table,
                  tr("translator (default: the teaching translator's trained 112 × 64 table; ids as tfx tokenize prints "
                     "them) or named-dims (the built-in 531-word teaching embedding, dimensions royalty, gender, …); "
                     "--embeddings FILE (or $TFX_EMBEDDINGS) for word vectors"))
      ->check(CLI::IsMember({"translator", "named-dims"}))
      ->type_name("NAME");
  add_embedding_flags(cmd, o->emb);
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx lookup --ids 10,45,38                   # 나는 학생 이다: the ids tfx tokenize \"나는 학생 이다\" prints"),
                     tr("tfx lookup --ids 0,2,5 --table named-dims   # king kings princess"),
                     tr("tfx lookup --vocab-size 50000 --dim 512 --ids 0,2,5 --ids 0,99,24   # nn.Embedding(50000, 512): [2, 3, 512]"),
                     tr("tfx lookup --ids 0,2,5 --ids 0,99,24        # shape [2, 3, D], like nn.Embedding on a 2×3 batch"),
                     tr("tfx lookup --words king queen --table named-dims"),
                     tr("tfx lookup --ids 0,1 --format npy -o rows.npy")});
}

}  // namespace tfx::cli
