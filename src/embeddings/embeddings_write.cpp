// Writers of embedding files: GloVe text, word2vec text, fastText .vec, word2vec binary (the
// C tool's layout, '\n' after each vector), each written to FILE.tmp.PID and renamed into place.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>

#include "embeddings_store.hpp"

namespace tfx {

void write_embedding_file(const Embeddings& e, const std::string& path, EmbeddingFormat format) {
  if (format == EmbeddingFormat::tfx_cache) {
    write_embedding_table(e, path);
    return;
  }
  if (format == EmbeddingFormat::detect || format == EmbeddingFormat::builtin || format == EmbeddingFormat::fasttext_bin)
    throw usage_error(fmt::format("cannot write format '{}'; expected glove, word2vec, word2vec-bin, fasttext or tfx",
                                  embedding_format_name(format)));
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  const std::size_t n = e.size(), d = e.dim();
  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&] {
    if (!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
      std::fclose(f);
      std::remove(tmp.c_str());
      throw Error(fmt::format("{}: write failed", path));
    }
    buf.clear();
  };
  if (format != EmbeddingFormat::glove) buf += fmt::format("{} {}\n", n, d);
  char num[32];
  for (std::size_t i = 0; i < n; ++i) {
    buf.append(e.word(i));
    const auto r = e.row(i);
    if (format == EmbeddingFormat::word2vec_bin) {
      buf += ' ';
      buf.append(reinterpret_cast<const char*>(r.data()), d * sizeof(float));
      buf += '\n';
    } else {
      for (float x : r) {
        buf += ' ';
        const auto res = std::to_chars(num, num + sizeof num, x);  // shortest round-trip float32
        buf.append(num, res.ptr);
      }
      buf += format == EmbeddingFormat::fasttext ? " \n" : "\n";
    }
    if (buf.size() > (1u << 20)) flush();
  }
  flush();
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  }
}

}  // namespace tfx
