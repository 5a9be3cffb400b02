// Hugging Face checkpoint folders (tfx/model/checkpoint.hpp): config.json, safetensors files
// (memory-mapped while they are converted), tensor names without prefixes, every tensor the
// family lists checked for its shape and moved into the family's typed weights, and the forward
// pass's entry. The families themselves are in bert.cpp, gpt2.cpp, llama.cpp (table: families.cpp).
#include "tfx/model/checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/ops_backward.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/io/mapped_file.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/builtin_models.hpp"

namespace tfx {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

}  // namespace

Checkpoint load_checkpoint(const std::string& named) {
  const std::string dir = model_files_dir(named);  // a built-in name (teaching-gpt): its cached files
  const fs::path d(dir);
  std::error_code ec;
  const bool gguf = is_gguf_file(dir);  // a .gguf file (gguf_model.hpp) in a folder's place
  if (!gguf && !fs::is_directory(d, ec))
    throw Error(fmt::format(N_("{}: not a directory (expected a Hugging Face checkpoint folder: config.json, model.safetensors, "
                            "tokenizer files)"), dir));
  Checkpoint m;
  m.dir = dir;
  if (gguf) {
    GgufModel g = open_gguf_model(dir);
    m.config = std::move(g.config);
    m.mapped = std::move(g.weights);
  } else {
    const fs::path config = d / "config.json";
    if (!fs::exists(config, ec)) throw Error(fmt::format(N_("{}: no config.json (the checkpoint's configuration)"), dir));
    m.config = parse_model_config(read_text_input(config.string(), "config.json"), config.string());
    // 1. the weight files (model.safetensors, or the shards of the index), mapped: nothing is
    // converted or copied; the mapped bytes count against the memory budget before any is read
    m.mapped = MappedWeights::open(dir);
  }
  // 2. the family's tensors, each with its shape, as views (or float32 copies) in the family's typed weights
  const ModelConfig& c = m.config;
  // every block has tensors: more layers than tensors is a config.json that does not fit the file
  // (checked before a name is built for each of them)
  if (c.layers > m.mapped.tensor_count())
    bad(dir, fmt::format(N_("config.json says {} layers, but the weights hold only {} tensors"), c.layers, m.mapped.tensor_count()));
  std::vector<TensorSlot> slots = c.family->tensor_slots(m, m.mapped);
  for (TensorSlot& s : slots) {
    const std::vector<std::size_t> has = m.mapped.shape(s.name);
    if (has.empty()) {
      if (s.optional) continue;
      bad(dir, fmt::format(N_("the weights have no tensor '{}' (a {} checkpoint needs it)"), s.name, c.model_type));
    }
    std::vector<std::size_t> want = s.shape;
    const bool any_rows = want.size() == 2 && want[0] == 0;  // e.g. token types: any number of rows from 1
    if (any_rows && has.size() == 2 && has[0] > 0) want[0] = has[0];  // (0 rows stays a mismatch)
    if (has != want || (any_rows && want[0] == 0))
      bad(dir, fmt::format(N_("tensor '{}' is {}, expected {} (from config.json)"), s.name, shape_string(has),
                           any_rows ? "[rows ≥ 1, " + std::to_string(want[1]) + "]" : shape_string(want)));
    const StoredMatrix view = *m.mapped.find(s.name);
    if (s.stored) *s.stored = view;
    else *s.slot = widen(view).reshaped(s.held.empty() ? has : s.held);
    if (!s.optional) m.parameters += view.size();
    if (s.layer == 0) m.block_parameters += view.size();
  }
  m.head = c.family->output_head(m);
  m.has_lm_head = m.head != OutputHead::none;
  return m;
}

