// The built-in trained checkpoints a model command opens by name, like a folder: `teaching-gpt`
// (data/teaching_gpt, trained by scripts/train_teaching_gpt.sh with `tfx train gpt`; its
// config.json, model.safetensors and tokenizer.json) and `teaching-vit` (data/teaching_vit, trained
// by scripts/train_teaching_vit.sh with `tfx train vit` on the built-in shapes; its config.json,
// preprocessor_config.json and model.safetensors), compiled into tfxcore as byte arrays by
// cmake/teaching_model.cmake.
//
// How it is opened: the first use writes the three files, whole, into a folder named after their
// content's hash under the cache ($XDG_CACHE_HOME/tfx, else $HOME/.cache/tfx, else a temporary
// folder): <cache>/builtin-<hash>/teaching-gpt/. Every reader of a checkpoint folder (the loader,
// its memory map, the tokenizer, generation's config.json) then works on real files unchanged, and
// the weights are memory-mapped as a downloaded checkpoint's are. A new build with other weights
// has another hash, so a stale copy is never read.
//
// A real file or folder named teaching-gpt in the working directory is refused (one line: write
// ./teaching-gpt to open it), never silently preferred to the built-in or hidden by it.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tfx {

inline constexpr std::string_view kTeachingGpt = "teaching-gpt";
inline constexpr std::string_view kTeachingVit = "teaching-vit";

// Whether DIR, as the user wrote it, names a built-in model ("teaching-gpt" or "teaching-gpt/",
// "teaching-vit" or "teaching-vit/").
bool is_builtin_model(const std::string& dir);

// The folder to read for DIR: DIR itself, or for a built-in name the cached copy of its files
// (written on first use). Throws tfx::Error when a built-in name is also a path in the working
// directory, or when no cache folder can be written.
std::string model_files_dir(const std::string& dir);

// The words of TEXT that no sentence of teaching-gpt's training corpus has (data/teaching_gpt/
// corpus.txt, compiled in): TEXT split at whitespace, ASCII punctuation taken off each word's ends,
// ASCII letters compared without case (a Korean word keeps its particle, as the corpus writes it).
// Each word once, as TEXT first writes it, in TEXT's order.
std::vector<std::string> words_unseen_by_teaching_gpt(std::string_view text);

// The built-in files as compiled in (for tests and `model info`).
std::string_view teaching_gpt_corpus();
std::string_view teaching_gpt_config();
std::string_view teaching_gpt_weights();
std::string_view teaching_gpt_tokenizer();
std::string_view teaching_vit_config();
std::string_view teaching_vit_preprocessor();
std::string_view teaching_vit_weights();

}  // namespace tfx
