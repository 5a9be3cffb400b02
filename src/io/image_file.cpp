// Reading and resizing pictures (tfx/io/image_file.hpp) through the system's stb_image and
// stb_image_resize.
#include "tfx/io/image_file.hpp"

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_resize.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "tfx/core/error.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {
// a compressed picture bigger than this is not one a lecture needs (and not read whole)
constexpr std::size_t kMaxImageFile = std::size_t{256} << 20, kMaxImageStream = std::size_t{64} << 20;

// stb_image copies a PNM's pixels and an uncompressed TGA's rows in one read whose failure it
// ignores, so a truncated file decoded from uninitialised memory (other output on every run):
// the pixel bytes those formats need must be in the file. Returns "" or what is missing.
// A binary PNM's header (P5, P6) as stbi__pnm_info reads it: whitespace and # comments, width,
// height, maxval, one byte; `data` is where the samples start (may be past the end)
struct PnmHeader {
  std::uint64_t maxv = 0, data = 0;
};
std::optional<PnmHeader> imgf_pnm_header(std::string_view b) {
  if (b.size() < 2 || b[0] != 'P' || (b[1] != '5' && b[1] != '6')) return std::nullopt;
  const auto at = [&](std::size_t i) -> unsigned { return i < b.size() ? static_cast<unsigned char>(b[i]) : 0u; };
  std::size_t pos = 2;
  char c = static_cast<char>(at(pos++));
  const auto eof = [&] { return pos > b.size(); };
  const auto next = [&] { c = static_cast<char>(at(pos++)); };
  const auto skip = [&] {
    for (;;) {
      while (!eof() && (c == ' ' || (c >= '\t' && c <= '\r'))) next();
      if (eof() || c != '#') break;
      while (!eof() && c != '\n' && c != '\r') next();
    }
  };
  const auto integer = [&] {
    std::uint64_t v = 0;
    while (!eof() && c >= '0' && c <= '9') v = std::min<std::uint64_t>(v * 10 + static_cast<unsigned>(c - '0'), 1u << 30), next();
    return v;
  };
  skip();
  integer();
  skip();
  integer();
  skip();
  PnmHeader h;
  h.maxv = integer();
  h.data = pos;
  return h;
}

std::string imgf_short_data(std::string_view b, int w, int h) {
  const auto at = [&](std::size_t i) -> unsigned { return i < b.size() ? static_cast<unsigned char>(b[i]) : 0u; };
  const std::uint64_t pixels = static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(h);
  if (const auto pnm = imgf_pnm_header(b)) {
    const std::uint64_t maxv = pnm->maxv;
    const std::size_t pos = pnm->data;
    const std::uint64_t need = pixels * (b[1] == '6' ? 3 : 1) * (maxv > 255 ? 2 : 1), have = pos <= b.size() ? b.size() - pos : 0;
    if (have < need) return fmt::format(N_("the PNM pixel data is {} bytes, {}×{} pixels need {}"), have, w, h, need);
    return "";
  }
  // TGA: no magic; stb took it for one when no other format matched. Types 1–3 are uncompressed.
  const unsigned type = at(2);
  // (a header cut short too: stb reads its missing bytes as zeros; PNG, GIF, BMP and JPEG have a
  // byte 1 above 1, so they never get here)
  if (b.size() >= 3 && (type == 1 || type == 2 || type == 3) && at(1) <= 1) {
    const std::uint64_t id = at(0), cmap_len = at(5) | (at(6) << 8), cmap_bits = at(7), bits = at(16);
    const std::uint64_t need = 18 + id + (at(1) ? cmap_len * ((cmap_bits + 7) / 8) : 0) + pixels * ((bits + 7) / 8);
    if (b.size() < need) return fmt::format(N_("the TGA file is {} bytes, its header and {}×{} pixels need {}"), b.size(), w, h, need);
  }
  // RLE TGA (types 9–11): packets of a header byte, then one pixel repeated (bit 7) or that many
  // raw pixels, until w×h pixels; stb reads past the end as zeros, so every packet must be there
  if (b.size() >= 3 && (type == 9 || type == 10 || type == 11) && at(1) <= 1) {
    const std::uint64_t id = at(0), cmap_len = at(5) | (at(6) << 8), cmap_bits = at(7), bytes_per = (at(16) + 7) / 8;
    std::uint64_t p = 18 + id + (at(1) ? cmap_len * ((cmap_bits + 7) / 8) : 0), done = 0;
    while (done < pixels) {
      if (p >= b.size()) return fmt::format(N_("the TGA file is {} bytes and its run-length packets stop after {} of {}×{} pixels"), b.size(), done, w, h);
      const unsigned head = at(p);
      const std::uint64_t count = (head & 0x7F) + 1;
      p += 1 + ((head & 0x80) ? bytes_per : count * bytes_per);
      if (p > b.size()) return fmt::format(N_("the TGA file is {} bytes and its run-length packets stop after {} of {}×{} pixels"), b.size(), done, w, h);
      done += count;
    }
  }
  return "";
}

