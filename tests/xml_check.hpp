// A small XML reader for the SVG tests: checks well-formedness (one root, tags nested and closed
// in order, quoted attributes, known entities, a declaration and DOCTYPE only before the root)
// and returns every element with its attributes and text, so tests can look up <title>s and
// <text>s the way an XML parser sees them, not by searching the bytes.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tfx::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;    // character data directly inside, entities decoded
  int parent = -1;     // index in the element list
};

inline std::string xml_decode(const std::string& s, std::size_t at) {
  std::string o;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      if (s[i] == '<') throw std::runtime_error("'<' in character data at " + std::to_string(at));
      o += s[i];
      continue;
    }
    const std::size_t semi = s.find(';', i);
    if (semi == std::string::npos) throw std::runtime_error("unterminated entity at " + std::to_string(at + i));
    const std::string e = s.substr(i + 1, semi - i - 1);
    if (e == "amp") o += '&';
    else if (e == "lt") o += '<';
    else if (e == "gt") o += '>';
    else if (e == "quot") o += '"';
    else if (e == "apos") o += '\'';
    else if (e.size() > 1 && e[0] == '#') {  // a character reference: &#39; or &#x27;, an XML Char only
      const bool hex = e[1] == 'x';
      const std::string digits = e.substr(hex ? 2 : 1);
      if (digits.empty() || digits.size() > 8 || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos)
        throw std::runtime_error("bad character reference &" + e + "; at " + std::to_string(at + i));
      const unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
      if (!(cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF)))
        throw std::runtime_error("character reference &" + e + "; is not an XML character, at " + std::to_string(at + i));
      if (cp < 0x80) o += static_cast<char>(cp);
      else if (cp < 0x800) o += static_cast<char>(0xC0 | (cp >> 6)), o += static_cast<char>(0x80 | (cp & 0x3F));
      else if (cp < 0x10000) o += static_cast<char>(0xE0 | (cp >> 12)), o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), o += static_cast<char>(0x80 | (cp & 0x3F));
      else o += static_cast<char>(0xF0 | (cp >> 18)), o += static_cast<char>(0x80 | ((cp >> 12) & 0x3F)), o += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), o += static_cast<char>(0x80 | (cp & 0x3F));
    }
    else throw std::runtime_error("unknown entity &" + e + "; at " + std::to_string(at + i));
    i = semi;
  }
  return o;
}

// Throws std::runtime_error with the byte offset when the document is not well-formed.
inline std::vector<XmlElement> parse_xml(const std::string& doc) {
  std::vector<XmlElement> out;
  std::vector<int> open;
  bool root_seen = false;
  std::size_t i = 0;
  auto fail = [&](const std::string& what) { throw std::runtime_error(what + " at byte " + std::to_string(i)); };
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '-' || c == '_' || c == '.'; };
  while (i < doc.size()) {
    if (doc[i] != '<') {
      const std::size_t next = doc.find('<', i);
      const std::string chunk = doc.substr(i, next == std::string::npos ? std::string::npos : next - i);
      if (open.empty()) {
        if (chunk.find_first_not_of(" \t\r\n") != std::string::npos) fail("text outside the root");
      } else {
        out[static_cast<std::size_t>(open.back())].text += xml_decode(chunk, i);
      }
      if (next == std::string::npos) break;
      i = next;
      continue;
    }
    if (doc.compare(i, 5, "<?xml") == 0) {
      if (i != 0) fail("XML declaration not at the start");
      i = doc.find("?>", i);
      if (i == std::string::npos) fail("unterminated declaration");
      i += 2;
      continue;
    }
    if (doc.compare(i, 9, "<!DOCTYPE") == 0) {
      if (root_seen) fail("DOCTYPE after the root");
      i = doc.find('>', i);
      if (i == std::string::npos) fail("unterminated DOCTYPE");
      ++i;
      continue;
    }
    if (doc.compare(i, 4, "<!--") == 0) {
      i = doc.find("-->", i);
      if (i == std::string::npos) fail("unterminated comment");
      i += 3;
      continue;
    }
    if (doc.compare(i, 2, "</") == 0) {
      std::size_t j = i + 2;
      while (j < doc.size() && is_name(doc[j])) ++j;
      const std::string name = doc.substr(i + 2, j - i - 2);
      if (open.empty() || out[static_cast<std::size_t>(open.back())].name != name) fail("mismatched </" + name + ">");
      open.pop_back();
      i = doc.find('>', j);
      if (i == std::string::npos) fail("unterminated end tag");
      ++i;
      continue;
    }
    // a start tag: name, attributes name="value", then > or />
    std::size_t j = i + 1;
    while (j < doc.size() && is_name(doc[j])) ++j;
    XmlElement e;
    e.name = doc.substr(i + 1, j - i - 1);
    if (e.name.empty()) fail("empty tag name");
    if (open.empty() && root_seen) fail("a second root element <" + e.name + ">");
    e.parent = open.empty() ? -1 : open.back();
    bool self_closing = false;
    for (;;) {
      while (j < doc.size() && std::isspace(static_cast<unsigned char>(doc[j]))) ++j;
      if (j >= doc.size()) fail("unterminated tag <" + e.name + ">");
      if (doc[j] == '>') {
        ++j;
        break;
      }
      if (doc.compare(j, 2, "/>") == 0) {
        self_closing = true;
        j += 2;
        break;
      }
      std::size_t k = j;
      while (k < doc.size() && is_name(doc[k])) ++k;
      const std::string attr = doc.substr(j, k - j);
      if (attr.empty() || k >= doc.size() || doc[k] != '=' || k + 1 >= doc.size() || (doc[k + 1] != '"' && doc[k + 1] != '\''))
        fail("bad attribute in <" + e.name + ">");
      const char q = doc[k + 1];
      const std::size_t end = doc.find(q, k + 2);
      if (end == std::string::npos) fail("unterminated attribute value");
      if (e.attrs.count(attr)) fail("duplicate attribute " + attr);
      e.attrs[attr] = xml_decode(doc.substr(k + 2, end - k - 2), k + 2);
      j = end + 1;
    }
    root_seen = true;
    out.push_back(std::move(e));
    if (!self_closing) open.push_back(static_cast<int>(out.size() - 1));
    i = j;
  }
  if (!open.empty()) throw std::runtime_error("unclosed <" + out[static_cast<std::size_t>(open.back())].name + ">");
  if (!root_seen) throw std::runtime_error("no root element");
  return out;
}

// The message of the reason `doc` is not a well-formed SVG document (an XML declaration, then one
// <svg> root element in the SVG namespace), or "" when it is: CHECK(svg_problem(doc).empty())
// in every test that writes an SVG.
inline std::string svg_problem(const std::string& doc) {
  if (doc.rfind("<?xml", 0) != 0) return "no XML declaration";
  try {
    const std::vector<XmlElement> els = parse_xml(doc);
    if (els.empty() || els[0].name != "svg") return "the root element is not <svg>";
    const auto ns = els[0].attrs.find("xmlns");
    if (ns == els[0].attrs.end() || ns->second != "http://www.w3.org/2000/svg") return "the <svg> element lacks the SVG namespace";
  } catch (const std::exception& e) {
    return std::string("not well-formed XML: ") + e.what();
  }
  return "";
}

}  // namespace tfx::test
