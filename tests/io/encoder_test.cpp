// One Format for data and figures (issue 25 §2): every format has a name, traits and an encoder;
// -o FILE.ext finds its format from the same table; the figure encoders serialize the Figure, the
// data encoders the Result, each refusing the other's input in one line.
#include <doctest/doctest.h>

#include "gif.hpp"
#include "helpers.hpp"
#include "tfx/io/encoder.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("formats: every enumerator has a name, traits and an encoder; the extension of each names it back") {
  for (Format f : {Format::table, Format::csv, Format::json, Format::npy, Format::md, Format::png, Format::svg, Format::gif,
                   Format::html}) {
    CHECK(format_traits(f).format == f);
    CHECK(encoder_for(f).format == f);
    const std::string name = choice_name<Format>(kFormatChoices, f);
    CHECK(parse_format(name) == f);
    if (*format_traits(f).extension) {
      CHECK(extension_format("dir.x/out." + std::string(format_traits(f).extension)) == f);
      CHECK(extension_format("OUT." + name) == f);  // any case
    }
  }
  CHECK_FALSE(extension_format("table.txt"));
  CHECK_FALSE(extension_format("dir/.png"));  // a hidden file has no extension
  CHECK_FALSE(extension_format("noext"));
  CHECK(format_list(false) == "table, csv, json, npy or md");
  CHECK(format_names(true, true).size() == 8);  // + markdown, png, svg
  // gif and html are rows too, of their own kinds: never in the data/figure lists every command shows
  CHECK(format_names_of(kind_bit(FormatKind::animation)) == std::vector<std::string>{"gif"});
  CHECK(format_names_of(kind_bit(FormatKind::page)) == std::vector<std::string>{"html"});
  CHECK(format_extensions_of(FormatKind::animation) == std::vector<std::string>{".gif"});
  CHECK(extension_format("a/b.GIF") == Format::gif);
  CHECK(extension_format("page.html") == Format::html);
  CHECK(is_binary(Format::gif));
  CHECK_FALSE(is_binary(Format::html));
  CHECK_FALSE(is_figure(Format::gif));
  CHECK(is_binary(Format::npy));
  CHECK(is_binary(Format::png));
  CHECK_FALSE(is_binary(Format::svg));
  CHECK(is_figure(Format::svg));
  CHECK_FALSE(is_figure(Format::csv));
}

TEST_CASE("formats: png and svg serialize the figure (the PNG's header gives the rendered size), data formats the Result") {
  Heatmap h;
  h.values = Tensor({2, 3});
  for (std::size_t i = 0; i < 6; ++i) h.values.data()[i] = static_cast<float>(i);
  h.title = "t";
  Figure fig;
  fig.panels.push_back(h);
  Result r;
  r.command = "x";
  Matrix m;
  m.name = "m";
  m.values = h.values;
  r.blocks.push_back(m);
  OutputOptions o;
  o.format = Format::png;
  const std::string png = serialize(Output{&r, &fig}, o);
  const Image img = render(fig, 1.0);
  CHECK(png.compare(1, 3, "PNG") == 0);
  CHECK(png_size(png) == std::pair{img.width, img.height});
  o.scale = 2.0;
  CHECK(png_size(serialize(Output{&r, &fig}, o)).first > img.width);
  o.format = Format::svg;
  CHECK(has(serialize(Output{&r, &fig}, o), "<svg"));
  o.format = Format::csv;
  CHECK(serialize(Output{&r, &fig}, o) == encode_csv(r, o));
  // a figure format with no figure, and a data format with no Result, are one-line usage errors
  o.format = Format::png;
  CHECK(has(error_of([&] { serialize(Output{&r, nullptr}, o); }), "draws no figure"));
  o.format = Format::json;
  CHECK(has(error_of([&] { serialize(Output{nullptr, &fig}, o); }), "format json"));  // "--format json" once the CLI names the flag
  CHECK(png_size("not a png") == std::pair{0, 0});
}

TEST_CASE("formats: gif serializes drawn frames at o.fps, html the page as it is; each refuses a missing input in one line") {
  Image a{3, 2, std::vector<std::uint8_t>(18, 0)}, b{3, 2, std::vector<std::uint8_t>(18, 200)};
  const std::vector<Image> frames{a, b};
  OutputOptions o;
  o.format = Format::gif;
  o.fps = 4;  // 100 / 4 = 25 hundredths per frame
  const std::string gif = serialize(Output{nullptr, nullptr, &frames, nullptr}, o);
  const GifDecoded d = decode_gif(gif);
  CHECK(d.w == 3);
  CHECK(d.h == 2);
  REQUIRE(d.frames.size() == 2);
  CHECK(d.delays == std::vector<int>{25, 25});
  CHECK(d.frames[1][0].r == 200);
  CHECK(has(error_of([&] { serialize(Output{}, o); }), "format gif"));
  o.format = Format::html;
  const std::string page = "<!DOCTYPE html><p>x</p>";
  CHECK(serialize(Output{nullptr, nullptr, nullptr, &page}, o) == page);
  CHECK(has(error_of([&] { serialize(Output{}, o); }), "format html"));
}
