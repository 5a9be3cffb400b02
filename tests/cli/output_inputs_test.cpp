// Issue 36, output safety: -o/--png/--svg/--html onto any file a command reads — a checkpoint
// folder's weights, shard, index, config, tokenizer, vocabulary or merges given as the folder —
// is refused before anything is read, by any name that reaches it (a symlink, a hard link);
// a symlinked output is written through in place (docs/formats.md: the link stays, the file it
// names keeps its inode, as a shell's `>` leaves it, so a hard link sees the new bytes); `-o /dev/tty`
// does not get around the refusal to write binary output to a terminal.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "helpers.hpp"
#include "pty.hpp"
#include "xml_check.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

namespace {

// A checkpoint-shaped folder: every file a checkpoint holds, each with known bytes.
const char* const kCheckpointFiles[] = {"model.safetensors", "model-00001-of-00002.safetensors", "model.safetensors.index.json",
                                        "config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json",
                                        "merges.txt"};

void make_checkpoint(const fs::path& m) {
  fs::create_directories(m);
  for (const char* f : kCheckpointFiles) write_file(m / f, std::string("original ") + f);
}

}  // namespace

TEST_CASE("output safety: every file of a checkpoint folder is refused as -o, --png, --svg and --html of a command reading the folder") {
  TempDir t;
  make_checkpoint(t / "m");
  struct Cmd {
    const char* args;  // reads the folder m
    std::vector<const char*> flags;
  };
  const Cmd cmds[] = {{"model info m", {"-o"}},
                      {"model hidden m --ids 1,2", {"-o", "--png", "--svg"}},
                      {"model attention m --ids 1,2", {"-o", "--png", "--svg", "--html"}},
                      {"pe sim --model m", {"-o", "--png", "--svg"}},
                      {"rope freqs --config m", {"-o", "--png", "--svg"}}};
  int tried = 0;
  for (const Cmd& c : cmds)
    for (const char* flag : c.flags)
      for (const char* file : kCheckpointFiles) {
        const Run r = run_tfx(std::string(c.args) + " " + flag + " m/" + file, t.path);
        INFO("tfx " << c.args << " " << flag << " m/" << file << "\n" << r.err);
        if (has(r.err, "unknown flag")) continue;  // the command has no such output flag
        ++tried;
        CHECK(r.code == 2);
        // -o: the same-file refusal; a figure flag is refused already for the name's extension
        if (std::string(flag) == "-o") CHECK(has(r.err, std::string("m/") + file + " is also the input"));
        CHECK(read_file(t / "m" / file) == std::string("original ") + file);
      }
  CHECK(tried >= 60);
  // by another name: a symlink and a hard link to the folder's config.json
  fs::create_symlink(fs::absolute(t / "m" / "config.json"), t / "link.json");
  fs::create_hard_link(t / "m" / "config.json", t / "hard.json");
  for (const char* name : {"link.json", "hard.json", "./m/../m/config.json"}) {
    const Run r = run_tfx(std::string("model info m -o ") + name, t.path);
    INFO(name << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(has(r.err, "is also the input"));
  }
  CHECK(read_file(t / "m" / "config.json") == "original config.json");
  // a file beside the checkpoint's own is written as usual
  const Run ok = run_tfx("pe --len 2 --dim 2 -o m/notes.csv", t.path);
  CHECK(ok.code == 0);
  CHECK(fs::exists(t / "m" / "notes.csv"));
}

TEST_CASE("output safety: a symlinked output is written through in place as `>` does (link kept, same inode, hard links see it), also when dangling") {
  TempDir t;
  write_file(t / "target.csv", "old\n");
  fs::create_symlink("target.csv", t / "link.csv");
  fs::create_hard_link(t / "target.csv", t / "hard.csv");
  const auto inode = [](const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? st.st_ino : ino_t{0};
  };
  const ino_t before = inode(t / "target.csv");
  const Run r = run_tfx("pe --len 2 --dim 2 -o link.csv", t.path);
  REQUIRE(r.code == 0);
  CHECK(inode(t / "target.csv") == before);  // written in place, not replaced
  CHECK(fs::is_symlink(t / "link.csv"));
  const std::string written = read_file(t / "target.csv");
  CHECK(written.rfind("pos,", 0) == 0);  // pe's CSV header
  CHECK(read_file(t / "link.csv") == written);
  CHECK(read_file(t / "hard.csv") == written);  // one inode, as a shell's `>` leaves it
  // a dangling link: the file it names is created, the link stays
  fs::create_symlink("new.csv", t / "dangling.csv");
  const Run d = run_tfx("pe --len 2 --dim 2 -o dangling.csv", t.path);
  REQUIRE(d.code == 0);
  CHECK(fs::is_symlink(t / "dangling.csv"));
  CHECK(read_file(t / "new.csv") == written);
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("output safety: -o /dev/tty is refused for binary output like -o - on a terminal, text still goes there") {
  const PtyRun npy = run_in_pty({"pe", "--len", "2", "--dim", "2", "--format", "npy", "-o", "/dev/tty"}, 80, 24, {}, false, true);
  if (!npy.ok) {
    std::cout << "TFX-SKIP: no pseudo-terminal\n";
    return;
  }
  CHECK(npy.code == 2);
  CHECK(has(npy.err, "-o /dev/tty: refusing to write binary output to a terminal"));
  CHECK(!has(npy.screen, "NUMPY"));  // no .npy bytes reached the terminal
  const PtyRun png = run_in_pty({"pe", "--len", "2", "--dim", "2", "--png", "/dev/tty"}, 80, 24, {}, false, true);
  CHECK(png.code == 2);
  CHECK(has(png.err, "refusing to write binary output to a terminal"));
  const PtyRun csv = run_in_pty({"pe", "--len", "2", "--dim", "2", "--format", "csv", "-o", "/dev/tty"}, 80, 24, {}, false, true);
  CHECK(csv.code == 0);
  CHECK(has(csv.screen, "pos,"));
}

TEST_CASE("output safety: --svg with a title and labels that are not UTF-8 (Latin-1, cut sequences, controls) is well-formed XML") {
  TempDir t;
  // Latin-1 é, a lone continuation byte, a cut 3-byte sequence, a C0 control, markup, U+FFFE
  const std::string title = "caf\xe9 \x80 \xe4\xb8 \x01 <b>&\"x\" \xef\xbf\xbe end";
  const Run r = run_tfx("pe --len 3 --dim 4 --svg t.svg --title " + shell_quote(title), t.path);
  REQUIRE(r.code == 0);
  const std::string doc = read_file(t / "t.svg");
  std::vector<XmlElement> elements;
  CHECK_NOTHROW(elements = parse_xml(doc));
  // every byte sequence of the document is valid UTF-8 (XML 1.0 documents are, by default)
  std::size_t bad = 0;
  for (std::size_t i = 0; i < doc.size();) {
    const unsigned char c = static_cast<unsigned char>(doc[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > doc.size()) {
      ++bad, ++i;
      continue;
    }
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(doc[i + k]) & 0xC0) != 0x80) ++bad;
    i += n;
  }
  CHECK(bad == 0);
  CHECK(doc.find('\x01') == std::string::npos);
  CHECK(doc.find("\xef\xbf\xbe") == std::string::npos);
  // the readable parts of the title survive, the bad bytes as U+FFFD
  bool found = false;
  for (const XmlElement& e : elements)
    if (has(e.text, "caf\xef\xbf\xbd") && has(e.text, "<b>&\"x\"") && has(e.text, "end")) found = true;
  CHECK(found);
}

TEST_CASE("signals: a file-size limit (SIGXFSZ) during -o kills tfx by that signal and leaves no temporary") {
  TempDir t;
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(t.path.c_str()) != 0) _exit(126);
    rlimit fsize{1 << 20, 1 << 20};  // 1 MiB; the .npy is 36 MB
    setrlimit(RLIMIT_FSIZE, &fsize);
    signal(SIGXFSZ, SIG_DFL);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    execl(TFX_BINARY, "tfx", "pe", "--len", "3000", "--dim", "3000", "-o", "big.npy", nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGXFSZ);
  CHECK(temporaries(t.path).empty());
  CHECK(!fs::exists(t / "big.npy"));
}

