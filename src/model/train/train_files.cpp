#include "tfx/model/train_files.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/core/words.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/io/image_file.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

namespace fs = std::filesystem;

namespace {

// Peak memory per byte of a --pairs file while it is read and parsed (the text, each word a
// std::string in its pair, the sorted vocabulary, the ids): measured with /usr/bin/time on files
// of short distinct words (the worst case: every word new): 26 bytes per byte for 3.6 MB of
// 2-word pairs, 18 for 18.5 MB of 50-word pairs.
constexpr double kPairsBytesPerByte = 32;

// A folder `tfx train gpt` or `tfx train vit` wrote: its config.json has the key tfx_trained.
bool tg_is_tfx_model(const fs::path& dir) {
  std::ifstream f(dir / "config.json");
  if (!f) return false;
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  return j.is_object() && j.contains("tfx_trained");
}

bool tv_picture_file(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

}  // namespace

void check_model_folder_target(const std::string& dir, const std::string& command, const std::string& files) {
  std::error_code ec;
  const fs::path p(dir);
  const auto st = fs::symlink_status(p, ec);
  if (!fs::exists(st)) return;
  if (!fs::is_directory(st))
    throw Error(fmt::format(N_("-o {}: exists and is not a folder; expected a new folder for the model ({})"), dir, files));
  if (!fs::is_empty(p, ec) && !tg_is_tfx_model(p))
    throw Error(fmt::format(N_("-o {}: the folder is not empty and holds no model of tfx {}; give a new or empty folder"), dir, command));
}

void write_model_folder(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path target = fs::absolute(fs::path(dir)).lexically_normal();
  const fs::path parent = target.has_filename() ? target.parent_path() : target.parent_path().parent_path();
  const std::string name = (target.has_filename() ? target : target.parent_path()).filename().string();
  std::string pattern = (parent / ("." + name + ".tmp-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw Error(fmt::format(N_("-o {}: cannot create a folder beside it ({})"), dir, parent.string()));
  const fs::path tmp(pattern);
  try {
    // mkdtemp's 0700 becomes what a new folder gets (0777 less the umask)
    const mode_t mask = umask(0);
    umask(mask);
    fs::permissions(tmp, static_cast<fs::perms>(0777 & ~mask));
    for (const auto& [file, bytes] : files) {
      std::ofstream f(tmp / file, std::ios::binary);
      f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!f.good()) throw Error(fmt::format(N_("-o {}: cannot write {}"), dir, file));
    }
    std::error_code ec;
    const fs::path final_path = parent / name;
    fs::path old;
    if (fs::exists(final_path, ec)) {
      old = fs::path(pattern + ".old");
      fs::rename(final_path, old);
    }
    fs::rename(tmp, final_path);
    if (!old.empty()) fs::remove_all(old, ec);
  } catch (const fs::filesystem_error& e) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw Error(fmt::format(N_("-o {}: {}"), dir, e.code().message()));
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
}

std::string gpt2_config_json(const Gpt2TrainConfig& c, const nlohmann::json& trained) {
  nlohmann::ordered_json j;
  j["activation_function"] = "gelu_new";
  j["architectures"] = {"GPT2LMHeadModel"};
  j["attn_pdrop"] = 0.0;
  j["bos_token_id"] = nullptr;
  j["embd_pdrop"] = 0.0;
  j["eos_token_id"] = nullptr;
  j["initializer_range"] = 0.02;
  j["layer_norm_epsilon"] = 1e-05;
  j["model_type"] = "gpt2";
  j["n_ctx"] = c.context;
  j["n_embd"] = c.d_model;
  j["n_head"] = c.heads;
  j["n_inner"] = nullptr;
  j["n_layer"] = c.layers;
  j["n_positions"] = c.context;
  j["reorder_and_upcast_attn"] = false;
  j["resid_pdrop"] = 0.0;
  j["scale_attn_by_inverse_layer_idx"] = false;
  j["scale_attn_weights"] = true;
  j["summary_activation"] = nullptr;
  j["summary_first_dropout"] = 0.1;
  j["summary_proj_to_labels"] = true;
  j["summary_type"] = "cls_index";
  j["summary_use_proj"] = true;
  j["tie_word_embeddings"] = true;
  j["torch_dtype"] = "float32";
  j["transformers_version"] = "4.40.0";
  j["use_cache"] = true;
  j["vocab_size"] = c.vocab;
  j["tfx_trained"] = trained;  // tfx's own key (Hugging Face keeps it as an attribute): what it was trained on
  return j.dump(2) + "\n";
}

std::string gpt2_sample_text(const HfTokenizer& tok, const std::vector<std::size_t>& ids) {
  std::string s;
  for (std::size_t id : ids) s += tok.token_bytes(id);
  s = unicode::escape_invalid_utf8(s);
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';  // a newline or tab of the sample stays on its line
  return s;
}

void check_training_text(const std::string& text, const std::string& file) {
  if (text.empty()) throw Error(fmt::format(N_("--text {}: empty file; expected UTF-8 text to train on"), file));
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = text[i] == '\0' ? 0 : unicode::utf8_decode(text, i);
    if (n == 0)
      throw Error(fmt::format(N_("--text {}: not UTF-8 text (byte {} is {}); expected a UTF-8 text file"), file, i,
                              fmt::format("0x{:02X}", static_cast<unsigned char>(text[i]))));
    i += n;
  }
}

double gpt2_training_bytes(const Gpt2TrainConfig& c, std::size_t batch) {
  double params = 0;
  for (const auto& [n, shape] : gpt2_parameter_shapes(c)) params += double(shape.size() == 2 ? shape[0] * shape[1] : shape[0]);
  const double N = double(batch) * double(c.context), D = double(c.d_model);
  const double acts = double(c.layers) * N * (16 * D + 3 * 4 * D + 2 * double(c.heads) * double(c.context)) + 3 * N * double(c.vocab);
  return 4.0 * (4 * params + acts);
}

void split_held_out(const std::vector<std::size_t>& ids, std::size_t context, std::vector<std::size_t>& train,
                    std::vector<std::size_t>& held) {
  train = ids;
  held.clear();
  const std::size_t tail = ids.size() / 10;
  if (tail >= context + 1 && ids.size() - tail >= context + 1) {
    held.assign(ids.end() - static_cast<std::ptrdiff_t>(tail), ids.end());
    train.resize(ids.size() - tail);
  }
}

std::string vit_config_json(const VitTrainConfig& c, const nlohmann::json& trained) {
  nlohmann::ordered_json j, id2label = nlohmann::ordered_json::object(), label2id = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < c.classes(); ++i) {
    id2label[std::to_string(i)] = c.labels[i];
    label2id[c.labels[i]] = i;
  }
  j["architectures"] = {"ViTForImageClassification"};
  j["attention_probs_dropout_prob"] = 0.0;
  j["encoder_stride"] = c.patch;
  j["hidden_act"] = "gelu";
  j["hidden_dropout_prob"] = 0.0;
  j["hidden_size"] = c.d_model;
  j["id2label"] = id2label;
  j["image_size"] = c.image;
  j["initializer_range"] = 0.02;
  j["intermediate_size"] = 4 * c.d_model;
  j["label2id"] = label2id;
  j["layer_norm_eps"] = c.eps;
  j["model_type"] = "vit";
  j["num_attention_heads"] = c.heads;
  j["num_channels"] = c.channels;
  j["num_hidden_layers"] = c.layers;
  j["patch_size"] = c.patch;
  j["problem_type"] = "single_label_classification";
  j["qkv_bias"] = true;
  j["torch_dtype"] = "float32";
  j["transformers_version"] = "4.40.0";
  j["tfx_trained"] = trained;  // tfx's own key (Hugging Face keeps it as an attribute): what it was trained on
  return j.dump(2) + "\n";
}

