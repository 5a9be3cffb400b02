// Writes tests/reference/hf_tokenizer_reference.inc: the ids Hugging Face's own JavaScript port of
// `tokenizers` (npm @huggingface/tokenizers) gives for 200+ sentences, under
//   gpt2            the real GPT-2 tokenizer.json (../shared/data/tokenizers/gpt2)
//   bert            the real BERT uncased tokenizer.json (../shared/data/tokenizers/bert-base-uncased)
//   llama3          GPT-2's vocabulary and merges under Llama 3's pre-tokenizer (Split with its
//                   pattern, then ByteLevel without regex), ignore_merges and a <|begin_of_text|>
//                   template — built from the GPT-2 file by llama3_variant() below, which the C++
//                   test repeats (tests/text/hf_tokenizer_test.cpp)
//   qwen2           the same with Qwen2's pattern (one digit per piece) and no template
//   llama2          tests/data/hf_tokenizers/llama2_tiny/tokenizer.json (written here): a small
//                   ▁-BPE with byte fallback in Llama 2's layout (Prepend/Replace normalizer)
//   roberta         GPT-2's vocabulary with RobertaProcessing (<s> … </s> = ids of <|endoftext|>)
// The tests compare every id and need neither node nor the npm package.
//   cd /tmp/x && npm install @huggingface/tokenizers
//   NODE_PATH=/tmp/x/node_modules node tests/reference/gen_tokenizer_reference.mjs ../shared/data/tokenizers
import fs from "fs";
import path from "path";
import { createRequire } from "module";
import { fileURLToPath, pathToFileURL } from "url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const modPath = (process.env.NODE_PATH || "").split(":").map((p) => path.join(p, "@huggingface/tokenizers/dist/tokenizers.mjs"))
  .find((p) => fs.existsSync(p));
const { Tokenizer } = await import(pathToFileURL(modPath).href);
const data = process.argv[2] || path.join(here, "../../../shared/data/tokenizers");

// --- the sentences: English, Korean, mixed scripts, emoji, whitespace runs, numbers, specials
const base = [
  "Hello, my dog is cute",
  "The quick brown fox jumps over the lazy dog.",
  "I love playing football.",
  "Transformers are great",
  "나는 학생 이다",
  "그녀는 커피를 마셨다",
  "안녕하세요, 세계!",
  "I am a student. 나는 학생 이다.",
  "Attention is all you need (Vaswani et al., 2017).",
  "e′ = e + p",
  "PE(pos, 2i) = sin(pos / 10000^(2i/d_model))",
  "king − man + woman ≈ queen",
  "don't won't can't I'm you're we've they'll she'd",
  "DON'T WON'T I'M YOU'RE WE'VE THEY'LL SHE'D",
  "It's 3.14159 and 2,718,281 and 1000000 and 12345678901234567890",
  "Numbers: 1 22 333 4444 55555 666666",
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
  "hyphen-ated words and under_scores",
  "...!!!???",
  "'quoted' \"double\" `back`",
  "A.B.C. U.S.A. e.g. i.e.",
  "",
  " ",
  "a",
  "Ġ is not a space",
  "##ing is not a piece",
];
const specials = {
  gpt2: ["<|endoftext|>"],
  bert: ["[MASK]", "[SEP]", "[CLS]", "[UNK]", "[PAD]"],
};
const extra = [
  "the [MASK] sat on the mat.",
  "[CLS] already here [SEP] and [MASK]",
  "a<|endoftext|>b",
  "<|endoftext|> at start",
  "end <|endoftext|>",
  "two<|endoftext|><|endoftext|>in a row",
  "[mask] in lower case",
];
const words = ["time", "student", "teacher", "attention", "embedding", "position", "rotary", "token", "의사", "가수", "coffee", "밥을"];
const sentences = [...base, ...extra];
// systematic variations: case, spacing, punctuation, numbers, emoji around the base words
for (let i = 0; sentences.length < 230; ++i) {
  const w = words[i % words.length], v = words[(i * 7 + 3) % words.length];
  const forms = [
    `${w} ${v}`, `${w.toUpperCase()}  ${v}!`, `  ${w}\t${v}\n`, `${w}${i} ${i * 37}${v}`, `${w}'s ${v}'ll`,
    `${w} 🙂 ${v}`, `(${w}) [${v}]`, `${w}-${v}_${i}`,
  ];
  sentences.push(forms[i % forms.length]);
}

