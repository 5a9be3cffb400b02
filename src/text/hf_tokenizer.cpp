// Hugging Face tokenizers (tfx/text/hf_tokenizer.hpp): tokenizer.json's normalizer →
// pre-tokenizer → model → post-processor pipeline for the kinds BERT, GPT-2, Llama 2/3, Mistral
// and Qwen2 use, after splitting out added tokens, as the `tokenizers` library runs it.
#include "tfx/text/hf_tokenizer.hpp"

#include "hf_tokenizer_impl.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

using namespace hf_detail;

namespace {

// The readable form of every token: byte-level characters back to bytes, <0xXX> to its byte, ▁
// and spaces as ␣; a character whose bytes span tokens is shown in each with its part ("나 1/3").
std::vector<std::string> readable_tokens(const HfEncoding& e, bool byte_level, bool byte_tokens) {
  const std::size_t n = e.tokens.size();
  std::vector<std::string> bytes(n);
  std::vector<bool> has_bytes(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& t = e.tokens[i];
    if (e.special[i]) continue;
    if (byte_level) {
      std::string b;
      bool ok = true;
      for (std::size_t k = 0; k < t.size();) {
        char32_t cp = 0;
        const std::size_t len = unicode::utf8_decode(t, k, &cp);
        const auto it = char_to_byte().find(cp);
        if (!len || it == char_to_byte().end()) {
          ok = false;
          break;
        }
        b += static_cast<char>(it->second);
        k += len;
      }
      if (ok) bytes[i] = b, has_bytes[i] = true;
    } else if (const std::optional<char> byte = byte_token_value(t); byte_tokens && byte) {
      bytes[i] = std::string(1, *byte);
      has_bytes[i] = true;
    }
  }
  auto visible = [](const std::string& s) {
    std::string out;
    for (std::size_t k = 0; k < s.size();) {
      char32_t cp = 0;
      const std::size_t len = std::max<std::size_t>(1, unicode::utf8_decode(s, k, &cp));
      if (cp == U' ' || cp == U'\u2581') out += "␣";
      else if (cp == U'\n') out += "↵";
      else if (cp == U'\t') out += "⇥";
      else if (cp < 0x20 || cp == 0x7F) out += fmt::format("<0x{:02X}>", static_cast<unsigned>(cp));
      else out += s.substr(k, len);
      k += len;
    }
    return out;
  };
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!has_bytes[i]) {
      out[i] = e.special[i] ? e.tokens[i] : visible(e.tokens[i]);
      continue;
    }
    // a run of byte-carrying tokens: decode it as a whole, give each token its characters and
    // the parts of the characters it shares with its neighbours
    std::size_t j = i;
    std::string all;
    std::vector<std::size_t> start;
    while (j < n && has_bytes[j]) start.push_back(all.size()), all += bytes[j], ++j;
    start.push_back(all.size());
    std::size_t a = 0;  // moves forward only: a run of n tokens costs O(n + bytes)
    for (std::size_t k = 0; k < all.size();) {
      const std::size_t len = unicode::utf8_decode(all, k);
      const std::size_t step = len ? len : 1;
      // the tokens [a, b] this character's bytes lie in
      while (start[a + 1] <= k) ++a;
      std::size_t b = a;
      while (start[b + 1] < k + step) ++b;
      const std::string ch = len ? visible(all.substr(k, len)) : fmt::format("<0x{:02X}>", static_cast<unsigned char>(all[k]));
      for (std::size_t t = a; t <= b; ++t)
        out[i + t] += a == b ? ch : fmt::format("{}({}/{})", ch, t - a + 1, b - a + 1);
      k += step;
    }
    i = j - 1;
  }
  return out;
}

}  // namespace

