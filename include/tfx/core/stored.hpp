// Weights used as stored: a matrix of F32, F16 or BF16 elements, or of GGUF's quantized blocks
// (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K: llama.cpp's formats, each row a run of whole blocks), in someone
// else's memory (a memory-mapped safetensors or GGUF file), never converted as a whole. The ops here widen elements to
// float32 where they read them: the GEMM while packing B (AVX-512 / AVX2 / baseline kernels,
// gemm_kernel.inc), the embedding lookup row by row, the norms their weight vectors. Every F16
// and BF16 value is exactly a float32, so each op's result is bit-identical to the same op on the
// widened matrix (the order of operations is unchanged).
//
// Shape letters: M, N, K matrix sizes; T rows looked up; D a row's length.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "tfx/core/tensor.hpp"

namespace tfx {

enum class StoredType : unsigned char { f32, f16, bf16, q8_0, q4_0, q4_k, q5_k, q6_k, q4_1, q5_0, q5_1 };

// Bytes per element: 4 for f32, 2 for f16 and bf16 (a quantized type: see stored_row_bytes).
std::size_t stored_bytes(StoredType t);
// "F32", "F16", "BF16" (safetensors' names), "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K", "Q5_K", "Q6_K" (GGUF's)
const char* stored_type_name(StoredType t);
// A quantized type (stored in blocks of stored_block_size elements)?
bool stored_quantized(StoredType t);
// Elements per block: 1 (f32, f16, bf16), 32 (q8_0, q4_0, q4_1, q5_0, q5_1), 256 (the K-quants).
std::size_t stored_block_size(StoredType t);
// Bytes per block: 4, 2, 2; Q8_0 34, Q4_0 18, Q4_1 20, Q5_0 22, Q5_1 24, Q4_K 144, Q5_K 176, Q6_K 210 (ggml's blocks).
std::size_t stored_block_bytes(StoredType t);
// Bytes of a row of `cols` elements (cols a multiple of the block size).
inline std::size_t stored_row_bytes(StoredType t, std::size_t cols) { return cols / stored_block_size(t) * stored_block_bytes(t); }

// `n` elements (a multiple of the block size) of type t at `src` → float32, as llama.cpp's
// reference (gguf-py's quants.py) computes them, bit for bit: Q8_0 q·d; Q4_0 (q − 8)·d; Q5_0
// (q − 16)·d; Q4_1 and Q5_1 d·q + m; Q4_K and
// Q5_K (d·sc)·q − (dmin·m) with each product rounded to float32; Q6_K (d·sc)·(q − 32).
void dequantize(StoredType t, const void* src, float* out, std::size_t n);

// The inverse: `n` float32 values (a multiple of the block size) → type t's blocks at `dst`
// (n / block size · block bytes), as gguf-py's quants.py quantizes them, bit for bit (F32, F16,
// BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1; src/core/quantize.cpp has each formula), and the K-quants
// Q4_K, Q5_K, Q6_K as ggml's C reference (quantize_row_q*_K_ref) does, bit for bit
// (src/core/quantize_k.cpp). n not a multiple of the block size: tfx::Error.
void quantize(StoredType t, const float* src, void* dst, std::size_t n);
bool quantizer_available(StoredType t);
// f32 → IEEE binary16 bits, round to nearest even (subnormals, ±Inf past 65504, NaN kept a NaN);
// f32 → bfloat16 bits, round to nearest even (NaN made quiet), as ggml's ggml_compute_fp32_to_bf16.
std::uint16_t narrow_f16(float f);
std::uint16_t narrow_bf16(float f);

// rows × cols elements of `type`, row-major and contiguous at `data` (not owned: the mapping or
// tensor it points into must outlive it). Default-constructed: 0 × 0 (an absent tensor).
// `transposed`: the data holds the transpose, (cols, rows) row-major (GGUF's GPT-2 Conv1D weights,
// which llama.cpp stores (out, in) while the family reads them (in, out)); the GEMM reads it
// through its strides, widen_row gathers a column.
struct StoredMatrix {
  const void* data = nullptr;
  StoredType type = StoredType::f32;
  std::size_t rows = 0, cols = 0;
  bool transposed = false;

