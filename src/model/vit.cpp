// ViT (HF's ViTModel / ViTForImageClassification, modeling_vit.py in eval mode, and
// image_processing_vit.py's ViTImageProcessor): config keys, tensor names, the typed weights, the
// preprocessing and the forward pass over a picture, top to bottom. Conv2d patch embedding (as a
// GEMM over F.unfold's rows, tfx/attention/vision.hpp), [CLS] first, learned positions, pre-LN
// blocks, erf GELU, the final LayerNorm and the classifier on the [CLS] row. Besides the taps every
// family has (family.hpp), mlp_in (after layernorm_after), mlp_pre (before GELU) and, at layer L,
// final_norm (the [CLS] row after the final layernorm): what training's backward reads
// (src/model/train/vit_train.cpp).
#include "tfx/model/builtin_models.hpp"
#include "tfx/model/vit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "model/family_files.hpp"
#include "tfx/attention/attention.hpp"
#include "tfx/attention/vision.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace family_files {

namespace {

constexpr unsigned kVitThreads = 0;  // all cores for the matmuls
constexpr const char* kVitPosition = "embeddings.position_embeddings";
constexpr const char* kVitPatch = "embeddings.patch_embeddings.projection.weight";

// hidden_act is "gelu" (erf) in every ViT checkpoint; gelu_new is accepted as BERT's reader does
constexpr GeluFamilyKeys kVitKeys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", 4,
                                     "max_position_embeddings", 1, "layer_norm_eps", 1e-12, "hidden_act", {"gelu", "gelu_new"}};

void vit_read_config(const nlohmann::json& j, const std::string& where, ModelConfig& c) {
  nlohmann::json k = j;
  k["vocab_size"] = std::uint64_t{1};  // ViT has no vocabulary: the labels take its place below
  k.erase("max_position_embeddings");
  read_gelu_family(k, kVitKeys, where, c);
  c.image_size = whole_field(j, "image_size", where, 224);
  c.patch_size = whole_field(j, "patch_size", where, 16);
  c.channels = whole_field(j, "num_channels", where, 3);
  if (c.patch_size > c.image_size || c.image_size % c.patch_size != 0)
    bad(where, fmt::format(N_("image_size {} is not a multiple of patch_size {} (ViT cuts the picture into whole patches)"), c.image_size,
                           c.patch_size));
  if (c.channels != 3) bad(where, fmt::format(N_("num_channels {}: tfx reads pictures as RGB, 3 channels"), c.channels));
  const std::size_t g = c.image_size / c.patch_size;
  if (g > 4096) bad(where, fmt::format(N_("{} patches a side is too many"), g));
  c.max_positions = g * g + 1;  // the patches and [CLS]
  // id2label {"0": "tabby cat", …}: every id from 0 once
  if (j.contains("id2label") && !j["id2label"].is_null()) {
    const nlohmann::json& m = j["id2label"];
    if (!m.is_object() || m.empty() || m.size() > (1u << 20)) bad(where, N_("\"id2label\" should be an object {\"0\": \"label\", …}"));
    c.labels.assign(m.size(), "");
    for (const auto& [id, label] : m.items()) {
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
      if (ec != std::errc() || end != id.data() + id.size() || n >= m.size() || !label.is_string() || !c.labels[n].empty())
        bad(where, fmt::format(N_("id2label: \"{}\" should be a class id from 0 to {} with a label string, each once"), id, m.size() - 1));
      c.labels[n] = label.get<std::string>();
      if (c.labels[n].empty()) c.labels[n] = fmt::format("LABEL_{}", n);
    }
  }
  c.vocab = std::max<std::size_t>(1, c.labels.size());
}

