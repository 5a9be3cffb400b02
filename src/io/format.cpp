// Choice of format, the number spelling every encoder shares (format_cells.hpp), the CSV and npy
// encoders, the dispatch on Format, and emit(), the one writer of output files and stdout.
// The table/Markdown encoder is in format_table.cpp, the JSON encoder in format_json.cpp.
#include "tfx/io/format.hpp"
#include "tfx/io/encoder.hpp"

#include "format_cells.hpp"
#include "tfx/io/temp_file.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tfx {

Format parse_format(const std::string& name) { return parse_choice<Format>(kFormatChoices, name, "format"); }

const FormatTraits& format_traits(Format f) {
  for (const auto& t : kFormatTraits)
    if (t.format == f) return t;
  return kFormatTraits[0];
}

std::vector<std::string> format_names(bool figures, bool aliases) {
  std::vector<std::string> out;
  for (const auto& c : kFormatChoices)
    if ((c.spelling == Spelling::name || (aliases && c.spelling == Spelling::alias)) && (figures || !is_figure(c.value)))
      out.emplace_back(c.name);
  return out;
}

std::string format_list(bool figures, std::string_view last) { return prose_list(format_names(figures), ", ", last); }

std::optional<Format> extension_format(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();  // ".csv"; "" for ".csv" itself
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& t : kFormatTraits)
    if (*t.extension && ext == std::string(".") + t.extension) return t.format;
  return std::nullopt;
}

std::string shortest_float(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

namespace cells {

std::string fixed(double v, int precision) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{:.{}f}", v, precision);
  // "-0.0000" reads as a sign where there is none
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string number(float v, int precision) {
  if (precision >= 0) return fixed(v, precision);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return shortest_float(v);
}

bool too_small(double v, int precision) {
  return precision >= 0 && v != 0 && std::isfinite(v) && std::abs(v) < 0.5 * std::pow(10.0, -precision);
}

std::string scientific(double v, int precision) { return fmt::format("{:.{}e}", v, std::max(precision, 1)); }

std::string cell_text(const Cell& c, int precision) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto i = std::get_if<long long>(&c)) return std::to_string(*i);
  const double d = std::get<double>(c);
  if (std::isnan(d)) return "n/a";  // a value that does not exist (a section with no answered question)
  return too_small(d, precision) ? scientific(d, precision) : format_number(d, precision);
}

std::string label(const std::vector<std::string>& labels, std::size_t i) {
  return i < labels.size() ? labels[i] : std::to_string(i);
}

}  // namespace cells

using namespace cells;

std::string format_number(double v, int precision) {
  if (precision >= 0) return fixed(v, precision);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

const Block* primary_block(const Result& r) {
  for (const Block& b : r.blocks) {
    if (auto m = std::get_if<Matrix>(&b); m && (r.primary.empty() || m->name == r.primary)) return &b;
    if (auto t = std::get_if<Records>(&b); t && (r.primary.empty() || t->name == r.primary)) return &b;
  }
  return nullptr;
}

namespace {

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}

}  // namespace

std::string encode_csv(const Result& r, const OutputOptions& o) {
  const Block* b = primary_block(r);
  if (!b) throw Error(fmt::format("'{}' has no table to write as CSV; use format table or json", r.command), Error::Kind::data, {"format"});
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t j = 0; j < cells.size(); ++j) {
      if (j) out += ',';
      out += csv_escape(cells[j]);
    }
    out += '\n';
  };
  if (auto rec = std::get_if<Records>(b)) {
    line(rec->columns);
    for (const auto& row : rec->rows) {
      std::vector<std::string> cells;
      for (const auto& c : row) cells.push_back(cell_text(c, o.precision));
      line(cells);
    }
    return out;
  }
  const Matrix& m = std::get<Matrix>(*b);
  const Tensor& t = m.values;
  if (t.rank() <= 1) {
    line({m.col_axis.empty() ? "index" : m.col_axis, m.name.empty() ? "value" : m.name});
    for (std::size_t i = 0; i < t.size(); ++i) line({label(m.col_labels, i), number(t[i], o.precision)});
    return out;
  }
  std::size_t cols = t.dim(t.rank() - 1), rows = t.dim(t.rank() - 2);
  std::size_t outer = t.size() / std::max<std::size_t>(rows * cols, 1);
  std::vector<std::string> header;
  if (t.rank() >= 3) header.push_back("slice");
  header.push_back(m.row_axis.empty() ? "row" : m.row_axis);
  for (std::size_t j = 0; j < cols; ++j) header.push_back(label(m.col_labels, j));
  line(header);
  for (std::size_t s = 0; s < outer; ++s)
    for (std::size_t i = 0; i < rows; ++i) {
      std::vector<std::string> cells;
      if (t.rank() >= 3) cells.push_back(std::to_string(s));
      cells.push_back(label(m.row_labels, i));
      for (std::size_t j = 0; j < cols; ++j) cells.push_back(number(t[(s * rows + i) * cols + j], o.precision));
      line(cells);
    }
  return out;
}

std::string encode_npy(const Tensor& t) {
  std::string out = npy_header(t);
  static_assert(sizeof(float) == 4);
  out.reserve(out.size() + t.size() * 4);
  out.append(reinterpret_cast<const char*>(t.data()), t.size() * 4);  // one copy, no zero fill; x86/ARM are little-endian
  return out;
}

std::string_view npy_data(const Tensor& t) { return {reinterpret_cast<const char*>(t.data()), t.size() * sizeof(float)}; }

