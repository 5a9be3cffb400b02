// Files a careless or hostile run must not damage, and budgets it must keep (issue 49): a model
// and its vocabulary are replaced together or not at all (a save cut by a file-size limit after the
// vocabulary changes neither; a vocabulary from another save beside the weights is refused at
// load), trace --slides never writes through a link in its folder, training too big for the
// memory budget is refused before anything is allocated, and a checkpoint of 75 shards truncated
// while generating is the one error line, not SIGBUS.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "helpers.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> hf_temporaries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (has(e.path().filename().string(), ".tmp")) out.push_back(e.path().filename().string());
  return out;
}

// `sh -c 'cd DIR && SCRIPT'` with tfx as "$TFX"; the exit status as the shell reports it.
int hf_shell(const fs::path& dir, const std::string& script) {
  const std::string cmd = "cd " + shell_quote(dir.string()) + " && TFX=" + shell_quote(TFX_BINARY) + " sh -c " +
                          shell_quote(script) + " >/dev/null 2>&1 </dev/null";
  return std::system(cmd.c_str());
}

const char* kTinyTrain = "--steps 1 --d-model 32 --heads 2 --layers 1 --ffn 32 --no-progress";

}  // namespace

TEST_CASE("train -o: a save cut by a file-size limit leaves the old model and vocabulary; a mixed pair is refused at load") {
  TempDir t;
  REQUIRE(run_tfx(std::string("train ") + kTinyTrain + " -o m.safetensors", t.path).code == 0);
  const std::string old_weights = read_file(t / "m.safetensors"), old_vocab = read_file(t / "m.vocab.txt");
  REQUIRE(old_weights.size() > 16384);  // far above the limit below; the new vocabulary is far under it
  // other pairs: another vocabulary (small), weights of about the same size
  write_file(t / "p.tsv", "a b\tc d\ne f\tg h\ni j\tk l\nm n\to p\n");
  // 1. ulimit -f 8: 4 KiB (dash's 512-byte blocks) or 8 KiB: the vocabulary fits, the weights do not
  hf_shell(t.path, std::string("ulimit -f 8 && exec \"$TFX\" train --pairs p.tsv ") + kTinyTrain + " -o m.safetensors");
  CHECK(read_file(t / "m.vocab.txt") == old_vocab);
  CHECK(read_file(t / "m.safetensors") == old_weights);
  CHECK(hf_temporaries(t.path).empty());
  CHECK(run_tfx("translate '나는 학생 이다' --model m.safetensors", t.path).code == 0);
  // 2. the weights name their vocabulary: another save's vocabulary beside them is refused
  REQUIRE(run_tfx(std::string("train --pairs p.tsv ") + kTinyTrain + " -o n.safetensors", t.path).code == 0);
  fs::copy_file(t / "n.vocab.txt", t / "m.vocab.txt", fs::copy_options::overwrite_existing);
  const Run mixed = run_tfx("translate '나는 학생 이다' --model m.safetensors", t.path);
  check_one_line_error(mixed, 1, "--model m.safetensors: its vocabulary m.vocab.txt is not the one saved with these weights");
  const Run traced = run_tfx("trace '나는 학생 이다' --model m.safetensors", t.path);
  check_one_line_error(traced, 1, "is not the one saved with these weights");
}

TEST_CASE("train/translate/trace: an output that is an input or a model's companion file is refused before anything runs") {
  TempDir t;
  write_file(t / "m.safetensors", "weights");
  write_file(t / "m.vocab.txt", "vocabulary\n");
  write_file(t / "p.tsv", "a\tb\n");
  const auto unchanged = [&] {
    CHECK(read_file(t / "m.safetensors") == "weights");
    CHECK(read_file(t / "m.vocab.txt") == "vocabulary\n");
  };
  check_one_line_error(run_tfx("train --pairs m.vocab.txt -o m.safetensors", t.path), 2,
                       "-o m.safetensors (which writes m.vocab.txt beside it) is also the input --pairs m.vocab.txt");
  check_one_line_error(run_tfx("train --pairs m.safetensors -o m.safetensors", t.path), 2,
                       "-o m.safetensors is also the input --pairs m.safetensors");
  check_one_line_error(run_tfx("translate '나는' --model m.safetensors -o m.vocab.txt", t.path), 2,
                       "-o m.vocab.txt is also the input --model m.vocab.txt (read with m.safetensors)");
  check_one_line_error(run_tfx("trace '나는' --model m.safetensors -o m.vocab.txt", t.path), 2,
                       "is also the input --model m.vocab.txt (read with m.safetensors)");
  // the same file by another name: a hard link, a symbolic link
  fs::create_hard_link(t / "m.vocab.txt", t / "hard.txt");
  fs::create_symlink("m.vocab.txt", t / "soft.txt");
  check_one_line_error(run_tfx("translate '나는' --model m.safetensors -o hard.txt", t.path), 2, "is also the input --model");
  check_one_line_error(run_tfx("translate '나는' --model m.safetensors -o soft.txt", t.path), 2, "is also the input --model");
  unchanged();
}

