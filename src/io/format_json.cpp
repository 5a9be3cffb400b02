// The JSON encoder (layout in docs/formats.md): float32 values as their shortest round-trip text,
// NaN/Inf as null, the primary block at the top level and every other block once by name.
#include "tfx/io/format.hpp"

#include "format_cells.hpp"

#include <charconv>
#include <cmath>
#include <functional>

namespace tfx {

using namespace cells;

namespace {

// A JSON number whose text is `text`: the double nearest it, which write_json prints as its
// shortest round-trip text, i.e. as `text` again.
nlohmann::json json_from_text(const std::string& text) {
  double d = 0;
  std::from_chars(text.data(), text.data() + text.size(), d);
  return d;
}

// JSON value of a float32: NaN/Inf become null; with precision < 0 the shortest text that reads
// back as the same float32 ("0.3322436", not 0.33224359999999997).
nlohmann::json json_number(float v, int precision) {
  if (!std::isfinite(v)) return nullptr;
  return json_from_text(number(v, precision));
}

// JSON value of a double: a double that is exactly a float32 (a value computed in float32 and
// widened) is written as that float32's shortest text; other doubles as their own shortest text.
nlohmann::json json_double(double d, int precision) {
  if (!std::isfinite(d)) return nullptr;
  if (precision >= 0) return json_from_text(fixed(d, precision));
  const auto f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return json_from_text(shortest_float(f));
  return d;
}

nlohmann::json json_cell(const Cell& c, int precision) {
  if (auto s = std::get_if<std::string>(&c)) return *s;
  if (auto i = std::get_if<long long>(&c)) return *i;
  return json_double(std::get<double>(c), precision);
}

// Floats in a summary or parameters object, rewritten as json_double does.
nlohmann::json shortest_floats(nlohmann::json j) {
  if (j.is_number_float()) return json_double(j.get<double>(), -1);
  if (j.is_object() || j.is_array())
    for (auto& v : j) v = shortest_floats(v);
  return j;
}

nlohmann::json matrix_data(const Tensor& t, int precision) {
  // nested arrays following the shape
  std::function<nlohmann::json(std::size_t, std::size_t)> rec = [&](std::size_t axis, std::size_t off) {
    nlohmann::json a = nlohmann::json::array();
    std::size_t stride = 1;
    for (std::size_t k = axis + 1; k < t.rank(); ++k) stride *= t.dim(k);
    for (std::size_t i = 0; i < t.dim(axis); ++i) {
      if (axis + 1 == t.rank()) a.push_back(json_number(t[off + i], precision));
      else a.push_back(rec(axis + 1, off + i * stride));
    }
    return a;
  };
  if (t.rank() == 0) return nlohmann::json::array();
  return rec(0, 0);
}

nlohmann::json matrix_json(const Matrix& m, int precision) {
  nlohmann::json j;
  j["shape"] = m.values.shape();
  if (!m.row_axis.empty()) j["row_axis"] = m.row_axis;
  if (!m.col_axis.empty()) j["col_axis"] = m.col_axis;
  if (!m.row_labels.empty()) j["rows"] = m.row_labels;
  if (!m.col_labels.empty()) j["columns"] = m.col_labels;
  j["data"] = matrix_data(m.values, precision);
  if (!m.masked.empty()) {
    Tensor mk(m.values.shape());
    for (std::size_t i = 0; i < mk.size(); ++i) mk[i] = m.masked[i] ? 1.0f : 0.0f;
    j["masked"] = matrix_data(mk, 0);
  }
  return j;
}

nlohmann::json records_json(const Records& r, int precision) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json o = nlohmann::json::object();
    for (std::size_t j = 0; j < row.size() && j < r.columns.size(); ++j) o[r.columns[j]] = json_cell(row[j], precision);
    a.push_back(std::move(o));
  }
  return a;
}