std::vector<TensorSlot> vit_slots(Checkpoint& m, const MappedWeights& file) {
  const ModelConfig& c = m.config;
  VitWeights& w = m.weights.emplace<VitWeights>();
  w.layers.resize(c.layers);
  const std::size_t D = c.d_model, F = c.ffn, C = c.channels, P = c.patch_size, T = c.max_positions;
  // ViTForImageClassification stores the base model under vit., a ViTModel file without it
  const std::string b = file.shape(std::string("vit.") + kVitPatch).empty() ? "" : "vit.";
  std::vector<TensorSlot> s = {{b + "embeddings.cls_token", {1, 1, D}, &w.cls},
                               {b + kVitPosition, {1, T, D}, &w.position},
                               {b + kVitPatch, {D, C, P, P}, &w.patch_w},
                               {b + "embeddings.patch_embeddings.projection.bias", {D}, &w.patch_b},
                               {b + "layernorm.weight", {D}, &w.final_w},
                               {b + "layernorm.bias", {D}, &w.final_b}};
  s[0].held = {1, D};
  s[2].held = {D, C * P * P};
  for (std::size_t i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("{}encoder.layer.{}.", b, i);
    VitLayerWeights& l = w.layers[i];
    const std::vector<TensorSlot> layer = {
        {p + "layernorm_before.weight", {D}, &l.ln1_w},           {p + "layernorm_before.bias", {D}, &l.ln1_b},
        {p + "attention.attention.query.weight", {D, D}, &l.q_w}, {p + "attention.attention.query.bias", {D}, &l.q_b},
        {p + "attention.attention.key.weight", {D, D}, &l.k_w},   {p + "attention.attention.key.bias", {D}, &l.k_b},
        {p + "attention.attention.value.weight", {D, D}, &l.v_w}, {p + "attention.attention.value.bias", {D}, &l.v_b},
        {p + "attention.output.dense.weight", {D, D}, &l.o_w},    {p + "attention.output.dense.bias", {D}, &l.o_b},
        {p + "layernorm_after.weight", {D}, &l.ln2_w},            {p + "layernorm_after.bias", {D}, &l.ln2_b},
        {p + "intermediate.dense.weight", {F, D}, &l.ffn_in_w},   {p + "intermediate.dense.bias", {F}, &l.ffn_in_b},
        {p + "output.dense.weight", {D, F}, &l.ffn_out_w},        {p + "output.dense.bias", {D}, &l.ffn_out_b}};
    for (TensorSlot t : layer) {
      t.layer = i;
      s.push_back(std::move(t));
    }
  }
  if (!file.shape("classifier.weight").empty()) {
    s.push_back({"classifier.weight", {c.vocab, D}, &w.classifier_w});
    s.push_back({"classifier.bias", {c.vocab}, &w.classifier_b});
  }
  return s;
}

OutputHead vit_output_head(const Checkpoint& m) {
  return std::get<VitWeights>(m.weights).classifier_w.empty() ? OutputHead::none : OutputHead::classifier;
}

ForwardPass vit_forward_text(const Checkpoint& m, const std::vector<std::size_t>&, const ForwardOptions&) {
  throw usage_error(fmt::format(N_("{}: a ViT reads a picture, not text (give image FILE)"), m.dir), {"image"});
}

// the final LayerNorm, then the classifier: x (T, D) → (T, labels)
Tensor vit_final_norm_and_head(const Checkpoint& m, const Tensor& x) {
  const VitWeights& w = std::get<VitWeights>(m.weights);
  return linear(layer_norm(x, w.final_w, w.final_b, static_cast<float>(m.config.eps)), w.classifier_w, w.classifier_b, kVitThreads);
}

