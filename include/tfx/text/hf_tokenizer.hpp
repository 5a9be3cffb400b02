// Hugging Face tokenizers, read from a checkpoint folder offline, with the ids Hugging Face gives:
//   tokenizer.json — a BPE model over the ByteLevel pre-tokenizer (GPT-2's split pattern, or the
//   `Split` pattern of Llama 3 / Qwen2), a WordPiece model with BertNormalizer and
//   BertPreTokenizer, or a BPE model over `▁` (Metaspace, or the Prepend/Replace normalizer) with
//   byte fallback (Llama 2 / Mistral); post-processors TemplateProcessing, ByteLevel and
//   RobertaProcessing; added tokens (a special token written in the text stays one token).
//   Without tokenizer.json: vocab.txt (WordPiece, as BERT) or vocab.json + merges.txt (GPT-2).
// Each token also has a readable form: GPT-2's Ġ shown as ␣, Llama's ▁ as ␣, and byte tokens that
// only together form a character shown as that character with their part ("나 1/3").
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tfx/core/progress.hpp"

namespace tfx {

struct HfEncoding {
  std::vector<std::size_t> ids;
  std::vector<std::string> tokens;    // the vocabulary's spelling ("Ġcat", "##ing", "<0xEB>")
  std::vector<std::string> readable;  // for people ("␣cat", "##ing", "나 1/3")
  std::vector<bool> special;          // added by the post-processor or an added special token
  // Only when encode is asked for them: each token's [begin, end) in the input text in UTF-8 bytes,
  // as Hugging Face's Rust engine keeps them (its Python and Node bindings show the same in
  // characters): a token holding part of a character (byte-level BPE) spans the whole character;
  // a token of normalized text (lower-cased, accents stripped, jamo of NFD) spans the characters it
  // came from; a WordPiece [UNK] spans its word; the post-processor's tokens are [0, 0).
  std::vector<std::pair<std::size_t, std::size_t>> offsets;
};

class HfTokenizer {
 public:
  // The tokenizer of checkpoint folder `dir` (tokenizer.json, else vocab.txt, else vocab.json +
  // merges.txt). A missing or malformed file throws tfx::Error naming it and what was expected;
  // a tokenizer.json of an unsupported kind names the supported ones.
  static HfTokenizer load(const std::string& dir);
  // The same from the text of a tokenizer.json (`where` names it in errors).
  static HfTokenizer from_json(std::string_view json, const std::string& where);

  // Tokens and ids of `text` (valid UTF-8; invalid bytes throw a usage error naming the offset),
  // the whole text one sequence as Hugging Face's `encode` sees it; with `add_special_tokens` the
  // post-processor's tokens ([CLS] … [SEP], <s> …) as Hugging Face adds them by default; without
  // `with_readable`, HfEncoding::readable stays empty. Linear in the text; a text of 1 MiB or more
  // is cut where cutting changes no token (before a newline that follows a letter) and its parts
  // are encoded on all cores.
  // `progress`, when set, hears (bytes done, text bytes) on the calling thread. With
  // `with_offsets`, HfEncoding::offsets too.
  HfEncoding encode(std::string_view text, bool add_special_tokens = true, bool with_readable = true,
                    const Progress& progress = {}, bool with_offsets = false) const;

  // Steps of work this thread's encode calls did so far (added-token automaton steps, WordPiece
  // probes, BPE merges and heap pops): what the linear-time tests count instead of timing.
  static std::uint64_t encode_work();

  std::size_t vocab_size() const;  // the largest id + 1
  std::optional<std::size_t> token_to_id(std::string_view token) const;
  std::string id_to_token(std::size_t id) const;  // "" for an id no token has
  // The readable form of one token on its own (Ġcat → ␣cat, <0xEB> → <0xEB>, a lone byte of a
  // character → its hex); "<id N>" for an id no token has.
  std::string readable(std::size_t id) const;
  // The word's token when it is one ("king" → "king", or "Ġking" for byte-level BPE, "▁king" for
  // Metaspace), for looking words up in a model's embedding table.
  std::optional<std::size_t> word_id(const std::string& word, std::string* token = nullptr) const;

  // The bytes id stands for in decoded text, as HF's decode(skip_special_tokens=True) joins them:
  // byte-level characters back to their bytes, ▁ → space, <0xXX> → that byte, WordPiece's ##
  // joined (other word pieces after a space); "" for a special token or an id no token has.
  // Several tokens' bytes may be needed to complete one UTF-8 character.
  std::string token_bytes(std::size_t id) const;
  std::string kind() const;    // "byte-level BPE", "WordPiece", "BPE with byte fallback (▁)"
  std::string source() const;  // the file(s) it was read from
  std::optional<std::size_t> mask_id() const;  // [MASK] / <mask>, when the vocabulary has one
  std::string mask_token() const;
  std::optional<std::size_t> special_id(const std::string& token) const;  // an added special token's id

  struct Impl;
  // A tokenizer built directly (GGUF metadata: gguf_tokenizer), finished by hf_detail::finish.
  static HfTokenizer from_impl(std::shared_ptr<const Impl> impl);

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tfx
