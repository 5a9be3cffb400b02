#include "tfx/model/model_notes.hpp"

#include <exception>

#include "tfx/core/i18n.hpp"
#include "tfx/model/family.hpp"

namespace tfx {

std::optional<unsigned long long> model_whole_number(const std::string& s) {
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (s.empty() || pos != s.size() || s[0] == '-') return std::nullopt;
  return v;
}

std::string family_name(const ModelConfig& c) {
  return trf(c.family->summary, c.model_type, c.kv_heads != c.heads ? tr(", grouped-query attention") : "");
}

void note_random_weights(Result& r, const ModelConfig& c) {
  if (!c.random_weights) return;
  r.params["random_weights"] = true;
  r.blocks.push_back(Text{tr("random weights (config.json: tfx_random_weights): these numbers show how the model computes, not what a "
                             "trained model would say")});
}

void note_random_weights(Figure& f, const ModelConfig& c) {
  if (!c.random_weights) return;
  if (!f.title.empty()) {
    f.title = trf("{} (random weights)", f.title);
    return;
  }
  if (f.panels.empty()) return;
  std::visit([](auto& p) { p.title = trf("{} (random weights)", p.title); }, f.panels.front());
}

}  // namespace tfx