std::uint64_t imgf_le(std::string_view b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | (at + k < b.size() ? static_cast<unsigned char>(b[at + k]) : 0u);
  return v;
}
std::uint64_t imgf_be(std::string_view b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v = (v << 8) | (at + k < b.size() ? static_cast<unsigned char>(b[at + k]) : 0u);
  return v;
}

// The width and height a PNG, GIF or BMP header states (BMP's height as a magnitude: negative
// is top-down), for the message when stb_image refuses a picture too large for it.
bool imgf_header_size(std::string_view b, std::uint64_t& w, std::uint64_t& h) {
  if (b.size() >= 24 && b.substr(0, 8) == "\x89PNG\r\n\x1a\n" && b.substr(12, 4) == "IHDR") {
    w = imgf_be(b, 16, 4), h = imgf_be(b, 20, 4);
    return true;
  }
  if (b.size() >= 10 && (b.substr(0, 6) == "GIF87a" || b.substr(0, 6) == "GIF89a")) {
    w = imgf_le(b, 6, 2), h = imgf_le(b, 8, 2);
    return true;
  }
  if (b.size() >= 26 && b.substr(0, 2) == "BM") {
    const std::uint64_t hsz = imgf_le(b, 14, 4);
    if (hsz == 12) {
      w = imgf_le(b, 18, 2), h = imgf_le(b, 20, 2);
    } else {
      w = imgf_le(b, 18, 4);
      const std::int32_t sh = static_cast<std::int32_t>(static_cast<std::uint32_t>(imgf_le(b, 22, 4)));
      h = static_cast<std::uint64_t>(sh < 0 ? -static_cast<std::int64_t>(sh) : sh);
    }
    return true;
  }
  return false;
}