TEST_CASE("trace --slides: a symbolic link in the folder is refused, the file it names untouched, nothing written") {
  TempDir t;
  fs::create_directory(t / "deck");
  write_file(t / "notes.txt", "my notes\n");
  fs::create_symlink("../notes.txt", t / "deck" / "05-q.png");
  const Run r = run_tfx("trace '나는 학생 이다' --slides deck", t.path);
  check_one_line_error(r, 1, "--slides deck: deck/05-q.png is a symbolic link (to ../notes.txt)");
  CHECK(read_file(t / "notes.txt") == "my notes\n");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(t / "deck")) names.push_back(e.path().filename().string());
  CHECK(names == std::vector<std::string>{"05-q.png"});
  CHECK(fs::is_symlink(t / "deck" / "05-q.png"));
}

TEST_CASE("train: the memory budget sees the model, Adam's state, the activations and the vocabulary before allocating") {
  TempDir t;
  const auto start = std::chrono::steady_clock::now();
  const Run r = run_tfx("train --d-model 1024 --ffn 8192 --layers 12 --batch 4096 --no-progress", t.path, "TFX_MEMORY_LIMIT=512M");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  check_one_line_error(r, 1, "training (--d-model 1024, --ffn 8192, --layers 12, --batch 4096");
  CHECK(has(r.err, "over the memory budget of 512.0 MiB"));
  CHECK(seconds < 10);  // refused at once, not after growing to gigabytes
  // the parameters alone: 12 + 12 layers of 1024 × 8192 FFNs with Adam's moments are ~8 GiB,
  // whatever the batch: refused with --batch 1 too
  check_one_line_error(run_tfx("train --d-model 1024 --ffn 8192 --layers 12 --batch 1 --no-progress", t.path, "TFX_MEMORY_LIMIT=2G"),
                       1, "over the memory budget of 2.0 GiB");
  // a pairs file of 120,000 distinct words: a vocabulary whose embedding, output layer and Adam
  // state (8 × 120,000 × 64 floats) and logits pass 64 MiB
  {
    std::ofstream f(t / "big.tsv");
    for (int i = 0; i < 30000; ++i) f << "s" << 2 * i << " s" << 2 * i + 1 << "\tt" << 2 * i << " t" << 2 * i + 1 << "\n";
  }
  const Run big = run_tfx("train --pairs big.tsv --no-progress", t.path, "TFX_MEMORY_LIMIT=64M");
  check_one_line_error(big, 1, "over the memory budget of 64.0 MiB");
  CHECK(has(big.err, "120004 tokens in the vocabulary"));
  // a pairs file whose words alone would pass the budget is refused before it is read
  const auto size = fs::file_size(t / "big.tsv");
  check_one_line_error(run_tfx("train --pairs big.tsv --no-progress", t.path, "TFX_MEMORY_LIMIT=4M"), 1,
                       "--pairs big.tsv (" + std::to_string(size) + " bytes, held as words, ids and a vocabulary) needs about");
}

