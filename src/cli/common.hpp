// Shared CLI plumbing: add_command (a command's subcommand, options and callback), the flags every
// command shares (--format, -o, --precision, --full, --png, --view, --cmap, --seed), each added by
// one helper (common.cpp), and present(), which hands a Result or a Figure to the presentation
// layer (present.cpp). Commands never format or write output themselves. The flag value
// validators are in validators.hpp.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tfx/core/i18n.hpp"
#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"
#include "tfx/text/file_name_words.hpp"
#include "cli/flags/validators.hpp"

namespace tfx::cli {

// A command: the subcommand `name` of `parent`, listed under `group` in the parent's --help (empty:
// no group), with the options its flags fill; once CLI11 has parsed and checked them, its callback
// calls run(options). The caller adds the flags:
//   auto [cmd, o] = add_command(app, "softmax", tr("…"), run_softmax, tr("Attention"));
template <class Options>
std::pair<CLI::App*, std::shared_ptr<Options>> add_command(CLI::App& parent, const std::string& name, const std::string& help,
                                                           void (*run)(const Options&), const std::string& group = {}) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = parent.add_subcommand(name, help);
  if (!group.empty()) cmd->group(group);
  cmd->callback([options, run] { run(*options); });
  return {cmd, options};
}

// --format, -o/--output, --precision, --full (--format png/svg or -o FILE.png/.svg: the figure;
// --format gif/html or -o FILE.gif/.html: the animation or page of a command that makes one)
struct OutputFlags {
  Format format = Format::table;  // parsed at the flag: --format NAME (any spelling), else -o FILE's extension
  std::string output = "-";
  int precision = -1;
  bool full = false;
  bool format_given() const;  // --format or -o was on the command line (and asked for data or the figure)
  bool figure_format() const;  // --format png/svg (or -o FILE.png/.svg): the figure is the output
  CLI::Option* format_opt = nullptr;
  CLI::Option* output_opt = nullptr;
  // The animation and page formats this command writes (gif: add_gif_flags, html: add_html_flag),
  // each with where its file goes: --format gif / -o FILE.gif hands FILE to --gif's, so both
  // spellings write the same bytes. Any other such format is a usage error generated from the rows.
  struct Extra {
    Format format;
    std::function<void(const std::string& path, const std::string& where)> take;  // path "" = the default name
  };
  std::vector<Extra> extras;
  bool figures = true;       // the command draws (add_output_flags' `figures`)
  bool handed_off = false;   // -o/--format named an extra format: the file is that flag's, no table
};
// figures = false: a command that draws nothing, whose --help offers no png/svg and whose
// --format png/svg is a one-line usage error.
void add_output_flags(CLI::App* app, OutputFlags& flags, bool figures = true);
// Registers an animation or page format (gif, html) the command writes: --format NAME and -o
// FILE.ext then call take(FILE or "" for the default name, the flag that asked: "-o x.gif"), and
// --format's and -o's help name it. add_gif_flags and add_html_flag call it.
void add_output_extra(OutputFlags& flags, Format format, std::function<void(const std::string&, const std::string&)> take);
OutputOptions output_options(const OutputFlags& flags);

// --png [FILE] and --svg [FILE] (FILE "-" = stdout), --scale, --title, --vmin/--vmax,
// --annotate/--no-annotate, --font, --view, --width, --color, --cmap
struct FigureFlags {
  CLI::Option* png_opt = nullptr;
  CLI::Option* svg_opt = nullptr;
  std::string png;           // empty = default name; a .svg name writes SVG
  std::string svg;           // empty = default name
  double scale = 1.0;        // --scale: the whole figure
  std::string title;         // --title: replaces the figure's title
  std::optional<double> vmin, vmax;  // --vmin/--vmax: heatmap color limits
  int annotate = 0;          // --annotate (1), --no-annotate (−1), automatic (0)
  std::string font;          // --font FILE (else $TFX_FONT): tried first for every character
  bool view = false;
  int width = 0;             // 0 = terminal width (COLUMNS, else 80)
  std::string cmap;          // empty = the command's default
  std::string color = "auto";  // --color: always | never | auto (terminal and NO_COLOR unset)
  bool transpose = false;    // --transpose: heatmaps drawn with rows and columns swapped
  // a figure file was asked for (--png or --svg)
  bool png_requested() const { return (png_opt && png_opt->count() > 0) || (svg_opt && svg_opt->count() > 0); }
};
void add_figure_flags(CLI::App* app, FigureFlags& flags, bool view = true);
// Both of the above with their defaults, output flags first: what nearly every command offers
// (-o/--format, then --png/--svg/--scale/--view …).
void add_presentation_flags(CLI::App* app, OutputFlags& out, FigureFlags& fig);
// A figure is drawn: --png/--svg, --view, or --format png/svg (-o FILE.png/.svg) — so a command
// builds its figure only then.
inline bool figure_drawn(const FigureFlags& fig, const OutputFlags& out) {
  return fig.png_requested() || fig.view || out.figure_format();
}

// --seed N (default 42): the seed of the one generator (tfx/random.hpp), one definition for every
// command: "Seed of the one random generator (NOTE)", `note` (translated) says what it draws.
CLI::Option* add_seed_flag(CLI::App* app, std::uint64_t& seed, const std::string& note = tr("same seed, same output"));

