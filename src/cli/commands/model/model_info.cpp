// `tfx model info`: what a checkpoint is (family, widths, RoPE, parameters, dtype, tokenizer; an image
// model's picture size, patches, labels and preprocessing).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tfx/model/gguf_model.hpp"
#include "tfx/model/builtin_models.hpp"
#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/commands/model/model_attention_views.hpp"
#include "cli/flags/shape_flags.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/common.hpp"
#include "cli/flags/validators.hpp"

namespace tfx::cli {

namespace {

std::string model_bytes_text(std::size_t b) {
  if (b >= (std::size_t{1} << 30)) return fmt::format("{:.2f} GiB", static_cast<double>(b) / (1 << 30));
  if (b >= (std::size_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1 << 20));
  return fmt::format("{:.1f} KiB", static_cast<double>(b) / 1024);
}


// config.json's tfx_trained (what `tfx train gpt` or `tfx train vit` wrote): one line of how the model was trained; "" without it
std::string info_trained(const std::string& dir) {
  if (is_gguf_file(dir)) return "";
  std::ifstream in(std::filesystem::path(model_files_dir(dir)) / "config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tfx_trained") || !j["tfx_trained"].is_object()) return "";
  const nlohmann::json& t = j["tfx_trained"];
  auto num = [&](const char* k) { return t.contains(k) && t[k].is_number() ? t[k].get<double>() : 0.0; };
  auto str = [&](const char* k) { return t.contains(k) && t[k].is_string() ? t[k].get<std::string>() : std::string("?"); };
  if (str("command") == "tfx train vit")
    return trf("by {} on {} ({:.0f} training pictures): {:.0f} steps of {:.0f} pictures, lr {:g}, seed {:.0f}, {:.0f} threads; loss {:.4f}, "
               "held-out accuracy {:.1f} %",
               str("command"), str("pictures"), num("training_pictures"), num("steps"), num("batch"), num("lr"), num("seed"),
               num("threads"), num("final_train_loss"), num("held_out_accuracy"));
  return trf("by {} on {} ({:.0f} tokens): {:.0f} steps of {:.0f} sequences, lr {:g}, seed {:.0f}, {:.0f} threads; loss {:.4f}, held-out {:.4f}",
             str("command"), str("corpus"), num("tokens"), num("steps"), num("batch"), num("lr"), num("seed"), num("threads"),
             num("final_train_loss"), num("final_held_out_loss"));
}

struct ModelInfoOptions {
  ModelInput in;
  bool cache = false;               // --cache: the KV cache's size
  std::optional<std::int64_t> len;  // --len N: and at N positions
  OutputFlags out;
};

// --cache: the KV cache table alone (primary), after the family line
void run_model_info_cache(const ModelInfoOptions& o, const Checkpoint& m) {
  const ModelConfig& c = m.config;
  const std::optional<std::size_t> len = o.len ? std::optional<std::size_t>(static_cast<std::size_t>(*o.len)) : std::nullopt;
  Result r;
  r.command = "model info";
  r.params = {{"model", o.in.dir}, {"cache", true}};
  if (len) r.params["len"] = *len;
  r.blocks.push_back(Text{fmt::format("{}: {}", o.in.dir, family_name(c))});
  r.blocks.push_back(Text{trf("KV cache: 2 (K and V) × {} layers × {} kv_heads × {} head_dim × bytes per number, per token", c.layers,
                              c.kv_heads, c.head_dim)});
  r.blocks.push_back(kv_cache_records(c, len, o.in.dir));
  r.primary = "kv_cache";
  note_random_weights(r, c);
  present(r, o.out);
}

void run_model_info(const ModelInfoOptions& o) {
  const Checkpoint m = load_checkpoint(o.in.dir);
  const ModelConfig& c = m.config;
  if (o.len && !o.cache) throw usage_error(N_("--len goes with --cache (the KV cache's size at N positions)"));
  if (o.cache) return run_model_info_cache(o, m);
  Result r;
  r.command = "model info";
  r.params = {{"model", o.in.dir}};
  Records rec;
  rec.name = N_("info");
  rec.columns = {N_("property"), N_("value")};
  auto row = [&](const std::string& k, const std::string& v, const nlohmann::json& j) {
    (void)j;
    rec.rows.push_back({k, v});
  };
  row("family", family_name(c), c.model_type);
  row("layers", std::to_string(c.layers), c.layers);
  row("heads", std::to_string(c.heads), c.heads);
  row("kv_heads", std::to_string(c.kv_heads), c.kv_heads);
  row("d_model", std::to_string(c.d_model), c.d_model);
  row("head_dim", std::to_string(c.head_dim), c.head_dim);
  row("ffn",
      fmt::format("{} ({})", c.ffn,
                  std::string_view(c.family->ffn_name) != "GELU" ? c.family->ffn_name
                  : c.activation == "gelu_new"                  ? tr("GELU, tanh form")
                                                                : tr("GELU, erf form")),
      c.ffn);
  if (c.family->image()) {
    const std::size_t g = c.image_size / c.patch_size;
    row("image", trf("{0}×{0} pixels, {1} channels; patches {2}×{2} → {3}×{3} = {4} tokens + [CLS]", c.image_size, c.channels, c.patch_size, g,
                     g * g),
        c.image_size);
    std::vector<std::string> shown(c.labels.begin(), c.labels.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(5, c.labels.size())));
    row("labels", trf("{} (id2label): {}{}", c.labels.size(), fmt::join(shown, ", "), c.labels.size() > shown.size() ? ", …" : ""), c.labels.size());
  } else {
    row("vocabulary", std::to_string(c.vocab), c.vocab);
  }
  row("positions", fmt::format("{} ({})", c.max_positions, c.position_limit() ? tr("learned table") : "RoPE"), c.max_positions);
  if (c.family->rope) {
    std::string s = trf("θ = {:g}, rotate-half layout, {} pairs", c.rope.base, c.head_dim / 2);
    if (c.rope.scaling != RopeScaling::none)
      s += trf("; scaling {} × {:g} (original {} positions)", rope_scaling_name(c.rope.scaling), c.rope.factor.value_or(1.0),
               c.rope.original_max_pos.value_or(c.max_positions));
    if (c.rope_local) s += tr("; on the full layers");
    row("rope", s, {{"theta", c.rope.base}, {"scaling", rope_scaling_name(c.rope.scaling)}, {"factor", c.rope.factor.value_or(1.0)}});
  }
  if (c.sliding_window) {
    // which layers slide: all, or all but the full ones (gemma3: every 6th), or the listed ones
    std::vector<std::size_t> full, sliding;
    for (std::size_t i = 0; i < c.sliding_layers.size(); ++i) (c.sliding_layers[i] ? sliding : full).push_back(i);
    const std::string where = full.empty()                   ? tr("every layer")
                              : sliding.size() <= full.size() ? trf("layers {}", fmt::join(sliding, ", "))
                                                              : trf("every layer but {} (full attention)", fmt::join(full, ", "));
    row("sliding_window", trf("{} positions: {}", *c.sliding_window, where), *c.sliding_window);
  }
  if (c.rope_local) row("rope_local", trf("θ = {:g} on the sliding layers (no scaling)", c.rope_local->base), c.rope_local->base);
  if (c.query_pre_attn_scalar > 0)
    row("attention_scale", trf("1/√{:g} (query_pre_attn_scalar)", c.query_pre_attn_scalar), c.query_pre_attn_scalar);
  if (c.attn_softcap > 0 || c.final_softcap > 0)
    row("softcap", trf("cap·tanh(x / cap): scores {:g}, logits {:g} (0: none)", c.attn_softcap, c.final_softcap), c.attn_softcap);
  const std::size_t total = m.parameter_count(), block = block_parameter_count(m);
  row("parameters_per_block", fmt::format("{} ({:.2f} M)", block, static_cast<double>(block) / 1e6), block);
  row("parameters", trf("{} ({:.2f} M; {} blocks = {:.1f} %)", total, static_cast<double>(total) / 1e6, c.layers,
                        100.0 * static_cast<double>(block * c.layers) / static_cast<double>(total)),
      total);
  const char* head = m.head == OutputHead::classifier ? tr("classifier on [CLS] (ViTForImageClassification)")
                     : c.family->image() && m.head == OutputHead::none ? tr("none (ViTModel)")
                     : m.head == OutputHead::masked_lm ? tr("MLM head (tied to the word embeddings)")
                     : m.head == OutputHead::none    ? tr("none (BertModel)")
                     : m.head == OutputHead::tied    ? tr("tied to the token embedding")
                                                     : tr("lm_head (untied)");
  row("output_head", head, m.has_lm_head);
  row("dtype", m.dtype(), m.dtype());
  row("bytes", trnf("{} in {} file", "{} in {} files", m.files().size(), model_bytes_text(m.file_bytes()), m.files().size()), m.file_bytes());
  if (c.family->image()) {
    std::string pre;
    try {
      const VitProcessor p = read_vit_processor(o.in.dir, c);
      pre = trf("{}resize to {}×{} (bilinear), rescale {:.6g}, mean {:.3g}/{:.3g}/{:.3g}, std {:.3g}/{:.3g}/{:.3g}",
                p.from_file ? "" : tr("no preprocessor_config.json, ViTImageProcessor's defaults: "), p.width, p.height, p.rescale_factor,
                p.mean[0], p.mean[1], p.mean[2], p.std[0], p.std[1], p.std[2]);
    } catch (const Error& e) {
      pre = std::string(tr("not readable: ")) + e.what();
    }
    row("preprocessing", pre, pre);
    if (is_builtin_model(o.in.dir)) row("built_in", tr("yes: compiled into tfx (data/teaching_vit, scripts/train_teaching_vit.sh)"), true);
    if (const std::string t = info_trained(o.in.dir); !t.empty()) row("trained", t, t);
    r.blocks.push_back(Text{fmt::format("{}: {}", o.in.dir, family_name(c))});
    r.blocks.push_back(std::move(rec));
    r.primary = "info";
    note_random_weights(r, c);
  present(r, o.out);
    return;
  }
  std::string tok = tr("none (give --ids)");
  try {
    const HfTokenizer t = load_model_tokenizer(o.in.dir);
    tok = trf("{}, {} tokens ({})", t.kind(), t.vocab_size(), std::filesystem::path(t.source()).filename().string());
    if (t.vocab_size() > c.vocab) tok += trf(" — more ids than the embedding's {} rows!", c.vocab);
  } catch (const Error& e) {
    tok = std::string(tr("not readable: ")) + e.what();
  }
  row("tokenizer", tok, tok);
  if (is_builtin_model(o.in.dir)) row("built_in", tr("yes: compiled into tfx (data/teaching_gpt, scripts/train_teaching_gpt.sh)"), true);
  if (const std::string t = info_trained(o.in.dir); !t.empty()) row("trained", t, t);
  r.blocks.push_back(Text{fmt::format("{}: {}", o.in.dir, family_name(c))});
  r.blocks.push_back(std::move(rec));
  r.primary = "info";
  note_random_weights(r, c);
  present(r, o.out);
}

}  // namespace

void register_model_info(CLI::App& model) {
  {
    auto [cmd, o] = add_command(model, "info", tr("What the checkpoint is: family, layers, heads, widths, RoPE, parameters, dtype, tokenizer"), run_model_info);
    add_model_input(cmd, o->in, false);
    add_cache_flag(cmd, o->cache);
    add_len_flag(cmd, o->len, tr("(the KV cache's length, with --cache)"));
    add_output_flags(cmd, o->out, false);
    set_examples(cmd, {tr("tfx model info gpt2/"), tr("tfx model info Llama-3.2-1B/ --format json"),
                       tr("tfx model info Llama-3.2-1B/ --cache --len 8192   # the KV cache per token and at 8192 positions")});
  }
}

}  // namespace tfx::cli
