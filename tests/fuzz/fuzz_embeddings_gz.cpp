// Fuzz target: the gzip path of the embedding loader (format detected after inflating).
// Input: one byte, then data. Byte bit 0 clear: the data is the .gz file itself (corrupt,
// truncated, concatenated members); set: the data is the content, gzip-compressed here so the
// parser behind the inflater is reached. Bits 1–3: --limit (0 = all rows; stops inflating early).
#include <zlib.h>

#include "fuzz_common.hpp"

namespace {

std::string gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, static_cast<uLong>(size)) + 32, '\0');
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t limit = (data[0] >> 1) & 7;
  std::string path;
  if (data[0] & 1) {
    const std::string z = gzip(data + 1, size - 1);
    path = tfx::fuzz::write_input("embeddings.txt.gz", z.data(), z.size());
  } else {
    path = tfx::fuzz::write_input("embeddings.txt.gz", data + 1, size - 1);
  }
  tfx::fuzz::load_and_exercise(path, tfx::EmbeddingFormat::detect, limit);
  return 0;
}
