// `tfx model attention`: the attention weights of every layer and head (HF's output_attentions) as tables,
// npy, figures (one head, one layer's heads, or every layer × head as the model view) and --html. An
// image model (ViT, --image FILE): the [CLS] row of each layer and head as a heat overlay on the
// picture's patch grid, and --rollout (Abnar & Zuidema 2020) across the layers.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_attention_views.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/figure/attention_html.hpp"
#include "tfx/model/attention_figures.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct ModelAttentionOptions {
  ModelInput in;
  std::string layer = "all", head = "all";
  std::string html;  // --html FILE
  bool rollout = false;
  bool shared_scale = false;  // --shared-scale: one heat scale over every panel of an image model
  bool sink = false, neurons = false;  // --sink, --neurons (model_attention_views.hpp)
  std::string query;                   // --query T: the neuron view's query position
  OutputFlags out;
  FigureFlags fig;
};

std::optional<std::size_t> model_pick(const std::string& v, std::size_t n, const char* flag, const char* what) {
  if (v == "all") return std::nullopt;
  const std::optional<unsigned long long> k = model_whole_number(v);
  if (!k) throw usage_error(fmt::format(N_("{} {}: expected a {} number from 0 or all"), flag, v, what));
  if (*k >= n && std::string_view(what) == "layer")
    throw usage_error(fmt::format(N_("--layer {}: the model has {} layers (0 … {})"), v, n, n - 1));
  if (*k >= n) throw usage_error(fmt::format(N_("{} {}: the model has {} {}s (0 … {})"), flag, v, n, what, n - 1));
  return static_cast<std::size_t>(*k);
}

// The --html page: every layer and head when they fit in one page (it opens on --layer/--head),
// else only the ones asked for.
std::string attention_page(const ModelAttentionOptions& o, const LoadedInput& l, const ForwardPass& f, std::optional<std::size_t> layer,
                           std::optional<std::size_t> head) {
  const ModelConfig& c = l.model.config;
  const std::size_t T = l.positions();
  const bool whole = c.layers * c.heads * T * T <= kMaxHtmlWeights;
  AttentionPage p;
  std::string dir_name = std::filesystem::path(o.in.dir).filename().string();
  if (dir_name.empty()) dir_name = std::filesystem::path(o.in.dir).parent_path().filename().string();
  p.title = trf("{} — attention", dir_name);
  if (c.random_weights) p.title = trf("{} (random weights)", p.title);
  p.subtitle = trf("{}: {} tokens; weights after softmax, layers and heads numbered from 0 as in Hugging Face's outputs{}",
                           family_name(c), T, c.decoder() ? tr("; causal: a query sees only the keys up to itself") : "");
  p.queries = p.keys = l.tokens;
  for (std::size_t li = 0; li < c.layers; ++li) {
    if (!whole && layer && *layer != li) continue;
    p.layer_names.push_back(trf("layer {}", li));
    if (whole || !head) {
      p.weights.push_back(f.attentions[li]);
    } else {
      Tensor one({1, T, T});
      std::copy_n(f.attentions[li].data() + *head * T * T, T * T, one.data());
      p.weights.push_back(std::move(one));
    }
  }
  for (std::size_t hi = 0; hi < c.heads; ++hi)
    if (whole || !head || *head == hi) p.head_names.push_back(std::to_string(hi));
  if (whole) {
    p.first_layer = layer.value_or(0);
    p.first_head = head;
  }
  // the checkpoint folder by its name: a page that is shared must not carry the maker's directories
  p.footer = trf("made by tfx model attention {} ({} {})", model_folder_name(o.in.dir), c.model_type,
                 l.picture ? "--image " + std::filesystem::path(o.in.image).filename().string()
                 : o.in.text.empty() ? "--ids " + o.in.ids : "\"" + o.in.text + "\"");
  return attention_html(p);
}

