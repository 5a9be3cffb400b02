// Temporary files beside a target, for writing a file whole or not at all: a unique name made
// with O_CREAT | O_EXCL (never following a planted symlink, never shared by two runs), removed
// when the write fails, when the object goes away uncommitted, and — once the command layer has
// called install_temp_file_cleanup() — when SIGINT, SIGTERM or SIGHUP ends the process.
#pragma once
#include <sys/types.h>

#include <string>

namespace tfx {

class TempFile {
 public:
  // Creates `dir/<prefix>XXXXXX<suffix>` (mode 0600 until commit), XXXXXX random. Throws
  // tfx::Error naming `what` when the directory does not allow it.
  TempFile(const std::string& dir, const std::string& prefix, const std::string& suffix, const std::string& what);
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();  // closes and removes it unless committed

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Writes all of `bytes` at the current offset; false on failure (errno set).
  bool write_all(const char* bytes, std::size_t n);
  // Gives the file `mode`, closes it and renames it onto `target`; throws tfx::Error (file
  // removed) on failure.
  void commit(const std::string& target, mode_t mode, const std::string& what);
  // Closes the descriptor (the file stays until commit or destruction).
  bool close_fd();
  // For a caller that renamed the file itself: nothing to remove any more.
  void renamed();

 private:
  int fd_ = -1;
  int slot_ = -1;  // its entry in the signal-time cleanup list
  std::string path_;
  bool committed_ = false;
};

// The mode a new file gets from open(…, 0666) under the current umask.
mode_t default_file_mode();

// Removes every live TempFile now (async-signal-safe: for a fatal-signal handler).
void remove_live_temporaries();

// Holds back the termination signals the cleanup handler catches, on every thread, until
// resume_termination_signals(): a signal arriving meanwhile is remembered, and acted on (the
// temporaries removed, the process ended by it) when resumed. For a step that must not be cut in
// the middle: renaming several files that belong together.
void defer_termination_signals();
void resume_termination_signals();

// Installs SIGINT/SIGTERM/SIGHUP handlers that remove every live TempFile and then die of the
// same signal (the exit status a shell expects). Called once by the command layer.
void install_temp_file_cleanup();

}  // namespace tfx
