// Writing several files that belong together (a model's weights and its vocabulary): replaced
// together or not at all, by the same machinery as emit() (format.hpp).
#pragma once
#include <sys/types.h>

#include <cstdio>
#include <memory>
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

class TempFile;

// All the files one command writes, replaced together when it succeeds (tfx's main opens one
// around each command): while a batch is open, emit(), emit_streamed(), emit_together() and
// commit_file() leave each regular file whole in its temporary beside the target, and commit()
// renames them all, with the termination signals held back until the last rename. A batch left
// uncommitted (the command failed, or a signal ended it) removes them: a failed command replaces
// no file, not even one it had finished before the step that failed (`-o` written, then `--png`
// refused). Stdout, devices, pipes and a symlink's target are written at once, as without a batch.
// One batch at a time (a second is a logic error).
class OutputBatch {
 public:
  OutputBatch();
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();  // removes the temporaries unless committed
  void commit();
};

// "wrote FILE" for a file just emitted: printed on `stream` now, or after the open batch's commit
// (a command that fails later prints none: it wrote nothing).
void announce_written(std::FILE* stream, const std::string& line);

// A temporary the caller wrote itself (a large file streamed into it): renamed onto `target` with
// `mode` now, or at the open batch's commit.
void commit_file(std::unique_ptr<TempFile> tmp, const std::string& target, mode_t mode, const std::string& what);

}  // namespace tfx