namespace {

// A tiny GPT-2 of 6 layers and 2048 positions (the test checkpoint's layers repeated, its position
// table tiled) in 75 shards, the last holding one matrix every generated token reads
// (h.5.mlp.c_fc.weight). Returns that shard's path.
fs::path write_75_shards(const fs::path& dir) {
  const fs::path src = fs::path(TFX_SOURCE_DIR) / "tests" / "data" / "hf_models" / "gpt2";
  fs::create_directories(dir);
  const tfx::TensorMap base = tfx::read_safetensors((src / "model.safetensors").string());
  tfx::TensorMap m;
  for (const auto& [name, t] : base) {
    const std::string layer = "transformer.h.";
    if (name.rfind(layer, 0) == 0) {
      const std::size_t dot = name.find('.', layer.size());
      const int i = std::stoi(name.substr(layer.size(), dot - layer.size()));
      for (int copy = i; copy < 6; copy += 2) m.emplace(layer + std::to_string(copy) + name.substr(dot), t);
    } else if (name == "transformer.wpe.weight") {
      tfx::Tensor wpe({2048, t.dim(1)});
      for (std::size_t p = 0; p < 2048; ++p)
        std::copy(t.data() + (p % t.dim(0)) * t.dim(1), t.data() + (p % t.dim(0) + 1) * t.dim(1), wpe.data() + p * t.dim(1));
      m.emplace(name, std::move(wpe));
    } else {
      m.emplace(name, t);
    }
  }
  const std::string last = "transformer.h.5.mlp.c_fc.weight";
  REQUIRE(m.count(last));
  std::vector<std::string> names;
  for (const auto& [name, t] : m)
    if (name != last) names.push_back(name);
  REQUIRE(names.size() >= 74);
  const auto shard_name = [](int k) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "model-%05d-of-00075.safetensors", k);
    return std::string(buf);
  };
  nlohmann::json index = {{"metadata", nlohmann::json::object()}, {"weight_map", nlohmann::json::object()}};
  std::vector<tfx::TensorMap> shards(75);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const int k = static_cast<int>(std::min<std::size_t>(i, 73));
    shards[k].emplace(names[i], m.at(names[i]));
    index["weight_map"][names[i]] = shard_name(k + 1);
  }
  shards[74].emplace(last, m.at(last));
  index["weight_map"][last] = shard_name(75);
  for (int k = 0; k < 75; ++k) write_file(dir / shard_name(k + 1), tfx::encode_safetensors(shards[k]));
  write_file(dir / "model.safetensors.index.json", index.dump(1));
  nlohmann::json config = nlohmann::json::parse(read_file(src / "config.json"));
  config["n_layer"] = 6;
  config["n_positions"] = 2048;
  write_file(dir / "config.json", config.dump(1));
  for (const char* f : {"vocab.json", "merges.txt"}) fs::copy_file(src / f, dir / f);
  return dir / shard_name(75);
}

bool hf_maps(pid_t pid, const std::string& file) {
  return has(read_file("/proc/" + std::to_string(pid) + "/maps"), file);
}

}  // namespace

TEST_CASE("model generate: a 75-shard checkpoint whose 75th shard is truncated while generating is one error line, not SIGBUS") {
  TempDir t;
  const fs::path shard = write_75_shards(t / "m");
  // the intact checkpoint generates
  REQUIRE(run_tfx("model generate m 'the cat' -n 3 --format csv", t.path).code == 0);
  int cut = 0;
  for (int attempt = 0; attempt < 5 && cut == 0; ++attempt) {
    const std::string keep = read_file(shard);
    const fs::path err = t / "err.txt";
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      if (!freopen(err.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout) || chdir(t.path.c_str()) != 0) _exit(125);
      execl(TFX_BINARY, "tfx", "model", "generate", "m", "the cat", "-n", "2000", "--format", "csv", static_cast<char*>(nullptr));
      _exit(127);
    }
    bool mapped = false;
    for (int i = 0; i < 200000 && !mapped; ++i) {
      mapped = hf_maps(pid, shard.filename().string());
      if (!mapped) {
        if (waitpid(pid, nullptr, WNOHANG) == pid) break;  // (cannot happen before the shard is mapped)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
    if (mapped) fs::resize_file(shard, 0);
    int status = 0;
    waitpid(pid, &status, 0);
    write_file(shard, keep);
    if (!mapped || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) continue;  // finished first: again
    ++cut;
    const std::string e = read_file(err);
    CAPTURE(e);
    REQUIRE_FALSE(WIFSIGNALED(status));  // was SIGBUS (the guard watched 32 mappings)
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(e == "tfx: error: " + (fs::path("m") / shard.filename()).string() +
                   ": the file changed while reading (truncated by another program?); nothing was written\n");
  }
  MESSAGE(cut << " run(s) cut while generating");
}

namespace {

// `bytes` of Korean text: syllables (3 bytes each) in words of 1–4, separated by spaces.
std::string korean_text(std::size_t bytes) {
  std::string s;
  unsigned x = 7;
  while (s.size() + 4 < bytes) {
    x = x * 1103515245u + 12345u;
    const char32_t c = 0xAC00 + (x >> 16) % 11172;
    s += static_cast<char>(0xE0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (c & 0x3F));
    if ((x >> 8) % 3 == 0) s += ' ';
  }
  return s;
}

// The data lines of a csv (all but the header).
std::size_t rows_in(const std::string& csv) { return static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) - 1; }

std::string hf_gpt2() { return (fs::path(TFX_SOURCE_DIR) / "tests" / "data" / "hf_models" / "gpt2").string(); }

}  // namespace

