#include "tfx/model/generate_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/model/attention_figures.hpp"
#include "tfx/model/attention_views.hpp"
#include "tfx/model/family.hpp"
#include "tfx/model/builtin_models.hpp"
#include "tfx/model/sampling.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

std::vector<std::size_t> generation_config_ids(const std::string& dir, const char* key) {
  std::ifstream in(std::filesystem::path(model_files_dir(dir)) / "config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  std::vector<std::size_t> out;
  if (j.is_discarded() || !j.is_object() || !j.contains(key) || j[key].is_null()) return out;
  // a token id or a list of them (null: none, as a trained GPT-2's config writes); anything else
  // would make --stop never fire, silently
  const nlohmann::json& v = j[key];
  const auto bad = [&] {
    return Error(fmt::format(N_("{}/config.json: {} is {}; expected a token id or a list of token ids"), model_files_dir(dir), key, v.dump()));
  };
  if (v.is_number_unsigned()) out.push_back(v.get<std::size_t>());
  else if (!v.is_array()) throw bad();
  else
    for (const auto& x : v) {
      if (!x.is_number_unsigned()) throw bad();
      out.push_back(x.get<std::size_t>());
    }
  return out;
}

std::vector<std::size_t> generation_eos_ids(const std::string& dir, const HfTokenizer& tok) {
  std::vector<std::size_t> ids = generation_config_ids(dir, "eos_token_id");
  if (!ids.empty()) return ids;
  for (const char* s : {"<|endoftext|>", "</s>", "<|end_of_text|>", "<|im_end|>", "<|eot_id|>"})
    if (const auto id = tok.token_to_id(s)) ids.push_back(*id);
  return ids;
}

std::optional<std::size_t> generation_bos_id(const std::string& dir, const HfTokenizer& tok) {
  const std::vector<std::size_t> ids = generation_config_ids(dir, "bos_token_id");
  if (!ids.empty()) return ids.front();
  for (const char* s : {"<s>", "<|begin_of_text|>", "<|endoftext|>"})
    if (const auto id = tok.token_to_id(s)) return *id;
  return std::nullopt;
}

std::string valid_text(const std::string& bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t len = unicode::utf8_decode(bytes, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(bytes, i, len);
      i += len;
    }
  }
  return out;
}

