// `tfx model quantize SRC --type TYPE -o OUT.gguf`: a folder or GGUF file written as a GGUF of
// llama.cpp's quantized types (tfx/model/quantize.hpp), and with --measure TEXT the lesson: what each
// type cost — per-tensor relative error and its histogram, one tensor's weights before and after,
// and on TEXT the next-token KL divergence, top-1 agreement and perplexity — in one table and one
// figure. --measure measures inside one run (each type quantized, written to a temporary GGUF, opened
// as every model command opens it, and run beside the source), so several types compare at once
// against the exact source weights; `tfx model compare A B` would need a file per type.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/flags/validators.hpp"
#include "cli/present/written_files.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/quantize_report.hpp"

namespace tfx::cli {

namespace {

struct ModelQuantizeOptions {
  std::string src, types = "q8_0", model_out, fallback, show, tensor;
  OutputFlags out;
  FigureFlags fig;
};


struct TypeRun {
  QuantRecipe type;
  std::vector<TensorError> errors;
  std::size_t file_bytes = 0;
  std::optional<QuantizedModel> model;  // in memory: for --measure and the figure
  std::optional<NextTokenCost> cost;
};

void run_model_quantize(const ModelQuantizeOptions& o) {
  std::vector<QuantRecipe> types;
  for (const std::string& item : split_items(o.types)) {
    const QuantRecipe t = parse_quantize_recipe(item, "--type", true);
    if (std::none_of(types.begin(), types.end(), [&](const QuantRecipe& u) { return u.type == t.type && u.mix == t.mix; })) types.push_back(t);
  }
  if (types.empty()) throw usage_error(fmt::format(N_("--type: expected one of {}"), quantize_type_names()));
  if (!o.model_out.empty() && types.size() > 1)
    throw usage_error(fmt::format(N_("-o {}: one file holds one type; give one --type (several are for --measure)"), o.model_out));
  std::optional<StoredType> fallback;
  if (!o.fallback.empty()) fallback = parse_quantize_type(o.fallback, "--fallback");

  const QuantSource src = read_quant_source(o.src);
  const bool in_memory = !o.show.empty() || figure_drawn(o.fig, o.out);
  std::vector<TypeRun> runs;
  std::string written;
  for (const QuantRecipe& t : types) {
    TypeRun r{t, {}, 0, std::nullopt, std::nullopt};
    if (!o.model_out.empty()) {
      r.errors = write_quantized_file(src, t, fallback, o.model_out, r.file_bytes);
      written = o.model_out;
    } else if (!in_memory) {  // the errors and the size, one tensor at a time, nothing kept
      r.errors = write_quantized_gguf(src, t, fallback, [&r](std::string_view b) { r.file_bytes += b.size(); });
    }
    if (in_memory) {
      r.model = quantize_model(src, t, fallback);
      if (r.errors.empty()) r.errors = r.model->errors;
      if (!r.file_bytes) r.file_bytes = encode_gguf(r.model->metadata, r.model->tensors).size();
    }
    runs.push_back(std::move(r));
  }

  // --measure TEXT: the source and each type on the same ids
  std::optional<LoadedInput> in;
  if (!o.show.empty()) {
    ModelInput mi;
    mi.dir = o.src;
    mi.text = o.show;
    in.emplace(load_input(mi));
    if (!in->model.config.decoder()) throw usage_error(fmt::format(N_("--measure: {} is not a decoder; the cost is measured on next-token predictions"), o.src));
    const Tensor ref = model_forward(in->model, in->ids, {.keep_attentions = false, .keep_hidden = false}).logits;
    for (TypeRun& r : runs) r.cost = quantized_cost(*r.model, ref, in->ids);
  }

  Result res;
  res.command = "model quantize";
  res.params = {{"src", o.src}, {"type", o.types}, {"output", o.model_out}, {"fallback", o.fallback}, {"show", o.show}};
  res.blocks.push_back(Text{trf("{} ({}, {} tensors): quantized as llama-quantize --pure does (every 2-D weight but the norms and "
                                "position_embd in the type, the rest F32), each block as gguf-py's quants.py (the K-quants as ggml's C)",
                                o.src, src.arch, src.tensors.size())});
  if (!written.empty())
    res.blocks.push_back(Text{trf("wrote {} ({:.2f} MB, GGUF v3; the source's weights {:.2f} MB): every tfx model command opens it, as gguf-py's GGUFReader does",
                                  written, static_cast<double>(runs[0].file_bytes) / 1e6, static_cast<double>(src.source_bytes) / 1e6)});
  else
    res.blocks.push_back(Text{tr("no -o FILE.gguf: nothing written (tfx model quantize SRC --type q8_0 -o out.gguf)")});

  // the cost per type
  Records cost;
  cost.name = N_("cost");
  cost.columns = {N_("type"), N_("bits/weight"), N_("MB"), N_("mean rel. error"), N_("max rel. error"), N_("worst tensor")};
  if (in) cost.columns.insert(cost.columns.end(), {N_("KL (nats)"), N_("top-1 agree"), N_("ppl"), N_("ppl change")});
  for (const TypeRun& r : runs) {
    const RecipeErrors e = recipe_errors(r.type, r.errors);
    std::vector<Cell> row = {recipe_name(r.type), bits_per_weight(r.errors, r.type), static_cast<double>(r.file_bytes) / 1e6, e.mean, e.max,
                             e.worst};
    if (r.cost) {
      row.push_back(r.cost->kl);
      row.push_back(r.cost->top1);
      row.push_back(r.cost->ppl_q);
      row.push_back(r.cost->ppl_q / r.cost->ppl_ref - 1.0);
    }
    cost.rows.push_back(std::move(row));
  }
  if (in)
    res.blocks.push_back(Text{trf("on \"{}\" ({} tokens): KL(source ‖ quantized) of the next-token distribution averaged over the positions, the "
                                  "share of positions whose most likely next token is unchanged, and the perplexity of the text (the "
                                  "source's: {:.4f}); ppl change is relative",
                                  o.show, in->ids.size(), runs[0].cost->ppl_ref)});
  res.blocks.push_back(cost);

  // per-tensor relative error, one column per type
  Records per;
  per.name = N_("tensors");
  per.columns = {N_("tensor"), N_("values")};
  for (const TypeRun& r : runs) per.columns.push_back(lower_recipe_name(r.type));
  for (std::size_t i = 0; i < runs[0].errors.size(); ++i) {
    std::vector<Cell> row = {runs[0].errors[i].name, static_cast<long long>(runs[0].errors[i].values)};
    for (const TypeRun& r : runs)
    {
      const TensorError& e = r.errors[i];
      if (r.type.mix == QuantMix::none && e.type == r.type.type) row.push_back(e.relative_error);
      else if (e.type == StoredType::f32) row.push_back(std::string("F32"));
      else row.push_back(fmt::format("{:.4g} ({})", e.relative_error, stored_type_name(e.type)));  // a mix's or --fallback's type
    }
    per.rows.push_back(std::move(row));
  }
  res.blocks.push_back(per);

  // histogram of log10(relative error) over the quantized tensors
  std::vector<std::vector<double>> counts;
  std::vector<double> centres;
  for (const TypeRun& r : runs) {
    auto h = error_histogram(r.type, r.errors);
    centres = h.first;
    counts.push_back(h.second);
  }
  Records hist;
  hist.name = N_("error histogram");
  hist.columns = {N_("log10 rel. error")};
  for (const TypeRun& r : runs) hist.columns.push_back(lower_recipe_name(r.type));
  for (std::size_t b = 0; b < kErrorBins; ++b) {
    std::vector<Cell> row = {fmt::format("[{:g}, {:g})", kErrorLo + (kErrorHi - kErrorLo) * static_cast<double>(b) / kErrorBins,
                                         kErrorLo + (kErrorHi - kErrorLo) * static_cast<double>(b + 1) / kErrorBins)};
    bool any = false;
    for (const auto& c : counts) row.push_back(static_cast<long long>(c[b])), any = any || c[b] > 0;
    if (any) hist.rows.push_back(std::move(row));
  }
  res.blocks.push_back(hist);

  // one tensor's weights before and after: --tensor, else the largest quantized one
  const SourceTensor* shown = nullptr;
  for (const SourceTensor& t : src.tensors) {
    if (!o.tensor.empty() ? t.name == o.tensor : (quantized_tensor(t) && (!shown || t.size() > shown->size()))) shown = &t;
  }
  if (!o.tensor.empty() && !shown) throw usage_error(fmt::format(N_("--tensor {}: {} has no such tensor (the tensors table lists them)"), o.tensor, o.src));
  res.primary = "cost";
  res.summary["types"] = o.types;
  if (in) {
    note_random_weights(res, in->model.config);
  } else if (src.random_weights) {
    ModelConfig random;
    random.random_weights = true;
    note_random_weights(res, random);
  }

  std::optional<Figure> figure;
  if (figure_drawn(o.fig, o.out)) {
    Figure f;
    f.title = trf("what quantization costs: {}", o.src);
    LineChart errs;
    errs.title = tr("per-tensor relative error ‖W − Ŵ‖ / ‖W‖");
    errs.x_label = tr("log10 relative error");
    errs.y_label = tr("tensors");
    for (std::size_t k = 0; k < runs.size(); ++k) errs.series.push_back({recipe_name(runs[k].type), centres, counts[k], false});
    f.panels.push_back(errs);
    if (shown) {
      const std::vector<float> values = shown->load();
      LineChart dist;
      dist.title = trf("weights of {} before and after", shown->name);
      dist.x_label = tr("weight");
      dist.y_label = tr("share of weights");
      double lo = 0, hi = 0;
      for (float v : values) lo = std::min(lo, static_cast<double>(v)), hi = std::max(hi, static_cast<double>(v));
      if (hi <= lo) hi = lo + 1;
      const std::size_t bins = 120;
      auto share = [&](const std::vector<double>& xs) { return weight_shares(xs, lo, hi, bins); };
      std::vector<double> before(values.begin(), values.end());
      auto h0 = share(before);
      dist.series.push_back({tr("source weights"), h0.first, h0.second, true});
      const std::size_t index = static_cast<std::size_t>(shown - src.tensors.data());
      for (const TypeRun& r : runs) {
        const GgufTensorOut& t = r.model->tensors[index];
        std::vector<float> back(values.size());
        dequantize(t.type, t.data.data(), back.data(), back.size());
        auto h = share(std::vector<double>(back.begin(), back.end()));
        dist.series.push_back({recipe_name(r.type), h.first, h.second, false});
      }
      f.panels.push_back(dist);
    }
    // one bar per type, annotated: `value` of each run
    const auto type_bars = [&runs](std::string title, std::string value_label, int color, auto value) {
      Bars b;
      b.title = std::move(title);
      b.category_label = tr("type");
      b.value_label = std::move(value_label);
      b.annotate = true;
      b.color = color;
      for (const TypeRun& r : runs) b.labels.push_back(recipe_name(r.type)), b.values.push_back(value(r));
      return b;
    };
    // what each type saves: its bits per weight (the file's size), beside the errors it costs —
    // the first row is the weights (errors, one tensor, size), the second (--measure) the outputs
    Bars size = type_bars(tr("bits per weight (quantized tensors)"), tr("bits/weight"), 4,
                          [](const TypeRun& r) { return bits_per_weight(r.errors, r.type); });
    size.vmin = 0;
    f.panels.push_back(size);
    if (in) {
      Bars kl = type_bars(tr("next-token KL divergence (nats)"), tr("KL"), 0, [](const TypeRun& r) { return r.cost->kl; });
      kl.vmin = 0;
      Bars top = type_bars(tr("top-1 agreement with the source"), tr("share of positions"), 1, [](const TypeRun& r) { return r.cost->top1; });
      top.vmin = 0, top.vmax = 1;
      Bars ppl = type_bars(tr("perplexity change"), tr("relative change"), 2,
                           [](const TypeRun& r) { return r.cost->ppl_q / r.cost->ppl_ref - 1.0; });
      f.panels.push_back(kl);
      f.panels.push_back(top);
      f.panels.push_back(ppl);
    }
    if (in) note_random_weights(f, in->model.config);
    figure = std::move(f);
  }
  present_all(res, o.out, o.fig, figure ? &*figure : nullptr, nullptr, "model_quantize.png");
}

}  // namespace

void register_model_quantize(CLI::App& model) {
  auto [cmd, o] = add_command(model, "quantize", tr("Write a folder or GGUF as a quantized GGUF (llama.cpp's types); --measure TEXT: what it costs"),
                              run_model_quantize);
  cmd->add_option("SRC", o->src, tr("Checkpoint folder (llama, mistral, qwen2, qwen3, gpt2) or a GGUF file"))->required();
  cmd->add_option("--type", o->types, trf("Type(s) to quantize to, comma-separated: {}", quantize_type_names()))->capture_default_str();
  cmd->add_option("--fallback", o->fallback, tr("Type for the tensors whose rows are not whole blocks of --type (default: refuse)"));
  cmd->add_option("--measure", o->show, tr("Measure the cost on this text: next-token KL, top-1 agreement, perplexity"))->type_name("TEXT");
  cmd->add_option("--tensor", o->tensor, tr("The tensor whose weights the figure shows before and after (default: the largest quantized one)"));
  add_presentation_flags(cmd, o->out, o->fig);
  // -o FILE.gguf is the quantized model (the table then goes to stdout); any other -o is the table's
  o->out.output_opt->transform(CLI::Validator(
      [opts = o, app = static_cast<const CLI::App*>(cmd)](std::string& path) {
        set_hidden_outputs(app, {});
        if (path.size() > 5 && path.ends_with(".gguf")) {
          opts->model_out = path;
          set_hidden_outputs(app, {{"-o", path}});  // checked against the inputs as -o is
          path = "-";
        }
        return std::string();
      },
      ""));
  set_examples(cmd, {tr("tfx model quantize qwen2.5-0.5b/ --type q8_0 -o qwen-q8_0.gguf"),
                     tr("tfx model quantize gpt2/ --type f16,q8_0,q5_0,q4_0 --measure \"The capital of France is\" --png")});
}

}  // namespace tfx::cli
