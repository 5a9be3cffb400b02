// Words of a sentence: the one white-space splitter (and joiner) the translator, the training
// data, `tfx train` and the matrix readers share.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tfx {

// `text` split at ASCII white space (space, tab, newline, carriage return, vertical tab, form
// feed), empty pieces dropped: "  나는 학생\t이다\r" → [나는, 학생, 이다].
std::vector<std::string> split_words(std::string_view text);

// `words` joined with `sep` between them: [I, am] → "I am".
std::string join_words(const std::vector<std::string>& words, std::string_view sep = " ");

}  // namespace tfx
