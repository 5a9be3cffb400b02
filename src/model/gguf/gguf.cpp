// The GGUF reader (gguf.hpp): a bounds-checked cursor over the file's bytes; every count is
// checked against the bytes left before anything is allocated for it.
#include "tfx/model/gguf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

constexpr int kMaxDepth = 4;           // arrays of arrays of …
constexpr std::size_t kMaxDims = 4;    // GGML_MAX_DIMS
constexpr std::uint64_t kMaxName = 1 << 16;
// metadata values held at once (each ~90 bytes): a real vocabulary's tokens, merges, scores and
// types are ~1.5 million at most; more is an absurd file, refused before it takes gigabytes
constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 22;
constexpr std::uint64_t kViewedString = std::uint64_t{1} << 16;  // GgufArrays::views keeps longer strings as views

struct Cursor {
  std::string_view b;
  std::size_t at = 0;
  const std::string& where;
  std::uint64_t values = 0;  // array elements read so far
  bool views = false;        // GgufArrays::views

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format(N_("{}: not a valid GGUF file: {} (at byte {})"), where, what, at));
  }
  std::size_t left() const { return b.size() - at; }
  void need(std::size_t n, const char* what) const {
    if (n > left()) fail(fmt::format(N_("truncated: {} needs {} bytes, {} left"), what, n, left()));
  }
  template <class T>
  T read(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string string(const char* what, std::uint64_t max = UINT64_MAX) {
    const auto n = read<std::uint64_t>(what);
    if (n > left() || n > max) fail(n > max ? fmt::format(N_("{} of {} bytes is longer than allowed"), what, n)
                            : fmt::format(N_("{} of {} bytes is longer than the rest of the file"), what, n));
    std::string s(b.data() + at, static_cast<std::size_t>(n));
    at += static_cast<std::size_t>(n);
    return s;
  }
};

// the smallest number of bytes one value of type t takes (for the count checks)
std::size_t min_bytes(GgufValueType t) {
  switch (t) {
    case GgufValueType::u8: case GgufValueType::i8: case GgufValueType::boolean: return 1;
    case GgufValueType::u16: case GgufValueType::i16: return 2;
    case GgufValueType::u32: case GgufValueType::i32: case GgufValueType::f32: return 4;
    case GgufValueType::string: case GgufValueType::u64: case GgufValueType::i64: case GgufValueType::f64: return 8;
    case GgufValueType::array: return 12;
  }
  return 1;
}

bool known_value_type(std::uint32_t t) { return t <= 12; }