std::string model_input_words(const ModelAttentionOptions& o) {
  std::vector<std::string> words;
  for (const std::string& item : model_words_of(!o.in.image.empty() ? std::filesystem::path(o.in.image).stem().string()
                                                : o.in.text.empty()   ? "ids " + o.in.ids
                                                                      : o.in.text))
    words.push_back(item);
  return name_part(words);
}

// --rollout: Â = rownorm(½·mean_h A + ½·I) multiplied over the layers; the [CLS] row over the picture.
void run_model_rollout(const ModelAttentionOptions& o, const LoadedInput& l, const ForwardPass& f) {
  const ModelConfig& c = l.model.config;
  const Tensor roll = attention_rollout(f.attentions);
  Result r;
  r.command = "model attention";
  r.params = model_params(o.in, l);
  r.params["rollout"] = true;
  r.blocks.push_back(Text{trf("{}: attention rollout (Abnar & Zuidema 2020) over {} layers: each layer's heads averaged, plus the residual "
                              "as ½·I, rows normalized, multiplied from the first layer up; row [CLS] is what the classifier reads from "
                              "each patch",
                              family_name(c), c.layers)});
  Matrix m;
  m.name = N_("rollout");
  m.values = roll;
  m.row_labels = m.col_labels = l.tokens;
  m.row_axis = N_("query");
  m.col_axis = N_("key");
  r.blocks.push_back(std::move(m));
  r.primary = "rollout";
  Figure fig;
  if (figure_drawn(o.fig, o.out)) {
    Picture p = model_patch_heat(c, *l.picture, roll.row(0), trf("{} — attention rollout over {} layers, [CLS] row", model_folder_name(o.in.dir), c.layers),
                                 tr("rollout weight"), 448);
    p.subtitle = trf("{}, resized to {}×{}; {}×{} patches; patch k is token k + 1 ([CLS] is token 0)", std::filesystem::path(o.in.image).filename().string(), c.image_size, c.image_size,
                     c.patch_size, c.patch_size);
    fig.panels.push_back(std::move(p));
  }
  const std::string name = fmt::format("model_rollout_{}_{}.png", name_part({model_folder_name(o.in.dir)}), model_input_words(o));
  note_random_weights(r, c);
  note_random_weights(fig, c);
  present_all(r, o.out, o.fig, fig.panels.empty() ? nullptr : &fig, nullptr, name);
}

