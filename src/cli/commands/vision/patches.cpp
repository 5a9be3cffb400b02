// `tfx patches`: the lecture's ViT patch embedding as shape arithmetic — [1, 3, 224, 224] →
// Conv2d(3, 768, kernel = stride = 16) → [1, 768, 14, 14] → flatten(2) → [1, 768, 196] →
// transpose(1, 2) → [1, 196, 768], beside the equivalent unfold + Linear route; with --image FILE
// a real picture resized as ViT's processor does, cut into its numbered patches (the figure) and
// unfolded into the rows the Linear layer reads (the data); with --shapes the synthetic pictures
// teaching-vit learns from (tfx/figure/shapes.hpp) cut into patches, with how much of each shape
// each patch holds.
#include <fmt/format.h>

#include <filesystem>

#include "cli/flags/shared_flags.hpp"
#include "cli/flags/model_size_flags.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/attention/vision.hpp"
#include "tfx/figure/shapes.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/image_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct PatchesOptions {
  std::int64_t batch = 1, channels = 3, image = 224, patch = 16, d_model = 768;
  std::int64_t height = 0, width = 0;  // 0: --image
  std::string picture;                 // --image FILE
  std::vector<std::string> shapes;     // --shapes NAME,… (empty with the flag given: all)
  CLI::Option* shapes_opt = nullptr;
  std::uint64_t seed = 42;
  std::string save_pictures;  // --save-pictures DIR
  OutputFlags out;
  FigureFlags fig;
};

