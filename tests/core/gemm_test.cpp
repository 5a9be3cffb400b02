// matmul's run-time kernel choice (gemm.hpp: available_gemm_kernels, set_gemm_kernel): every
// kernel this CPU can run, forced in turn, against the double-precision reference on the shapes
// that reach each of its paths (plain loops, unpacked skinny products, packed tiles with partial
// edges, several threads); the kernel list and its errors; TFX_GEMM_KERNEL in the command line.
#include <array>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "matmul_reference.hpp"
#include "tfx/core/gemm.hpp"
#include "tfx/core/ops.hpp"

using namespace tfx;
using tfx::test::check_product;
using tfx::test::random_matrix;

namespace {

// Forces one kernel for the scope, then returns to the default choice.
struct ForceKernel {
  explicit ForceKernel(const std::string& name) { set_gemm_kernel(name); }
  ~ForceKernel() { set_gemm_kernel("auto"); }
};

}  // namespace

TEST_CASE("gemm kernels: every available kernel matches the double reference") {
  // (M, K, N): tiny (plain loops), skinny (≤ 4 rows or columns), and tiled shapes whose edges
  // cut the 6×16 (avx2, generic), 12×32 (avx512) tiles, the 256-deep panel and the 2048 block
  const std::vector<std::array<std::size_t, 3>> sizes = {
      {3, 5, 7},     {1, 300, 700},  {700, 33, 3},   {4, 129, 4},   {13, 17, 33},   {25, 300, 65},
      {12, 256, 32}, {37, 513, 71},  {97, 64, 2100}, {130, 260, 49}, {200, 5, 200}};
  const std::vector<std::string> kernels = available_gemm_kernels();
  REQUIRE(!kernels.empty());
  for (const std::string& kernel : kernels) {
    CAPTURE(kernel);
    ForceKernel force(kernel);
    CHECK(gemm_kernel() == kernel);
    unsigned seed = 100;
    for (const auto& mkn : sizes) {
      const std::size_t M = mkn[0], K = mkn[1], N = mkn[2];
      CAPTURE(M);
      CAPTURE(K);
      CAPTURE(N);
      const Tensor a = random_matrix(M, K, seed++), b = random_matrix(K, N, seed++), bt = random_matrix(N, K, seed++);
      for (unsigned threads : {1u, 3u}) {
        CAPTURE(threads);
        check_product(a, b, matmul(a, b, threads), false);
        check_product(a, bt, matmul_bt(a, bt, threads), true);
      }
    }
  }
}

TEST_CASE("gemm kernels: listed fastest first, generic always last, unknown names are usage errors") {
  const std::vector<std::string> kernels = available_gemm_kernels();
  REQUIRE(!kernels.empty());
  CHECK(kernels.back() == "generic");
  // the default is the fastest the CPU runs
  CHECK(gemm_kernel() == kernels.front());
  const std::vector<std::string> order = {"avx512", "avx2", "generic"};
  std::size_t last = 0;
  for (const std::string& k : kernels) {
    std::size_t pos = 0;
    while (pos < order.size() && order[pos] != k) ++pos;
    REQUIRE(pos < order.size());
    CHECK(pos >= last);
    last = pos;
  }
  try {
    set_gemm_kernel("avx9000");
    FAIL("no error for an unknown kernel");
  } catch (const Error& e) {
    CHECK(e.kind() == Error::Kind::usage);
    CHECK(test::has(e.what(), "'avx9000' does not exist"));
    CHECK(test::has(e.what(), "generic"));
  }
  CHECK(gemm_kernel() == kernels.front());
}

TEST_CASE("gemm kernels: TFX_GEMM_KERNEL picks the kernel for the command line, a bad value exits 2") {
  // attention's products go through matmul: each kernel prints the same table as the default
  const std::string dir = std::string(TFX_SOURCE_DIR) + "/samples/attention/";
  const std::string args = "attention --q " + dir + "q.csv --k " + dir + "k.json --v " + dir + "v.npy --format csv --precision 4";
  // (4 digits: kernels with and without FMA may round the last bit differently)
  const test::Run base = test::run_tfx(args);
  REQUIRE(base.code == 0);
  for (const std::string& kernel : available_gemm_kernels()) {
    CAPTURE(kernel);
    const test::Run r = test::run_tfx(args, {}, "TFX_GEMM_KERNEL=" + kernel);
    CHECK(r.code == 0);
    CHECK(r.out == base.out);
  }
  test::check_one_line_error(test::run_tfx("pe --len 2 --dim 4", {}, "TFX_GEMM_KERNEL=avx9000"), 2,
                             "TFX_GEMM_KERNEL: GEMM kernel 'avx9000' does not exist");
}
