// The flags every command shares (--format/-o/--precision/--full, the figure flags, --seed) and
// the help-text examples. Presenting a Result or a Figure is in present.cpp, the flag value
// validators in validators.cpp.
#include "cli/common.hpp"
#include "cli/flags/flag_names.hpp"
#include "cli/present/terminal.hpp"
#include "cli/present/written_files.hpp"

#include <fmt/format.h>

#include "tfx/text/unicode.hpp"
#include "tfx/core/i18n.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <vector>

namespace tfx::cli {

bool OutputFlags::format_given() const {
  return !handed_off && ((format_opt && format_opt->count() > 0) || (output_opt && output_opt->count() > 0));
}

namespace {
std::map<const CLI::App*, std::vector<std::pair<std::string, std::string>>>& hidden_output_table() {
  static std::map<const CLI::App*, std::vector<std::pair<std::string, std::string>>> table;
  return table;
}
}  // namespace

void set_hidden_outputs(const CLI::App* app, std::vector<std::pair<std::string, std::string>> outputs) {
  hidden_output_table()[app] = std::move(outputs);
}

const std::vector<std::pair<std::string, std::string>>& hidden_outputs(const CLI::App* app) { return hidden_output_table()[app]; }

namespace {
// -o FILE, --png/--svg FILE, --html/--gif FILE or --save-weights FILE naming one of the command's
// own input files (any other flag's or argument's value that is the same file, or a file read with
// it: a model's vocabulary beside it, a checkpoint folder's files) is refused before anything is
// read: the write would replace the input. Both sides count a model's companion files: `train -o
// m.safetensors` also writes m.vocab.txt, `translate --model m.safetensors` also reads it. "The
// same" is the same file (device and inode: hard links and symlinks included).
bool is_output_option(const CLI::Option* o) {
  return o->check_name("--output") || o->check_name("--png") || o->check_name("--svg") || o->check_name("--html") ||
         o->check_name("--gif") || o->check_name("--save-weights");
}

// The files written or read together with `path`: a model FILE.safetensors has its vocabulary
// FILE.vocab.txt beside it (model_flag.hpp), which tfx train writes and --model reads.
std::vector<std::string> companion_files(const std::string& path) {
  const std::string tail = ".safetensors";
  if (path.size() > tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0)
    return {path.substr(0, path.size() - tail.size()) + ".vocab.txt"};
  return {};
}

// A file the command reads, and what to call it in the message when it is not the value itself.
struct InputFile {
  std::string path, label;
};

// The files a flag's or argument's value makes the command read: the value itself when it is a
// file (with its companion files), and for a folder (a checkpoint: model hidden DIR, pe sim --model
// DIR, rope freqs --config DIR) every file in it a checkpoint holds — weights, index, config,
// tokenizer, vocabulary, merges.
std::vector<InputFile> files_read_from(const std::string& value) {
  std::error_code ec;
  if (value.empty()) return {};
  std::vector<InputFile> out;
  if (std::filesystem::is_regular_file(value, ec)) {
    out.push_back({value, value});
    for (const std::string& c : companion_files(value))
      if (std::filesystem::is_regular_file(c, ec)) out.push_back({c, fmt::format(N_("{} (read with {})"), c, value)});
    return out;
  }
  if (!std::filesystem::is_directory(value, ec)) return out;
  std::size_t seen = 0;
  for (auto it = std::filesystem::directory_iterator(value, ec); !ec && it != std::filesystem::directory_iterator() && seen < 4096;
       it.increment(ec), ++seen) {
    const std::string ext = it->path().extension().string();
    if ((ext == ".safetensors" || ext == ".json" || ext == ".txt" || ext == ".model" || ext == ".bin") && it->is_regular_file(ec))
      out.push_back({it->path().string(), fmt::format("{} (in {})", it->path().string(), value)});
  }
  return out;
}

void refuse_output_over_input(const CLI::App* app) {
  const auto options = app->get_options();
  // every output: the flag as the user wrote it and its path (train's -o FILE.safetensors is taken
  // off -o by its transform and registered with set_hidden_outputs)
  std::vector<std::pair<std::string, std::string>> outputs = hidden_outputs(app);
  for (const CLI::Option* out : options) {
    if (out->count() == 0 || !is_output_option(out)) continue;
    for (const std::string& path : out->results())
      if (!path.empty() && path != "-") outputs.emplace_back(out->check_name("--output") ? "-o" : out->get_name(), path);
  }
  // a hidden output (train's model and its vocabulary) and another output naming the same file:
  // one would overwrite the other
  const auto hidden = hidden_outputs(app);
  for (const auto& [hflag, hpath] : hidden) {
    std::vector<std::string> mine = {hpath};
    for (const std::string& c : companion_files(hpath)) mine.push_back(c);
    for (std::size_t k = hidden.size(); k < outputs.size(); ++k)
      for (const std::string& m : mine) {
        std::error_code ec1, ec2;
        const auto a = std::filesystem::weakly_canonical(m, ec1), b = std::filesystem::weakly_canonical(outputs[k].second, ec2);
        if (!ec1 && !ec2 && a == b)
          throw usage_error(fmt::format("{} {} and {} {} name the same file{}; give them different names", outputs[k].first,
                                        outputs[k].second, hflag, hpath,
                                        m == hpath ? std::string() : fmt::format(" (the vocabulary {} written beside it)", m)));
      }
  }
  for (const auto& [flag, path] : outputs) {
    std::vector<std::string> written = {path};
    for (const std::string& c : companion_files(path)) written.push_back(c);
    for (const std::string& target : written) {
      std::error_code ec;
      if (!std::filesystem::exists(target, ec)) continue;  // a new file replaces no input
      for (const CLI::Option* in : options) {
        if (in->count() == 0 || is_output_option(in)) continue;
        for (const std::string& value : in->results()) {
          for (const InputFile& file : files_read_from(value)) {
            if (!std::filesystem::equivalent(file.path, target, ec)) continue;
            const std::string name = in->get_name().empty() ? std::string("argument") : in->get_name();
            const std::string what = target == path ? fmt::format("{} {}", flag, path)
                                                    : fmt::format(N_("{} {} (which writes {} beside it)"), flag, path, target);
            throw usage_error(fmt::format(N_("{} is also the input {} {}; writing there would replace the input, so give "
                                          "another output file"),
                                          what, name, file.label));
          }
        }
      }
    }
  }
}

// --format's callback: the name (checked by the option's validator) parsed into the enum once.
std::function<void(const std::string&)> set_format(OutputFlags& f) {
  return [&f](const std::string& name) { f.format = parse_format(name); };
}

// "pe sim": the command's words under tfx.
std::string out_command_path(const CLI::App* app) {
  std::string s;
  for (const CLI::App* a = app; a && a->get_parent(); a = a->get_parent()) s = a->get_name() + (s.empty() ? "" : " " + s);
  return s;
}

const OutputFlags::Extra* out_find_extra(const OutputFlags& f, Format format) {
  for (const auto& e : f.extras)
    if (e.format == format) return &e;
  return nullptr;
}

// The names of the formats this command writes, from the rows: the data formats, the figure
// formats when it draws, and its animation/page formats (in table order).
std::vector<std::string> out_command_formats(const OutputFlags& f) {
  std::vector<std::string> out;
  for (const auto& c : kFormatChoices) {
    if (c.spelling != Spelling::name) continue;
    const FormatKind k = format_kind(c.value);
    if (k == FormatKind::data || (k == FormatKind::figure && f.figures) || out_find_extra(f, c.value)) out.emplace_back(c.name);
  }
  return out;
}

// "FLAG: pe sim cannot write gif; it writes table, csv, json, npy, md, png or svg"
std::string out_cannot_write(const CLI::App* app, const OutputFlags& f, Format format) {
  return fmt::format(N_("{} cannot write {}; it writes {}"), out_command_path(app), format_name(format), prose_list(out_command_formats(f)));
}

// What an animation or page format is in help: "the animation", "the page".
std::string out_kind_label(FormatKind k) { return k == FormatKind::animation ? tr("the animation") : tr("the page"); }

// --format's and -o's help, from the rows and the command's extra formats (set again when
// add_gif_flags/add_html_flag add one).
void out_describe_output_flags(OutputFlags& f) {
  if (!f.format_opt || !f.output_opt) return;
  std::string extra_formats, extra_exts;
  for (const auto& e : f.extras) {
    extra_formats += trf("; {}: {} (to -o FILE)", format_name(e.format), out_kind_label(format_kind(e.format)));
    extra_exts += trf("; .{} = {}", format_traits(e.format).extension, out_kind_label(format_kind(e.format)));
  }
  if (!f.extras.empty())
    if (CLI::Validator* v = f.format_opt->get_validator("format")) {
      std::vector<std::string> names = format_names(f.figures, true);
      for (const auto& e : f.extras) names.emplace_back(format_name(e.format));
      v->description(fmt::format("{{{}}}", fmt::join(names, ",")));
    }
  // the extensions from kFormatTraits: ".csv, .json, .npy, .md" (data), ".png or .svg" (figure)
  const std::string data_exts = prose_list(format_extensions(false), ", ", ", ");
  const std::string figure_exts = prose_list(format_extensions(true), ", ", tr(" or "));
  if (f.figures) {
    f.format_opt->description(trf("Output format: {}; {}: the figure (to -o FILE)", format_list(false, tr(" or ")),
                                  prose_list(format_names_of(kind_bit(FormatKind::figure)), ", ", tr(" or "))) +
                              extra_formats);
    f.output_opt->description(trf("Write the output to FILE (- = stdout); without --format, its extension picks the "
                                  "format: {}; .txt or none = the table; {} = the figure (an extension that "
                                  "contradicts --format is an error)",
                                  data_exts, figure_exts) +
                              extra_exts);
  } else {
    f.format_opt->description(tr("Output format: ") + format_list(false, tr(" or ")) + extra_formats);
    f.output_opt->description(trf("Write the output to FILE (- = stdout); without --format, its extension picks the "
                                  "format: {}; .txt or none = the table",
                                  data_exts) +
                              extra_exts);
  }
}

// -o FILE.gif / --format gif (an animation or page format): the file goes to the command's own
// flag for it (--gif, --html), which then writes exactly what it writes when given FILE itself;
// -o and --format then ask for no table. A command without that format says so in one line.
void out_hand_off(const CLI::App* app, OutputFlags& f, Format format, const std::string& where) {
  const OutputFlags::Extra* e = out_find_extra(f, format);
  if (!e) throw usage_error(fmt::format("{}: {}", where, out_cannot_write(app, f, format)));
  e->take(f.output_opt->count() > 0 ? f.output : std::string(), where);
  f.handed_off = true;
  f.format = Format::table;
  f.output = "-";
}
}  // namespace

void add_output_extra(OutputFlags& f, Format format, std::function<void(const std::string&, const std::string&)> take) {
  f.extras.push_back({format, std::move(take)});
  out_describe_output_flags(f);
}

void add_output_flags(CLI::App* app, OutputFlags& f, bool figures) {
  f.figures = figures;
  const auto not_member = [](const std::string& v, const std::vector<std::string>& names) {
    return fmt::format(N_("{} not in {{{}}}"), v, fmt::join(names, ","));
  };
  if (figures) {
    f.format_opt = app->add_option_function<std::string>("--format", set_format(f), "")
                       ->default_str(format_name(Format::table))
                       ->check(CLI::Validator(
                           [app, &f, not_member](std::string& v) -> std::string {
                             for (const std::string& ok : format_names(true, true))
                               if (v == ok) return {};
                             for (const auto& c : kFormatChoices)
                               if (v == c.name) return out_find_extra(f, c.value) ? std::string() : out_cannot_write(app, f, c.value);
                             return not_member(v, out_command_formats(f));  // with its gif/html, as --help lists them
                           },
                           fmt::format("{{{}}}", fmt::join(format_names(true, true), ",")), "format"))
                       ->group(tr("Output"));
  } else {
    f.format_opt = app->add_option_function<std::string>("--format", set_format(f), "")
                       ->default_str(format_name(Format::table))
                       ->check(CLI::Validator(
                           [app, &f](std::string& v) -> std::string {
                             for (const std::string& ok : format_names(false, true))
                               if (v == ok) return {};
                             for (const std::string& figure : format_names(true))
                               if (v == figure) return v + ": this command draws no figure; use " + format_list(false);
                             for (const auto& c : kFormatChoices)
                               if (v == c.name) return out_find_extra(f, c.value) ? std::string() : out_cannot_write(app, f, c.value);
                             return "expected " + format_list(false) + ", got '" + v + "'";
                           },
                           fmt::format("{{{}}}", fmt::join(format_names(false), ",")), "format"))
                       ->group(tr("Output"));
  }
  f.output_opt = app->add_option("-o,--output", f.output, "")
                     ->capture_default_str()
                     ->check(CLI::Validator(
                         [](std::string& path) {
                           return path.empty() ? std::string(N_("expected a file name (or - for stdout), got an empty one"))
                                               : std::string();
                         },
                         ""))
                     ->group(tr("Output"));
  out_describe_output_flags(f);
  app->add_option("--precision", f.precision, tr("Digits after the decimal point (default: 4 in tables, shortest exact in csv/json)"))
      ->check(whole_number(0, 17))
      ->group(tr("Output"));
  app->add_flag("--full", f.full, tr("Print every row and column instead of a summary with …"))->group(tr("Output"));
  // -o FILE without --format: the format follows FILE's extension (.csv, .json, .npy, .md; .png,
  // .svg: the figure; .gif, .html: the command's animation or page), so `-o pe.csv` writes CSV
  // rather than a terminal table; .txt, no extension or a device keeps the table; any other
  // extension (.tsv, …) is refused rather than silently given a table. With --format, an
  // extension naming another kind of format than the one asked for is an error, not a surprise.
  app->parse_complete_callback([app, &f] {
    refuse_output_over_input(app);
    const bool o_given = f.output_opt->count() > 0;
    const std::optional<Format> ext_format = o_given ? extension_format(f.output) : std::nullopt;
    const std::string ext = ext_format ? format_name(*ext_format) : "";
    if (f.format_opt->count() == 0) {
      if (!o_given) return;
      const std::string raw = std::filesystem::path(f.output).extension().string();
      if (ext_format && (format_kind(*ext_format) == FormatKind::animation || format_kind(*ext_format) == FormatKind::page)) {
        out_hand_off(app, f, *ext_format, "-o " + f.output);
      } else if (ext_format) {
        f.format = *ext_format;
      } else if (!raw.empty() && raw != ".txt" && f.output.rfind("/dev/", 0) != 0) {
        std::string extra_exts;
        for (const auto& e : f.extras)
          extra_exts += fmt::format(", .{} ({})", format_traits(e.format).extension, out_kind_label(format_kind(e.format)));
        throw usage_error(fmt::format(N_("-o {}: '{}' names no output format; use {} (.txt or no extension: the table), {} (the "
                                      "figure){}, or choose one with --format"),
                                      f.output, raw, prose_list(format_extensions(false)), prose_list(format_extensions(true)),
                                      extra_exts));
      }
      return;
    }
    // an explicit data format over another data extension wins, as it always did
    const std::string given = format_name(f.format);
    if (ext_format && f.format != *ext_format &&
        (format_kind(f.format) != FormatKind::data || format_kind(*ext_format) != FormatKind::data))
      throw usage_error(fmt::format(N_("-o {}: the .{} extension does not match --format {}; use a .{} name or --format {}"), f.output,
                                    ext, given, given == "table" ? "txt" : given, ext));
    if (format_kind(f.format) == FormatKind::animation || format_kind(f.format) == FormatKind::page)
      out_hand_off(app, f, f.format, "--format " + given);
  });
}

bool OutputFlags::figure_format() const { return is_figure(format); }
OutputOptions output_options(const OutputFlags& f) {
  OutputOptions o;
  o.format = f.format;
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
          return fmt::format(N_("expected a number from {} to {}, got '{}'"), kMinScale, kMaxScale, text);
        return {};
      },
      fmt::format("{} to {}", kMinScale, kMaxScale), "scale");
}