std::string shape(std::initializer_list<std::int64_t> dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

// --shapes: one seeded picture per named shape, its area and mask, cut into the patch grid.
void run_patches_shapes(const PatchesOptions& o, const PatchEmbedding& p) {
  if (!o.picture.empty()) throw usage_error(N_("give --shapes or --image FILE, not both"));
  if ((o.height && o.height != o.image) || (o.width && o.width != o.image))
    throw usage_error("--shapes draws square pictures: give their side with --image N, not --image-height/--image-width");
  if (o.channels != 3) throw usage_error(fmt::format("--channels {} with --shapes: the pictures are RGB, 3 channels", o.channels));
  if (o.image < 16 || o.image > 1024) throw usage_error(fmt::format(N_("--image {} with --shapes: expected a side from 16 to 1024 pixels"), o.image));
  std::vector<ShapeKind> kinds;
  for (const std::string& name : o.shapes) {
    if (name.empty()) continue;  // --shapes alone
    if (name == "all") {
      for (const auto& c : kShapeChoices) kinds.push_back(c.value);
      continue;
    }
    kinds.push_back(parse_choice<ShapeKind>(kShapeChoices, name, "shapes"));
  }
  if (kinds.empty())
    for (const auto& c : kShapeChoices) kinds.push_back(c.value);
  const int side = static_cast<int>(o.image), P = static_cast<int>(o.patch);
  Result r;
  r.command = "patches";
  r.params = {{"image", o.image}, {"patch", o.patch}, {"seed", o.seed}};
  r.blocks.push_back(Text{trf("{} synthetic pictures of {}×{} pixels (seed {}): random size, position, angle and colours, noise "
                              "±24; cut into {}×{} patches of {}×{} pixels = {} tokens each",
                              kinds.size(), side, side, o.seed, p.grid_h, p.grid_w, P, P, p.tokens)});
  Records rec;
  rec.name = N_("shapes");
  rec.columns = {N_("picture"), N_("shape"), N_("area"), N_("mask pixels"), N_("share"), N_("patches touched"), N_("patches mostly inside")};
  Figure fig;
  const bool draw = figure_drawn(o.fig, o.out);
  std::vector<std::string> names;
  // --save-pictures: each picture's own pixels as DIR/<shape>.png (a shape named twice: -2, -3, …)
  std::vector<std::string> files, pngs;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    std::string file = std::string(shape_name(kinds[i]));
    const auto same = std::count(kinds.begin(), kinds.begin() + static_cast<std::ptrdiff_t>(i), kinds[i]);
    files.push_back(file + (same > 0 ? fmt::format("-{}", same + 1) : std::string()) + ".png");
  }
  if (!o.save_pictures.empty()) prepare_output_folder("--save-pictures", o.save_pictures, files);
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    const ShapePicture pic = draw_shape(kinds[i], side, o.seed, i);
    if (!o.save_pictures.empty()) pngs.push_back(encode_png(pic.image));
    const Tensor share = mask_per_patch(pic, P);
    long long touched = 0, mostly = 0;
    for (float v : share.values()) touched += v > 0, mostly += v > 0.5f;
    const double pixels = static_cast<double>(pic.mask_pixels());
    rec.rows.push_back({static_cast<long long>(i), std::string(shape_name(kinds[i])), pic.area, static_cast<long long>(pixels),
                        pixels / (static_cast<double>(side) * side), touched, mostly});
    names.emplace_back(shape_name(kinds[i]));
    if (draw) {
      Picture panel;
      panel.image = pic.image;
      panel.cell = P;
      panel.title = std::string(shape_name(kinds[i]));
      panel.subtitle = trf("area {:.0f} px² (closed form), {} px in the mask; {} of {} patches touch it", pic.area,
                           static_cast<long long>(pixels), touched, p.tokens);
      panel.width = 280;
      fig.panels.push_back(std::move(panel));
    }
  }
  r.blocks.push_back(std::move(rec));
  if (!o.save_pictures.empty()) {
    std::vector<EmitFile> out;
    for (std::size_t i = 0; i < files.size(); ++i)
      out.push_back({{pngs[i]}, (std::filesystem::path(o.save_pictures) / files[i]).string(), true, "--save-pictures"});
    emit_together(out);
    std::fprintf(png_notice_stream(o.out), "%s\n",
                 trf("wrote {} pictures of {}×{} pixels to {} ({} … {}): give one to a ViT, e.g. tfx model logits teaching-vit "
                     "--image {}",
                     files.size(), side, side, o.save_pictures, files.front(), files.back(),
                     (std::filesystem::path(o.save_pictures) / files.front()).string())
                     .c_str());
  }
  r.summary[N_("shapes")] = names;
  r.summary[N_("tokens")] = p.tokens;
  r.primary = "shapes";
  fig.columns = std::min<int>(3, static_cast<int>(kinds.size()));
  fig.title = trf("The shapes teaching-vit learns: {}×{} pictures, {}×{} patches", side, side, P, P);
  present_all(r, o.out, o.fig, &fig, nullptr, fmt::format("patches_shapes_{}_p{}_seed{}.png", side, P, o.seed));
}

