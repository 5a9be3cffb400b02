// The text embedding parser's number reading alone, on one core, against fast_float (Debian
// libfast-float-dev, the library issue 27 names) on the same rows: the file is read into memory
// first, then each row's fields are turned into float32, best of 5 passes. tfx: scan_row (field
// starts from separator bitmasks, then each field) and ScannedRow::convert, as the loader runs
// them. fast_float: from_chars into a double, then float32 — the rounding gensim's
// float32(float(token)) has, which tfx matches bit for bit — and, for reference, from_chars into
// float32 directly. Rows that are not "word D numbers" are counted, not parsed.
//   build/bench_parse_rows FILE [D=fields of the first row − 1]
// Without fast_float's header at configure time, only tfx's row is printed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "embeddings/embeddings_numbers.hpp"
#if TFX_HAVE_FAST_FLOAT
#include <fast_float/fast_float.h>
#endif

using namespace tfx::numbers;

namespace {

template <class Row>
double best_of_5(const char* data, std::size_t size, std::size_t& rows, Row&& row) {
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    rows = 0;
    for (const char* p = data; p < data + size;) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(data + size - p)));
      const char* le = nl ? nl : data + size;
      const char* q = p;
      while (q < le && !is_sep(*q)) ++q;
      rows += row(q, le);
      p = nl ? nl + 1 : data + size;
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_parse_rows FILE [D]\n");
    return 2;
  }
  const int fd = open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::perror(argv[1]);
    return 1;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  std::vector<char> text(size + 64, ' ');  // spaces after the end, as the loader's windows have
  for (std::size_t got = 0; got < size;) {
    const ssize_t r = pread(fd, text.data() + got, size - got, static_cast<off_t>(got));
    if (r <= 0) {
      std::perror(argv[1]);
      return 1;
    }
    got += static_cast<std::size_t>(r);
  }
  std::size_t D = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 0;
  if (D == 0) {  // fields of the first line − 1
    for (const char* c = text.data(); c < text.data() + size && *c != '\n'; ++c) D += is_sep(*c) && !is_sep(c[1]) && c[1] != '\n';
  }
  if (D == 0) {
    std::fprintf(stderr, "%s: no numbers on the first line\n", argv[1]);
    return 1;
  }
  const char* data = text.data();
  const char* hard_end = data + text.size();
  std::vector<float> out(D);
  std::vector<double> outd(D);
  double check = 0;
  std::size_t rows = 0;
  ScannedRow nums(D);
  std::vector<std::pair<std::size_t, float>> slow;
  const double t_tfx = best_of_5(data, size, rows, [&](const char* q, const char* le) {
    slow.clear();
    if (!scan_row(q, le, hard_end, D, nums, slow)) return 0;
    nums.convert(D, out.data());
    for (const auto& [j, v] : slow) out[j] = v;
    check += out[D - 1];
    return 1;
  });
  const double numbers = static_cast<double>(rows) * static_cast<double>(D);
  std::printf("%zu rows × %zu numbers, %.1f MB, one core\n", rows, D, static_cast<double>(size) / 1e6);
  auto line = [&](const char* name, double t) {
    std::printf("%-58s %7.3f s  %7.1f MB/s  %5.2f ns/number\n", name, t, static_cast<double>(size) / t / 1e6, t * 1e9 / numbers);
  };
  line("tfx scan_row + convert (float32 of the double)", t_tfx);
#if TFX_HAVE_FAST_FLOAT
  auto fast_float_rows = [&](auto& dst) {
    return [&](const char* q, const char* le) {
      for (std::size_t j = 0; j < D; ++j) {
        while (q < le && is_sep(*q)) ++q;
        const auto r = fast_float::from_chars(q, le, dst[j]);
        if (r.ec != std::errc()) return 0;
        q = r.ptr;
      }
      check += static_cast<double>(dst[D - 1]);
      return q == le ? 1 : 0;
    };
  };
  std::size_t rows_ff = 0;
  const double t_ffd = best_of_5(data, size, rows_ff, [&, f = fast_float_rows(outd)](const char* q, const char* le) {
    const int ok = f(q, le);
    for (std::size_t j = 0; j < D; ++j) out[j] = static_cast<float>(outd[j]);
    return ok;
  });
  line("fast_float from_chars -> double -> float32 (same bits)", t_ffd);
  const double t_fff = best_of_5(data, size, rows_ff, fast_float_rows(out));
  line("fast_float from_chars -> float32 directly", t_fff);
  std::printf("tfx / fast_float (same rounding) = %.2f\n", t_tfx / t_ffd);
#else
  std::printf("fast_float: not built (apt-get install libfast-float-dev, then configure again)\n");
#endif
  return check == 0.123 ? 3 : 0;  // keeps the results alive
}
