// Figure rendering (placeholder renderer: heatmap cells only; axes, text, line and scatter
// panels come with the figures issue), colormaps, PNG encoding, terminal view.
#include "tfx/figure.hpp"

#include <fmt/format.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>

namespace tfx {

Colormap parse_colormap(const std::string& name) {
  if (name == "diverging" || name == "rdbu") return Colormap::diverging;
  if (name == "viridis") return Colormap::viridis;
  if (name == "gray" || name == "grey") return Colormap::gray;
  throw usage_error(fmt::format("--cmap: unknown colormap '{}' (expected diverging, viridis or gray)", name));
}

const char* colormap_name(Colormap c) {
  switch (c) {
    case Colormap::diverging: return "diverging";
    case Colormap::viridis: return "viridis";
    case Colormap::gray: return "gray";
  }
  return "?";
}

namespace {
Rgb lerp_stops(const Rgb* stops, int n, double t) {
  t = std::clamp(t, 0.0, 1.0) * (n - 1);
  int i = std::min(static_cast<int>(t), n - 2);
  double f = t - i;
  auto mix = [&](std::uint8_t a, std::uint8_t b) { return static_cast<std::uint8_t>(std::lround(a + (b - a) * f)); };
  return {mix(stops[i].r, stops[i + 1].r), mix(stops[i].g, stops[i + 1].g), mix(stops[i].b, stops[i + 1].b)};
}
}  // namespace

Rgb colormap_color(Colormap c, double t) {
  static const Rgb diverging[] = {{5, 48, 97}, {67, 147, 195}, {247, 247, 247}, {214, 96, 77}, {103, 0, 31}};
  static const Rgb viridis[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  if (std::isnan(t)) return {128, 128, 128};
  switch (c) {
    case Colormap::diverging: return lerp_stops(diverging, 5, t);
    case Colormap::viridis: return lerp_stops(viridis, 5, t);
    case Colormap::gray: {
      auto v = static_cast<std::uint8_t>(std::lround(std::clamp(t, 0.0, 1.0) * 255));
      return {v, v, v};
    }
  }
  return {};
}

namespace {
std::pair<double, double> scale_of(const Heatmap& h) {
  double lo = INFINITY, hi = -INFINITY;
  for (float v : h.values.values())
    if (std::isfinite(v)) lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (h.symmetric) {
    double m = std::max(std::abs(lo), std::abs(hi));
    lo = -m, hi = m;
  }
  if (h.vmin) lo = *h.vmin;
  if (h.vmax) hi = *h.vmax;
  if (hi <= lo) hi = lo + 1;
  return {lo, hi};
}
}  // namespace

Image render(const Figure& figure) {
  const Heatmap* h = figure.panels.empty() ? nullptr : std::get_if<Heatmap>(&figure.panels[0]);
  Image img;
  if (!h) {
    img.width = img.height = 1;
    img.rgb.assign(3, 255);
    return img;
  }
  const std::size_t M = h->values.rows(), N = h->values.cols();
  const int cell = static_cast<int>(std::max<std::size_t>(1, 640 / std::max<std::size_t>(N, 1)));
  img.width = static_cast<int>(N) * cell;
  img.height = static_cast<int>(M) * cell;
  img.rgb.assign(static_cast<std::size_t>(img.width) * img.height * 3, 255);
  auto [lo, hi] = scale_of(*h);
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      Rgb c = colormap_color(h->cmap, (h->values(y / cell, x / cell) - lo) / (hi - lo));
      std::size_t k = (static_cast<std::size_t>(y) * img.width + x) * 3;
      img.rgb[k] = c.r, img.rgb[k + 1] = c.g, img.rgb[k + 2] = c.b;
    }
  return img;
}

std::string encode_png(const Image& image) {
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(sink, &out, image.width, image.height, 3, image.rgb.data(), image.width * 3))
    throw Error("PNG encoding failed");
  return out;
}

std::string render_view(const Heatmap& h, const ViewOptions& options) {
  (void)options;
  static const char ramp[] = " .:-=+*#%@";
  auto [lo, hi] = scale_of(h);
  std::string out;
  for (std::size_t i = 0; i < h.values.rows(); ++i) {
    for (std::size_t j = 0; j < h.values.cols(); ++j) {
      int k = static_cast<int>(std::clamp((h.values(i, j) - lo) / (hi - lo), 0.0, 1.0) * 9);
      out += ramp[k];
    }
    out += '\n';
  }
  out += fmt::format("scale: min {:.4f}  max {:.4f}\n", lo, hi);
  return out;
}

}  // namespace tfx
