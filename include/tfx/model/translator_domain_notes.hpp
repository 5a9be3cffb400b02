// What translate and trace say about the teaching translator's training domain
// (tfx/model/translator_domain.hpp): the header line of the table, the figure's title suffix and the
// JSON summary keys — the same words in every one (the warning on stderr: cli/present/translator_domain_notes.hpp).
#pragma once
#include <fmt/format.h>

#include <string>

#include "tfx/core/i18n.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/translator_domain.hpp"

namespace tfx {

// "outside the training domain: REASON; REASON; the model has never seen this" or, inside it,
// where the sentence comes from (a training sentence, a held-out test sentence, a new
// combination of the domain's words).
inline std::string domain_line(const DomainCheck& c) {
  if (!c.in_domain)
    return trf("outside the training domain: {}; the model has never seen this, so watch it fail",
               fmt::format("{}", fmt::join(c.reasons, "; ")));
  if (c.seen == "train") return tr("in the training domain: a training sentence");
  if (c.seen == "test") return tr("in the training domain: a held-out test sentence (never trained on)");
  return tr("in the training domain: a new combination of its words");
}

// JSON: in_domain, domain (train/test/new/outside), domain_reasons.
inline void add_domain_summary(Result& r, const DomainCheck& c) {
  r.summary[N_("in_domain")] = c.in_domain;
  r.summary[N_("domain")] = !c.in_domain ? "outside" : c.seen.empty() ? "new" : c.seen;
  r.summary[N_("domain_reasons")] = c.reasons;
}

// The figure title's suffix: " — outside the training domain" (its reasons go in a subtitle).
inline std::string domain_title_suffix(const DomainCheck& c) {
  return c.in_domain ? std::string() : std::string(tr(" — outside the training domain, the model has never seen this"));
}

}  // namespace tfx
