// safetensors reading (validated, F32/F16/BF16) and writing (F32); .npy directories of named
// tensors; the expected-name-and-shape check behind --weights.
#include "tfx/model/safetensors.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/io/text_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tfx/io/json_fields.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "tfx/core/show_token.hpp"  // junk bytes as \xNN in messages
#include "tfx/io/matrix_io.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

// Bytes per element of a dtype tfx reads; 0 for a dtype it does not.
std::size_t dtype_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 0;
}

std::uint64_t read_u64_le(std::string_view b) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
  return v;
}

// A JSON value as a non-negative integer that fits in 64 bits, or throws naming `what`.
std::uint64_t whole(const nlohmann::json& v, const std::string& what) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  throw Error(fmt::format(N_("{}: expected a whole number ≥ 0, got {}"), what, json_excerpt(v)));
}

std::string read_all(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(fmt::format(N_("{}: no such file"), path));
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format(N_("{}: is a directory; expected a {}"), path, what));
  // bounded: /dev/zero or an endless pipe is refused, not read until memory runs out
  return read_input_bytes(path, what, memory_budget(), std::size_t{256} << 20);
}

struct Entry {
  std::string name;
  std::string dtype;
  std::vector<std::size_t> shape;
  std::uint64_t begin = 0, end = 0;
};

}  // namespace

float half_to_float(unsigned short h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  std::uint32_t bits;
  if (exp == 0) {
    // zero or subnormal: mant · 2^-24, exact in float
    const float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
  }
  if (exp == 31)
    bits = sign | 0x7F800000u | (mant << 13);  // inf / nan
  else
    bits = sign | ((exp + 112u) << 23) | (mant << 13);  // rebias 15 → 127
  return std::bit_cast<float>(bits);
}

