// `tfx attention masks`: one mask written in each convention people meet (pytorch#21518's
// confusion): nn.MultiheadAttention's bool attn_mask / key_padding_mask (True = blocked),
// F.scaled_dot_product_attention's bool attn_mask (True = attend), the additive float mask
// (0 / −inf, nn.Transformer.generate_square_subsequent_mask) and Hugging Face's attention_mask
// (1 = attend, padding only); the weights they all give on the same scores, and what happens when
// MultiheadAttention's mask is handed to SDPA unchanged (the complement is attended; a row with
// nothing left is NaN in PyTorch).
#include <fmt/format.h>

#include <cmath>
#include <algorithm>

#include "cli/commands/attention/attention_command.hpp"
#include "cli/common.hpp"
#include "cli/flags/shape_flags.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/random.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx::cli {

namespace {

struct MaskOptions {
  std::int64_t len = 4;
  std::int64_t pad = 0;
  bool no_causal = false;
  std::uint64_t seed = 42;
  OutputFlags out;
  FigureFlags fig;
};

void run_masks(const MaskOptions& o) {
  const auto T = static_cast<std::size_t>(o.len);
  const auto P = static_cast<std::size_t>(o.pad);
  const bool causal = !o.no_causal;
  if (P >= T) throw usage_error(fmt::format(N_("--pad {}: at least one of the --len {} keys must stay unpadded"), P, T));
  if (!causal && P == 0) throw usage_error(N_("--no-causal with --pad 0 masks nothing; give --pad N (the last N keys are padding)"));
  // blocked(i, j): key j is hidden from query i
  auto blocked = [&](std::size_t i, std::size_t j) { return (causal && j > i) || j >= T - P; };
  // example scores: seeded N(0, 1) (tfx/random.hpp), the same for every convention
  Generator rng(o.seed);
  Tensor scores({T, T});
  for (float& v : scores.values()) v = static_cast<float>(rng.normal());
  std::vector<std::string> tok;
  for (std::size_t i = 0; i < T; ++i) tok.push_back(fmt::format("t{}", i));

  std::vector<unsigned char> keep(T * T), inverted(T * T);
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < T; ++j) keep[i * T + j] = blocked(i, j) ? 0 : 1, inverted[i * T + j] = blocked(i, j) ? 1 : 0;
  const Tensor weights = softmax_rows(scores, &keep);