std::size_t complete_utf8_prefix(const std::string& s) {
  std::size_t i = s.size(), back = 0;
  while (i > 0 && back < 4 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i, ++back;
  if (i == 0) return s.size();
  const auto lead = static_cast<unsigned char>(s[i - 1]);
  const std::size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return need > back + 1 ? i - 1 : s.size();
}

Figure generation_steps_figure(const Generation& g, const HfTokenizer& tok, const std::string& prompt_text) {
  Figure fig;
  // each step's most likely tokens (at τ = 1), the chosen one first in the subtitle
  const std::size_t shown_steps = std::min<std::size_t>(g.steps.size(), 12);
  fig.columns = static_cast<int>(std::min<std::size_t>(shown_steps, 4));
  fig.title = trf("generating after \"{}\": each step's most likely next tokens{}", prompt_text,
                  g.steps.size() > shown_steps ? trf(" (the first {} of {} steps)", shown_steps, g.steps.size()) : std::string());
  double top_p = 0;  // one probability axis for every step
  for (std::size_t i = 0; i < shown_steps; ++i) top_p = std::max(top_p, g.steps[i].top.front().p);
  for (std::size_t i = 0; i < shown_steps; ++i) {
    const GenerationStep& s = g.steps[i];
    Bars b;
    b.title = trf("step {}: {}", i + 1, tok.readable(s.token));
    b.subtitle = trf("p = {:.3f}, entropy {:.2f} nats", s.p, s.entropy);
    for (const NextToken& t : s.top) {
      b.labels.push_back(tok.readable(t.token));
      b.values.push_back(t.p);
    }
    b.vmin = 0;
    b.vmax = std::min(1.0, std::ceil(top_p * 10 + 1e-9) / 10);
    b.annotate = true;
    b.horizontal = true;
    b.color = 0;
    b.category_label = tr("token");
    b.value_label = tr("probability");
    fig.panels.push_back(std::move(b));
  }
  return fig;
}

Figure temperatures_figure(const Checkpoint& m, const std::vector<std::size_t>& prompt, const std::vector<double>& temps,
                           const HfTokenizer& tok, const std::string& prompt_text, std::size_t shown) {
  Figure fig;
  KvDecoder dec(m, prompt.size());
  const std::vector<float> logits = dec.feed(prompt);
  const std::vector<double> p1 = softmax_at_temperature(logits, 1.0);
  TopK<double> best(std::max<std::size_t>(shown, 8));
  for (std::size_t i = 0; i < p1.size(); ++i) best.push(i, p1[i]);
  const auto top = best.sorted();
  fig.columns = static_cast<int>(std::min<std::size_t>(temps.size(), 3));
  fig.title = trf("the next token after \"{}\" at temperatures {}", prompt_text, fmt::join(temps, ", "));
  // one probability axis for every panel, up to the largest bar (so the flattening is seen)
  double top_p = 0;
  for (double t : temps)
    for (const auto& e : top) top_p = std::max(top_p, softmax_at_temperature(logits, t)[e.first]);
  for (std::size_t k = 0; k < temps.size(); ++k) {
    const std::vector<double> p = softmax_at_temperature(logits, temps[k]);
    Bars b;
    b.title = trf("T = {:g}", temps[k]);
    double shown_mass = 0;
    for (const auto& e : top) {
      b.labels.push_back(tok.readable(e.first));
      b.values.push_back(p[e.first]);
      shown_mass += p[e.first];
    }
    b.subtitle = trf("entropy {:.2f} nats; these {} tokens hold {:.1f} %", entropy_nats(p), top.size(), 100 * shown_mass);
    b.vmin = 0;
    b.vmax = std::min(1.0, std::ceil(top_p * 10 + 1e-9) / 10);
    b.annotate = true;
    b.horizontal = true;
    b.color = static_cast<int>(k);
    b.category_label = tr("token");
    b.value_label = tr("probability");
    fig.panels.push_back(std::move(b));
  }
  return fig;
}

AttentionPage generated_attention_page(const std::string& dir, const ModelConfig& c, const std::vector<std::string>& tokens,
                                       const Generation& g) {
  AttentionPage p;
  p.title = trf("{} — attention while generating", model_folder_name(dir));
  if (c.random_weights) p.title = trf("{} (random weights)", p.title);
  p.subtitle = trf("{} prompt tokens + {} generated; each row as the KV-cached pass that read that token computed it (causal: a query "
                   "sees only the keys up to itself)",
                   g.prompt.size(), g.steps.size());
  p.queries = p.keys = tokens;
  for (std::size_t l = 0; l < g.attentions.size(); ++l) {
    p.layer_names.push_back(trf("layer {}", l));
    p.weights.push_back(g.attentions[l]);
  }
  for (std::size_t h = 0; h < c.heads; ++h) p.head_names.push_back(std::to_string(h));
  p.first_layer = p.weights.empty() ? 0 : p.weights.size() - 1;
  p.footer = trf("made by tfx model generate {} ({})", model_folder_name(dir), c.model_type);
  return p;
}

Figure generated_attention_figure(const std::string& dir, const ModelConfig& c, const std::vector<std::string>& tokens, const Generation& g) {
  Figure f;
  const std::size_t N = tokens.size();
  f.title = trf("Model view of {} while generating: {} prompt + {} generated tokens, {} layers (rows) × {} heads (columns); tokens on the "
                "first panel",
                model_folder_name(dir), g.prompt.size(), g.steps.size(), g.attentions.size(), c.heads);
  for (std::size_t l = 0; l < g.attentions.size(); ++l)
    for (std::size_t h = 0; h < c.heads; ++h) {
      Heatmap m;
      m.values = Tensor({N, N});
      std::copy_n(g.attentions[l].data() + h * N * N, N * N, m.values.data());
      m.title = fmt::format("L{} H{}", l, h);
      if (f.panels.empty()) {
        m.row_labels = m.col_labels = tokens;
        m.x_label = tr("key");
        m.y_label = tr("query");
      }
      m.vmin = 0;
      m.vmax = 1;
      m.annotate = false;
      m.value_label = tr("attention weight");
      f.panels.push_back(std::move(m));
    }
  f.columns = static_cast<int>(c.heads);
  return f;
}

Text kv_cache_held_text(const ModelConfig& c, const Generation& g) {
  const std::size_t formula = kv_cache_bytes_per_token(c, sizeof(float)) * g.cache_capacity;
  return Text{trf("KV cache held at the end: {} positions cached, {} allocated; measured from its buffers {} bytes ({}); the formula 2 × {} "
                  "× {} × {} × 4 bytes × {} positions = {} bytes: {}",
                  g.cache_length, g.cache_capacity, g.cache_held_bytes, kv_bytes_text(static_cast<double>(g.cache_held_bytes)), c.layers,
                  c.kv_heads, c.head_dim, g.cache_capacity, formula, formula == g.cache_held_bytes ? tr("measured = formula") : tr("measured ≠ formula"))};
}

}  // namespace tfx
