// `tfx project WORD…`: the lecture's picture of embeddings in low dimension — PCA of the words'
// vectors to 2-D (stats.hpp power iteration), a labelled scatter with arrows for --pairs
// (king:queen, man:woman show parallel offsets), and the coordinates with explained variance.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/embedding_flags.hpp"
#include "cli/progress_bar.hpp"
#include "tfx/embeddings/explore.hpp"
#include "cli/word_lists.hpp"

namespace tfx::cli {

namespace {

struct ProjectOptions {
  std::vector<std::string> words;
  std::vector<std::string> pairs;
  std::string method = "pca";
  bool unit = false;
  EmbeddingFlags emb;
  OutputFlags out;
  FigureFlags fig;
};

void run_project(const ProjectOptions& o) {
  // 1. the words: positional ones, then the pairs' words, each once
  std::vector<std::string> words;
  auto add = [&](const std::string& w) {
    if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
  };
  for (const auto& w : split_lists(o.words)) add(w);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& p : split_lists(o.pairs)) {
    const auto colon = p.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == p.size() || p.find(':', colon + 1) != std::string::npos)
      throw usage_error(fmt::format("--pairs: '{}' is not FROM:TO (expected e.g. --pairs king:queen,man:woman)", p));
    pairs.emplace_back(p.substr(0, colon), p.substr(colon + 1));
    add(pairs.back().first);
    add(pairs.back().second);
  }
  if (words.size() < 3)
    throw usage_error(fmt::format("a 2-D projection needs at least 3 different words (got {}{}); e.g. tfx project king queen man woman",
                                  words.size(), words.size() == 1 ? ": " + words[0] : ""));
  const Embeddings e = load_embeddings(o.emb);
  const auto rows = lookup_words(e, words, o.emb);
  std::vector<std::string> shown;
  for (auto i : rows) shown.emplace_back(e.word(i));

  // 2. PCA to 2-D
  const Pca p = project_words(e, rows, o.unit);

  Result r;
  r.command = "project";
  r.params = {{"words", shown}, {"method", o.method}, {"unit", o.unit}, {"pairs", split_lists(o.pairs)}};
  embedding_params(r, e);
  r.blocks.push_back(Text{fmt::format("PCA of {} {}vectors ({} dims: {}) to 2-D", rows.size(), o.unit ? "unit-normalised " : "",
                                      e.dim(), e.name())});
  r.blocks.push_back(Text{fmt::format("explained variance: PC1 {:.1f}%, PC2 {:.1f}% (together {:.1f}%)", 100 * p.explained_ratio[0],
                                      100 * p.explained_ratio[1], 100 * (p.explained_ratio[0] + p.explained_ratio[1]))});
  Records rec;
  rec.name = "projection";
  rec.columns = {"word", "pc1", "pc2"};
  for (std::size_t i = 0; i < rows.size(); ++i)
    rec.rows.push_back({shown[i], static_cast<double>(p.coords(i, 0)), static_cast<double>(p.coords(i, 1))});
  r.blocks.push_back(std::move(rec));
  auto index_of = [&](const std::string& w) {
    return static_cast<std::size_t>(std::find(words.begin(), words.end(), w) - words.begin());
  };
  Scatter s;
  if (!pairs.empty()) {
    Records off;
    off.name = "offsets";
    off.columns = {"from", "to", "d_pc1", "d_pc2"};
    for (const auto& [f, t] : pairs) {
      const std::size_t i = index_of(f), j = index_of(t);
      off.rows.push_back({shown[i], shown[j], static_cast<double>(p.coords(j, 0) - p.coords(i, 0)),
                          static_cast<double>(p.coords(j, 1) - p.coords(i, 1))});
      s.arrows.emplace_back(i, j);
    }
    r.blocks.push_back(std::move(off));
  }
  subword_notes(r, e, rows);
  builtin_note(r, e);
  r.summary["explained_variance_ratio"] = p.explained_ratio;
  r.summary["variance"] = p.variance;
  const Format f = o.out.figure_format() ? Format::table : output_options(o.out).format;
  if (f == Format::table || f == Format::md) r.summary = nlohmann::json::object();
  r.primary = "projection";

  // 3. the figure
  s.title = fmt::format("{} words projected on their first two principal components", rows.size());
  s.subtitle = fmt::format("{}{}", std::filesystem::path(e.name()).filename().string(), o.unit ? ", unit-normalised vectors" : "");
  s.x_label = fmt::format("PC1 ({:.1f}% of the variance)", 100 * p.explained_ratio[0]);
  s.y_label = fmt::format("PC2 ({:.1f}%)", 100 * p.explained_ratio[1]);
  for (std::size_t i = 0; i < rows.size(); ++i) s.points.push_back({p.coords(i, 0), p.coords(i, 1), shown[i]});
  // placing thousands of labels takes seconds: a bar on stderr (only on a terminal, after a delay)
  ProgressBar bar("project: placing labels", "labels");
  s.progress = bar.callback();
  Figure figure;
  figure.panels.push_back(std::move(s));
  std::string name = "project";
  for (std::size_t i = 0; i < std::min<std::size_t>(shown.size(), 4); ++i) name += "_" + file_safe(shown[i]);
  if (shown.size() > 4) name += fmt::format("_and{}more", shown.size() - 4);
  present_all(r, o.out, o.fig, &figure, nullptr, name + ".png");
  bar.finish();
}

}  // namespace

void register_project(CLI::App& app) {
  auto o = std::make_shared<ProjectOptions>();
  CLI::App* cmd = app.add_subcommand("project", "PCA of words' vectors to 2-D: labelled scatter figure (--png), coordinates, explained variance");
  cmd->group("Word embeddings");
  cmd->add_option("words", o->words, "Words to project (at least 3 with the --pairs words)")->check(comma_list("words", "dog,cat,car"));
  cmd->add_option("--pairs", o->pairs, "Arrows FROM:TO, comma-separated (king:queen,man:woman); their words are projected too")
      ->check(comma_list("pairs", "king:queen,man:woman"));
  cmd->add_option("--method", o->method, "Projection method")->capture_default_str()->check(CLI::IsMember({"pca"}));
  cmd->add_flag("--unit", o->unit, "Unit-normalise the vectors before PCA (a cosine view)");
  add_embedding_flags(cmd, o->emb);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {"tfx project king queen man woman --pairs king:queen,man:woman --png",
                     "tfx project paris france berlin germany rome italy --pairs france:paris,germany:berlin,italy:rome --png",
                     "tfx project king queen man woman prince princess --format csv"});
  cmd->callback([o] { run_project(*o); });
}

}  // namespace tfx::cli
