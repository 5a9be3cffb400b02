// The training data of `tfx train`: translation pairs from "source<TAB>target" lines, the
// held-out split, the vocabulary and the ids (train.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <unordered_map>

#include "tfx/core/words.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/random.hpp"
#include "tfx/model/train.hpp"
#include "tfx/text/unicode.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

}  // namespace

std::vector<TextPair> parse_pair_lines(std::string_view text, const std::string& where) {
  std::vector<TextPair> pairs;
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos || line[0] == '#') continue;
    for (std::size_t i = 0; i < line.size();) {
      const std::size_t n = unicode::utf8_decode(line, i);
      if (n == 0)
        throw Error(fmt::format(N_("{}:{}: invalid UTF-8 at byte {} of the line; expected UTF-8 text"), where, line_no, i + 1));
      i += n;
    }
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      throw Error(fmt::format(N_("{}:{}: no tab; expected source<TAB>target"), where, line_no));
    if (line.find('\t', tab + 1) != std::string_view::npos)
      throw Error(fmt::format(N_("{}:{}: more than one tab; expected source<TAB>target"), where, line_no));
    TextPair p;
    // one normalization (NFC) on both sides, as translate applies to its input: pairs written in
    // decomposed (NFD) Hangul train the words a query finds
    p.source = split_words(unicode::nfc_utf8(line.substr(0, tab)));
    p.target = split_words(unicode::nfc_utf8(line.substr(tab + 1)));
    if (p.source.empty() || p.target.empty())
      throw Error(fmt::format(N_("{}:{}: the {} side is empty; expected source<TAB>target"), where, line_no,
                                   p.source.empty() ? "source" : "target"));
    if (p.source.size() > kMaxPairWords || p.target.size() > kMaxPairWords)
      throw Error(fmt::format(N_("{}:{}: {} words on the {} side; at most {} a side"), where, line_no,
                                   std::max(p.source.size(), p.target.size()),
                                   p.source.size() > kMaxPairWords ? "source" : "target", kMaxPairWords));
    if (pairs.size() == kMaxTrainPairs)
      throw Error(fmt::format(N_("{}:{}: more than {} pairs; at most {}"), where, line_no, kMaxTrainPairs, kMaxTrainPairs));
    pairs.push_back(std::move(p));
  }
  if (pairs.empty()) throw Error(fmt::format(N_("{}: no pairs; expected source<TAB>target lines"), where));
  return pairs;
}

void split_pairs(std::vector<TextPair>& pairs, double fraction, std::uint64_t seed) {
  for (TextPair& p : pairs) p.test = false;
  if (fraction <= 0 || pairs.size() < 2) return;
  std::size_t want = static_cast<std::size_t>(std::ceil(fraction * double(pairs.size())));
  want = std::clamp<std::size_t>(want, 1, pairs.size() - 1);
  std::vector<std::size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  Generator gen(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<std::size_t>(gen.uniform01() * double(i))]);
  for (std::size_t i = 0; i < want; ++i) pairs[order[i]].test = true;
}

std::size_t keep_short_training_pairs(std::vector<TextPair>& pairs, std::size_t max_len, const std::string& where) {
  std::size_t longest = 0;
  for (const TextPair& p : pairs)
    if (!p.test) longest = std::max(longest, p.source.size());
  if (max_len == 0 || max_len > longest)
    throw usage_error(fmt::format(N_("--train-max-len {}: the training sentences of {} have at most {} words; expected 1 to {}"), max_len,
                                  where, longest, longest));
  const std::size_t before = pairs.size();
  std::erase_if(pairs, [&](const TextPair& p) { return !p.test && p.source.size() > max_len; });
  return before - pairs.size();
}

std::vector<std::string> pair_vocabulary(const std::vector<TextPair>& pairs) {
  std::set<std::string> src, tgt;
  for (const TextPair& p : pairs) {
    src.insert(p.source.begin(), p.source.end());
    tgt.insert(p.target.begin(), p.target.end());
  }
  std::vector<std::string> v = {"<pad>", "<bos>", "<eos>", "<unk>"};
  for (const std::string& w : src)
    if (w != "<pad>" && w != "<bos>" && w != "<eos>" && w != "<unk>") v.push_back(w);
  for (const std::string& w : tgt)
    if (!src.count(w) && w != "<pad>" && w != "<bos>" && w != "<eos>" && w != "<unk>") v.push_back(w);
  return v;
}

IdPairs pair_ids(const std::vector<TextPair>& pairs, const std::vector<std::string>& vocab) {
  std::unordered_map<std::string, std::size_t> ids;
  for (std::size_t i = 0; i < vocab.size(); ++i) ids.emplace(vocab[i], i);
  auto id = [&](const std::string& w) {
    const auto it = ids.find(w);
    return it == ids.end() || it->second < 4 ? std::size_t{3} : it->second;
  };
  IdPairs out;
  for (const TextPair& p : pairs) {
    IdPair q;
    for (const std::string& w : p.source) q.source.push_back(id(w));
    for (const std::string& w : p.target) q.target.push_back(id(w));
    q.alignment = p.alignment;
    (p.test ? out.test : out.train).push_back(std::move(q));
  }
  return out;
}

}  // namespace tfx