// --png FILE may name a .png or an .svg file, --svg FILE an .svg file; no extension is taken as
// the flag's own format. Any other extension is a usage error.
CLI::Validator figure_file(bool svg_only) {
  return CLI::Validator(
      [svg_only](std::string& path) -> std::string {
        if (path.empty()) return N_("expected a file name (or - for stdout), got an empty one");
        const std::string ext = std::filesystem::path(path).extension().string();
        if (path == "-" || ext.empty() || ext == ".svg" || (!svg_only && ext == ".png")) return {};
        return svg_only ? fmt::format(N_("{}: an SVG file name ends in .svg"), path)
                        : fmt::format(N_("{}: a figure file name ends in .png (or .svg for SVG)"), path);
      },
      "");
}
}  // namespace

void add_figure_flags(CLI::App* app, FigureFlags& f, bool view) {
  f.png_opt = app->add_option("--png", f.png, tr("Write a PNG figure to FILE (default: -o's FILE.png, else a name from the parameters; - = stdout; a .svg name writes SVG)"))
                  ->expected(0, 1)
                  ->check(figure_file(false))
                  ->group(tr("Figures"));
  f.svg_opt = app->add_option("--svg", f.svg, tr("Write the figure as SVG to FILE (default: -o's FILE.svg, else a name from the parameters; - = stdout): vector, hover a cell for its value"))
                  ->expected(0, 1)
                  ->check(figure_file(true))
                  ->group(tr("Figures"));
  // --scale is the figure's on every command (tfx lr's schedule multiplier is --factor)
  app->add_option("--scale", f.scale, tr("Scale the whole figure (text, lines, margins, cells): 2 for a projector"))
      ->capture_default_str()
      ->check(scale_number())
      ->group(tr("Figures"));
  app->add_option("--title", f.title, tr("Title of the figure (replaces the default)"))->group(tr("Figures"));
  app->add_option("--vmin", f.vmin, tr("Heatmap colors: the value at the bottom of the scale (to compare figures on one scale)"))
      ->check(CLI::Number)
      ->group(tr("Figures"));
  app->add_option("--vmax", f.vmax, tr("Heatmap colors: the value at the top of the scale"))->check(CLI::Number)->group(tr("Figures"));
  app->add_flag("--annotate,!--no-annotate", f.annotate,
                tr("Print each heatmap cell's value in it (default: on up to 12×12 cells, off above)"))
      ->group(tr("Figures"));
  app->add_flag("--transpose", f.transpose,
                tr("Draw heatmaps with rows and columns swapped (the PE matrix with the position along x, the depth along y)"))
      ->group(tr("Figures"));
  app->add_option("--font", f.font, tr("TrueType/OpenType font FILE tried first for every character of the figure's text (default: $TFX_FONT, then DejaVu Sans and Nanum for Hangul)"))
      ->group(tr("Figures"));
  if (view) {
    app->add_flag("--view", f.view, tr("Draw a heatmap in the terminal (24-bit color; ASCII when not a terminal or NO_COLOR is set)"))
        ->group(tr("Figures"));
    app->add_option("--width", f.width, tr("Terminal columns for --view (default: the terminal's width, else $COLUMNS, else 80)"))
        ->check(whole_number(1, 10000))
        ->group(tr("Figures"));
    app->add_option("--color", f.color, tr("Colors in --view: ") + choice_list<ColorWhen>(kColorWhenChoices, true))
        ->capture_default_str()
        ->check(one_of<ColorWhen>(kColorWhenChoices))
        ->group(tr("Figures"));
  }
  app->add_option("--cmap", f.cmap, trf("Colormap: {}", choice_list<Colormap>(kColormapChoices, true)))
      ->check(one_of<Colormap>(kColormapChoices))
      ->group(tr("Figures"));
}

void add_presentation_flags(CLI::App* app, OutputFlags& out, FigureFlags& fig) {
  add_output_flags(app, out);
  add_figure_flags(app, fig);
}

CLI::Option* add_seed_flag(CLI::App* app, std::uint64_t& seed, const std::string& note) {
  return app->add_option("--seed", seed, std::string(tr("Seed of the one random generator")) + " (" + note + ")")
      ->capture_default_str()
      ->check(seed_number());
}

void set_examples(CLI::App* app, std::initializer_list<const char*> examples) {
  std::string text = std::string("\n") + (examples.size() > 1 ? tr("Examples:") : tr("Example:")) + "\n";
  for (const char* e : examples) text += fmt::format("  {}\n", e);
  app->footer(text);
}

}  // namespace tfx::cli
