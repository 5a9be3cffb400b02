// What `tfx train --gif/--watch` measures (model/train.hpp): attention_sharpness against closed
// forms, train_cross_attention's rows, and the --no-pe claim of docs/train.md — without positional
// encoding the model cannot tell a sentence from its words in another order (the encoder is
// permutation-equivariant and cross-attention sums over the source), with PE it can.
#include <doctest/doctest.h>

#include <cmath>

#include "tfx/model/train.hpp"
#include "tfx/model/train_watch.hpp"

using namespace tfx;

namespace {

TrainConfig twt_config(bool pe) {
  TrainConfig c;
  c.vocab = 12;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  c.ffn = 16;
  c.pe = pe ? PositionalEncoding::sinusoidal : PositionalEncoding::none;
  return c;
}

// The logits (T, V) of one pair, teacher-forced.
std::vector<float> twt_logits(const TrainConfig& c, const TensorMap& p, const std::vector<std::size_t>& src,
                             const std::vector<std::size_t>& tgt) {
  TrainBatch b;
  b.batch = 1;
  b.source = src;
  b.source_len = src.size();
  b.target_in = {kTrainBos};
  b.target_in.insert(b.target_in.end(), tgt.begin(), tgt.end());
  b.target_out = tgt;
  b.target_out.push_back(kTrainEos);
  b.target_len = b.target_in.size();
  ForwardExtras ex;
  ex.want_logits = true;
  train_loss(c, p, b, nullptr, 1, &ex);
  return ex.logits;
}

double twt_max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
  return m;
}

}  // namespace

TEST_CASE("attention_sharpness: entropy and gold mass of rows with known values") {
  // rows: uniform over 4 (ln 4), one-hot (0), half-half (ln 2), and (0.7, 0.1, 0.1, 0.1)
  Tensor w({4, 4});
  const float v[16] = {0.25f, 0.25f, 0.25f, 0.25f, 0, 0, 1, 0, 0.5f, 0.5f, 0, 0, 0.7f, 0.1f, 0.1f, 0.1f};
  std::copy(v, v + 16, w.data());
  const double h4 = -(0.7 * std::log(0.7) + 3 * 0.1 * std::log(0.1));
  const AttentionSharpness s = attention_sharpness(w, {1, 2, -1, 0});
  CHECK(s.rows == 4);
  CHECK(s.aligned == 3);
  CHECK(s.entropy == doctest::Approx((std::log(4.0) + 0 + std::log(2.0) + h4) / 4).epsilon(1e-6));
  CHECK(s.gold_mass == doctest::Approx((0.25 + 1.0 + 0.7) / 3).epsilon(1e-6));
  // a shorter alignment leaves the rest unaligned; none aligned gives mass 0
  CHECK(attention_sharpness(w, {2}).gold_mass == doctest::Approx(0.25));
  CHECK(attention_sharpness(w, {}).aligned == 0);
  CHECK(attention_sharpness(w, {}).gold_mass == 0);
  CHECK_THROWS_AS(attention_sharpness(w, {4}), Error);
  CHECK_THROWS_AS(attention_sharpness(Tensor({4}), {}), Error);
}

