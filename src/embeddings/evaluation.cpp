// Analogy-set and word-pair evaluation (gensim's evaluate_word_analogies / evaluate_word_pairs):
// the restricted, case-folded vocabulary, 3CosAdd/3CosMul over batches of questions, and the
// correlations of word-pair scores. The test-set parsers are in evaluation_sets.cpp, the
// correlation p-value in stats.cpp.
#include "tfx/embeddings/evaluation.hpp"

#include <fmt/format.h>
#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "core/parallel.hpp"
#include "tfx/core/ops.hpp"
#include "tfx/core/stats.hpp"
#include "tfx/text/unicode.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

// ---- vocabulary --------------------------------------------------------------------------------

namespace {

locale_t utf8_locale() {
  static locale_t loc = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
    if (!l) l = newlocale(LC_CTYPE_MASK, "C.utf8", static_cast<locale_t>(0));
    return l;
  }();
  return loc;
}

using unicode::append_utf8;

}  // namespace

std::string utf8_upper(std::string_view w) {
  std::string out;
  out.reserve(w.size());
  const locale_t loc = utf8_locale();
  std::size_t i = 0;
  while (i < w.size()) {
    const auto b0 = static_cast<unsigned char>(w[i]);
    if (b0 < 0x80) {
      out += (b0 >= 'a' && b0 <= 'z') ? static_cast<char>(b0 - 32) : static_cast<char>(b0);
      ++i;
      continue;
    }
    // decode one multi-byte sequence; anything invalid is copied byte by byte
    std::size_t len = b0 >= 0xF0 && b0 < 0xF5 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 && b0 < 0xE0 ? 2 : 0;
    char32_t c = len == 4 ? (b0 & 0x07) : len == 3 ? (b0 & 0x0F) : (b0 & 0x1F);
    bool ok = len > 0 && i + len <= w.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(w[i + k]);
      if ((b & 0xC0) != 0x80) ok = false;
      c = (c << 6) | (b & 0x3F);
    }
    if (!ok || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
      out += w[i];
      ++i;
      continue;
    }
    const char32_t u = loc ? static_cast<char32_t>(towupper_l(static_cast<wint_t>(c), loc)) : c;
    append_utf8(out, u);
    i += len;
  }
  return out;
}

std::unordered_map<std::string, std::size_t> restricted_vocab(const Embeddings& e, std::size_t restrict_vocab,
                                                              bool case_insensitive, const Progress& progress) {
  const std::size_t R = std::min(restrict_vocab, e.size());
  std::unordered_map<std::string, std::size_t> vocab;
  vocab.reserve(R);
  ProgressTicker tick(progress, R);
  for (std::size_t i = 0; i < R; ++i) {
    vocab.emplace(case_insensitive ? utf8_upper(e.word(i)) : std::string(e.word(i)), i);  // the first variant wins
    tick(i + 1);
  }
  return vocab;
}

Tensor unit_rows(const Embeddings& e, std::size_t R) {
  const std::size_t D = e.dim();
  R = std::min(R, e.size());
  Tensor out({R, D});
  for (std::size_t i = 0; i < R; ++i) {
    const double n = e.norm(i);
    if (n == 0) continue;
    const float* src = e.row(i).data();
    float* dst = out.row(i).data();
    for (std::size_t j = 0; j < D; ++j) dst[j] = static_cast<float>(src[j] / n);
  }
  return out;
}

// ---- analogies ---------------------------------------------------------------------------------

double SectionScore::accuracy() const {
  return answered() == 0 ? std::numeric_limits<double>::quiet_NaN()
                         : static_cast<double>(correct) / static_cast<double>(answered());
}

namespace {

constexpr std::size_t kTopN = 5;  // gensim asks most_similar for topn=5

// The kTopN largest entries of row (R), skipping the indices in `skip`; largest first, ties to
// the smaller index.
std::vector<std::size_t> top_excluding(const float* row, std::size_t R, const std::array<std::size_t, 3>& skip) {
  TopK<float> best(kTopN);
  for (std::size_t j = 0; j < R; ++j)
    if (j != skip[0] && j != skip[1] && j != skip[2] && !std::isnan(row[j])) best.push(j, row[j]);
  std::vector<std::size_t> out;
  for (const auto& [j, v] : best.sorted()) out.push_back(j);
  return out;
}

void add_to(SectionScore& s, const SectionScore& from) {
  s.correct += from.correct;
  s.incorrect += from.incorrect;
  s.oov += from.oov;
}

}  // namespace