void run_model_attention(const ModelAttentionOptions& o) {
  const LoadedInput l = load_input(o.in);
  const ModelConfig& c = l.model.config;
  if (o.rollout && !l.picture)
    throw usage_error(N_("--rollout goes with an image model's --image FILE (the [CLS] row over the picture's patches)"));
  const std::optional<std::size_t> layer = model_pick(o.layer, c.layers, "--layer", "layer");
  const std::optional<std::size_t> head = pick_head(o.head, c.heads);
  if (o.rollout && (layer || head)) throw usage_error(N_("--rollout runs over every layer and head: drop --layer and --head"));
  if (o.sink && o.neurons) throw usage_error(N_("--sink and --neurons are two views: choose one"));
  if (!o.query.empty() && !o.neurons) throw usage_error(N_("--query goes with --neurons (the neuron view of one query)"));
  if (o.neurons && (!layer || !head || o.query.empty()))
    throw usage_error(N_("--neurons shows one query of one head: give --layer L, --head H and --query T"));
  if ((o.sink || o.neurons) && (o.rollout || !o.html.empty())) throw usage_error(N_("--sink and --neurons go without --rollout and --html"));
  if (o.sink) return run_model_sink(o.in, l, o.out, o.fig);
  if (o.neurons) return run_model_neurons(o.in, l, *layer, *head, o.query, o.out, o.fig);
  const bool html_only = !o.html.empty() && check_html_target(o.html, o.out, o.fig);
  ForwardPass f = model_run(l, {.logits = LogitRows::none, .keep_hidden = false});
  if (o.rollout) {
    if (!o.html.empty()) write_html(attention_page(o, l, f, layer, head), o.html, o.out, o.fig);
    if (!html_only) run_model_rollout(o, l, f);
    return;
  }
  const std::size_t T = l.positions(), H = c.heads;
  std::string page;
  if (!o.html.empty()) {
    page = attention_page(o, l, f, layer, head);
    if (html_only) {
      write_html(page, o.html, o.out, o.fig);
      return;
    }
  }
  // the requested block of the (layers, heads, T, T) weights
  std::vector<std::size_t> layers, heads;
  for (std::size_t i = 0; i < c.layers; ++i)
    if (!layer || *layer == i) layers.push_back(i);
  for (std::size_t i = 0; i < H; ++i)
    if (!head || *head == i) heads.push_back(i);
  std::vector<std::size_t> shape;
  if (layers.size() > 1) shape.push_back(layers.size());
  if (heads.size() > 1) shape.push_back(heads.size());
  shape.push_back(T);
  shape.push_back(T);
  Tensor w(shape);
  std::size_t k = 0;
  const bool keep = figure_drawn(o.fig, o.out);  // the figures below read f.attentions again
  for (std::size_t li : layers) {
    for (std::size_t hi : heads) {
      const float* src = f.attentions[li].data() + hi * T * T;
      std::copy(src, src + T * T, w.data() + k * T * T);
      ++k;
    }
    if (!keep) f.attentions[li] = Tensor();  // one copy of the weights at a time (a 12 × 12 × T² model)
  }
  Result r;
  r.command = "model attention";
  r.params = model_params(o.in, l);
  r.params["layer"] = o.layer;
  r.params["head"] = o.head;
  r.blocks.push_back(Text{trf("{}: {} tokens; attention weights after softmax{}, layers and heads numbered from 0 as in Hugging "
                                      "Face's outputs; rows are queries, columns keys",
                                      family_name(c), T, c.decoder() ? tr(" (causal: row i sees keys 0 … i)") : "")});
  Matrix m;
  m.name = N_("attentions");
  m.row_labels = m.col_labels = l.tokens;
  m.row_axis = N_("query");
  m.col_axis = N_("key");
  const bool npy = o.out.format == Format::npy || (o.out.output.size() > 4 && o.out.output.ends_with(".npy"));
  m.slice_axis = shape.size() == 4 ? N_("layer·heads+head") : layers.size() > 1 ? N_("layer") : N_("head");
  // npy keeps the 4-D (layers, heads, T, T); a table shows one (T, T) slice per layer and head
  m.values = shape.size() == 4 && !npy ? w.reshaped({layers.size() * heads.size(), T, T}) : std::move(w);
  r.blocks.push_back(std::move(m));
  r.primary = "attentions";
  r.summary[N_("shape")] = shape;
  // figures: one head a labelled heatmap; one layer's heads a grid; every layer × head the model view
  Figure fig;
  std::optional<Heatmap> view;
  if (figure_drawn(o.fig, o.out)) {
    // each panel holds its own T×T copy, and the renderer another: checked before any is built
    check_memory(2.0 * static_cast<double>(layers.size() * heads.size()) * static_cast<double>(T * T) * sizeof(float),
                 fmt::format("the attention figure of {} layers × {} heads over {} tokens", layers.size(), heads.size(), T));
    const bool thumbnails = layers.size() > 1 && heads.size() > 1;
    if (thumbnails && !l.picture) {
      // the grid is one row of `heads` thumbnails wide and one column of `layers` tall: laid out
      // (not drawn) first, so thousands of panels are refused before they are built
      const Heatmap thumb = [&] {
        Heatmap h = model_attention_heatmap(Tensor({T, T}), l.tokens, "L0 H0", false);
        h.annotate = false;
        return h;
      }();
      Figure row, column;
      row.panels.assign(heads.size(), thumb);
      row.columns = static_cast<int>(heads.size());
      column.panels.assign(layers.size(), thumb);
      column.columns = 1;
      const double w = figure_pixels(row, o.fig.scale).first, hgt = figure_pixels(column, o.fig.scale).second;
      if (w * hgt > kMaxFigurePixels)
        throw usage_error(fmt::format(N_("the model view of {} layers × {} heads would be about {:.0f}×{:.0f} pixels at scale {} (at most {:.0f} million); "
                              "choose --layer N or --head N, or a smaller --scale"),
                              layers.size(), heads.size(), w, hgt, o.fig.scale, kMaxFigurePixels / 1e6));
    }
    AttentionFigureSpec spec;
    spec.attentions = &f.attentions;
    spec.tokens = l.tokens;
    spec.picture = l.picture ? &*l.picture : nullptr;
    spec.layers = layers;
    spec.heads = heads;
    spec.folder = model_folder_name(o.in.dir);
    spec.dir_file = std::filesystem::path(o.in.dir).filename().string();
    spec.image_file = std::filesystem::path(o.in.image).filename().string();
    spec.shared_scale = o.shared_scale;
    fig = model_attention_figure(c, spec, view);
  }
  std::string dir_name = std::filesystem::path(o.in.dir).filename().string();
  if (dir_name.empty()) dir_name = std::filesystem::path(o.in.dir).parent_path().filename().string();
  const std::string name = fmt::format("model_attention_{}_{}_L{}_H{}.png", name_part({dir_name}), model_input_words(o), o.layer, o.head);
  note_random_weights(r, c);
  note_random_weights(fig, c);
  present_all(r, o.out, o.fig, fig.panels.empty() ? nullptr : &fig, view ? &*view : nullptr, name);
  if (!page.empty()) write_html(page, o.html, o.out, o.fig);
}

}  // namespace