GgufValue read_value(Cursor& c, GgufValueType type, int depth) {
  GgufValue v;
  v.type = type;
  switch (type) {
    case GgufValueType::u8: v.i = c.read<std::uint8_t>("a uint8"); break;
    case GgufValueType::i8: v.i = c.read<std::int8_t>("an int8"); break;
    case GgufValueType::u16: v.i = c.read<std::uint16_t>("a uint16"); break;
    case GgufValueType::i16: v.i = c.read<std::int16_t>("an int16"); break;
    case GgufValueType::u32: v.i = c.read<std::uint32_t>("a uint32"); break;
    case GgufValueType::i32: v.i = c.read<std::int32_t>("an int32"); break;
    case GgufValueType::u64:
      v.u = c.read<std::uint64_t>("a uint64");
      v.i = static_cast<std::int64_t>(std::min<std::uint64_t>(v.u, INT64_MAX));
      return v;
    case GgufValueType::i64: v.i = c.read<std::int64_t>("an int64"); break;
    case GgufValueType::f32: v.f = c.read<float>("a float32"); return v;
    case GgufValueType::f64: v.f = c.read<double>("a float64"); return v;
    case GgufValueType::boolean: {
      const auto x = c.read<std::uint8_t>("a bool");
      if (x > 1) c.fail(fmt::format("a bool holds {}", x));
      v.i = x;
      break;
    }
    case GgufValueType::string:
      if (c.views && depth == 0 && c.left() >= 8) {
        std::uint64_t n = 0;
        std::memcpy(&n, c.b.data() + c.at, 8);
        if (n >= kViewedString && n <= c.left() - 8) {
          c.at += 8;
          v.viewed = true;
          v.raw = c.b.substr(c.at, static_cast<std::size_t>(n));
          c.at += static_cast<std::size_t>(n);
          return v;
        }
      }
      v.s = c.string(N_("a string"));
      return v;
    case GgufValueType::array: {
      if (depth >= kMaxDepth) c.fail(fmt::format("arrays nested deeper than {}", kMaxDepth));
      const auto elem = c.read<std::uint32_t>("an array's element type");
      if (!known_value_type(elem)) c.fail(fmt::format("unknown array element type {}", elem));
      v.elem = static_cast<GgufValueType>(elem);
      const auto n = c.read<std::uint64_t>("an array's length");
      if (n > c.left() / min_bytes(v.elem))
        c.fail(fmt::format("an array of {} elements is more than the {} bytes left could hold", n, c.left()));
      if (c.views && v.elem != GgufValueType::array) {
        // validated in place: each string's length against the bytes left, each bool 0 or 1
        const std::size_t begin = c.at;
        for (std::uint64_t k = 0; k < n; ++k) {
          if (v.elem == GgufValueType::string) {
            const auto len = c.read<std::uint64_t>("a string's length");
            if (len > c.left()) c.fail(fmt::format(N_("{} of {} bytes is longer than the rest of the file"), N_("a string"), len));
            c.at += static_cast<std::size_t>(len);
          } else if (v.elem == GgufValueType::boolean) {
            if (c.read<std::uint8_t>("a bool") > 1) c.fail("a bool holds more than 1");
          } else {
            c.need(min_bytes(v.elem), "an array element");
            c.at += min_bytes(v.elem);
          }
        }
        v.viewed = true;
        v.count = n;
        v.raw = c.b.substr(begin, c.at - begin);
        return v;
      }
      c.values += n;
      if (c.values > kMaxValues) c.fail(fmt::format("more than {} metadata values (an array of {})", kMaxValues, n));
      v.items.reserve(static_cast<std::size_t>(n));
      for (std::uint64_t k = 0; k < n; ++k) v.items.push_back(read_value(c, v.elem, depth + 1));
      return v;
    }
  }
  v.u = static_cast<std::uint64_t>(v.i);
  return v;
}

}  // namespace

bool GgufValue::integer() const {
  switch (type) {
    case GgufValueType::u8: case GgufValueType::i8: case GgufValueType::u16: case GgufValueType::i16:
    case GgufValueType::u32: case GgufValueType::i32: case GgufValueType::u64: case GgufValueType::i64: return true;
    default: return false;
  }
}

std::vector<std::string_view> GgufValue::strings() const {
  std::vector<std::string_view> out;
  out.reserve(size());
  if (!viewed) {
    for (const GgufValue& item : items) out.emplace_back(item.s);
    return out;
  }
  if (elem != GgufValueType::string) return out;
  std::size_t at = 0;
  for (std::uint64_t k = 0; k < count; ++k) {  // validated when parsed
    std::uint64_t len = 0;
    std::memcpy(&len, raw.data() + at, 8);
    out.push_back(raw.substr(at + 8, static_cast<std::size_t>(len)));
    at += 8 + static_cast<std::size_t>(len);
  }
  return out;
}

namespace {

template <class T>
T element(std::string_view raw, std::size_t k) {
  T v;
  std::memcpy(&v, raw.data() + k * sizeof(T), sizeof v);
  return v;
}

}  // namespace

std::int64_t GgufValue::int_at(std::size_t k) const {
  if (!viewed) return k < items.size() ? items[k].i : 0;
  if (k >= count) return 0;
  switch (elem) {
    case GgufValueType::u8: case GgufValueType::boolean: return element<std::uint8_t>(raw, k);
    case GgufValueType::i8: return element<std::int8_t>(raw, k);
    case GgufValueType::u16: return element<std::uint16_t>(raw, k);
    case GgufValueType::i16: return element<std::int16_t>(raw, k);
    case GgufValueType::u32: return element<std::uint32_t>(raw, k);
    case GgufValueType::i32: return element<std::int32_t>(raw, k);
    case GgufValueType::u64: return static_cast<std::int64_t>(std::min<std::uint64_t>(element<std::uint64_t>(raw, k), INT64_MAX));
    case GgufValueType::i64: return element<std::int64_t>(raw, k);
    case GgufValueType::f32: return static_cast<std::int64_t>(element<float>(raw, k));
    case GgufValueType::f64: return static_cast<std::int64_t>(element<double>(raw, k));
    default: return 0;
  }
}