  Result r;
  r.command = "attention masks";
  r.params = {{"len", T}, {"pad", P}, {"causal", causal}, {"seed", o.seed}};
  const std::string what = causal && P ? trnf("causal (key j > query i) and the last {} key padding", "causal (key j > query i) and the last {} keys padding", P, P)
                           : causal    ? std::string(tr("causal: query i may not see a later key j > i"))
                                       : trnf("padding: the last {} key of {} are padding", "padding: the last {} keys of {} are padding", P, P, T);
  r.blocks.push_back(Text{trf("One mask, {}, in each convention — the same weights when each is used as its API expects:", what)});
  Records conv;
  conv.name = N_("conventions");
  conv.columns = {N_("convention"), N_("blocked"), N_("attended"), N_("shape"), N_("note")};
  conv.rows = {
      {std::string("nn.MultiheadAttention attn_mask (bool)"), std::string("True"), std::string("False"), std::string("(T, S)"),
       std::string(tr("True = not allowed to attend"))},
      {std::string("nn.MultiheadAttention key_padding_mask"), std::string("True"), std::string("False"), std::string("(N, S)"),
       std::string(tr("padding only: True = ignore this key"))},
      {std::string("F.scaled_dot_product_attention attn_mask (bool)"), std::string("False"), std::string("True"), std::string("(T, S)"),
       std::string(tr("the opposite: True = take part in attention (PyTorch ≥ 2.0)"))},
      {std::string(tr("additive float mask (both APIs)")), std::string("-inf"), std::string("0"), std::string("(T, S)"),
       std::string(tr("added to the scores; generate_square_subsequent_mask(T) is this"))},
      {std::string("Hugging Face attention_mask"), std::string("0"), std::string("1"), std::string("(N, S)"),
       std::string(tr("from the tokenizer; padding only (the model adds its causal mask)"))},
  };
  r.blocks.push_back(std::move(conv));
  auto mask_records = [&](std::string name, const char* yes, const char* no, bool is_blocked_yes) {
    Records m;
    m.name = std::move(name);
    m.columns = {N_("query\\key")};
    for (const auto& t : tok) m.columns.push_back(t);
    for (std::size_t i = 0; i < T; ++i) {
      std::vector<Cell> row{tok[i]};
      for (std::size_t j = 0; j < T; ++j) row.push_back(std::string(blocked(i, j) == is_blocked_yes ? yes : no));
      m.rows.push_back(std::move(row));
    }
    return m;
  };
  r.blocks.push_back(Text{tr("nn.MultiheadAttention(attn_mask=…), bool: True = blocked")});
  r.blocks.push_back(mask_records("mha_bool", "True", "False", true));
  r.blocks.push_back(Text{tr("F.scaled_dot_product_attention(attn_mask=…), bool: True = attend")});
  r.blocks.push_back(mask_records("sdpa_bool", "True", "False", false));
  r.blocks.push_back(Text{tr("additive float mask (scores + mask before softmax): −inf = blocked")});
  r.blocks.push_back(mask_records("additive", "-inf", "0", true));
  if (P) {
    Records hf;
    hf.name = N_("hf_attention_mask");
    hf.columns = {N_("sequence")};
    for (const auto& t : tok) hf.columns.push_back(t);
    std::vector<Cell> row{std::string("attention_mask")};
    for (std::size_t j = 0; j < T; ++j) row.push_back(static_cast<long long>(j >= T - P ? 0 : 1));
    hf.rows.push_back(std::move(row));
    r.blocks.push_back(Text{tr("Hugging Face's attention_mask for this padding (one row per sequence): 1 = a real token, 0 = padding")});
    r.blocks.push_back(std::move(hf));
  }
  Matrix sm;
  sm.name = N_("scores");
  sm.values = scores;
  sm.row_labels = sm.col_labels = tok;
  sm.row_axis = N_("query");
  sm.col_axis = N_("key");
  r.blocks.push_back(Text{trf("example scores (seeded N(0, 1), --seed {}), the same for every convention", o.seed)});
  r.blocks.push_back(sm);
  Matrix wm = sm;
  wm.name = N_("weights");
  wm.values = weights;
  r.blocks.push_back(Text{tr("weights = softmax over the keys left: identical for the bool mask of either API used as it expects and for the additive mask")});
  r.blocks.push_back(wm);
  // the mistake: MultiheadAttention's mask (True = blocked) handed to SDPA (True = attend)
  Records wrong;
  wrong.name = N_("mha_mask_given_to_sdpa");
  wrong.columns = {N_("query\\key")};
  for (const auto& t : tok) wrong.columns.push_back(t);
  std::size_t nan_rows = 0;
  Tensor wrong_w({T, T});
  std::vector<bool> none_left(T, false);  // rows the inverted mask blocks entirely (NaN in PyTorch)
  for (std::size_t i = 0; i < T; ++i) {
    bool any = false;
    for (std::size_t j = 0; j < T; ++j) any = any || inverted[i * T + j];
    none_left[i] = !any;
    std::vector<Cell> row{tok[i]};
    if (!any) {
      ++nan_rows;
      for (std::size_t j = 0; j < T; ++j) row.push_back(std::string("NaN"));
      for (std::size_t j = 0; j < T; ++j) wrong_w(i, j) = 0;
    } else {
      std::vector<unsigned char> one(inverted.begin() + static_cast<std::ptrdiff_t>(i * T),
                                     inverted.begin() + static_cast<std::ptrdiff_t>((i + 1) * T));
      Tensor s({1, T});
      for (std::size_t j = 0; j < T; ++j) s(0, j) = scores(i, j);
      const Tensor w = softmax_rows(s, &one);
      for (std::size_t j = 0; j < T; ++j) row.push_back(static_cast<double>(w(0, j))), wrong_w(i, j) = w(0, j);
    }
    wrong.rows.push_back(std::move(row));
  }
  r.blocks.push_back(Text{trf("the mistake (pytorch#21518): MultiheadAttention's bool mask passed to SDPA unchanged — each query "
                                      "attends exactly the keys it should not{}",
                                      nan_rows ? trnf("; {} row with no key left gives NaN", "; {} rows with no key left give NaN", nan_rows, nan_rows)
                                               : "")});
  r.blocks.push_back(std::move(wrong));
  r.primary = "weights";
  r.summary[N_("blocked")] = std::count(inverted.begin(), inverted.end(), 1);
  r.summary[N_("nan_rows_if_inverted")] = nan_rows;

