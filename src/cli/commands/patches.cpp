// `tfx patches`: the lecture's ViT patch embedding as shape arithmetic — [1, 3, 224, 224] →
// Conv2d(3, 768, kernel = stride = 16) → [1, 768, 14, 14] → flatten(2) → [1, 768, 196] →
// transpose(1, 2) → [1, 196, 768], beside the equivalent unfold + Linear route.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "tfx/attention/vision.hpp"

namespace tfx::cli {

namespace {

struct PatchesOptions {
  std::int64_t batch = 1, channels = 3, image = 224, patch = 16, d_model = 768;
  std::int64_t height = 0, width = 0;  // 0: --image
  OutputFlags out;
};

std::string shape(std::initializer_list<std::int64_t> dims) { return fmt::format("[{}]", fmt::join(dims, ", ")); }

void run_patches(const PatchesOptions& o) {
  const std::int64_t h = o.height ? o.height : o.image, w = o.width ? o.width : o.image;
  const PatchEmbedding p = patch_embedding(o.batch, o.channels, h, w, o.patch, o.d_model);
  Result r;
  r.command = "patches";
  r.params = {{"batch", o.batch}, {"channels", o.channels}, {"height", h}, {"width", w}, {"patch", o.patch}, {"d_model", o.d_model}};
  r.blocks.push_back(Text{fmt::format(
      "ViT patch embedding: a {}×{} image with {} channels cut into {}×{} patches = {}×{} = {} tokens of d_model = {}",
      h, w, o.channels, o.patch, o.patch, p.grid_h, p.grid_w, p.tokens, o.d_model)});
  if (p.dropped_h || p.dropped_w)
    r.blocks.push_back(Text{fmt::format("note: {}×{} is not a multiple of {}: Conv2d drops the last {} rows and {} columns of pixels",
                                        h, w, o.patch, p.dropped_h, p.dropped_w)});
  Records steps;
  steps.name = "steps";
  steps.columns = {"route", "step", "operation", "shape"};
  auto add = [&](const char* route, long long k, std::string op, std::string s) {
    steps.rows.push_back({std::string(route), k, std::move(op), std::move(s)});
  };
  const auto B = p.batch, C = p.channels, D = p.d_model, P = p.patch, N = p.tokens;
  add("conv2d", 0, "x (input image)", shape({B, C, h, w}));
  add("conv2d", 1, fmt::format("proj = nn.Conv2d({}, {}, kernel_size={}, stride={}); x = proj(x)", C, D, P, P),
      shape({B, D, p.grid_h, p.grid_w}));
  add("conv2d", 2, "x = x.flatten(2)", shape({B, D, N}));
  add("conv2d", 3, "x = x.transpose(1, 2)", shape({B, N, D}));
  add("unfold", 1, fmt::format("F.unfold(x, kernel_size={}, stride={})", P, P), shape({B, p.patch_dim, N}));
  add("unfold", 2, "transpose(1, 2)", shape({B, N, p.patch_dim}));
  add("unfold", 3, fmt::format("nn.Linear({}, {})", p.patch_dim, D), shape({B, N, D}));
  r.blocks.push_back(std::move(steps));
  r.blocks.push_back(Text{fmt::format("parameters: {}·{}·{}² weights + {} biases = {} (Conv2d weight [{}, {}, {}, {}] = Linear weight [{}, {}])",
                                      D, C, P, D, p.parameters, D, C, P, P, D, p.patch_dim)});
  r.summary["tokens"] = N;
  r.summary["grid"] = {p.grid_h, p.grid_w};
  r.summary["patch_dim"] = p.patch_dim;
  r.summary["parameters"] = p.parameters;
  r.summary["output_shape"] = {B, N, D};
  r.primary = "steps";
  present(r, o.out);
}

}  // namespace

void register_patches(CLI::App& app) {
  auto o = std::make_shared<PatchesOptions>();
  CLI::App* cmd = app.add_subcommand("patches", "ViT patch embedding: image → patches → tokens, shapes of the Conv2d and unfold routes");
  cmd->group("Vision");
  const auto big = std::int64_t{1} << 24;
  cmd->add_option("--image", o->image, "Image side (height = width) in pixels")->capture_default_str()->check(whole_number(1, big));
  cmd->add_option("--height", o->height, "Image height, when not square (default: --image)")->check(whole_number(1, big));
  cmd->add_option("--width", o->width, "Image width, when not square (default: --image)")->check(whole_number(1, big));
  cmd->add_option("--patch", o->patch, "Patch side P = kernel_size = stride")->capture_default_str()->check(whole_number(1, big));
  cmd->add_option("--channels", o->channels, "Input channels (3 = RGB)")->capture_default_str()->check(whole_number(1, big));
  cmd->add_option("--d-model", o->d_model, "Output channels = token width d_model")->capture_default_str()->check(whole_number(1, big));
  cmd->add_option("--batch", o->batch, "Batch size B")->capture_default_str()->check(whole_number(1, big));
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {"tfx patches                                # [1, 3, 224, 224] → [1, 196, 768] (ViT-B/16)",
                     "tfx patches --image 384 --patch 32 --d-model 1024",
                     "tfx patches --height 224 --width 320 --format json"});
  cmd->callback([o] { run_patches(*o); });
}

}  // namespace tfx::cli
