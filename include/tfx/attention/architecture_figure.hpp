// The Transformer diagram of notes 002 and 004 (the paper's figure 1) drawn for one model: columns of
// boxes bottom to top (the encoder's, the decoder's, or one of them), every arrow labelled with the
// shape it carries, the residual connections beside the boxes, each stack framed with its "N×",
// and the encoder's memory going into every decoder layer's cross-attention.
#pragma once
#include <string>
#include <vector>

#include "tfx/attention/architecture.hpp"
#include "tfx/figure/figure.hpp"

namespace tfx {

// What the diagram is drawn for: the spec, a name for titles, the tokens of both sides.
struct ArchModel {
  ArchitectureSpec spec;
  std::string name, kind;  // "the teaching translator"; "encoder + decoder" / a note on the missing stack
  std::vector<std::string> source_tokens, target_tokens;
};

// The first 8 tokens joined by spaces, "…" when there are more.
std::string arch_join_tokens(const std::vector<std::string>& t);

// The diagram of `blocks` (architecture_blocks(a.spec)).
Figure arch_figure(const ArchModel& a, const std::vector<ArchBlock>& blocks);

}  // namespace tfx