const Tensor& npy_tensor(const Result& r) {
  const Block* b = primary_block(r);
  const Matrix* m = b ? std::get_if<Matrix>(b) : nullptr;
  if (!m) throw usage_error(fmt::format("format npy: '{}' has no numeric matrix; use format csv or json", r.command), {"format"});
  return m->values;
}

std::string npy_header(const Tensor& t) {
  // header: magic, version 1.0, little-endian header length, dict padded with spaces to a
  // multiple of 64 bytes in total, ending in '\n'
  std::string shape;
  if (t.rank() == 1) shape = fmt::format("({},)", t.dim(0));
  else shape = fmt::format("({})", fmt::join(t.shape(), ", "));
  std::string dict = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape);
  std::size_t total = 10 + dict.size() + 1;
  dict += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  const auto hlen = static_cast<std::uint16_t>(dict.size());
  out += static_cast<char>(hlen & 0xff);
  out += static_cast<char>(hlen >> 8);
  out += dict;
  return out;
}

std::string encode_npy(const Result& r) { return encode_npy(npy_tensor(r)); }

std::string encode(const Result& r, const OutputOptions& o) { return serialize(Output{&r, nullptr}, o); }

namespace {

// The descriptor `path` names when it is one of this process's open files — /dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N — else -1. Such a path is written through the open
// descriptor: renaming onto it would replace /dev/stdout itself, and reopening it would truncate
// a file the shell opened for appending.
int own_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t n = std::strlen(prefix);
    if (path.size() > n && path.compare(0, n, prefix) == 0 &&
        path.find_first_not_of("0123456789", n) == std::string::npos && path.size() - n < 9)
      return std::atoi(path.c_str() + n);
  }
  return -1;
}

void write_descriptor(int fd, std::string_view bytes, const std::string& what, const std::string& path) {
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  while (n) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

// What writing `path` replaces: the file itself, or for a symlink the file it points to (written
// through, as a shell's `>` does; the link stays), also when that file does not exist yet.
std::string write_target(const std::string& path) {
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) return path;
  if (char* real = ::realpath(path.c_str(), nullptr)) {
    std::string target = real;
    std::free(real);
    return target;
  }
  // a dangling link: the name it holds, relative to the link's directory
  std::string link(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), link.data(), link.size() - 1);
  if (n <= 0) return path;
  link.resize(static_cast<std::size_t>(n));
  if (link[0] == '/') return link;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? link : path.substr(0, slash + 1) + link;
}

}  // namespace

void emit(std::string_view bytes, const std::string& path, bool binary, const std::string& what) {
  emit(std::vector<std::string_view>{bytes}, path, binary, what);
}

void emit(const std::vector<std::string_view>& pieces, const std::string& path, bool binary, const std::string& what) {
  if (path == "-") {
    if (binary && isatty(fileno(stdout)))
      throw usage_error(fmt::format("{} -: refusing to write binary output to a terminal; give a file name or pipe it", what));
    for (std::string_view bytes : pieces)
      if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size())
        throw Error(fmt::format("{}: cannot write to stdout: {}", what, std::strerror(errno)));
    if (std::fflush(stdout) != 0) throw Error(fmt::format("{}: cannot write to stdout: {}", what, std::strerror(errno)));
    return;
  }
  // 1. this process's own stdout/stderr/fd N: written through the descriptor
  if (const int fd = own_descriptor(path); fd >= 0) {
    if (binary && isatty(fd))
      throw usage_error(fmt::format("{} {}: refusing to write binary output to a terminal; give a file name or pipe it", what, path));
    std::fflush(stdout);
    for (std::string_view bytes : pieces) write_descriptor(fd, bytes, what, path);
    return;
  }
  // 2. a device or FIFO (/dev/null, /dev/full, a named pipe) is written in place: renaming a
  //    temporary over it would replace the device with a regular file
  const std::string target = write_target(path);
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw Error(fmt::format("{} {}: cannot write: it is a directory; give a file name", what, path));
  if (exists && !S_ISREG(st.st_mode)) {
    const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    if (binary && isatty(fd)) {  // -o /dev/tty (or a pts) is the terminal as much as stdout is
      ::close(fd);
      throw usage_error(fmt::format("{} {}: refusing to write binary output to a terminal; give a file name or pipe it", what, path));
    }
    try {
      for (std::string_view bytes : pieces) write_descriptor(fd, bytes, what, path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    return;
  }
  // 3. a regular file: refused when it could not be opened for writing (as cp and a shell's `>`
  //    refuse a read-only file); else written whole to a unique temporary beside it and renamed
  //    onto it, keeping its mode (a new file gets 0666 less the umask)
  mode_t mode = default_file_mode();
  if (exists) {
    const int probe = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (probe < 0) throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
    ::close(probe);
    mode = st.st_mode & 07777;
  }
  const std::size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
  TempFile tmp(dir, ".tfx-", ".tmp", what + " " + path);
  for (std::string_view bytes : pieces)
    if (!tmp.write_all(bytes.data(), bytes.size()))
      throw Error(fmt::format("{} {}: cannot write: {}", what, path, std::strerror(errno)));
  if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid())) {
    if (::fchown(tmp.fd(), st.st_uid, st.st_gid) != 0) {
      // only root may give a file away: others write it as their own, as cp does
    }
  }
  tmp.commit(target, mode, what);
}

}  // namespace tfx
