// Presenting what a command computed: present() hands a Result to the encoders and emit(),
// present_png() writes a Figure as PNG/SVG, present_view() draws it in the terminal, and
// present_all() decides which of them a command's flags ask for.
#include "cli/common.hpp"
#include "cli/flags/validators.hpp"
#include "cli/present/terminal.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/encoder.hpp"
#include "tfx/core/i18n.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <tuple>
#include <vector>

namespace tfx::cli {

// Text output is built in memory before it is written, ~50 bytes per number: past 2^25 numbers
// (1.6 GB) refuse and point at npy, 4 bytes per number (at the 2^30 tensor cap csv needed ~50 GB).
constexpr std::size_t kMaxTextNumbers = std::size_t{1} << 25;

void present(const Result& r, const OutputFlags& flags) {
  OutputOptions o = output_options(flags);
  if (!is_binary(o.format) && (format_traits(o.format).every_number || o.full)) {
    std::size_t n = 0;
    for (const Block& b : r.blocks)
      if (const auto* m = std::get_if<Matrix>(&b)) n += m->values.size();
    if (n > kMaxTextNumbers)
      throw usage_error(fmt::format(N_("{} would write {:.3g} numbers as text, over tfx's limit of {} (2^25); use --format npy "
                                    "(4 bytes each), the summary table (no --full), or smaller values"),
                                    o.full && o.format == Format::table ? "--full" : std::string("--format ") + format_name(o.format),
                                    static_cast<double>(n), kMaxTextNumbers));
  }
  // "--format npy -o -: refusing to write binary output to a terminal" names the flag the user gave
  const std::string flag = is_binary(o.format) && o.path == "-" ? fmt::format("--format {} -o", format_name(o.format)) : "-o";
  if (o.format == Format::npy) {
    // the matrix goes out from its own memory after the header: no copy of a 64 MB PE·PEᵀ
    const Tensor& t = npy_tensor(r);
    const std::string header = npy_header(t);
    emit({std::string_view(header), npy_data(t)}, o.path, true, flag);
    return;
  }
  emit(encode(r, o), o.path, is_binary(o.format), flag);
}

std::FILE* png_notice_stream(const OutputFlags& out) {
  return out.format_given() && out.output == "-" ? stderr : stdout;
}

namespace {
// --transpose, --vmin/--vmax (and --annotate for figures: a terminal cell has no room for a
// number) on every heatmap of `f`, for the figure and the terminal view alike.
void style_heatmaps(Figure& f, const FigureFlags& flags, bool annotate) {
  if (flags.vmin && flags.vmax && !(*flags.vmin < *flags.vmax))
    throw usage_error(fmt::format(N_("--vmin {} must be below --vmax {}"), *flags.vmin, *flags.vmax));
  for (Panel& p : f.panels)
    if (auto* h = std::get_if<Heatmap>(&p)) {
      if (flags.transpose) *h = transposed(*h);
      if (flags.vmin) h->vmin = flags.vmin;
      if (flags.vmax) h->vmax = flags.vmax;
      if (annotate && flags.annotate) h->annotate = flags.annotate > 0;
    }
}
}  // namespace

Figure styled_figure(const Figure& figure, const FigureFlags& flags) {
  Figure f = figure;
  if (!flags.title.empty()) {
    if (f.panels.size() == 1 && f.title.empty())
      std::visit([&](auto& p) { p.title = flags.title; }, f.panels[0]);
    else
      f.title = flags.title;
  }
  style_heatmaps(f, flags, true);
  return f;
}

namespace {
// --font FILE, else $TFX_FONT (only the command layer reads the environment); says once on
// stderr when no font file exists and the built-in bitmap font draws the text.
void choose_fonts(const FigureFlags& flags) {
  static bool done = false;
  if (done) return;
  done = true;
  std::string file = flags.font, from = "--font ";
  if (file.empty())
    if (const char* env = std::getenv("TFX_FONT"); env && *env) file = env, from = "TFX_FONT=";
  FontChoice choice;
  if (!file.empty()) choice.files.push_back(file);
  try {
    set_figure_fonts(choice);
  } catch (const Error& e) {
    throw Error(from + e.what());
  }
  if (figure_font_status().builtin)
    std::fprintf(stderr, "%s\n",
                 tr("tfx: note: no TrueType font found (install fonts-dejavu-core and fonts-nanum, or give --font FILE); "
                    "figure text uses the built-in bitmap font"));
}

// The file a figure goes to and its format: an .svg name is SVG whichever flag gave it.
struct FigureTarget {
  std::string path;
  Format format = Format::png;
  const char* given_by = "--png";  // the flag that named it (--png x.svg is SVG from --png)
  const char* flag() const { return format == Format::svg ? "--svg" : "--png"; }
};

// Two names of one file (x and ./x, or a symlink).
bool same_file(const std::string& a, const std::string& b) {
  auto resolved = [](const std::string& p) {
    std::error_code ec;
    auto r = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
    return ec ? std::filesystem::path(p).lexically_normal() : r.lexically_normal();
  };
  return a == b || resolved(a) == resolved(b);
}

// `covered`: the format -o (or --format) already writes the figure in. A bare --png (or --svg)
// asks for a figure in that format without naming a file, and -o names it: `--png -o x.png` is one
// figure, x.png, not x.png and a default-named copy. (--png with -o x.svg still writes both.)
std::vector<FigureTarget> figure_targets(const FigureFlags& flags, const std::string& default_name,
                                         std::optional<Format> covered = std::nullopt) {
  std::vector<FigureTarget> t;
  const std::string stem = default_name.size() > 4 && default_name.ends_with(".png") ? default_name.substr(0, default_name.size() - 4) : default_name;
  if (flags.png_opt && flags.png_opt->count() > 0 && !(flags.png.empty() && covered == Format::png)) {
    const std::string p = flags.png.empty() ? default_name : flags.png;
    t.push_back({p, extension_format(p) == Format::svg ? Format::svg : Format::png, "--png"});
  }
  if (flags.svg_opt && flags.svg_opt->count() > 0 && !(flags.svg.empty() && covered == Format::svg))
    t.push_back({flags.svg.empty() ? stem + ".svg" : flags.svg, Format::svg, "--svg"});
  return t;
}

// The figure in t's format (its encoder, tfx/io/encoder.hpp), written by emit(), and "wrote FILE".
void write_figure(const Figure& styled, const FigureTarget& t, const FigureFlags& flags, std::FILE* notice, const char* flag) {
  OutputOptions o;
  o.format = t.format;
  o.scale = flags.scale;
  const std::string bytes = serialize(Output{nullptr, &styled}, o);
  emit(bytes, t.path, is_binary(t.format), flag);
  if (t.path == "-") return;
  if (t.format == Format::png) {
    const auto [w, h] = png_size(bytes);
    announce_written(notice, trf("wrote {} ({}×{})", t.path, w, h));
  } else {
    announce_written(notice, trf("wrote {}", t.path));
  }
}

// the figure to each of `targets` (figure_targets)
void write_targets(const Figure& figure, const std::vector<FigureTarget>& targets, const FigureFlags& flags, std::FILE* notice) {
  if (targets.empty()) return;
  choose_fonts(flags);
  if (targets.size() == 2 && targets[0].path == "-" && targets[1].path == "-")
    throw usage_error(N_("--png - and --svg -: only one figure can go to stdout"));
  const Figure styled = styled_figure(figure, flags);
  for (const FigureTarget& t : targets) write_figure(styled, t, flags, notice, t.given_by);
}
}  // namespace

void present_png(const Figure& figure, const FigureFlags& flags, const std::string& default_name, std::FILE* notice) {
  write_targets(figure, figure_targets(flags, default_name), flags, notice);
}

bool stdout_color() { return escapes_allowed(stdout); }

int view_width(const FigureFlags& flags) {
  return flags.width > 0 ? flags.width : terminal_size(stdout).columns;
}

bool view_color(const FigureFlags& flags) {
  switch (parse_choice<ColorWhen>(kColorWhenChoices, flags.color, "color")) {
    case ColorWhen::always: return true;
    case ColorWhen::never: return false;
    case ColorWhen::automatic: break;
  }
  return stdout_color();
}

void present_view(const Figure& figure, const FigureFlags& flags) {
  ViewOptions v;
  v.width = view_width(flags);
  v.height = terminal_size(stdout).lines;
  v.color = view_color(flags);
  v.whole_figure = "--png";
  Figure scaled = figure;  // --vmin/--vmax/--transpose apply to the terminal view too
  style_heatmaps(scaled, flags, false);
  emit(render_view(scaled, v), "-", false, "-o");
}

void present_view(const Heatmap& h, const FigureFlags& flags) {
  Figure f;
  f.panels.push_back(h);
  present_view(f, flags);
}

void add_html_flag(CLI::App* app, std::string& html, OutputFlags& out) {
  CLI::Option* opt = app->add_option("--html", html,
                  tr("Write one self-contained offline page to FILE (.html): the head view (hover a token, pick layer and heads) "
                     "and the model view (every layer × head); no network needed"))
      ->check(CLI::Validator(
          [](std::string& path) -> std::string {
            if (path.empty()) return N_("expected a file name ending in .html (or - for stdout), got an empty one");
            const std::string ext = std::filesystem::path(path).extension().string();
            if (path == "-" || ext == ".html" || ext == ".htm") return {};
            return fmt::format(N_("{}: an HTML page's file name ends in .html"), path);
          },
          "FILE.html"))
      ->group(tr("Figures"));
  // --format html / -o FILE.html: --html FILE by another spelling (no -o: the page to stdout, as --html -)
  add_output_extra(out, Format::html, [opt, &html](const std::string& path, const std::string& where) {
    if (opt->count() > 0) throw usage_error(fmt::format(N_("--html {} and {} both ask for the page; give one of them"), html, where));
    html = path.empty() ? std::string("-") : path;
  });
}

namespace {
// `flag` PATH (an extra output: --html, --gif) naming the same file as -o or as the --png/--svg
// figure is refused before anything is written.
void refuse_same_output(const char* flag, const std::string& path, const OutputFlags& out, const FigureFlags& fig) {
  if (out.format_given() && out.output != "-" && same_file(path, out.output))
    throw usage_error(fmt::format(N_("{} {} and -o {} name the same file; give them different names"), flag, path, out.output));
  if (fig.png_requested())
    for (const std::string& other : {fig.png, fig.svg})
      if (!other.empty() && same_file(path, other))
        throw usage_error(fmt::format(N_("{} {} and the figure {} name the same file; give them different names"), flag, path, other));
}
}  // namespace

bool check_html_target(const std::string& path, const OutputFlags& out, const FigureFlags& fig) {
  const bool only = !out.format_given() && !fig.png_requested() && !fig.view;
  if (path == "-" && !only) throw usage_error(N_("--html -: the page goes to stdout, so a table, --view or a figure cannot go there too"));
  if (path != "-") refuse_same_output("--html", path, out, fig);
  return only;
}

void add_gif_flags(CLI::App* app, GifFlags& g, OutputFlags& out, const std::string& what) {
  g.opt = app->add_option("--gif", g.path, trf("Write an animated GIF to FILE (.gif; default: a name from the parameters): {}", what))
              ->expected(0, 1)
              ->check(CLI::Validator(
                  [](std::string& path) -> std::string {
                    if (path.empty() || std::filesystem::path(path).extension() == ".gif") return {};
                    return fmt::format(N_("{}: an animation's file name ends in .gif"), path);
                  },
                  "FILE.gif"))
              ->group(tr("Figures"));
  app->add_option("--frames", g.frames, tr("Frames of the --gif animation (positions 0 … N−1)"))
      ->capture_default_str()
      ->check(whole_number(2, 240))
      ->group(tr("Figures"));
  app->add_option("--fps", g.fps, tr("Frames per second of the --gif animation"))
      ->capture_default_str()
      ->check(number_in(1.0, 50.0))
      ->group(tr("Figures"));
  // --format gif / -o FILE.gif: --gif FILE by another spelling (no -o: the default name, as --gif)
  add_output_extra(out, Format::gif, [&g](const std::string& path, const std::string& where) {
    if (g.opt && g.opt->count() > 0)
      throw usage_error(fmt::format(N_("--gif and {} both ask for the animation; give one of them"), where));
    if (path == "-") throw usage_error(fmt::format(N_("{} -o -: an animation is written to a file; give -o NAME.gif"), where));
    g.path = path;
    g.by_format = true;
  });
}

bool check_gif_target(const GifFlags& g, const std::string& default_name, const OutputFlags& out, const FigureFlags& fig) {
  if (!g.requested()) return false;
  const std::string path = g.path.empty() ? default_name : g.path;
  refuse_same_output("--gif", path, out, fig);
  // a folder that is not there is said before the work (a training run), not after it
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    throw usage_error(fmt::format(N_("--gif {}: the folder {} does not exist; give a file in an existing folder"), path, dir.string()));
  return !out.format_given() && !fig.png_requested() && !fig.view;
}

void write_gif(const std::vector<Figure>& frames, const GifFlags& g, const std::string& default_name, const OutputFlags& out,
               const FigureFlags& fig) {
  choose_fonts(fig);
  std::vector<Image> images;
  std::size_t pixels = 0;
  for (const Figure& f : frames) {
    images.push_back(render(styled_figure(f, fig), fig.scale));
    pixels += static_cast<std::size_t>(images.back().width) * images.back().height;
    // the first frame's size times the frames estimates the whole before the rest is drawn
    if (pixels * (images.size() == 1 ? frames.size() : 1) > kMaxGifPixels)
      throw usage_error(fmt::format(N_("--gif: {} frames at --scale {} would pass {} megapixels; use fewer --frames or a smaller --scale"),
                                    frames.size(), fig.scale, kMaxGifPixels >> 20));
  }
  const std::string path = g.path.empty() ? default_name : g.path;
  OutputOptions o;
  o.format = Format::gif;
  o.fps = g.fps;
  emit(serialize(Output{nullptr, nullptr, &images, nullptr}, o), path, true, "--gif");
  int w = 0, h = 0;
  for (const Image& im : images) w = std::max(w, im.width), h = std::max(h, im.height);
  announce_written(png_notice_stream(out), trf("wrote {} ({}×{}, {} frames at {:g} per second)", path, w, h, images.size(), g.fps));
}

void prepare_output_folder(const std::string& flag, const std::string& dir, const std::vector<std::string>& names) {
  namespace fs = std::filesystem;
  if (dir.empty() || dir == "-")
    throw usage_error(fmt::format(N_("{} '{}': the files go into a folder; give the folder's name"), flag, dir));
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st) && !fs::is_directory(st))
    throw Error(fmt::format(N_("{} {}: is a file, expected a folder (it is created if missing)"), flag, dir));
  if (!fs::exists(st) && fs::is_symlink(fs::symlink_status(dir, ec)))  // create_directories would say "File exists"
    throw Error(fmt::format("{} {}: is a symbolic link to {}, which does not exist; expected a folder (give an existing folder "
                            "or a new name)",
                            flag, dir, fs::read_symlink(dir, ec).string()));
  if (!fs::exists(st)) {
    fs::create_directories(dir, ec);
    if (ec) throw Error(fmt::format(N_("{} {}: cannot create the folder: {}"), flag, dir, ec.message()));
  }
  // the files are the folder's own: a symbolic link (or a FIFO, a device, a folder) at a file's
  // name is refused before anything is written, never written through to what it names
  for (const std::string& name : names) {
    const fs::path path = fs::path(dir) / name;
    const fs::file_status lst = fs::symlink_status(path, ec);
    if (!fs::exists(lst) || fs::is_regular_file(lst)) continue;
    if (fs::is_symlink(lst))
      throw Error(fmt::format("{} {}: {} is a symbolic link (to {}); the files are written as the folder's own files, "
                              "never through a link: remove it or choose another folder",
                              flag, dir, path.string(), fs::read_symlink(path, ec).string()));
    throw Error(fmt::format(N_("{} {}: {} exists and is not a regular file; remove it or choose another folder"), flag, dir,
                            path.string()));
  }
}

