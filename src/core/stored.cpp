// Weights used as stored (stored.hpp): widening F16/BF16 elements to float32 outside the GEMM
// (which widens in its own kernels, gemm_kernel.inc): the embedding lookup and the norms.
#include "tfx/core/stored.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cmath>
#include <cstring>

#include "tfx/core/error.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

std::size_t stored_bytes(StoredType t) { return t == StoredType::f32 ? 4 : 2; }

const char* stored_type_name(StoredType t) {
  switch (t) {
    case StoredType::f16: return "F16";
    case StoredType::bf16: return "BF16";
    case StoredType::q8_0: return "Q8_0";
    case StoredType::q4_0: return "Q4_0";
    case StoredType::q4_k: return "Q4_K";
    case StoredType::q5_k: return "Q5_K";
    case StoredType::q6_k: return "Q6_K";
    case StoredType::q4_1: return "Q4_1";
    case StoredType::q5_0: return "Q5_0";
    case StoredType::q5_1: return "Q5_1";
    case StoredType::f32: break;
  }
  return "F32";
}

bool stored_quantized(StoredType t) { return stored_block_size(t) > 1; }

std::size_t stored_block_size(StoredType t) {
  switch (t) {
    case StoredType::q8_0:
    case StoredType::q4_0:
    case StoredType::q4_1:
    case StoredType::q5_0:
    case StoredType::q5_1: return 32;
    case StoredType::q4_k:
    case StoredType::q5_k:
    case StoredType::q6_k: return 256;
    default: return 1;
  }
}

std::size_t stored_block_bytes(StoredType t) {
  switch (t) {
    case StoredType::q8_0: return 34;
    case StoredType::q4_0: return 18;
    case StoredType::q4_k: return 144;
    case StoredType::q5_k: return 176;
    case StoredType::q6_k: return 210;
    case StoredType::q4_1: return 20;
    case StoredType::q5_0: return 22;
    case StoredType::q5_1: return 24;
    default: return stored_bytes(t);
  }
}

// bf16 → f32: bits << 16
float widen_bf16(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// f16 → f32 by cases on the 5-bit exponent e and 10-bit mantissa m (sign s):
//   e = 0:  (−1)^s · m · 2⁻²⁴ (zero or subnormal)     e = 31: ±Inf (m = 0) or NaN
//   else:   (−1)^s · (1 + m/1024) · 2^(e − 15)
// (the kernels build the same bits with shifts; this is the definition, written out)
float widen_f16(std::uint16_t bits) {
  const bool negative = bits & 0x8000u;
  const unsigned e = (bits >> 10) & 0x1fu, m = bits & 0x3ffu;
  float v;
  if (e == 0) {
    v = std::ldexp(static_cast<float>(m), -24);
  } else if (e == 31) {
    if (m != 0) {  // keep the payload: quiet NaN with m in the top mantissa bits
      const std::uint32_t u = (negative ? 0x80000000u : 0u) | 0x7f800000u | (m << 13);
      std::memcpy(&v, &u, sizeof v);
      return v;
    }
    v = INFINITY;
  } else {
    v = std::ldexp(1.0f + static_cast<float>(m) / 1024.0f, static_cast<int>(e) - 15);
  }
  return negative ? -v : v;
}

namespace {
float stored_at(const StoredMatrix& m, std::size_t i) {
  switch (m.type) {
    case StoredType::f16: {
      std::uint16_t h;
      std::memcpy(&h, static_cast<const char*>(m.data) + 2 * i, 2);
      return widen_f16(h);
    }
    case StoredType::bf16: {
      std::uint16_t h;
      std::memcpy(&h, static_cast<const char*>(m.data) + 2 * i, 2);
      return widen_bf16(h);
    }
    default: break;
  }
  float f;
  std::memcpy(&f, static_cast<const char*>(m.data) + 4 * i, 4);
  return f;
}
}  // namespace

void widen_row(const StoredMatrix& m, std::size_t row, std::span<float> out) {
  assert(row < m.rows && out.size() == m.cols);
  if (m.transposed) {  // column `row` of the stored (cols, rows) matrix: one block per element
    const std::size_t block = stored_block_size(m.type), row_bytes = stored_row_bytes(m.type, m.rows);
    float values[256];
    for (std::size_t j = 0; j < m.cols; ++j) {
      dequantize(m.type, static_cast<const char*>(m.data) + j * row_bytes + row / block * stored_block_bytes(m.type), values, block);
      out[j] = values[row % block];
    }
    return;
  }
  if (stored_quantized(m.type)) {
    dequantize(m.type, static_cast<const char*>(m.data) + row * stored_row_bytes(m.type, m.cols), out.data(), m.cols);
    return;
  }
  const std::size_t base = row * m.cols;
  if (m.type == StoredType::bf16) {  // the common case, kept a tight loop
    const auto* p = static_cast<const unsigned char*>(m.data) + 2 * base;
    for (std::size_t j = 0; j < m.cols; ++j) {
      const std::uint32_t u = static_cast<std::uint32_t>(p[2 * j] | (p[2 * j + 1] << 8)) << 16;
      std::memcpy(&out[j], &u, 4);
    }
    return;
  }
  for (std::size_t j = 0; j < m.cols; ++j) out[j] = stored_at(m, base + j);
}

Tensor widen(const StoredMatrix& m) {
  Tensor t({m.rows, m.cols});
  for (std::size_t i = 0; i < m.rows; ++i) widen_row(m, i, t.row(i));
  return t;
}

Tensor stored_rows(const StoredMatrix& table, std::span<const std::size_t> ids) {
  Tensor out({ids.size(), table.cols});
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] >= table.rows)
      throw Error(fmt::format(N_("embedding lookup: id {} at position {} is past the table's {} rows"), ids[t], t,
                              table.rows));
    widen_row(table, ids[t], out.row(t));
  }
  return out;
}

