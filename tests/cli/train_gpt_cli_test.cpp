// `tfx train gpt --text FILE -o DIR` (issue 46): the folder holds config.json with GPT2Config's keys
// and what tfx trained it on, model.safetensors in GPT2LMHeadModel's names, shapes and dtypes (read
// back here with an independent reader: the header's length and JSON, not tfx's), and tokenizer.json;
// `tfx model next DIR TEXT` and `model info` open it; the loss falls; -o refuses a folder that is not
// a model and replaces one it wrote; SIGINT mid-training leaves no folder.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "gif.hpp"
#include "helpers.hpp"

using namespace tfx::test;

namespace {

std::string tgc_corpus() {
  std::string s;
  const char* lines[] = {"the cat sat on the mat. ", "the dog sat on the log. ", "a cat and a dog. ", "고양이가 매트 위에 앉았다. "};
  for (int i = 0; i < 60; ++i) s += lines[i % 4];
  return s;
}

// The safetensors header of `file`, parsed here: 8 bytes little-endian length, then that much JSON.
nlohmann::json tgc_header(const std::filesystem::path& file) {
  const std::string bytes = read_file(file);
  REQUIRE(bytes.size() >= 8);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  REQUIRE(8 + n <= bytes.size());
  return nlohmann::json::parse(bytes.substr(8, n));
}

const char* kSmall = " --d-model 32 --layers 2 --heads 2 --context 16 --batch 4 --vocab-size 300 --threads 2";

}  // namespace

TEST_CASE("train gpt: a Hugging Face GPT-2 folder that the model commands open") {
  TempDir d;
  write_file(d / "corpus.txt", tgc_corpus());
  const Run r = run_tfx(std::string("train gpt --text corpus.txt -o gpt --steps 60 --every 30 --lr 1e-2 --warmup 5 --no-progress --format json") +
                            kSmall,
                        d.path);
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const auto j = json_of(r);
  CHECK(j["summary"]["final_loss"].get<double>() < 3.0);  // ln 300 = 5.7 at the start
  const auto cfg = nlohmann::json::parse(read_file(d / "gpt/config.json"));
  CHECK(cfg["model_type"] == "gpt2");
  CHECK(cfg["architectures"][0] == "GPT2LMHeadModel");
  CHECK(cfg["n_embd"] == 32);
  CHECK(cfg["n_layer"] == 2);
  CHECK(cfg["n_head"] == 2);
  CHECK(cfg["n_positions"] == 16);
  CHECK(cfg["vocab_size"] == 300);
  CHECK(cfg["activation_function"] == "gelu_new");
  CHECK(cfg["tfx_trained"]["corpus"] == "corpus.txt");
  CHECK(cfg["tfx_trained"]["steps"] == 60);
  CHECK(cfg["tfx_trained"]["final_train_loss"].get<double>() < 3.0);  // ln 300 = 5.7 at the start
  // GPT2LMHeadModel's state_dict: names, shapes (Conv1D (in, out)), F32; the tied head not stored
  const auto h = tgc_header(d / "gpt/model.safetensors");
  const std::vector<std::pair<std::string, std::vector<int>>> want = {
      {"transformer.wte.weight", {300, 32}},          {"transformer.wpe.weight", {16, 32}},
      {"transformer.h.0.ln_1.weight", {32}},          {"transformer.h.0.attn.c_attn.weight", {32, 96}},
      {"transformer.h.0.attn.c_attn.bias", {96}},     {"transformer.h.1.attn.c_proj.weight", {32, 32}},
      {"transformer.h.1.mlp.c_fc.weight", {32, 128}}, {"transformer.h.1.mlp.c_proj.weight", {128, 32}},
      {"transformer.ln_f.bias", {32}}};
  for (const auto& w : want) {
    INFO(w.first);
    REQUIRE(h.contains(w.first));
    CHECK(h[w.first]["dtype"] == "F32");
    CHECK(h[w.first]["shape"].get<std::vector<int>>() == w.second);
  }
  CHECK(h.size() == 2 + 2 * 12 + 2 + 1);  // + __metadata__
  CHECK(!h.contains("lm_head.weight"));
  CHECK(h["__metadata__"]["format"] == "pt");
  CHECK(nlohmann::json::parse(read_file(d / "gpt/tokenizer.json"))["model"]["type"] == "BPE");
  // the model commands open it; it learned the corpus's most common continuation
  const Run next = run_tfx("model next gpt \"the cat sat on the\" --format json", d.path);
  CAPTURE(next.err);
  REQUIRE(next.code == 0);
  CHECK(has(next.out, "mat"));
  CHECK(run_tfx("model info gpt", d.path).code == 0);
  // a second run replaces the folder it wrote; nothing is left beside it
  CHECK(run_tfx(std::string("train gpt --text corpus.txt -o gpt --steps 2 --no-progress") + kSmall, d.path).code == 0);
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) entries += e.path().filename() != "corpus.txt";
  CHECK(entries == 1);
}

