// The --html attention page's text (tfx/figure/attention_html.hpp), without a browser: weights
// written with 4 decimals, titles and tokens escaped, invalid UTF-8 replaced, shapes and the size
// limit refused. What the page draws is tested in Chromium by tests/python/check_attention_html.py.
#include <string>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/figure/attention_html.hpp"

using namespace tfx;

namespace {

AttentionPage small_page() {
  AttentionPage p;
  p.title = std::string(1, 't');  // (a string literal here trips GCC 12's -Wrestrict false positive)
  p.queries = {"a", "b"};
  p.keys = {"x", "y"};
  p.layer_names = {"layer 0"};
  p.head_names = {"0"};
  Tensor w({1, 2, 2});
  const float v[] = {0.25f, 0.75f, 1.0f, 0.00004f};
  std::copy(v, v + 4, w.data());
  p.weights.push_back(w);
  return p;
}

std::string data_of(const std::string& page) {
  const std::size_t a = page.find("id=\"tfx-data\">");
  REQUIRE(a != std::string::npos);
  const std::size_t b = page.find("</script>", a);
  REQUIRE(b != std::string::npos);
  return page.substr(a + 14, b - a - 14);
}

}  // namespace

TEST_CASE("attention html: the weights as written, rounded to 4 decimals") {
  AttentionPage p = small_page();
  std::string page = attention_html(p);
  CHECK(data_of(page).find("\"w\":[[[0.25,0.75,1,0]]]") != std::string::npos);
  p.weights[0].data()[0] = 0.123456f;  // rounds to 0.1235
  p.weights[0].data()[1] = 0.5f;
  p.weights[0].data()[3] = 0.00006f;  // above half of the last decimal: rounds up
  page = attention_html(p);
  CHECK(data_of(page).find("\"w\":[[[0.1235,0.5,1,0.0001]]]") != std::string::npos);
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page.find("default-src 'none'") != std::string::npos);
}

TEST_CASE("attention html: tokens and titles never reach the page as markup") {
  AttentionPage p = small_page();
  p.title = "<b>bold</b> & \"q\"";
  p.queries = {"</script><script>alert(1)</script>", "<!--"};
  p.keys = {"<img src=x onerror=alert(1)>", "\xff\xfe"};
  const std::string page = attention_html(p);
  CHECK(page.find("<title>&lt;b&gt;bold&lt;/b&gt; &amp; &quot;q&quot;</title>") != std::string::npos);
  CHECK(page.find("<b>") == std::string::npos);
  CHECK(page.find("alert(1)</script>") == std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("<!--") == std::string::npos);
  const std::string data = data_of(page);
  CHECK(data.find("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)") != std::string::npos);
  CHECK(data.find("\xef\xbf\xbd") != std::string::npos);  // invalid bytes shown as U+FFFD
  // three script elements: the error hook, the data, the program
  std::size_t n = 0;
  for (std::size_t k = page.find("<script"); k != std::string::npos; k = page.find("<script", k + 1)) ++n;
  CHECK(n == 3);
}

TEST_CASE("attention html: shapes that disagree and pages too large are refused") {
  AttentionPage p = small_page();
  p.head_names = {"0", "1"};
  CHECK_THROWS_WITH_AS(attention_html(p), doctest::Contains("(2, 2, 2) expected"), Error);
  p = small_page();
  p.layer_names.clear();
  CHECK_THROWS_AS(attention_html(p), Error);
  p = small_page();
  p.head_names.assign(4096, "h");
  p.queries.assign(65, "q");
  p.keys.assign(64, "k");  // 4096 · 65 · 64 > 2^24 weights: refused before any shape is looked at
  // the library names its parameters; the command layer puts the flags in their place
  CHECK_THROWS_WITH_AS(attention_html(p), doctest::Contains("choose layer or head"), Error);
  try {
    attention_html(p);
  } catch (const Error& e) {
    CHECK(e.params() == std::vector<std::string>{"html", "layer", "head"});
  }
}
