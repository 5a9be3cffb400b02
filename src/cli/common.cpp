// Shared flags and the hand-off from Results/Figures to the presentation layer.
#include "common.hpp"
#include "terminal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

namespace tfx::cli {

bool OutputFlags::format_given() const {
  return (format_opt && format_opt->count() > 0) || (output_opt && output_opt->count() > 0);
}

namespace {
// -o FILE or --png FILE naming one of the command's own input files (any other flag's or
// argument's value that is the same file) is refused before anything is read: the write would
// replace the input.
void refuse_output_over_input(const CLI::App* app) {
  const auto options = app->get_options();
  for (const CLI::Option* out : options) {
    if (out->count() == 0 || !(out->check_name("--output") || out->check_name("--png"))) continue;
    for (const std::string& path : out->results()) {
      if (path.empty() || path == "-") continue;
      for (const CLI::Option* in : options) {
        if (in == out || in->count() == 0 || in->check_name("--output") || in->check_name("--png")) continue;
        for (const std::string& value : in->results()) {
          std::error_code ec;
          if (!value.empty() && std::filesystem::is_regular_file(value, ec) && std::filesystem::equivalent(value, path, ec))
            throw usage_error(fmt::format("{} {} is also the input {} {}; writing there would replace the input, so give "
                                          "another output file",
                                          out->check_name("--png") ? "--png" : "-o", path, in->get_name(), value));
        }
      }
    }
  }
}
}  // namespace

void add_output_flags(CLI::App* app, OutputFlags& f) {
  f.format_opt = app->add_option("--format", f.format, "Output format: table, csv, json, npy or md; png or svg: the figure (to -o FILE)")
                     ->capture_default_str()
                     ->check(CLI::IsMember({"table", "csv", "json", "npy", "md", "markdown", "png", "svg"}))
                     ->group("Output");
  f.output_opt = app->add_option("-o,--output", f.output, "Write the output to FILE (- = stdout); without --format, its extension picks the format: .csv, .json, .npy, .md; .txt or none = the table; .png or .svg = the figure (an extension that contradicts --format is an error)")
                     ->capture_default_str()
                     ->check(CLI::Validator(
                         [](std::string& path) {
                           return path.empty() ? std::string("expected a file name (or - for stdout), got an empty one")
                                               : std::string();
                         },
                         ""))
                     ->group("Output");
  app->add_option("--precision", f.precision, "Digits after the decimal point (default: 4 in tables, shortest exact in csv/json)")
      ->check(whole_number(0, 17))
      ->group("Output");
  app->add_flag("--full", f.full, "Print every row and column instead of a summary with …")->group("Output");
  // -o FILE without --format: the format follows FILE's extension (.csv, .json, .npy, .md; .png,
  // .svg: the figure), so `-o pe.csv` writes CSV rather than a terminal table; .txt, no extension
  // or a device keeps the table; any other extension (.tsv, …) is refused rather than silently
  // given a table. With --format, an extension naming the figure where data was asked for (or
  // the other way round) is an error, not a surprise.
  app->parse_complete_callback([app, &f] {
    refuse_output_over_input(app);
    if (f.output_opt->count() == 0) return;
    const std::string ext = extension_format(f.output);
    if (f.format_opt->count() == 0) {
      const std::string raw = std::filesystem::path(f.output).extension().string();
      if (!ext.empty()) f.format = ext;
      else if (!raw.empty() && raw != ".txt" && f.output.rfind("/dev/", 0) != 0)
        throw usage_error(fmt::format("-o {}: '{}' names no output format; use .csv, .json, .npy or .md (.txt or no extension: "
                                      "the table), .png or .svg (the figure), or choose one with --format",
                                      f.output, raw));
      return;
    }
    // an explicit data format over another data extension wins, as it always did
    const std::string given = f.format == "markdown" ? "md" : f.format;
    const auto figure = [](const std::string& x) { return x == "png" || x == "svg"; };
    if (!ext.empty() && given != ext && (figure(given) || figure(ext)))
      throw usage_error(fmt::format("-o {}: the .{} extension does not match --format {}; use a .{} name or --format {}", f.output,
                                    ext, f.format, given == "table" ? "txt" : given, ext));
  });
}

std::string extension_format(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* known : {"csv", "json", "npy", "md", "png", "svg"})
    if (ext == std::string(".") + known) return known;
  return {};
}

