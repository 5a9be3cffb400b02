#include "tfx/embeddings/projection_figure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tfx/core/i18n.hpp"

namespace tfx {

Figure pca_figure_3d(const std::string& source, const std::vector<std::int64_t>& az_list, double elevation,
                     const std::vector<std::string>& shown, const std::vector<std::pair<std::size_t, std::size_t>>& arrows, const Pca& p) {
  const std::size_t n = shown.size();
  // the figure: one panel per azimuth
  double extent = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < 3; ++c) extent = std::max(extent, std::abs(static_cast<double>(p.coords(i, c))));
  if (extent == 0) extent = 1;
  const double len = 1.35 * extent, pi = 3.14159265358979323846, el = elevation * pi / 180;
  Figure figure;
  figure.columns = static_cast<int>(std::min<std::size_t>(az_list.size(), 2));
  figure.title = az_list.size() > 1 ? trf("{} words on their first three principal components, seen from {} angles", n, az_list.size())
                                    : "";
  for (std::int64_t az_deg : az_list) {
    const double az = static_cast<double>(az_deg) * pi / 180;
    auto screen = [&](double x, double y, double z) {
      const double x1 = x * std::cos(az) - y * std::sin(az), y1 = x * std::sin(az) + y * std::cos(az);
      return std::pair<double, double>{x1, z * std::cos(el) + y1 * std::sin(el)};
    };
    Diagram d;
    d.title = az_list.size() > 1 ? trf("azimuth {}°, elevation {:g}°", az_deg, elevation)
                                 : trf("{} words on their first three principal components", n);
    d.subtitle = source + (az_list.size() > 1 ? std::string() : trf(" · azimuth {}°, elevation {:g}°", az_deg, elevation));
    d.size = 520;
    double lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
    auto grow = [&](std::pair<double, double> s) {
      lo_x = std::min(lo_x, s.first), hi_x = std::max(hi_x, s.first), lo_y = std::min(lo_y, s.second), hi_y = std::max(hi_y, s.second);
    };
    // the axes from the mean (the origin of the PCA coordinates)
    for (std::size_t c = 0; c < 3; ++c) {
      const auto end = screen(c == 0 ? len : 0, c == 1 ? len : 0, c == 2 ? len : 0);
      grow(end);
      d.arrows.push_back({0, 0, end.first, end.second, 7, fmt::format("PC{} ({:.0f}%)", c + 1, 100 * p.explained_ratio[c]), false, 0});
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double x = p.coords(i, 0), y = p.coords(i, 1), z = p.coords(i, 2);
      const auto at = screen(x, y, z);
      grow(at);
      d.circles.push_back({at.first, at.second, 0.025 * len, false});
      d.labels.push_back({at.first, at.second + 0.085 * len, shown[i], 0});
    }
    for (const auto& [i, j] : arrows) {
      const auto a = screen(p.coords(i, 0), p.coords(i, 1), p.coords(i, 2)), b = screen(p.coords(j, 0), p.coords(j, 1), p.coords(j, 2));
      d.arrows.push_back({a.first, a.second, b.first, b.second, 1, "", false, 0});
    }
    const double pad = 0.18 * std::max(hi_x - lo_x, hi_y - lo_y);
    d.x0 = lo_x - pad, d.x1 = hi_x + pad, d.y0 = lo_y - pad, d.y1 = hi_y + pad;
    figure.panels.push_back(std::move(d));
  }
  return figure;
}

}  // namespace tfx
