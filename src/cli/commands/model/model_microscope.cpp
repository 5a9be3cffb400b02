// The microscope commands' shared steps (model_microscope.hpp).
#include "cli/commands/model/model_microscope.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/flags/validators.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

MicroscopeRun microscope_run(const LoadedInput& l) {
  if (l.model.config.family->image()) return [&l](const ForwardOptions& o) { return model_forward_image(l.model, l.pixels, o); };
  return microscope_run(l, l.ids);
}

MicroscopeRun microscope_run(const LoadedInput& l, const std::vector<std::size_t>& ids) {
  return [&l, ids](const ForwardOptions& o) { return model_forward(l.model, ids, o); };
}

std::size_t answer_position(const LoadedInput& l) {
  const ModelConfig& c = l.model.config;
  if (c.family->image()) return 0;
  if (c.family->masked_lm)
    for (std::size_t t = 0; t < l.tokens.size(); ++t)
      if (l.tokens[t] == "[MASK]") return t;
  return l.ids.size() - 1;
}

std::string token_name(const LoadedInput& l, std::size_t id) {
  const ModelConfig& c = l.model.config;
  if (c.family->image()) return id < c.labels.size() ? c.labels[id] : std::to_string(id);
  if (l.tokenizer) {
    const std::string t = l.tokenizer->readable(id);
    if (!t.empty()) return t;
  }
  return std::to_string(id);
}

std::vector<HeadAblation> parse_heads(const std::string& spec, const ModelConfig& c, HeadAblation::Mode mode) {
  std::vector<HeadAblation> heads;
  for (const std::string& item : split_items(spec)) {
    const std::size_t dot = item.find('.');
    const auto layer = dot == std::string::npos ? std::nullopt : model_whole_number(item.substr(0, dot));
    const auto head = dot == std::string::npos ? std::nullopt : model_whole_number(item.substr(dot + 1));
    if (!layer || !head) throw usage_error(fmt::format(N_("--ablate-heads {}: expected LAYER.HEAD from 0, like 1.3 (several: 0.1,1.3)"), item));
    if (*layer >= c.layers)
      throw usage_error(fmt::format(N_("--ablate-heads {}: layer {} is past the model's {} layers (0 … {})"), item, *layer, c.layers, c.layers - 1));
    if (*head >= c.heads)
      throw usage_error(fmt::format(N_("--ablate-heads {}: head {} is past the model's {} heads per layer (0 … {})"), item, *head, c.heads, c.heads - 1));
    heads.push_back(HeadAblation{static_cast<std::size_t>(*layer), static_cast<std::size_t>(*head), mode});
  }
  if (heads.empty()) throw usage_error(N_("--ablate-heads: expected LAYER.HEAD from 0, like 1.3 (several: 0.1,1.3)"));
  return heads;
}

std::size_t one_token(const LoadedInput& l, const std::string& text, const char* flag) {
  const ModelConfig& c = l.model.config;
  if (c.family->image()) {
    for (std::size_t i = 0; i < c.labels.size(); ++i)
      if (c.labels[i] == text) return i;
    throw usage_error(fmt::format(N_("{} {}: not a label of the model's id2label"), flag, text));
  }
  if (!l.tokenizer) throw usage_error(fmt::format(N_("{} {}: the checkpoint has no tokenizer to read it with"), flag, text));
  // "␣sat" as the tables print it: the token " sat" (a comma-separated list trims the space itself)
  std::string spelled = text;
  for (std::size_t at = spelled.find("\u2423"); at != std::string::npos; at = spelled.find("\u2423")) spelled.replace(at, 3, " ");
  const HfEncoding e = l.tokenizer->encode(spelled, false);
  if (e.ids.size() != 1)
    throw usage_error(fmt::format(N_("{} '{}' is {} tokens ({}); expected one token of the vocabulary"), flag, text, e.ids.size(),
                                  fmt::join(e.readable, " ")));
  return e.ids[0];
}

std::string microscope_figure_name(const std::string& command, const ModelInput& in, const LoadedInput& l) {
  std::filesystem::path p = std::filesystem::path(in.dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  const std::string text = l.picture ? std::filesystem::path(in.image).stem().string() : in.text.empty() ? in.ids : in.text;
  std::vector<std::string> words;
  std::string w;
  for (char ch : text + " ") {
    if (ch == ' ' || ch == ',' || ch == '\t' || ch == '\n') {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += ch;
    }
  }
  return fmt::format("model_{}_{}_{}.png", command, name_part({p.filename().string()}), name_part(words));
}

}  // namespace tfx::cli