bool OutputFlags::figure_format() const { return format == "png" || format == "svg"; }
OutputOptions output_options(const OutputFlags& f) {
  if (f.figure_format())
    throw usage_error(fmt::format("--format {}: this command draws no figure; use table, csv, json, npy or md", f.format));
  OutputOptions o;
  o.format = parse_format(f.format);
  o.path = f.output;
  o.precision = f.precision;
  o.full = f.full;
  o.full_name = "--full";
  // a table on a terminal fits its width (numpy's linewidth); piped or in a file only when
  // COLUMNS asks for it, so scripts get every summary column
  if (o.format == Format::table && o.path == "-" && (is_terminal(stdout) || std::getenv("COLUMNS")))
    o.width = terminal_size(stdout).columns;
  return o;
}

namespace {
// A validator for --scale: a number from kMinScale to kMaxScale.
CLI::Validator scale_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !(v >= kMinScale && v <= kMaxScale))
          return fmt::format("expected a number from {} to {}, got '{}'", kMinScale, kMaxScale, text);
        return {};
      },
      fmt::format("{} to {}", kMinScale, kMaxScale), "scale");
}

// --png FILE may name a .png or an .svg file, --svg FILE an .svg file; no extension is taken as
// the flag's own format. Any other extension is a usage error.
CLI::Validator figure_file(bool svg_only) {
  return CLI::Validator(
      [svg_only](std::string& path) -> std::string {
        if (path.empty()) return "expected a file name (or - for stdout), got an empty one";
        const std::string ext = std::filesystem::path(path).extension().string();
        if (path == "-" || ext.empty() || ext == ".svg" || (!svg_only && ext == ".png")) return {};
        return svg_only ? fmt::format("{}: an SVG file name ends in .svg", path)
                        : fmt::format("{}: a figure file name ends in .png (or .svg for SVG)", path);
      },
      "");
}
}  // namespace

void add_figure_flags(CLI::App* app, FigureFlags& f, bool view) {
  f.png_opt = app->add_option("--png", f.png, "Write a PNG figure to FILE (default: a name from the parameters; - = stdout; a .svg name writes SVG)")
                  ->expected(0, 1)
                  ->check(figure_file(false))
                  ->group("Figures");
  f.svg_opt = app->add_option("--svg", f.svg, "Write the figure as SVG to FILE (default: a name from the parameters; - = stdout): vector, hover a cell for its value")
                  ->expected(0, 1)
                  ->check(figure_file(true))
                  ->group("Figures");
  // `tfx lr` has its own --scale (the schedule's factor): there the figure's is --figure-scale
  const bool taken = app->get_option_no_throw("--scale") != nullptr;
  app->add_option(taken ? "--figure-scale" : "--scale", f.scale, "Scale the whole figure (text, lines, margins, cells): 2 for a projector")
      ->capture_default_str()
      ->check(scale_number())
      ->group("Figures");
  app->add_option("--title", f.title, "Title of the figure (replaces the default)")->group("Figures");
  app->add_option("--vmin", f.vmin, "Heatmap colors: the value at the bottom of the scale (to compare figures on one scale)")
      ->check(CLI::Number)
      ->group("Figures");
  app->add_option("--vmax", f.vmax, "Heatmap colors: the value at the top of the scale")->check(CLI::Number)->group("Figures");
  app->add_flag("--annotate,!--no-annotate", f.annotate,
                "Print each heatmap cell's value in it (default: on up to 12×12 cells, off above)")
      ->group("Figures");
  app->add_option("--font", f.font, "TrueType/OpenType font FILE tried first for every character of the figure's text (default: $TFX_FONT, then DejaVu Sans and Nanum for Hangul)")
      ->group("Figures");
  if (view) {
    app->add_flag("--view", f.view, "Draw a heatmap in the terminal (24-bit color; ASCII when not a terminal or NO_COLOR is set)")
        ->group("Figures");
    app->add_option("--width", f.width, "Terminal columns for --view (default: the terminal's width, else $COLUMNS, else 80)")
        ->check(whole_number(1, 10000))
        ->group("Figures");
    app->add_option("--color", f.color, "Colors in --view: always, never, or auto (when stdout is a terminal and NO_COLOR is unset)")
        ->capture_default_str()
        ->check(CLI::IsMember({"always", "never", "auto"}))
        ->group("Figures");
  }
  app->add_option("--cmap", f.cmap, "Colormap: diverging (RdBu: red < 0 < blue, the lecture's PE colors), bluered (blue < 0 < red), viridis or gray")
      ->check(CLI::IsMember({"diverging", "rdbu", "bluered", "rdbu_r", "viridis", "gray", "grey"}))
      ->group("Figures");
}

