// `tfx project WORD…`: the lecture's picture of embeddings in low dimension — PCA of the words'
// vectors to 2-D (stats.hpp power iteration), a labelled scatter with arrows for --arrows
// (king:queen, man:woman show parallel offsets), and the coordinates with explained variance.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/flags/flag_names.hpp"
#include "cli/commands.hpp"
#include "cli/flags/validators.hpp"
#include "cli/common.hpp"
#include "cli/flags/embedding_flags.hpp"
#include "cli/present/progress_bar.hpp"
#include "tfx/embeddings/explore.hpp"
#include "tfx/embeddings/projection_figure.hpp"
#include "cli/commands/embeddings/word_lists.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ProjectOptions {
  std::vector<std::string> words;
  std::vector<std::string> pairs;
  std::string method = "pca";
  bool unit = false;
  std::int64_t dims = 2;                        // --components 3: a 3-D view
  std::vector<std::string> azimuth_text{"-60"};  // --azimuth: one panel per viewing angle (degrees)
  double elevation = 25;
  EmbeddingFlags emb;
  OutputFlags out;
  FigureFlags fig;
};

// --azimuth: 1 to 4 whole degrees from -360 to 360
std::vector<std::int64_t> project_azimuths(const ProjectOptions& o) {
  std::vector<std::int64_t> v;
  for (const auto& item : split_lists(o.azimuth_text)) {
    char* end = nullptr;
    const long a = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || end != item.c_str() + item.size() || a < -360 || a > 360)
      throw usage_error(fmt::format(N_("--azimuth: '{}' is not a whole number of degrees from -360 to 360 (e.g. --azimuth -60,30)"), item));
    v.push_back(a);
  }
  if (v.empty() || v.size() > 4) throw usage_error(N_("--azimuth: give 1 to 4 angles, comma-separated (e.g. --azimuth -60,30)"));
  return v;
}

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
      throw usage_error(fmt::format(N_("--arrows: '{}' is not FROM:TO (expected e.g. --arrows king:queen,man:woman)"), p));
    pairs.emplace_back(p.substr(0, colon), p.substr(colon + 1));
    add(pairs.back().first);
    add(pairs.back().second);
  }
  const auto k = static_cast<std::size_t>(o.dims);
  if (words.size() < k + 1)
    throw usage_error(fmt::format(N_("a {}-D projection needs at least {} different words (got {}{}); e.g. tfx project king queen man woman"), k,
                                  k + 1, words.size(), words.size() == 1 ? ": " + words[0] : ""));
  const Embeddings e = load_embeddings(o.emb);
  const auto rows = lookup_words(e, words, o.emb);
  std::vector<std::string> shown;
  for (auto i : rows) shown.emplace_back(e.word(i));

  // 2. PCA to 2-D (or 3-D)
  const Pca p = project_words(e, rows, o.unit, k);

  Result r;
  r.command = "project";
  r.params = {{"words", shown}, {"method", o.method}, {"unit", o.unit}, {"pairs", split_lists(o.pairs)}};
  if (k == 3) r.params["dims"] = 3;
  embedding_params(r, e);
  r.blocks.push_back(Text{trf("PCA of {} {}vectors ({} dims: {}) to {}-D", rows.size(), o.unit ? tr("unit-normalised ") : "",
                                      e.dim(), e.name(), k)});
  std::vector<std::string> shares;
  double together = 0;
  for (std::size_t c = 0; c < k; ++c) {
    shares.push_back(fmt::format("PC{} {:.1f}%", c + 1, 100 * p.explained_ratio[c]));
    together += p.explained_ratio[c];
  }
  r.blocks.push_back(Text{trf("explained variance: {} (together {:.1f}%)", fmt::join(shares, ", "), 100 * together)});
  Records rec;
  rec.name = N_("projection");
  rec.columns = {N_("word")};
  for (std::size_t c = 0; c < k; ++c) rec.columns.push_back(fmt::format("pc{}", c + 1));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<Cell> row{shown[i]};
    for (std::size_t c = 0; c < k; ++c) row.push_back(static_cast<double>(p.coords(i, c)));
    rec.rows.push_back(std::move(row));
  }
  r.blocks.push_back(std::move(rec));
  auto index_of = [&](const std::string& w) {
    return static_cast<std::size_t>(std::find(words.begin(), words.end(), w) - words.begin());
  };
  std::vector<std::pair<std::size_t, std::size_t>> arrows;  // --arrows as word indices
  if (!pairs.empty()) {
    Records off;
    off.name = N_("offsets");
    off.columns = {N_("from"), N_("to")};
    for (std::size_t c = 0; c < k; ++c) off.columns.push_back(fmt::format("d_pc{}", c + 1));
    for (const auto& [f, t] : pairs) {
      const std::size_t i = index_of(f), j = index_of(t);
      std::vector<Cell> row{shown[i], shown[j]};
      for (std::size_t c = 0; c < k; ++c) row.push_back(static_cast<double>(p.coords(j, c) - p.coords(i, c)));
      off.rows.push_back(std::move(row));
      arrows.emplace_back(i, j);
    }
    r.blocks.push_back(std::move(off));
  }
  subword_notes(r, e, rows);
  builtin_note(r, e);
  r.summary[N_("explained_variance_ratio")] = p.explained_ratio;
  r.summary[N_("variance")] = p.variance;
  const Format f = o.out.figure_format() ? Format::table : o.out.format;
  if (f == Format::table || f == Format::md) r.summary = nlohmann::json::object();
  r.primary = "projection";
  auto file_name = [&](const std::string& stem) {
    std::string name = stem;
    for (std::size_t i = 0; i < std::min<std::size_t>(shown.size(), 4); ++i) name += "_" + file_safe(shown[i]);
    if (shown.size() > 4) name += fmt::format("_and{}more", shown.size() - 4);
    return name + ".png";
  };
  if (k == 3) {
    const Figure figure = pca_figure_3d(std::filesystem::path(e.name()).filename().string() + (o.unit ? tr(", unit-normalised vectors") : ""),
                                        project_azimuths(o), o.elevation, shown, arrows, p);
    present_all(r, o.out, o.fig, &figure, nullptr, file_name("project3d"));
    return;
  }

  // 3. the figure
  Scatter s;
  s.arrows = arrows;
  s.title = trf("{} words projected on their first two principal components", rows.size());
  s.subtitle = fmt::format("{}{}", std::filesystem::path(e.name()).filename().string(), o.unit ? tr(", unit-normalised vectors") : "");
  // xgettext:no-c-format
  s.x_label = trf("PC1 ({:.1f}% of the variance)", 100 * p.explained_ratio[0]);
  s.y_label = fmt::format("PC2 ({:.1f}%)", 100 * p.explained_ratio[1]);
  for (std::size_t i = 0; i < rows.size(); ++i) s.points.push_back({p.coords(i, 0), p.coords(i, 1), shown[i]});
  // placing thousands of labels takes seconds: a bar on stderr (only on a terminal, after a delay)
  ProgressBar bar(tr("project: placing labels"), tr("labels"));
  s.progress = bar.callback();
  Figure figure;
  figure.panels.push_back(std::move(s));
  present_all(r, o.out, o.fig, &figure, nullptr, file_name("project"));
  bar.finish();
}

}  // namespace

