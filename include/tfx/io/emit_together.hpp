// Writing several files that belong together (a model's weights and its vocabulary): replaced
// together or not at all, by the same machinery as emit() (format.hpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tfx {

struct EmitFile {
  std::vector<std::string_view> pieces;  // the bytes, written one after the other
  std::string path;
  bool binary = false;
  std::string what;  // names the file in errors (the flag)
};

// Every file is written whole to its temporary beside it first (a full disk, a file-size limit or
// a signal then leaves every target as it was); then all are renamed, with the termination
// signals held back until the last rename. A device, pipe or stdout among them is written in
// place, in order.
void emit_together(const std::vector<EmitFile>& files);

}  // namespace tfx