CLI::Option* add_seed_flag(CLI::App* app, std::uint64_t& seed, const std::string& help) {
  return app->add_option("--seed", seed, help)->capture_default_str();
}

namespace {
// "≥ lo" when hi is effectively unbounded (the memory cap is the real limit), else "in lo…hi"
std::string range_words(std::int64_t lo, std::int64_t hi) {
  return hi >= (std::int64_t{1} << 40) ? fmt::format("≥ {}", lo) : fmt::format("in {}…{}", lo, hi);
}
}  // namespace

// One message for every bad whole number: "expected a whole number in 1…1048576, got 0"
// (main prefixes the flag). The description ("≥ 1", "1…1048576") is what --help shows.
CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
  const std::string range = range_words(lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        auto [p, ec] = std::from_chars(text.data(), end, v);
        const bool all_digits = !text.empty() && p == end;
        if (ec != std::errc{} || !all_digits || v < lo || v > hi)
          return fmt::format("expected a whole number {}, got '{}'", range, text);
        return {};
      },
      hi >= (std::int64_t{1} << 40) ? fmt::format("≥ {}", lo) : fmt::format("{}…{}", lo, hi), "whole number");
}

namespace {
// A validator for a finite decimal number above `lo` (or equal to it when `or_equal`).
CLI::Validator finite_number_from(double lo, bool or_equal, const char* words, const char* desc) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size() && errno != ERANGE && std::isfinite(v);
        if (!number || v < lo || (!or_equal && v == lo)) return fmt::format("expected {}, got '{}'", words, text);
        return {};
      },
      desc, words);
}
}  // namespace

CLI::Validator non_empty_path(const std::string& hint) {
  return CLI::Validator(
      [hint](std::string& path) {
        return path.empty() ? fmt::format("expected a file name, got an empty one ({})", hint) : std::string();
      },
      "");
}

CLI::Validator non_empty_word() {
  return CLI::Validator([](std::string& w) { return w.empty() ? std::string("expected a word, got an empty one") : std::string(); },
                        "");
}

std::vector<std::string> split_items(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (;;) {
    std::size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    const std::string item = text.substr(i, j - i);
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? std::string() : item.substr(b, e - b + 1));
    if (j == text.size()) return out;
    i = j + 1;
  }
}

CLI::Validator comma_list(const std::string& what, const std::string& example, std::optional<CLI::Validator> item) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto items = split_items(text);
        for (std::size_t k = 0; k < items.size(); ++k) {
          if (items[k].empty())
            return items.size() == 1 ? fmt::format("expected comma-separated {} like {}, got an empty value", what, example)
                                     : fmt::format("item {} of '{}' is empty; expected comma-separated {} like {}", k + 1,
                                                   text, what, example);
          if (item) {
            std::string copy = items[k];
            if (std::string err = (*item)(copy); !err.empty())
              return items.size() == 1 ? err : fmt::format("item {} of '{}': {}", k + 1, text, err);
          }
        }
        return {};
      },
      item ? item->get_description() : std::string(), "comma-separated list");
}

std::vector<std::string> list_items(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values)
    for (auto& item : split_items(v)) out.push_back(std::move(item));
  return out;
}

std::vector<std::int64_t> whole_number_items(const std::vector<std::string>& values) {
  std::vector<std::int64_t> out;
  for (const auto& item : list_items(values)) out.push_back(std::stoll(item));
  return out;
}

CLI::Validator positive_number() { return finite_number_from(0.0, false, "a positive number", "> 0"); }
CLI::Validator non_negative_number() { return finite_number_from(0.0, true, "a number ≥ 0", "≥ 0"); }

