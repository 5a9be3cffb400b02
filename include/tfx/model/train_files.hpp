// What `tfx train gpt` and `tfx train vit` write and read besides the training itself: the model
// folder (written to a temporary folder beside it and renamed into place once training is done,
// so an interrupted run leaves nothing), Hugging Face's config.json / preprocessor_config.json for
// the trained model (with tfx's own key `tfx_trained`: what it was trained on), the memory a run
// needs, and the pictures of `train vit --images DIR`. Errors name the flags the commands give
// (-o, --images).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tfx/model/gpt2_train.hpp"
#include "tfx/model/train.hpp"
#include "tfx/model/translator.hpp"
#include "tfx/model/vit_train.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx {

// -o DIR of a training command must be a folder tfx may fill or replace: absent, empty, or one
// `tfx train gpt` / `tfx train vit` wrote (config.json's key tfx_trained). Else a tfx::Error naming
// `command` ("train gpt") and the `files` it writes.
void check_model_folder_target(const std::string& dir, const std::string& command, const std::string& files);

// Writes `files` (name, bytes) into a temporary folder beside `dir`, then renames it onto `dir` (an
// old model there is moved aside first and removed after): readers see the old folder or the new one.
void write_model_folder(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

// --text FILE of `tfx train gpt`: not empty, and UTF-8 without NUL bytes (else an Error naming the
// file and the first bad byte).
void check_training_text(const std::string& text, const std::string& file);

// GPT2Config's keys for `c`, with "tfx_trained": trained; indented JSON and a newline.
std::string gpt2_config_json(const Gpt2TrainConfig& c, const nlohmann::json& trained);
// A sample's text: the tokens' bytes, invalid UTF-8 escaped, control characters as spaces (a
// newline or tab of the sample stays on its line).
std::string gpt2_sample_text(const HfTokenizer& tok, const std::vector<std::size_t>& ids);
// Bytes a GPT-2 training run needs: parameters, gradients, Adam's two moments, one step's activations.
double gpt2_training_bytes(const Gpt2TrainConfig& c, std::size_t batch);
// The last tenth of `ids` held out when it holds a whole window of `context` + 1 (and the rest
// does too); else all is training.
void split_held_out(const std::vector<std::size_t>& ids, std::size_t context, std::vector<std::size_t>& train,
                    std::vector<std::size_t>& held);

// ViTConfig's keys for `c` (id2label, label2id), with "tfx_trained": trained.
std::string vit_config_json(const VitTrainConfig& c, const nlohmann::json& trained);
// ViTImageProcessor's preprocessor_config.json for `c`.
std::string vit_preprocessor_json(const VitTrainConfig& c);
// Bytes a ViT training run needs, as gpt2_training_bytes.
double vit_training_bytes(const VitTrainConfig& c, std::size_t batch);

// --images DIR: DIR/<label>/*.png|jpg, the labels in name order (set as c.labels); every fifth
// picture of a class with at least five is held out.
struct VitPictures {
  std::vector<std::string> labels;
  VitBatch train, held;
  std::size_t files = 0;
};
VitPictures read_vit_pictures(const std::string& dir, VitTrainConfig& c);

// `tfx train`'s data: a built-in corpus (its own split and alignments; `corpus` ko-en, the
// lecture's, en-ko, the word-order experiment's, or lengths, the extrapolation experiment's) or
// --pairs FILE (split with test_fraction and seed), as pairs, a vocabulary and ids. train_max_len
// > 0 (--train-max-len) keeps the training pairs of at most that many source words
// (keep_short_training_pairs).
struct TranslatorTrainData {
  std::vector<TextPair> pairs;
  std::vector<std::string> vocab;
  std::string name;  // "the built-in corpus", … or the --pairs file
  IdPairs data;
};
TranslatorTrainData load_translator_train_data(const std::string& pairs_path, const std::string& corpus, double test_fraction,
                                               std::uint64_t seed, std::size_t train_max_len = 0);

// The experiment as its flags ("--corpus en-ko --no-pe", "--pe rope --train-max-len 6", "" for the
// lecture's model): in every title, so two runs' figures and tables tell themselves apart.
std::string translator_experiment(const std::string& corpus, const std::string& pairs, PositionalEncoding pe, bool no_scale, bool pre_ln,
                                  bool no_warmup, std::size_t train_max_len = 0);

// -o FILE.safetensors of `tfx train`: the model and its vocabulary beside it must each be a file tfx
// can replace (checked before training: a folder or a device would fail only after it).
void check_translator_target(const std::string& model_path);

// The bytes a `tfx train` run holds: the parameters with their gradients and Adam's moments, a
// step's activations over the longest sentences, the logits over the vocabulary, and the pairs and
// vocabulary; `longest` = the longest sentence in words.
struct TranslatorTrainBytes {
  double bytes = 0;
  std::size_t longest = 0;
};
TranslatorTrainBytes translator_training_bytes(const TrainConfig& c, std::size_t batch, const IdPairs& data,
                                               const std::vector<std::string>& vocab);

// A word's id in `vocab`; unknown words are <unk> (id 3) when translated.
std::unordered_map<std::string, std::size_t> vocab_index(const std::vector<std::string>& vocab);
// The greedy translation of `words` by the model being trained.
std::vector<std::string> train_translate_words(const TrainConfig& c, const TensorMap& params, const std::vector<std::string>& vocab,
                                               const std::unordered_map<std::string, std::size_t>& index,
                                               const std::vector<std::string>& words);
// The sentence `tfx train` translates at the end: the lecture's 나는 학생 이다 when its words are
// known, else the last held-out pair's source (the first pair's when none is held out).
std::vector<std::string> translator_probe(const std::unordered_map<std::string, std::size_t>& index, const std::vector<TextPair>& pairs);
// Held-out pairs the model translates wrong, in order: up to `limit`, decoding at most 1000.
struct WrongPair {
  std::vector<std::string> source, expected, got;
};
std::vector<WrongPair> held_out_wrong(const TrainConfig& c, const TensorMap& params, const std::vector<std::string>& vocab,
                                      const std::unordered_map<std::string, std::size_t>& index, const std::vector<TextPair>& pairs,
                                      std::size_t limit);

// Writes the trained translator as -o FILE.safetensors and its vocabulary beside it, together or not
// at all: its properties and its own pairs go with the weights (read_translator_file), and the
// experiment's flags ("default" when none), seed and steps in its metadata.
void write_trained_translator(const std::string& model_path, const TensorMap& params, const TrainConfig& c,
                             const std::vector<std::string>& vocab, const std::vector<TextPair>& pairs, bool builtin_corpus,
                             const std::string& experiment, std::uint64_t seed, std::int64_t steps);

// `tfx train`'s figure on a 16:9 page: the training loss against steps (log scale) with the warm-up
// peak marked, and the held-out exact match (and the alignment, when given) against steps.
Figure translator_training_figure(const Series& step_loss, const Series& exact, const Series* alignment, std::size_t test_pairs,
                                  double warmup, bool no_warmup, std::int64_t steps, std::int64_t batch, const std::string& experiment_title);

}  // namespace tfx
