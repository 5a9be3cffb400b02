// Byte-level BPE training and its tokenizer.json (include/tfx/text/bpe_train.hpp), step by step
// as Hugging Face's BpeTrainer (tokenizers/src/models/bpe/trainer.rs) does it, so that the same
// text gives the same merges.
#include "tfx/text/bpe_train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "hf_tokenizer_impl.hpp"
#include "tfx/core/error.hpp"
#include "tfx/text/script_stats.hpp"
#include "tfx/text/unicode.hpp"

namespace tfx {

namespace {

using PairKey = std::uint64_t;  // (left id << 32) | right id: ordering the keys orders the pairs
PairKey pair_key(std::uint32_t a, std::uint32_t b) { return (static_cast<PairKey>(a) << 32) | b; }
std::uint32_t pair_left(PairKey k) { return static_cast<std::uint32_t>(k >> 32); }
std::uint32_t pair_right(PairKey k) { return static_cast<std::uint32_t>(k & 0xFFFFFFFFu); }

// A queued pair: its count when queued and the words that held it then (HF's `Merge`).
struct QueuedPair {
  std::uint64_t count = 0;
  PairKey pair = 0;
  std::vector<std::uint32_t> words;  // sorted, each once
};
// The heap's order: the larger count first; on a tie the smaller pair (HF: "ascending order").
struct QueueBelow {
  bool operator()(const QueuedPair& a, const QueuedPair& b) const {
    if (a.count != b.count) return a.count < b.count;
    return a.pair > b.pair;
  }
};

// One change of a pair's count in one word (HF's Word::merge result).
struct PairChange {
  PairKey pair;
  int change;
};

// Replaces every (c1, c2) in `w`, left to right, by `merged`, and lists the pairs that lost or
// gained an occurrence (the merged pair itself is not listed, as HF's Word::merge does not).
void merge_word(std::vector<std::uint32_t>& w, std::uint32_t c1, std::uint32_t c2, std::uint32_t merged,
                std::vector<PairChange>& changes) {
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] != c1 || i + 1 >= w.size() || w[i + 1] != c2) continue;
    if (i > 0) {
      changes.push_back({pair_key(w[i - 1], c1), -1});
      changes.push_back({pair_key(w[i - 1], merged), 1});
    }
    w[i] = merged;
    w.erase(w.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    if (i + 1 < w.size()) {
      changes.push_back({pair_key(c2, w[i + 1]), -1});
      changes.push_back({pair_key(merged, w[i + 1]), 1});
    }
  }
}

// The byte characters in code-point order: id → byte, and byte → id.
struct ByteIds {
  std::array<unsigned char, 256> byte_of{};
  std::array<std::uint32_t, 256> id_of{};
};
const ByteIds& byte_ids() {
  static const ByteIds t = [] {
    ByteIds b;
    std::array<int, 256> order{};
    for (int i = 0; i < 256; ++i) order[i] = i;
    const auto& ch = hf_detail::byte_to_char();
    std::sort(order.begin(), order.end(), [&](int x, int y) { return ch[x] < ch[y]; });
    for (int id = 0; id < 256; ++id) {
      b.byte_of[id] = static_cast<unsigned char>(order[id]);
      b.id_of[order[id]] = static_cast<std::uint32_t>(id);
    }
    return b;
  }();
  return t;
}

std::string spelled(std::string_view bytes) {
  std::string s;
  for (unsigned char b : bytes) unicode::append_utf8(s, hf_detail::byte_to_char()[b]);
  return s;
}

struct Words {
  std::vector<std::string> text;  // distinct words (bytes), sorted
  std::vector<std::uint64_t> count;
  std::size_t lines = 0, words = 0, characters = 0;
};

// 1. The words of the text: lines (each keeps its '\n'), GPT-2's split, counted.
Words count_words(std::string_view text) {
  Words out;
  std::unordered_map<std::string, std::uint64_t> counts;
  std::u32string line;
  for (std::size_t i = 0; i < text.size();) {
    line.clear();
    std::size_t j = i;
    while (j < text.size()) {
      char32_t c = 0;
      const std::size_t n = unicode::utf8_decode(text, j, &c);
      if (n == 0)
        throw usage_error("text: " + fmt::format(N_("invalid UTF-8 at byte {} (expected UTF-8 text; is it a binary file?)"), j));
      line.push_back(c);
      j += n;
      if (c == U'\n') break;
    }
    ++out.lines;
    out.characters += line.size();
    for (const std::u32string& w : hf_detail::gpt2_words(line)) {
      ++counts[unicode::to_utf8(w)];
      ++out.words;
    }
    i = j;
  }
  std::vector<std::pair<std::string, std::uint64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());
  for (auto& [w, c] : sorted) {
    out.text.push_back(std::move(w));
    out.count.push_back(c);
  }
  return out;
}

