// Presentation layer: a Result (what a command computed) and pure encoders that turn it into a
// terminal table, CSV, JSON, .npy or Markdown, plus emit(), the one place that writes files or
// stdout (temporary file + rename; refuses binary output to a terminal).
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tfx/core/choices.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/tensor.hpp"

namespace tfx {

// A labelled numeric matrix (rank 1, 2 or 3; rank 3 prints as a stack of 2-D slices).
struct Matrix {
  std::string name{};                     // "pe", "weights", … — the key in JSON
  Tensor values{};
  std::vector<std::string> row_labels{};  // empty: 0, 1, 2, …
  std::vector<std::string> col_labels{};  // empty: 0, 1, 2, …
  std::string row_axis{};                 // what rows are, e.g. "pos"
  std::string col_axis{};                 // what columns are, e.g. "dim"
  std::vector<unsigned char> masked{};    // optional, one per element: 1 = masked (printed "0*")
  std::string slice_axis{};               // rank 3: what a slice is, e.g. "head" (table titles "head 0"); empty: "[0]"
  // rank 2, tables only: the matrix has rows_total rows, of which `values` holds just the first
  // and last 8 that a summary table shows (a 10⁹-row PE table is never computed whole to print 16)
  std::size_t rows_total = 0;
};

// A cell of a Records table.
using Cell = std::variant<std::string, double, long long>;

// A table of mixed columns, e.g. rank | word | cosine.
struct Records {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

// A line of explanation shown in table/Markdown output (in JSON under "notes").
struct Text {
  std::string text;
};

using Block = std::variant<Matrix, Records, Text>;

struct Result {
  std::string command;                                  // "pe", "pe sim", "analogy", …
  nlohmann::json params = nlohmann::json::object();     // the parameters that produced it
  std::vector<Block> blocks;                            // in display order
  nlohmann::json summary = nlohmann::json::object();    // scalar facts ("max_error": 1e-7)
  std::string primary;  // name of the block csv/npy/json "data" use; empty = the first Matrix/Records
};

// Every output format, data, figures, animations and pages alike: one enum, one table of names
// (--format, help, completion), one table of what each format is (kFormatTraits), and one encoder
// per format behind one interface (tfx/io/encoder.hpp). Adding a format is a row in each table and
// its encoder.
enum class Format { table, csv, json, npy, md, png, svg, gif, html };
inline constexpr Choice<Format> kFormatChoices[] = {
    {Format::table, "table", N_("aligned text tables (the default)")},
    {Format::csv, "csv", N_("comma-separated values of the main table")},
    {Format::json, "json", N_("one JSON object: params, summary, data and every block")},
    {Format::npy, "npy", N_("NumPy .npy of the main matrix (float32)")},
    {Format::md, "md", N_("Markdown tables")},
    {Format::md, "markdown", "", Spelling::alias},
    {Format::png, "png", N_("the figure as a PNG picture")},
    {Format::svg, "svg", N_("the figure as SVG vectors")},
    {Format::gif, "gif", N_("the figure animated, as a GIF (commands that animate: --gif)")},
    {Format::html, "html", N_("one self-contained offline page (attention commands: --html)")},
};

// What a format writes: the command's Result (data), the Figure it drew (figure), a sequence of
// figures (animation: gif), or an interactive page (page: html). A command writes the data formats,
// the figure formats when it draws, and an animation or page format only when it says so (--gif,
// --html); the kind names the formats of a command in its help and its errors.
enum class FormatKind { data, figure, animation, page };
inline constexpr unsigned kind_bit(FormatKind k) { return 1u << static_cast<unsigned>(k); }

// What a format is: the file extension that picks it for -o FILE ("" = none; the table is what
// .txt or no extension gives), whether its bytes are binary (refused on a terminal), its kind, and
// whether it writes every number of the Result (csv, json, npy) rather than a summary (table, md
// without --full).
struct FormatTraits {
  Format format;
  const char* extension;
  bool binary;
  FormatKind kind;
  bool every_number;
};
inline constexpr FormatTraits kFormatTraits[] = {
    {Format::table, "", false, FormatKind::data, false},     {Format::csv, "csv", false, FormatKind::data, true},
    {Format::json, "json", false, FormatKind::data, true},   {Format::npy, "npy", true, FormatKind::data, true},
    {Format::md, "md", false, FormatKind::data, false},      {Format::png, "png", true, FormatKind::figure, false},
    {Format::svg, "svg", false, FormatKind::figure, false},  {Format::gif, "gif", true, FormatKind::animation, false},
    {Format::html, "html", false, FormatKind::page, false},
};
const FormatTraits& format_traits(Format f);
inline bool is_binary(Format f) { return format_traits(f).binary; }
inline bool is_figure(Format f) { return format_traits(f).kind == FormatKind::figure; }
inline FormatKind format_kind(Format f) { return format_traits(f).kind; }
// The names --format accepts: the data formats, and the figure formats when `figures`; with the
// aliases ("markdown") when `aliases`.
std::vector<std::string> format_names(bool figures, bool aliases = false);
// The names of the formats whose kind is in `kinds` (kind_bit()s or'ed), in table order.
std::vector<std::string> format_names_of(unsigned kinds, bool aliases = false);
// The same as prose for help and messages: "table, csv, json, npy or md" (`last` before the last).
std::string format_list(bool figures, std::string_view last = " or ");
// The extensions that pick a format for -o FILE, in table order: the data formats' (".csv", ".json",
// ".npy", ".md"), or with `figures` the figure formats' (".png", ".svg").
std::vector<std::string> format_extensions(bool figures);
// The extensions of the formats of one kind (".gif" for animation).
std::vector<std::string> format_extensions_of(FormatKind kind);
// The format a file name's extension names (.csv, .json, .npy, .md, .png, .svg, .gif, .html or
// .htm; any case), if any.
std::optional<Format> extension_format(const std::string& path);

// The name of a format ("md" for Format::md).
inline const char* format_name(Format f) { return choice_name<Format>(kFormatChoices, f); }
// A name of kFormatChoices -> Format; anything else throws a usage error naming `format`.
Format parse_format(const std::string& name);

struct OutputOptions {
  Format format = Format::table;
  std::string path = "-";  // "-" = stdout
  int precision = -1;      // digits after the point; -1 = 4 in table/md, shortest round-trip in csv/json
  bool full = false;       // table: print every row and column instead of a numpy-style summary
  int width = 0;           // table: fit rows and notes to this many columns, like numpy's linewidth
                           // (middle columns elided with "…" and counted; notes wrapped); 0 = no limit
  std::string full_name = "full";  // how the note under a summarized table names `full` ("full
                                   // prints all"); the command layer puts its flag here
  double scale = 1.0;              // png/svg: the figure's scale (2 for a projector)
  double fps = 8;                  // gif: frames per second (each frame shows round(100 / fps) hundredths)
};

// The block csv/npy/json-"data" use (see Result::primary). nullptr when there is none.
const Block* primary_block(const Result& r);

std::string encode_table(const Result& r, const OutputOptions& o);
std::string encode_markdown(const Result& r, const OutputOptions& o);
std::string encode_csv(const Result& r, const OutputOptions& o);
std::string encode_json(const Result& r, const OutputOptions& o);
// .npy format 1.0, '<f4', C order, of the primary Matrix (throws if the primary is not numeric).
std::string encode_npy(const Result& r);
std::string encode_npy(const Tensor& t);
// The same in two pieces, so a large matrix is written from its own memory without a copy:
// the header, and the tensor's bytes as a view (valid while t lives).
std::string npy_header(const Tensor& t);
std::string_view npy_data(const Tensor& t);
// The tensor `--format npy` writes (the primary Matrix; throws when the primary is not numeric).
const Tensor& npy_tensor(const Result& r);
// A data format's bytes (o.format's encoder, tfx/io/encoder.hpp); a figure format throws.
std::string encode(const Result& r, const OutputOptions& o);

// Writes bytes to `path` ("-" = stdout). Files are written to "<path>.tmp" and renamed into
// place, so a failed run never leaves a partial file. `binary` output is refused when stdout is a
// terminal. `what` names the destination in error messages (the command layer passes its flag:
// "-o", "--png").
void emit(std::string_view bytes, const std::string& path, bool binary, const std::string& what = "output");
// The same for bytes in pieces (written one after the other, into the same temporary).
void emit(const std::vector<std::string_view>& pieces, const std::string& path, bool binary, const std::string& what = "output");

// Output written as it is produced, for a result too large to hold as bytes (a row per token of a
// book): `produce` calls the sink with each piece in order; the pieces go where emit() would put
// them (a unique temporary beside a file, renamed when `produce` returns; stdout; a descriptor or
// FIFO in place), gathered into megabyte writes. A throw from `produce` leaves no file.
using Sink = std::function<void(std::string_view)>;
void emit_streamed(const std::function<void(const Sink&)>& produce, const std::string& path, bool binary,
                   const std::string& what = "output");

// Pieces of the csv and json encoders, for a writer that streams a table rather than building a
// Result (same bytes as encode_csv / encode_json for the same cells):
// one CSV line of cells, with its newline;
std::string csv_row(const std::vector<Cell>& cells, int precision);
// one compact JSON value (floats as their shortest text, as encode_json writes them);
std::string json_text(const nlohmann::json& j);
// one record as encode_json writes a row of a table: an object of the columns, keys sorted;
std::string json_record(const std::vector<std::string>& columns, const std::vector<Cell>& row, int precision);
// a JSON object whose small members are in `head` and whose large members are written by `large`
// (a callback per key writing the value's text), every key in sorted order as encode_json orders
// them, then the newline encode_json ends with.
void write_json_object(const nlohmann::json& head, const std::map<std::string, std::function<void(const Sink&)>>& large, const Sink& sink);

// Formats a float the way every encoder does: fixed with `precision` digits, or shortest
// round-trip when precision < 0.
std::string format_number(double v, int precision);

// The shortest decimal text that reads back as the same float32 ("0.3322436"), as JSON and CSV
// write float32 values.
std::string shortest_float(float v);

}  // namespace tfx
