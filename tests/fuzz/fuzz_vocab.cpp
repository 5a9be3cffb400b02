// Fuzz target: the BERT vocab.txt reader (parse_vocab, `tfx tokenize --vocab`), then WordPiece
// with the parsed vocabulary over a fixed sentence (the notes' example and a Korean word).
#include "fuzz_common.hpp"
#include "tfx/text/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using tfx::fuzz::check;
  try {
    const tfx::Vocabulary v = tfx::parse_vocab(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    check(v.size() > 0 && v.ids.size() == v.size());
    for (std::size_t i = 0; i < v.size(); ++i) check(v.find(v.tokens[i]) == i);
    const tfx::Tokenized t =
        tfx::tokenize("I love playing football. \xed\x95\x9c\xea\xb5\xad\xec\x96\xb4", tfx::TokenizerMode::subword, v, tfx::Casing::bert_uncased);
    check(t.tokens.size() == t.ids.size());
  } catch (const tfx::Error&) {
  }
  return 0;
}
