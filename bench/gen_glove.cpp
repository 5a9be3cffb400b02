// Benchmark input generator: writes a GloVe-format text file of N words × D dims with 5-decimal
// values (like glove.6B.*d.txt, ~340 MB for 400,000 × 100), deterministic (splitmix64).
// The first words are king, man, woman, queen, … so an analogy query can run on it.
//   gen_glove OUT.txt [N=400000] [D=100]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gen_glove OUT.txt [N=400000] [D=100]\n");
    return 2;
  }
  const long n = argc > 2 ? std::atol(argv[2]) : 400000;
  const long d = argc > 3 ? std::atol(argv[3]) : 100;
  std::FILE* f = std::fopen(argv[1], "wb");
  if (!f) return 1;
  const char* first[] = {"the", "king", "man", "woman", "queen", "prince", "princess", "paris", "france", "germany", "berlin"};
  const long nfirst = static_cast<long>(sizeof first / sizeof first[0]);
  std::uint64_t st = 42;
  std::string line;
  char buf[32];
  for (long i = 0; i < n; ++i) {
    char word[32];
    if (i < nfirst) std::snprintf(word, sizeof word, "%s", first[i]);
    else std::snprintf(word, sizeof word, "w%ld", i);
    line.assign(word);
    for (long j = 0; j < d; ++j) {
      // values in (-1, 1) with 5 decimals, like GloVe's
      const long v = static_cast<long>(splitmix64(st) % 200000) - 100000;
      std::snprintf(buf, sizeof buf, " %s%ld.%05ld", v < 0 ? "-" : "", std::labs(v) / 100000, std::labs(v) % 100000);
      line += buf;
    }
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), f);
  }
  return std::fclose(f) == 0 ? 0 : 1;
}