float bfloat16_to_float(unsigned short b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

std::vector<SafetensorsEntry> safetensors_entries(std::string_view b, const std::string& where, TensorMetadata* metadata) {
  if (metadata) metadata->clear();
  // 1. the header length: 8 bytes little-endian, then that many bytes of JSON
  if (b.size() < 8) throw Error(fmt::format(N_("{}: {} bytes; a safetensors file starts with an 8-byte header length"), where, b.size()));
  const std::uint64_t n = read_u64_le(b);
  if (n > b.size() - 8)
    throw Error(fmt::format(N_("{}: header length {} runs past the end of the file ({} bytes after the length field); "
                            "not a safetensors file or truncated"),
                            where, n, b.size() - 8));
  const std::string_view header = b.substr(8, static_cast<std::size_t>(n));
  const std::string_view buffer = b.substr(8 + static_cast<std::size_t>(n));
  if (n > (std::uint64_t{100} << 20))
    throw Error(fmt::format(N_("{}: header length {} is over the format's 100 MB limit; not a safetensors file"), where, n));
  // a tensor name given twice would silently keep only one: refuse it (keys of the top object)
  std::string duplicate;
  std::set<std::string> names;
  const nlohmann::json::parser_callback_t cb = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 && parsed.is_string() &&
        !names.insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  check_json_depth(header, where);  // dump/copy recurse per level: 100k levels overflow the stack
  nlohmann::json j = nlohmann::json::parse(header, cb, false);
  if (j.is_discarded()) throw Error(fmt::format(N_("{}: the {}-byte header is not valid JSON"), where, n));
  if (!duplicate.empty()) throw Error(fmt::format(N_("{}: tensor '{}' is named twice in the header"), where, duplicate));
  if (!j.is_object()) throw Error(fmt::format(N_("{}: the header is not a JSON object"), where));

  // 2. every entry: dtype, shape, data_offsets; byte count = elements × dtype size
  std::vector<Entry> entries;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) throw Error(fmt::format(N_("{}: __metadata__ must be an object of strings"), where));
      if (metadata)
        for (auto m = it->begin(); m != it->end(); ++m)
          if (m->is_string()) (*metadata)[m.key()] = m->get<std::string>();
      continue;
    }
    const std::string at = fmt::format("{}: tensor '{}'", where, it.key());
    const nlohmann::json& t = *it;
    if (!t.is_object()) throw Error(fmt::format(N_("{}: expected an object with dtype, shape, data_offsets"), at));
    if (!t.contains("dtype") || !t["dtype"].is_string()) throw Error(fmt::format(N_("{}: missing \"dtype\""), at));
    if (!t.contains("shape") || !t["shape"].is_array()) throw Error(fmt::format(N_("{}: missing \"shape\" (a list)"), at));
    if (!t.contains("data_offsets") || !t["data_offsets"].is_array() || t["data_offsets"].size() != 2)
      throw Error(fmt::format(N_("{}: missing \"data_offsets\" [begin, end]"), at));
    Entry e;
    e.name = it.key();
    e.dtype = t["dtype"].get<std::string>();
    const std::size_t es = dtype_size(e.dtype);
    if (es == 0) throw Error(fmt::format(N_("{}: dtype '{}' is not supported (tfx reads F32, F16, BF16)"), at, e.dtype));
    if (t["shape"].size() > 8) throw Error(fmt::format(N_("{}: rank {} (tfx reads up to rank 8)"), at, t["shape"].size()));
    for (const auto& d : t["shape"]) {
      const std::uint64_t v = whole(d, at + " shape");
      if (v > kMaxElements) throw Error(fmt::format(N_("{}: shape {} is larger than any tensor tfx reads"), at, json_excerpt(t["shape"])));
      e.shape.push_back(static_cast<std::size_t>(v));
    }
    e.begin = whole(t["data_offsets"][0], at + " data_offsets[0]");
    e.end = whole(t["data_offsets"][1], at + " data_offsets[1]");
    if (e.begin > e.end) throw Error(fmt::format(N_("{}: data_offsets [{}, {}] end before they begin"), at, e.begin, e.end));
    if (e.end > buffer.size())
      throw Error(fmt::format(N_("{}: data_offsets [{}, {}] run past the end of the {}-byte buffer"), at, e.begin, e.end,
                              buffer.size()));
    // a shape past the cap is the file's fault (a data error, exit 1), not the user's flags
    std::size_t count = 0;
    try {
      count = checked_element_count(e.shape.empty() ? std::vector<std::size_t>{1} : e.shape, at);
    } catch (const Error&) {
      throw Error(fmt::format(N_("{}: shape {} is larger than any tensor tfx reads (at most {} elements, 4 GiB)"), at,
                              shape_string(e.shape), kMaxElements));
    }
    if (count * es != e.end - e.begin)
      throw Error(fmt::format(N_("{}: shape {} of {} needs {} bytes but data_offsets [{}, {}] hold {}"), at, shape_string(e.shape),
                              e.dtype, count * es, e.begin, e.end, e.end - e.begin));
    entries.push_back(std::move(e));
  }

  // 3. the buffer: tensors in offset order, no overlap, no gap, nothing after the last
  std::vector<const Entry*> order;
  for (const auto& e : entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* c) { return a->begin != c->begin ? a->begin < c->begin : a->end < c->end; });
  std::uint64_t pos = 0;
  const Entry* prev = nullptr;
  for (const Entry* e : order) {
    if (e->begin < pos)
      throw Error(fmt::format(N_("{}: tensors '{}' [{}, {}] and '{}' [{}, {}] overlap"), where, prev->name, prev->begin, prev->end,
                              e->name, e->begin, e->end));
    if (e->begin > pos)
      throw Error(fmt::format(N_("{}: bytes {}…{} of the buffer before tensor '{}' belong to no tensor"), where, pos, e->begin, e->name));
    pos = e->end;
    prev = e;
  }
  if (pos != buffer.size())
    throw Error(fmt::format(N_("{}: {} bytes after the last tensor belong to no tensor"), where, buffer.size() - pos));
  std::vector<SafetensorsEntry> out;
  for (auto& e : entries)
    out.push_back({e.name, e.dtype, e.shape.empty() ? std::vector<std::size_t>{1} : e.shape,
                   reinterpret_cast<const unsigned char*>(buffer.data() + e.begin), static_cast<std::size_t>(e.end - e.begin)});
  return out;
}