// Text output is built in memory before it is written, ~50 bytes per number: past 2^25 numbers
// (1.6 GB) refuse and point at npy, 4 bytes per number (at the 2^30 tensor cap csv needed ~50 GB).
constexpr std::size_t kMaxTextNumbers = std::size_t{1} << 25;

void present(const Result& r, const OutputFlags& flags) {
  OutputOptions o = output_options(flags);
  if (!is_binary(o.format) && (o.format == Format::csv || o.format == Format::json || o.full)) {
    std::size_t n = 0;
    for (const Block& b : r.blocks)
      if (const auto* m = std::get_if<Matrix>(&b)) n += m->values.size();
    if (n > kMaxTextNumbers)
      throw usage_error(fmt::format("{} would write {:.3g} numbers as text, over tfx's limit of {} (2^25); use --format npy "
                                    "(4 bytes each), the summary table (no --full), or smaller values",
                                    o.full && o.format == Format::table ? "--full" : "--format " + flags.format,
                                    static_cast<double>(n), kMaxTextNumbers));
  }
  // "--format npy -o -: refusing to write binary output to a terminal" names the flag the user gave
  emit(encode(r, o), o.path, is_binary(o.format), is_binary(o.format) && o.path == "-" ? "--format npy -o" : "-o");
}

namespace {
// Where "wrote FILE" goes: stdout, where it is the result, unless --format/-o sends data to stdout
// too; then stderr, so stdout holds the data alone (`tfx pe --png --format json | jq` works).
std::FILE* png_notice_stream(const OutputFlags& out) {
  return out.format_given() && out.output == "-" ? stderr : stdout;
}
}  // namespace

namespace {
void check_limits(const FigureFlags& flags) {
  if (flags.vmin && flags.vmax && !(*flags.vmin < *flags.vmax))
    throw usage_error(fmt::format("--vmin {} must be below --vmax {}", *flags.vmin, *flags.vmax));
}
}  // namespace

Figure styled_figure(const Figure& figure, const FigureFlags& flags) {
  check_limits(flags);
  Figure f = figure;
  if (!flags.title.empty()) {
    if (f.panels.size() == 1 && f.title.empty())
      std::visit([&](auto& p) { p.title = flags.title; }, f.panels[0]);
    else
      f.title = flags.title;
  }
  for (Panel& p : f.panels)
    if (auto* h = std::get_if<Heatmap>(&p)) {
      if (flags.vmin) h->vmin = flags.vmin;
      if (flags.vmax) h->vmax = flags.vmax;
      if (flags.annotate) h->annotate = flags.annotate > 0;
    }
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
    std::fprintf(stderr, "tfx: note: no TrueType font found (install fonts-dejavu-core and fonts-nanum, or give --font FILE); "
                         "figure text uses the built-in bitmap font\n");
}

// The file a figure goes to and whether it is SVG: an .svg name is SVG whichever flag gave it.
struct FigureTarget {
  std::string path;
  bool svg = false;
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

std::vector<FigureTarget> figure_targets(const FigureFlags& flags, const std::string& default_name) {
  std::vector<FigureTarget> t;
  const std::string stem = default_name.size() > 4 && default_name.ends_with(".png") ? default_name.substr(0, default_name.size() - 4) : default_name;
  auto is_svg = [](const std::string& p) { return std::filesystem::path(p).extension() == ".svg"; };
  if (flags.png_opt && flags.png_opt->count() > 0) {
    const std::string p = flags.png.empty() ? default_name : flags.png;
    t.push_back({p, is_svg(p)});
  }
  if (flags.svg_opt && flags.svg_opt->count() > 0) t.push_back({flags.svg.empty() ? stem + ".svg" : flags.svg, true});
  return t;
}

void write_figure(const Figure& styled, const FigureTarget& t, const FigureFlags& flags, std::FILE* notice, const char* flag) {
  if (t.svg) {
    emit(encode_svg(styled, flags.scale), t.path, false, flag);
    if (t.path != "-") std::fprintf(notice, "wrote %s\n", t.path.c_str());
    return;
  }
  Image img = render(styled, flags.scale);
  emit(encode_png(img), t.path, true, flag);
  if (t.path != "-") std::fprintf(notice, "wrote %s (%d×%d)\n", t.path.c_str(), img.width, img.height);
}
}  // namespace