void write_slides(const std::vector<Slide>& slides, const std::string& dir, Format format, const OutputFlags& out,
                  const FigureFlags& fig) {
  namespace fs = std::filesystem;
  const char* ext = format == Format::svg ? ".svg" : ".png";
  std::vector<std::string> names;
  for (const Slide& s : slides) names.push_back(s.name + ext);
  prepare_output_folder("--slides", dir, names);
  choose_fonts(fig);
  FigureFlags style = fig;
  style.title.clear();  // --title names the poster (--png), not every slide
  int w = 0, h = 0;
  for (const Slide& s : slides) {
    const std::string path = (fs::path(dir) / (s.name + ext)).string();
    OutputOptions o;
    o.format = format;
    o.scale = fig.scale;
    const Figure styled = styled_figure(s.figure, style);
    const std::string bytes = serialize(Output{nullptr, &styled}, o);
    emit(bytes, path, is_binary(format), "--slides");
    if (format == Format::png && s.figure.page_width > 0) std::tie(w, h) = png_size(bytes);
  }
  if (slides.empty()) return;
  const std::string size = w > 0 ? fmt::format(", {}×{}", w, h) : std::string();
  announce_written(png_notice_stream(out),
                   trf("wrote {} slides to {} ({}{} … {}{}{})", slides.size(), dir, slides.front().name, ext, slides.back().name, ext, size));
}