AnalogyEvaluation evaluate_word_analogies(const Embeddings& e, const AnalogySet& set, const AnalogyEvalOptions& opt) {
  if (opt.restrict_vocab == 0) throw usage_error(N_("restrict_vocab must be at least 1"), {"restrict_vocab"});
  const std::size_t R = std::min(opt.restrict_vocab, e.size()), D = e.dim();
  const auto vocab = restricted_vocab(e, R, opt.case_insensitive);
  auto key = [&](std::string_view w) { return opt.case_insensitive ? utf8_upper(w) : std::string(w); };

  AnalogyEvaluation ev;
  ev.restrict_vocab = R;
  ev.questions = set.question_count();

  // 1. Look up every question; those with a word outside the restricted vocabulary are skipped.
  struct Job {
    std::size_t section;
    const AnalogyQuestion* q;
    std::array<std::size_t, 3> abc;  // rows of a, b, c
    std::array<std::string, 4> keys;  // a, b, c, expected as compared (upper case by default)
  };
  std::vector<Job> jobs;
  for (std::size_t s = 0; s < set.sections.size(); ++s) {
    ev.sections.push_back({set.sections[s].name, 0, 0, 0});
    for (const auto& q : set.sections[s].questions) {
      Job job{s, &q, {}, {key(q.a), key(q.b), key(q.c), key(q.expected)}};
      int missing = -1;  // the first word outside the vocabulary
      for (int k = 0; k < 4 && missing < 0; ++k) {
        auto it = vocab.find(job.keys[k]);
        if (it == vocab.end()) missing = k;
        else if (k < 3) job.abc[k] = it->second;
      }
      if (missing >= 0) {
        const std::string* words[4] = {&q.a, &q.b, &q.c, &q.expected};
        ev.skipped.push_back({s, q, *words[missing]});
        ++ev.sections[s].oov;
        ++ev.oov;
        if (opt.dummy4unknown) ++ev.sections[s].incorrect;  // gensim: "zero accuracy" for the question
        continue;
      }
      jobs.push_back(std::move(job));
    }
  }
  ev.oov_ratio = ev.questions ? 100.0 * static_cast<double>(ev.oov) / static_cast<double>(ev.questions) : 0.0;

  // 2. Unit rows of the restricted vocabulary, then the questions in batches through matmul_bt.
  const Tensor unit = unit_rows(e, R);
  std::size_t B = opt.batch;
  if (B == 0) B = std::clamp<std::size_t>((std::size_t{8} << 20) / std::max<std::size_t>(R, 1), 1, 1024);
  const bool mul = opt.method == AnalogyMethod::mul;
  const unsigned threads = opt.threads ? opt.threads : hardware_threads();
  std::vector<std::string> predicted(jobs.size());
  std::vector<unsigned char> correct(jobs.size());
  for (std::size_t start = 0; start < jobs.size(); start += B) {
    const std::size_t nb = std::min(B, jobs.size() - start);
    // add: one query row b̂ − â + ĉ per question; mul: the three rows â, b̂, ĉ per question
    Tensor q({mul ? 3 * nb : nb, D});
    for (std::size_t i = 0; i < nb; ++i) {
      const auto& abc = jobs[start + i].abc;
      auto a = unit.row(abc[0]), b = unit.row(abc[1]), c = unit.row(abc[2]);
      if (mul) {
        std::copy(a.begin(), a.end(), q.row(3 * i).begin());
        std::copy(b.begin(), b.end(), q.row(3 * i + 1).begin());
        std::copy(c.begin(), c.end(), q.row(3 * i + 2).begin());
      } else {
        float* dst = q.row(i).data();
        for (std::size_t j = 0; j < D; ++j) dst[j] = b[j] - a[j] + c[j];
      }
    }
    const Tensor cos = matmul_bt(q, unit, opt.threads);  // (nb or 3nb, R)
    // 3. each question's answer from its row of scores (rows split over the worker threads)
    auto answer_rows = [&](std::size_t lo, std::size_t hi) {
      std::vector<float> scores(mul ? R : 0);
      for (std::size_t i = lo; i < hi; ++i) {
        const Job& job = jobs[start + i];
        const float* row;
        if (mul) {
          // 3CosMul with gensim's shift to [0, 1] and ε = 1e-6
          const float *ca = cos.row(3 * i).data(), *cb = cos.row(3 * i + 1).data(), *cc = cos.row(3 * i + 2).data();
          for (std::size_t j = 0; j < R; ++j)
            scores[j] = ((1 + cb[j]) / 2) * ((1 + cc[j]) / 2) / ((1 + ca[j]) / 2 + 1e-6f);
          row = scores.data();
        } else {
          row = cos.row(i).data();
        }
        // gensim: of the top five (inputs' rows excluded) the first whose key is not a, b or c
        const auto best = top_excluding(row, R, job.abc);
        std::string answer;  // the key that ends gensim's loop (the last one if none qualifies)
        std::size_t answer_row = R;
        for (std::size_t w : best) {
          answer = key(e.word(w));
          answer_row = w;
          if (answer != job.keys[0] && answer != job.keys[1] && answer != job.keys[2]) break;
        }
        const bool have = answer_row < R;
        predicted[start + i] = have ? std::string(e.word(answer_row)) : std::string();
        correct[start + i] = have && answer == job.keys[3];
      }
    };
    const std::size_t workers = std::min<std::size_t>(threads, nb);
    if (workers <= 1 || nb * R < (std::size_t{1} << 16)) {
      answer_rows(0, nb);
    } else {
      const std::size_t chunk = (nb + workers - 1) / workers;
      parallel_for_threads(static_cast<unsigned>((nb + chunk - 1) / chunk),
                           [&](unsigned t, unsigned) { answer_rows(t * chunk, std::min(nb, (t + 1) * chunk)); });
    }
    if (opt.progress) opt.progress(start + nb, jobs.size());
  }

  // 4. Tally per section, semantic (first five sections) / syntactic, and total.
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    SectionScore& s = ev.sections[jobs[i].section];
    if (correct[i]) {
      ++s.correct;
    } else {
      ++s.incorrect;
      ev.misses.push_back({jobs[i].section, *jobs[i].q, predicted[i]});
    }
  }
  ev.semantic.name = "semantic";
  ev.syntactic.name = "syntactic";
  ev.total.name = "Total accuracy";
  for (std::size_t s = 0; s < ev.sections.size(); ++s) {
    add_to(s < 5 ? ev.semantic : ev.syntactic, ev.sections[s]);
    add_to(ev.total, ev.sections[s]);
  }
  return ev;
}