TEST_CASE("train_cross_attention: (T + 1, S) rows that sum to 1, the same as a batch's teacher-forced pass") {
  const TrainConfig c = twt_config(true);
  const TensorMap p = init_train_parameters(c, 5);
  const std::vector<std::size_t> src = {4, 7, 9, 5}, tgt = {6, 8, 10};
  const Tensor a = train_cross_attention(c, p, src, tgt, 1);
  REQUIRE(a.rank() == 2);
  CHECK(a.dim(0) == 4);
  CHECK(a.dim(1) == 4);
  for (std::size_t r = 0; r < 4; ++r) {
    double sum = 0;
    for (std::size_t j = 0; j < 4; ++j) sum += a.data()[r * 4 + j];
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
  }
  // the same pair in a padded batch of two: the same rows (padding is masked)
  IdPair one{src, tgt, {}}, two{{4, 5}, {6}, {}};
  const TrainBatch b = make_train_batch({one, two}, {0, 1}, c.pad);
  ForwardExtras ex;
  ex.cross_layer = 1;
  train_loss(c, p, b, nullptr, 1, &ex);
  double diff = 0;
  for (std::size_t r = 0; r < 4; ++r)
    for (std::size_t j = 0; j < 4; ++j) diff = std::max(diff, std::abs(double(ex.cross_attention[r * b.source_len + j]) - a.data()[r * 4 + j]));
  CHECK(diff < 1e-6);
  CHECK_THROWS_AS(train_cross_attention(c, p, src, tgt, 2), Error);
  CHECK_THROWS_AS(train_cross_attention(c, p, {}, tgt, 0), Error);
}

TEST_CASE("train --no-pe: a source and its words reordered give the same output; with PE they do not") {
  const std::vector<std::size_t> src = {4, 7, 9, 5}, shuffled = {9, 4, 5, 7}, tgt = {6, 8, 10};
  for (const bool pe : {false, true}) {
    const TrainConfig c = twt_config(pe);
    const TensorMap p = init_train_parameters(c, 11);
    const double d = twt_max_diff(twt_logits(c, p, src, tgt), twt_logits(c, p, shuffled, tgt));
    CAPTURE(pe);
    CAPTURE(d);
    if (pe) {
      CHECK(d > 1e-3);
    } else {
      CHECK(d < 1e-5);
      CHECK(train_greedy(c, p, src) == train_greedy(c, p, shuffled));
    }
  }
}

TEST_CASE("select_frames_by_change: frames go where the watched sentence changes, first and last kept, losses weighted by steps") {
  // 9 captures at steps 0, 10, …, 80 of a (1, 2) attention row and no embedding: the row moves from
  // (1, 0) to (0, 1) between captures 2 and 3 (L1 change 2) and by 0.1 each between 5…8 (0.2 each).
  // Whole change 2 + 3·0.2 = 2.6; with 4 frames the targets are 0.867 and 1.733: both are first
  // reached at capture 3 (cumulative 2), so frame 1 is capture 3 and frame 2 the next, capture 4.
  std::vector<WatchFrame> frames;
  for (std::size_t i = 0; i < 9; ++i) {
    WatchFrame f;
    f.step = 10 * i;
    f.loss_from = i == 0 ? 0 : 10 * i - 9;
    f.loss = double(i);  // the mean loss of its 10 steps
    f.rows = {"w"};
    const double a = i < 3 ? 1.0 : i <= 5 ? 0.0 : 0.1 * double(i - 5);
    f.attention = Tensor::matrix({{float(a), float(1 - a)}});
    f.embedding = Tensor::matrix({{0.0f}});
    frames.push_back(f);
  }
  select_frames_by_change(frames, 4);
  REQUIRE(frames.size() == 4);
  CHECK(frames[0].step == 0);
  CHECK(frames[1].step == 30);
  CHECK(frames[2].step == 40);
  CHECK(frames[3].step == 80);
  // frame 1 stands for steps 1 … 30 (captures 1, 2, 3: losses 1, 2, 3 over 10 steps each) → 2;
  // the last for steps 41 … 80 (captures 5 … 8) → 6.5
  CHECK(frames[1].loss_from == 1);
  CHECK(frames[1].loss == doctest::Approx(2.0));
  CHECK(frames[2].loss == doctest::Approx(4.0));
  CHECK(frames[3].loss_from == 41);
  CHECK(frames[3].loss == doctest::Approx(6.5));
  // fewer captures than frames: all kept
  std::vector<WatchFrame> two(frames.begin(), frames.begin() + 2);
  select_frames_by_change(two, 5);
  CHECK(two.size() == 2);
}
