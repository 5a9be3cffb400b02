// A word or field of an input file as an error message shows it (the embedding readers, the matrix
// readers and the weight files all quote junk the same way).
#pragma once
#include <string>
#include <string_view>

namespace tfx {

// At most 40 characters, valid UTF-8 kept, control bytes and invalid UTF-8 (binary junk) written
// as \xNN so one message stays one readable line; "…" when cut.
std::string show_token(std::string_view t);

}  // namespace tfx