double GgufValue::float_at(std::size_t k) const {
  if (!viewed) return k < items.size() ? (items[k].floating() ? items[k].f : static_cast<double>(items[k].i)) : 0.0;
  if (k >= count) return 0;
  if (elem == GgufValueType::f32) return element<float>(raw, k);
  if (elem == GgufValueType::f64) return element<double>(raw, k);
  return static_cast<double>(int_at(k));
}

std::optional<StoredType> gguf_stored_type(std::uint32_t t) {
  switch (t) {
    case 0: return StoredType::f32;
    case 1: return StoredType::f16;
    case 2: return StoredType::q4_0;
    case 3: return StoredType::q4_1;
    case 6: return StoredType::q5_0;
    case 7: return StoredType::q5_1;
    case 8: return StoredType::q8_0;
    case 12: return StoredType::q4_k;
    case 13: return StoredType::q5_k;
    case 14: return StoredType::q6_k;
    case 30: return StoredType::bf16;
    default: return std::nullopt;
  }
}

std::uint32_t gguf_ggml_type(StoredType t) {
  switch (t) {
    case StoredType::f16: return 1;
    case StoredType::q4_0: return 2;
    case StoredType::q4_1: return 3;
    case StoredType::q5_0: return 6;
    case StoredType::q5_1: return 7;
    case StoredType::q8_0: return 8;
    case StoredType::q4_k: return 12;
    case StoredType::q5_k: return 13;
    case StoredType::q6_k: return 14;
    case StoredType::bf16: return 30;
    case StoredType::f32: break;
  }
  return 0;
}

std::size_t GgufTensor::rows() const {
  std::size_t r = 1;
  for (std::size_t i = 1; i < ne.size(); ++i) r *= static_cast<std::size_t>(ne[i]);
  return r;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

const GgufTensor* GgufFile::tensor(std::string_view name) const {
  for (const GgufTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::optional<std::uint64_t> GgufFile::get_uint(std::string_view key, const std::string& where) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (!v->integer() || v->i < 0) throw Error(fmt::format("{}: metadata {} should be a non-negative integer", where, key));
  return v->type == GgufValueType::u64 ? v->u : static_cast<std::uint64_t>(v->i);
}

std::optional<double> GgufFile::get_float(std::string_view key, const std::string& where) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  // NaN or ∞ would become JSON null on the way to the family's config, and so the default
  if (v->floating() && !std::isfinite(v->f)) throw Error(fmt::format("{}: metadata {} is {}; expected a finite number", where, key, v->f));
  if (v->floating()) return v->f;
  if (v->integer()) return static_cast<double>(v->i);
  throw Error(fmt::format("{}: metadata {} should be a number", where, key));
}

std::optional<std::string> GgufFile::get_string(std::string_view key, const std::string& where) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != GgufValueType::string) throw Error(fmt::format("{}: metadata {} should be a string", where, key));
  return std::string(v->text());
}

std::optional<std::string_view> GgufFile::get_string_view(std::string_view key, const std::string& where) const {
  const GgufValue* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != GgufValueType::string) throw Error(fmt::format("{}: metadata {} should be a string", where, key));
  return v->text();
}

bool is_gguf(std::string_view bytes) { return bytes.size() >= 4 && bytes.substr(0, 4) == "GGUF"; }