namespace {

// Where a long stretch of ordinary text may be cut so that its parts tokenize, one by one, to what
// the whole gives: after a lone '\n' between visible ASCII (a letter after it). In every split
// pattern tfx knows (GPT-2's, Llama 3's, Qwen2's) a piece holding that newline ends with it (a
// one-character whitespace run before a letter, or punctuation with its newlines), also at the end
// of the part alone, and a letter piece may not start with a newline;
// BERT splits at every whitespace; no normalizer tfx applies joins a newline to a letter. Cuts
// every ~`chunk` bytes.
std::vector<std::size_t> safe_cuts(std::string_view s, std::size_t chunk) {
  std::vector<std::size_t> cuts{0};
  for (std::size_t p = chunk; p < s.size();) {
    const std::size_t nl = s.find('\n', p);
    if (nl == std::string_view::npos || nl + 1 >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[nl + 1]), b = static_cast<unsigned char>(nl ? s[nl - 1] : ' ');
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z' && b > 0x20 && b < 0x7F) {
      cuts.push_back(nl + 1);
      p = nl + 1 + chunk;
    } else {
      p = nl + 1;
    }
  }
  cuts.push_back(s.size());
  return cuts;
}

}  // namespace

HfEncoding HfTokenizer::encode(std::string_view text, bool add_special_tokens, bool with_readable, const Progress& progress,
                               bool with_offsets) const {
  const Impl& t = *impl_;
  for (std::size_t i = 0; i < text.size();) {  // invalid UTF-8 is a usage error before anything runs
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = unicode::utf8_decode(text, i);
    if (n == 0) throw usage_error(fmt::format(N_("TEXT: invalid UTF-8 at byte {}"), i));
    i += n;
  }
  // 1. split out added tokens: ordinary stretches of text between them (a job each) and the tokens
  struct Job {
    std::size_t begin, end;
    bool first;
    const AddedToken* token;  // an added token instead of text
    std::size_t token_begin = 0;  // where its content is in the text
  };
  std::vector<Job> jobs;
  std::size_t begin = 0;
  bool first = true;
  auto flush = [&](std::size_t end) {
    if (end > begin) jobs.push_back({begin, end, first, nullptr});
    first = false;
  };
  // leftmost-longest matches, as Hugging Face's AddedVocabulary: a match a single_word token may not
  // take (a word character beside it) stays ordinary text, and matching resumes after it
  std::vector<std::uint32_t> best;
  if (!t.added_matcher.empty()) t.added_matcher.scan(text, best, g_work);
  std::size_t i = 0;
  while (i < best.size()) {
    if (!best[i]) {
      ++i;
      continue;
    }
    const AddedToken* hit = &t.added[best[i] - 1];
    if (hit->single_word) {
      char32_t before = 0, after = 0;
      if (i > 0) {
        std::size_t k = i - 1;
        while (k > 0 && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80) --k;
        unicode::utf8_decode(text, k, &before);
      }
      if (i + hit->content.size() < text.size()) unicode::utf8_decode(text, i + hit->content.size(), &after);
      if ((before && word_char(before)) || (after && word_char(after))) {
        i += hit->content.size();
        continue;
      }
    }
    std::size_t left = i, right = i + hit->content.size();
    if (hit->lstrip)
      while (left > begin && (text[left - 1] == ' ' || text[left - 1] == '\t' || text[left - 1] == '\n' || text[left - 1] == '\r')) --left;
    if (hit->rstrip)
      while (right < text.size() && (text[right] == ' ' || text[right] == '\t' || text[right] == '\n' || text[right] == '\r')) ++right;
    flush(left);
    jobs.push_back({left, left, false, hit, i});
    begin = i = right;
  }
  flush(text.size());
  // 2. a big text on all cores: long stretches cut where cutting changes nothing (safe_cuts), the
  // parts encoded on the library's threads, each with its own word cache, joined in order
  const unsigned threads = worker_threads(text.size());
  const bool cuttable = t.model == Model::wordpiece || (t.byte_level && t.split != Split::none && !t.add_prefix_space);
  if (threads > 1 && cuttable) {
    const std::size_t chunk = std::max<std::size_t>(1u << 16, text.size() / (8 * threads));
    std::vector<Job> cut;
    for (const Job& j : jobs) {
      if (j.token || j.end - j.begin < 2 * chunk) {
        cut.push_back(j);
        continue;
      }
      const std::vector<std::size_t> at = safe_cuts(text.substr(j.begin, j.end - j.begin), chunk);
      for (std::size_t k = 0; k + 1 < at.size(); ++k) cut.push_back({j.begin + at[k], j.begin + at[k + 1], j.first && k == 0, nullptr});
    }
    jobs = std::move(cut);
  }
  std::vector<HfEncoding> parts(jobs.size());
  auto run = [&](std::size_t k, Impl::WordCache& cache) {
    const Job& j = jobs[k];
    if (j.token) {
      parts[k].ids.push_back(j.token->id);
      parts[k].tokens.push_back(j.token->content);
      parts[k].special.push_back(j.token->special);
      if (with_offsets) parts[k].offsets.emplace_back(j.token_begin, j.token_begin + j.token->content.size());
    } else {
      t.encode_segment(text.substr(j.begin, j.end - j.begin), j.first, parts[k], cache);
      if (with_offsets) t.segment_offsets(text.substr(j.begin, j.end - j.begin), j.begin, parts[k]);
    }
  };
  // progress in bytes of text, reported by the calling thread only (share 0)
  std::atomic<std::size_t> done_bytes{0};
  ProgressTicker tick(progress, text.size(), 200);
  if (threads > 1 && jobs.size() > 1) {
    std::atomic<std::size_t> next{0};
    parallel_for_threads(threads, [&](unsigned share, unsigned) {
      Impl::WordCache cache;
      for (std::size_t k; (k = next.fetch_add(1)) < jobs.size();) {
        run(k, cache);
        const std::size_t d = done_bytes.fetch_add(jobs[k].end - jobs[k].begin) + (jobs[k].end - jobs[k].begin);
        if (share == 0) tick(d);
      }
    });
  } else {
    Impl::WordCache cache;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      run(k, cache);
      tick(done_bytes += jobs[k].end - jobs[k].begin);
    }
  }
  tick(text.size());
  HfEncoding seq;
  std::size_t total = 0;
  for (const HfEncoding& p : parts) total += p.ids.size();
  seq.ids.reserve(total), seq.tokens.reserve(total), seq.special.reserve(total);
  for (HfEncoding& p : parts) {
    seq.ids.insert(seq.ids.end(), p.ids.begin(), p.ids.end());
    std::move(p.tokens.begin(), p.tokens.end(), std::back_inserter(seq.tokens));
    seq.special.insert(seq.special.end(), p.special.begin(), p.special.end());
    seq.offsets.insert(seq.offsets.end(), p.offsets.begin(), p.offsets.end());
    p = HfEncoding{};
  }
  // 2. the post-processor's template
  HfEncoding out;
  if (add_special_tokens && !t.single.empty()) {
    for (const TemplatePiece& p : t.single) {
      if (p.sequence) {
        out.ids.insert(out.ids.end(), seq.ids.begin(), seq.ids.end());
        out.tokens.insert(out.tokens.end(), seq.tokens.begin(), seq.tokens.end());
        out.special.insert(out.special.end(), seq.special.begin(), seq.special.end());
        out.offsets.insert(out.offsets.end(), seq.offsets.begin(), seq.offsets.end());
      } else {
        out.ids.insert(out.ids.end(), p.ids.begin(), p.ids.end());
        out.tokens.insert(out.tokens.end(), p.tokens.begin(), p.tokens.end());
        out.special.insert(out.special.end(), p.ids.size(), true);
        if (with_offsets) out.offsets.insert(out.offsets.end(), p.ids.size(), std::pair<std::size_t, std::size_t>{0, 0});
      }
    }
  } else {
    out = std::move(seq);
  }
  if (with_readable) out.readable = readable_tokens(out, t.byte_level, t.byte_fallback);
  return out;
}

