// The teaching translator: loading the compiled-in weights, tokens → ids, the encoder and
// decoder passes (transformer.hpp's layers), greedy decoding.
#include "tfx/attention/attention.hpp"
#include "tfx/core/words.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/model/translator_domain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <sstream>
#include <string_view>

#include "tfx/core/i18n.hpp"
#include "tfx/core/error.hpp"
#include "tfx/text/unicode.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/positional/positional.hpp"

namespace tfx::embedded {
std::string_view teaching_model_weights();
std::string_view teaching_model_vocab();
std::string_view teaching_model_corpus();
}  // namespace tfx::embedded

namespace tfx {

namespace {

std::size_t count_layers(const TensorMap& m, const std::string& stack) {
  std::size_t n = 0;
  while (m.count(fmt::format("{}.layers.{}.self_attn.in_proj_weight", stack, n))) ++n;
  return n;
}

}  // namespace

std::size_t Translator::parameter_count() const {
  std::size_t n = 0;
  for (const auto& [name, t] : tensors) n += t.size();
  return n;
}

Translator load_translator(const TensorMap& tensors, Vocabulary vocab, std::size_t heads, const std::string& where) {
  Translator m;
  m.name = where;
  m.tensors = tensors;
  const auto emb = tensors.find("embedding.weight");
  if (emb == tensors.end() || emb->second.rank() != 2) throw Error(fmt::format(N_("{}: no embedding.weight (V, D) tensor"), where));
  const std::size_t V = emb->second.rows(), D = emb->second.cols();
  if (V != vocab.size())
    throw Error(fmt::format(N_("{}: embedding.weight has {} rows but the vocabulary {} tokens"), where, V, vocab.size()));
  m.embedding = emb->second;
  m.d_model = D;
  m.heads = heads;
  if (!heads_divide(heads, D)) throw Error(fmt::format(N_("{}: {} heads do not divide d_model = {}"), where, heads, D));
  const std::size_t enc_layers = count_layers(tensors, "encoder"), dec_layers = count_layers(tensors, "decoder");
  if (enc_layers == 0 || dec_layers == 0)
    throw Error(fmt::format(N_("{}: expected encoder.layers.0.* and decoder.layers.0.* tensors"), where));
  const LayerWidths w = layer_widths(tensors, "encoder.layers.0.", where);
  m.ffn = w.ffn;
  for (std::size_t i = 0; i < enc_layers; ++i)
    m.encoder.push_back(encoder_layer_params(tensors, fmt::format("encoder.layers.{}.", i), w, where));
  for (std::size_t i = 0; i < dec_layers; ++i)
    m.decoder.push_back(decoder_layer_params(tensors, fmt::format("decoder.layers.{}.", i), w, where));
  m.generator_weight = expect_tensor(tensors, "generator.weight", {V, D}, where);
  m.generator_bias = expect_tensor(tensors, "generator.bias", {V}, where);
  const char* specials[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
  for (std::size_t i = 0; i < 4; ++i)
    if (vocab.size() <= i || vocab.tokens[i] != specials[i])
      throw Error(fmt::format(N_("{}: the vocabulary must start with <pad> <bos> <eos> <unk>"), where));
  m.vocab = std::move(vocab);
  return m;
}

const Translator& teaching_translator() {
  static std::once_flag once;
  static Translator model;
  std::call_once(once, [] {
    const std::string where = N_("the built-in teaching translator");  // shown through tr_runtime
    TensorMetadata meta;
    TensorMap tensors = parse_safetensors(embedded::teaching_model_weights(), where, &meta);
    Vocabulary vocab = parse_vocab(embedded::teaching_model_vocab(), where + " vocabulary");
    vocab.name = where;
    const auto heads = metadata_heads(meta, where);
    model = load_translator(tensors, std::move(vocab), heads.value_or(4), where);
  });
  return model;
}

const std::vector<TranslationPair>& teaching_corpus() {
  static std::once_flag once;
  static std::vector<TranslationPair> pairs;
  std::call_once(once, [] {
    std::istringstream in{std::string(embedded::teaching_model_corpus())};
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      std::vector<std::string> f;
      std::size_t start = 0;
      for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) f.push_back(line.substr(start, tab - start));
      f.push_back(line.substr(start));
      if (f.size() != 4) continue;
      TranslationPair p{f[0], f[1], f[2], {}};
      for (const std::string& a : split_words(f[3])) p.alignment.push_back(a == "-" ? -1 : std::stoi(a));
      pairs.push_back(std::move(p));
    }
  });
  return pairs;
}

