// `tfx model attention --sink / --neurons`, `tfx model info --cache`, `tfx model generate --cache /
// --html / --png` end to end on the tiny checkpoints of tests/data/hf_models, against independent
// references: the attentions PyTorch's Hugging Face model wrote into reference.safetensors (the sink
// shares, the neuron view's softmax), the config's numbers (the KV cache formula), the measured cache.
#include <nlohmann/json.hpp>

#include <cmath>

#include "helpers.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;

namespace {

std::string vdir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

struct Reference {
  std::string ids;         // "1,2,3" for --ids
  tfx::Tensor attentions;  // (L, H, T, T)
  std::size_t T = 0;
};

Reference reference_of(const std::string& name) {
  const tfx::TensorMap ref = tfx::read_safetensors(vdir(name) + "/reference.safetensors");
  Reference r;
  for (float v : ref.at("input_ids").values()) r.ids += (r.ids.empty() ? "" : ",") + std::to_string(static_cast<long long>(v));
  r.attentions = ref.at("attentions");
  r.T = ref.at("input_ids").size();
  return r;
}

}  // namespace

TEST_CASE("model attention --sink: each layer × head's mean weight on position 0 equals PyTorch's attentions, with and without it") {
  for (const char* name : {"gpt2", "qwen2", "bert"}) {
    CAPTURE(name);
    const Reference ref = reference_of(name);
    const Run r = run_tfx("model attention " + shell_quote(vdir(name)) + " --ids " + ref.ids + " --sink --format json");
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json j = json_of(r);
    const auto& data = j["data"];
    const std::size_t L = data.size(), H = data[0].size(), T = ref.T;
    REQUIRE(ref.attentions.size() == L * H * T * T);
    double maxdiff = 0;
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t h = 0; h < H; ++h) {
        double sum = 0;
        for (std::size_t i = 0; i < T; ++i) sum += ref.attentions[((l * H + h) * T + i) * T];
        maxdiff = std::max(maxdiff, std::fabs(sum / static_cast<double>(T) - data[l][h].get<double>()));
      }
    CAPTURE(maxdiff);
    CHECK(maxdiff <= 1e-5);
    CHECK(j["matrices"]["sink_without_first"]["shape"] == nlohmann::json({L, H}));
  }
  // a one-token input: one line naming --sink
  const Run one = run_tfx("model attention " + shell_quote(vdir("gpt2")) + " --ids 5 --sink");
  check_one_line_error(one, 2, "--sink: the input has 1 token");
}

TEST_CASE("model attention --neurons: Σ q∘k / √d_k is the score, its softmax PyTorch's attention row, on decoders and BERT") {
  for (const char* name : {"llama", "qwen3", "bert"}) {
    CAPTURE(name);
    const Reference ref = reference_of(name);
    const std::size_t T = ref.T, q = T - 2, layer = 1, head = 1;
    const Run r = run_tfx("model attention " + shell_quote(vdir(name)) + " --ids " + ref.ids + " --layer 1 --head 1 --query " +
                          std::to_string(q) + " --neurons --format json");
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json j = json_of(r);
    const auto& rows = j["data"];
    const std::size_t H = ref.attentions.size() / (2 * T * T);  // the tiny checkpoints have 2 layers
    const bool causal = std::string(name) != "bert";
    REQUIRE(rows.size() == (causal ? q + 1 : T));
    const std::size_t hd = j["matrices"]["q"]["shape"][1].get<std::size_t>();
    double score_diff = 0, weight_diff = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto& row = rows[k];
      score_diff = std::max(score_diff, std::fabs(row["sum(q*k)"].get<double>() / std::sqrt(static_cast<double>(hd)) -
                                                  row["score = sum/sqrt(d_k)"].get<double>()));
      weight_diff = std::max(weight_diff, std::fabs(row["softmax"].get<double>() - ref.attentions[((layer * H + head) * T + q) * T + k]));
    }
    CAPTURE(score_diff);
    CAPTURE(weight_diff);
    CHECK(score_diff <= 1e-5);
    CHECK(weight_diff <= 1e-5);
    // the q∘k matrix's rows sum to the scores' sums
    const auto& qk = j["matrices"]["qk"]["data"];
    for (std::size_t k = 0; k < rows.size(); ++k) {
      double s = 0;
      for (const auto& v : qk[k]) s += v.get<double>();
      CHECK(std::fabs(s - rows[k]["sum(q*k)"].get<double>()) <= 1e-4);
    }
  }
  const std::string gpt2 = "model attention " + shell_quote(vdir("gpt2")) + " 'the cat' ";
  check_one_line_error(run_tfx(gpt2 + "--layer 0 --head 0 --query 9 --neurons"), 2, "--query 9: the input has 3 tokens (0 … 2)");
  check_one_line_error(run_tfx(gpt2 + "--neurons"), 2, "--neurons shows one query of one head");
  check_one_line_error(run_tfx(gpt2 + "--layer 0 --head 4 --query 0 --neurons"), 2, "--head 4: the model has 4 heads (0 … 3)");
  check_one_line_error(run_tfx(gpt2 + "--layer 2 --head 0 --query 0 --neurons"), 2, "--layer 2: the model has 2 layers (0 … 1)");
}

