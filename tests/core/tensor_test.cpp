// Tensor (tensor.hpp): row-major layout checked against index arithmetic, row views and
// reshape sharing the element order, and the memory cap / value-count errors, which must come
// before any allocation.
#include <cstdint>
#include <limits>
#include <string>

#include "helpers.hpp"
#include "tfx/core/tensor.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("Tensor: row-major layout, row views write through, reshape keeps the element order") {
  Tensor t = Tensor::matrix({{1, 2, 3}, {4, 5, 6}});
  CHECK(t.rank() == 2);
  CHECK(t.shape_str() == "[2, 3]");
  CHECK(t.rows() == 2);
  CHECK(t.cols() == 3);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(t(i, j) == t[i * 3 + j]);             // element (i, j) at i·C + j
      CHECK(t(i, j) == static_cast<float>(3 * i + j + 1));
    }
  t.row(1)[2] = 60;  // a view, not a copy
  CHECK(t(1, 2) == 60);
  CHECK(t[5] == 60);
  const Tensor r = t.reshaped({3, 2});
  CHECK(r.shape_str() == "[3, 2]");
  for (std::size_t k = 0; k < 6; ++k) CHECK(r[k] == t[k]);
  CHECK(r(2, 1) == 60);
  const Tensor v = Tensor::from({4}, {1, 2, 3, 4});
  CHECK(v.rows() == 1);  // a vector is one row
  CHECK(v.cols() == 4);
  const Tensor z({2, 3}, 0.5f);
  CHECK(z.size() == 6);
  for (float x : z.values()) CHECK(x == 0.5f);
}

TEST_CASE("Tensor: the 2^30-element cap, overflowing shapes and wrong value counts are errors") {
  CHECK(checked_element_count({1024, 1024}, "x") == (std::size_t{1} << 20));
  CHECK(checked_element_count({0, std::numeric_limits<std::size_t>::max()}, "x") == 0);
  try {
    Tensor big({std::size_t{1} << 16, std::size_t{1} << 15});  // 2^31 elements: refused before allocating
    FAIL("no error for 2^31 elements");
  } catch (const Error& e) {
    CHECK(e.kind() == Error::Kind::usage);
    CHECK(has(e.what(), "[65536, 32768]"));
    CHECK(has(e.what(), "over tfx's cap of 1073741824 elements"));
  }
  // a product that overflows size_t is over the cap, not a small wrapped-around number
  CHECK_THROWS_AS(Tensor({std::numeric_limits<std::size_t>::max() / 2 + 1, 4}), Error);
  try {
    (void)checked_element_count({std::size_t{1} << 20, std::size_t{1} << 20}, "len 1048576 dim 1048576", {"len", "dim"});
    FAIL("no error for 2^40 elements");
  } catch (const Error& e) {
    CHECK(has(e.what(), "len 1048576 dim 1048576 needs a tensor of shape [1048576, 1048576]"));
    CHECK(e.params() == std::vector<std::string>{"len", "dim"});
  }
  try {
    (void)Tensor::from({2, 2}, {1, 2, 3});
    FAIL("no error for 3 values in a [2, 2] tensor");
  } catch (const Error& e) {
    CHECK(has(e.what(), "shape [2, 2] needs 4 values, got 3"));
  }
  CHECK_THROWS_AS(Tensor::matrix({{1, 2}, {3}}), Error);
  CHECK_THROWS_AS(Tensor::matrix({{1, 2}}).reshaped({3}), Error);
}
