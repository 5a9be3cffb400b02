// The teaching translator: loading the compiled-in weights, tokens → ids, the encoder and
// decoder passes (transformer.hpp's layers), greedy decoding.
#include "tfx/attention/attention.hpp"
#include "tfx/core/words.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/model/translator_domain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <charconv>
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
#include "tfx/text/tokenizer.hpp"
#include "tfx/io/text_file.hpp"

namespace tfx::embedded {
std::string_view teaching_model_weights();
std::string_view teaching_model_vocab();
std::string_view teaching_model_corpus();
std::string_view teaching_model_corpus_en_ko();
std::string_view teaching_model_corpus_lengths();
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

Translator translator_weights(const TensorMap& tensors, std::size_t heads, const TranslatorProperties& properties,
                              const std::string& where) {
  Translator m;
  m.name = where;
  m.properties = properties;
  const auto emb = tensors.find("embedding.weight");
  if (emb == tensors.end() || emb->second.rank() != 2) throw Error(fmt::format(N_("{}: no embedding.weight (V, D) tensor"), where));
  const std::size_t V = emb->second.rows(), D = emb->second.cols();
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
  if (properties.pe == PositionalEncoding::learned) {
    const auto pos = tensors.find("position_embedding.weight");
    if (pos == tensors.end() || pos->second.rank() != 2 || pos->second.cols() != D || pos->second.rows() == 0)
      throw Error(fmt::format(N_("{}: a model with learned PE needs a position_embedding.weight (max_len, {}) tensor"), where, D));
    m.position_embedding = pos->second;
  }
  if (properties.pe == PositionalEncoding::rope && (D / heads) % 2 != 0)
    throw Error(fmt::format(N_("{}: RoPE rotates pairs of a head's {} columns; expected an even head width (d_model / heads)"), where,
                            D / heads));
  return m;
}

Translator load_translator(const TensorMap& tensors, Vocabulary vocab, std::size_t heads, const std::string& where,
                           const TranslatorProperties& properties) {
  Translator m = translator_weights(tensors, heads, properties, where);
  m.tensors = tensors;
  const std::size_t V = m.embedding.rows();
  if (V != vocab.size())
    throw Error(fmt::format("{}: embedding.weight has {} rows but the vocabulary {} tokens", where, V, vocab.size()));
  const char* specials[] = {"<pad>", "<bos>", "<eos>", "<unk>"};
  for (std::size_t i = 0; i < 4; ++i)
    if (vocab.size() <= i || vocab.tokens[i] != specials[i])
      throw Error(fmt::format(N_("{}: the vocabulary must start with <pad> <bos> <eos> <unk>"), where));
  m.vocab = std::move(vocab);
  return m;
}

const char* positional_encoding_name(PositionalEncoding pe) {
  return choice_name<PositionalEncoding>(kPositionalEncodingChoices, pe);
}

PositionalEncoding parse_positional_encoding(const std::string& name, const std::string& flag) {
  return parse_choice<PositionalEncoding>(kPositionalEncodingChoices, name, flag.c_str());
}

std::string TranslatorProperties::layout() const {
  const char* pe_part = pe == PositionalEncoding::learned ? ", learned PE"
                        : pe == PositionalEncoding::rope  ? ", RoPE"
                        : pe == PositionalEncoding::none  ? ", no PE"
                                                          : "";
  return std::string(pre_ln ? "pre-LN" : "post-LN") + pe_part + (scale_scores ? "" : ", no 1/√d_k");
}

std::string TranslatorProperties::flags() const {
  std::string f;
  if (pre_ln) f += "--pre-ln";
  if (pe == PositionalEncoding::none) f += std::string(f.empty() ? "" : " ") + "--no-pe";
  if (pe == PositionalEncoding::learned || pe == PositionalEncoding::rope)
    f += std::string(f.empty() ? "" : " ") + "--pe " + positional_encoding_name(pe);
  if (!scale_scores) f += std::string(f.empty() ? "" : " ") + "--no-scale";
  return f;
}

std::string translator_vocab_path(const std::string& model) {
  const std::string tail = ".safetensors";
  if (model.size() > tail.size() && model.compare(model.size() - tail.size(), tail.size(), tail) == 0)
    return model.substr(0, model.size() - tail.size()) + ".vocab.txt";
  return model + ".vocab.txt";
}

std::string pairs_tsv(const std::vector<TranslationPair>& pairs) {
  std::string s = "split\tkorean\tenglish\talignment\n";
  for (const TranslationPair& p : pairs) {
    std::string align;
    for (int a : p.alignment) align += (align.empty() ? "" : " ") + (a < 0 ? std::string("-") : std::to_string(a));
    s += p.split + "\t" + p.korean + "\t" + p.english + "\t" + align + "\n";
  }
  return s;
}

std::vector<TranslationPair> parse_pairs_tsv(std::string_view text) {
  std::vector<TranslationPair> pairs;
  std::istringstream in{std::string(text)};
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
    for (const std::string& a : split_words(f[3])) {
      if (a == "-") {
        p.alignment.push_back(-1);
        continue;
      }
      int v = -1;
      const auto [end, ec] = std::from_chars(a.data(), a.data() + a.size(), v);
      p.alignment.push_back(ec == std::errc() && end == a.data() + a.size() ? v : -1);
    }
    pairs.push_back(std::move(p));
  }
  return pairs;
}

