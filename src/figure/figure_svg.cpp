// The vector backend: SVG 1.1 in figure units (the viewBox), width and height × scale. Cells
// are <rect>s whose <title> the browser shows on hover; text is <text> in the faces the PNG
// uses (font-family list), so no script and no external resource is needed.
#include <fmt/format.h>

#include <cmath>

#include "figure_canvas.hpp"
#include "figure_text.hpp"

namespace tfx::draw {

namespace {

// A coordinate with at most two decimals, no trailing zeros ("12", "12.5", "−" as '-').
std::string num(double v) {
  std::string s = fmt::format("{:.2f}", std::abs(v) < 0.005 ? 0.0 : v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

std::string escape(std::string_view s) { return markup_escape(s); }

std::string base64(const std::string& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    o += k[v >> 18], o += k[(v >> 12) & 63], o += k[(v >> 6) & 63], o += k[v & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    o += k[v >> 18], o += k[(v >> 12) & 63];
    o += i + 1 < bytes.size() ? k[(v >> 6) & 63] : '=';
    o += '=';
  }
  return o;
}

std::string points(const std::vector<Pt>& pts) {
  std::string d;
  for (std::size_t k = 0; k < pts.size(); ++k) d += fmt::format("{}{} {}", k ? " L" : "M", num(pts[k].x), num(pts[k].y));
  return d;
}

std::string dasharray(Dash d, double width) {
  const double u = std::max(width, 1.0);
  switch (d) {
    case Dash::dashed: return fmt::format(" stroke-dasharray=\"{} {}\"", num(5 * u), num(3 * u));
    case Dash::dotted: return fmt::format(" stroke-dasharray=\"{} {}\"", num(1 * u), num(2 * u));
    case Dash::dashdot: return fmt::format(" stroke-dasharray=\"{} {} {} {}\"", num(5 * u), num(2.5 * u), num(u), num(2.5 * u));
    case Dash::solid: break;
  }
  return {};
}

std::string tip_element(const std::string& tip) { return tip.empty() ? std::string() : "<title>" + escape(tip) + "</title>"; }

}  // namespace

SvgCanvas::SvgCanvas(double width, double height, double scale) : w_(width), h_(height), s_(scale) {}

std::string SvgCanvas::finish() {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  out += "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n";
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" "
      "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"{}\">\n",
      num(w_ * s_), num(h_ * s_), num(w_), num(h_), escape(text::css_families()));
  if (!defs_.empty()) out += "<defs>\n" + defs_ + "</defs>\n";
  out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", num(w_), num(h_));
  return out + body_ + "</svg>\n";
}

void SvgCanvas::rect(double x, double y, double w, double h, Rgb fill, const std::string& tip) {
  const std::string open = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"", num(x), num(y), num(w), num(h), hex(fill));
  body_ += tip.empty() ? open + "/>\n" : open + ">" + tip_element(tip) + "</rect>\n";
}

void SvgCanvas::hatch(double x, double y, double w, double h, const std::string& tip) {
  if (!hatch_defined_) {
    hatch_defined_ = true;
    defs_ += fmt::format(
        "<pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\">"
        "<rect width=\"6\" height=\"6\" fill=\"{}\"/><path d=\"M-1 1 L1 -1 M0 6 L6 0 M5 7 L7 5\" stroke=\"{}\" stroke-width=\"1.4\"/>"
        "</pattern>\n",
        hex(kMaskBase), hex(kMaskHatch));
  }
  const std::string open = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"url(#hatch)\"", num(x), num(y), num(w), num(h));
  body_ += tip.empty() ? open + "/>\n" : open + ">" + tip_element(tip) + "</rect>\n";
}

void SvgCanvas::ramp(double x, double y, double w, double h, Colormap cmap) {
  const std::string id = fmt::format("ramp{}", ++ramps_);
  defs_ += fmt::format("<linearGradient id=\"{}\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">", id);
  for (int k = 0; k <= 32; ++k)
    defs_ += fmt::format("<stop offset=\"{}\" stop-color=\"{}\"/>", num(k / 32.0), hex(colormap_color(cmap, k / 32.0)));
  defs_ += "</linearGradient>\n";
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"url(#{})\"/>\n", num(x), num(y), num(w), num(h), id);
}

void SvgCanvas::picture(double x, double y, double w, double h, const Image& pixels) {
  body_ += fmt::format(
      "<image x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" image-rendering=\"optimizeSpeed\" "
      "style=\"image-rendering:pixelated\" xlink:href=\"data:image/png;base64,{}\"/>\n",
      num(x), num(y), num(w), num(h), base64(encode_png(pixels)));
}

void SvgCanvas::path(const std::vector<Pt>& pts, Rgb c, double width, Dash dash) {
  if (pts.size() < 2) return;
  body_ += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linejoin=\"round\"{}/>\n", points(pts),
                       hex(c), num(width), dasharray(dash, width));
}

void SvgCanvas::polygon(const std::vector<Pt>& pts, Rgb fill) {
  if (pts.size() < 3) return;
  body_ += fmt::format("<path d=\"{} Z\" fill=\"{}\"/>\n", points(pts), hex(fill));
}

void SvgCanvas::disc(double cx, double cy, double r, Rgb fill) {
  body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>\n", num(cx), num(cy), num(r), hex(fill));
}

void SvgCanvas::ring(double cx, double cy, double r, Rgb c, double width) {
  body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"/>\n", num(cx), num(cy), num(r),
                       hex(c), num(width));
}

void SvgCanvas::text(double x, double y, std::string_view s, const Type& t, Rgb c, Align align, bool up) {
  if (s.empty()) return;
  const char* anchor = align == Align::center ? "middle" : align == Align::right ? "end" : "start";
  std::string attrs = fmt::format("x=\"{}\" y=\"{}\" font-size=\"{}\"", num(x), num(y), num(t.size));
  if (t.bold) attrs += " font-weight=\"bold\"";
  if (c != kBlack) attrs += fmt::format(" fill=\"{}\"", hex(c));
  if (align != Align::left) attrs += fmt::format(" text-anchor=\"{}\"", anchor);
  if (up) attrs += fmt::format(" transform=\"rotate(-90 {} {})\"", num(x), num(y));
  body_ += fmt::format("<text {}>{}</text>\n", attrs, escape(s));
}

}  // namespace tfx::draw
