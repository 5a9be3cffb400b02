// Batch inputs that answer every query they can (analogy --batch, eval-analogies,
// eval-similarity): the queries they skip, reported on stderr as "tfx: skipped FILE:LINE: why",
// and carried in the result as a "skipped" table (JSON: tables.skipped) with the reason.
#pragma once
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tfx/io/format.hpp"

namespace tfx::cli {

struct SkippedQuery {
  std::string file;
  std::size_t line = 0;
  std::string query;   // the line's words, "king man wxyz"
  std::string word;    // the word that stopped it ("" when no single word did)
  std::string reason;  // "'wxyz' is not in the vocabulary of …"
};

// At most this many skipped lines are listed on stderr (an evaluation set on a small
// vocabulary skips thousands); the JSON output lists every one.
inline constexpr std::size_t kSkippedShown = 20;

// "tfx: skipped FILE:LINE: REASON" per skipped query on stderr (the first kSkippedShown, then a
// count of the rest).
inline void report_skipped(const std::vector<SkippedQuery>& skipped) {
  for (std::size_t i = 0; i < skipped.size() && i < kSkippedShown; ++i)
    std::fprintf(stderr, "tfx: skipped %s:%zu: %s\n", skipped[i].file.c_str(), skipped[i].line, skipped[i].reason.c_str());
  if (skipped.size() > kSkippedShown)
    std::fprintf(stderr, "tfx: skipped %zu more lines (--format json lists every skipped query with its reason)\n",
                 skipped.size() - kSkippedShown);
}

// The "skipped" table of a result: file, line, query, word, reason.
inline Records skipped_records(const std::vector<SkippedQuery>& skipped) {
  Records rec;
  rec.name = "skipped";
  rec.columns = {"file", "line", "query", "word", "reason"};
  for (const auto& s : skipped) rec.rows.push_back({s.file, static_cast<long long>(s.line), s.query, s.word, s.reason});
  return rec;
}

}  // namespace tfx::cli