namespace {
// A weight vector (D) widened, or an empty tensor for an absent (0 × 0) one.
Tensor stored_vector(const StoredMatrix& v) {
  if (v.rows * v.cols == 0) return Tensor();
  return widen(v).reshaped({v.rows * v.cols});
}
}  // namespace

namespace {
// y(i, j) += b[j] for every row (b widened once; nothing when b is absent)
Tensor stored_add_bias(Tensor y, const StoredMatrix& b, const char* op) {
  if (b.empty()) return y;
  if (b.size() != y.cols())
    throw Error(fmt::format(N_("{}: bias of {} values does not match the output width {}"), op, b.size(), y.cols()));
  const Tensor v = stored_vector(b);
  for (std::size_t i = 0; i < y.rows(); ++i)
    for (std::size_t j = 0; j < y.cols(); ++j) y(i, j) += v[j];
  return y;
}
}  // namespace

// y = x·Wᵀ + b
Tensor linear(const Tensor& x, const StoredMatrix& W, const StoredMatrix& b, unsigned threads) {
  return stored_add_bias(matmul_bt(x, W, threads), b, "linear");
}

std::vector<Tensor> linear_many(const Tensor& x, std::initializer_list<const StoredMatrix*> ws, std::initializer_list<const StoredMatrix*> bs,
                                unsigned threads) {
  if (bs.size() != ws.size()) throw Error(fmt::format(N_("linear: {} weights and {} biases"), ws.size(), bs.size()));
  std::vector<Tensor> ys = matmul_bt_many(x, ws, threads);
  for (std::size_t i = 0; i < ys.size(); ++i)
    if (const StoredMatrix* b = bs.begin()[i]) ys[i] = stored_add_bias(std::move(ys[i]), *b, "linear");
  return ys;
}

// y = x·W + b
Tensor linear_in_out(const Tensor& x, const StoredMatrix& W, const StoredMatrix& b, unsigned threads) {
  return stored_add_bias(matmul(x, W, threads), b, "Conv1D");
}

// x(t, j) += table(first_row + t, j)
void add_table_rows(Tensor& x, const StoredMatrix& table, std::size_t first_row) {
  if (table.cols != x.cols() || first_row + x.rows() > table.rows)
    throw Error(fmt::format(N_("add_table_rows: rows {} … of {} for x {}"), first_row, shape_string({table.rows, table.cols}), x.shape_str()));
  std::vector<float> row(x.cols());
  for (std::size_t t = 0; t < x.rows(); ++t) {
    widen_row(table, first_row + t, row);
    for (std::size_t j = 0; j < x.cols(); ++j) x(t, j) += row[j];
  }
}

Tensor stored_layer_norm(const Tensor& x, const StoredMatrix& gamma, const StoredMatrix& beta, float eps) {
  return layer_norm(x, stored_vector(gamma), stored_vector(beta), eps);
}

// y = x / √(mean(x²) + ε) · w
Tensor stored_rms_norm(const Tensor& x, const StoredMatrix& weight, double eps) {
  const std::size_t D = x.cols();
  if (weight.rows * weight.cols != D)
    throw Error(fmt::format(N_("rms_norm: weight has shape {}, x has shape {} (need {} values)"),
                            shape_string({weight.rows, weight.cols}), x.shape_str(), D));
  return rms_norm(x, stored_vector(weight), eps);  // the weight widened, then the one rms_norm
}

}  // namespace tfx
