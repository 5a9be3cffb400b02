// Matrix file readers: JSON, CSV (tfx's own output included) and .npy against hand-written files,
// and every malformed input giving a clear error instead of a crash or a huge allocation.
#include "tfx/io/matrix_io.hpp"

#include <cstring>

#include "helpers.hpp"
#include "tfx/io/format.hpp"

using namespace tfx;
using namespace tfx::test;

namespace {



// A .npy file by hand: header dict padded to 64 bytes, then the raw bytes.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  std::string h = dict;
  const std::size_t pre = major == 1 ? 10 : 12;
  h += std::string((64 - (pre + h.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  if (major == 1) {
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
  } else {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xff);
  }
  return out + h + data;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

}  // namespace

TEST_CASE("json: nested arrays, one row, and tfx's own JSON output with labels") {
  LoadedMatrix m = parse_matrix_json("[[1, 2, 3], [4, 5.5, -6e-1]]", "t.json");
  REQUIRE(m.values.shape() == std::vector<std::size_t>{2, 3});
  CHECK(m.values(1, 1) == 5.5f);
  CHECK(m.values(1, 2) == doctest::Approx(-0.6));
  LoadedMatrix row = parse_matrix_json("[0.5, 1.5]", "t.json");
  CHECK(row.values.shape() == std::vector<std::size_t>{1, 2});

  // what `tfx ... --format json` writes: an object with command/params/shape/data/rows/columns
  Result r;
  r.command = "attention";
  Matrix w;
  w.name = "weights";
  w.values = Tensor::matrix({{0.25f, 0.75f}, {1.0f, 0.0f}});
  w.row_labels = {"i", "love"};
  w.col_labels = {"i", "love"};
  r.blocks.push_back(w);
  LoadedMatrix back = parse_matrix_json(encode_json(r, {}), "w.json");
  CHECK(back.values.values() == w.values.values());
  CHECK(back.row_labels == w.row_labels);
  CHECK(back.col_labels == w.col_labels);
}

TEST_CASE("json: ragged rows, non-numbers, nulls, 3-D, empty and broken JSON are clear errors") {
  CHECK(has(error_of([] { parse_matrix_json("[[1, 2], [3]]", "r.json"); }), "r.json: row 1 has 1 values, expected 2"));
  CHECK(has(error_of([] { parse_matrix_json("[[1, \"x\"]]", "s.json"); }), "element [0][1] is the string 'x'"));
  CHECK(has(error_of([] { parse_matrix_json("[[1, null]]", "n.json"); }), "element [0][1] is null"));
  CHECK(has(error_of([] { parse_matrix_json("[[[1]]]", "3.json"); }), "3-D"));
  CHECK(has(error_of([] { parse_matrix_json("[]", "e.json"); }), "empty array"));
  CHECK(has(error_of([] { parse_matrix_json("[[]]", "e.json"); }), "row 0 is empty"));
  CHECK(has(error_of([] { parse_matrix_json("[[1, 2], [3, 4]", "b.json"); }), "b.json: not valid JSON"));
  CHECK(has(error_of([] { parse_matrix_json("{\"shape\": [1]}", "o.json"); }), "without \"data\""));
  CHECK(has(error_of([] { parse_matrix_json("[[1e39]]", "big.json"); }), "float32 range"));
  CHECK(has(error_of([] { parse_matrix_json("{\"data\": [[1]], \"rows\": [\"a\", \"b\"]}", "l.json"); }),
            "2 row labels for 1 rows"));
}

TEST_CASE("csv: plain, header, tfx's own CSV (token and numeric row labels), whitespace and tab separated") {
  LoadedMatrix plain = parse_matrix_csv("1,2\n3,4\n", "p.csv");
  CHECK(plain.values.values() == std::vector<float>{1, 2, 3, 4});
  CHECK(plain.row_labels.empty());

  LoadedMatrix header = parse_matrix_csv("a,b\n1,2\n3,4\n", "h.csv");
  CHECK(header.values.shape() == std::vector<std::size_t>{2, 2});
  CHECK(header.col_labels == std::vector<std::string>{"a", "b"});

  // what `tfx attention --format csv` writes for a sentence, with a quoted token
  LoadedMatrix tokens = parse_matrix_csv("query,i,\"a,b\"\ni,0.25,0.75\n\"a,b\",1,0\n", "w.csv");
  CHECK(tokens.values.values() == std::vector<float>{0.25f, 0.75f, 1, 0});
  CHECK(tokens.row_labels == std::vector<std::string>{"i", "a,b"});
  CHECK(tokens.col_labels == std::vector<std::string>{"i", "a,b"});

  // what `tfx pe --format csv` writes: the row labels count 0, 1, 2, …
  LoadedMatrix pe = parse_matrix_csv("pos,0,1,2\n0,0,1,0\n1,0.84,0.54,0.01\n", "pe.csv");
  CHECK(pe.values.shape() == std::vector<std::size_t>{2, 3});
  CHECK(pe.values(1, 0) == doctest::Approx(0.84));
  CHECK(pe.row_labels == std::vector<std::string>{"0", "1"});

  // a labelled data row first, numeric column names: still tfx's layout
  LoadedMatrix qkv = parse_matrix_csv("query,0,1\nx,1,2\ny,3,4\n", "m.csv");
  CHECK(qkv.values.shape() == std::vector<std::size_t>{2, 2});
  // no header, labels in the first column
  LoadedMatrix nohead = parse_matrix_csv("cat,1,2\ndog,3,4\n", "n.csv");
  CHECK(nohead.values.shape() == std::vector<std::size_t>{2, 2});
  CHECK(nohead.row_labels == std::vector<std::string>{"cat", "dog"});

  // one line with a label: a single labelled row (one query)
  LoadedMatrix one = parse_matrix_csv("king,0.5,-1\n", "one.csv");
  CHECK(one.values.values() == std::vector<float>{0.5f, -1});
  CHECK(one.row_labels == std::vector<std::string>{"king"});

  // np.savetxt's default: space separated, with # comments and blank lines
  LoadedMatrix ws = parse_matrix_csv("# saved by numpy\n1.0 2.0  3.0\n\n-4 5 6e0\n", "x.txt");
  CHECK(ws.values.values() == std::vector<float>{1, 2, 3, -4, 5, 6});
  LoadedMatrix tab = parse_matrix_csv("1\t2\r\n3\t4\r\n", "t.tsv");
  CHECK(tab.values.values() == std::vector<float>{1, 2, 3, 4});
  // pandas' to_csv: an empty first header cell over the index
  LoadedMatrix pd = parse_matrix_csv(",a,b\n0,1,2\n1,3,4\n", "pd.csv");
  CHECK(pd.values.values() == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("csv: ragged rows and non-numbers name the line and column") {
  CHECK(has(error_of([] { parse_matrix_csv("1,2,3\n4,5\n", "r.csv"); }), "r.csv:2: 2 values, expected 3"));
  CHECK(has(error_of([] { parse_matrix_csv("1,2\n\n3,4,5\n", "r.csv"); }), "r.csv:3: 3 values, expected 2"));
  CHECK(has(error_of([] { parse_matrix_csv("1,2\n3,abc\n", "n.csv"); }), "n.csv:2: column 2: 'abc' is not a number"));
  CHECK(has(error_of([] { parse_matrix_csv("1,2\n3,\n", "n.csv"); }), "an empty cell"));
  CHECK(has(error_of([] { parse_matrix_csv("1,nan\n", "n.csv"); }), "NaN"));
  CHECK(has(error_of([] { parse_matrix_csv("a,b\n", "h.csv"); }), "only a header row"));
  CHECK(has(error_of([] { parse_matrix_csv("# nothing\n\n", "c.csv"); }), "no rows"));
  CHECK(has(error_of([] { parse_matrix_csv("slice,query,a\n0,a,1\n", "s.csv"); }), "3-D CSV"));
  CHECK(has(error_of([] { parse_matrix_csv("1,\"2\n", "q.csv"); }), "unterminated quoted field"));
}

TEST_CASE("npy: float32 from encode_npy, float64 by hand, version 2.0, big-endian") {
  Tensor t = Tensor::matrix({{1.5f, -2}, {3, 4.25f}, {0, 1e-3f}});
  LoadedMatrix a = parse_npy(encode_npy(t), "a.npy");
  CHECK(a.values.shape() == t.shape());
  CHECK(a.values.values() == t.values());

  LoadedMatrix b = parse_npy(
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", raw<double>({0.1, 0.2, 0.3, 0.4})), "b.npy");
  CHECK(b.values.values() == std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f});
  LoadedMatrix c =
      parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", raw<float>({1, 2, 3}), 2), "c.npy");
  CHECK(c.values.shape() == std::vector<std::size_t>{1, 3});

  std::string be;  // 1.0f and 2.0f big-endian
  for (float v : {1.0f, 2.0f}) {
    unsigned char bytes[4];
    std::memcpy(bytes, &v, 4);
    for (int i = 3; i >= 0; --i) be += static_cast<char>(bytes[i]);
  }
  LoadedMatrix d = parse_npy(npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 2), }", be), "d.npy");
  CHECK(d.values.values() == std::vector<float>{1, 2});
}

TEST_CASE("npy: fortran order, other dtypes, huge or lying shapes are clear errors without allocating") {
  const std::string f8 = raw<double>({1, 2, 3, 4});
  CHECK(has(error_of([&] { parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }", f8), "f.npy"); }),
            "Fortran"));
  CHECK(has(error_of([&] { parse_npy(npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", f8), "i.npy"); }),
            "dtype '<i8' is not supported"));
  CHECK(
      has(error_of([&] { parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2, 1), }", f8), "3.npy"); }),
          "3 dimensions"));
  CHECK(has(error_of([&] { parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", f8), "s.npy"); }),
            "scalar"));
  // 10^12 × 10^12 elements: refused by the element cap, not by a failed allocation
  CHECK(has(error_of([&] {
              parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 1000000000000), }", f8),
                        "h.npy");
            }),
            "more than 2^30 elements"));
  CHECK(has(error_of([&] {
              parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999, 2), }", f8),
                        "o.npy");
            }),
            "too large"));
  // a shape under the cap but far more than the bytes present: truncated, nothing allocated
  CHECK(has(
      error_of([&] { parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (20000, 20000), }", f8), "t.npy"); }),
      "needs 1600000000 data bytes, the file has 32 (truncated)"));
  CHECK(has(error_of([&] { parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", f8), "x.npy"); }),
            "needs 16 data bytes, the file has 32"));
  CHECK(has(error_of([&] { parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }", ""), "z.npy"); }),
            "empty"));
  CHECK(has(error_of([] { parse_npy(std::string("\x93NUMPY\x01\x00\xff\xff", 10), "p.npy"); }), "header says 65535 bytes"));
  CHECK(has(error_of([] { parse_npy("hello world", "m.npy"); }), "not a .npy file"));
  CHECK(has(error_of([] { parse_npy(std::string("\x93NUMPY\x07\x00\x00\x00", 10), "v.npy"); }), "version 7.0"));
  CHECK(has(error_of([&] {
              parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", raw<double>({1e300})), "r.npy");
            }),
            "float32 range"));
}

TEST_CASE("read_matrix_file: format by extension or content; missing, empty and directory inputs") {
  TempDir dir;
  write_file(dir / "m.json", "[[1, 2]]");
  write_file(dir / "m.csv", "1,2\n");
  write_file(dir / "m.npy", encode_npy(Tensor::matrix({{1, 2}})));
  write_file(dir / "sniff_npy", encode_npy(Tensor::matrix({{1, 2}})));
  write_file(dir / "sniff_json", "  [[1, 2]]");
  write_file(dir / "sniff_csv", "1 2\n");
  for (const char* name : {"m.json", "m.csv", "m.npy", "sniff_npy", "sniff_json", "sniff_csv"}) {
    CAPTURE(name);
    CHECK(read_matrix_file((dir / name).string()).values.values() == std::vector<float>{1, 2});
  }
  write_file(dir / "empty.csv", "");
  write_file(dir / "blank.json", "  \n");
  CHECK(has(error_of([&] { read_matrix_file((dir / "empty.csv").string(), "--q"); }),
            "--q " + (dir / "empty.csv").string() + ": empty file"));
  CHECK(has(error_of([&] { read_matrix_file((dir / "blank.json").string()); }), "only whitespace"));
  CHECK(has(error_of([&] { read_matrix_file((dir / "missing.csv").string(), "--k"); }), "cannot read"));
  CHECK(has(error_of([&] { read_matrix_file(dir.path.string(), "--v"); }), "is a directory"));
}

TEST_CASE("csv: a first line starting with a number is data, so its bad cell is reported, not taken for a header") {
  // "1,a" used to become the header: Q silently lost a row ([1, 2] instead of an error)
  CHECK(has(error_of([] { parse_matrix_csv("1,a\n3,4\n", "n.csv"); }), "n.csv:1: column 2: 'a' is not a number"));
  CHECK(has(error_of([] { parse_matrix_csv("1,2,x\n3,4,5\n", "n.csv"); }), "n.csv:1: column 3: 'x' is not a number"));
}