// Writes r in the requested format (stdout or -o FILE).
void present(const Result& r, const OutputFlags& flags);

// Writes the figure to --png's and/or --svg's FILE (or `default_name`, a .png name, with .svg
// for the SVG), styled by --scale/--title/--vmin/--vmax/--annotate, in the fonts of --font or
// $TFX_FONT; prints "wrote FILE (W×H)" to `notice` (stdout unless data also goes there).
void present_png(const Figure& figure, const FigureFlags& flags, const std::string& default_name,
                 std::FILE* notice = stdout);
// The figure as the flags style it: --title on the figure (or its one panel), --vmin/--vmax and
// --annotate on every heatmap.
Figure styled_figure(const Figure& figure, const FigureFlags& flags);

// Prints the --view terminal heatmaps (every heatmap panel of the figure, or h alone) fitted to
// the terminal (colors when stdout is a terminal, TERM is not dumb and NO_COLOR is unset).
void present_view(const Figure& figure, const FigureFlags& flags);
void present_view(const Heatmap& h, const FigureFlags& flags);

// The figure/table logic most matrix commands share: figure(s) if asked for, table unless only a
// figure was asked for (or --format/-o given as well).
void present_all(const Result& r, const OutputFlags& out, const FigureFlags& fig,
                 const Figure* figure, const Heatmap* view, const std::string& default_png);

// --gif [FILE] --frames N --fps X: an animated GIF (rope rotate, pe shift), the command's figure
// at successive positions.
struct GifFlags {
  CLI::Option* opt = nullptr;
  std::string path;  // empty = a default name from the parameters
  std::int64_t frames = 48;
  double fps = 8;
  bool by_format = false;  // asked for as --format gif / -o FILE.gif
  bool requested() const { return by_format || (opt && opt->count() > 0); }
};
// `out`: --format gif and -o FILE.gif become spellings of --gif FILE on this command.
void add_gif_flags(CLI::App* app, GifFlags& g, OutputFlags& out, const std::string& what);
// --gif checked against the other outputs before anything is computed (the same file as -o,
// --png or --svg is refused); true when the GIF is the only output asked for (no table then).
bool check_gif_target(const GifFlags& g, const std::string& default_name, const OutputFlags& out, const FigureFlags& fig);
// Renders the frames at --scale (styled by --title/--font) and writes the GIF (a temporary
// beside the target, then renamed); "wrote FILE (W×H, N frames)".
void write_gif(const std::vector<Figure>& frames, const GifFlags& g, const std::string& default_name, const OutputFlags& out,
               const FigureFlags& fig);

// Where "wrote FILE" goes: stdout, where it is the result, unless --format/-o sends data to stdout
// too; then stderr, so stdout holds the data alone (`tfx pe --png --format json | jq` works).
std::FILE* png_notice_stream(const OutputFlags& out);
// A folder that files of the given names are about to be written into (--slides DIR,
// --save-pictures DIR): created when missing; refused, naming `flag`, when it is a file, a dangling
// link, or holds something other than a regular file (a link, a folder, a FIFO) at one of the names.
void prepare_output_folder(const std::string& flag, const std::string& dir, const std::vector<std::string>& names);
// --slides DIR (tfx trace): figures written one file each into a folder, e.g. one 16:9 page per
// step. A slide's name has no extension ("01-tokens"); write_slides adds .png or .svg.
inline constexpr double kSlideWidth = 1920, kSlideHeight = 1080;  // a 16:9 page at --scale 1
struct Slide {
  std::string name;
  Figure figure;
};
// Creates `dir` if missing (refuses a path that exists and is not a folder, or "-"), writes every
// slide at --scale (styled by --vmin/--vmax/--annotate/--transpose/--font; --title stays on the
// poster), each file through emit() (a temporary beside it, renamed), and prints one line
// "wrote N slides to DIR (first … last, W×H)" where --png's "wrote" goes.
void write_slides(const std::vector<Slide>& slides, const std::string& dir, Format format, const OutputFlags& out,
                  const FigureFlags& fig);

// --html FILE: adds the option (FILE ends in .html or .htm; - = stdout) to `app`; --format html and
// -o FILE.html become spellings of it on this command (`out`).
void add_html_flag(CLI::App* app, std::string& html, OutputFlags& out);
// --html FILE checked against the other outputs before anything is written: refuses a path that
// -o or --png/--svg also name, and "-" when a table, --view or a figure goes to stdout too. True
// when only the page was asked for (no --format/-o, no figure, no --view): then print no table.
bool check_html_target(const std::string& path, const OutputFlags& out, const FigureFlags& fig);
// Writes the page as every output is written (a temporary beside it, renamed) and prints
// "wrote FILE" where --png does.
void write_html(const std::string& page, const std::string& path, const OutputFlags& out, const FigureFlags& fig);

// Color is used when stdout is a terminal, TERM is not "dumb" and NO_COLOR is unset.
bool stdout_color();
// --color always|never|auto resolved: auto = stdout_color().
bool view_color(const FigureFlags& flags);
// Width for --view: flags.width, else the terminal's width, else $COLUMNS, else 80.
int view_width(const FigureFlags& flags);


// Adds "Example:" lines under a command's --help.
void set_examples(CLI::App* app, std::initializer_list<const char*> examples);

}  // namespace tfx::cli