namespace {

// The first non-finite value of `t` as (row, column) of its last two axes, or nullopt.
std::optional<std::pair<std::size_t, std::size_t>> first_non_finite(const Tensor& t) {
  for (std::size_t i = 0; i < t.size(); ++i)
    if (!std::isfinite(t[i])) return std::pair<std::size_t, std::size_t>{i / t.cols(), i % t.cols()};
  return std::nullopt;
}

[[noreturn]] void throw_forward_overflow(const Checkpoint& m, const std::string& step, std::size_t token) {
  // the weights are used as stored, unchecked: a NaN or infinite weight is the likely cause, named here
  const std::string culprit = m.mapped.first_non_finite();
  throw Error(fmt::format(N_("{}: the forward pass overflowed: {} has a non-finite value (inf or NaN) at token {} ({})"), m.dir, step, token,
                          culprit.empty() ? "weights too large for float32?" : culprit + "; weights must be finite"));
}

// Weights that overflow float32 give inf/NaN activations: name the first layer and step that made one.
void check_finite(const ForwardPass& f, const Checkpoint& m) {
  for (std::size_t l = 0; l < f.hidden.size(); ++l) {
    // attentions[l − 1] are computed before hidden[l]: report the earlier step first
    if (l >= 1 && l - 1 < f.attentions.size())
      if (const auto at = first_non_finite(f.attentions[l - 1]))
        throw_forward_overflow(m, fmt::format(N_("the attention weights of layer {}"), l - 1), at->first % f.attentions[l - 1].dim(1));
    if (const auto at = first_non_finite(f.hidden[l]))
      throw_forward_overflow(m, l == 0 ? std::string("the embedding output") : fmt::format(N_("the output of layer {}"), l - 1), at->first);
  }
  if (const auto at = first_non_finite(f.logits)) throw_forward_overflow(m, N_("the logits"), at->first);
}

}  // namespace

void check_finite_rows(const Checkpoint& m, const Tensor& t, const std::string& step, std::size_t first_token) {
  if (const auto at = first_non_finite(t)) throw_forward_overflow(m, step, first_token + at->first);
}

namespace {

// The microscope's interventions against the model: layers, heads, positions (absolute: the
// cache's n … n+T−1) and vector lengths.
void check_interventions(const Checkpoint& m, std::size_t first, std::size_t T, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  for (const HeadAblation& a : o.ablate) {
    if (a.layer >= c.layers) throw usage_error(fmt::format("head ablation: layer {} is past the model's {} layers (0 … {})", a.layer, c.layers, c.layers - 1));
    if (a.head >= c.heads) throw usage_error(fmt::format("head ablation: head {} is past the model's {} heads (0 … {})", a.head, c.heads, c.heads - 1));
    if (a.mode == HeadAblation::Mode::value && a.value.size() != c.head_dim)
      throw usage_error(fmt::format("head ablation: {} values given for a head of width {}", a.value.size(), c.head_dim));
  }
  for (const ResidualPatch& p : o.patch) {
    if (p.layer > c.layers) throw usage_error(fmt::format("residual patch: layer {} is past the model's {} layers (0 … {})", p.layer, c.layers, c.layers));
    if (p.position < first || p.position >= first + T)
      throw usage_error(fmt::format("residual patch: position {} is not one of this pass's positions ({} … {})", p.position, first, first + T - 1));
    if (p.value.size() != c.d_model) throw usage_error(fmt::format("residual patch: {} values given for a residual stream of width {}", p.value.size(), c.d_model));
  }
  if (o.resume) {
    if (o.cache) throw Error("a resumed pass runs a whole sequence, without a KV cache");
    if (o.resume->layer > c.layers) throw Error(fmt::format("resume: block {} is past the model's {} layers", o.resume->layer, c.layers));
    if (o.resume->residual.rank() != 2 || o.resume->residual.rows() != T || o.resume->residual.cols() != c.d_model)
      throw Error(fmt::format("resume: the residual stream {} is not ({}, {})", o.resume->residual.shape_str(), T, c.d_model));
  }
}

}  // namespace

// The forward pass of the checkpoint's family, after the checks every family shares.
ForwardPass model_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, bool want_logits) {
  ForwardOptions o;
  o.logits = want_logits ? LogitRows::all : LogitRows::none;
  return model_forward(m, ids, o);
}

