// `tfx model quantize SRC --type TYPE -o OUT.gguf`: a folder or GGUF file written as a GGUF of
// llama.cpp's quantized types (tfx/model/quantize.hpp), and with --show TEXT the lesson: what each
// type cost — per-tensor relative error and its histogram, one tensor's weights before and after,
// and on TEXT the next-token KL divergence, top-1 agreement and perplexity — in one table and one
// figure. --show measures inside one run (each type quantized, written to a temporary GGUF, opened
// as every model command opens it, and run beside the source), so several types compare at once
// against the exact source weights; `tfx model compare A B` would need a file per type.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "cli/commands/model/model.hpp"
#include "cli/commands/model/model_input.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
#include "cli/written_files.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/io/temp_file.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/quantize.hpp"

namespace tfx::cli {

namespace {

struct QuantizeType {
  StoredType type;
  const char* name;
};
// the types tfx quantizes to, as --type spells them
constexpr QuantizeType kQuantizeTypes[] = {{StoredType::f32, "f32"},   {StoredType::f16, "f16"},   {StoredType::bf16, "bf16"},
                                           {StoredType::q8_0, "q8_0"}, {StoredType::q6_k, "q6_k"}, {StoredType::q5_1, "q5_1"},
                                           {StoredType::q5_k, "q5_k"}, {StoredType::q5_0, "q5_0"}, {StoredType::q4_1, "q4_1"},
                                           {StoredType::q4_k, "q4_k"}, {StoredType::q4_0, "q4_0"}};

std::string quantize_type_names() {
  std::string s;
  for (const QuantizeType& t : kQuantizeTypes) s += (s.empty() ? "" : "|") + std::string(t.name);
  return s + "|q4_k_m|q5_k_m";
}

// a type, or (where `mixes`) one of llama-quantize's mixes
QuantRecipe parse_quantize_recipe(const std::string& name, const std::string& flag, bool mixes) {
  std::string lower = name;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const QuantizeType& t : kQuantizeTypes)
    if (lower == t.name) return t.type;
  if (mixes && lower == "q4_k_m") return {StoredType::q4_k, QuantMix::q4_k_m};
  if (mixes && lower == "q5_k_m") return {StoredType::q5_k, QuantMix::q5_k_m};
  if (lower == "q4_k_s" || lower == "q5_k_s" || lower.ends_with("_k_l") || (!mixes && lower.ends_with("_k_m")))
    throw usage_error(fmt::format(N_("{} {}: tfx writes the mixes q4_k_m and q5_k_m (as --type) and single types; expected one of {}"), flag,
                                  name, quantize_type_names()));
  throw usage_error(fmt::format(N_("{} {}: unknown type; expected one of {}"), flag, name, quantize_type_names()));
}
StoredType parse_quantize_type(const std::string& name, const std::string& flag) { return parse_quantize_recipe(name, flag, false).type; }

struct ModelQuantizeOptions {
  std::string src, types = "q8_0", model_out, fallback, show, tensor;
  OutputFlags out;
  FigureFlags fig;
};


// a recipe's name as --type spells it, and as the tables print it (Q4_K_M)
std::string recipe_name(const QuantRecipe& r) {
  return r.mix == QuantMix::q4_k_m ? "Q4_K_M" : r.mix == QuantMix::q5_k_m ? "Q5_K_M" : stored_type_name(r.type);
}
std::string lower_recipe_name(const QuantRecipe& r) {
  std::string s = recipe_name(r);
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}
// the tensors a recipe quantizes: its type (not kept F32, nor --fallback's); a mix: every one not F32
bool applies(const QuantRecipe& r, StoredType t) { return r.mix == QuantMix::none ? t == r.type : t != StoredType::f32; }

// quantized bits per weight of the tensors the recipe applies to
double bits_per_weight(const std::vector<TensorError>& errors, const QuantRecipe& r) {
  double bits = 0, n = 0;
  for (const TensorError& e : errors)
    if (applies(r, e.type)) bits += 8.0 * static_cast<double>(stored_row_bytes(e.type, e.values)), n += static_cast<double>(e.values);
  return n > 0 ? bits / n : 32.0;
}

// a histogram of xs over [lo, hi) in `bins` bins: (bin centres, counts)
std::pair<std::vector<double>, std::vector<double>> histogram(const std::vector<double>& xs, double lo, double hi, std::size_t bins) {
  std::vector<double> centres(bins), counts(bins, 0.0);
  const double w = (hi - lo) / static_cast<double>(bins);
  for (std::size_t b = 0; b < bins; ++b) centres[b] = lo + w * (static_cast<double>(b) + 0.5);
  for (double x : xs) {
    if (!std::isfinite(x)) continue;
    auto b = static_cast<long long>(std::floor((x - lo) / w));
    b = std::clamp<long long>(b, 0, static_cast<long long>(bins) - 1);
    counts[static_cast<std::size_t>(b)] += 1;
  }
  return {centres, counts};
}

struct TypeRun {
  QuantRecipe type;
  std::vector<TensorError> errors;
  std::size_t file_bytes = 0;
  std::optional<QuantizedModel> model;  // in memory: for --show and the figure
  std::optional<NextTokenCost> cost;
};

// -o FILE.gguf written tensor by tensor into a temporary beside it, renamed onto it at the end
std::vector<TensorError> write_model_file(const QuantSource& src, const QuantRecipe& type, std::optional<StoredType> fallback,
                                          const std::string& path, std::size_t& bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::error_code ec;
  mode_t mode = default_file_mode();
  if (fs::exists(target, ec)) mode = static_cast<mode_t>(fs::status(target, ec).permissions() & fs::perms::mask);
  TempFile tmp(dir, ".tfx-quantize-", ".gguf", "-o " + path);
  std::vector<TensorError> errors = write_quantized_gguf(src, type, fallback, [&](std::string_view b) {
    bytes += b.size();
    if (!b.empty() && !tmp.write_all(b.data(), b.size()))
      throw Error(fmt::format(N_("{}: cannot write: {}"), "-o " + path, std::strerror(errno)));
  });
  tmp.commit(path, mode, "-o " + path);
  return errors;
}

void run_model_quantize(const ModelQuantizeOptions& o) {
  std::vector<QuantRecipe> types;
  for (const std::string& item : split_items(o.types)) {
    const QuantRecipe t = parse_quantize_recipe(item, "--type", true);
    if (std::none_of(types.begin(), types.end(), [&](const QuantRecipe& u) { return u.type == t.type && u.mix == t.mix; })) types.push_back(t);
  }
  if (types.empty()) throw usage_error(fmt::format(N_("--type: expected one of {}"), quantize_type_names()));
  if (!o.model_out.empty() && types.size() > 1)
    throw usage_error(fmt::format(N_("-o {}: one file holds one type; give one --type (several are for --show)"), o.model_out));
  std::optional<StoredType> fallback;
  if (!o.fallback.empty()) fallback = parse_quantize_type(o.fallback, "--fallback");

  const QuantSource src = read_quant_source(o.src);
  const bool in_memory = !o.show.empty() || figure_drawn(o.fig, o.out);
  std::vector<TypeRun> runs;
  std::string written;
  for (const QuantRecipe& t : types) {
    TypeRun r{t, {}, 0, std::nullopt, std::nullopt};
    if (!o.model_out.empty()) {
      r.errors = write_model_file(src, t, fallback, o.model_out, r.file_bytes);
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

  // --show TEXT: the source and each type on the same ids
  std::optional<LoadedInput> in;
  if (!o.show.empty()) {
    ModelInput mi;
    mi.dir = o.src;
    mi.text = o.show;
    in.emplace(load_input(mi));
    if (!in->model.config.decoder()) throw usage_error(fmt::format(N_("--show: {} is not a decoder; the cost is measured on next-token predictions"), o.src));
    const Tensor ref = model_forward(in->model, in->ids, true).logits;
    const std::string tmp_dir = std::filesystem::temp_directory_path().string();
    for (TypeRun& r : runs) {
      const std::string bytes = encode_gguf(r.model->metadata, r.model->tensors);
      TempFile tmp(tmp_dir, "tfx-quantize-", ".gguf", "the quantized model for --show");
      if (!tmp.write_all(bytes.data(), bytes.size()) || !tmp.close_fd())
        throw Error(fmt::format(N_("{}: could not write the quantized model for --show: {}"), tmp.path(), std::strerror(errno)));
      const Checkpoint q = load_checkpoint(tmp.path());
      r.cost = next_token_cost(ref, model_forward(q, in->ids, true).logits, in->ids);
    }
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
    double sum = 0, mx = 0;
    std::size_t n = 0;
    std::string worst;
    for (const TensorError& e : r.errors) {
      if (!applies(r.type, e.type)) continue;  // kept F32, or --fallback's type
      sum += e.relative_error, ++n;
      if (e.relative_error >= mx) mx = e.relative_error, worst = e.name;
    }
    std::vector<Cell> row = {recipe_name(r.type), bits_per_weight(r.errors, r.type),
                             static_cast<double>(r.file_bytes) / 1e6, n ? sum / static_cast<double>(n) : 0.0, mx, worst};
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
  constexpr double kLo = -8, kHi = 0;
  constexpr std::size_t kBins = 16;
  std::vector<std::vector<double>> counts;
  std::vector<double> centres;
  for (const TypeRun& r : runs) {
    std::vector<double> logs;
    for (const TensorError& e : r.errors)
      if (applies(r.type, e.type) && e.relative_error > 0) logs.push_back(std::log10(e.relative_error));
    auto h = histogram(logs, kLo, kHi, kBins);
    centres = h.first;
    counts.push_back(h.second);
  }
  Records hist;
  hist.name = N_("error histogram");
  hist.columns = {N_("log10 rel. error")};
  for (const TypeRun& r : runs) hist.columns.push_back(lower_recipe_name(r.type));
  for (std::size_t b = 0; b < kBins; ++b) {
    std::vector<Cell> row = {fmt::format("[{:g}, {:g})", kLo + (kHi - kLo) * static_cast<double>(b) / kBins, kLo + (kHi - kLo) * static_cast<double>(b + 1) / kBins)};
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
      auto share = [&](const std::vector<double>& xs) {
        auto h = histogram(xs, lo, hi + (hi - lo) * 1e-9, bins);
        for (double& c : h.second) c /= static_cast<double>(std::max<std::size_t>(1, xs.size()));
        return h;
      };
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
    if (in) {
      Bars kl;
      kl.title = tr("next-token KL divergence (nats)");
      kl.category_label = tr("type");
      kl.value_label = tr("KL");
      kl.vmin = 0;
      kl.annotate = true;
      Bars top;
      top.title = tr("top-1 agreement with the source");
      top.category_label = tr("type");
      top.value_label = tr("share of positions");
      top.vmin = 0, top.vmax = 1;
      top.annotate = true;
      top.color = 1;
      Bars ppl;
      ppl.title = tr("perplexity change");
      ppl.category_label = tr("type");
      ppl.value_label = tr("relative change");
      ppl.annotate = true;
      ppl.color = 2;
      for (const TypeRun& r : runs) {
        kl.labels.push_back(recipe_name(r.type)), kl.values.push_back(r.cost->kl);
        top.labels.push_back(recipe_name(r.type)), top.values.push_back(r.cost->top1);
        ppl.labels.push_back(recipe_name(r.type)), ppl.values.push_back(r.cost->ppl_q / r.cost->ppl_ref - 1.0);
      }
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
  auto [cmd, o] = add_command(model, "quantize", tr("Write a folder or GGUF as a quantized GGUF (llama.cpp's types); --show TEXT: what it costs"),
                              run_model_quantize);
  cmd->add_option("SRC", o->src, tr("Checkpoint folder (llama, mistral, qwen2, qwen3, gpt2) or a GGUF file"))->required();
  cmd->add_option("--type", o->types, trf("Type(s) to quantize to, comma-separated: {}", quantize_type_names()))->capture_default_str();
  cmd->add_option("--fallback", o->fallback, tr("Type for the tensors whose rows are not whole blocks of --type (default: refuse)"));
  cmd->add_option("--show", o->show, tr("Measure the cost on this text: next-token KL, top-1 agreement, perplexity"))->type_name("TEXT");
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
                     tr("tfx model quantize gpt2/ --type f16,q8_0,q5_0,q4_0 --show \"The capital of France is\" --png")});
}

}  // namespace tfx::cli
