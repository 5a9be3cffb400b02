// Fuzz target: the text side of `tfx tokenize` (any bytes, invalid UTF-8 included) in each mode
// with the built-in vocabulary. Input: one byte (mode = byte % 3, casing = (byte >> 2) % 3:
// keep, BERT uncased, lower), then text.
#include "fuzz_common.hpp"
#include "tfx/text/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const tfx::TokenizerMode modes[] = {tfx::TokenizerMode::word, tfx::TokenizerMode::character,
                                      tfx::TokenizerMode::subword};
  const tfx::Casing casings[] = {tfx::Casing::keep, tfx::Casing::bert_uncased, tfx::Casing::lower};
  try {
    const tfx::Tokenized t = tfx::tokenize(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1),
                                           modes[data[0] % 3], tfx::builtin_vocab(), casings[(data[0] >> 2) % 3]);
    tfx::fuzz::check(t.tokens.size() == t.ids.size());
  } catch (const tfx::Error&) {
  }
  return 0;
}