std::string vit_preprocessor_json(const VitTrainConfig& c) {
  nlohmann::ordered_json j;
  j["do_normalize"] = true;
  j["do_rescale"] = true;
  j["do_resize"] = true;
  j["image_mean"] = {0.5, 0.5, 0.5};
  j["image_processor_type"] = "ViTImageProcessor";
  j["image_std"] = {0.5, 0.5, 0.5};
  j["resample"] = 2;
  j["rescale_factor"] = 1.0 / 255.0;
  j["size"] = {{"height", c.image}, {"width", c.image}};
  return j.dump(2) + "\n";
}

double vit_training_bytes(const VitTrainConfig& c, std::size_t batch) {
  double params = 0;
  for (const auto& entry : vit_parameter_shapes(c)) {
    double n = 1;
    for (std::size_t d : entry.second) n *= double(d);
    params += n;
  }
  const double T = double(c.patches() + 1), D = double(c.d_model);
  const double acts = double(batch) * double(c.layers) * T * (16 * D + 3 * 4 * D + 2 * double(c.heads) * T);
  return 4.0 * (4 * params + acts);
}

VitPictures read_vit_pictures(const std::string& dir, VitTrainConfig& c) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format(N_("--images {}: not a folder; expected DIR/<label>/*.png|jpg, one folder per class"), dir));
  std::vector<fs::path> folders;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && e.path().filename().string().rfind('.', 0) != 0) folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());
  VitPictures out;
  std::vector<std::vector<fs::path>> files;
  for (const fs::path& f : folders) {
    std::vector<fs::path> pictures;
    for (const fs::directory_entry& e : fs::directory_iterator(f, ec))
      if (e.is_regular_file(ec) && tv_picture_file(e.path())) pictures.push_back(e.path());
    if (pictures.empty()) continue;
    std::sort(pictures.begin(), pictures.end());
    out.labels.push_back(f.filename().string());
    files.push_back(std::move(pictures));
  }
  if (out.labels.size() < 2)
    throw Error(fmt::format(N_("--images {}: {} class folder(s) with pictures; a classifier needs at least 2 (DIR/<label>/*.png|jpg)"), dir,
                            out.labels.size()));
  c.labels = out.labels;
  std::size_t total = 0;
  for (const auto& f : files) total += f.size();
  check_memory(double(total) * 3.0 * double(c.image) * double(c.image) * 4.0, fmt::format("train vit --images {}", dir));
  for (std::size_t y = 0; y < files.size(); ++y)
    for (std::size_t i = 0; i < files[y].size(); ++i) {
      Tensor pixels = vit_train_pixels(read_image(files[y][i].string()), c);
      VitBatch& to = files[y].size() >= 5 && i % 5 == 4 ? out.held : out.train;
      to.pixels.push_back(std::move(pixels));
      to.labels.push_back(y);
      ++out.files;
    }
  return out;
}

