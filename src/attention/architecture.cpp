// The Transformer's blocks with their shapes for one model and one sentence (architecture.hpp).
#include "tfx/attention/architecture.hpp"

#include <fmt/format.h>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

std::string arch_shape(std::size_t rows, std::size_t cols) { return fmt::format("({}, {})", rows, cols); }

// One layer's sublayers in order: post-LN x → sublayer → Add & Norm (the paper), pre-LN
// x → Norm → sublayer → Add (GPT-2, Llama).
void arch_sublayer(std::vector<ArchBlock>& out, const ArchitectureSpec& s, const std::string& stack, std::size_t layers,
                   const std::string& kind, const std::string& name, const std::string& in, const std::string& detail, std::size_t n) {
  const std::string x = arch_shape(n, s.d_model);
  if (s.pre_norm) out.push_back({stack, "norm", s.norm, x, x, trf("over D = {}", s.d_model), layers});
  out.push_back({stack, kind, name, in, x, detail, layers});
  if (s.post_norm_too) out.push_back({stack, "norm", s.norm, x, x, tr("on the sublayer's output, before the add"), layers});
  if (s.pre_norm)
    out.push_back({stack, "add", tr("Add (residual)"), x, x, tr("x + sublayer(x)"), layers});
  else
    out.push_back({stack, "add_norm", tr("Add & Norm"), x, x, trf("{}(x + sublayer(x))", s.norm), layers});
}

void arch_layer(std::vector<ArchBlock>& out, const ArchitectureSpec& s, const std::string& stack, std::size_t layers, std::size_t n,
                bool masked, bool cross) {
  const std::size_t dk = s.head_dim ? s.head_dim : s.d_model / s.heads, kv = s.kv_heads == 0 ? s.heads : s.kv_heads;
  const std::string x = arch_shape(n, s.d_model);
  std::string heads = fmt::format("h = {}, d_k = {}", s.heads, dk);
  if (kv != s.heads) heads += trf(", {} KV heads", kv);
  arch_sublayer(out, s, stack, layers, masked ? "masked_attention" : "attention", masked ? tr("Masked Multi-Head Attention") : tr("Multi-Head Attention"), x,
                heads + (masked ? trf("; causal mask ({0}, {0})", n) : trf("; weights ({0}, {1}, {1})", s.heads, n)), n);
  for (ArchBlock& b : out)
    if (b.kind == "attention" || b.kind == "masked_attention") b.note = s.attention_note;
  if (cross)
    arch_sublayer(out, s, stack, layers, "cross_attention", tr("Multi-Head Attention (cross)"),
                  fmt::format("Q {}, K V {}", x, arch_shape(s.source_len, s.d_model)),
                  heads + trf("; weights ({}, {}, {})", s.heads, n, s.source_len), n);
  arch_sublayer(out, s, stack, layers, "ffn", tr("Feed Forward"), x,
                fmt::format("{} → {} ({}) → {}", s.d_model, s.ffn, s.activation, s.d_model), n);
}

void arch_embed(std::vector<ArchBlock>& out, const ArchitectureSpec& s, const std::string& stack, const std::string& name, std::size_t n) {
  const std::string x = arch_shape(n, s.d_model);
  out.push_back({stack, "embedding", name, fmt::format("({})", n), x,
                 s.embed_scaled ? trf("table ({}, {}), × √{}", s.vocab, s.d_model, s.d_model) : trf("table ({}, {})", s.vocab, s.d_model)});
  if (s.positions == "rope")
    out.push_back({stack, "positions", tr("RoPE (in every attention)"), x, x, tr("rotates q and k; nothing added")});
  else
    out.push_back({stack, "positions", tr("+ Positional Encoding"), x, x, s.positions == "learned" ? tr("learned table, added") : tr("sin/cos, added")});
}

}  // namespace

std::vector<ArchBlock> architecture_blocks(const ArchitectureSpec& s) {
  if (s.d_model == 0 || s.heads == 0) throw Error(N_("architecture: d_model and heads must be positive"));
  if (s.head_dim == 0 && s.d_model % s.heads != 0)
    throw Error(fmt::format(N_("architecture: heads = {} does not divide d_model = {}"), s.heads, s.d_model));
  if (s.kv_heads != 0 && s.heads % s.kv_heads != 0)
    throw Error(fmt::format(N_("architecture: kv_heads = {} does not divide heads = {}"), s.kv_heads, s.heads));
  if (s.encoder_layers == 0 && s.decoder_layers == 0) throw Error(N_("architecture: no encoder and no decoder layers"));
  if (s.cross_attention && (s.encoder_layers == 0 || s.decoder_layers == 0))
    throw Error(N_("architecture: cross-attention needs both an encoder and a decoder"));
  const bool seq2seq = s.encoder_layers > 0 && s.decoder_layers > 0;
  // the one sequence of an encoder-only or decoder-only model is S
  const std::size_t S = s.source_len, T = seq2seq ? s.target_len : s.source_len;
  if (S == 0 || T == 0) throw Error(N_("architecture: the sentence has no tokens"));
  std::vector<ArchBlock> out;
  if (s.encoder_layers > 0) {
    arch_embed(out, s, "input", tr("Input Embedding"), S);
    arch_layer(out, s, "encoder", s.encoder_layers, S, false, false);
  }
  if (s.decoder_layers > 0) {
    arch_embed(out, s, seq2seq ? "output" : "input", seq2seq ? tr("Output Embedding") : tr("Input Embedding"), T);
    arch_layer(out, s, "decoder", s.decoder_layers, T, true, s.cross_attention);
  }
  const std::size_t n = s.decoder_layers > 0 ? T : S;
  if (s.pre_norm) out.push_back({"head", "norm", trf("Final {}", s.norm), arch_shape(n, s.d_model), arch_shape(n, s.d_model), ""});
  if (s.output_head) {
    out.push_back({"head", "linear", tr("Linear"), arch_shape(n, s.d_model), arch_shape(n, s.vocab), trf("D → V = {}", s.vocab)});
    out.push_back({"head", "softmax", tr("Softmax"), arch_shape(n, s.vocab), arch_shape(n, s.vocab), tr("each row sums to 1")});
  }
  return out;
}

}  // namespace tfx
