// checkpoint_embeddings (tfx/embeddings/checkpoint_embeddings.hpp): a checkpoint's token embedding
// named by its tokenizer.
#include "tfx/model/builtin_models.hpp"
#include "tfx/embeddings/checkpoint_embeddings.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "tfx/core/error.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/text/hf_tokenizer.hpp"

namespace tfx {

Embeddings checkpoint_embeddings(const std::string& dir) {
  const Checkpoint m = load_checkpoint(dir);
  const std::string name = m.config.family->token_embedding_name;
  const Tensor table = widen(m.token_embedding());  // a float32 copy: the rows are searched as vectors
  std::optional<HfTokenizer> tok;
  try {
    tok = HfTokenizer::load(model_files_dir(dir));
  } catch (const Error&) {
  }
  const bool marks = tok && (tok->kind() == "byte-level BPE" || tok->kind().find("▁") != std::string::npos);
  std::vector<std::string> words;
  for (std::size_t id = 0; id < table.rows(); ++id) {
    std::string t = tok ? tok->id_to_token(id) : "";
    if (t.empty()) {
      words.push_back(fmt::format("<id {}>", id));
      continue;
    }
    const bool byte_token = t.size() == 6 && t.rfind("<0x", 0) == 0;
    if (marks && !byte_token) {
      const std::string readable = tok->readable(id);
      if (readable.rfind("␣", 0) == 0 && readable.size() > 3) t = readable.substr(3);  // word-initial: the word itself
      else if (readable.find('(') == std::string::npos && readable.find("<0x") == std::string::npos && readable != "␣" &&
               !tok->special_id(t))
        t = "##" + readable;  // a piece inside a word
      else
        t = readable;
    }
    words.push_back(t);
  }
  return Embeddings::from_rows(std::move(words), table,
                               fmt::format("{} ({}, {} × {}{})", dir, name, table.rows(), table.cols(),
                                           marks ? "; a word is its word-initial token (Ġword / ▁word), ##piece a piece inside a word" : ""));
}

bool checkpoint_folder(const std::string& path) {
  std::error_code ec;
  return !path.empty() && std::filesystem::is_directory(path, ec) && std::filesystem::exists(std::filesystem::path(path) / "config.json", ec);
}

}  // namespace tfx
