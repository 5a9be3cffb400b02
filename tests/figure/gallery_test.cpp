// The figure gallery: scripts/gen-figures.sh, run with the built tfx into a temporary copy of
// docs/, must succeed and make every picture that docs/figures.md and README.md show (a PNG or
// an SVG, not an empty file); the committed gallery section must be the one the script writes
// and its pictures committed, so a figure renamed or dropped in the script fails here. No pixel
// comparison: fonts and anti-aliasing may differ from machine to machine.
#include <regex>
#include <set>

#include "helpers.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

namespace {

// The targets of the Markdown links and images in `text` that start with `prefix` and end in
// .png, .svg or .gif, e.g. "img/gallery/pe.png" for prefix "img/".
std::set<std::string> picture_links(const std::string& text, const std::string& prefix) {
  std::set<std::string> links;
  static const std::regex link(R"(\]\(([^)\s]+\.(png|svg|gif))\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1];
    if (target.rfind(prefix, 0) == 0) links.insert(target);
  }
  return links;
}

// Everything from the "<!-- gallery -->" line on ("" when the marker is missing).
std::string gallery_section(const std::string& md) {
  const std::size_t at = md.find("\n<!-- gallery -->\n");
  return at == std::string::npos ? "" : md.substr(at + 1);
}

// A PNG starts with its 8-byte signature, a GIF with GIF89a; an SVG is XML with an <svg element.
bool is_picture(const fs::path& p) {
  const std::string bytes = read_file(p);
  if (p.extension() == ".png") return bytes.size() > 100 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
  if (p.extension() == ".gif") return bytes.size() > 100 && bytes.compare(0, 6, "GIF89a") == 0;
  return bytes.size() > 100 && has(bytes, "<svg") && has(bytes, "</svg>");
}

}  // namespace

TEST_CASE("gallery: gen-figures.sh makes every picture docs/figures.md and README.md show") {
  const fs::path source = TFX_SOURCE_DIR;
  TempDir t;
  const fs::path docs = t / "docs";
  fs::create_directories(docs);
  fs::copy_file(source / "docs/figures.md", docs / "figures.md");
  const std::string cmd = "bash " + shell_quote((source / "scripts/gen-figures.sh").string()) + " " + shell_quote(TFX_BINARY) + " " +
                          shell_quote(docs.string()) + " >" + shell_quote((t / "log").string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  const std::string log = read_file(t / "log");
  CAPTURE(log);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);

  // 1. every picture the regenerated gallery shows was made, and nothing else
  const std::string made_md = read_file(docs / "figures.md");
  const std::set<std::string> made = picture_links(made_md, "img/");
  CHECK(made.size() >= 20);
  for (const std::string& link : made) {
    CAPTURE(link);
    CHECK(is_picture(docs / link));
  }
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(docs / "img/gallery")) files.insert("img/gallery/" + e.path().filename().string());
  CHECK(files == made);

  // the files are deterministic: the same command draws the same bytes again
  const Run again = run_tfx("attention --sentence \"I love you\" --dk 4 --png again.png --svg again.svg", t.path);
  CHECK(again.code == 0);
  CHECK(read_file(t / "again.png") == read_file(docs / "img/gallery/attention.png"));
  CHECK(read_file(t / "again.svg") == read_file(docs / "img/gallery/attention.svg"));

  // 2. the committed gallery is the one the script writes, and its pictures are committed
  const std::string committed_md = read_file(source / "docs/figures.md");
  CHECK(gallery_section(committed_md) == gallery_section(made_md));
  for (const std::string& link : picture_links(committed_md, "img/")) {
    CAPTURE(link);
    CHECK(made.count(link) == 1);
    CHECK(is_picture(source / "docs" / link));
  }

  // 3. the README shows gallery pictures, each made by the script and committed
  const std::set<std::string> readme = picture_links(read_file(source / "README.md"), "");
  CHECK(!readme.empty());
  for (const std::string& link : readme) {
    CAPTURE(link);
    REQUIRE(link.rfind("docs/img/gallery/", 0) == 0);
    CHECK(made.count(link.substr(5)) == 1);
    CHECK(is_picture(source / link));
  }
}