std::uint64_t HfTokenizer::encode_work() { return g_work; }

std::size_t HfTokenizer::vocab_size() const { return impl_->id_to_token.size(); }

std::optional<std::size_t> HfTokenizer::token_to_id(std::string_view token) const { return impl_->find(token); }

std::string HfTokenizer::id_to_token(std::size_t id) const { return id < impl_->id_to_token.size() ? impl_->id_to_token[id] : ""; }

std::string HfTokenizer::readable(std::size_t id) const {
  const std::string t = id_to_token(id);
  if (t.empty()) return fmt::format("<id {}>", id);
  HfEncoding e;
  e.ids = {id};
  e.tokens = {t};
  bool special = false;
  for (const AddedToken& a : impl_->added) special = special || (a.id == id && a.special);
  e.special = {special};
  return readable_tokens(e, impl_->byte_level, impl_->byte_fallback)[0];
}

std::string HfTokenizer::token_bytes(std::size_t id) const {
  const Impl& t = *impl_;
  for (const AddedToken& a : t.added)
    if (a.id == id) return a.special ? std::string() : a.content;
  const std::string tok = id_to_token(id);
  if (tok.empty()) return {};
  if (std::optional<std::string> b = spelled_bytes(tok, t.byte_level, t.byte_fallback)) return *b;
  if (t.metaspace || t.prepend != Prepend::never) return metaspace_as_spaces(tok);
  if (t.model == Model::wordpiece) {
    if (tok.rfind(t.continuing_prefix, 0) == 0) return tok.substr(t.continuing_prefix.size());
    return " " + tok;
  }
  return tok;
}

