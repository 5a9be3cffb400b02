// The inside of HfTokenizer (tfx/text/hf_tokenizer.hpp), shared by its three files:
// hf_tokenizer_json.cpp reads tokenizer.json into an Impl, hf_tokenizer_encode.cpp runs the
// normalizer → pre-tokenizer → model pipeline on one segment, hf_tokenizer.cpp splits out added
// tokens, adds the template's specials, decodes and names tokens.
#pragma once
#include "tfx/text/hf_tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <atomic>
#include <iterator>
#include <array>
#include <cstdint>
#include <queue>
#include <tuple>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/parallel.hpp"
#include "tfx/core/error.hpp"
#include "tfx/io/json_fields.hpp"
#include "tfx/io/text_file.hpp"
#include "tfx/text/tokenizer.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

namespace hf_detail {

// The byte of a byte-fallback token <0xHH> (two hex digits, either case); nullopt for any other
// token, <0xZZ> included (a token that only looks like one is an ordinary token).
inline std::optional<char> byte_token_value(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return std::nullopt;
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(t.data() + 3, t.data() + 5, v, 16);
  if (ec != std::errc() || end != t.data() + 5) return std::nullopt;
  return static_cast<char>(v);
}

// The bytes of a vocabulary token that spells bytes: a byte-level token (Ġcat → " cat"; one that
// is not a byte-level spelling comes back as written) or a byte-fallback token <0xXX>; nullopt
// for any other token.
std::optional<std::string> spelled_bytes(const std::string& tok, bool byte_level, bool byte_fallback);

// ▁ (U+2581, SentencePiece's space) as a space: "▁the" → " the".
inline std::string metaspace_as_spaces(const std::string& tok) {
  std::string out;
  for (std::size_t k = 0; k < tok.size();) {
    if (tok.compare(k, 3, "\xE2\x96\x81") == 0) {
      out += ' ';
      k += 3;
    } else {
      out += tok[k++];
    }
  }
  return out;
}

inline thread_local std::uint64_t g_work = 0;  // see encode_work()

using json = nlohmann::json;
namespace fs = std::filesystem;

enum class Model { bpe, wordpiece };
enum class Split { none, gpt2, llama3, qwen2 };  // the byte-level split pattern
enum class Prepend { never, first, always };

// A Unicode normalizer step of tokenizer.json, applied in the file's order.
enum class Norm { nfc, nfd, nfkc, nfkd, bert, lowercase, strip_accents };
struct NormStep {
  Norm kind = Norm::nfc;
  // BertNormalizer's switches
  bool clean_text = true, chinese = true, strip = true, lower = true;
};

struct AddedToken {
  std::string content;
  std::size_t id = 0;
  bool special = false, lstrip = false, rstrip = false, single_word = false;
};

// One piece of the post-processor's template: a special token's ids, or the sequence.
struct TemplatePiece {
  bool sequence = false;
  std::vector<std::size_t> ids;
  std::vector<std::string> tokens;
};

// Leftmost-longest matching of the added tokens in O(text + tokens): an Aho–Corasick automaton over
// the reversed tokens, run from the text's end to its start, gives at each byte the longest token
// starting there (the reversed text read so far ends with a reversed token exactly when that token
// starts at the current byte); the longest terminal suffix of each state is precomputed.
class AddedMatcher {
 public:
  void build(const std::vector<AddedToken>& added) {
    nodes_.assign(1, Node{});
    edges_.clear();
    root_.fill(0);
    for (std::size_t k = 0; k < added.size(); ++k) {
      std::uint32_t v = 0;
      const std::string& s = added[k].content;
      for (std::size_t j = s.size(); j-- > 0;) {
        const auto c = static_cast<unsigned char>(s[j]);
        std::uint32_t next = child(v, c);
        if (!next) {
          next = static_cast<std::uint32_t>(nodes_.size());
          nodes_.push_back(Node{});
          nodes_.back().depth = nodes_[v].depth + 1;
          if (v == 0) root_[c] = next;
          else edges_.emplace(key(v, c), next);
          children_.resize(nodes_.size());
          children_[v].push_back({c, next});
        }
        v = next;
      }
      if (!nodes_[v].term) nodes_[v].term = static_cast<std::uint32_t>(k + 1);  // `added` is longest first: first wins
    }
    children_.resize(nodes_.size());
    // breadth first: fail links and the longest terminal suffix
    std::vector<std::uint32_t> queue;
    for (const auto& [c, v] : children_[0]) queue.push_back(v), nodes_[v].out = nodes_[v].term;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const std::uint32_t u = queue[q];
      for (const auto& [c, v] : children_[u]) {
        std::uint32_t f = nodes_[u].fail;
        while (f && !child(f, c)) f = nodes_[f].fail;
        const std::uint32_t g = child(f, c);
        nodes_[v].fail = g != v ? g : 0;
        nodes_[v].out = nodes_[v].term ? nodes_[v].term : nodes_[nodes_[v].fail].out;
        queue.push_back(v);
      }
    }
    children_.clear();
    children_.shrink_to_fit();
  }
  bool empty() const { return nodes_.size() <= 1; }
  // best[i] = 1 + the index in `added` of the longest token starting at byte i, or 0; `steps`
  // counts automaton steps (at most 2 per byte).
  void scan(std::string_view text, std::vector<std::uint32_t>& best, std::uint64_t& steps) const {
    best.assign(text.size(), 0);
    std::uint32_t state = 0;
    for (std::size_t i = text.size(); i-- > 0;) {
      const auto c = static_cast<unsigned char>(text[i]);
      std::uint32_t next = child(state, c);
      while (!next && state) {
        ++steps;
        state = nodes_[state].fail;
        next = child(state, c);
      }
      ++steps;
      state = next;
      best[i] = nodes_[state].out;
    }
  }

