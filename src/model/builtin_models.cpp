// The built-in trained checkpoints opened by name (builtin_models.hpp).
#include "tfx/model/builtin_models.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"
#include "tfx/core/words.hpp"

namespace tfx::embedded {
std::string_view teaching_gpt_corpus();
std::string_view teaching_gpt_config();
std::string_view teaching_gpt_weights();
std::string_view teaching_gpt_tokenizer();
std::string_view teaching_vit_config();
std::string_view teaching_vit_preprocessor();
std::string_view teaching_vit_weights();
}  // namespace tfx::embedded

namespace tfx {

namespace fs = std::filesystem;

std::string_view teaching_gpt_corpus() { return embedded::teaching_gpt_corpus(); }
std::string_view teaching_gpt_config() { return embedded::teaching_gpt_config(); }
std::string_view teaching_gpt_weights() { return embedded::teaching_gpt_weights(); }
std::string_view teaching_gpt_tokenizer() { return embedded::teaching_gpt_tokenizer(); }
std::string_view teaching_vit_config() { return embedded::teaching_vit_config(); }
std::string_view teaching_vit_preprocessor() { return embedded::teaching_vit_preprocessor(); }
std::string_view teaching_vit_weights() { return embedded::teaching_vit_weights(); }

namespace {

struct BuiltinFile {
  const char* name;
  std::string_view bytes;
};

std::vector<BuiltinFile> teaching_gpt_files() {
  return {{"config.json", teaching_gpt_config()}, {"model.safetensors", teaching_gpt_weights()}, {"tokenizer.json", teaching_gpt_tokenizer()}};
}
std::vector<BuiltinFile> teaching_vit_files() {
  return {{"config.json", teaching_vit_config()},
          {"preprocessor_config.json", teaching_vit_preprocessor()},
          {"model.safetensors", teaching_vit_weights()}};
}

// DIR without one trailing slash
std::string builtin_name(const std::string& dir) { return !dir.empty() && dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir; }

std::uint64_t fnv1a64(std::uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The folders to try, in order: $XDG_CACHE_HOME/tfx, $HOME/.cache/tfx, a temporary folder.
std::vector<fs::path> cache_roots() {
  std::vector<fs::path> roots;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') roots.push_back(fs::path(x) / "tfx");
  if (const char* h = std::getenv("HOME"); h && *h) roots.push_back(fs::path(h) / ".cache" / "tfx");
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (!ec) roots.push_back(tmp / fmt::format("tfx-cache-{}", ::geteuid()));
  return roots;
}

// Whether `dir` holds the files with their sizes (the folder's name is their content's hash).
bool complete(const fs::path& dir, const std::vector<BuiltinFile>& files) {
  std::error_code ec;
  for (const BuiltinFile& f : files) {
    const std::uintmax_t n = fs::file_size(dir / f.name, ec);
    if (ec || n != f.bytes.size()) return false;
  }
  return true;
}

bool write_whole(const fs::path& path, std::string_view bytes) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (!out) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  return std::fclose(out) == 0 && ok;
}

// Writes the files into a fresh temporary folder beside `target`, then renames it onto `target`
// (another run that got there first wins; its copy is the same bytes).
bool materialize(const fs::path& target, const std::vector<BuiltinFile>& files) {
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return false;
  std::string tmpl = (target.parent_path() / ".tmp-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return false;
  const fs::path tmp(tmpl);
  bool ok = true;
  for (const BuiltinFile& f : files) ok = ok && write_whole(tmp / f.name, f.bytes);
  if (ok) {
    fs::permissions(tmp, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec,
                    ec);
    fs::rename(tmp, target, ec);
    if (!ec) return true;
  }
  fs::remove_all(tmp, ec);
  return complete(target, files);
}

}  // namespace

namespace {

// A word with the ASCII punctuation at its ends taken off (empty when nothing else is left)
std::string_view trim_punctuation(std::string_view w) {
  auto punct = [](char c) { return static_cast<unsigned char>(c) < 128 && std::ispunct(static_cast<unsigned char>(c)); };
  while (!w.empty() && punct(w.front())) w.remove_prefix(1);
  while (!w.empty() && punct(w.back())) w.remove_suffix(1);
  return w;
}

// ... and as the corpus check compares it: ASCII letters lower-cased
std::string folded(std::string_view w) {
  std::string key(w);
  for (char& c : key)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return key;
}

}  // namespace

std::vector<std::string> words_unseen_by_teaching_gpt(std::string_view text) {
  static const std::unordered_set<std::string> known = [] {
    std::unordered_set<std::string> k;
    for (const std::string& w : split_words(teaching_gpt_corpus()))
      if (const std::string_view t = trim_punctuation(w); !t.empty()) k.insert(folded(t));
    return k;
  }();
  std::vector<std::string> out;
  std::unordered_set<std::string> said;
  for (const std::string& w : split_words(text)) {
    const std::string_view t = trim_punctuation(w);
    if (t.empty()) continue;
    const std::string key = folded(t);
    if (!known.count(key) && said.insert(key).second) out.emplace_back(t);
  }
  return out;
}

bool is_builtin_model(const std::string& dir) {
  const std::string name = builtin_name(dir);
  return name == kTeachingGpt || name == kTeachingVit;
}

std::string model_files_dir(const std::string& dir) {
  if (!is_builtin_model(dir)) return dir;
  const std::string name = builtin_name(dir);
  const bool gpt = name == kTeachingGpt;
  std::error_code ec;
  if (fs::symlink_status(fs::path(name), ec).type() != fs::file_type::not_found && !ec) {
    if (gpt)
      throw Error(fmt::format(N_("{} is the built-in GPT, and this folder also has a file or folder named {}: write ./{} to open yours"), name,
                              name, name));
    throw Error(fmt::format(N_("{} is the built-in ViT, and this folder also has a file or folder named {}: write ./{} to open yours"), name,
                            name, name));
  }
  const std::vector<BuiltinFile> files = gpt ? teaching_gpt_files() : teaching_vit_files();
  std::uint64_t h = 14695981039346656037ull;
  for (const BuiltinFile& f : files) h = fnv1a64(fnv1a64(h, f.name), f.bytes);
  for (const fs::path& root : cache_roots()) {
    const fs::path target = root / fmt::format("builtin-{:016x}", h) / name;
    if (complete(target, files) || materialize(target, files)) return target.string();
  }
  throw Error(fmt::format(N_("{}: the built-in model's files could not be written to a cache folder ($XDG_CACHE_HOME/tfx, $HOME/.cache/tfx or "
                             "the temporary folder)"),
                          name));
}

}  // namespace tfx