// 2–3. The merges until the vocabulary has `vocab_size` tokens or no pair is left.
BpeTraining train(std::string_view text, std::size_t vocab_size, const Progress& progress) {
  if (text.empty()) throw Error("text: empty; expected UTF-8 text to learn merges from");
  const Words words = count_words(text);
  BpeTraining t;
  t.lines = words.lines;
  t.words = words.words;
  t.distinct_words = words.text.size();
  t.characters = words.characters;
  const ByteIds& ids = byte_ids();
  std::unordered_map<std::string, std::uint32_t> token_id;
  for (std::size_t id = 0; id < 256; ++id) {
    t.bytes.emplace_back(1, static_cast<char>(ids.byte_of[id]));
    t.vocab.push_back(spelled(t.bytes.back()));
    token_id.emplace(t.vocab.back(), static_cast<std::uint32_t>(id));
  }
  std::vector<std::vector<std::uint32_t>> symbols(words.text.size());
  for (std::size_t w = 0; w < words.text.size(); ++w)
    for (unsigned char b : words.text[w]) symbols[w].push_back(ids.id_of[b]);

  // the pairs' counts and the words holding each pair
  std::unordered_map<PairKey, std::int64_t> pair_count;
  std::unordered_map<PairKey, std::vector<std::uint32_t>> where;
  for (std::size_t w = 0; w < symbols.size(); ++w)
    for (std::size_t i = 0; i + 1 < symbols[w].size(); ++i) {
      const PairKey k = pair_key(symbols[w][i], symbols[w][i + 1]);
      pair_count[k] += static_cast<std::int64_t>(words.count[w]);
      auto& list = where[k];
      if (list.empty() || list.back() != w) list.push_back(static_cast<std::uint32_t>(w));
    }
  std::vector<QueuedPair> queue;
  queue.reserve(where.size());
  const auto enqueue = [&](std::unordered_map<PairKey, std::vector<std::uint32_t>>& pending) {
    for (auto& [k, list] : pending) {
      const std::int64_t c = pair_count[k];
      if (c <= 0) continue;
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      queue.push_back({static_cast<std::uint64_t>(c), k, std::move(list)});
      std::push_heap(queue.begin(), queue.end(), QueueBelow{});
    }
    pending.clear();
  };
  enqueue(where);

  ProgressTicker tick(progress, vocab_size > 256 ? vocab_size - 256 : 0);
  std::vector<PairChange> changes;
  for (;;) {
    if (t.vocab.size() >= vocab_size) break;
    if (queue.empty()) break;
    std::pop_heap(queue.begin(), queue.end(), QueueBelow{});
    QueuedPair top = std::move(queue.back());
    queue.pop_back();
    const std::int64_t now = pair_count[top.pair];
    if (top.count != static_cast<std::uint64_t>(now)) {  // a stale entry: queue it again with today's count
      top.count = static_cast<std::uint64_t>(now);
      queue.push_back(std::move(top));
      std::push_heap(queue.begin(), queue.end(), QueueBelow{});
      continue;
    }
    if (top.count < 1) break;
    const std::uint32_t a = pair_left(top.pair), b = pair_right(top.pair);
    const std::string merged = t.vocab[a] + t.vocab[b];
    std::uint32_t merged_id = 0;
    if (const auto it = token_id.find(merged); it != token_id.end()) {
      merged_id = it->second;
    } else {
      merged_id = static_cast<std::uint32_t>(t.vocab.size());
      t.vocab.push_back(merged);
      t.bytes.push_back(t.bytes[a] + t.bytes[b]);
      token_id.emplace(merged, merged_id);
    }
    t.steps.push_back({a, b, merged_id, top.count});
    // merge the pair in the words that held it; only their neighbours' counts change
    for (const std::uint32_t w : top.words) {
      changes.clear();
      merge_word(symbols[w], a, b, merged_id, changes);
      for (const PairChange& c : changes) {
        pair_count[c.pair] += c.change * static_cast<std::int64_t>(words.count[w]);
        if (c.change > 0) where[c.pair].push_back(w);
      }
    }
    enqueue(where);
    tick(t.vocab.size() - 256);
  }
  // tokenizer.json's merges: each pair once, where it was merged last (HF keeps the last rank)
  std::unordered_map<PairKey, std::size_t> last;
  for (std::size_t s = 0; s < t.steps.size(); ++s)
    last[pair_key(static_cast<std::uint32_t>(t.steps[s].left), static_cast<std::uint32_t>(t.steps[s].right))] = s;
  for (std::size_t s = 0; s < t.steps.size(); ++s)
    if (last[pair_key(static_cast<std::uint32_t>(t.steps[s].left), static_cast<std::uint32_t>(t.steps[s].right))] == s)
      t.merges.emplace_back(t.steps[s].left, t.steps[s].right);
  return t;
}

}  // namespace