TEST_CASE("model tokenize --file: offsets in linear time, a true memory estimate per format, out of memory is one line") {
  TempDir t;
  const std::string text = korean_text(256 * 1024);
  write_file(t / "ko.txt", text);
  // 1. 256 KB of Korean through a byte-level BPE (about a token per byte; pieces of one syllable
  //    share its offsets): the csv's character offsets are the code points before each byte offset
  const auto start = std::chrono::steady_clock::now();
  const Run r = run_tfx("model tokenize " + hf_gpt2() + " --file ko.txt --format csv", t.path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r.code == 0);
  CHECK(seconds < (kSanitizerBuild ? 60 : 10));  // was 20 s in Release: every offset counted from byte 0
  std::vector<std::size_t> chars_before(text.size() + 1, 0);
  for (std::size_t i = 0; i < text.size(); ++i)
    chars_before[i + 1] = chars_before[i] + ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  REQUIRE(has(line, "start,end,byte start,byte end"));
  std::size_t rows = 0, checked = 0;
  while (std::getline(lines, line)) {
    ++rows;
    // the last four cells: start, end, byte start, byte end
    std::vector<std::string> cells;
    for (std::size_t k = 0, at = line.size(); k < 4; ++k) {
      const std::size_t comma = line.rfind(',', at - 1);
      cells.insert(cells.begin(), line.substr(comma + 1, at - comma - 1));
      at = comma;
    }
    const std::size_t c0 = std::stoul(cells[0]), c1 = std::stoul(cells[1]), b0 = std::stoul(cells[2]), b1 = std::stoul(cells[3]);
    REQUIRE(b1 <= text.size());
    CHECK(c0 == chars_before[b0]);
    CHECK(c1 == chars_before[b1]);
    checked += 2;
    if (checked > 4000) break;  // a sample is enough for the values; the time is the whole file's
  }
  CHECK(rows > 1000);
  // 2. the estimate is the format's. csv and json are written as their rows are made (the text
  //    and its encodings held, ~170 bytes per byte here): 256 KB as json fits 256 MB — it took
  //    ~700 MB (2.6 KB per byte) as one JSON document — and its rows are the csv's; json with
  //    --stats is still one document, and csv is refused under 32 MB
  const Run json = run_tfx("model tokenize " + hf_gpt2() + " --file ko.txt --format json", t.path, "TFX_MEMORY_LIMIT=256M");
  REQUIRE(json.code == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc.at("data").size() == rows_in(r.out));
  CHECK(doc.at("summary").at("ids").size() == doc.at("data").size());
  CHECK(doc.at("summary").at("offsets").back() == nlohmann::json::array({doc.at("data").back().at("start"), doc.at("data").back().at("end")}));
  check_one_line_error(run_tfx("model tokenize " + hf_gpt2() + " --file ko.txt --format json --stats", t.path, "TFX_MEMORY_LIMIT=256M"), 1,
                       "--file ko.txt (" + std::to_string(text.size()) + " bytes) tokenized as json (a row per token) needs about");
  check_one_line_error(run_tfx("model tokenize " + hf_gpt2() + " --file ko.txt --format csv", t.path, "TFX_MEMORY_LIMIT=32M"), 1,
                       "tokenized as csv");
  // 3. an allocation that fails anyway (an address-space limit below what the budget allows) is
  //    the one error line, never "terminate called after throwing an instance of 'std::bad_alloc'"
  if (!kSanitizerBuild) {
    const fs::path err = t / "err.txt";
    const std::string cmd = "cd " + shell_quote(t.path.string()) + " && ulimit -v 400000 && TFX_MEMORY_LIMIT=100G exec " +
                            shell_quote(TFX_BINARY) + " model tokenize " + hf_gpt2() + " --file ko.txt --format json --stats >/dev/null 2>" +
                            shell_quote(err.string());
    const int status = std::system(cmd.c_str());
    const std::string e = read_file(err);
    CAPTURE(e);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(e == "tfx: error: out of memory; try smaller values (or set TFX_MEMORY_LIMIT to be told sooner)\n");
  }
}