TokenIds translator_tokens(const Translator& m, const std::string& text, const std::string& flag) {
  TokenIds t;
  t.tokens = split_words(unicode::nfc_utf8(text));  // decomposed (NFD) Hangul is the same words
  if (t.tokens.empty()) throw usage_error(fmt::format(N_("{} is empty; expected a sentence such as \"나는 학생 이다\""), flag));
  std::vector<std::string> unknown;
  for (const std::string& w : t.tokens) {
    const auto id = m.vocab.find(w);
    if (!id || *id < 4) {
      if (std::find(unknown.begin(), unknown.end(), w) == unknown.end()) unknown.push_back(w);
      continue;
    }
    t.ids.push_back(*id);
  }
  if (!unknown.empty()) throw usage_error(unknown_words_message(m, t.tokens, unknown, flag), {"list_vocab"});
  return t;
}

EmbeddedTokens translator_embed(const Translator& m, const std::vector<std::size_t>& ids) {
  EmbeddedTokens e;
  const std::size_t T = ids.size(), D = m.d_model;
  e.embedding = Tensor({T, D});
  for (std::size_t t = 0; t < T; ++t) {
    const float* row = m.embedding.data() + ids[t] * D;
    std::copy(row, row + D, e.embedding.row(t).begin());
  }
  e.pe = sinusoidal_encoding(T, D);
  e.x = add(e.embedding, e.pe);
  return e;
}

EncoderPass translator_encode(const Translator& m, const std::vector<std::size_t>& source_ids) {
  EncoderPass p;
  p.input = translator_embed(m, source_ids);
  const Tensor* x = &p.input.x;
  for (const EncoderLayerParams& layer : m.encoder) {
    p.layers.push_back(encoder_layer(*x, layer, m.heads, false));
    x = &p.layers.back().ffn_block.output;
  }
  p.memory = *x;
  return p;
}

DecoderPass translator_decode(const Translator& m, const Tensor& memory, const std::vector<std::size_t>& target_ids) {
  DecoderPass p;
  p.input = translator_embed(m, target_ids);
  const Tensor* y = &p.input.x;
  for (const DecoderLayerParams& layer : m.decoder) {
    p.layers.push_back(decoder_layer(*y, memory, layer, m.heads, false));
    y = &p.layers.back().ffn_block.output;
  }
  p.logits = linear(*y, m.generator_weight, m.generator_bias);
  p.probabilities = softmax_rows(p.logits);
  return p;
}

Translation translate(const Translator& m, const std::string& text, std::size_t max_tokens, const std::string& flag) {
  Translation tr;
  tr.source = translator_tokens(m, text, flag);
  tr.encoder = translator_encode(m, tr.source.ids);
  std::vector<std::size_t> target{m.bos};
  tr.finished = false;
  // the position limit of the PE the model saw is not a limit here: sinusoidal PE extends
  for (std::size_t step = 0; step < max_tokens; ++step) {
    const DecoderPass pass = translator_decode(m, tr.encoder.memory, target);
    const std::size_t V = m.vocab.size(), last = target.size() - 1;
    const float* prob = pass.probabilities.data() + last * V;
    std::vector<std::size_t> order(V);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 4, order.end(), [&](std::size_t a, std::size_t b) {
      return prob[a] != prob[b] ? prob[a] > prob[b] : a < b;
    });
    TranslationStep s;
    s.token = m.vocab.tokens[order[0]];
    s.probability = prob[order[0]];
    for (std::size_t i = 1; i < 4; ++i) s.alternatives.emplace_back(m.vocab.tokens[order[i]], prob[order[i]]);
    tr.steps.push_back(std::move(s));
    if (order[0] == m.eos) {
      tr.finished = true;
      break;
    }
    target.push_back(order[0]);
    tr.output.push_back(m.vocab.tokens[order[0]]);
  }
  tr.decoder = translator_decode(m, tr.encoder.memory, target);
  return tr;
}

Tensor mean_cross_attention(const DecoderPass& pass, std::size_t layer) {
  const MultiHeadAttention& a = pass.layers.at(layer).cross_attention;
  const std::size_t T = a.heads.at(0).weights.rows(), S = a.heads.at(0).weights.cols();
  Tensor mean({T, S});
  for (const AttentionSteps& h : a.heads)
    for (std::size_t i = 0; i < T * S; ++i) mean.data()[i] += h.weights.data()[i] / static_cast<float>(a.heads.size());
  return mean;
}

}  // namespace tfx