TEST_CASE("model info --cache: 2 × layers × kv_heads × head_dim × bytes per token, F32/BF16, GQA and MHA, at --len") {
  // llama's tiny config: 2 layers, 4 heads, 2 KV heads, head_dim 8, 32 positions
  const Run r = run_tfx("model info " + shell_quote(vdir("llama")) + " --cache --len 1024 --format json");
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  const nlohmann::json j = json_of(r);
  const auto& rows = j["data"];
  REQUIRE(rows.size() == 4);
  CHECK(rows[0]["dtype"] == "F32");
  CHECK(rows[0]["bytes per token"] == 2 * 2 * 2 * 8 * 4);
  CHECK(rows[0]["bytes per token per layer"] == 2 * 2 * 8 * 4);
  CHECK(rows[1]["bytes per token"] == 2 * 2 * 2 * 8 * 2);
  CHECK(rows[2]["kv_heads"] == 4);
  CHECK(rows[2]["bytes per token"] == 2 * 2 * 4 * 8 * 4);
  CHECK(rows[0]["at 32 positions"] == "8.0 KiB");                 // 256 × 32
  CHECK(rows[0]["at 1024 positions (--len)"] == "256.0 KiB");      // 256 × 1024
  // GPT-2 is multi-head already: two rows; its learned positions end at 16
  CHECK(json_of(run_tfx("model info " + shell_quote(vdir("gpt2")) + " --cache --format json"))["data"].size() == 2);
  check_one_line_error(run_tfx("model info " + shell_quote(vdir("gpt2")) + " --cache --len 17"), 2, "learned positions end at 16");
  check_one_line_error(run_tfx("model info " + shell_quote(vdir("gpt2")) + " --cache --len 0"), 2, "--len");
  check_one_line_error(run_tfx("model info " + shell_quote(vdir("bert")) + " --cache"), 2, "it keeps no KV cache");
}

TEST_CASE("model generate --cache: the cache held at the end, measured, equals the formula; --html and --png show its attention") {
  for (const char* name : {"gpt2", "mistral"}) {
    CAPTURE(name);
    const Run r = run_tfx("model generate " + shell_quote(vdir(name)) + " 'the cat' -n 3 --cache --format json");
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    const nlohmann::json j = json_of(r);
    bool said = false;
    for (const auto& n : j["notes"]) said = said || has(n.get<std::string>(), "measured = formula");
    CHECK(said);
    CHECK(j["tables"].contains("kv_cache"));
  }
  TempDir d;
  const Run h = run_tfx("model generate " + shell_quote(vdir("qwen2")) + " 'the cat' -n 3 --html g.html --png g.png", d.path);
  CAPTURE(h.err);
  REQUIRE(h.code == 0);
  CHECK(read_file(d.path / "g.png").rfind("\x89PNG", 0) == 0);
  CHECK(has(read_file(d.path / "g.html"), "attention while generating"));
  const Run ko = run_tfx("model generate " + shell_quote(vdir("qwen2")) + " 'the cat' -n 3 --html k.html --lang ko", d.path);
  CHECK(ko.code == 0);
  CHECK(has(read_file(d.path / "k.html"), "생성 중의 어텐션"));
}