TensorMap parse_safetensors(std::string_view b, const std::string& where, TensorMetadata* metadata,
                            const std::function<void(std::size_t, std::size_t)>& release) {
  // 1–3. the header and the buffer, validated
  const std::vector<SafetensorsEntry> entries = safetensors_entries(b, where, metadata);
  // 4. convert to float32 (little-endian in the file)
  TensorMap out;
  for (const auto& e : entries) {
    Tensor t(e.shape);
    const unsigned char* p = e.data;
    const std::size_t es = e.dtype == "F32" ? 4 : 2, chunk = (std::size_t{2} << 20) / es;  // release every 2 MB read
    const std::size_t base = static_cast<std::size_t>(reinterpret_cast<const char*>(e.data) - b.data());
    const int kind = e.dtype == "F32" ? 0 : e.dtype == "F16" ? 1 : 2;  // decided once, not per element
    for (std::size_t start = 0; start < t.size(); start += chunk) {
      const std::size_t len = std::min(chunk, t.size() - start);
      float* dst = t.data() + start;
      const unsigned char* src = p + start * es;
      if (kind == 0 && std::endian::native == std::endian::little) {
        std::memcpy(dst, src, len * 4);
      } else if (kind == 0) {
        for (std::size_t j = 0; j < len; ++j)
          dst[j] = std::bit_cast<float>(std::uint32_t(src[4 * j]) | std::uint32_t(src[4 * j + 1]) << 8 |
                                        std::uint32_t(src[4 * j + 2]) << 16 | std::uint32_t(src[4 * j + 3]) << 24);
      } else {
        for (std::size_t j = 0; j < len; ++j) {
          const unsigned short u = static_cast<unsigned short>(src[2 * j] | (src[2 * j + 1] << 8));
          dst[j] = kind == 1 ? half_to_float(u) : bfloat16_to_float(u);
        }
      }
      // a NaN or infinite weight would turn every output into NaN: refused here, by name (a
      // branch-free pass over the chunk first; the index is looked for only when one is there)
      bool bad = false;
      for (std::size_t j = 0; j < len; ++j) bad |= !(std::fabs(dst[j]) <= std::numeric_limits<float>::max());
      if (bad)
        for (std::size_t j = 0; j < len; ++j)
          if (!std::isfinite(dst[j]))
            throw Error(fmt::format(N_("{}: tensor '{}' holds {} at index {}; weights must be finite"), where, e.name,
                                    std::isnan(dst[j]) ? "NaN" : dst[j] > 0 ? "+inf" : "-inf", start + j));
      if (release) release(base + start * es, len * es);
    }
    out.emplace(e.name, std::move(t));
  }
  return out;
}

TensorMap read_safetensors(const std::string& path, TensorMetadata* metadata) {
  return parse_safetensors(read_all(path, N_("safetensors file")), path, metadata);
}

TensorMap read_npy_directory(const std::string& path) {
  std::error_code ec;
  TensorMap out;
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::directory_iterator(path, ec))
    if (f.path().extension() == ".npy") files.push_back(f.path());
  if (ec) throw Error(fmt::format(N_("{}: cannot list the directory: {}"), path, ec.message()));
  if (files.empty()) throw Error(fmt::format(N_("{}: no .npy files (expected files named by the tensor, e.g. linear1.weight.npy)"), path));
  for (const auto& f : files) {
    LoadedMatrix m = parse_npy(read_all(f.string(), ".npy file"), f.string());
    Tensor t = std::move(m.values);
    if (t.rows() == 1) t = t.reshaped({t.cols()});
    out.emplace(f.stem().string(), std::move(t));
  }
  return out;
}

TensorMap read_weights(const std::string& path, TensorMetadata* metadata) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (metadata) metadata->clear();
    return read_npy_directory(path);
  }
  return read_safetensors(path, metadata);
}

std::optional<std::size_t> metadata_heads(const TensorMetadata& metadata, const std::string& where) {
  for (const char* key : {"nhead", "num_heads"}) {
    auto it = metadata.find(key);
    if (it == metadata.end()) continue;
    const std::string& v = it->second;
    std::size_t h = 0;
    bool ok = !v.empty() && v.size() <= 4;
    for (char ch : v) {
      ok = ok && ch >= '0' && ch <= '9';
      h = h * 10 + static_cast<std::size_t>(ch - '0');
    }
    if (!ok || h < 1 || h > 4096)
      throw Error(fmt::format(N_("{}: __metadata__ {} = '{}' is not a number of heads (a whole number from 1 to 4096)"), where, key, show_token(v)));
    return h;
  }
  return std::nullopt;
}

std::string encode_safetensors(const TensorMap& tensors, const TensorMetadata& metadata) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  std::size_t offset = 0;
  for (const auto& [name, t] : tensors) {
    h[name] = {{"dtype", "F32"}, {"shape", t.shape()}, {"data_offsets", {offset, offset + 4 * t.size()}}};
    offset += 4 * t.size();
  }
  std::string header = h.dump();
  while ((header.size() + 8) % 8) header += ' ';  // the buffer starts 8-byte aligned, as the reference writer pads
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  out += header;
  for (const auto& [name, t] : tensors)
    for (float v : t.values()) {
      const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
      for (int i = 0; i < 4; ++i) out += static_cast<char>((u >> (8 * i)) & 0xFF);
    }
  return out;
}

}  // namespace tfx
