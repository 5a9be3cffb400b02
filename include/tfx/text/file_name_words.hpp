// Default output file names made from the words of the input ("pe_sim_나는_학생.png").
#pragma once
#include <string>
#include <vector>

namespace tfx {

// A file-name part from words: "i_love_playing", "나는_학생_이다" — letters and digits of every
// script kept (so two Korean sentences get different default figure names), everything else
// dropped, at most about 40 bytes; "sentence" when nothing is left.
std::string name_part(const std::vector<std::string>& words);
// "command_<name_part of text's words>.png", the default figure name of a sentence command.
std::string default_figure_name(const std::string& command, const std::string& text);

}  // namespace tfx