void register_project(CLI::App& app) {
  auto [cmd, o] = add_command(app, "project", tr("PCA of words' vectors to 2-D: labelled scatter figure (--png), coordinates, explained variance"),
                              run_project, tr("Word embeddings"));
  cmd->add_option("words", o->words, tr("Words to project (at least 3 with the --arrows words)"))->check(comma_list(N_("vocabulary words"), "dog,cat,car"));
  cmd->add_option("--arrows", o->pairs, tr("Arrows FROM:TO, comma-separated (king:queen,man:woman); their words are projected too"))
      ->check(comma_list(N_("word pairs FROM:TO"), "king:queen,man:woman"));
  cmd->add_option("--projection", o->method, tr("Projection method: ") + choice_list<ProjectionMethod>(kProjectionMethodChoices, true))
      ->capture_default_str()
      ->check(one_of<ProjectionMethod>(kProjectionMethodChoices));
  cmd->add_flag("--unit", o->unit, tr("Unit-normalise the vectors before PCA (a cosine view)"));
  cmd->add_option("--components", o->dims, tr("Principal components: 2 (a scatter) or 3 (a 3-D view from fixed angles)"))
      ->capture_default_str()
      ->check(whole_number(2, 3));
  cmd->add_option("--azimuth", o->azimuth_text, tr("--components 3: viewing angles about PC3 in degrees, comma-separated (one panel each, up to 4)"))
      ->capture_default_str();
  cmd->add_option("--elevation", o->elevation, tr("--components 3: how far above the PC1–PC2 floor the view is, in degrees"))
      ->capture_default_str()
      ->check(number_in(-90.0, 90.0));
  add_embedding_flags(cmd, o->emb);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx project king queen man woman --arrows king:queen,man:woman --png"),
                     tr("tfx project paris france berlin germany rome italy --arrows france:paris,germany:berlin,italy:rome --png"),
                     tr("tfx project king queen man woman prince princess --format csv"),
                     tr("tfx project king queen man woman kings queens --components 3 --azimuth -60,30 --png   # a 3-D view from two angles")});
}

}  // namespace tfx::cli