TensorMetadata translator_metadata(std::size_t d_model, std::size_t heads, std::size_t layers, std::size_t ffn,
                                   const TranslatorProperties& properties, const std::vector<TranslationPair>& pairs,
                                   bool builtin_corpus) {
  return {{"format", "pt"},
          {"module", "tfx teaching translator (tfx train)"},
          {"d_model", std::to_string(d_model)},
          {"nhead", std::to_string(heads)},
          {"layers", std::to_string(layers)},
          {"dim_feedforward", std::to_string(ffn)},
          {"norm_first", properties.pre_ln ? "true" : "false"},
          {"positional_encoding", positional_encoding_name(properties.pe)},
          {"scale_scores", properties.scale_scores ? "true" : "false"},
          {"corpus", builtin_corpus ? "built-in" : "pairs"},
          {"pairs", pairs_tsv(pairs)}};
}

std::string vocab_fingerprint(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

Translator read_translator_file(const std::string& path) {
  TensorMetadata meta;
  const TensorMap tensors = read_safetensors(path, &meta);
  const auto value = [&](const char* key) {
    const auto it = meta.find(key);
    return it == meta.end() ? std::string() : it->second;
  };
  const auto one_of = [&](const char* key, const char* yes, const char* no) {
    const std::string v = value(key);
    if (!v.empty() && v != yes && v != no)
      throw Error(fmt::format("--model {}: metadata {} is '{}', expected {} or {}", path, key, v, yes, no));
    return v == yes;
  };
  TranslatorProperties props;
  props.pre_ln = one_of("norm_first", "true", "false");
  if (const std::string pe = value("positional_encoding"); !pe.empty()) {
    bool known = false;
    for (const auto& c : kPositionalEncodingChoices)
      if (pe == c.name) {
        props.pe = c.value;
        known = true;
      }
    if (!known)
      throw Error(fmt::format("--model {}: metadata positional_encoding is '{}', expected {}", path, pe,
                              choice_list<PositionalEncoding>(kPositionalEncodingChoices)));
  }
  props.scale_scores = !one_of("scale_scores", "false", "true");
  // the vocabulary, read once: its fingerprint against the one the weights were saved with
  const std::string vocab_path = translator_vocab_path(path);
  std::error_code ec;
  if (!std::filesystem::exists(vocab_path, ec) || std::filesystem::is_directory(vocab_path, ec))
    (void)read_vocab(vocab_path);  // says what is wrong with it
  const std::string vocab_bytes = read_text_input(vocab_path, N_("vocabulary file"));
  if (const auto it = meta.find(kVocabFingerprintKey); it != meta.end() && vocab_fingerprint(vocab_bytes) != it->second)
    throw Error(fmt::format("--model {}: its vocabulary {} is not the one saved with these weights (the two files come "
                            "from different saves: an interrupted or mixed copy?); write both again with tfx train -o {}",
                            path, vocab_path, path));
  Vocabulary vocab = parse_vocab(vocab_bytes, vocab_path);
  vocab.name = path;
  const auto heads = metadata_heads(meta, path);
  if (!heads) throw Error(fmt::format("--model {}: no nhead in the file's metadata (expected a model written by tfx train)", path));
  Translator m = load_translator(tensors, std::move(vocab), *heads, path, props);
  if (meta.count("pairs")) {
    m.pairs = parse_pairs_tsv(value("pairs"));
    m.builtin_corpus = value("corpus") == "built-in";
  } else {
    // written before models carried their pairs: checked against the built-in corpus, as then
    m.pairs = teaching_corpus();
  }
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
    model.pairs = teaching_corpus();
  });
  return model;
}

const std::vector<TranslationPair>& teaching_corpus() {
  static std::once_flag once;
  static std::vector<TranslationPair> pairs;
  std::call_once(once, [] { pairs = parse_pairs_tsv(embedded::teaching_model_corpus()); });
  return pairs;
}

const std::vector<TranslationPair>& teaching_corpus_en_ko() {
  static std::once_flag once;
  static std::vector<TranslationPair> pairs;
  std::call_once(once, [] { pairs = parse_pairs_tsv(embedded::teaching_model_corpus_en_ko()); });
  return pairs;
}

