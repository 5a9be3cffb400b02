// Fuzz target: a Hugging Face tokenizer.json (HfTokenizer::from_json, `tfx model tokenize`), then
// encoding a fixed text with specials, Korean, emoji and whitespace runs through it, with offsets.
#include "fuzz_common.hpp"
#include "tfx/text/hf_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tfx::fuzz::check;
  try {
    const tfx::HfTokenizer t = tfx::HfTokenizer::from_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    constexpr std::string_view text = "Hello, <s> my [MASK] 나는 학생 이다  \t\n 123456 don't \xf0\x9f\x98\x80";
    const tfx::HfEncoding e = t.encode(text, true, true, {}, true);
    check(e.ids.size() == e.tokens.size() && e.readable.size() == e.ids.size() && e.special.size() == e.ids.size());
    for (std::size_t id : e.ids) check(id < t.vocab_size());
    // offsets: one per token, inside the text, begin ≤ end
    check(e.offsets.size() == e.ids.size());
    for (const auto& o : e.offsets) check(o.first <= o.second && o.second <= text.size());
  } catch (const tfx::Error&) {
  }
  return 0;
}