BpeTraining train_byte_level_bpe(std::string_view text, std::size_t vocab_size, const Progress& progress) {
  if (vocab_size < 256)
    throw Error(fmt::format("vocab_size {}: expected at least 256 (the 256 byte tokens come first, then one token per merge)",
                            vocab_size));
  BpeTraining t = train(text, vocab_size, progress);
  if (t.vocab.size() < vocab_size)
    throw Error(fmt::format("vocab_size {}: more than this text allows; no pair is left to merge at {} tokens (the largest "
                            "reachable size: give at most {}, or a longer text)",
                            vocab_size, t.vocab.size(), t.vocab.size()));
  return t;
}

std::size_t byte_level_bpe_reachable(std::string_view text) {
  return train(text, static_cast<std::size_t>(-1), {}).vocab.size();
}

std::string byte_level_bpe_json(const BpeTraining& t) {
  using ojson = nlohmann::ordered_json;
  const ojson byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  ojson post = byte_level, decoder = byte_level;
  post["add_prefix_space"] = true;
  post["trim_offsets"] = false;
  decoder["add_prefix_space"] = true;
  // the head as HF writes it (serde's field order), then the vocabulary and merges one per line
  ojson head = ojson::object();
  head["version"] = "1.0";
  head["truncation"] = nullptr;
  head["padding"] = nullptr;
  head["added_tokens"] = ojson::array();
  head["normalizer"] = nullptr;
  head["pre_tokenizer"] = byte_level;
  head["post_processor"] = post;
  head["decoder"] = decoder;
  ojson model = ojson::object();
  model["type"] = "BPE";
  model["dropout"] = nullptr;
  model["unk_token"] = nullptr;
  model["continuing_subword_prefix"] = nullptr;
  model["end_of_word_suffix"] = nullptr;
  model["fuse_unk"] = false;
  model["byte_fallback"] = false;
  model["ignore_merges"] = false;
  std::string out = "{\n";
  for (const auto& [k, v] : head.items()) out += fmt::format("  {}: {},\n", ojson(k).dump(), v.dump());
  out += "  \"model\": {\n";
  for (const auto& [k, v] : model.items()) out += fmt::format("    {}: {},\n", ojson(k).dump(), v.dump());
  out += "    \"vocab\": {\n";
  for (std::size_t id = 0; id < t.vocab.size(); ++id)
    out += fmt::format("      {}: {}{}\n", ojson(t.vocab[id]).dump(), id, id + 1 < t.vocab.size() ? "," : "");
  out += "    },\n    \"merges\": [\n";
  for (std::size_t m = 0; m < t.merges.size(); ++m)
    out += fmt::format("      [{}, {}]{}\n", ojson(t.vocab[t.merges[m].first]).dump(), ojson(t.vocab[t.merges[m].second]).dump(),
                       m + 1 < t.merges.size() ? "," : "");
  out += "    ]\n  }\n}\n";
  return out;
}

TokenKind token_kind(std::string_view bytes) {
  bool latin = false, hangul = false, other = false;
  for (std::size_t i = 0; i < bytes.size();) {
    char32_t c = 0;
    const std::size_t n = unicode::utf8_decode(bytes, i, &c);
    if (n == 0) return TokenKind::partial;
    i += n;
    if (c == U' ' && i == n) continue;  // the word's leading space
    const Script s = script_of(c);
    if (s == Script::latin && c < 0x80) latin = true;
    else if (s == Script::hangul && c >= 0xAC00 && c <= 0xD7A3) hangul = true;
    else other = true;
  }
  if (latin && !hangul && !other) return TokenKind::latin;
  if (hangul && !latin && !other) return TokenKind::hangul;
  return TokenKind::other;
}

}  // namespace tfx