void run_patches(const PatchesOptions& o) {
  const std::int64_t h = o.height ? o.height : o.image, w = o.width ? o.width : o.image;
  const PatchEmbedding p = patch_embedding(o.batch, o.channels, h, w, o.patch, o.d_model);
  if (o.shapes_opt->count() > 0) return run_patches_shapes(o, p);
  if (!o.save_pictures.empty()) throw usage_error(N_("--save-pictures writes the --shapes pictures: give --shapes too"));
  Result r;
  r.command = "patches";
  r.params = {{"batch", o.batch}, {"channels", o.channels}, {"height", h}, {"width", w}, {"patch", o.patch}, {"d_model", o.d_model}};
  r.blocks.push_back(Text{trf(
      "ViT patch embedding: a {}×{} image with {} channels cut into {}×{} patches = {}×{} = {} tokens of d_model = {}",
      h, w, o.channels, o.patch, o.patch, p.grid_h, p.grid_w, p.tokens, o.d_model)});
  if (p.dropped_h || p.dropped_w)
    r.blocks.push_back(Text{trf("note: {}×{} is not a multiple of {}: Conv2d drops the last {} rows and {} columns of pixels",
                                        h, w, o.patch, p.dropped_h, p.dropped_w)});
  Records steps;
  steps.name = N_("steps");
  steps.columns = {N_("route"), N_("step"), N_("operation"), N_("shape")};
  auto add = [&](const char* route, long long k, std::string op, std::string s) {
    steps.rows.push_back({std::string(route), k, std::move(op), std::move(s)});
  };
  const auto B = p.batch, C = p.channels, D = p.d_model, P = p.patch, N = p.tokens;
  add("conv2d", 0, tr("x (input image)"), shape({B, C, h, w}));
  add("conv2d", 1, fmt::format("proj = nn.Conv2d({}, {}, kernel_size={}, stride={}); x = proj(x)", C, D, P, P),
      shape({B, D, p.grid_h, p.grid_w}));
  add("conv2d", 2, "x = x.flatten(2)", shape({B, D, N}));
  add("conv2d", 3, "x = x.transpose(1, 2)", shape({B, N, D}));
  add("unfold", 1, fmt::format("F.unfold(x, kernel_size={}, stride={})", P, P), shape({B, p.patch_dim, N}));
  add("unfold", 2, "transpose(1, 2)", shape({B, N, p.patch_dim}));
  add("unfold", 3, fmt::format("nn.Linear({}, {})", p.patch_dim, D), shape({B, N, D}));
  r.blocks.push_back(std::move(steps));
  r.blocks.push_back(Text{trf("parameters: {}·{}·{}² weights + {} biases = {} (Conv2d weight [{}, {}, {}, {}] = Linear weight [{}, {}])",
                                      D, C, P, D, p.parameters, D, C, P, P, D, p.patch_dim)});
  r.summary[N_("tokens")] = N;
  r.summary[N_("grid")] = {p.grid_h, p.grid_w};
  r.summary[N_("patch_dim")] = p.patch_dim;
  r.summary[N_("parameters")] = p.parameters;
  r.summary[N_("output_shape")] = {B, N, D};
  r.primary = "steps";
  std::string name = fmt::format("patches_{}x{}_p{}", h, w, o.patch);
  std::optional<Image> shown;
  if (!o.picture.empty()) {
    if (o.channels != 3) throw usage_error(fmt::format(N_("--channels {} with --image FILE: a picture is RGB, 3 channels"), o.channels));
    const Image original = read_image(o.picture);
    shown = resize_image(original, static_cast<int>(w), static_cast<int>(h));
    Matrix m;
    m.name = N_("patches");
    m.values = unfold_patches(*shown, static_cast<int>(o.patch));
    m.row_axis = N_("patch");
    m.col_axis = N_("c·P² + y·P + x");
    for (std::int64_t n = 0; n < N; ++n) m.row_labels.push_back(std::to_string(n));  // 0 … N − 1, as the figure and F.unfold number them
    r.blocks.insert(r.blocks.begin() + 1, Text{trf("{}: {}×{} pixels, resized to {}×{} (stb_image_resize), values scaled to [0, 1]; "
                                                           "patch n is row n of \"patches\": F.unfold's order (channel, row, column)",
                                                           o.picture, original.width, original.height, w, h)});
    r.blocks.push_back(std::move(m));
    r.primary = "patches";
    r.params["image_file"] = o.picture;
    name = "patches_" + name_part({std::filesystem::path(o.picture).stem().string()});
  }
  Figure fig;
  if (figure_drawn(o.fig, o.out)) {
    if (!shown) {
      if (h * w > kMaxImagePixels)
        throw usage_error(fmt::format(N_("a {}×{} picture is too big to draw (at most {} megapixels); draw a smaller --image"), h, w,
                                      kMaxImagePixels >> 20), {"image"});
      shown = gradient_picture(static_cast<int>(w), static_cast<int>(h));
    }
    Picture grid;
    grid.image = *shown;
    grid.cell = static_cast<int>(o.patch);
    grid.title = trf("{}×{} patches of {}×{} pixels = {} tokens", p.grid_h, p.grid_w, P, P, N);
    grid.subtitle = o.picture.empty() ? trf("a {}×{} colour ramp stands in for a picture (--image FILE)", w, h)
                                      : trf("{}, resized to {}×{}", std::filesystem::path(o.picture).filename().string(), w, h);
    if (p.dropped_h || p.dropped_w)
      grid.caption = trf("hatched: {} rows and {} columns of pixels past the last whole patch, which Conv2d drops", p.dropped_h,
                                 p.dropped_w);
    grid.width = std::clamp(2.0 * static_cast<double>(w), 320.0, 560.0);
    Picture seq = grid;
    seq.sequence = true;
    seq.title = trf("read in order: the sequence of tokens 0 … {} (counted from 0, as positions are)", N - 1);
    seq.subtitle = trf("each patch → {}·{}² = {} numbers → Linear → a token of d_model = {}", C, P, p.patch_dim, D);
    seq.caption = trf("image {} → patches {} → tokens {}", shape({B, C, h, w}), shape({B, N, p.patch_dim}), shape({B, N, D}));
    fig.panels = {std::move(grid), std::move(seq)};
    fig.columns = 1;
  }
  present_all(r, o.out, o.fig, &fig, nullptr, name + ".png");
}

}  // namespace

