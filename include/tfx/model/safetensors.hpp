// safetensors: the tensor file format of Hugging Face and of PyTorch users who share weights.
// Layout: an 8-byte little-endian header length N, N bytes of a JSON object
// {"name": {"dtype": "F32", "shape": [r, c], "data_offsets": [begin, end]}, …, "__metadata__": {…}},
// then the byte buffer (offsets are relative to its start). Reading validates everything and
// names the offending tensor; writing produces F32 tensors in name order.
//
// Also: a directory of NumPy .npy files named by the same keys ("self_attn.in_proj_weight.npy"),
// and the check that a set of named tensors holds the names and shapes a layer expects.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tfx/core/tensor.hpp"
#include "tfx/core/tensor_map.hpp"  // TensorMap, expect_tensor

namespace tfx {

// A safetensors header's "__metadata__": free-form string pairs (tfx writes format, module, nhead).
using TensorMetadata = std::map<std::string, std::string>;

// Parses a whole safetensors file held in `bytes`. dtypes F32, F16 and BF16 are converted to
// float32; any other dtype, a header length past the end, malformed JSON, a missing or malformed
// field, offsets outside the buffer, overlapping tensors, a gap or trailing bytes in the buffer,
// or a byte count that is not shape × dtype size throws tfx::Error (data) prefixed with `where`
// and naming the tensor. Safe on arbitrary bytes (the fuzz target calls it). When `metadata` is
// given it receives the __metadata__ entries whose values are strings (empty when there is none).
// `release`, when given, is told each byte range [offset, offset + length) of `bytes` as soon as it
// has been converted (in chunks of a few MB), so a caller holding a memory-mapped file can drop
// those pages (madvise) and keep the peak memory near the float32 tensors alone.
TensorMap parse_safetensors(std::string_view bytes, const std::string& where, TensorMetadata* metadata = nullptr,
                            const std::function<void(std::size_t, std::size_t)>& release = nullptr);

// One tensor of a safetensors file as stored: its bytes inside the file's buffer (not converted).
struct SafetensorsEntry {
  std::string name, dtype;          // dtype: F32, F16 or BF16
  std::vector<std::size_t> shape;   // rank 0 as [1]
  const unsigned char* data = nullptr;
  std::size_t bytes = 0;
};
// The header and buffer of a safetensors file held in `bytes`, validated exactly as
// parse_safetensors does (same errors), without converting anything: the entries point into
// `bytes` (a memory-mapped file, used as stored). Values are not checked for NaN/inf.
std::vector<SafetensorsEntry> safetensors_entries(std::string_view bytes, const std::string& where,
                                                  TensorMetadata* metadata = nullptr);

// Reads `path` (a missing or unreadable file is a data error naming it).
TensorMap read_safetensors(const std::string& path, TensorMetadata* metadata = nullptr);

// Reads every *.npy file in directory `path` as a tensor named by the file name without ".npy"
// (1-D arrays keep rank 1, 2-D rank 2). Throws when the directory has no .npy file.
TensorMap read_npy_directory(const std::string& path);

// read_safetensors for a file, read_npy_directory for a directory (whose metadata is empty).
TensorMap read_weights(const std::string& path, TensorMetadata* metadata = nullptr);

// The number of attention heads a weights file records in its metadata: "nhead" (the parameter of
// nn.TransformerEncoderLayer and what tfx's writer stores) or else "num_heads" (nn.MultiheadAttention's);
// nullopt when neither is there. A value that is not a whole number from 1 to 4096 throws
// tfx::Error prefixed with `where`. PyTorch's tensors alone cannot tell: in_proj_weight is
// [3·d_model, d_model] whatever the number of heads.
std::optional<std::size_t> metadata_heads(const TensorMetadata& metadata, const std::string& where);

// A safetensors file of float32 tensors, in name order, with __metadata__ `metadata` (may be empty).
std::string encode_safetensors(const TensorMap& tensors, const TensorMetadata& metadata = {});

// IEEE half and bfloat16 bit patterns -> float (exact).
float half_to_float(unsigned short bits);
float bfloat16_to_float(unsigned short bits);

}  // namespace tfx