TranslatorTrainData load_translator_train_data(const std::string& pairs_path, const std::string& corpus, double test_fraction,
                                               std::uint64_t seed, std::size_t train_max_len) {
  TranslatorTrainData d;
  const bool en_ko = corpus == "en-ko", lengths = corpus == "lengths";
  std::vector<TextPair>& pairs = d.pairs;
  if (pairs_path.empty()) {
    // a built-in corpus; for en-ko its source (English) is in `korean`, its target in `english` (translator.hpp)
    for (const TranslationPair& p : en_ko ? teaching_corpus_en_ko() : lengths ? teaching_corpus_lengths() : teaching_corpus()) {
      TextPair t;
      t.source = split_words(p.korean);
      t.target = split_words(p.english);
      t.alignment = p.alignment;
      t.test = p.split == "test";
      pairs.push_back(std::move(t));
    }
    d.vocab = en_ko || lengths ? pair_vocabulary(pairs) : teaching_translator().vocab.tokens;
    d.name = en_ko ? tr("the built-in English → Korean corpus") : lengths ? tr("the built-in corpus of lists (--corpus lengths)") : tr("the built-in corpus");
  } else {
    // the text, then its words as strings, ids and a vocabulary: about kPairsBytesPerByte bytes
    // of memory per byte of the file (measured), refused before reading when over the budget
    std::error_code ec;
    if (std::filesystem::is_regular_file(pairs_path, ec)) {
      const double size = static_cast<double>(std::filesystem::file_size(pairs_path, ec));
      check_memory(size * kPairsBytesPerByte, fmt::format("--pairs {} ({} bytes, held as words, ids and a vocabulary)", pairs_path,
                                                          static_cast<std::uint64_t>(size)));
    }
    pairs = parse_pair_lines(read_text_input(pairs_path, "--pairs"), pairs_path);
    split_pairs(pairs, test_fraction, seed);
    d.vocab = pair_vocabulary(pairs);
    d.name = pairs_path;
  }
  // the vocabulary stays the whole corpus's: the held-out pairs' words are known words
  if (train_max_len > 0) keep_short_training_pairs(pairs, train_max_len, pairs_path.empty() ? "--corpus " + corpus : "--pairs " + pairs_path);
  d.data = pair_ids(pairs, d.vocab);
  if (d.data.train.empty()) throw usage_error(N_("--test-fraction leaves no training pairs"));
  return d;
}

