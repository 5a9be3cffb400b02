// The next-token logits llama.cpp computes for a GGUF file and a list of token ids: the independent
// check of how tfx reads a GGUF model (tests/reference/check_gguf_llama_cpp.sh builds and runs it).
//
//   llama_cpp_logits FILE.gguf 1,2,3   → one line per vocabulary entry: the last position's logit
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: llama_cpp_logits FILE.gguf ID,ID,...\n");
    return 2;
  }
  llama_token ids[512];
  int n = 0;
  for (char* p = strtok(argv[2], ","); p && n < 512; p = strtok(NULL, ",")) ids[n++] = atoi(p);
  llama_backend_init();
  struct llama_model_params mp = llama_model_default_params();
  struct llama_model* model = llama_model_load_from_file(argv[1], mp);
  if (!model) return 1;
  struct llama_context_params cp = llama_context_default_params();
  cp.n_ctx = 512;
  cp.n_batch = 512;
  cp.n_ubatch = 512;
  cp.n_threads = 1;
  cp.type_k = GGML_TYPE_F32;  // the cache in float32 (its default F16 rounds K and V)
  cp.type_v = GGML_TYPE_F32;
  cp.n_threads_batch = 1;
  struct llama_context* ctx = llama_init_from_model(model, cp);
  if (!ctx || llama_decode(ctx, llama_batch_get_one(ids, n)) != 0) return 1;
  const float* logits = llama_get_logits_ith(ctx, -1);
  const int nv = llama_vocab_n_tokens(llama_model_get_vocab(model));
  for (int i = 0; i < nv; ++i) printf("%.9g\n", logits[i]);
  llama_free(ctx);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