TEST_CASE("signals: SIGQUIT, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2 and SIGPIPE during a first cache load remove the temporary") {
  TempDir t;
  {  // a 60,000 × 100 GloVe file: its first load takes long enough to be interrupted
    std::string text;
    text.reserve(60000 * 700);
    for (int w = 0; w < 60000; ++w) {
      text += "w" + std::to_string(w);
      for (int j = 0; j < 100; ++j) text += j % 2 ? " 0.123456" : " -0.654321";
      text += '\n';
    }
    write_file(t / "big.txt", text);
  }
  const fs::path cache = t / "cache";
  int interrupted = 0;
  for (int sig : {SIGQUIT, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2, SIGPIPE}) {
    CAPTURE(sig);
    fs::remove_all(cache);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      rlimit core{0, 0};  // SIGQUIT and SIGXCPU dump core by default: not here
      setrlimit(RLIMIT_CORE, &core);
      setenv("XDG_CACHE_HOME", cache.c_str(), 1);
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      execl(TFX_BINARY, "tfx", "similar", "w7", "--embeddings", (t / "big.txt").c_str(), nullptr);
      _exit(127);
    }
    bool seen = false;
    for (int i = 0; i < 20000 && !seen; ++i) {
      seen = !temporaries(cache).empty();
      if (!seen) usleep(100);
    }
    if (seen) kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    if (seen && WIFSIGNALED(status)) {
      ++interrupted;
      CHECK(WTERMSIG(status) == sig);
      CHECK(temporaries(cache).empty());
    }
  }
  MESSAGE(interrupted << " of 6 loads interrupted by their signal");
  CHECK(interrupted >= 1);
}

