// Reading a whole text input (an analogy or word-pair set, a --batch file, a vocab.txt, a
// matrix): bounded, so /dev/zero or a runaway pipe is refused instead of filling memory, and
// without a leading UTF-8 byte-order mark, which would otherwise glue itself to the first word.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace tfx {

// The largest text input read whole (256 MiB): far above any vocabulary, evaluation set or
// batch of queries; a bigger file or stream is refused with its name.
inline constexpr std::size_t kMaxTextInput = std::size_t{256} << 20;
// … and from a pipe or device, whose size is not known before reading (64 MiB).
inline constexpr std::size_t kMaxTextStream = std::size_t{64} << 20;

// The bytes of `path` ("-" = standard input), a BOM removed. Errors name `what` and the path:
// missing, a directory, unreadable, or more than `cap` bytes (checked before reading a regular
// file; while reading a pipe or device).
std::string read_text_input(const std::string& path, const std::string& what, std::size_t cap = kMaxTextInput);

// The bytes of a binary input (safetensors, npy) as read_text_input reads text, without touching
// them: up to `cap` bytes from a regular file, `stream_cap` from a pipe or device.
std::string read_input_bytes(const std::string& path, const std::string& what, std::size_t cap, std::size_t stream_cap);

// Opens `path` read-only without waiting for a named pipe's writer (O_NONBLOCK, cleared once
// open): a FIFO nothing writes to then reads as empty at once instead of blocking forever; one
// with a writer is read as it writes. -1 with errno on failure.
int open_input_fd(const std::string& path);

// `text` without a leading UTF-8 byte-order mark (EF BB BF).
std::string_view without_bom(std::string_view text);

}  // namespace tfx
