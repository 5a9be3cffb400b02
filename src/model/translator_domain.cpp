// The teaching translator's training domain read back from its corpus, the check of a sentence
// against it, and the standard spellings of its Korean words in the vocabulary's spelling.
#include "tfx/model/translator_domain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <sstream>
#include <string_view>

#include "tfx/core/words.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {

std::string domain_quoted(const std::vector<std::string>& words, const char* sep = ", ") {
  std::string s;
  // each word as it may stand in a message: controls escaped, a long one cut to 40 bytes with "…"
  for (const std::string& w : words) s += (s.empty() ? "" : sep) + ("'" + escape_for_message(w, 40) + "'");
  return s;
}

bool domain_ends_with(const std::string& w, std::string_view suffix) {
  return w.size() >= suffix.size() && std::string_view(w).substr(w.size() - suffix.size()) == suffix;
}

// a word of the vocabulary proper (not one of the four special tokens)
bool domain_known(const Vocabulary& v, const std::string& w) {
  const auto id = v.find(w);
  return id && *id >= 4;
}

}  // namespace

TranslatorDomain translator_domain(const std::vector<TranslationPair>& corpus, bool builtin) {
  TranslatorDomain d;
  d.builtin = builtin;
  for (const TranslationPair& p : corpus) {
    const std::vector<std::string> ko = split_words(p.korean);
    for (const std::string& w : ko) d.korean.insert(w);
    for (const std::string& w : split_words(p.english)) d.english.insert(w);
    d.sentences[fmt::format("{}", fmt::join(ko, " "))] = p.split;
    if (d.example.empty() && p.split == "train") d.example = fmt::format("{}", fmt::join(ko, " "));
    if (ko.size() != 3) {
      d.shaped = false;  // the script writes none; a corpus of other shapes has no shape to check
      continue;
    }
    if (std::find(d.subjects.begin(), d.subjects.end(), ko[0]) == d.subjects.end()) d.subjects.push_back(ko[0]);
    std::vector<std::string>& last = d.last_words[ko[1]];
    if (std::find(last.begin(), last.end(), ko[2]) == last.end()) last.push_back(ko[2]);
  }
  for (const std::string& w : d.korean) d.english.erase(w);
  return d;
}

const TranslatorDomain& teaching_domain() {
  static std::once_flag once;
  static TranslatorDomain d;
  std::call_once(once, [] { d = translator_domain(teaching_corpus()); });
  return d;
}

TranslatorDomain model_domain(const Translator& m) {
  if (&m == &teaching_translator()) return teaching_domain();
  return translator_domain(m.pairs, m.builtin_corpus);
}

// In the domain: three words, a subject of the corpus first, and a (middle, last) pair the corpus
// holds. Otherwise the reasons, the English side first (a sentence of English words is out of the
// domain for that reason alone; its length and order say nothing more).
DomainCheck check_domain(const TranslatorDomain& d, const std::vector<std::string>& tokens) {
  DomainCheck c;
  std::vector<std::string> english, foreign;
  for (const std::string& w : tokens) {
    if (d.english.count(w)) {
      if (std::find(english.begin(), english.end(), w) == english.end()) english.push_back(w);
    } else if (!d.korean.count(w) && std::find(foreign.begin(), foreign.end(), w) == foreign.end()) {
      foreign.push_back(w);
    }
  }
  if (!english.empty()) {
    if (d.builtin)
      c.reasons.push_back(trnf("{} is a word of the English side; the source is Korean, e.g. 나는 학생 이다",
                               "{} are words of the English side; the source is Korean, e.g. 나는 학생 이다", english.size(),
                               domain_quoted(english)));
    else
      c.reasons.push_back(trnf("{} is a word of the target side; the source is the other side of the training pairs, e.g. {}",
                               "{} are words of the target side; the source is the other side of the training pairs, e.g. {}",
                               english.size(), domain_quoted(english), d.example));
  }
  if (!foreign.empty())
    c.reasons.push_back(trnf("{} is in no training sentence", "{} are in no training sentence", foreign.size(), domain_quoted(foreign)));
  if (english.empty() && d.builtin && d.shaped) {
    const std::string subjects = fmt::format("{}", fmt::join(d.subjects, " "));
    if (tokens.size() != 3)
      c.reasons.push_back(trf("the training sentences have three words (subject · noun · 이다/이었다, or subject · object · "
                              "verb: 나는 학생 이다, 나는 커피를 마셨다); this one has {}",
                              tokens.size()));
    if (!tokens.empty() && std::find(d.subjects.begin(), d.subjects.end(), tokens[0]) == d.subjects.end())
      c.reasons.push_back(trf("a training sentence starts with its subject ({}), not '{}'", subjects, tokens[0]));
    if (tokens.size() == 3) {
      const auto it = d.last_words.find(tokens[1]);
      if (it == d.last_words.end()) {
        c.reasons.push_back(
            trf("'{}' is never a training sentence's second word (a noun such as 학생 or an object such as 커피를)", tokens[1]));
      } else if (std::find(it->second.begin(), it->second.end(), tokens[2]) == it->second.end()) {
        c.reasons.push_back(trf("in the training sentences '{}' is followed by {}, never by '{}'", tokens[1],
                                domain_quoted(it->second, tr(" or ")), tokens[2]));
      }
    }
  }
  c.in_domain = c.reasons.empty();
  if (c.in_domain) {
    const auto s = d.sentences.find(fmt::format("{}", fmt::join(tokens, " ")));
    if (s != d.sentences.end()) c.seen = s->second;
  }
  return c;
}