// pixels (C, S, S) as vit_pixel_values gives them → hidden (layers + 1, N + 1, D), attentions, logits (1, L)
ForwardPass vit_forward(const Checkpoint& m, const Tensor& pixels, const ForwardOptions& o) {
  const ModelConfig& c = m.config;
  const VitWeights& w = std::get<VitWeights>(m.weights);
  const float eps = static_cast<float>(c.eps);
  const std::size_t L = w.layers.size();
  if (pixels.rank() != 3 || pixels.dim(0) != c.channels || pixels.dim(1) != c.image_size || pixels.dim(2) != c.image_size)
    throw Error(fmt::format(N_("{}: pixel values are {}, the model reads [{}, {}, {}]"), m.dir, pixels.shape_str(), c.channels,
                            c.image_size, c.image_size));
  ForwardPass out;
  // embeddings: Conv2d(kernel = stride = P) = the unfolded patches × the flattened kernel, [CLS]
  // in front, + positions (or the resumed stream)
  Tensor x;
  if (o.resume) {
    x = o.resume->residual;
  } else {
    const Tensor patches = linear(unfold_patches(pixels, c.patch_size), w.patch_w, w.patch_b, kVitThreads);
    x = Tensor({patches.rows() + 1, c.d_model});
    std::copy_n(w.cls.data(), c.d_model, x.data());
    std::copy_n(patches.data(), patches.size(), x.data() + c.d_model);
    add_table_rows(x, widen(w.position), 0);
  }
  for (std::size_t i = first_block(o); i < L; ++i) {
    const VitLayerWeights& l = w.layers[i];
    enter_block(out, x, i, 0, o);
    // pre-LN self-attention (no mask) and its residual
    const Tensor h = layer_norm(x, l.ln1_w, l.ln1_b, eps);
    tap(o, "attn_in", i, h);
    const Tensor q = linear(h, l.q_w, l.q_b, kVitThreads);
    const Tensor k = linear(h, l.k_w, l.k_b, kVitThreads);
    const Tensor v = linear(h, l.v_w, l.v_b, kVitThreads);
    const Tensor z = encoder_attention(out, i, q, k, v, c.heads, c.head_dim, o);
    Tensor r = linear(z, l.o_w, l.o_b, kVitThreads);
    tap(o, "attn_out", i, r);
    add_inplace(r, x);
    tap(o, "resid_mid", i, r);
    // pre-LN MLP: dense, GELU, dense, residual
    const Tensor mlp_in = layer_norm(r, l.ln2_w, l.ln2_b, eps);
    tap(o, "mlp_in", i, mlp_in);
    Tensor f = linear(mlp_in, l.ffn_in_w, l.ffn_in_b, kVitThreads);
    tap(o, "mlp_pre", i, f);
    gelu_inplace(f, gelu_form(c));
    tap(o, "mlp_act", i, f);
    x = linear(f, l.ffn_out_w, l.ffn_out_b, kVitThreads);
    tap(o, "mlp_out", i, x);
    add_inplace(x, r);
  }
  enter_block(out, x, L, 0, o);
  if (o.logits != LogitRows::none && !w.classifier_w.empty()) {
    // the final LayerNorm, then the classifier on the [CLS] row
    Tensor cls({1, c.d_model});
    std::copy_n(x.data(), c.d_model, cls.data());
    const Tensor normed = layer_norm(cls, w.final_w, w.final_b, eps);
    tap(o, "final_norm", L, normed);  // what the classifier reads (training's backward)
    out.logits = linear(normed, w.classifier_w, w.classifier_b, kVitThreads);
  }
  return out;
}

const StoredMatrix& vit_token_embedding(const Checkpoint& m) {
  throw usage_error(fmt::format(N_("{}: a ViT has no token embedding (it embeds picture patches)"), m.dir));
}
const StoredMatrix* vit_position_table(const Checkpoint& m) { return &std::get<VitWeights>(m.weights).position; }

}  // namespace

const Family kVit = {.model_type = "vit",
                     .summary = N_("ViT (image encoder, pre-LN, learned positions)"),
                     .decoder = false,
                     .rope = false,
                     .masked_lm = false,
                     .final_norm = false,
                     .read_config = vit_read_config,
                     .tensor_slots = vit_slots,
                     .output_head = vit_output_head,
                     .forward = vit_forward_text,
                     .token_embedding = vit_token_embedding,
                     .token_embedding_name = "",
                     .position_table = vit_position_table,
                     .position_table_name = kVitPosition,
                     .final_norm_and_head = vit_final_norm_and_head,
                     .norm_name = "LayerNorm",
                     .ffn_name = "GELU",
                     .positions_name = "learned",
                     .forward_image = vit_forward};


}  // namespace family_files

