// `tfx train vit -o DIR`: trains a ViT (tfx/model/vit_train.hpp: the family's forward pass, its
// backward beside it, Adam) on the built-in shape pictures (tfx/figure/shapes.hpp) or on
// --images DIR/<label>/*.png|jpg, and writes DIR as a Hugging Face folder — config.json
// (ViTConfig's keys with id2label and what tfx trained it on), preprocessor_config.json
// (ViTImageProcessor's), model.safetensors (ViTForImageClassification's names, F32) — that every
// `tfx model` command opens. DIR is written to a temporary folder beside it and renamed into place
// once training is done: an interrupted run leaves nothing.
#include "cli/flags/model_size_flags.hpp"
#include "cli/commands/train/train_vit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands/train/train_flags.hpp"
#include "cli/common.hpp"
#include "cli/present/progress_bar.hpp"
#include "cli/flags/shared_flags.hpp"
#include "cli/present/terminal.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/random.hpp"
#include "tfx/figure/shapes.hpp"
#include "tfx/model/safetensors.hpp"
#include "tfx/model/train_files.hpp"

namespace tfx::cli {

namespace {

struct TrainVitOptions {
  std::string images, dir;
  std::int64_t classes = 6, image = 32, patch = 8, d_model = 64, layers = 2, heads = 4, steps = 300, batch = 24, threads = 0,
               every = 50, held_out = 120;
  double lr = 2e-3, warmup = 30;
  std::uint64_t seed = 20261125;
  bool no_progress = false;
  OutputFlags out;
};

void run_train_vit(const TrainVitOptions& o) {
  // 1. the target first (nothing is trained for a folder that cannot be written), then the shapes
  if (o.dir.empty()) throw usage_error(N_("train vit needs -o DIR: the folder to write the model to"));
  if (o.patch > o.image || o.image % o.patch != 0)
    throw usage_error(fmt::format(N_("--patch {} does not divide --image {}; expected a divisor such as 8 (ViT cuts the picture into whole "
                                     "patches)"),
                                  o.patch, o.image));
  if (o.d_model % o.heads != 0)
    throw usage_error(fmt::format(N_("--heads {} does not divide --d-model {}; expected a divisor such as 4"), o.heads, o.d_model));
  check_model_folder_target(o.dir, "train vit", "config.json, preprocessor_config.json, model.safetensors");
  VitTrainConfig c;
  c.image = static_cast<std::size_t>(o.image);
  c.patch = static_cast<std::size_t>(o.patch);
  c.d_model = static_cast<std::size_t>(o.d_model);
  c.layers = static_cast<std::size_t>(o.layers);
  c.heads = static_cast<std::size_t>(o.heads);
  const bool shapes = o.images.empty();
  VitPictures pictures;
  if (shapes) {
    if (o.image < 16) throw usage_error(fmt::format(N_("--image {}: the built-in shapes need at least 16 pixels a side"), o.image));
    for (std::int64_t i = 0; i < o.classes; ++i) c.labels.emplace_back(kShapeChoices[i].name);
    pictures.held = vit_shape_batch(c, static_cast<std::size_t>(o.held_out), o.seed + 2, 0);
  } else {
    pictures = read_vit_pictures(o.images, c);
  }
  check_memory(vit_training_bytes(c, static_cast<std::size_t>(o.batch)),
               fmt::format("train vit (--d-model {}, --layers {}, --image {}, --patch {}, --batch {})", o.d_model, o.layers, o.image,
                           o.patch, o.batch));
  TensorMap params = init_vit_parameters(c, o.seed);
  VitTrainOptions to;
  to.steps = static_cast<std::size_t>(o.steps);
  to.warmup = static_cast<std::size_t>(std::llround(o.warmup));
  to.lr = o.lr;
  to.threads = train_threads(o.threads);
  const std::size_t B = static_cast<std::size_t>(o.batch);
  Generator pick(o.seed + 1);
  const auto next_batch = [&](std::size_t step) {
    if (shapes) return vit_shape_batch(c, B, o.seed + 1, (step - 1) * B);
    VitBatch b;
    const std::size_t n = pictures.train.pixels.size();
    for (std::size_t i = 0; i < B; ++i) {
      const std::size_t at = std::min(n - 1, static_cast<std::size_t>(pick.uniform01() * double(n)));
      b.pixels.push_back(pictures.train.pixels[at]);
      b.labels.push_back(pictures.train.labels[at]);
    }
    return b;
  };
  const auto held_accuracy = [&]() -> double {
    if (pictures.held.pixels.empty()) return NAN;
    const std::vector<std::size_t> got = vit_predict(c, params, pictures.held.pixels);
    std::size_t right = 0;
    for (std::size_t i = 0; i < got.size(); ++i) right += got[i] == pictures.held.labels[i];
    return 100.0 * double(right) / double(got.size());
  };
  const std::string source = shapes ? fmt::format("built-in shapes ({})", fmt::join(c.labels, ", ")) : o.images;

  // 2. training, watched: a bar at a terminal, else a line every --every steps
  const bool bar_wanted = !o.no_progress && is_terminal(stderr);
  ProgressBar bar(tr("training"), tr("steps"), bar_wanted);
  const auto start = std::chrono::steady_clock::now();
  double loss_sum = 0, last_loss = NAN, last_held = NAN;
  std::size_t loss_n = 0, seen = 0;
  Records curve;
  curve.name = N_("curve");
  curve.columns = {N_("step"), N_("loss"), N_("held_out_accuracy"), N_("learning_rate")};
  const auto on_step = [&](const VitStepReport& r) {
    loss_sum += r.loss;
    ++loss_n;
    last_loss = r.loss;
    seen += r.pictures;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (bar_wanted) {
      bar.set_label(trf("training: loss {:.4f}, lr {:.2e}, {:.0f} pictures/s", r.loss, r.learning_rate, double(seen) / std::max(seconds, 1e-9)));
      bar.update(r.step, to.steps);
    }
    if (r.step % static_cast<std::size_t>(o.every) == 0 || r.step == to.steps) {
      last_held = held_accuracy();
      curve.rows.push_back({static_cast<long long>(r.step), loss_sum / double(loss_n),
                            std::isnan(last_held) ? Cell(std::string("-")) : Cell(last_held), r.learning_rate});
      if (!bar_wanted && !o.no_progress)
        std::fprintf(stderr, "%s\n",
                     trf("step {}/{}: loss {:.4f}, held-out accuracy {:.1f} %, lr {:.2e}, {:.0f} pictures/s", r.step, to.steps,
                         loss_sum / double(loss_n), last_held, r.learning_rate, double(seen) / std::max(seconds, 1e-9))
                         .c_str());
      loss_sum = 0;
      loss_n = 0;
    }
    return true;
  };
  const std::size_t done = train_vit(c, params, to, next_batch, on_step);
  bar.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // 3. the folder
  std::size_t n_params = 0;
  for (const auto& [k, t] : params) n_params += t.size();
  nlohmann::json trained = {{"command", "tfx train vit"},
                            {"pictures", shapes ? std::string("built-in shapes drawn by tfx (tfx patches --shapes)") : o.images},
                            {"training_pictures", shapes ? done * B : pictures.train.pixels.size()},
                            {"held_out_pictures", pictures.held.pixels.size()},
                            {"steps", done},
                            {"batch", o.batch},
                            {"lr", o.lr},
                            {"warmup", to.warmup},
                            {"seed", o.seed},
                            {"threads", to.threads},
                            {"final_train_loss", last_loss}};
  if (!std::isnan(last_held)) trained["held_out_accuracy"] = last_held;
  const std::string config = vit_config_json(c, trained);
  const std::string weights = encode_safetensors(params, {{"format", "pt"}});
  write_model_folder(o.dir, {{"config.json", config}, {"preprocessor_config.json", vit_preprocessor_json(c)}, {"model.safetensors", weights}});

  Result r;
  r.command = "train vit";
  r.params = {{"images", shapes ? std::string("shapes") : o.images}, {"classes", c.classes()}, {"image", o.image}, {"patch", o.patch},
              {"steps", o.steps}, {"batch", o.batch}, {"d_model", o.d_model}, {"heads", o.heads}, {"layers", o.layers},
              {"lr", o.lr}, {"warmup", o.warmup}, {"seed", o.seed}, {"threads", to.threads}};
  r.blocks.push_back(Text{trf("trained on {}: ViT with image {}, patch {} ({} patches), d_model {}, {} heads, {} layers, {} parameters; "
                              "{} steps of {} pictures",
                              source, o.image, o.patch, c.patches(), o.d_model, o.heads, o.layers, n_params, done, o.batch)});
  if (!std::isnan(last_held))
    r.blocks.push_back(Text{trf("loss {:.4f} (last step), held-out accuracy {:.1f} % of {} pictures it never saw", last_loss, last_held,
                                pictures.held.pixels.size())});
  r.blocks.push_back(Text{trf("training took {:.1f} s ({:.0f} pictures/s)", seconds, double(seen) / std::max(seconds, 1e-9))});
  r.blocks.push_back(Text{trf("wrote {} (config.json, preprocessor_config.json, model.safetensors): tfx model attention {} --image PICTURE",
                              o.dir, o.dir)});
  r.summary[N_("final_loss")] = last_loss;
  if (!std::isnan(last_held)) r.summary[N_("held_out_accuracy")] = last_held;
  r.summary[N_("parameters")] = n_params;
  r.summary[N_("seconds")] = seconds;
  r.blocks.push_back(std::move(curve));
  r.primary = "curve";
  present_all(r, o.out, FigureFlags{}, nullptr, nullptr, "train_vit.png");
}

}  // namespace

CLI::App* register_train_vit(CLI::App* train) {
  auto [cmd, o] = add_command(*train, "vit",
                              tr("Train a ViT on built-in shape pictures (or your labelled pictures) and write it as a Hugging Face "
                                 "folder every model command opens"),
                              run_train_vit);
  CLI::Option* images = cmd->add_option("--images", o->images,
                                        tr("Your pictures instead of the built-in shapes: DIR/<label>/*.png|jpg, one folder per class"))
                            ->check(non_empty_path("a folder of class folders"));
  cmd->add_option("--classes", o->classes,
                  trf("Built-in shape classes: the first N of {}", choice_list<ShapeKind>(kShapeChoices, false)))
      ->capture_default_str()
      ->check(whole_number(2, static_cast<std::int64_t>(kShapeKinds)))
      ->excludes(images);
  add_image_flag(cmd, &o->image, nullptr, 2, 1024, tr("the side S of the pictures, 2…1024: the model's image_size; pictures are resized to S × S"))
      ->default_str(std::to_string(o->image));
  cmd->add_option("--patch", o->patch, tr("Patch side P = kernel_size = stride"))->capture_default_str()->check(whole_number(1, std::int64_t{1} << 24));
  add_train_d_model_flag(cmd, o->d_model);
  add_layers_flag(cmd, o->layers, tr("encoder blocks, num_hidden_layers; at most 48"), SizeBound{{1, 48}});
  add_train_heads_flag(cmd, o->heads);
  add_train_steps_flag(cmd, o->steps);
  add_batch_flag(cmd, o->batch, tr("pictures per optimizer step, at most 4096"), SizeBound{{1, 4096}});
  add_train_lr_flag(cmd, o->lr);
  add_train_warmup_flag(cmd, o->warmup, tr("linear to --lr, then a cosine to --lr/10"));
  add_seed_flag(cmd, o->seed, tr("the initial weights and the batches"))->capture_default_str();
  add_train_threads_flag(cmd, o->threads);
  add_train_every_flag(cmd, o->every, tr("held-out accuracy"));
  add_no_progress_flag(cmd, o->no_progress);
  add_output_flags(cmd, o->out);
  o->out.output_opt->description(tr("The model folder to write (config.json, preprocessor_config.json, model.safetensors); the summary "
                                    "goes to standard output"));
  o->out.output_opt->transform(CLI::Validator(
      [opts = o](std::string& path) {
        if (path != "-") {
          opts->dir = path;
          path = "-";
        }
        return std::string();
      },
      ""));
  set_examples(cmd, {tr("tfx train vit -o my_vit && tfx model attention my_vit --image shape.png --rollout"),
                     tr("tfx train vit --images pictures/ --image 64 --patch 8 -o my_vit")});
  return cmd;
}

}  // namespace tfx::cli