// Compact JSON like nlohmann's dump(), except doubles: the shortest text that reads back as the
// same double (std::to_chars), where nlohmann writes 17 digits ("0.33224359999999997").
void write_json(const nlohmann::json& j, std::string& out) {
  auto plain = [&](const nlohmann::json& v) { out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ',';
      first = false;
      plain(nlohmann::json(it.key()));
      out += ':';
      write_json(it.value(), out);
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) out += ',';
      write_json(j[i], out);
    }
    out += ']';
  } else if (j.is_number_float()) {
    // a double that is exactly a float32 (json_double's values) as the float's shortest text
    char buf[64];
    const double d = j.get<double>();
    const auto f = static_cast<float>(d);
    const auto res = static_cast<double>(f) == d ? std::to_chars(buf, buf + sizeof buf, f) : std::to_chars(buf, buf + sizeof buf, d);
    std::string t(buf, res.ptr);
    if (t.find_first_of(".en") == std::string::npos) t += ".0";  // 1.0 stays a float, as nlohmann writes it
    out += t;
  } else {
    plain(j);
  }
}

}  // namespace

std::string json_text(const nlohmann::json& j) {
  std::string out;
  write_json(j, out);
  return out;
}

std::string json_record(const std::vector<std::string>& columns, const std::vector<Cell>& row, int precision) {
  nlohmann::json o = nlohmann::json::object();
  for (std::size_t j = 0; j < row.size() && j < columns.size(); ++j) o[columns[j]] = json_cell(row[j], precision);
  return json_text(o);
}

void write_json_object(const nlohmann::json& head, const std::map<std::string, std::function<void(const Sink&)>>& large, const Sink& sink) {
  // nlohmann's object is a std::map: its keys, merged with the large ones, in the same order
  std::map<std::string, const nlohmann::json*> small;
  for (auto it = head.begin(); it != head.end(); ++it) small[it.key()] = &it.value();
  auto s = small.begin();
  auto l = large.begin();
  bool first = true;
  while (s != small.end() || l != large.end()) {
    sink(first ? "{" : ",");
    first = false;
    if (l == large.end() || (s != small.end() && s->first < l->first)) {
      sink(json_text(nlohmann::json(s->first)) + ":" + json_text(shortest_floats(*s->second)));
      ++s;
    } else {
      sink(json_text(nlohmann::json(l->first)) + ":");
      l->second(sink);
      ++l;
    }
  }
  sink(first ? "{}\n" : "}\n");
}

// Layout (docs/formats.md): command, params, then the primary block at the top level (name,
// shape, data, axes and labels of a matrix; or name, shape, data of a record table), then the
// other blocks by name under "matrices" and "tables" — each block once — then notes, summary.
std::string encode_json(const Result& r, const OutputOptions& o) {
  nlohmann::json j = nlohmann::json::object();
  j["command"] = r.command;
  j["params"] = shortest_floats(r.params);
  const Block* primary = primary_block(r);
  if (primary) {
    if (auto m = std::get_if<Matrix>(primary)) {
      j["name"] = m->name;
      const nlohmann::json mj = matrix_json(*m, o.precision);
      for (auto it = mj.begin(); it != mj.end(); ++it) j[it.key()] = it.value();
    } else {
      const Records& rec = std::get<Records>(*primary);
      j["name"] = rec.name;
      j["shape"] = {rec.rows.size(), rec.columns.size()};
      j["columns"] = rec.columns;  // the table's column order (each row object's keys are sorted)
      j["data"] = records_json(rec, o.precision);
    }
  }
  nlohmann::json matrices = nlohmann::json::object(), tables = nlohmann::json::object(),
                 notes = nlohmann::json::array();
  for (const Block& b : r.blocks) {
    if (&b == primary) continue;
    if (auto m = std::get_if<Matrix>(&b)) matrices[m->name] = matrix_json(*m, o.precision);
    else if (auto rec = std::get_if<Records>(&b)) tables[rec->name] = records_json(*rec, o.precision);
    else notes.push_back(std::get<Text>(b).text);
  }
  if (!matrices.empty()) j["matrices"] = matrices;
  if (!tables.empty()) j["tables"] = tables;
  if (!notes.empty()) j["notes"] = notes;
  if (!r.summary.empty()) j["summary"] = shortest_floats(r.summary);
  std::string out;
  write_json(j, out);
  return out + "\n";
}

}  // namespace tfx