// stb_image reads a BMP's rows, a GIF's first frame and a JPEG's scans with reads that return
// zeros past the end, so a file cut short decodes with the missing part black. The bytes those
// need must be in the file: a BMP's pixel offset plus its rows, a GIF's first frame through the
// end of its data blocks, a JPEG's end marker after its first scan. Returns "" or what is missing.
std::string imgf_cut_short(std::string_view b, int w, int h) {
  if (b.size() >= 2 && b.substr(0, 2) == "BM") {
    const std::uint64_t offset = imgf_le(b, 10, 4), hsz = imgf_le(b, 14, 4);
    const std::uint64_t bpp = hsz == 12 ? imgf_le(b, 24, 2) : imgf_le(b, 28, 2), compress = hsz == 12 ? 0 : imgf_le(b, 30, 4);
    // stb refuses RLE itself; any other value (even one it reads as a negative int, 0xFF000000)
    // it may decode as plain rows, which must then be in the file
    if (compress == 1 || compress == 2) return "";
    const std::uint64_t row = (static_cast<std::uint64_t>(w) * bpp + 7) / 8, stride = (static_cast<std::uint64_t>(w) * bpp + 31) / 32 * 4;
    const std::uint64_t need = offset + stride * (static_cast<std::uint64_t>(h) - 1) + row;
    if (b.size() < need) return fmt::format(N_("the BMP file is {} bytes, its {}×{} pixels end at byte {}"), b.size(), w, h, need);
    return "";
  }
  if (b.size() >= 6 && (b.substr(0, 6) == "GIF87a" || b.substr(0, 6) == "GIF89a")) {
    const auto cut = [&] { return fmt::format(N_("the GIF file is {} bytes and its first frame's data runs past the end"), b.size()); };
    std::uint64_t p = 13;
    if (imgf_le(b, 10, 1) & 0x80) p += 3ull << ((imgf_le(b, 10, 1) & 7) + 1);
    const auto blocks = [&]() -> bool {  // data sub-blocks up to the 0 that ends them
      for (;;) {
        if (p >= b.size()) return false;
        const std::uint64_t len = imgf_le(b, p, 1);
        p += 1 + len;
        if (len == 0) return true;
      }
    };
    for (;;) {
      if (p >= b.size()) return cut();
      const unsigned tag = static_cast<unsigned>(imgf_le(b, p, 1));
      if (tag == 0x21) {  // an extension: its label, then data blocks
        p += 2;
        if (!blocks()) return cut();
      } else if (tag == 0x2C) {  // the first image: descriptor, local colours, LZW code size, data
        const std::uint64_t flags = imgf_le(b, p + 9, 1);
        p += 10;
        if (flags & 0x80) p += 3ull << ((flags & 7) + 1);
        p += 1;
        return blocks() ? "" : cut();
      } else {
        return "";  // stb says what is wrong with it
      }
    }
  }
  if (b.size() >= 4 && static_cast<unsigned char>(b[0]) == 0xFF && static_cast<unsigned char>(b[1]) == 0xD8) {
    std::uint64_t p = 2;
    while (p + 1 < b.size()) {  // the segments up to the first scan
      if (static_cast<unsigned char>(b[p]) != 0xFF) return "";  // stb says what is wrong with it
      const unsigned m = static_cast<unsigned char>(b[p + 1]);
      if (m == 0xFF) {
        ++p;
        continue;
      }
      if (m == 0xD9) return "";
      if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
        p += 2;
        continue;
      }
      p += 2 + imgf_be(b, p + 2, 2);
      if (m == 0xDA) {  // the scans: entropy-coded data escapes 0xFF, so FF D9 is the end marker
        if (p < b.size() && b.find("\xFF\xD9", p) != std::string_view::npos) return "";
        return fmt::format(N_("the JPEG file is {} bytes and ends before its end marker (FF D9)"), b.size());
      }
    }
    return fmt::format("the JPEG file is {} bytes and ends before its first scan", b.size());
  }
  return "";
}

}  // namespace

