// Build-time host program: writes a C++ source holding a file's bytes, so a data file (the
// teaching translator's weights and vocabulary) is compiled into tfx and no file is needed at
// run time. Usage: gen_embedded_file INPUT OUTPUT.cpp SYMBOL
// The source defines tfx::embedded::SYMBOL() returning the bytes as a std::string_view.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gen_embedded_file INPUT OUTPUT.cpp SYMBOL\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "gen_embedded_file: cannot read %s\n", argv[1]);
    return 1;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string tmp = std::string(argv[2]) + ".tmp";
  std::FILE* out = std::fopen(tmp.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "gen_embedded_file: cannot write %s\n", tmp.c_str());
    return 1;
  }
  std::fprintf(out, "// Generated from %s by gen_embedded_file. Do not edit.\n#include <string_view>\n\n", argv[1]);
  std::fprintf(out, "namespace tfx::embedded {\nnamespace {\nalignas(64) const unsigned char kBytes[%zu] = {", bytes.size() + 1);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    std::fprintf(out, "%s%u,", i % 24 == 0 ? "\n" : "", static_cast<unsigned>(static_cast<unsigned char>(bytes[i])));
  std::fprintf(out, "0};\n}  // namespace\n\nstd::string_view %s() {\n", argv[3]);
  std::fprintf(out, "  return {reinterpret_cast<const char*>(kBytes), %zu};\n}\n\n}  // namespace tfx::embedded\n", bytes.size());
  if (std::fclose(out) != 0 || std::rename(tmp.c_str(), argv[2]) != 0) {
    std::fprintf(stderr, "gen_embedded_file: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