namespace {

[[noreturn]] void vit_bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

// PIL's bilinear filter (Resample.c): a triangle 1 − |x| on [−1, 1].
double vit_triangle(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

// PIL's precompute_coeffs + normalize_coeffs_8bpc for one axis: for each output pixel the first
// source pixel, how many, and fixed-point weights (22 fraction bits).
constexpr int kVitPrecision = 32 - 8 - 2;
struct VitCoeffs {
  std::vector<int> first, count;
  std::vector<std::int64_t> k;  // out × ksize
  int ksize = 0;
};
VitCoeffs vit_coeffs(int in, int out) {
  const double scale = static_cast<double>(in) / out, filterscale = std::max(1.0, scale), support = 1.0 * filterscale;
  VitCoeffs c;
  c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.first.resize(static_cast<std::size_t>(out));
  c.count.resize(static_cast<std::size_t>(out));
  c.k.assign(static_cast<std::size_t>(out) * c.ksize, 0);
  std::vector<double> w(static_cast<std::size_t>(c.ksize));
  for (int xx = 0; xx < out; ++xx) {
    const double center = (xx + 0.5) * scale, ss = 1.0 / filterscale;
    int xmin = static_cast<int>(center - support + 0.5), xmax = static_cast<int>(center + support + 0.5);
    xmin = std::max(xmin, 0);
    xmax = std::min(xmax, in) - xmin;
    double ww = 0;
    for (int x = 0; x < xmax; ++x) ww += (w[static_cast<std::size_t>(x)] = vit_triangle((x + xmin - center + 0.5) * ss));
    for (int x = 0; x < xmax; ++x) {
      const double v = ww != 0.0 ? w[static_cast<std::size_t>(x)] / ww : w[static_cast<std::size_t>(x)];
      c.k[static_cast<std::size_t>(xx) * c.ksize + x] =
          static_cast<std::int64_t>(v < 0 ? -0.5 + v * (1 << kVitPrecision) : 0.5 + v * (1 << kVitPrecision));
    }
    c.first[static_cast<std::size_t>(xx)] = xmin;
    c.count[static_cast<std::size_t>(xx)] = xmax;
  }
  return c;
}

std::uint8_t vit_clip8(std::int64_t v) {
  if (v >= (std::int64_t{256} << kVitPrecision)) return 255;
  if (v <= 0) return 0;
  return static_cast<std::uint8_t>(v >> kVitPrecision);
}

// Image.resize((w, h), BILINEAR, reducing_gap=None) on an RGB picture: horizontal pass, then vertical.
Image vit_resize_bilinear(const Image& in, int width, int height) {
  if (in.width == width && in.height == height) return in;
  Image mid;
  mid.width = width, mid.height = in.height;
  mid.rgb.resize(static_cast<std::size_t>(width) * in.height * 3);
  const VitCoeffs h = vit_coeffs(in.width, width);
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < width; ++x)
      for (int ch = 0; ch < 3; ++ch) {
        std::int64_t s = std::int64_t{1} << (kVitPrecision - 1);
        for (int i = 0; i < h.count[static_cast<std::size_t>(x)]; ++i)
          s += in.rgb[(static_cast<std::size_t>(y) * in.width + h.first[static_cast<std::size_t>(x)] + i) * 3 + ch] *
               h.k[static_cast<std::size_t>(x) * h.ksize + i];
        mid.rgb[(static_cast<std::size_t>(y) * width + x) * 3 + ch] = vit_clip8(s);
      }
  if (in.height == height) return mid;
  Image out;
  out.width = width, out.height = height;
  out.rgb.resize(static_cast<std::size_t>(width) * height * 3);
  const VitCoeffs v = vit_coeffs(in.height, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int ch = 0; ch < 3; ++ch) {
        std::int64_t s = std::int64_t{1} << (kVitPrecision - 1);
        for (int i = 0; i < v.count[static_cast<std::size_t>(y)]; ++i)
          s += mid.rgb[((static_cast<std::size_t>(v.first[static_cast<std::size_t>(y)]) + i) * width + x) * 3 + ch] *
               v.k[static_cast<std::size_t>(y) * v.ksize + i];
        out.rgb[(static_cast<std::size_t>(y) * width + x) * 3 + ch] = vit_clip8(s);
      }
  return out;
}

// size as ViTImageProcessor accepts it: {"height": h, "width": w}, {"shortest_edge": n}, or n
std::pair<std::size_t, std::size_t> vit_size(const nlohmann::json& j, const std::string& where) {
  if (j.is_number_unsigned()) {
    nlohmann::json o = nlohmann::json::object();
    o["size"] = j;
    const std::size_t n = family_files::whole_field(o, "size", where);
    return {n, n};
  }
  if (j.is_object() && j.contains("height"))
    return {family_files::whole_field(j, "height", where), family_files::whole_field(j, "width", where)};
  if (j.is_object() && j.contains("shortest_edge")) {
    const std::size_t n = family_files::whole_field(j, "shortest_edge", where);
    return {n, n};
  }
  vit_bad(where, fmt::format(N_("\"size\" should be {{\"height\": H, \"width\": W}}, got {}"), json_excerpt(j)));
}

std::array<double, 3> vit_triple(const nlohmann::json& j, const char* key, const std::string& where, std::array<double, 3> fallback,
                                 bool positive) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  const nlohmann::json& v = j[key];
  if (v.is_number()) return {v.get<double>(), v.get<double>(), v.get<double>()};
  if (!v.is_array() || v.size() != 3) vit_bad(where, fmt::format(N_("\"{}\" should be 3 numbers (R, G, B), got {}"), key, json_excerpt(v)));
  std::array<double, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!v[i].is_number() || !std::isfinite(v[i].get<double>()) || (positive && !(v[i].get<double>() > 0)))
      vit_bad(where, fmt::format(N_("\"{}\" should be 3 {}numbers (R, G, B), got {}"), key, positive ? "positive " : "", json_excerpt(v)));
    out[i] = v[i].get<double>();
  }
  return out;
}

