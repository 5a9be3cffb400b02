// Issue 35, "Format is half a type": gif and html are rows of Format like the others. On a command
// that makes an animation or a page, -o FILE.gif/.html and --format gif/html are other spellings
// of --gif FILE / --html FILE (the same bytes); on any other command they are one usage error
// whose list of formats comes from the rows; --format's and -o's help name them where they work.
#include "gif.hpp"
#include "helpers.hpp"

using namespace tfx::test;

TEST_CASE("format rows: -o x.gif and --format gif write the bytes --gif writes (pe shift, rope rotate)") {
  TempDir t;
  for (const std::string base : {"pe shift --offset 3 --dim 8 --frames 4", "rope rotate --dim 8 --frames 3"}) {
    CAPTURE(base);
    const Run flag = run_tfx(base + " --gif by_flag.gif", t.path);
    const Run ext = run_tfx(base + " -o by_ext.gif", t.path);
    const Run named = run_tfx(base + " --format gif -o named", t.path);  // no extension: --format decides
    REQUIRE(flag.code == 0);
    REQUIRE(ext.code == 0);
    REQUIRE(named.code == 0);
    const std::string bytes = read_file(t / "by_flag.gif");
    REQUIRE(bytes.size() > 6);
    CHECK(bytes.compare(0, 6, "GIF89a") == 0);
    CHECK(read_file(t / "by_ext.gif") == bytes);
    CHECK(read_file(t / "named") == bytes);
    // the animation alone, as with --gif: one "wrote" line, no table
    CHECK(count_lines(ext.out) == 1);
    CHECK(has(ext.out, "wrote by_ext.gif"));
    // the frames asked for, each shown round(100 / 8) = 12 or 13 hundredths (GIF's unit)
    const GifDecoded g = decode_gif(read_file(t / "by_ext.gif"));
    CHECK(g.frames.size() == (base.starts_with("pe") ? 4u : 3u));
  }
  // --format gif without -o: --gif's default name from the parameters
  REQUIRE(run_tfx("pe shift --offset 3 --dim 8 --frames 4 --gif shift.gif", t.path).code == 0);
  REQUIRE(run_tfx("pe shift --offset 3 --dim 8 --frames 4 --format gif", t.path).code == 0);
  CHECK(read_file(t / "pe_shift_k3_dim8.gif") == read_file(t / "shift.gif"));
}

TEST_CASE("format rows: -o x.html and --format html write the page --html writes (encoder)") {
  TempDir t;
  const std::string base = "encoder --sentence 'I am a student' --layers 2";
  REQUIRE(run_tfx(base + " --html by_flag.html", t.path).code == 0);
  const Run ext = run_tfx(base + " -o by_ext.html", t.path);
  REQUIRE(ext.code == 0);
  const std::string page = read_file(t / "by_flag.html");
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(read_file(t / "by_ext.html") == page);
  CHECK(has(ext.out, "wrote by_ext.html"));
  // --format html without -o: the page on stdout, as --html -
  const Run out = run_tfx(base + " --format html", t.path);
  REQUIRE(out.code == 0);
  CHECK(out.out == page);
}

TEST_CASE("format rows: a command that cannot make gif or html says so in one line listing what it writes") {
  TempDir t;
  // the lists, spelled here from the example, not from the code
  check_one_line_error(run_tfx("pe sim --len 8 --dim 8 -o x.gif", t.path), 2,
                       "-o x.gif: pe sim cannot write gif; it writes table, csv, json, npy, md, png or svg");
  check_one_line_error(run_tfx("pe sim --len 8 --dim 8 --format html", t.path), 2,
                       "pe sim cannot write html; it writes table, csv, json, npy, md, png or svg");
  check_one_line_error(run_tfx("pe shift --offset 3 --dim 8 -o x.html", t.path), 2,
                       "pe shift cannot write html; it writes table, csv, json, npy, md, png, svg or gif");
  check_one_line_error(run_tfx("encoder --sentence 'I am' --format gif", t.path), 2,
                       "encoder cannot write gif; it writes table, csv, json, npy, md, png, svg or html");
  // an extension of another kind than --format, and two spellings of one output
  check_one_line_error(run_tfx("pe shift --offset 3 --dim 8 --format csv -o x.gif", t.path), 2, "does not match --format csv");
  check_one_line_error(run_tfx("pe shift --offset 3 --dim 8 --gif a.gif -o b.gif", t.path), 2, "both ask for the animation");
  check_one_line_error(run_tfx("encoder --sentence 'I am' --html a.html -o b.html", t.path), 2, "both ask for the page");
  CHECK(temporaries(t.path).empty());
  CHECK_FALSE(std::filesystem::exists(t / "x.gif"));
  CHECK_FALSE(std::filesystem::exists(t / "b.gif"));
}

TEST_CASE("format rows: --format's and -o's help name gif/html only where the command makes them") {
  const Run shift = run_tfx("pe shift --help");
  const Run sim = run_tfx("pe sim --help");
  const Run enc = run_tfx("encoder --help");
  REQUIRE(shift.code == 0);
  REQUIRE(sim.code == 0);
  REQUIRE(enc.code == 0);
  CHECK(has(shift.out, "gif: the animation"));
  CHECK(has(shift.out, ".gif = the animation"));
  CHECK_FALSE(has(sim.out, "gif"));
  CHECK_FALSE(has(sim.out, "html"));
  CHECK(has(enc.out, "html: the page"));
  // the unknown-extension error lists .gif where it works
  check_one_line_error(run_tfx("pe shift --offset 3 --dim 8 -o x.tsv"), 2, ".png or .svg (the figure), .gif (the animation)");
}