std::string translator_experiment(const std::string& corpus, const std::string& pairs, PositionalEncoding pe, bool no_scale, bool pre_ln,
                                  bool no_warmup, std::size_t train_max_len) {
  std::string experiment;
  const auto add_flag = [&](const std::string& f) { experiment += (experiment.empty() ? "" : " ") + f; };
  if (pairs.empty() && corpus != "ko-en") add_flag("--corpus " + corpus);
  if (!pairs.empty()) add_flag("--pairs " + pairs);
  if (pe == PositionalEncoding::none) add_flag("--no-pe");
  if (pe == PositionalEncoding::learned || pe == PositionalEncoding::rope) add_flag(std::string("--pe ") + positional_encoding_name(pe));
  if (train_max_len > 0) add_flag(fmt::format("--train-max-len {}", train_max_len));
  if (no_scale) add_flag("--no-scale");
  if (pre_ln) add_flag("--pre-ln");
  if (no_warmup) add_flag("--no-warmup");
  return experiment;
}

void check_translator_target(const std::string& model_path) {
  for (const std::string& f : {model_path, translator_vocab_path(model_path)}) {
    std::error_code ec;
    const auto st = std::filesystem::status(f, ec);
    if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
      throw Error(std::filesystem::is_directory(st)
                      ? fmt::format(N_("-o {}: {} is a directory; the model and its vocabulary are written as regular files"), model_path, f)
                      : fmt::format(N_("-o {}: {} exists and is not a regular file; the model and its vocabulary are written as regular "
                                       "files"),
                                    model_path, f));
  }
}

TranslatorTrainBytes translator_training_bytes(const TrainConfig& c, std::size_t batch, const IdPairs& data,
                                               const std::vector<std::string>& vocab) {
  std::size_t longest_source = 1, longest_target = 1;
  double words = 0;
  for (const auto* side : {&data.train, &data.test})
    for (const IdPair& p : *side) {
      longest_source = std::max(longest_source, p.source.size());
      longest_target = std::max(longest_target, p.target.size() + 1);
      words += double(p.source.size() + p.target.size());
    }
  double vocab_bytes = 0;
  for (const auto& w : vocab) vocab_bytes += 96.0 + double(w.size());  // the string, its id map entry
  TranslatorTrainBytes out;
  out.bytes = train_memory_bytes(c, batch, longest_source, longest_target) + vocab_bytes + words * 48.0;
  out.longest = std::max(longest_source, longest_target - 1);
  return out;
}

std::unordered_map<std::string, std::size_t> vocab_index(const std::vector<std::string>& vocab) {
  std::unordered_map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < vocab.size(); ++i) ids.emplace(vocab[i], i);
  return ids;
}

std::vector<std::string> train_translate_words(const TrainConfig& c, const TensorMap& params, const std::vector<std::string>& vocab,
                                               const std::unordered_map<std::string, std::size_t>& index,
                                               const std::vector<std::string>& words) {
  std::vector<std::size_t> src;
  for (const auto& w : words) src.push_back(index.count(w) ? index.at(w) : 3);
  std::vector<std::string> got;
  for (std::size_t id : train_greedy(c, params, src)) got.push_back(vocab[id]);
  return got;
}

std::vector<std::string> translator_probe(const std::unordered_map<std::string, std::size_t>& index, const std::vector<TextPair>& pairs) {
  std::vector<std::string> probe = {"나는", "학생", "이다"};
  bool known = true;
  for (const auto& w : probe) known = known && index.count(w);
  if (!known) {
    const TextPair* first = nullptr;
    for (const TextPair& p : pairs)
      if (p.test || !first) first = &p;
    probe = first->source;
  }
  return probe;
}

std::vector<WrongPair> held_out_wrong(const TrainConfig& c, const TensorMap& params, const std::vector<std::string>& vocab,
                                      const std::unordered_map<std::string, std::size_t>& index, const std::vector<TextPair>& pairs,
                                      std::size_t limit) {
  std::vector<WrongPair> wrong;
  std::size_t decoded = 0;
  for (const TextPair& p : pairs) {
    if (wrong.size() >= limit || decoded == 1000) break;
    if (!p.test) continue;
    ++decoded;
    std::vector<std::string> got = train_translate_words(c, params, vocab, index, p.source);
    if (got == p.target) continue;
    wrong.push_back({p.source, p.target, std::move(got)});
  }
  return wrong;
}

