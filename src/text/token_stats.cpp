// --stats of the tokenize commands and the ratios --compare shows (tfx/text/token_stats.hpp).
#include "tfx/text/token_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

namespace tfx {

namespace {

std::vector<TokenCount> stats_top_tokens(std::vector<TokenCount> all) {
  const std::size_t k = std::min<std::size_t>(10, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end(), [](const TokenCount& a, const TokenCount& b) {
    return a.count != b.count ? a.count > b.count : a.id < b.id;
  });
  all.resize(k);
  return all;
}

double stats_ratio(std::size_t a, std::size_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

}  // namespace

TokenTally tally_tokens(const std::vector<HfEncoding>& encs, const HfTokenizer& tok) {
  TokenTally t;
  t.byte_level = true;
  std::optional<std::size_t> unk = tok.token_to_id("[UNK]");
  if (!unk) unk = tok.token_to_id("<unk>");
  std::unordered_map<std::size_t, std::size_t> freq;
  for (const HfEncoding& e : encs)
    for (std::size_t k = 0; k < e.ids.size(); ++k) {
      if (e.special[k]) continue;
      ++t.tokens;
      ++freq[e.ids[k]];
      if (unk && e.ids[k] == *unk) ++t.unknown;
      const std::string& s = e.tokens[k];
      if (s.size() == 6 && s.starts_with("<0x") && s.back() == '>') ++t.byte_fallback;
      // a byte piece of a character reads "나(1/3)"
      if (!e.readable.empty() && e.readable[k].find('/') != std::string::npos && e.readable[k].back() == ')') ++t.partial;
    }
  std::vector<TokenCount> all;
  all.reserve(freq.size());
  for (const auto& [id, n] : freq) all.push_back({static_cast<long long>(id), tok.id_to_token(id), tok.readable(id), n});
  t.most_frequent = stats_top_tokens(std::move(all));
  return t;
}

TokenTally tally_tokens(const std::vector<std::string>& tokens, const std::vector<long long>& ids, std::size_t unknown) {
  TokenTally t;
  t.tokens = tokens.size();
  t.unknown = unknown;
  // counted by spelling: a word-level [UNK] (id −1 without one) is one entry, not one per id
  std::unordered_map<std::string, std::size_t> where;
  std::vector<TokenCount> all;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto [it, fresh] = where.try_emplace(tokens[i], all.size());
    if (fresh) all.push_back({ids[i], tokens[i], tokens[i], 0});
    ++all[it->second].count;
  }
  t.most_frequent = stats_top_tokens(std::move(all));
  return t;
}

TokenRatios token_ratios(const TokenTally& t, const ScriptCounts& s) {
  return {stats_ratio(t.tokens, s.all_words()), stats_ratio(t.tokens, s.all_characters()), stats_ratio(s.all_bytes(), t.tokens)};
}

void add_token_stats(Result& r, std::string_view text, const TokenTally& t) {
  const ScriptCounts s = count_scripts(text);
  const TokenRatios q = token_ratios(t, s);
  Records rec;
  rec.name = N_("stats");
  rec.columns = {N_("script"), N_("characters"), N_("bytes"), N_("words")};
  const char* names[kScripts] = {N_("Hangul"), N_("Latin"), N_("Han"), N_("other")};
  nlohmann::json per = nlohmann::json::object();
  for (std::size_t k = 0; k < kScripts; ++k) {
    rec.rows.push_back({std::string(tr_runtime(names[k])), static_cast<long long>(s.characters[k]), static_cast<long long>(s.bytes[k]),
                        static_cast<long long>(s.words[k])});
    per[names[k]] = {{"characters", s.characters[k]}, {"bytes", s.bytes[k]}, {"words", s.words[k]}};
  }
  std::vector<std::string> shown;
  nlohmann::json top_json = nlohmann::json::array();
  for (const TokenCount& c : t.most_frequent) {
    shown.push_back(fmt::format("{} ×{}", c.readable, c.count));
    top_json.push_back({{"id", c.id}, {"token", c.token}, {"readable", c.readable}, {"count", c.count}});
  }
  if (t.byte_level)
    r.blocks.push_back(Text{trf("stats: {} tokens (specials left out) for {} words, {} characters, {} bytes: {:.2f} tokens per word, {:.3f} "
                                "per character; [UNK] {}, byte-fallback tokens {}, tokens holding part of a character {}",
                                t.tokens, s.all_words(), s.all_characters(), text.size(), q.per_word, q.per_character, t.unknown,
                                t.byte_fallback, t.partial)});
  else
    r.blocks.push_back(Text{trf("stats: {} tokens for {} words, {} characters, {} bytes: {:.2f} tokens per word, {:.3f} per character; "
                                "[UNK] {}",
                                t.tokens, s.all_words(), s.all_characters(), text.size(), q.per_word, q.per_character, t.unknown)});
  r.blocks.push_back(std::move(rec));
  r.blocks.push_back(Text{trf("most frequent tokens: {}", fmt::join(shown, ", "))});
  nlohmann::json j = {{"tokens", t.tokens},
                      {"words", s.all_words()},
                      {"characters", s.all_characters()},
                      {"bytes", text.size()},
                      {"tokens_per_word", q.per_word},
                      {"tokens_per_character", q.per_character},
                      {"bytes_per_token", q.bytes_per_token},
                      {"unknown", t.unknown},
                      {"scripts", per},
                      {"most_frequent", top_json}};
  if (t.byte_level) {
    j["byte_fallback"] = t.byte_fallback;
    j["partial_character"] = t.partial;
  }
  r.summary["stats"] = std::move(j);
}

}  // namespace tfx