void register_patches(CLI::App& app) {
  auto [cmd, o] = add_command(app, "patches", tr("ViT patch embedding: image → patches → tokens, shapes of the Conv2d and unfold routes"),
                              run_patches, tr("Vision"));
  const auto big = std::int64_t{1} << 24;
  add_image_flag(cmd, &o->image, &o->picture, 1, big,
                 tr("height = width; a picture is resized to 224×224, or --image-height × --image-width, and cut into patches"))
      ->default_str("224");
  cmd->add_option("--image-height", o->height, tr("Image height, when not square (default: --image)"))->check(whole_number(1, big));
  cmd->add_option("--image-width", o->width, tr("Image width, when not square (default: --image)"))->check(whole_number(1, big));
  cmd->add_option("--patch", o->patch, tr("Patch side P = kernel_size = stride"))->capture_default_str()->check(whole_number(1, big));
  cmd->add_option("--channels", o->channels, tr("Input channels (3 = RGB)"))->capture_default_str()->check(whole_number(1, big));
  add_d_model_flag(cmd, o->d_model, tr("the output channels, one token's width"));
  add_batch_flag(cmd, o->batch, tr("pictures"));
  o->shapes_opt = cmd->add_option("--shapes", o->shapes,
                                  trf("Draw the synthetic pictures teaching-vit learns from instead: {} or all (comma-separated; "
                                      "given alone: all), one seeded picture each at --image N pixels",
                                      choice_list<ShapeKind>(kShapeChoices, true)))
                       ->expected(0, CLI::detail::expected_max_vector_size)
                       ->delimiter(',')
                       ->type_name("NAME,…")
                       ->check(CLI::Validator(
                           [](std::string& v) {
                             if (v.empty() || v == "all") return std::string();
                             for (const auto& c : kShapeChoices)
                               if (v == c.name) return std::string();
                             return fmt::format("expected {} or all, got '{}'", choice_list<ShapeKind>(kShapeChoices, false, ", ", ", "), v);
                           },
                           ""));
  add_seed_flag(cmd, o->seed, tr("the --shapes pictures: same seed, same pictures"));
  cmd->add_option("--save-pictures", o->save_pictures,
                  tr("With --shapes: also write each picture's own pixels as DIR/<shape>.png (--image × --image), to give to a ViT "
                     "with --image (the folder is created if missing)"))
      ->type_name("DIR");
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  set_examples(cmd, {tr("tfx patches                                # [1, 3, 224, 224] → [1, 196, 768] (ViT-B/16)"),
                     tr("tfx patches --shapes --image 64 --patch 8 --png   # the pictures teaching-vit learns from"),
                     tr("tfx patches --image cat.jpg --png          # the picture's 196 numbered patches and their sequence"),
                     tr("tfx patches --image cat.jpg -o patches.npy # the [196, 768] rows the Linear layer reads"),
                     tr("tfx patches --image 384 --patch 32 --d-model 1024"),
                     tr("tfx patches --image-height 224 --image-width 320 --format json")});
}

}  // namespace tfx::cli