void write_html(const std::string& page, const std::string& path, const OutputFlags& out, const FigureFlags& fig) {
  OutputOptions o;
  o.format = Format::html;
  emit(serialize(Output{nullptr, nullptr, nullptr, &page}, o), path, false, "--html");
  std::FILE* notice = fig.png == "-" || fig.svg == "-" ? stderr : png_notice_stream(out);
  if (path != "-") announce_written(notice, trf("wrote {} (open it in a browser; it works offline)", path));
}

void present_all(const Result& r, const OutputFlags& out, const FigureFlags& fig, const Figure* figure,
                 const Heatmap* view, const std::string& default_png) {
  // --format png/svg (or -o FILE.png/.svg): the figure is the output, written where -o says
  if (out.figure_format()) {
    if (!figure) throw usage_error(fmt::format(N_("--format {}: this command draws no figure here; use {}"), format_name(out.format), format_list(false)));
    // a bare --png with -o x.png (or --svg with -o x.svg) is that one file
    const std::vector<FigureTarget> targets = figure_targets(fig, default_png, out.format);
    if (out.output == "-" && (fig.view || !targets.empty()))
      throw usage_error(fmt::format(N_("--format {} -o -: the figure goes to stdout, so --view, --png or --svg cannot go there too"), format_name(out.format)));
    if (out.output != "-")
      for (const FigureTarget& t : targets)
        if (same_file(t.path, out.output))
          throw usage_error(fmt::format(N_("{} {} and -o {} name the same file; give them different names"), t.flag(), t.path,
                                        out.output));
    choose_fonts(fig);
    const Format format = out.format;
    write_figure(styled_figure(*figure, fig), {out.output, format}, fig, stderr,
                 out.output == "-" && format == Format::png ? "--format png -o" : "-o");
    write_targets(*figure, targets, fig, stderr);
    if (fig.view && view) present_view(*view, fig);
    return;
  }
  const bool png = fig.png_requested() && figure;
  const bool show_view = fig.view && view;
  const bool table = (!png && !show_view) || out.format_given();
  const std::vector<FigureTarget> targets = png ? figure_targets(fig, default_png) : std::vector<FigureTarget>{};
  const bool to_stdout = std::any_of(targets.begin(), targets.end(), [](const FigureTarget& t) { return t.path == "-"; });
  if (to_stdout && (show_view || (table && out.output == "-")))
    throw usage_error(N_("--png -/--svg -: the figure goes to stdout, so --view or a table cannot go there too (use -o FILE or --png FILE)"));
  if (png && table && out.output != "-") {
    // one file cannot hold both: the second write would silently replace the first
    for (const FigureTarget& t : targets)
      if (same_file(t.path, out.output))
        throw usage_error(fmt::format(N_("{} {} and -o {} name the same file; give them different names"), t.flag(), t.path,
                                      out.output));
  }
  if (png) present_png(*figure, fig, default_png, png_notice_stream(out));
  if (show_view) {
    // every heatmap panel of the figure (the view heatmap is one of them); else the view alone
    const bool has_maps = figure && std::any_of(figure->panels.begin(), figure->panels.end(),
                                                [](const Panel& p) { return std::holds_alternative<Heatmap>(p); });
    if (has_maps) present_view(*figure, fig);
    else present_view(*view, fig);
  }
  if (table) present(r, out);
}

}  // namespace tfx::cli