bool vit_flag(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return true;
  if (!j[key].is_boolean()) vit_bad(where, fmt::format(N_("\"{}\" should be true or false, got {}"), key, json_excerpt(j[key])));
  return j[key].get<bool>();
}

}  // namespace

// The largest normalized pixel value read_vit_processor accepts.
constexpr double kMaxPixelValue = 1e6;

VitProcessor read_vit_processor(const std::string& dir, const ModelConfig& c) {
  VitProcessor p;
  p.height = p.width = c.image_size;
  const std::filesystem::path file = std::filesystem::path(model_files_dir(dir)) / "preprocessor_config.json";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return p;
  const std::string where = file.string();
  nlohmann::json j;
  try {
    j = parse_json(read_text_input(where, "preprocessor_config.json"), where);
  } catch (const nlohmann::json::exception& e) {
    vit_bad(where, fmt::format(N_("not valid JSON ({})"), e.what()));
  }
  if (!j.is_object()) vit_bad(where, N_("should be a JSON object"));
  p.from_file = true;
  if (j.contains("size") && !j["size"].is_null()) std::tie(p.height, p.width) = vit_size(j["size"], where);
  if (p.height != c.image_size || p.width != c.image_size)
    vit_bad(where, fmt::format(N_("size {}×{} is not config.json's image_size {} (tfx does not interpolate the position embeddings)"), p.width,
                               p.height, c.image_size));
  p.do_resize = vit_flag(j, "do_resize", where);
  p.do_rescale = vit_flag(j, "do_rescale", where);
  p.do_normalize = vit_flag(j, "do_normalize", where);
  p.rescale_factor = family_files::number_field(j, "rescale_factor", where, p.rescale_factor);
  if (j.contains("resample") && !j["resample"].is_null() && j["resample"] != 2)
    vit_bad(where, fmt::format(N_("resample {} is not supported (tfx resizes as PIL's bilinear filter, resample 2)"), json_excerpt(j["resample"])));
  p.mean = vit_triple(j, "image_mean", where, p.mean, false);
  p.std = vit_triple(j, "image_std", where, p.std, true);
  // the normalized pixels the model reads: HF's processors give at most a few units; a tiny
  // image_std (1e-30) would overflow the first layer, and that is the file's fault, not the weights'
  if (p.do_normalize)
    for (std::size_t ch = 0; ch < 3; ++ch)
      for (const double v : {0.0, 255.0}) {
        const double x = ((p.do_rescale ? v * p.rescale_factor : v) - p.mean[ch]) / p.std[ch];
        if (!(std::fabs(x) <= kMaxPixelValue))
          vit_bad(where, fmt::format("image_mean {}, image_std {} and rescale_factor {} make a pixel of {} read as {:.3g}; a normalized "
                                     "pixel must stay within ±{:g} (HF's processors give a few units: image_std is too small?)",
                                     p.mean[ch], p.std[ch], p.do_rescale ? p.rescale_factor : 1.0, v, x, kMaxPixelValue));
      }
  return p;
}

