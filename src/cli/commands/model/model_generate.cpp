// `tfx model generate DIR "The cat" -n 40`: a decoder checkpoint writes on after the prompt, with
// a KV cache (tfx/model/generate.hpp): greedy by default, or sampled at --temperature with --top-k
// / --top-p and --seed; --stop ends at EOS. The text streams at a terminal; then the step table
// (token, probability, the next best and theirs, entropy); --png/--svg draws each step's
// probability bars; several temperatures (--temperature 0.5,1,2) run side by side and the figure
// shows how the first step's distribution flattens (note 003's lesson on a real vocabulary).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tfx/model/builtin_models.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "tfx/model/gguf_model.hpp"
#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/commands/model/model_attention_views.hpp"
#include "cli/common.hpp"
#include "cli/heap_policy.hpp"
#include "cli/terminal.hpp"
#include "cli/validators.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/generate.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "tfx/text/unicode.hpp"
#include "cli/shared_flags.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct GenerateCliOptions {
  std::string dir, text;
  std::int64_t n = 40;
  std::vector<std::string> temperatures;  // empty: greedy
  std::int64_t top_k = 0;
  double top_p = 1.0;
  std::uint64_t seed = 42;
  bool stop = false;
  std::int64_t shown = 5;
  bool cache = false;  // --cache: the KV cache's size, and the one held at the end, measured
  std::string html;    // --html FILE: the attention over prompt + generated tokens (--png with it: the model view)
  OutputFlags out;
  FigureFlags fig;
};

