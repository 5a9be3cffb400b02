// What the teaching translator was trained on, as a check a sentence can be put to: its training
// domain (the sentence shapes of scripts/train_teaching_model.py's corpus, read back from the
// corpus itself) and the standard spellings of its words (학생이다, 저는) in the domain's spelling.
// A sentence outside the domain is still translated by the commands; the check says why it is
// outside, so the output can say so.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tfx/model/translator.hpp"

namespace tfx {

// The domain, read from the corpus's Korean side: every sentence is SUBJECT · MIDDLE · LAST,
// either SUBJECT · NOUN · 이다/이었다 (나는 학생 이다) or SUBJECT · OBJECT · VERB (나는 커피를
// 마셨다), every subject with every (middle, last) pair the corpus has.
struct TranslatorDomain {
  std::vector<std::string> subjects;                           // 나는 너는 … (corpus order)
  std::map<std::string, std::vector<std::string>> last_words;  // middle word → the last words seen after it
  std::set<std::string> korean, english;                       // the words of each side (English: not also Korean)
  std::map<std::string, std::string> sentences;                // Korean sentence → its split ("train", "test")
  bool shaped = true;      // every source sentence has three words: the shape checks apply
  bool builtin = true;     // the built-in Korean → English corpus (its own wording of the reasons)
  std::string example;     // a training sentence of the source side, for the messages
};
// `builtin`: the pairs are the built-in corpus (or a copy of it a model carries), so the reasons
// speak of Korean and English; otherwise of the model's source and target sides.
TranslatorDomain translator_domain(const std::vector<TranslationPair>& corpus, bool builtin = true);
// The built-in translator's domain (teaching_corpus(), read once).
const TranslatorDomain& teaching_domain();
// A translator's own domain: the built-in one's for the built-in model, else read from the pairs
// it carries (Translator::pairs).
TranslatorDomain model_domain(const Translator& m);

// The verdict on a sentence's tokens: in the domain or not, and why not (one sentence per
// reason, in the output language); `seen` is the corpus split of an in-domain sentence ("train",
// "test") or "" for a combination the corpus does not hold.
struct DomainCheck {
  bool in_domain = true;
  std::string seen;
  std::vector<std::string> reasons;
};
DomainCheck check_domain(const TranslatorDomain& d, const std::vector<std::string>& tokens);

// A standard spelling of a Korean word in the spelling of the vocabulary's words, or "" when
// there is none: the copula written apart (학생이다 → 학생 이다, 학생입니다 → 학생 이다,
// 의사였다 → 의사 이었다), the subject the corpus uses (저는 → 나는, 그가 → 그는), an object
// with its particle (커피 → 커피를). The result may be two words.
std::string domain_spelling(const Vocabulary& vocab, const std::string& word);

// The error for words outside the vocabulary (`unknown`, among the sentence's `tokens`; `flag`
// names the input): when every one has a domain spelling, the sentence respelled ("the training
// sentences write '학생이다' as '학생 이다': try \"나는 학생 이다\""); otherwise the words and how to
// list the vocabulary, with the respellings there are.
std::string unknown_words_message(const Translator& m, const std::vector<std::string>& tokens,
                                  const std::vector<std::string>& unknown, const std::string& flag);

}  // namespace tfx
