// The token listing of `tfx model tokenize` (tfx/text/token_listing.hpp).
#include "tfx/text/token_listing.hpp"

#include <algorithm>

namespace tfx {

namespace {

// Byte offset → character (code point) offset in one sequence, as Hugging Face's Python and Node
// bindings give offsets: counted from the last question, forward or back (tokens that share a
// character, as byte-level pieces of one Hangul syllable do, ask for an earlier byte again), or
// from the start when that is nearer (the post-processor's [0, 0) after the text). Each question
// costs the distance from the last one, so a whole document's offsets take linear time.
class CharIndex {
 public:
  explicit CharIndex(std::string_view s) : s_(s) {}
  std::size_t at(std::size_t byte) {
    byte = std::min(byte, s_.size());
    if (byte < byte_ && byte < byte_ - byte) byte_ = chars_ = 0;
    for (; byte_ > byte; --byte_)
      if (lead(byte_ - 1)) --chars_;
    for (; byte_ < byte; ++byte_)
      if (lead(byte_)) ++chars_;
    return chars_;
  }

 private:
  bool lead(std::size_t i) const { return (static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80; }
  std::string_view s_;
  std::size_t byte_ = 0, chars_ = 0;
};

// One summary array: per token `item(e, i, chars)` — flat, or an array per line with --lines.
void write_array(const TokenListing& l, const Sink& sink,
                 const std::function<std::string(const HfEncoding&, std::size_t, CharIndex&)>& item) {
  const std::vector<HfEncoding>& encs = *l.encodings;
  if (l.lines) sink("[");
  for (std::size_t s = 0; s < encs.size(); ++s) {
    if (s) sink(",");
    CharIndex chars(l.sequences[s]);
    sink("[");
    for (std::size_t i = 0; i < encs[s].ids.size(); ++i) {
      if (i) sink(",");
      sink(item(encs[s], i, chars));
    }
    sink("]");
  }
  if (l.lines) sink("]");
  else if (encs.empty()) sink("[]");
}

std::string pair_text(std::size_t a, std::size_t b) { return "[" + std::to_string(a) + "," + std::to_string(b) + "]"; }

}  // namespace

std::vector<std::string> token_listing_columns(bool lines, bool offsets) {
  std::vector<std::string> c{N_("position"), N_("token"), N_("readable"), N_("id")};
  if (lines) c.insert(c.begin(), N_("line"));
  if (offsets) c.insert(c.end(), {N_("start"), N_("end"), N_("byte start"), N_("byte end")});
  return c;
}

void for_each_token_row(const TokenListing& l, const std::function<void(std::vector<Cell>&&)>& row) {
  const std::vector<HfEncoding>& encs = *l.encodings;
  for (std::size_t s = 0; s < encs.size(); ++s) {
    const HfEncoding& e = encs[s];
    CharIndex chars(l.sequences[s]);
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
      std::vector<Cell> r;
      r.reserve(9);
      if (l.lines) r.push_back(static_cast<long long>(s + 1));
      r.insert(r.end(), {static_cast<long long>(i), e.tokens[i], e.readable[i], static_cast<long long>(e.ids[i])});
      if (l.offsets) {
        const std::size_t b0 = e.offsets[i].first, b1 = e.offsets[i].second;
        const std::size_t c0 = chars.at(b0), c1 = chars.at(b1);
        r.insert(r.end(), {static_cast<long long>(c0), static_cast<long long>(c1), static_cast<long long>(b0), static_cast<long long>(b1)});
      }
      row(std::move(r));
    }
  }
}

void write_token_csv(const TokenListing& l, const Sink& sink) {
  std::vector<Cell> header;
  for (const std::string& c : token_listing_columns(l.lines, l.offsets)) header.push_back(c);
  sink(csv_row(header, -1));
  for_each_token_row(l, [&](std::vector<Cell>&& r) { sink(csv_row(r, -1)); });
}

nlohmann::json token_summary(const TokenListing& l) {
  // the arrays write_token_json streams, as one object (flat, or an array per line with --lines)
  const auto array = [&l](const auto& item) {
    nlohmann::json all = nlohmann::json::array();
    for (std::size_t s = 0; s < l.encodings->size(); ++s) {
      const HfEncoding& e = (*l.encodings)[s];
      CharIndex chars(l.sequences[s]);
      nlohmann::json line = nlohmann::json::array();
      for (std::size_t i = 0; i < e.ids.size(); ++i) line.push_back(item(e, i, chars));
      if (l.lines) all.push_back(std::move(line));
      else all = std::move(line);
    }
    return all;
  };
  nlohmann::json summary = nlohmann::json::object();
  if (l.offsets) {
    summary["byte_offsets"] = array([](const HfEncoding& e, std::size_t i, CharIndex&) {
      return nlohmann::json::array({e.offsets[i].first, e.offsets[i].second});
    });
    summary["offsets"] = array([](const HfEncoding& e, std::size_t i, CharIndex& chars) {
      const std::size_t c0 = chars.at(e.offsets[i].first);
      return nlohmann::json::array({c0, chars.at(e.offsets[i].second)});
    });
  }
  summary["ids"] = array([](const HfEncoding& e, std::size_t i, CharIndex&) { return nlohmann::json(e.ids[i]); });
  summary["readable"] = array([](const HfEncoding& e, std::size_t i, CharIndex&) { return nlohmann::json(e.readable[i]); });
  summary["tokens"] = array([](const HfEncoding& e, std::size_t i, CharIndex&) { return nlohmann::json(e.tokens[i]); });
  return summary;
}

void write_token_json(const TokenListing& l, nlohmann::json head, const Sink& sink) {
  const std::vector<std::string> columns = token_listing_columns(l.lines, l.offsets);
  std::size_t count = 0;
  for (const HfEncoding& e : *l.encodings) count += e.ids.size();
  head["name"] = "tokens";
  head["shape"] = {count, columns.size()};
  head["columns"] = columns;
  std::map<std::string, std::function<void(const Sink&)>> large;
  large["data"] = [&](const Sink& out) {
    out("[");
    bool first = true;
    for_each_token_row(l, [&](std::vector<Cell>&& r) {
      out(first ? json_record(columns, r, -1) : "," + json_record(columns, r, -1));
      first = false;
    });
    out("]");
  };
  large["summary"] = [&](const Sink& out) {
    using Item = std::function<std::string(const HfEncoding&, std::size_t, CharIndex&)>;
    std::vector<std::pair<std::string, Item>> arrays;
    if (l.offsets)
      arrays.emplace_back("byte_offsets", [](const HfEncoding& e, std::size_t i, CharIndex&) {
        return pair_text(e.offsets[i].first, e.offsets[i].second);
      });
    arrays.emplace_back("ids", [](const HfEncoding& e, std::size_t i, CharIndex&) { return std::to_string(e.ids[i]); });
    if (l.offsets)
      arrays.emplace_back("offsets", [](const HfEncoding& e, std::size_t i, CharIndex& chars) {
        const std::size_t c0 = chars.at(e.offsets[i].first);
        return pair_text(c0, chars.at(e.offsets[i].second));
      });
    arrays.emplace_back("readable", [](const HfEncoding& e, std::size_t i, CharIndex&) { return json_text(e.readable[i]); });
    arrays.emplace_back("tokens", [](const HfEncoding& e, std::size_t i, CharIndex&) { return json_text(e.tokens[i]); });
    out("{");
    for (std::size_t a = 0; a < arrays.size(); ++a) {
      out((a ? ",\"" : "\"") + arrays[a].first + "\":");
      write_array(l, out, arrays[a].second);
    }
    out("}");
  };
  write_json_object(head, large, sink);
}

}  // namespace tfx