  StoredMatrix() = default;
  StoredMatrix(const void* data_, StoredType type_, std::size_t rows_, std::size_t cols_)
      : data(data_), type(type_), rows(rows_), cols(cols_) {}
  // A float32 tensor's own storage (a rank-1 tensor is one row).
  explicit StoredMatrix(const Tensor& t) : StoredMatrix(t.data(), StoredType::f32, t.rows(), t.cols()) {}
  std::size_t bytes() const { return transposed ? cols * stored_row_bytes(type, rows) : rows * stored_row_bytes(type, cols); }
  std::size_t size() const { return rows * cols; }
  bool empty() const { return rows * cols == 0; }
};

// bf16 → f32: the 16 bits are the high half of the float32.
float widen_bf16(std::uint16_t bits);
// IEEE binary16 → f32, exact for every value (subnormals, ±0, ±Inf, NaN kept a NaN).
float widen_f16(std::uint16_t bits);

// Row `row` of m widened into out (m.cols floats).
void widen_row(const StoredMatrix& m, std::size_t row, std::span<float> out);
// The whole matrix widened: (rows, cols) float32 (for small tensors: norms, biases, tests).
Tensor widen(const StoredMatrix& m);

// The embedding lookup: rows ids[0..T) of table (V, D) -> (T, D), widened. An id ≥ V throws
// tfx::Error naming it and V.
Tensor stored_rows(const StoredMatrix& table, std::span<const std::size_t> ids);

// a: (M, K), b: (K, N) as stored -> a·b (M, N), b widened while packed (GPT-2's Conv1D weights).
Tensor matmul(const Tensor& a, const StoredMatrix& b, unsigned threads = 1);
// a: (M, K), b: (N, K) as stored -> a·bᵀ (M, N) (HF Linear weights (out, in), a tied head).
Tensor matmul_bt(const Tensor& a, const StoredMatrix& b, unsigned threads = 1);

// matmul_bt of the same a with each of several matrices (a layer's q, k and v projections; its gate
// and up): the same bits as one call each. With 1-4 rows of a (decoding) they run as one parallel
// pass over all their rows: the workers wake once, and with --activations q8 a is quantized once.
std::vector<Tensor> matmul_bt_many(const Tensor& a, std::initializer_list<const StoredMatrix*> ws, unsigned threads = 1);
// linear of the same x with several (W, b) pairs (b: nullptr or 0 × 0 for none), through matmul_bt_many.
std::vector<Tensor> linear_many(const Tensor& x, std::initializer_list<const StoredMatrix*> ws, std::initializer_list<const StoredMatrix*> bs,
                                unsigned threads = 1);

// linear (ops.hpp) with W (N, K) and b (N) as stored, b 0 × 0 for none: x (M, K) -> x·Wᵀ + b (M, N)
// (HF's nn.Linear). Bit-identical to linear on the widened W and b.
Tensor linear(const Tensor& x, const StoredMatrix& W, const StoredMatrix& b = {}, unsigned threads = 1);
// GPT-2's Conv1D with W (K, N) and b (N) as stored: x (M, K) -> x·W + b (M, N).
Tensor linear_in_out(const Tensor& x, const StoredMatrix& W, const StoredMatrix& b, unsigned threads = 1);
// add_table_rows (ops.hpp) with the table (P, D) as stored: x (T, D) += rows first_row … first_row+T−1.
void add_table_rows(Tensor& x, const StoredMatrix& table, std::size_t first_row);

// layer_norm (ops.hpp) with gamma and beta as stored: (D) each, or 0 × 0 for 1 and 0.
Tensor stored_layer_norm(const Tensor& x, const StoredMatrix& gamma, const StoredMatrix& beta, float eps = 1e-5f);

// Llama's RMSNorm with its weight as stored: x: (M, D), weight: (D) ->
// y = x / √(mean(x²) + ε) · w (the mean of squares accumulated in double).
Tensor stored_rms_norm(const Tensor& x, const StoredMatrix& weight, double eps);

}  // namespace tfx