void write_trained_translator(const std::string& model_path, const TensorMap& params, const TrainConfig& c,
                             const std::vector<std::string>& vocab, const std::vector<TextPair>& pairs, bool builtin_corpus,
                             const std::string& experiment, std::uint64_t seed, std::int64_t steps) {
  // the model's properties and its own pairs go with its weights (read_translator_file)
  std::vector<TranslationPair> own;
  for (const TextPair& p : pairs) own.push_back({p.test ? "test" : "train", join_words(p.source), join_words(p.target), p.alignment});
  TranslatorProperties props;
  props.pre_ln = c.pre_ln;
  props.pe = c.pe;
  props.scale_scores = c.scale_scores;
  TensorMetadata meta = translator_metadata(c.d_model, c.heads, c.layers, c.ffn, props, own, builtin_corpus);
  meta["experiment"] = experiment.empty() ? std::string("default") : experiment;
  meta["seed"] = std::to_string(seed);
  meta["steps"] = std::to_string(steps);
  std::string vocab_text;
  for (const auto& w : vocab) vocab_text += w + "\n";
  // the weights name their vocabulary by its fingerprint, so a vocabulary from another save
  // beside them is refused at load; and both files are replaced together or not at all
  meta[kVocabFingerprintKey] = vocab_fingerprint(vocab_text);
  const std::string weights = encode_safetensors(params, meta);
  emit_together({{{vocab_text}, translator_vocab_path(model_path), false, "-o " + model_path + ": vocabulary"},
                 {{weights}, model_path, true, "-o"}});
}

Figure translator_training_figure(const Series& step_loss, const Series& exact, const Series* alignment, std::size_t test_pairs,
                                  double warmup, bool no_warmup, std::int64_t steps, std::int64_t batch, const std::string& experiment_title) {
  Figure figure;
  // loss against steps with the warm-up peak marked; held-out accuracy against steps. The panels'
  // height makes the pair about 16:9 (the plot width is fixed at 620): each legend (the warm-up
  // peak's, exact match and alignment's) widens the pair by about 200, so taller panels fill the
  // page; one height for all left white bands beside the panels when neither has a legend
  const bool peak_drawn = warmup <= double(steps) && !no_warmup;
  const double plot_height = 650 + 110 * ((peak_drawn ? 1 : 0) + (alignment ? 1 : 0));
  LineChart loss;
  loss.title = tr("Training loss");
  loss.subtitle = no_warmup ? trf("lr = d_model^−0.5 · max(step, {:g})^−0.5: no warm-up", warmup)
                              : trf("lr = d_model^−0.5 · min(step^−0.5, step · warmup^−1.5), peak at step {:g}", warmup);
  loss.x_label = tr("training step (log scale)");
  loss.y_label = tr("loss (label-smoothed cross-entropy)");
  loss.log_x = true;
  loss.plot_height = plot_height;
  double top = 0;
  for (double v : step_loss.y) top = std::max(top, v);
  loss.series.push_back(step_loss);
  if (peak_drawn) {
    Series peak;
    peak.name = trf("warm-up peak (step {:g})", warmup);
    peak.x = {warmup, warmup};
    peak.y = {0.0, top};
    peak.reference = true;
    loss.series.push_back(peak);
  }
  figure.panels.push_back(std::move(loss));
  LineChart acc;
  acc.title = tr("Held-out accuracy");
  acc.subtitle = trf("{} pairs never seen in training", test_pairs);
  acc.x_label = tr("training step (log scale)");
  acc.y_label = tr("fraction");
  acc.log_x = true;
  acc.ymin = 0.0;
  acc.ymax = 1.0;
  acc.plot_height = plot_height;
  acc.series.push_back(exact);
  if (alignment) acc.series.push_back(*alignment);
  figure.panels.push_back(std::move(acc));
  figure.columns = 2;
  figure.title = trf("tfx train ({}): {} steps of {} pairs", experiment_title, steps, batch);
  figure.page_width = 1920;  // a 16:9 page at every --scale (the slides' kSlideWidth × kSlideHeight)
  figure.page_height = 1080;
  return figure;
}

}  // namespace tfx
