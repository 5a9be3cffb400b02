// markup_escape, the one escaping path of the SVG and HTML writers: every output is well-formed
// XML character data whatever the bytes (checked with the independent reader in xml_check.hpp),
// and the SVG and HTML writers both go through it (the same hostile title gives the same text).
#include <algorithm>
#include <string>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/figure/attention_html.hpp"
#include "xml_check.hpp"

using namespace tfx;
using namespace tfx::test;

TEST_CASE("markup_escape: entities, controls dropped, invalid UTF-8 as U+FFFD, valid text kept") {
  CHECK(markup_escape("a < b & c > \"d\" 'e'") == "a &lt; b &amp; c &gt; &quot;d&quot; 'e'");
  CHECK(markup_escape("tab\there\nnl") == "tab\there\nnl");
  CHECK(markup_escape(std::string("nul\0esc\x1b[2Jbell\x07", 17)) == "nulesc[2Jbell");
  CHECK(markup_escape("나는 학생 이다 θ ω") == "나는 학생 이다 θ ω");
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(markup_escape("caf\xe9") == "caf" + fffd);             // Latin-1 é
  CHECK(markup_escape("\xed\x95") == fffd + fffd);              // a Hangul syllable cut after 2 of 3 bytes
  CHECK(markup_escape("\xc0\xaf") == fffd + fffd);              // overlong '/'
  CHECK(markup_escape("\xed\xa0\x80") == fffd + fffd + fffd);   // a surrogate
  CHECK(markup_escape("\xef\xbf\xbe") == fffd);                 // U+FFFE, not an XML character
  CHECK(markup_escape("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");  // U+1F600 kept
}

TEST_CASE("markup_escape: every byte string of a hostile set reads back as XML text") {
  const std::string hostile[] = {"<script>alert(1)</script>", "]]>", "&amp;", "\xff\xfe\x00<", "\"'\"'", std::string(1, '\x0c'),
                                 "\xe2\x80", "a\rb", "<!-- x -->", "\xf4\x90\x80\x80"};
  for (const auto& h : hostile) {
    const std::string doc = "<?xml version=\"1.0\"?><svg a=\"" + markup_escape(h) + "\"><text>" + markup_escape(h) + "</text></svg>";
    INFO(doc);
    CHECK_NOTHROW(parse_xml(doc));
  }
}

TEST_CASE("svg and html writers: a title that is not valid UTF-8 and holds markup stays text in both") {
  TempDir dir;
  const std::string title = "\"<b>caf\xe9</b>\" & 'x'\x01";
  // the SVG: --title through the CLI, read back by the XML reader
  const auto r = run_tfx("pe --len 3 --dim 4 --svg t.svg --title " + shell_quote(title), dir.path);
  REQUIRE(r.code == 0);
  const std::string svg = read_file(dir / "t.svg");
  std::vector<XmlElement> els;
  REQUIRE_NOTHROW(els = parse_xml(svg));
  bool found = false;
  for (const auto& e : els)
    if (e.name == "text" && e.text == "\"<b>caf\xEF\xBF\xBD</b>\" & 'x'") found = true;
  CHECK(found);
  // the HTML page: the same escaped text in its <title>
  AttentionPage p;
  p.title = title;
  p.queries = {"a", "b"};
  p.keys = {"x", "y"};
  p.layer_names = {"layer 0"};
  p.head_names = {"0"};
  Tensor w({1, 2, 2});
  const float v[] = {0.5f, 0.5f, 0.25f, 0.75f};
  std::copy(v, v + 4, w.data());
  p.weights.push_back(w);
  const std::string page = attention_html(p);
  CHECK(page.find("<title>" + markup_escape(title) + "</title>") != std::string::npos);
  CHECK(page.find("<b>") == std::string::npos);
}
