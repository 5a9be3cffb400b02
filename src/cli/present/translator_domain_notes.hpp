// What translate and trace say on stderr about the teaching translator's training domain (the
// other words: tfx/model/translator_domain_notes.hpp).
#pragma once
#include <cstdio>

#include "tfx/core/i18n.hpp"
#include "tfx/model/translator_domain_notes.hpp"

namespace tfx::cli {

// The warning on stderr (stdout keeps the results), once per command.
inline void warn_outside_domain(const DomainCheck& c) {
  if (!c.in_domain) std::fprintf(stderr, "%s\n", trf("tfx: warning: {}", domain_line(c)).c_str());
}

}  // namespace tfx::cli