void register_model_attention(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "attention", tr("Attention weights of every layer and head (HF's output_attentions), as tables, npy and figures"),
                                run_model_attention);
    add_model_input(cmd, o->in, true, true);
    cmd->add_option("--layer", o->layer, tr("Layer, from 0, or all"))->capture_default_str();
    add_head_flag(cmd, o->head, "");
    add_presentation_flags(cmd, o->out, o->fig);
    add_html_flag(cmd, o->html, o->out);
    cmd->add_flag("--shared-scale", o->shared_scale,
                  tr("With --image and several panels: one [CLS] heat scale for every panel (default: each panel its own)"))
        ->group(tr("Figures"));
    cmd->add_flag("--sink", o->sink, tr("Attention sinks: every layer × head's mean weight on position 0, and again without the first token"));
    cmd->add_flag("--neurons", o->neurons, tr("The neuron view of --layer, --head and --query: q, k, q∘k, the scaled sum and the softmax"));
    cmd->add_option("--query", o->query, tr("The query's token position, from 0 (with --neurons)"));
    cmd->add_flag("--rollout", o->rollout, tr("With --image: attention rollout across the layers (Abnar & Zuidema 2020), the [CLS] row over the picture"));
    set_examples(cmd, {tr("tfx model attention bert-base-uncased/ \"the cat sat on the mat\" --layer 5 --head 3 --png"),
                       tr("tfx model attention gpt2/ \"The cat sat on the mat\" --png           # the model view: every layer × head"),
                       tr("tfx model attention gpt2/ \"The cat sat\" --format npy -o att.npy   # (layers, heads, T, T) float32"),
                       tr("tfx model attention gpt2/ \"The cat sat on the mat\" --html cat.html  # head view + model view, offline"),
                       tr("tfx model attention vit-base-patch16-224/ --image cat.jpg --layer 11 --head 3 --png  # [CLS] row over the patches"),
                       tr("tfx model attention vit-base-patch16-224/ --image cat.jpg --rollout --png"),
                       tr("tfx model attention gpt2/ \"The cat sat on the mat\" --sink --png     # who looks at the first token"),
                       tr("tfx model attention gpt2/ \"The cat sat\" --layer 0 --head 1 --query 2 --neurons --png")});
  }
}

}  // namespace tfx::cli
