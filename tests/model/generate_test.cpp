// Generation with a KV cache (generate.hpp) against the whole-prefix forward of
// tests/reference/gen_generation_reference.py: torch after HF's modeling code, re-run on the
// prompt plus everything generated so far at every step, no cache. For gpt2 (F32 and BF16
// weights), llama (grouped-query attention), llama with llama3 RoPE scaling and qwen2 (q/k/v
// biases), and gemma, gemma2, gemma3 (tests/reference/gen_gemma_reference.py's numpy: sliding
// windows that cut cached keys off, soft caps), tfx's cached decoder must choose the same greedy
// tokens, its logits within 1e-4 of the reference's at every step. Also: the cache against tfx's own whole-prefix forward, and the
// refusals (positions, an empty prompt, -n 0, a full cache).
#include <cmath>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "tfx/core/error.hpp"
#include "tfx/model/checkpoint.hpp"
#include "tfx/model/generate.hpp"
#include "tfx/model/mapped_weights.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx;

namespace {

std::string gen_model_dir(const std::string& name) { return std::string(TFX_SOURCE_DIR) + "/tests/data/hf_models/" + name; }

// A tiny checkpoint as generate uses it: its weights mapped as stored.
struct GenModel {
  Checkpoint m;
  explicit GenModel(const std::string& name) : m(load_checkpoint(gen_model_dir(name))) {}
};

std::vector<std::size_t> gen_ids(const Tensor& t) {
  std::vector<std::size_t> ids;
  for (float v : t.values()) ids.push_back(static_cast<std::size_t>(v));
  return ids;
}

}  // namespace

TEST_CASE("generate: greedy tokens and every step's logits match the reference's whole-prefix forward") {
  for (const std::string name : {"gpt2", "gpt2_bf16", "llama", "llama_llama3", "qwen2", "gemma", "gemma2", "gemma3"}) {
    CAPTURE(name);
    const GenModel m(name);
    const TensorMap ref = read_safetensors(gen_model_dir(name) + "/generation.safetensors");
    const std::vector<std::size_t> prompt = gen_ids(ref.at("prompt")), want = gen_ids(ref.at("tokens"));
    const Tensor& logits = ref.at("logits");
    REQUIRE(logits.dim(0) == want.size());
    const std::size_t V = logits.dim(1);
    // the decoder step by step: the logits it chose each token from
    KvDecoder dec(m.m, prompt.size() + want.size());
    std::vector<float> l = dec.feed(prompt);
    double worst = 0;
    for (std::size_t s = 0; s < want.size(); ++s) {
      CAPTURE(s);
      REQUIRE(l.size() == V);
      std::size_t best = 0;
      for (std::size_t i = 0; i < V; ++i) {
        worst = std::max(worst, std::fabs(static_cast<double>(l[i]) - logits(s, i)));
        if (l[i] > l[best]) best = i;
      }
      REQUIRE(best == want[s]);
      l = dec.feed(std::vector<std::size_t>{best});
    }
    MESSAGE(name, ": max |logit − reference| over ", want.size(), " steps = ", worst);
    CHECK(worst <= 1e-4);
    CHECK(dec.length() == prompt.size() + want.size());
    // generate() greedy chooses the same, and reports each token's probability and entropy
    GenerateOptions o;
    o.max_new_tokens = want.size();
    const Generation g = generate(m.m, prompt, o);
    REQUIRE(g.steps.size() == want.size());
    for (std::size_t s = 0; s < want.size(); ++s) {
      CHECK(g.steps[s].token == want[s]);
      CHECK(g.steps[s].top.front().token == want[s]);
      CHECK(g.steps[s].p == doctest::Approx(g.steps[s].top.front().p));
      CHECK(g.steps[s].position == prompt.size() + s);
      CHECK(g.steps[s].entropy > 0);
      CHECK(g.steps[s].entropy <= std::log(static_cast<double>(V)) + 1e-9);
    }
  }
}

TEST_CASE("generate: the cache changes nothing — prefill in one go equals token by token, and tfx's own full forward") {
  for (const std::string name : {"gpt2", "llama", "mistral", "llama_yarn"}) {
    CAPTURE(name);
    const Checkpoint m = load_checkpoint(gen_model_dir(name));
    const std::vector<std::size_t> ids = name == "gpt2" ? std::vector<std::size_t>{256, 105, 72, 259, 262, 7, 265}
                                                                     : std::vector<std::size_t>{1, 259, 311, 361, 259, 340, 344};
    KvDecoder one(m, ids.size()), each(m, ids.size());
    const std::vector<float> a = one.feed(ids);
    std::vector<float> b;
    for (std::size_t id : ids) b = each.feed(std::vector<std::size_t>{id});
    const ForwardPass f = model_forward(m, ids);
    REQUIRE(a.size() == f.logits.cols());
    double d_ab = 0, d_af = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      d_ab = std::max(d_ab, std::fabs(static_cast<double>(a[i]) - b[i]));
      d_af = std::max(d_af, std::fabs(static_cast<double>(a[i]) - f.logits(ids.size() - 1, i)));
    }
    CHECK(d_ab <= 1e-4);
    CHECK(d_af <= 1e-4);
  }
}

TEST_CASE("generate: refusals — positions, empty prompts, zero tokens, a full cache, an encoder") {
  const GenModel gpt2("gpt2");  // 16 positions
  const std::vector<std::size_t> full(16, 5), fifteen(15, 5);
  GenerateOptions o;
  CHECK_THROWS_WITH_AS(generate(gpt2.m, full, o), doctest::Contains("fill the model's 16 positions"), Error);
  // room for one: generation ends at the last position
  o.max_new_tokens = 5;
  const Generation g = generate(gpt2.m, fifteen, o);
  CHECK(g.steps.size() == 1);
  CHECK(g.out_of_positions);
  o.max_new_tokens = 0;
  CHECK_THROWS_WITH_AS(generate(gpt2.m, fifteen, o), doctest::Contains("max_new_tokens must be at least 1"), Error);
  o.max_new_tokens = 3;
  CHECK_THROWS_WITH_AS(generate(gpt2.m, std::vector<std::size_t>{}, o), doctest::Contains("no prompt tokens"), Error);
  KvDecoder dec(gpt2.m, 2);
  dec.feed(std::vector<std::size_t>{1, 2});
  CHECK_THROWS_WITH_AS(dec.feed(std::vector<std::size_t>{3}), doctest::Contains("room for 2 positions"), Error);
  CHECK_THROWS_WITH_AS(KvDecoder(gpt2.m, 4).feed(std::vector<std::size_t>{272}), doctest::Contains("token id 272"), Error);
  const GenModel bert("bert");
  CHECK_THROWS_WITH_AS(KvDecoder(bert.m, 4), doctest::Contains("encoder"), Error);
  // stop ids end the generation after the token
  const GenModel llama("llama");
  GenerateOptions s;
  s.max_new_tokens = 10;
  const Generation free_run = generate(llama.m, std::vector<std::size_t>{1, 259, 311}, s);
  REQUIRE(free_run.steps.size() == 10);
  s.stop_ids = {free_run.steps[2].token};
  const Generation stopped = generate(llama.m, std::vector<std::size_t>{1, 259, 311}, s);
  CHECK(stopped.stopped);
  CHECK(stopped.steps.size() <= 3);
  CHECK(stopped.steps.back().token == free_run.steps[2].token);
}