Image read_image(const std::string& path) {
  const std::string bytes = read_input_bytes(path, "image", kMaxImageFile, kMaxImageStream);
  if (bytes.empty()) throw Error(fmt::format(N_("{}: empty file (expected a PNG or JPEG picture)"), path));
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int len = static_cast<int>(bytes.size());
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, len, &w, &h, &channels)) {
    // stb refuses what it cannot decode (a 65535² PNG is "too large") and then tries the other
    // formats, whose last reason is "unknown image type": a header's size over the limit says so
    std::uint64_t hw = 0, hh = 0;
    if (imgf_header_size(bytes, hw, hh) && (hw > static_cast<std::uint64_t>(kMaxImageSide) || hh > static_cast<std::uint64_t>(kMaxImageSide) ||
                                           hw * hh > static_cast<std::uint64_t>(kMaxImagePixels)))
      throw Error(fmt::format("{}: the picture is {}×{} pixels; at most {} a side and {} megapixels are read", path, hw, hh, kMaxImageSide,
                              kMaxImagePixels >> 20));
    const std::string_view reason = stbi_failure_reason();
    throw Error(fmt::format(N_("{}: not a picture tfx can read (PNG, JPEG, BMP, GIF, TGA, PNM): {}"), path,
                            reason == "unknown image type" ? N_("unknown image type") : reason));
  }
  // stb's BMP header reader gives a top-down picture's height as stored, negative
  if (bytes.size() >= 2 && bytes.compare(0, 2, "BM") == 0 && h < 0 && h != INT_MIN) h = -h;
  if (w <= 0 || h <= 0)
    throw Error(fmt::format(N_("{}: the picture has no pixels ({}×{} in its header): truncated or empty"), path, w, h));
  // stb_image reads these too, but they are no pictures a lecture gives (and its flat HDR path
  // ignores short reads): only the formats named above
  const std::string_view head(bytes.data(), std::min<std::size_t>(bytes.size(), 10));
  if (head.rfind("#?RADIANCE", 0) == 0 || head.rfind("#?RGBE", 0) == 0 || head.rfind("8BPS", 0) == 0 || head.rfind("\x53\x80\xF6\x34", 0) == 0)
    throw Error(fmt::format(N_("{}: an HDR, PSD or PIC picture; tfx reads PNG, JPEG, BMP, GIF, TGA and PNM"), path));
  if (const std::string why = imgf_short_data(bytes, w, h); !why.empty())
    throw Error(fmt::format(N_("{}: the picture is truncated: {}"), path, why));
  if (const std::string why = imgf_cut_short(bytes, w, h); !why.empty())
    throw Error(fmt::format(N_("{}: the picture is truncated: {}"), path, why));
  if (w > kMaxImageSide || h > kMaxImageSide || static_cast<long long>(w) * h > kMaxImagePixels)
    throw Error(fmt::format(N_("{}: the picture is {}×{} pixels; at most {} a side and {} megapixels are read"), path, w, h, kMaxImageSide,
                            kMaxImagePixels >> 20));
  // a 16-bit PNM: its big-endian samples' high bytes, read here (this stb keeps the samples in
  // file byte order and takes the low byte; its conversion to RGBA then reads past the buffer)
  if (const auto pnm = imgf_pnm_header(bytes); pnm && pnm->maxv > 255) {
    Image out;
    out.width = w, out.height = h;
    out.rgb.resize(static_cast<std::size_t>(w) * h * 3);
    const std::size_t comp = bytes[1] == '6' ? 3 : 1;
    for (std::size_t k = 0; k < static_cast<std::size_t>(w) * h; ++k)
      for (std::size_t c = 0; c < 3; ++c) out.rgb[3 * k + c] = static_cast<std::uint8_t>(bytes[pnm->data + 2 * (comp * k + (comp == 3 ? c : 0))]);
    return out;
  }
  // the picture's own channels (req_comp 0), expanded here: stb's conversion to another channel
  // count treats a 16-bit PNM's buffer as 8-bit and then reads past it (a fuzz find)
  int cw = 0, ch = 0, cn = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(stbi_load_from_memory(data, len, &cw, &ch, &cn, 0), stbi_image_free);
  if (!pixels || cw != w || ch != h || cn < 1 || cn > 4)
    throw Error(fmt::format(N_("{}: the picture could not be decoded ({})"), path, pixels ? "its size changed" : stbi_failure_reason()));
  Image out;
  out.width = w, out.height = h;
  out.rgb.resize(static_cast<std::size_t>(w) * h * 3);
  const stbi_uc* p = pixels.get();
  const std::size_t n = static_cast<std::size_t>(cn);
  for (std::size_t k = 0; k < static_cast<std::size_t>(w) * h; ++k) {
    const stbi_uc* q = p + n * k;
    const unsigned a = n == 2 || n == 4 ? q[n - 1] : 255;  // transparent pixels over white, as a slide shows them
    for (std::size_t c = 0; c < 3; ++c) {
      const unsigned v = n <= 2 ? q[0] : q[c];  // grey: the same value in r, g and b
      out.rgb[3 * k + c] = static_cast<std::uint8_t>((v * a + 255 * (255 - a) + 127) / 255);
    }
  }
  return out;
}

Image resize_image(const Image& image, int width, int height) {
  if (width <= 0 || height <= 0 || static_cast<long long>(width) * height > kMaxImagePixels)
    throw Error(fmt::format(N_("cannot resize a picture to {}×{} pixels (at most {} megapixels)"), width, height, kMaxImagePixels >> 20));
  if (image.width == width && image.height == height) return image;
  Image out;
  out.width = width, out.height = height;
  out.rgb.resize(static_cast<std::size_t>(width) * height * 3);
  if (!stbir_resize_uint8(image.rgb.data(), image.width, image.height, 0, out.rgb.data(), width, height, 0, 3))
    throw Error(N_("resizing the picture failed"));
  return out;
}

}  // namespace tfx
