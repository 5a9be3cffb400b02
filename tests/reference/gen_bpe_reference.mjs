// Writes tests/reference/bpe_reference.inc: what Hugging Face's Rust `tokenizers` (its official Node
// binding, npm `tokenizers`) says about byte-level BPE trained on tests/data/bpe/train.txt:
//   merges  the merges HF's own BpeTrainer learns from the file (a BPE model over the ByteLevel
//           pre-tokenizer without a prefix space, trained until no pair is left, as
//           ByteLevelBPETokenizer.train does it; Tokenizer.train reads the file line by line)
//   texts   the ids HF gives for 220 texts (English, Korean, mixed scripts, emoji, whitespace runs,
//           lines the training never saw, seeded random strings from many scripts) with the
//           tokenizer.json that `tfx tokenize train` wrote from the same file (--vocab-size 600)
// tests/text/bpe_train_test.cpp trains in-process, compares its merges with HF's and encodes the
// texts with tfx's own tokenizer.json reader; the tests need neither node nor the npm package.
//   mkdir -p /work/scratch/node && cd /work/scratch/node && npm install tokenizers
//   NODE_PATH=/work/scratch/node/node_modules node tests/reference/gen_bpe_reference.mjs build/tfx
import fs from "fs";
import os from "os";
import path from "path";
import { execFileSync } from "child_process";
import { createRequire } from "module";
import { fileURLToPath } from "url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { Tokenizer, BPE, byteLevelPreTokenizer } = require("tokenizers");
const tfx = path.resolve(process.argv[2] || path.join(here, "../../build/tfx"));
const trainText = path.join(here, "../data/bpe/train.txt");
const vocabSize = 600;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tfx-bpe-"));

// 1. HF's trainer on the file: every merge until none is left (vocab_size 30000 is never reached)
const hf = new Tokenizer(BPE.empty());
hf.setPreTokenizer(byteLevelPreTokenizer(false, true));
const saved = path.join(tmp, "hf.json");
const log = console.log;
console.log = () => {};  // the trainer's progress lines
hf.train([trainText]);
console.log = log;
hf.save(saved);
const hfMerges = JSON.parse(fs.readFileSync(saved, "utf8")).model.merges.map((m) => (Array.isArray(m) ? m : m.split(" ")));

// 2. tfx's tokenizer.json, loaded by HF
const ours = path.join(tmp, "tokenizer.json");
execFileSync(tfx, ["tokenize", "train", trainText, "--vocab-size", String(vocabSize), "-o", ours, "--no-progress"], {
  stdio: ["ignore", "ignore", "inherit"],
});
const tok = Tokenizer.fromFile(ours);

// --- the texts
const base = [
  "Hello, my dog is cute",
  "The quick brown fox jumps over the lazy dog.",
  "The capital of France is",
  "Paris is the capital of France.",
  "파리는 프랑스의 수도 이다.",
  "나는 학생 이다",
  "그녀는 커피를 마셨다",
  "안녕하세요, 세계!",
  "I am a student. 나는 학생 이다.",
  "Minsu eats an apple. 민수는 사과를 먹는다.",
  "They went to the library.\n그들은 도서관에 갔다.\n",
  "don't won't can't I'm you're we've they'll she'd",
  "DON'T WON'T I'M YOU'RE WE'VE THEY'LL SHE'D",
  "It's 3.14159 and 2,718,281 and 1000000 and 12345678901234567890",
  "emoji 😀😃😄 👍🏽 ❤️ 🇰🇷 👩‍👩‍👧",
  "tabs\tand\nnewlines\r\nand   three spaces",
  "   leading spaces",
  "trailing spaces   ",
  "multiple\n\n\nnewlines",
  "Ünïcödé ÀÉÎÕÜ café naïve résumé",
  "ΑΒΓ αβγ Ελληνικά",
  "Привет, мир!",
  "中文字符测试",
  "日本語のテキスト、カタカナとひらがな",
  "混合 mixed 한국어 text 123",
  "email@example.com https://huggingface.co/gpt2?x=1&y=2",
  "C++ std::vector<int> v{1, 2, 3};",
  "def f(x):\n    return x ** 2",
  "$100.00 €50 £20 ¥1000 ₩5000",
  "...!!!???",
  "'quoted' \"double\" `back`",
  "",
  " ",
  "a",
  "Ġ is not a space",
  "\u00a0no-break\u3000ideographic\u2028line",
  "한글 자모 ㄱㄴㄷ ᄀᄁ 조합형",
  "x".repeat(300),
  "가".repeat(120),
  "ab ".repeat(80),
];
// lines of data/teaching_gpt/corpus.txt past the 360 the training file took
const corpus = fs.readFileSync(path.join(here, "../../data/teaching_gpt/corpus.txt"), "utf8").split("\n");
const unseen = corpus.slice(400, 480);
// seeded random strings from many scripts (no surrogates: every text is valid UTF-8)
let seed = 20171206;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const ranges = [
  [0x20, 0x7e], [0x20, 0x7e], [0xac00, 0xd7a3], [0xac00, 0xd7a3], [0x1100, 0x11ff], [0x3130, 0x318f], [0xa0, 0x17f],
  [0x370, 0x3ff], [0x400, 0x4ff], [0x4e00, 0x9fff], [0x3040, 0x30ff], [0x1f300, 0x1faff], [0x2000, 0x206f], [0x300, 0x36f],
  [0x9, 0xd], [0xe000, 0xe0ff], [0x10000, 0x100ff],
];
const random = [];
for (let k = 0; k < 100; ++k) {
  const n = 1 + Math.floor(rand() * 40);
  let s = "";
  for (let i = 0; i < n; ++i) {
    const [lo, hi] = ranges[Math.floor(rand() * ranges.length)];
    s += String.fromCodePoint(lo + Math.floor(rand() * (hi - lo + 1)));
    if (rand() < 0.2) s += " ";
  }
  random.push(s);
}
const texts = [...base, ...unseen, ...random];
const cases = [];
for (const text of texts) {
  const e = await tok.encode(text);
  cases.push({ text, ids: Array.from(e.getIds()) });
}

// JSON with the bidirectional controls and the other U+2000–U+206F characters escaped (\uXXXX), so
// the C++ source holds no raw bidi control (GCC's -Wbidi-chars)
const json = (v) => JSON.stringify(v).replace(/[\u061c\u2000-\u206f]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
const out = [
  "// Generated by tests/reference/gen_bpe_reference.mjs from Hugging Face's Rust `tokenizers` (npm " +
    JSON.parse(fs.readFileSync(require.resolve("tokenizers/package.json"), "utf8")).version +
    "); do not edit.",
  "// kBpeHfMerges: HF's BpeTrainer on tests/data/bpe/train.txt, every merge ([left, right] in byte-level spelling).",
  `// kBpeCases: {text, ids} for ${cases.length} texts under tfx tokenize train --vocab-size ${vocabSize}'s tokenizer.json.`,
  "#pragma once",
  "#include <cstddef>",
  `inline constexpr std::size_t kBpeVocabSize = ${vocabSize};`,
  `inline constexpr const char* kBpeHfMerges = R"BPEREF(${json(hfMerges)})BPEREF";`,
  `inline constexpr const char* kBpeCases = R"BPEREF(${json(cases)})BPEREF";`,
  "",
];
fs.writeFileSync(path.join(here, "bpe_reference.inc"), out.join("\n"));
fs.rmSync(tmp, { recursive: true });
console.log(`bpe_reference.inc: ${hfMerges.length} HF merges, ${cases.length} texts`);
