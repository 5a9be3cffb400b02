// The GIF palette keeps a figure's colours (issue 50: a Korean GIF's heatmap cells at 0.81–0.85
// came out grey-khaki and its colour bar had a grey band, because the antialiased blends at the
// edges of Hangul text took the median cut's boxes). Frames of two heatmaps with a sweep of
// values, annotated cells and long titles, once in English and once in Korean, are encoded and
// decoded back (tests/gif.hpp, giflib's own decoder): in every frame, every pixel of every cell
// is within a small distance of the colormap's colour for its value, and every pixel of an area
// (a run of equal pixels: cells, colour bar rows, background) keeps its colour.
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "../gif.hpp"
#include "tfx/figure/figure.hpp"

using namespace tfx;
using tfx::test::decode_gif;
using tfx::test::GifDecoded;

namespace {

double distance(Rgb a, Rgb b) {
  const double dr = double(a.r) - b.r, dg = double(a.g) - b.g, db = double(a.b) - b.b;
  return std::sqrt(dr * dr + dg * dg + db * db);
}

// Frame k: two 6×5 heatmaps on [0, 1]; cell (i, j) = frac(0.037·(5i + j) + 0.013·k + offset),
// so the frames together sweep the colormap (0.81–0.85 included) with ~600 distinct colours.
Figure frame(int k, bool korean) {
  Figure f;
  f.title = korean ? "\"그녀는 커피를 마셨다\" 학습 지켜보기: 스텝 120/300, 학습 손실 1.234 — 교차 어텐션과 임베딩"
                   : "Watching \"she drank coffee\" learn: step 120 of 300, training loss 1.234 — cross-attention";
  for (int panel = 0; panel < 2; ++panel) {
    Heatmap h;
    h.values = Tensor({6, 5});
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 5; ++j) {
        const double v = 0.037 * double(5 * i + j) + 0.013 * k + 0.29 * panel;
        h.values(i, j) = static_cast<float>(v - std::floor(v));
      }
    h.vmin = 0, h.vmax = 1;
    h.cmap = Colormap::viridis;
    h.annotate = true;
    h.title = korean ? "교차 어텐션 (디코더 층 2, 헤드 평균)" : "cross-attention (decoder layer 2, mean of heads)";
    h.x_label = korean ? "원문 토큰 (한국어)" : "source token (Korean)";
    h.y_label = korean ? "생성된 토큰 (영어)" : "generated token (English)";
    h.row_labels = {"<bos>", "she", "drank", "coffee", ".", "<eos>"};
    h.col_labels = {"그녀는", "커피를", "마셨다", ".", "<eos>"};
    h.value_label = korean ? "어텐션 가중치" : "attention weight";
    f.panels.push_back(h);
  }
  f.columns = 2;
  return f;
}

void check_gif(bool korean) {
  std::vector<Image> images;
  std::vector<Figure> figures;
  for (int k = 0; k < 12; ++k) {
    figures.push_back(frame(k, korean));
    images.push_back(render(figures.back(), 1.0));
  }
  const GifDecoded d = decode_gif(encode_gif(images, 20));
  REQUIRE(d.frames.size() == images.size());
  double worst_cell = 0, worst_area = 0;
  std::size_t cell_pixels = 0, area_pixels = 0;
  for (std::size_t k = 0; k < images.size(); ++k) {
    const Image& im = images[k];
    REQUIRE(im.width == d.w);
    // each cell's colour, as the colormap gives it for the cell's value
    std::map<std::tuple<int, int, int>, Rgb> cells;
    for (const Panel& p : figures[k].panels) {
      const Heatmap& h = std::get<Heatmap>(p);
      for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 5; ++j) {
          const Rgb c = colormap_color(Colormap::viridis, h.values(i, j));
          cells[{c.r, c.g, c.b}] = c;
        }
    }
    std::map<std::tuple<int, int, int>, std::size_t> found;
    for (int y = 0; y < im.height; ++y)
      for (int x = 0; x < im.width; ++x) {
        const Rgb want = im.at(x, y), got = d.frames[k][static_cast<std::size_t>(y) * d.w + x];
        const auto key = std::make_tuple(int(want.r), int(want.g), int(want.b));
        if (cells.count(key)) {
          ++found[key];
          ++cell_pixels;
          worst_cell = std::max(worst_cell, distance(got, want));
        }
        // an area: the pixel and its two neighbours in the row are equal
        if (x > 0 && x + 1 < im.width && im.at(x - 1, y) == want && im.at(x + 1, y) == want) {
          ++area_pixels;
          worst_area = std::max(worst_area, distance(got, want));
        }
      }
    CHECK_MESSAGE(found.size() == cells.size(), "frame ", k, ": ", found.size(), " of ", cells.size(), " cell colours drawn");
  }
  INFO((korean ? "Korean" : "English") << ": " << cell_pixels << " cell pixels, worst distance " << worst_cell << "; "
                                       << area_pixels << " area pixels, worst " << worst_area);
  CHECK(cell_pixels > 10000);
  CHECK(worst_cell <= 6.0);
  CHECK(worst_area <= 20.0);  // giflib's median cut (before issue 50): cells 23–31, areas 83
}

}  // namespace

TEST_CASE("gif colours: an English GIF's heatmap cells and areas keep the colormap's colours") { check_gif(false); }

TEST_CASE("gif colours: a Korean GIF's heatmap cells and areas keep the colormap's colours (Hangul's antialiasing takes no cell's entry)") {
  check_gif(true);
}