const std::vector<TranslationPair>& teaching_corpus_lengths() {
  static std::once_flag once;
  static std::vector<TranslationPair> pairs;
  std::call_once(once, [] { pairs = parse_pairs_tsv(embedded::teaching_model_corpus_lengths()); });
  return pairs;
}

std::string translator_example_sentence(const Translator& m) {
  for (const TranslationPair& p : m.pairs)
    if (p.split == "train") return p.korean;
  return m.pairs.empty() ? std::string("나는 학생 이다") : m.pairs.front().korean;
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
  return translator_embed_batch(m, ids, 1);
}

EmbeddedTokens translator_embed_batch(const Translator& m, const std::vector<std::size_t>& ids, std::size_t batch) {
  EmbeddedTokens e;
  const std::size_t N = ids.size(), D = m.d_model, T = batch ? N / batch : 0;
  if (batch == 0 || T * batch != N) throw Error(fmt::format("translator: {} ids are not {} sequences of one length", N, batch));
  e.embedding = embedding_rows(m.embedding, ids);
  e.pe = Tensor({N, D});
  if (m.properties.pe == PositionalEncoding::sinusoidal || m.properties.pe == PositionalEncoding::learned) {
    // PE restarts at position 0 in every sequence: the sin/cos table, or the learned table's rows 0 … T−1
    Tensor pe;
    if (m.properties.pe == PositionalEncoding::sinusoidal) {
      pe = sinusoidal_encoding(T, D);
    } else {
      if (T > m.position_embedding.rows())
        throw Error(fmt::format(N_("{}: a sequence of {} tokens is longer than the model's learned positions ({})"), m.name, T,
                                m.position_embedding.rows()));
      std::vector<std::size_t> positions(T);
      std::iota(positions.begin(), positions.end(), std::size_t{0});
      pe = embedding_rows(m.position_embedding, positions);
    }
    for (std::size_t b = 0; b < batch; ++b) std::copy(pe.values().begin(), pe.values().end(), e.pe.data() + b * T * D);
  }
  e.x = add(e.embedding, e.pe);
  return e;
}

namespace {

// The model's layer properties with the caller's keep_steps and threads.
LayerOptions translator_layer_options(const Translator& m, const LayerOptions& run) {
  LayerOptions o = run;
  o.norm_first = m.properties.pre_ln;
  o.scale_scores = m.properties.scale_scores;
  o.rope = m.properties.pe == PositionalEncoding::rope;
  return o;
}

}  // namespace

EncoderPass translator_encode_batch(const Translator& m, const std::vector<std::size_t>& ids, const RowBatch& sources,
                                    const LayerOptions& run) {
  EncoderPass p;
  p.input = translator_embed_batch(m, ids, sources.count);
  const LayerOptions o = translator_layer_options(m, run);
  const Tensor* x = &p.input.x;
  for (const EncoderLayerParams& layer : m.encoder) {
    p.layers.push_back(encoder_layer(*x, layer, m.heads, o, sources));
    x = &p.layers.back().ffn_block.output;
  }
  p.memory = *x;
  return p;
}

EncoderPass translator_encode(const Translator& m, const std::vector<std::size_t>& source_ids) {
  return translator_encode_batch(m, source_ids, RowBatch{}, LayerOptions{});
}

DecoderPass translator_decode_batch(const Translator& m, const Tensor& memory, const RowBatch& sources,
                                    const std::vector<std::size_t>& ids, const RowBatch& targets, const LayerOptions& run,
                                    bool probabilities) {
  DecoderPass p;
  p.input = translator_embed_batch(m, ids, targets.count);
  const LayerOptions o = translator_layer_options(m, run);
  const Tensor* y = &p.input.x;
  for (const DecoderLayerParams& layer : m.decoder) {
    p.layers.push_back(decoder_layer(*y, memory, layer, m.heads, o, targets, sources));
    y = &p.layers.back().ffn_block.output;
  }
  p.logits = linear(*y, m.generator_weight, m.generator_bias, o.threads);
  if (probabilities) p.probabilities = softmax_rows(p.logits);
  return p;
}

DecoderPass translator_decode(const Translator& m, const Tensor& memory, const std::vector<std::size_t>& target_ids) {
  return translator_decode_batch(m, memory, RowBatch{}, target_ids, RowBatch{}, LayerOptions{}, true);
}

Translation translate(const Translator& m, const std::string& text, std::size_t max_tokens, const std::string& flag) {
  Translation tr;
  tr.source = translator_tokens(m, text, flag);
  tr.encoder = translator_encode(m, tr.source.ids);
  std::vector<std::size_t> target{m.bos};
  tr.finished = false;
  // the position limit of the PE the model saw is not a limit here: sinusoidal PE and RoPE extend
  // (a learned table ends at its rows: translator_embed_batch says so)
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
