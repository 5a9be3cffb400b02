// GGUF: llama.cpp's (and Ollama's) model file, versions 2 and 3, read without converting anything.
// Layout (little-endian): "GGUF", uint32 version, uint64 tensor count, uint64 metadata count;
// the metadata, each a string key (uint64 length + UTF-8 bytes), a uint32 value type and the value
// (uint8 … float64, bool, string, or an array: uint32 element type, uint64 count, the elements);
// the tensor infos, each a name, uint32 n_dims (≤ 4), n_dims uint64 sizes ne[0] (the fastest
// axis: a row's length) … , uint32 ggml type, uint64 offset; then, at the next multiple of
// general.alignment (default 32), the data, each tensor at its offset from there.
//
// parse_gguf validates everything against the bytes it is given and throws tfx::Error (data)
// prefixed with `where` naming what is wrong: a bad magic or version, a truncated header, an absurd
// count or string length (more than the bytes left could hold: memory stays proportional to the
// file), a nested array deeper than 4, a value type or tensor type tfx does not know, a tensor
// whose row is not whole blocks, past the end of the file, off the alignment, overlapping another
// or named twice. Safe on arbitrary bytes (the fuzz target tests/fuzz/fuzz_gguf.cpp calls it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/stored.hpp"

namespace tfx {

enum class GgufValueType : std::uint32_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9, u64 = 10, i64 = 11, f64 = 12
};

// One metadata value. Integers keep their value in `i` (a uint64 above INT64_MAX in `u` as well),
// floats in `f`, bools in `i` (0/1), strings in `s`; an array's elements in `items` (of type `elem`).
struct GgufValue {
  GgufValueType type = GgufValueType::u8;
  GgufValueType elem = GgufValueType::u8;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double f = 0;
  std::string s;
  std::vector<GgufValue> items;
  // An array of scalars or strings read with GgufArrays::views: its elements stay in the parsed
  // bytes (`raw`, `count` of them, validated) and `items` is empty; the accessors below read both.
  // A long string (64 KiB or more: a whole tokenizer.json) read so is `raw` too, `s` empty.
  bool viewed = false;
  std::uint64_t count = 0;
  std::string_view raw;
  bool integer() const;
  std::size_t size() const { return viewed ? static_cast<std::size_t>(count) : items.size(); }
  std::string_view text() const { return viewed ? raw : std::string_view(s); }  // a string's bytes
  // an array's elements: strings as views (into the parsed bytes or into `items`), numbers by index
  std::vector<std::string_view> strings() const;
  std::int64_t int_at(std::size_t k) const;
  double float_at(std::size_t k) const;
  bool floating() const { return type == GgufValueType::f32 || type == GgufValueType::f64; }
};

// ggml's tensor types tfx uses as stored: F32 0, F16 1, Q4_0 2, Q4_1 3, Q5_0 6, Q5_1 7, Q8_0 8,
// Q4_K 12, Q5_K 13, Q6_K 14, BF16 30; nullopt for any other (the i-quants, Q2_K, Q3_K, …).
std::optional<StoredType> gguf_stored_type(std::uint32_t ggml_type);
// ggml's number for a stored type (the inverse of gguf_stored_type)
std::uint32_t gguf_ggml_type(StoredType t);

struct GgufTensor {
  std::string name;
  std::vector<std::uint64_t> ne;  // ggml's order: ne[0] is a row's length
  StoredType type = StoredType::f32;
  std::uint64_t offset = 0;        // from the start of the data
  const unsigned char* data = nullptr;
  std::size_t bytes = 0;
  std::size_t rows() const;        // ne[1] · ne[2] · ne[3]
};

struct GgufFile {
  std::uint32_t version = 3;
  std::size_t alignment = 32, data_offset = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata;  // in file order
  std::vector<GgufTensor> tensors;                          // in file order
  const GgufValue* find(std::string_view key) const;
  const GgufTensor* tensor(std::string_view name) const;
  // typed getters: nullopt when absent; a value of the wrong type throws tfx::Error naming the key
  std::optional<std::uint64_t> get_uint(std::string_view key, const std::string& where) const;
  std::optional<double> get_float(std::string_view key, const std::string& where) const;
  std::optional<std::string> get_string(std::string_view key, const std::string& where) const;
  // the same without a copy (a view into the parsed bytes, or into the value)
  std::optional<std::string_view> get_string_view(std::string_view key, const std::string& where) const;
};

// How parse_gguf keeps arrays of scalars or strings: each element a GgufValue in `items`, or a
// view of their bytes (a vocabulary's 150,000 tokens then cost no memory beyond the file; the
// GgufFile must not outlive `bytes`).
enum class GgufArrays { values, views };

// Parses (validates) a whole GGUF file held in `bytes`: the tensors point into `bytes`.
GgufFile parse_gguf(std::string_view bytes, const std::string& where, GgufArrays arrays = GgufArrays::values);
// (not from a temporary string: the tensors' data would point into freed memory)
GgufFile parse_gguf(std::string&& bytes, const std::string& where, GgufArrays arrays = GgufArrays::values) = delete;

// Does `bytes` start with GGUF's magic?
bool is_gguf(std::string_view bytes);

}  // namespace tfx