// ---- word-pair similarity ----------------------------------------------------------------------

WordPairEvaluation evaluate_word_pairs(const Embeddings& e, const WordPairSet& set, const PairEvalOptions& opt) {
  if (opt.restrict_vocab == 0) throw usage_error(N_("restrict_vocab must be at least 1"), {"restrict_vocab"});
  // progress: the R words keyed, then the pairs, as one count
  const std::size_t R = std::min(opt.restrict_vocab, e.size()), total = R + set.pairs.size();
  Progress keyed;
  if (opt.progress) keyed = [&](std::size_t done, std::size_t) { opt.progress(done, total); };
  const auto vocab = restricted_vocab(e, opt.restrict_vocab, opt.case_insensitive, keyed);
  ProgressTicker tick(opt.progress, total);
  WordPairEvaluation ev;
  ev.pairs = set.pairs.size();
  std::vector<double> gold, model;
  for (const auto& p : set.pairs) {
    tick(R + ev.scored.size() + ev.missing.size() + 1);
    auto ia = vocab.find(opt.case_insensitive ? utf8_upper(p.a) : p.a);
    auto ib = vocab.find(opt.case_insensitive ? utf8_upper(p.b) : p.b);
    if (ia == vocab.end() || ib == vocab.end()) {
      ++ev.oov;
      ev.missing.push_back({p, ia == vocab.end() ? p.a : p.b});
      if (opt.dummy4unknown) {  // gensim: "zero similarity" for the pair
        gold.push_back(p.score);
        model.push_back(0.0);
      }
      continue;
    }
    const double c = cosine(e.row(ia->second), e.row(ib->second));
    ev.scored.push_back({p, c});
    gold.push_back(p.score);
    model.push_back(c);
  }
  if (gold.empty())
    throw Error(opt.case_insensitive
                    ? fmt::format(N_("none of the {} pairs has both words in the vocabulary (first {} words, case-insensitive)"), ev.pairs,
                                  std::min(opt.restrict_vocab, e.size()))
                    : fmt::format(N_("none of the {} pairs has both words in the vocabulary (first {} words)"), ev.pairs,
                                  std::min(opt.restrict_vocab, e.size())));
  // a correlation (and its p-value) needs 3 pairs and two sides that vary; else it is NaN
  if (gold.size() < 3)
    throw Error(gold.size() == 1
                    ? fmt::format(N_("only 1 of the {} pairs has both words in the vocabulary; a correlation needs at least 3"), ev.pairs)
                    : fmt::format(N_("only {} of the {} pairs have both words in the vocabulary; a correlation needs at least 3"), gold.size(),
                                  ev.pairs));
  if (std::all_of(gold.begin(), gold.end(), [&](double g) { return g == gold[0]; }))
    throw Error(fmt::format(N_("the human scores of the {} pairs used are all {}; a correlation needs scores that vary"),
                            gold.size(), gold[0]));
  if (std::all_of(model.begin(), model.end(), [&](double m) { return m == model[0]; }))
    throw Error(fmt::format(N_("the vectors give all {} pairs the same cosine ({}); a correlation needs similarities that vary"),
                            gold.size(), model[0]));
  ev.oov_ratio = 100.0 * static_cast<double>(ev.oov) / static_cast<double>(ev.pairs);
  ev.pearson = pearson(gold, model);
  ev.spearman = spearman(gold, model);
  ev.pearson_p = correlation_p_value(ev.pearson, gold.size());
  ev.spearman_p = correlation_p_value(ev.spearman, gold.size());
  return ev;
}

}  // namespace tfx