std::optional<std::size_t> HfTokenizer::word_id(const std::string& word, std::string* token) const {
  const Impl& t = *impl_;
  std::vector<std::string> candidates;
  if (t.byte_level) {
    std::string mapped;
    for (unsigned char b : " " + word) unicode::append_utf8(mapped, byte_to_char()[b]);
    candidates.push_back(mapped);
    candidates.push_back(mapped.substr(byte_to_char()[' '] < 0x80 ? 1 : 2));
  } else if (t.metaspace || t.prepend != Prepend::never) {
    candidates.push_back("\xE2\x96\x81" + word);
    candidates.push_back(word);
  } else {
    candidates.push_back(word);
    if (t.lowercase) candidates.push_back(normalize_case(word, Casing::bert_uncased));
  }
  for (const std::string& c : candidates)
    if (const auto id = t.find(c)) {
      if (token) *token = c;
      return id;
    }
  return std::nullopt;
}

std::string HfTokenizer::kind() const { return impl_->kind; }
std::string HfTokenizer::source() const { return impl_->source; }

std::optional<std::size_t> HfTokenizer::mask_id() const {
  for (const char* m : {"[MASK]", "<mask>"})
    if (const auto id = impl_->find(m)) return id;
  return std::nullopt;
}

std::string HfTokenizer::mask_token() const {
  const auto id = mask_id();
  return id ? impl_->id_to_token[*id] : "";
}

std::optional<std::size_t> HfTokenizer::special_id(const std::string& token) const {
  for (const AddedToken& a : impl_->added)
    if (a.content == token) return a.id;
  return std::nullopt;
}

namespace hf_detail {

std::optional<std::string> spelled_bytes(const std::string& tok, bool byte_level, bool byte_fallback) {
  if (byte_level) {
    std::string b;
    for (std::size_t k = 0; k < tok.size();) {
      char32_t cp = 0;
      const std::size_t len = unicode::utf8_decode(tok, k, &cp);
      const auto it = char_to_byte().find(cp);
      if (!len || it == char_to_byte().end()) return tok;  // not a byte-level spelling: as written
      b += static_cast<char>(it->second);
      k += len;
    }
    return b;
  }
  if (const std::optional<char> byte = byte_token_value(tok); byte_fallback && byte) return std::string(1, *byte);
  return std::nullopt;
}

}  // namespace hf_detail

}  // namespace tfx
