// Private to `tfx attention`, whose files are: attention.cpp (flags and the run: options →
// library calls), attention_inputs.cpp (--sentence/--cross, --x or --q/--k/--v into matrices),
// attention_present.cpp (the Result, the heatmaps, the default file name), attention_sentence.cpp
// (sentence → X) and attention_variance.cpp (`tfx attention variance`).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/flags/attention_sentence.hpp"
#include "cli/common.hpp"
#include "tfx/attention/attention.hpp"

namespace tfx::cli {

// The matrices --show can name, in the order they are printed.
enum Step : unsigned {
  kX = 1u << 0,
  kQ = 1u << 1,
  kK = 1u << 2,
  kV = 1u << 3,
  kScores = 1u << 4,
  kScaled = 1u << 5,
  kMasked = 1u << 6,
  kWeights = 1u << 7,
  kOutput = 1u << 8,
  kW = 1u << 9,  // the projections W_Q, W_K, W_V (and W_O with several heads)
};
// all: every matrix the run has (X only when there is one, the W's only when X was projected)
constexpr unsigned kAllSteps = kX | kW | kQ | kK | kV | kScores | kScaled | kMasked | kWeights | kOutput;
constexpr unsigned kDefaultSteps = kWeights | kOutput;

struct AttentionCliOptions {
  std::string sentence, cross;
  std::string x_file, q_file, k_file, v_file;
  std::optional<std::int64_t> dk, dv;
  std::int64_t heads = 1;
  std::uint64_t seed = 42;
  bool identity = false, no_pe = false, causal = false, no_scale = false;
  std::int64_t pad = 0;
  double temperature = 1.0;
  std::string show;
  std::string weights;  // --weights: nn.MultiheadAttention state_dict (safetensors or .npy directory)
  std::string html;     // --html FILE: the head view and model view page
  bool rope = false;    // --rope: rotate Q and K by position (RoPE) before the scores
  double rope_base = 10000.0;
  bool random = false;  // --random: seeded weights even for a sentence the teaching translator knows
  bool no_pe_given = false, identity_given = false, sentence_given = false, cross_given = false, heads_given = false,
       seed_given = false;
  std::shared_ptr<SentenceSource> source;
  OutputFlags out;
  FigureFlags fig;
};

// The --show list as Step bits (empty: weights and output).
unsigned parse_show(const std::string& text);

// The matrices attention runs on, with their labels.
struct AttentionInputs {
  std::string mode;  // "sentence", "x", "qkv"
  std::vector<std::string> query_labels, key_labels;
  Tensor x_q, x_kv;  // sentence / x modes
  Tensor q, k, v;    // qkv mode
  bool cross = false;
  std::string description;  // the first line of the table
  // The teaching translator's layer-1 attention whose trained weights project X:
  // "encoder.layers.0.self_attn." (a Korean sentence), "decoder.layers.0.self_attn." (an English
  // one; causal, as trained) or "decoder.layers.0.multihead_attn." (--cross); "" = not trained.
  std::string trained_prefix;
  std::string seeded_reason;  // why a sentence did not run on the trained translator ("" = it did, or not a sentence)
  // sentence mode: the vocabulary the tokens were looked up in (the translator's, or the table's
  // words) and its size; on the trained translator also the ids (= embedding rows) of the queries' tokens
  std::string vocab;
  std::size_t vocab_size = 0;
  std::vector<std::size_t> ids;
};

// The input mode the flags select, loaded (files read, the sentence embedded).
AttentionInputs load_attention_inputs(const AttentionCliOptions& o);

// What the run computed, for the presentation.
struct AttentionRun {
  MultiHeadAttention mh;
  AttentionOptions options;
  std::string projection;  // how Q, K, V were formed, one line
  std::size_t d_model = 0;
  unsigned steps = 0;      // Step bits of --show
  std::string causal_note;  // set when the run turned the causal mask on itself (the trained decoder)
  Tensor average_weights;  // --weights: the head-averaged weights (T, S), as nn.MultiheadAttention returns them
  // the projections as X·W multiplies them: W_Q (D, H·d_k), W_K (E, H·d_k), W_V (E, H·d_v), W_O
  // (H·d_v, D) or empty; none for --q/--k/--v
  Tensor wq, wk, wv, wo;
  Tensor q_plain, k_plain;  // --rope: Q and K before the rotation (mh.q, mh.k are after)
};

// The table (each asked-for matrix with a line saying what it is), the heatmaps (one per head)
// and the default figure name; written as the output flags say.
void present_attention(const AttentionCliOptions& o, AttentionInputs& in, const AttentionRun& run);

void register_attention_variance(CLI::App* attention);
void register_attention_masks(CLI::App* attention);

}  // namespace tfx::cli
