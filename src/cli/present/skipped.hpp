// Batch inputs that answer every query they can (analogy --queries, eval-analogies,
// eval-similarity): the queries they skip, reported on stderr as "tfx: skipped FILE:LINE: why",
// and carried in the result as a "skipped" table (JSON: tables.skipped) with the reason.
#pragma once
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tfx/core/i18n.hpp"
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
// Control bytes in a reason (a NUL or ESC inside a word of the file) as \xNN, so the line is
// whole and the terminal untouched.
inline std::string printable_reason(const std::string& reason) {
  std::string out;
  for (unsigned char c : reason) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

inline void report_skipped(const std::vector<SkippedQuery>& skipped) {
  for (std::size_t i = 0; i < skipped.size() && i < kSkippedShown; ++i)
    std::fprintf(stderr, "%s\n",
                 trf("tfx: skipped {}:{}: {}", printable_reason(skipped[i].file), skipped[i].line, printable_reason(skipped[i].reason))
                     .c_str());
  if (skipped.size() > kSkippedShown)
    std::fprintf(stderr, "%s\n",
                 trf("tfx: skipped {} more lines (--format json lists every skipped query with its reason)", skipped.size() - kSkippedShown)
                     .c_str());
}

// The "skipped" table of a result: file, line, query, word, reason.
inline Records skipped_records(const std::vector<SkippedQuery>& skipped) {
  Records rec;
  rec.name = N_("skipped");
  rec.columns = {"file", "line", "query", "word", "reason"};
  for (const auto& s : skipped) rec.rows.push_back({s.file, static_cast<long long>(s.line), s.query, s.word, s.reason});
  return rec;
}

}  // namespace tfx::cli