GgufFile parse_gguf(std::string_view bytes, const std::string& where, GgufArrays arrays) {
  Cursor c{bytes, 0, where, 0, arrays == GgufArrays::views};
  c.need(4, "the magic");
  if (!is_gguf(bytes)) c.fail(N_("it does not start with \"GGUF\""));
  c.at = 4;
  GgufFile f;
  f.version = c.read<std::uint32_t>("the version");
  if (f.version != 2 && f.version != 3) {
    if (f.version == 0x02000000u || f.version == 0x03000000u) c.fail("a big-endian GGUF file (tfx reads little-endian ones)");
    c.fail(fmt::format(N_("version {} (tfx reads GGUF versions 2 and 3)"), f.version));
  }
  const auto n_tensors = c.read<std::uint64_t>(N_("the tensor count"));
  const auto n_kv = c.read<std::uint64_t>(N_("the metadata count"));
  // each metadata entry takes ≥ 8 + 4 + 1 bytes, each tensor info ≥ 8 + 4 + 8 + 4 + 8
  if (n_kv > c.left() / 13) c.fail(fmt::format(N_("{} metadata entries are more than the file could hold"), n_kv));
  f.metadata.reserve(static_cast<std::size_t>(n_kv));
  std::set<std::string> keys;
  for (std::uint64_t k = 0; k < n_kv; ++k) {
    std::string key = c.string(N_("a metadata key"), kMaxName);
    const auto type = c.read<std::uint32_t>("a metadata value type");
    if (!known_value_type(type)) c.fail(fmt::format("metadata {} has unknown value type {}", key, type));
    GgufValue v = read_value(c, static_cast<GgufValueType>(type), 0);
    if (!keys.insert(key).second) c.fail(fmt::format("metadata {} appears twice", key));
    f.metadata.emplace_back(std::move(key), std::move(v));
  }
  if (const GgufValue* a = f.find("general.alignment")) {
    if (a->type != GgufValueType::u32 || a->i == 0 || (a->i & (a->i - 1)) != 0 || a->i > (1 << 20))
      c.fail("general.alignment should be a uint32 power of two");
    f.alignment = static_cast<std::size_t>(a->i);
  }
  if (n_tensors > c.left() / 32) c.fail(fmt::format(N_("{} tensors are more than the file could hold"), n_tensors));
  f.tensors.reserve(static_cast<std::size_t>(n_tensors));
  std::set<std::string> names;
  for (std::uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensor t;
    t.name = c.string(N_("a tensor name"), kMaxName);
    const auto dims = c.read<std::uint32_t>("a tensor's dimension count");
    if (dims == 0 || dims > kMaxDims) c.fail(fmt::format("tensor {} has {} dimensions (1 to {})", t.name, dims, kMaxDims));
    std::uint64_t count = 1;
    for (std::uint32_t d = 0; d < dims; ++d) {
      const auto n = c.read<std::uint64_t>("a tensor's size");
      if (n == 0 || n > (std::uint64_t{1} << 40) || count > (std::uint64_t{1} << 44) / n)
        c.fail(fmt::format("tensor {} has an absurd size {} along axis {}", t.name, n, d));
      count *= n;
      t.ne.push_back(n);
    }
    const auto type = c.read<std::uint32_t>("a tensor's type");
    const std::optional<StoredType> st = gguf_stored_type(type);
    if (!st) c.fail(fmt::format("tensor {} has ggml type {}, which tfx does not read (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K)", t.name, type));
    t.type = *st;
    if (t.ne[0] % stored_block_size(t.type) != 0)
      c.fail(fmt::format("tensor {}: rows of {} values are not whole {} blocks of {}", t.name, t.ne[0], stored_type_name(t.type),
                         stored_block_size(t.type)));
    t.offset = c.read<std::uint64_t>("a tensor's offset");
    if (t.offset % f.alignment != 0) c.fail(fmt::format("tensor {} at offset {} is not aligned to {}", t.name, t.offset, f.alignment));
    t.bytes = stored_row_bytes(t.type, static_cast<std::size_t>(t.ne[0])) * t.rows();
    if (!names.insert(t.name).second) c.fail(fmt::format("tensor {} appears twice", t.name));
    f.tensors.push_back(std::move(t));
  }
  f.data_offset = (c.at + f.alignment - 1) / f.alignment * f.alignment;
  if (f.data_offset > bytes.size() && !f.tensors.empty()) c.fail("truncated before the tensor data");
  const std::size_t data_size = bytes.size() - std::min(bytes.size(), f.data_offset);
  std::vector<const GgufTensor*> by_offset;
  for (GgufTensor& t : f.tensors) {
    if (t.offset > data_size || t.bytes > data_size - t.offset)
      throw Error(fmt::format("{}: not a valid GGUF file: tensor {} ({} bytes at offset {}) goes past the end of the data ({} bytes)", where,
                              t.name, t.bytes, t.offset, data_size));
    t.data = reinterpret_cast<const unsigned char*>(bytes.data()) + f.data_offset + t.offset;
    by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(), [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i - 1]->offset + by_offset[i - 1]->bytes > by_offset[i]->offset)
      throw Error(fmt::format("{}: not a valid GGUF file: tensors {} and {} overlap", where, by_offset[i - 1]->name, by_offset[i]->name));
  return f;
}

}  // namespace tfx