// 1. subjects the corpus writes otherwise (저는 → 나는); 2. the copula written apart, its polite
// and contracted forms too (학생입니다, 의사였다); 3. an object's particle, missing or the wrong
// one after the last syllable (커피 → 커피를, 커피을 → 커피를); 4. a subject with 이/가 or
// without a particle (그가 → 그는, 나 → 나는).
std::string domain_spelling(const Vocabulary& vocab, const std::string& word) {
  static const std::pair<const char*, const char*> kSubjects[] = {
      {"저는", "나는"}, {"제가", "나는"}, {"내가", "나는"}, {"저", "나는"},     {"네가", "너는"}, {"니가", "너는"},
      {"당신은", "너는"}, {"당신이", "너는"}, {"저희는", "우리는"}, {"저희가", "우리는"}, {"그녀가", "그녀는"},
  };
  for (const auto& [from, to] : kSubjects)
    if (word == from && domain_known(vocab, to)) return to;
  // longest first, so 이었습니다 is not read as …니다
  static const std::pair<const char*, const char*> kCopulas[] = {
      {"이었습니다", "이었다"}, {"였습니다", "이었다"}, {"이었어요", "이었다"}, {"였어요", "이었다"}, {"이었다", "이었다"},
      {"이였다", "이었다"},     {"였다", "이었다"},     {"입니다", "이다"},     {"이에요", "이다"},   {"예요", "이다"},
      {"이다", "이다"},         {"다", "이다"},
  };
  for (const auto& [suffix, copula] : kCopulas) {
    if (!domain_ends_with(word, suffix) || !domain_known(vocab, copula)) continue;
    const std::string stem = word.substr(0, word.size() - std::string_view(suffix).size());
    if (stem.empty()) {
      if (word != copula) return copula;  // 입니다 alone → 이다
      continue;
    }
    if (domain_known(vocab, stem)) return stem + " " + copula;
  }
  for (const char* particle : {"를", "을"}) {
    if (domain_known(vocab, word + particle)) return word + particle;
    const std::string other = std::string_view(particle) == "를" ? "을" : "를";
    if (domain_ends_with(word, particle)) {
      const std::string swapped = word.substr(0, word.size() - std::string_view(particle).size()) + other;
      if (domain_known(vocab, swapped)) return swapped;
    }
  }
  for (const char* particle : {"는", "은"})
    if (domain_known(vocab, word + particle)) return word + particle;
  for (const char* particle : {"가", "이"}) {
    if (!domain_ends_with(word, particle)) continue;
    const std::string stem = word.substr(0, word.size() - std::string_view(particle).size());
    for (const char* topic : {"는", "은"})
      if (!stem.empty() && domain_known(vocab, stem + topic)) return stem + topic;
  }
  return "";
}

std::string unknown_words_message(const Translator& m, const std::vector<std::string>& tokens,
                                  const std::vector<std::string>& unknown, const std::string& flag) {
  std::vector<std::string> respelled;  // "'학생이다' → '학생 이다'" (language-neutral: the list stays one value in every reading)
  std::size_t missing = 0;
  for (const std::string& w : unknown) {
    const std::string s = domain_spelling(m.vocab, w);
    if (s.empty())
      ++missing;
    else
      respelled.push_back(fmt::format("'{}' → '{}'", w, s));
  }
  if (missing == 0) {
    std::string sentence;
    for (const std::string& w : tokens) {
      const bool is_unknown = std::find(unknown.begin(), unknown.end(), w) != unknown.end();
      sentence += (sentence.empty() ? "" : " ") + (is_unknown ? domain_spelling(m.vocab, w) : w);
    }
    return fmt::format(N_("{}: the training sentences write {} (the copula 이다/이었다 is a word of its own, the subjects are "
                          "나는 너는 그는 그녀는 우리는 그들은): try \"{}\""),
                       flag, fmt::format("{}", fmt::join(respelled, ", ")), sentence);
  }
  return fmt::format(N_("{}: {} not in the vocabulary of {} (words are split at spaces; a Korean word keeps its particle, e.g. "
                     "커피를){}; tfx translate list_vocab lists the {} words it knows"),
                     flag, domain_quoted(unknown), m.name,
                     respelled.empty() ? std::string() : "; " + fmt::format(N_("the training sentences write {}"), fmt::join(respelled, ", ")),
                     m.vocab.size() - 4);
}

}  // namespace tfx
