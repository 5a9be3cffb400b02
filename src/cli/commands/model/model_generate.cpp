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
#include <cstdio>
#include <filesystem>
#include <optional>

#include "tfx/model/gguf_model.hpp"
#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/commands/model/model_attention_views.hpp"
#include "cli/common.hpp"
#include "cli/heap_policy.hpp"
#include "cli/present/terminal.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/generate.hpp"
#include "tfx/model/generate_text.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "cli/flags/shared_flags.hpp"
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
  std::string activations = "f32";  // --activations
  bool cache = false;  // --cache: the KV cache's size, and the one held at the end, measured
  std::string html;    // --html FILE: the attention over prompt + generated tokens (--png with it: the model view)
  OutputFlags out;
  FigureFlags fig;
};

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
  apply_activations(o.activations);
  // the checkpoint, its weights mapped as stored (nothing converted: a BF16 model takes its file's size)
  const Checkpoint m = load_checkpoint(o.dir);
  keep_freed_blocks();  // each step allocates the same activations layer after layer
  const ModelConfig& config = m.config;
  if (!config.decoder())
    throw usage_error(fmt::format(N_("{} is an encoder ({}): it does not generate text; tfx model fill predicts [MASK]"), o.dir,
                                  config.model_type));
  const HfTokenizer tok = load_model_tokenizer(o.dir);
  release_freed_blocks();  // before the weights' pages come in
  std::vector<std::size_t> prompt = tok.encode(o.text, true).ids;
  warn_unseen_words(o.dir, o.text);
  if (prompt.empty()) {
    const std::optional<std::size_t> bos = generation_bos_id(o.dir, tok);
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
  if (o.stop) go.stop_ids = generation_eos_ids(o.dir, tok);
  for (const std::size_t id : go.stop_ids)
    if (id >= tok.vocab_size())
      throw usage_error(fmt::format(N_("--stop: {}'s end-of-text token id {} (config.json's eos_token_id) is past the tokenizer's {} tokens"), o.dir,
                                    id, tok.vocab_size()));
  if (!o.html.empty() && temps.size() > 1) throw usage_error(N_("--html shows one generation's attention: give one --temperature"));
  go.keep_attentions = !o.html.empty();
  const bool html_only = !o.html.empty() && check_html_target(o.html, o.out, o.fig) && !o.cache;  // --cache: its table too
  if (o.stop && go.stop_ids.empty())
    throw usage_error(fmt::format(N_("--stop: {} names no end-of-text token (no eos_token_id in config.json, no </s> or <|endoftext|> "
                                  "in the tokenizer)"),
                                  o.dir));
  std::string prompt_text;
  for (std::size_t id : prompt) prompt_text += tok.token_bytes(id);
  prompt_text = valid_text(prompt_text);

  // streaming: one temperature, the table at a terminal
  const bool stream = !html_only && temps.size() <= 1 && !o.out.format_given() && is_terminal(stdout) && !o.fig.png_requested() && !o.fig.view;
  std::string pending;
  auto on_step = [&](const GenerationStep& s) {
    if (!stream) return;
    pending += tok.token_bytes(s.token);
    const std::size_t n = complete_utf8_prefix(pending);
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
      std::fputs(valid_text(pending).c_str(), stdout);
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
    texts.rows.push_back({tname, static_cast<long long>(g.steps.size()), prompt_text + valid_text(bytes) + ending});
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
    fig = gens.size() > 1 ? temperatures_figure(m, prompt, temps, tok, prompt_text, static_cast<std::size_t>(o.shown))
                          : generation_steps_figure(gens.front(), tok, prompt_text);
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
  add_seed_flag(cmd, o->seed, tr("the sampler's draws: same seed, same text"));
  cmd->add_flag("--stop", o->stop, tr("Stop at the end-of-text token (config.json's eos_token_id)"));
  cmd->add_option("--candidates", o->shown, tr("How many most likely tokens each step keeps for the figure and JSON"))
      ->capture_default_str()
      ->check(whole_number(2, 50));
  add_cache_flag(cmd, o->cache);
  add_activations_flag(cmd, o->activations);
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