TEST_CASE("train gpt: the progress lines show the loss, tokens/s and greedy samples") {
  TempDir d;
  write_file(d / "corpus.txt", tgc_corpus());
  const Run r = run_tfx(std::string("train gpt --text - -o g --steps 4 --every 2 --prompt \"the cat\"") + kSmall, d.path, "",
                        (d / "corpus.txt").string());
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.err, "step 2/4: loss "));
  CHECK(has(r.err, "tokens/s"));
  CHECK(has(r.err, "sample at step 0: the cat"));
  CHECK(has(r.err, "sample at step 4: the cat"));
  CHECK(has(r.err, "  at temperature 1: the cat"));
  CHECK(has(r.out, "<stdin>"));
  // the samples table: greedy and at temperature 1 for steps 0, 2, 4; the T = 1 draws come from the
  // same seed every time, so a second run writes the same samples
  const Run j = run_tfx(std::string("train gpt --text corpus.txt -o g2 --steps 4 --every 2 --prompt \"the cat\" --no-progress --format json") + kSmall,
                        d.path);
  REQUIRE(j.code == 0);
  const nlohmann::json out = nlohmann::json::parse(j.out);
  const nlohmann::json& table = out.at("tables").at("samples");
  REQUIRE(table.size() == 3);
  CHECK(table.at(2).at("step") == 4);
  // at step 0 the weights are random: the distribution is nearly flat, so a draw at T = 1 is not
  // the argmax every time
  CHECK(table.at(0).at("sample") != table.at(0).at("sample at temperature 1"));
  const Run j2 = run_tfx(std::string("train gpt --text corpus.txt -o g3 --steps 4 --every 2 --prompt \"the cat\" --no-progress --format json") + kSmall,
                         d.path);
  REQUIRE(j2.code == 0);
  CHECK(nlohmann::json::parse(j2.out).at("tables").at("samples") == table);
}

TEST_CASE("train gpt --gif: a frame per sample (steps 0, 2, 4), the model's attention changing; --frames keeps the first and last") {
  TempDir d;
  write_file(d / "corpus.txt", tgc_corpus());
  const Run r = run_tfx(std::string("train gpt --text corpus.txt -o g --steps 4 --every 2 --prompt \"the cat\" --no-progress --gif w.gif") +
                            kSmall,
                        d.path);
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.out + r.err, "wrote w.gif"));
  const GifDecoded g = decode_gif(read_file(d / "w.gif"));
  REQUIRE(g.frames.size() == 3);
  CHECK(g.frames.front() != g.frames.back());  // the weights changed: the sample or its attention
  CHECK(std::filesystem::exists(d / "g" / "model.safetensors"));
  const Run two = run_tfx(std::string("train gpt --text corpus.txt -o g2 --steps 4 --every 1 --no-progress --gif w2.gif --frames 2") + kSmall,
                          d.path);
  REQUIRE(two.code == 0);
  CHECK(decode_gif(read_file(d / "w2.gif")).frames.size() == 2);
  // the gif beside a folder of the same name is refused before training
  CHECK(run_tfx(std::string("train gpt --text corpus.txt -o g3 --steps 2 --no-progress --gif g") + kSmall, d.path).code != 0);
}

TEST_CASE("train gpt: SIGINT during training leaves no folder and no temporary") {
  TempDir d;
  write_file(d / "corpus.txt", tgc_corpus());
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(d.path.c_str()) != 0) _exit(99);
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(TFX_BINARY, TFX_BINARY, "train", "gpt", "--text", "corpus.txt", "-o", "gpt", "--steps", "100000", "--context", "16",
          "--d-model", "32", "--vocab-size", "300", "--threads", "1", static_cast<char*>(nullptr));
    _exit(98);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(d.path)) entries += e.path().filename() != "corpus.txt";
  CHECK(entries == 0);
}
