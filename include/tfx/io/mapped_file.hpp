// Memory-mapped input files that another program may truncate while tfx reads them (a source file
// during its first load, a cache table during eval-analogies): touching a page past the new end
// raises SIGBUS. Each mapping is registered here, and the handler the command layer installs
// turns such a SIGBUS into tfx's one-line error naming the file ("… changed while reading"),
// removes the live temporary files and exits 1 — no core dump, no half-written cache.
#pragma once
#include <cstddef>
#include <string>

namespace tfx {

// Registers [addr, addr + bytes) as a mapping of `path` (any number of them: the table grows);
// returns a handle for unwatch_mapping.
int watch_mapping(const void* addr, std::size_t bytes, const std::string& path);
void unwatch_mapping(int handle);

// The SIGBUS handler described above (called once by the command layer).
void install_sigbus_handler();

}  // namespace tfx