  // figure: the two bool masks, the right weights, the wrong ones
  Figure fig;
  fig.title = tr("One mask, two bool conventions: nn.MultiheadAttention (True = blocked) vs SDPA (True = attend)");
  fig.columns = 2;
  auto bool_map = [&](const std::string& title, bool true_is_blocked) {
    Heatmap h;
    h.values = Tensor({T, T});
    for (std::size_t i = 0; i < T; ++i)
      for (std::size_t j = 0; j < T; ++j) h.values(i, j) = blocked(i, j) == true_is_blocked ? 1.0f : 0.0f;
    h.title = title;
    h.subtitle = tr("white = True, black = False");
    h.annotate = false;
    h.row_labels = h.col_labels = tok;
    h.x_label = tr("key");
    h.y_label = tr("query");
    h.cmap = Colormap::gray;
    h.vmin = 0;
    h.vmax = 1;
    h.value_label = tr("mask value");
    return h;
  };
  fig.panels.push_back(bool_map("MultiheadAttention attn_mask", true));
  fig.panels.push_back(bool_map("SDPA attn_mask", false));
  Heatmap right;
  right.values = weights;
  right.title = tr("weights, mask used as intended");
  right.row_labels = right.col_labels = tok;
  right.x_label = tr("key");
  right.y_label = tr("query");
  right.vmin = 0;
  right.vmax = 1;
  right.value_label = tr("attention weight");
  right.masked.assign(T * T, 0);
  for (std::size_t k = 0; k < T * T; ++k) right.masked[k] = keep[k] ? 0 : 1;
  Heatmap wrong_map = right;
  wrong_map.values = wrong_w;
  wrong_map.title = tr("MHA's mask given to SDPA");
  wrong_map.subtitle = nan_rows ? tr("grey rows: NaN (no key left)") : "";
  for (std::size_t i = 0; i < T; ++i)
    for (std::size_t j = 0; j < T; ++j) wrong_map.masked[i * T + j] = none_left[i] || !inverted[i * T + j] ? 1 : 0;
  fig.panels.push_back(right);
  fig.panels.push_back(wrong_map);
  present_all(r, o.out, o.fig, &fig, &right,
              fmt::format("attention_masks_len{}{}{}.png", T, causal ? "_causal" : "", P ? fmt::format("_pad{}", P) : ""));
}

}  // namespace

void register_attention_masks(CLI::App* attention) {
  auto [cmd, o] = add_command(*attention, "masks", tr("One mask in every convention: MultiheadAttention bool (True = blocked), SDPA bool (True = attend), additive −inf, HF attention_mask"),
                              run_masks);
  add_len_flag(cmd, o->len, tr("the tokens T, queries = keys; at most 64 here"))->check(command_bound(1, 64));
  add_pad_flag(cmd, o->pad, tr("at most 63 here"))->check(command_bound(0, 63));
  cmd->add_flag("--no-causal", o->no_causal, tr("Padding only, no causal mask"));
  add_seed_flag(cmd, o->seed);
  add_presentation_flags(cmd, o->out, o->fig);
  set_examples(cmd, {tr("tfx attention masks                       # causal, T = 4: the three conventions and their weights"),
                     tr("tfx attention masks --len 5 --pad 2 --png # causal and padding; HF's attention_mask too"),
                     tr("tfx attention masks --no-causal --pad 1 --format json")});
}

}  // namespace tfx::cli
