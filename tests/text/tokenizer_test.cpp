// Tokenizers against the lecture's printed examples ("I love playing football." at word,
// character and subword level), BERT's WordPiece rules (greedy longest match, ##, [UNK]),
// Korean by code point, and the vocab.txt parser's refusals.
#include "tfx/text/tokenizer.hpp"

#include "helpers.hpp"

using namespace tfx;
using namespace tfx::test;

using Tokens = std::vector<std::string>;

TEST_CASE("tokenize: the notes' example at word, character and subword level") {
  const std::string s = "I love playing football.";
  CHECK(tokenize(s, TokenizerMode::word, builtin_vocab(), Casing::keep).tokens == Tokens{"I", "love", "playing", "football", "."});
  CHECK(tokenize(s, TokenizerMode::subword, builtin_vocab(), Casing::keep).tokens ==
        Tokens{"I", "love", "play", "##ing", "foot", "##ball", "."});
  const Tokenized c = tokenize(s, TokenizerMode::character, builtin_vocab(), Casing::keep);
  REQUIRE(c.tokens.size() == s.size());
  CHECK(c.tokens[0] == "I");
  CHECK(c.tokens[1] == " ");
  CHECK(c.tokens.back() == ".");
  CHECK(c.ids[0] == 'I');
  // ids are the vocabulary's line numbers (0-based)
  const Tokenized w = tokenize(s, TokenizerMode::subword, builtin_vocab(), Casing::keep);
  for (std::size_t i = 0; i < w.tokens.size(); ++i) CHECK(builtin_vocab().tokens.at(static_cast<std::size_t>(w.ids[i])) == w.tokens[i]);
}

TEST_CASE("tokenize: Korean splits at spaces in word mode and by code point (not byte) in character mode") {
  const std::string s = "나는 학생 이다";
  CHECK(tokenize(s, TokenizerMode::word, builtin_vocab(), Casing::keep).tokens == Tokens{"나는", "학생", "이다"});
  const Tokenized c = tokenize(s, TokenizerMode::character, builtin_vocab(), Casing::keep);
  CHECK(c.tokens == Tokens{"나", "는", " ", "학", "생", " ", "이", "다"});
  CHECK(c.ids[0] == 0xB098);  // U+B098 HANGUL SYLLABLE NA
  CHECK(tokenize(s, TokenizerMode::subword, builtin_vocab(), Casing::keep).tokens == Tokens{"나는", "학생", "이다"});
}

TEST_CASE("WordPiece: greedy longest match first, ## continuation, whole word [UNK] when a piece is missing") {
  const Vocabulary v = parse_vocab("[UNK]\nun\n##aff\n##able\nunaff\n##a\n##ble\n", "v");
  CHECK(wordpiece("unaffable", v) == Tokens{"unaff", "##able"});  // longest first piece wins
  CHECK(wordpiece("unable", v) == Tokens{"un", "##able"});
  CHECK(wordpiece("unx", v) == Tokens{"[UNK]"});
  CHECK(wordpiece("aff", v) == Tokens{"[UNK]"});  // a word never starts with a ## piece
  CHECK(wordpiece(std::string(101, 'a'), v) == Tokens{"[UNK]"});
  const Tokenized t = tokenize("Unable xyz", TokenizerMode::subword, v, Casing::bert_uncased);
  CHECK(t.tokens == Tokens{"un", "##able", "[UNK]"});
  CHECK(t.ids == std::vector<long long>{1, 3, 0});
}

TEST_CASE("word tokens: every punctuation mark is its own token, as BERT's basic tokenizer") {
  CHECK(word_tokens("Hello, world!") == Tokens{"Hello", ",", "world", "!"});
  CHECK(word_tokens("don't") == Tokens{"don", "'", "t"});
  CHECK(word_tokens("  a\tb\n") == Tokens{"a", "b"});
  CHECK(word_tokens("我爱 NLP") == Tokens{"我", "爱", "NLP"});  // CJK ideographs one by one, as BERT
  CHECK(word_tokens("나는 학생") == Tokens{"나는", "학생"});
}

TEST_CASE("vocab.txt: id = line number − 1; empty lines, duplicates, tabs, invalid UTF-8 and no tokens are refused") {
  const Vocabulary v = parse_vocab("[PAD]\r\n[UNK]\r\nthe", "vocab.txt");
  CHECK(v.size() == 3);
  CHECK(v.find("the") == 2u);
  CHECK(has(error_of([] { parse_vocab("a\n\nb\n", "vocab.txt"); }), "vocab.txt:2: empty line"));
  CHECK(has(error_of([] { parse_vocab("a\nb\na\n", "vocab.txt"); }), "vocab.txt:3: duplicate token 'a' (first on line 1)"));
  CHECK(has(error_of([] { parse_vocab("a\tb\n", "vocab.txt"); }), "vocab.txt:1: a tab"));
  CHECK(has(error_of([] { parse_vocab("a\n\xff\xfe\n", "vocab.txt"); }), "vocab.txt:2: invalid UTF-8 in '\\xFF\\xFE'"));
  CHECK(has(error_of([] { parse_vocab("", "vocab.txt"); }), "vocab.txt: no tokens"));
  CHECK(has(error_of([] { tokenize("   ", TokenizerMode::word, builtin_vocab(), Casing::keep); }), "has no tokens"));
  CHECK(has(error_of([] { read_vocab("/nonexistent/vocab.txt"); }), "no such file"));
}