void present_png(const Figure& figure, const FigureFlags& flags, const std::string& default_name, std::FILE* notice) {
  choose_fonts(flags);
  const std::vector<FigureTarget> targets = figure_targets(flags, default_name);
  if (targets.size() == 2 && targets[0].path == "-" && targets[1].path == "-")
    throw usage_error("--png - and --svg -: only one figure can go to stdout");
  const Figure styled = styled_figure(figure, flags);
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const bool from_png = k == 0 && flags.png_opt && flags.png_opt->count() > 0;
    write_figure(styled, targets[k], flags, notice, from_png ? "--png" : "--svg");
  }
}

bool stdout_color() { return escapes_allowed(stdout); }

int view_width(const FigureFlags& flags) {
  return flags.width > 0 ? flags.width : terminal_size(stdout).columns;
}

bool view_color(const FigureFlags& flags) {
  if (flags.color == "always") return true;
  if (flags.color == "never") return false;
  return stdout_color();
}

void present_view(const Figure& figure, const FigureFlags& flags) {
  ViewOptions v;
  v.width = view_width(flags);
  v.height = terminal_size(stdout).lines;
  v.color = view_color(flags);
  v.whole_figure = "--png";
  check_limits(flags);
  Figure scaled = figure;  // --vmin/--vmax apply to the terminal view too
  for (Panel& p : scaled.panels)
    if (auto* h = std::get_if<Heatmap>(&p)) {
      if (flags.vmin) h->vmin = flags.vmin;
      if (flags.vmax) h->vmax = flags.vmax;
    }
  emit(render_view(scaled, v), "-", false, "-o");
}

void present_view(const Heatmap& h, const FigureFlags& flags) {
  Figure f;
  f.panels.push_back(h);
  present_view(f, flags);
}

void present_all(const Result& r, const OutputFlags& out, const FigureFlags& fig, const Figure* figure,
                 const Heatmap* view, const std::string& default_png) {
  // --format png/svg (or -o FILE.png/.svg): the figure is the output, written where -o says
  if (out.figure_format()) {
    if (!figure) throw usage_error(fmt::format("--format {}: this command draws no figure here; use table, csv, json, npy or md", out.format));
    if (out.output == "-" && (fig.view || fig.png_requested()))
      throw usage_error(fmt::format("--format {} -o -: the figure goes to stdout, so --view, --png or --svg cannot go there too", out.format));
    if (out.output != "-")
      for (const FigureTarget& t : figure_targets(fig, default_png))
        if (same_file(t.path, out.output))
          throw usage_error(fmt::format("{} {} and -o {} name the same file; give them different names", t.svg ? "--svg" : "--png", t.path,
                                        out.output));
    choose_fonts(fig);
    write_figure(styled_figure(*figure, fig), {out.output, out.format == "svg"}, fig, stderr,
                 out.output == "-" && out.format == "png" ? "--format png -o" : "-o");
    if (fig.png_requested()) present_png(*figure, fig, default_png, stderr);
    if (fig.view && view) present_view(*view, fig);
    return;
  }
  const bool png = fig.png_requested() && figure;
  const bool show_view = fig.view && view;
  const bool table = (!png && !show_view) || out.format_given();
  const std::vector<FigureTarget> targets = png ? figure_targets(fig, default_png) : std::vector<FigureTarget>{};
  const bool to_stdout = std::any_of(targets.begin(), targets.end(), [](const FigureTarget& t) { return t.path == "-"; });
  if (to_stdout && (show_view || (table && out.output == "-")))
    throw usage_error("--png -/--svg -: the figure goes to stdout, so --view or a table cannot go there too (use -o FILE or --png FILE)");
  if (png && table && out.output != "-") {
    // one file cannot hold both: the second write would silently replace the first
    for (const FigureTarget& t : targets)
      if (same_file(t.path, out.output))
        throw usage_error(fmt::format("{} {} and -o {} name the same file; give them different names", t.svg ? "--svg" : "--png", t.path,
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

void set_examples(CLI::App* app, std::initializer_list<const char*> examples) {
  std::string text = "\nExample" + std::string(examples.size() > 1 ? "s" : "") + ":\n";
  for (const char* e : examples) text += fmt::format("  {}\n", e);
  app->footer(text);
}

}  // namespace tfx::cli
