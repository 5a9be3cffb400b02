// Writers of embedding files: GloVe text, word2vec text, fastText .vec, word2vec binary (the
// C tool's layout, '\n' after each vector), each written to a unique temporary beside FILE and renamed into place.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "embeddings_store.hpp"
#include "tfx/io/temp_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

void write_embedding_file(const Embeddings& e, const std::string& path, EmbeddingFormat format) {
  if (format == EmbeddingFormat::tfx_cache) {
    write_embedding_table(e, path);
    return;
  }
  if (format == EmbeddingFormat::detect || format == EmbeddingFormat::builtin || format == EmbeddingFormat::fasttext_bin)
    throw usage_error(fmt::format(N_("cannot write format '{}'; expected glove, word2vec, word2vec-bin, fasttext or tfx"),
                                  embedding_format_name(format)));
  // a unique temporary beside the target (O_EXCL), removed on failure and on SIGINT/TERM/HUP
  const std::string dir = std::filesystem::path(path).parent_path().string();
  TempFile tmp(dir.empty() ? "." : dir, ".tfx-", ".tmp", path);
  const std::size_t n = e.size(), d = e.dim();
  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&] {
    if (!buf.empty() && !tmp.write_all(buf.data(), buf.size()))
      throw Error(fmt::format(N_("{}: write failed: {}"), path, std::strerror(errno)));
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
  tmp.commit(path, default_file_mode(), "embeddings");
}

}  // namespace tfx