// --- the tokenizers
const load = (dir) => JSON.parse(fs.readFileSync(path.join(data, dir, "tokenizer.json"), "utf8"));
const config = (dir) => JSON.parse(fs.readFileSync(path.join(data, dir, "tokenizer_config.json"), "utf8"));
const LLAMA3 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN2 = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
function split_variant(pattern, template) {
  const t = load("gpt2");
  t.pre_tokenizer = {
    type: "Sequence",
    pretokenizers: [
      { type: "Split", pattern: { Regex: pattern }, behavior: "Isolated", invert: false },
      { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false },
    ],
  };
  t.model.ignore_merges = true;
  if (template) {
    t.post_processor = {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "<|endoftext|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
      pair: [{ Sequence: { id: "A", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { "<|endoftext|>": { id: "<|endoftext|>", ids: [50256], tokens: ["<|endoftext|>"] } },
    };
  }
  return t;
}
function roberta_variant() {
  const t = load("gpt2");
  t.post_processor = { type: "RobertaProcessing", sep: ["<|endoftext|>", 50256], cls: ["<|endoftext|>", 50256], trim_offsets: true, add_prefix_space: false };
  return t;
}
// a tiny Llama-2-style tokenizer: <unk> <s> </s>, the 256 byte tokens, ▁ and printable ASCII, and
// merges of frequent English pairs (each merge's result added to the vocabulary)
function llama2_tiny() {
  const vocab = { "<unk>": 0, "<s>": 1, "</s>": 2 };
  for (let b = 0; b < 256; ++b) vocab["<0x" + b.toString(16).toUpperCase().padStart(2, "0") + ">"] = 3 + b;
  const add = (t) => { if (!(t in vocab)) vocab[t] = Object.keys(vocab).length; };
  add("▁");
  for (let c = 33; c < 127; ++c) add(String.fromCharCode(c));
  for (const c of "나는학생이다") add(c);
  const merges = [];
  const pairs = [["▁", "t"], ["h", "e"], ["▁t", "he"], ["i", "n"], ["▁", "a"], ["e", "r"], ["o", "n"], ["▁", "s"], ["a", "t"], ["e", "n"],
    ["▁", "w"], ["o", "r"], ["i", "s"], ["▁", "i"], ["in", "g"], ["▁", "c"], ["e", "s"], ["▁", "d"], ["▁", "I"], ["▁s", "t"],
    ["u", "d"], ["▁st", "ud"], ["en", "t"], ["▁stud", "ent"], ["▁", "나"], ["▁나", "는"], ["학", "생"], ["▁", "학생"]];
  for (const [a, b] of pairs) { add(a + b); merges.push(a + " " + b); }
  return {
    version: "1.0",
    added_tokens: [
      { id: 0, content: "<unk>", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
      { id: 1, content: "<s>", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
      { id: 2, content: "</s>", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    ],
    normalizer: { type: "Sequence", normalizers: [{ type: "Prepend", prepend: "▁" }, { type: "Replace", pattern: { String: " " }, content: "▁" }] },
    pre_tokenizer: null,
    post_processor: {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
      pair: [{ SpecialToken: { id: "<s>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "<s>", type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { "<s>": { id: "<s>", ids: [1], tokens: ["<s>"] } },
    },
    decoder: null,
    model: { type: "BPE", dropout: null, unk_token: "<unk>", continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: true,
             byte_fallback: true, ignore_merges: false, vocab, merges },
  };
}
const llama2 = llama2_tiny();
const llama2_dir = path.join(here, "../data/hf_tokenizers/llama2_tiny");
fs.mkdirSync(llama2_dir, { recursive: true });
fs.writeFileSync(path.join(llama2_dir, "tokenizer.json"), JSON.stringify(llama2, null, 1) + "\n");

const kinds = [
  ["gpt2", load("gpt2"), config("gpt2")],
  ["bert", load("bert-base-uncased"), config("bert-base-uncased")],
  ["llama3", split_variant(LLAMA3, true), {}],
  ["qwen2", split_variant(QWEN2, false), {}],
  ["roberta", roberta_variant(), {}],
  ["llama2", llama2, {}],
];

const c = (s) => JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
let out = "// Generated by tests/reference/gen_tokenizer_reference.mjs with npm @huggingface/tokenizers; do not edit.\n";
out += "// {kind, text, ids}: Hugging Face's ids for each sentence (special tokens added by default).\n";
out += "struct HfTokenizerCase { const char* kind; const char* text; std::vector<std::size_t> ids; };\n";
out += "inline const std::vector<HfTokenizerCase> kHfTokenizerCases = {\n";
let n = 0;
for (const [kind, json, cfg] of kinds) {
  const tok = new Tokenizer(json, cfg);
  const list = kind === "gpt2" || kind === "llama3" || kind === "qwen2" || kind === "roberta"
    ? [...sentences, ...specials.gpt2.map((s) => `x ${s} y`)]
    : kind === "bert" ? [...sentences, ...specials.bert.map((s) => `x ${s} y`)] : sentences.filter((s) => !/[^\x00-\x7f나는학생이다 ]/.test(s) || true);
  for (const s of list) {
    const ids = tok.encode(s).ids;
    out += `    {"${kind}", ${c(s)}, {${ids.join(", ")}}},\n`;
    ++n;
  }
}
out += "};\n";
fs.writeFileSync(path.join(here, "hf_tokenizer_reference.inc"), out);
console.log(`${n} cases, ${sentences.length} sentences`);
