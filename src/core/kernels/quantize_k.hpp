// The K-quant super-block quantizers (quantize_k.cpp), one block of 256 float32 values each, for
// quantize.cpp's dispatch.
#pragma once

namespace tfx {

void quantize_q4_k_block(const float* x, unsigned char* block);  // 144 bytes
void quantize_q5_k_block(const float* x, unsigned char* block);  // 176 bytes
void quantize_q6_k_block(const float* x, unsigned char* block);  // 210 bytes

}  // namespace tfx