TEST_CASE("output safety: a command that fails after one of its outputs is written replaces none of them, and says it wrote none") {
  // every file a command writes waits in its temporary until the command has succeeded, then all
  // are renamed (OutputBatch): before, -o was replaced and then --html failed, or --png was
  // replaced and then -o failed, and quantize wrote its GGUF before refusing --tensor
  TempDir t;
  const std::string m = std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/llama";
  const auto old_files = [&] {
    for (const char* f : {"ex.txt", "good.png", "q.gguf"}) write_file(t / f, "OLD");
  };
  const auto leftovers = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(t.path))
      if (e.path().filename().string().starts_with(".tfx-")) names.push_back(e.path().filename().string());
    return names;
  };
  struct Case {
    const char* args;
    const char* refused;  // the flag the error names
  };
  for (const Case c : {Case{"model generate M hi -n 2 -o ex.txt --html nodir/x.html", "--html nodir/x.html"},
                       Case{"model generate M hi -n 2 -o nodir/x.txt --png good.png", "-o nodir/x.txt"},
                       Case{"model generate M hi -n 2 --svg nodir/x.svg --png good.png -o ex.txt", "--svg nodir/x.svg"},
                       Case{"model quantize M --type q8_0 --fallback f32 -o q.gguf --tensor nosuch", "--tensor nosuch"},
                       Case{"model quantize M --type q8_0 --fallback f32 -o q.gguf --png nodir/x.png", "--png nodir/x.png"}}) {
    CAPTURE(c.args);
    old_files();
    std::string args = c.args;
    args.replace(args.find(" M "), 3, " " + shell_quote(m) + " ");
    const Run r = run_tfx(args, t.path);
    CHECK(r.code != 0);
    CHECK(has(r.err, c.refused));
    for (const char* f : {"ex.txt", "good.png", "q.gguf"}) CHECK(read_file(t / f) == "OLD");
    CHECK(!has(r.out + r.err, "wrote"));
    CHECK(leftovers().empty());
  }
  // the same commands with every output writable write them all, and say so
  old_files();
  const Run ok = run_tfx("model generate " + shell_quote(m) + " hi -n 2 -o ex.txt --png good.png", t.path);
  REQUIRE(ok.code == 0);
  CHECK(read_file(t / "good.png").starts_with("\x89PNG"));
  CHECK(has(read_file(t / "ex.txt"), "llama"));
  CHECK(has(ok.out + ok.err, "wrote good.png"));
  const Run q = run_tfx("model quantize " + shell_quote(m) + " --type q8_0 --fallback f32 -o q.gguf", t.path);
  REQUIRE(q.code == 0);
  CHECK(read_file(t / "q.gguf").starts_with("GGUF"));
  CHECK(leftovers().empty());
}