// config.json's token id field (a number or a list of numbers), when present
std::vector<std::size_t> gen_config_ids(const std::string& dir, const char* key) {
  std::ifstream in(std::filesystem::path(model_files_dir(dir)) / "config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  std::vector<std::size_t> out;
  if (j.is_discarded() || !j.is_object() || !j.contains(key)) return out;
  const nlohmann::json& v = j[key];
  if (v.is_number_unsigned()) out.push_back(v.get<std::size_t>());
  if (v.is_array())
    for (const auto& x : v)
      if (x.is_number_unsigned()) out.push_back(x.get<std::size_t>());
  return out;
}

// The end-of-text ids: config.json's eos_token_id, else the tokenizer's usual EOS spellings.
std::vector<std::size_t> gen_eos_ids(const std::string& dir, const HfTokenizer& tok) {
  std::vector<std::size_t> ids = gen_config_ids(dir, "eos_token_id");
  if (!ids.empty()) return ids;
  for (const char* s : {"<|endoftext|>", "</s>", "<|end_of_text|>", "<|im_end|>", "<|eot_id|>"})
    if (const auto id = tok.token_to_id(s)) ids.push_back(*id);
  return ids;
}

// The beginning-of-text id: config.json's bos_token_id, else the tokenizer's usual BOS spellings.
std::optional<std::size_t> gen_bos_id(const std::string& dir, const HfTokenizer& tok) {
  const std::vector<std::size_t> ids = gen_config_ids(dir, "bos_token_id");
  if (!ids.empty()) return ids.front();
  for (const char* s : {"<s>", "<|begin_of_text|>", "<|endoftext|>"})
    if (const auto id = tok.token_to_id(s)) return *id;
  return std::nullopt;
}

// Bytes to text for people: valid UTF-8 kept, every other byte as U+FFFD (as HF's decode).
std::string gen_valid_text(const std::string& bytes) {
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

// The longest prefix of s that does not end inside a UTF-8 character (streaming: the rest waits
// for the next token's bytes).
std::size_t gen_complete_prefix(const std::string& s) {
  std::size_t i = s.size(), back = 0;
  while (i > 0 && back < 4 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i, ++back;
  if (i == 0) return s.size();
  const auto lead = static_cast<unsigned char>(s[i - 1]);
  const std::size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return need > back + 1 ? i - 1 : s.size();
}

std::string gen_readable(const HfTokenizer& tok, std::size_t id) { return tok.readable(id); }

std::vector<double> gen_temperatures(const std::vector<std::string>& values) {
  std::vector<double> out;
  for (const std::string& item : list_items(values)) out.push_back(std::stod(item));
  if (out.size() > 8) throw usage_error(fmt::format(N_("--temperature: {} temperatures; at most 8 side by side"), out.size()));
  return out;
}

void run_generate(const GenerateCliOptions& o) {
  std::vector<double> temps = gen_temperatures(o.temperatures);
  // --top-k/--top-p choose among tokens to sample: without --temperature they sample at T = 1
  // (not greedy, which would ignore them), and say so
  if (temps.empty() && (o.top_k > 0 || o.top_p < 1)) {
    temps = {1.0};
    std::fprintf(stderr, "%s\n",
                 trf("tfx: note: {} without --temperature: sampling at temperature 1 (greedy decoding would ignore it; -T sets another)",
                     o.top_k > 0 ? "--top-k" : "--top-p")
                     .c_str());
  }
  // the checkpoint, its weights mapped as stored (nothing converted: a BF16 model takes its file's size)
  const Checkpoint m = load_checkpoint(o.dir);
  keep_freed_blocks();  // each step allocates the same activations layer after layer
  const ModelConfig& config = m.config;
  if (!config.decoder())
    throw usage_error(fmt::format(N_("{} is an encoder ({}): it does not generate text; tfx model fill predicts [MASK]"), o.dir,
                                  config.model_type));
  const HfTokenizer tok = load_model_tokenizer(o.dir);
  std::vector<std::size_t> prompt = tok.encode(o.text, true).ids;
  if (prompt.empty()) {
    const std::optional<std::size_t> bos = gen_bos_id(o.dir, tok);
    if (!bos)
      throw usage_error(fmt::format(N_("TEXT is empty and {}'s tokenizer has no beginning-of-text token (no bos_token_id in config.json, "
                                    "no <s> or <|endoftext|>) to start from; give a prompt"),
                                    o.dir));
    prompt.push_back(*bos);
  }
  if (const auto limit = config.position_limit(); limit && prompt.size() >= *limit)
    throw usage_error(fmt::format(N_("TEXT: its {} tokens fill {}'s {} positions (max_position_embeddings): no room to generate; shorten it"),
                                  prompt.size(), o.dir, *limit));
  GenerateOptions go;
  go.max_new_tokens = static_cast<std::size_t>(o.n);
  go.seed = o.seed;
  go.shown = static_cast<std::size_t>(o.shown);
  if (o.stop) go.stop_ids = gen_eos_ids(o.dir, tok);
  if (!o.html.empty() && temps.size() > 1) throw usage_error(N_("--html shows one generation's attention: give one --temperature"));
  go.keep_attentions = !o.html.empty();
  const bool html_only = !o.html.empty() && check_html_target(o.html, o.out, o.fig) && !o.cache;  // --cache: its table too
  if (o.stop && go.stop_ids.empty())
    throw usage_error(fmt::format(N_("--stop: {} names no end-of-text token (no eos_token_id in config.json, no </s> or <|endoftext|> "
                                  "in the tokenizer)"),
                                  o.dir));
  std::string prompt_text;
  for (std::size_t id : prompt) prompt_text += tok.token_bytes(id);
  prompt_text = gen_valid_text(prompt_text);

  // streaming: one temperature, the table at a terminal
  const bool stream = !html_only && temps.size() <= 1 && !o.out.format_given() && is_terminal(stdout) && !o.fig.png_requested() && !o.fig.view;
  std::string pending;
  auto on_step = [&](const GenerationStep& s) {
    if (!stream) return;
    pending += tok.token_bytes(s.token);
    const std::size_t n = gen_complete_prefix(pending);
    std::fwrite(pending.data(), 1, n, stdout);
    std::fflush(stdout);
    pending.erase(0, n);
  };

  std::vector<double> runs = temps.empty() ? std::vector<double>{0.0} : temps;  // 0: greedy
  std::vector<Generation> gens;
  std::vector<std::vector<float>> first_logits;  // the prompt's next-token logits (the same for every run)
  for (double t : runs) {
    go.sampling = SamplingOptions{};
    if (t > 0) {
      go.sampling.greedy = false;
      go.sampling.temperature = t;
      go.sampling.top_k = static_cast<std::size_t>(o.top_k);
      go.sampling.top_p = o.top_p;
    }
    if (stream) {
      std::fputs(prompt_text.c_str(), stdout);
      std::fflush(stdout);
    }
    gens.push_back(generate(m, prompt, go, on_step));
    if (stream) {
      std::fputs(gen_valid_text(pending).c_str(), stdout);
      std::fputs("\n\n", stdout);
    }
  }

  Result r;
  r.command = "model generate";
  r.params = {{"model", o.dir},         {"model_type", config.model_type}, {"prompt", o.text}, {"prompt_ids", prompt},
              {"max_new_tokens", o.n}, {"seed", o.seed},                    {"stop", o.stop}};
  r.params["temperature"] = temps.empty() ? nlohmann::json("greedy") : nlohmann::json(temps);
  r.params["top_k"] = o.top_k;
  r.params["top_p"] = o.top_p;
  const std::string how = temps.empty() ? tr("greedy: the most likely token every step")
                                        : trf("sampled at temperature {} (top-k {}, top-p {:g}, seed {})",
                                              fmt::join(temps, ", "), o.top_k == 0 ? tr("all") : std::to_string(o.top_k), o.top_p, o.seed);
  r.blocks.push_back(Text{trf("{}: {} after {} prompt tokens; KV cache (one pass over the weights per token); {}", o.dir,
                              config.model_type, prompt.size(), how)});
  Records texts;
  texts.name = N_("texts");
  texts.columns = {N_("temperature"), N_("tokens"), N_("text")};
  Records steps;
  steps.name = N_("steps");
  steps.columns = {N_("temperature"), N_("step"), N_("token"), N_("id"), N_("probability"), N_("next best"), N_("its probability"),
                   N_("entropy (nats)")};
  if (o.out.format == Format::json) steps.columns.push_back(N_("top"));
  if (o.cache) {
    r.blocks.push_back(kv_cache_records(config, gens.front().cache_capacity, o.dir, true));
    r.blocks.push_back(kv_cache_held_text(config, gens.front()));
  }
  std::vector<std::string> seq;  // --html: prompt + generated tokens, readable
  for (std::size_t id : prompt) seq.push_back(gen_readable(tok, id));
  for (const GenerationStep& s : gens.front().steps) seq.push_back(gen_readable(tok, s.token));
  if (html_only) return write_html(attention_html(generated_attention_page(o.dir, config, seq, gens.front())), o.html, o.out, o.fig);
  Figure fig;
  const bool drawing = figure_drawn(o.fig, o.out);
  for (std::size_t k = 0; k < gens.size(); ++k) {
    const Generation& g = gens[k];
    const std::string tname = temps.empty() ? tr("greedy") : fmt::format("{:g}", temps[k]);
    std::string bytes;
    for (const GenerationStep& s : g.steps) bytes += tok.token_bytes(s.token);
    std::string ending;
    if (g.stopped) ending = tr(" [stopped at the end-of-text token]");
    if (g.out_of_positions) ending = tr(" [the model's last position]");
    texts.rows.push_back({tname, static_cast<long long>(g.steps.size()), prompt_text + gen_valid_text(bytes) + ending});
    for (std::size_t i = 0; i < g.steps.size(); ++i) {
      const GenerationStep& s = g.steps[i];
      // the next best: the most likely token other than the chosen one
      const NextToken* other = nullptr;
      for (const NextToken& t : s.top)
        if (t.token != s.token) {
          other = &t;
          break;
        }
      std::vector<Cell> row = {tname,
                               static_cast<long long>(i + 1),
                               gen_readable(tok, s.token),
                               static_cast<long long>(s.token),
                               s.p,
                               other ? Cell(gen_readable(tok, other->token)) : Cell(std::string("-")),
                               other ? Cell(other->p) : Cell(std::string("-")),
                               s.entropy};
      if (o.out.format == Format::json) {
        std::string top;
        for (const NextToken& t : s.top) top += fmt::format("{}{}={:.6g}", top.empty() ? "" : " ", gen_readable(tok, t.token), t.p);
        row.push_back(top);
      }
      steps.rows.push_back(std::move(row));
    }
  }
  if (drawing && !o.html.empty()) {
    fig = generated_attention_figure(o.dir, config, seq, gens.front());
  } else if (drawing) {
    if (gens.size() > 1) {
      // the flattening: the first step's distribution at each temperature, over the tokens most
      // likely at τ = 1 (the same tokens in every panel), on one 0–1 scale
      KvDecoder dec(m, prompt.size());
      const std::vector<float> logits = dec.feed(prompt);
      const std::vector<double> p1 = softmax_at_temperature(logits, 1.0);
      TopK<double> best(static_cast<std::size_t>(std::max<std::int64_t>(o.shown, 8)));
      for (std::size_t i = 0; i < p1.size(); ++i) best.push(i, p1[i]);
      const auto top = best.sorted();
      fig.columns = static_cast<int>(std::min<std::size_t>(gens.size(), 3));
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
          b.labels.push_back(gen_readable(tok, e.first));
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
    } else {
      // each step's most likely tokens (at τ = 1), the chosen one first in the subtitle
      const Generation& g = gens.front();
      const std::size_t shown_steps = std::min<std::size_t>(g.steps.size(), 12);
      fig.columns = static_cast<int>(std::min<std::size_t>(shown_steps, 4));
      fig.title = trf("generating after \"{}\": each step's most likely next tokens{}", prompt_text,
                      g.steps.size() > shown_steps ? trf(" (the first {} of {} steps)", shown_steps, g.steps.size()) : std::string());
      double top_p = 0;  // one probability axis for every step
      for (std::size_t i = 0; i < shown_steps; ++i) top_p = std::max(top_p, g.steps[i].top.front().p);
      for (std::size_t i = 0; i < shown_steps; ++i) {
        const GenerationStep& s = g.steps[i];
        Bars b;
        b.title = trf("step {}: {}", i + 1, gen_readable(tok, s.token));
        b.subtitle = trf("p = {:.3f}, entropy {:.2f} nats", s.p, s.entropy);
        for (const NextToken& t : s.top) {
          b.labels.push_back(gen_readable(tok, t.token));
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
    }
  }
  if (!stream || gens.size() > 1) r.blocks.push_back(std::move(texts));
  r.blocks.push_back(std::move(steps));
  r.primary = "steps";
  std::string name = "model_generate_" + name_part({std::filesystem::path(o.dir).filename().string(), o.text});
  for (double t : temps) name += fmt::format("_t{:g}", t);
  note_random_weights(r, config);
  note_random_weights(fig, config);
  present_all(r, o.out, o.fig, drawing ? &fig : nullptr, nullptr, name + ".png");
  if (!o.html.empty()) write_html(attention_html(generated_attention_page(o.dir, config, seq, gens.front())), o.html, o.out, o.fig);
}

}  // namespace

void register_model_generate(CLI::App& model) {
  auto [cmd, o] = add_command(model, "generate",
                              tr("Write on after a prompt with a KV cache: greedy, or sampled with --temperature/--top-k/--top-p"),
                              run_generate);
  cmd->add_option("DIR", o->dir, tr("Checkpoint folder: config.json, model.safetensors (or shards), tokenizer files; or a GGUF file (llama.cpp, Ollama)"))->required();
  cmd->add_option("TEXT", o->text, tr("The prompt (through the checkpoint's own tokenizer; empty: start from the BOS token)"))->required();
  cmd->add_option("-n,--max-new-tokens", o->n, tr("How many tokens to generate"))->capture_default_str()->check(whole_number(1, 100000));
  add_temperature_flag(cmd, o->temperatures);
  cmd->add_option("--top-k", o->top_k, tr("Sample among the k most likely tokens only (0 = all)"))->capture_default_str()->check(whole_number(0, 10000000));
  cmd->add_option("--top-p", o->top_p, tr("Sample among the most likely tokens holding probability p, 0 < p ≤ 1 (nucleus)"))
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            if (s.empty() || end != s.c_str() + s.size() || !(v > 0 && v <= 1))
              return fmt::format(N_("expected a probability 0 < p ≤ 1, got '{}'"), s);
            return {};
          },
          "(0, 1]"));
  add_seed_flag(cmd, o->seed, tr("Seed of the sampler's draws (same seed, same text)"));
  cmd->add_flag("--stop", o->stop, tr("Stop at the end-of-text token (config.json's eos_token_id)"));
  cmd->add_option("--show", o->shown, tr("How many most likely tokens each step keeps for the figure and JSON"))
      ->capture_default_str()
      ->check(whole_number(2, 50));
  add_cache_flag(cmd, o->cache);
  add_output_flags(cmd, o->out);
  add_figure_flags(cmd, o->fig, false);
  add_html_flag(cmd, o->html, o->out);
  set_examples(cmd, {tr("tfx model generate gpt2/ \"The cat\" -n 40                      # greedy, streamed at a terminal"),
                     tr("tfx model generate Qwen2.5-0.5B/ \"The cat\" -T 0.8 --top-p 0.9 --seed 1 --stop"),
                     tr("tfx model generate gpt2/ \"The cat\" -n 10 -T 0.5,1,2 --png        # side by side; the flattening figure"),
                     tr("tfx model generate gpt2/ \"The cat\" -n 5 --format json           # every step"),
                     tr("tfx model generate gpt2/ \"The cat\" -n 8 --html gen.html --png    # attention over the generated tokens"),
                     tr("tfx model generate gpt2/ \"The cat\" -n 8 --cache                  # the KV cache, formula and measured")});
}

}  // namespace tfx::cli