 private:
  struct Node {
    std::uint32_t fail = 0, term = 0, out = 0, depth = 0;
  };
  static std::uint64_t key(std::uint32_t v, unsigned char c) { return (static_cast<std::uint64_t>(v) << 8) | c; }
  std::uint32_t child(std::uint32_t v, unsigned char c) const {
    if (v == 0) return root_[c];
    const auto it = edges_.find(key(v, c));
    return it == edges_.end() ? 0 : it->second;
  }
  std::vector<Node> nodes_{1};
  std::array<std::uint32_t, 256> root_{};
  std::unordered_map<std::uint64_t, std::uint32_t> edges_;
  std::vector<std::vector<std::pair<unsigned char, std::uint32_t>>> children_;
};

// GPT-2's byte-level alphabet: byte → printable character, and back.
const std::array<char32_t, 256>& byte_to_char();
const std::unordered_map<char32_t, unsigned char>& char_to_byte();
// \w of the split patterns: a letter, a number or _.
bool word_char(char32_t c);
// GPT-2's split pattern over s (the ByteLevel pre-tokenizer's words; bpe_train.cpp learns from them).
std::vector<std::u32string> gpt2_words(const std::u32string& s);

}  // namespace hf_detail


namespace hf_detail {
// The steps of reading a tokenizer.json, for a tokenizer built without one (gguf_tokenizer): a
// vocabulary token at its id; a BPE merge of tokens a and b, ranked `rank` (all three tokens must
// be known); the added tokens sorted and matched; the kind named (and WordPiece's table made).
// Errors are tfx::Error naming `where`, as for tokenizer.json.
void add_token(HfTokenizer::Impl& t, const std::string& token, std::size_t id, const std::string& where);
void add_merge(HfTokenizer::Impl& t, std::string_view a, std::string_view b, std::uint32_t rank, const std::string& where);
void finish(HfTokenizer::Impl& t, const std::string& where);
}  // namespace hf_detail

struct HfTokenizer::Impl {
  using Model = hf_detail::Model;
  using Split = hf_detail::Split;
  using Prepend = hf_detail::Prepend;
  using NormStep = hf_detail::NormStep;
  using AddedToken = hf_detail::AddedToken;
  using TemplatePiece = hf_detail::TemplatePiece;
  using AddedMatcher = hf_detail::AddedMatcher;
  std::string source, kind;
  Model model = Model::bpe;
  std::vector<std::string> id_to_token;
  std::size_t declared = 0;  // tokens the file lists (vocabulary + added): bounds the ids
  std::unordered_map<std::string, std::size_t> token_to_id;
  // BPE: (left id, right id) → (rank, merged id)
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> merges;
  bool byte_level = false;    // GPT-2's bytes → printable characters
  Split split = Split::none;  // byte-level: the regex that cuts the text into words
  bool add_prefix_space = false;
  bool metaspace = false;     // ' ' → ▁ (Llama 2 / Mistral)
  Prepend prepend = Prepend::never;
  bool metaspace_split = false;  // Metaspace pre-tokenizer with split: words start at each ▁
  bool byte_fallback = false, fuse_unk = false, ignore_merges = false;
  std::optional<std::size_t> unk;
  std::vector<NormStep> norms;  // Unicode normalizers, in order
  // WordPiece
  bool lowercase = false;
  Vocabulary wordpiece_vocab;
  std::string continuing_prefix = "##";
  std::size_t max_word_chars = 100;
  std::vector<AddedToken> added;         // longest first
  AddedMatcher added_matcher;            // over `added`
  std::vector<TemplatePiece> single;     // post-processor template (empty: none)

  std::optional<std::size_t> find(std::string_view t) const {
    const auto it = token_to_id.find(std::string(t));
    if (it == token_to_id.end()) return std::nullopt;
    return it->second;
  }
  // BPE's merges of each distinct word, kept for one encode call (a document repeats its words)
  using WordCache = std::unordered_map<std::string, std::vector<std::uint32_t>>;
  void encode_segment(std::string_view text, bool first, HfEncoding& out, WordCache& cache) const;
  void bpe_cached(const std::string& word, HfEncoding& out, WordCache& cache) const;
  std::u32string normalize(std::u32string s) const;
  void bpe_word(const std::vector<std::size_t>& symbols, HfEncoding& out) const;
  std::vector<std::size_t> symbols_of(const std::string& word) const;
  std::string piece_bytes(std::size_t id) const;
  void segment_offsets(std::string_view text, std::size_t base, HfEncoding& part) const;
};

}  // namespace tfx