Image vit_resized_picture(const Image& picture, const VitProcessor& p) {
  if (picture.width <= 0 || picture.height <= 0) throw Error(N_("the picture has no pixels"));
  if (static_cast<std::size_t>(picture.width) == p.width && static_cast<std::size_t>(picture.height) == p.height) return picture;
  if (!p.do_resize)
    throw Error(fmt::format(N_("the picture is {}×{} and the model reads {}×{}, but preprocessor_config.json says do_resize false"),
                            picture.width, picture.height, p.width, p.height));
  return vit_resize_bilinear(picture, static_cast<int>(p.width), static_cast<int>(p.height));
}

// v = rgb (0 … 255); v·rescale_factor (in double, stored float32 as HF's rescale does); (v − mean_c) / std_c in float32
Tensor vit_pixel_values(const Image& picture, const VitProcessor& p) {
  const Image im = vit_resized_picture(picture, p);
  const std::size_t H = p.height, W = p.width;
  Tensor out({3, H, W});
  for (std::size_t ch = 0; ch < 3; ++ch) {
    const float mean = static_cast<float>(p.mean[ch]), sd = static_cast<float>(p.std[ch]);
    for (std::size_t y = 0; y < H; ++y)
      for (std::size_t x = 0; x < W; ++x) {
        float v = im.rgb[(y * W + x) * 3 + ch];
        if (p.do_rescale) v = static_cast<float>(static_cast<double>(v) * p.rescale_factor);
        if (p.do_normalize) v = (v - mean) / sd;
        out[(ch * H + y) * W + x] = v;
      }
  }
  return out;
}

// Â_l = rownorm(½·mean_h A_l + ½·I); R = Â_{L−1} ⋯ Â_0
Tensor attention_rollout(const std::vector<Tensor>& attentions) {
  if (attentions.empty()) throw Error(N_("attention rollout: no layers"));
  const std::size_t H = attentions[0].dim(0), T = attentions[0].dim(1);
  Tensor r({T, T});
  for (std::size_t i = 0; i < T; ++i) r(i, i) = 1;
  for (const Tensor& a : attentions) {
    Tensor hat({T, T});
    for (std::size_t q = 0; q < T; ++q) {
      double sum = 0;
      for (std::size_t k = 0; k < T; ++k) {
        double m = 0;
        for (std::size_t h = 0; h < H; ++h) m += a[(h * T + q) * T + k];
        const double v = 0.5 * m / static_cast<double>(H) + (q == k ? 0.5 : 0.0);
        hat(q, k) = static_cast<float>(v);
        sum += v;
      }
      for (std::size_t k = 0; k < T; ++k) hat(q, k) = static_cast<float>(hat(q, k) / sum);
    }
    r = matmul(hat, r);
  }
  return r;
}

}  // namespace tfx