ForwardPass model_forward(const Checkpoint& m, const std::vector<std::size_t>& ids, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  if (c.family->image()) throw usage_error(fmt::format(N_("{}: a {} checkpoint reads a picture, not text (give image FILE)"), m.dir, c.model_type), {"image"});
  if (ids.empty()) throw usage_error(N_("no tokens to run the model on"));
  const std::size_t rows = m.token_embedding().rows;
  for (std::size_t id : ids)
    if (id >= rows)
      throw Error(fmt::format(N_("{}: token id {} is past the embedding's {} rows (the tokenizer does not match the weights)"), m.dir, id, rows));
  const std::size_t first = o.cache ? o.cache->length : 0;
  if (o.cache) {
    if (!c.decoder()) throw usage_error(fmt::format("{} is an encoder ({}): it has no KV cache", m.dir, c.model_type));
    if (o.cache->layers != c.layers || o.cache->kv_heads != c.kv_heads || o.cache->head_dim != c.head_dim)
      throw Error(fmt::format("{}: the KV cache was made for another model", m.dir));
    if (first + ids.size() > o.cache->capacity)
      throw Error(fmt::format("the KV cache has room for {} positions; {} cached and {} more given", o.cache->capacity, first, ids.size()));
  }
  if (const auto limit = c.position_limit(); limit && first + ids.size() > *limit)
    throw usage_error(fmt::format(N_("{} tokens are more than the model's {} positions (max_position_embeddings); shorten the text"),
                                  first + ids.size(), *limit));
  check_interventions(m, first, ids.size(), o);
  // the model's footprint: the mapped weights, and what the pass keeps (every layer's (heads, T, S)
  // weights, or one layer's while it is computed; the hidden states; the logits)
  const double T = static_cast<double>(ids.size()), S = static_cast<double>(first + ids.size());
  const double logit_rows = o.logits == LogitRows::none ? 0.0 : o.logits == LogitRows::last ? 1.0 : T;
  check_memory(static_cast<double>(m.file_bytes()) +
                   4.0 * (static_cast<double>((o.keep_attentions ? c.layers : 1) * c.heads) * T * S +
                          static_cast<double>(o.keep_hidden ? c.layers + 1 : 2) * T * static_cast<double>(c.d_model) +
                          logit_rows * static_cast<double>(c.vocab)),
               fmt::format("the mapped weights and the forward pass of {} layers × {} heads over {} tokens", c.layers, c.heads, ids.size()));
  ForwardPass f = c.family->forward(m, ids, o);
  check_finite(f, m);
  return f;
}

ForwardPass model_forward_image(const Checkpoint& m, const Tensor& pixels, bool want_logits) {
  ForwardOptions o;
  o.logits = want_logits ? LogitRows::all : LogitRows::none;
  return model_forward_image(m, pixels, o);
}

ForwardPass model_forward_image(const Checkpoint& m, const Tensor& pixels, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  if (!c.family->image()) throw usage_error(fmt::format(N_("{}: a {} checkpoint reads text, not a picture (drop image)"), m.dir, c.model_type), {"image"});
  if (o.cache) throw usage_error(fmt::format("{} is an encoder ({}): it has no KV cache", m.dir, c.model_type));
  check_interventions(m, 0, c.max_positions, o);
  const double T = static_cast<double>(c.max_positions);
  check_memory(static_cast<double>(m.file_bytes()) +
                   4.0 * (static_cast<double>(c.layers * c.heads) * T * T + static_cast<double>(c.layers + 1) * T * static_cast<double>(c.d_model)),
               fmt::format("the mapped weights and the forward pass of {} layers × {} heads over {} patches", c.layers, c.heads,
                           c.max_positions - 1));
  ForwardPass f = c.family->forward_image(m, pixels, o);
  check_finite(f, m);
  return f;
}

// p_i = e^(x_i − max) / Σ_j e^(x_j − max) (the op set's softmax, in double)
std::vector<TokenProbability> top_probabilities(std::span<const float> logits, std::size_t k) {
  const std::vector<double> p = softmax_at_temperature(logits, 1.0);
  std::vector<TokenProbability> out;
  for (const auto& [id, v] : top_k(logits, k)) out.push_back({id, p[id], v});
  return out;
}

}  // namespace tfx
