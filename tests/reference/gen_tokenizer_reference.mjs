// Writes tests/reference/hf_tokenizer_reference.inc: the ids Hugging Face's Rust `tokenizers`
// (its official Node binding, npm `tokenizers`) gives for 230 sentences and 320 hostile texts, under
//   gpt2            the real GPT-2 tokenizer.json (../shared/data/tokenizers/gpt2)
//   bert            the real BERT uncased tokenizer.json (../shared/data/tokenizers/bert-base-uncased)
//   llama3_real     the real Llama 3 tokenizer.json (../shared/data/tokenizers/llama3)
//   qwen3           the real Qwen3 tokenizer.json (NFC normalizer; ../shared/data/tokenizers/qwen3)
//   llama3          GPT-2's vocabulary and merges under Llama 3's pre-tokenizer (Split with its
//                   pattern, then ByteLevel without regex), ignore_merges and a <|begin_of_text|>
//                   template — built from the GPT-2 file by llama3_variant() below, which the C++
//                   test repeats (tests/text/hf_tokenizer_test.cpp)
//   qwen2           the same with Qwen2's pattern (one digit per piece) and no template
//   llama2          tests/data/hf_tokenizers/llama2_tiny/tokenizer.json (written here): a small
//                   ▁-BPE with byte fallback in Llama 2's layout (Prepend/Replace normalizer)
//   gemma           tests/data/hf_tokenizers/gemma_tiny/tokenizer.json (written here): the same ▁-BPE in
//                   Gemma's layout — <pad> <eos> <bos> <unk> first, a Replace normalizer without
//                   Llama 2's Prepend (no ▁ put in front), a <bos> template
//   roberta         GPT-2's vocabulary with RobertaProcessing (<s> … </s> = ids of <|endoftext|>)
//   bert_nfkc       BERT uncased with its normalizer NFKC then BertNormalizer; bert_nfd / bert_nfkd
//                   the same with NFD / NFKD (the other normalizers tfx applies)
// The hostile texts (final sigma, private-use and unassigned characters, decomposed and
// compatibility forms, controls, every kind of space, long runs, specials inside words) come from a
// seeded generator below, so the file is reproducible. The tests compare every id and need neither
// node nor the npm package.
//   cd /tmp/x && npm install tokenizers
//   NODE_PATH=/tmp/x/node_modules node tests/reference/gen_tokenizer_reference.mjs ../shared/data/tokenizers
import fs from "fs";
import path from "path";
import { createRequire } from "module";
import { fileURLToPath, pathToFileURL } from "url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { Tokenizer } = require("tokenizers");
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
// the same in Gemma's layout (its tokenizer.json as convert_slow_tokenizer's GemmaConverter writes it)
function gemma_tiny() {
  const t = llama2_tiny();
  const specials = ["<pad>", "<eos>", "<bos>", "<unk>"];
  const vocab = {};
  specials.forEach((s, i) => { vocab[s] = i; });
  for (const [k, v] of Object.entries(t.model.vocab)) if (!["<unk>", "<s>", "</s>"].includes(k)) vocab[k] = v - 3 + specials.length;
  t.model.vocab = vocab;
  t.added_tokens = specials.map((s, i) => ({ id: i, content: s, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
  t.normalizer = { type: "Replace", pattern: { String: " " }, content: "▁" };
  t.post_processor = {
    type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "<bos>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
    pair: [{ SpecialToken: { id: "<bos>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "<bos>", type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
    special_tokens: { "<bos>": { id: "<bos>", ids: [2], tokens: ["<bos>"] } },
  };
  return t;
}
const llama2 = llama2_tiny();
const llama2_dir = path.join(here, "../data/hf_tokenizers/llama2_tiny");
fs.mkdirSync(llama2_dir, { recursive: true });
fs.writeFileSync(path.join(llama2_dir, "tokenizer.json"), JSON.stringify(llama2, null, 1) + "\n");
const gemma = gemma_tiny();
const gemma_dir = path.join(here, "../data/hf_tokenizers/gemma_tiny");
fs.mkdirSync(gemma_dir, { recursive: true });
fs.writeFileSync(path.join(gemma_dir, "tokenizer.json"), JSON.stringify(gemma, null, 1) + "\n");

// --- hostile texts: a seeded generator (mulberry32) joining fragments of what breaks tokenizers
let seed = 0x7f4a7c15;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (a) => a[Math.floor(rand() * a.length)];
const fragments = [
  // final sigma and other casing: HF lower-cases each character alone
  "ΟΔΥΣΣΕΥΣ", "ΣΑΣ", "Σ", "ΑΣ.", "ΌΣΟΣ ΣΟΣ", "İstanbul", "ǅemal", "STRASSE ß ẞ", "ΆΈΉ", "Ⅻ ⅻ", "ǈ ǋ ǲ", "ﬀ ﬁ ﬂ ﬃ",
  // private use (Co) and unassigned (Cn)
  "\uE000", "a\uE001b", "\uF8FF", "x\u{F0000}y", "\u{10FFFD}", "\u0378", "q\u{E0080}r", "\u{1FAF8}",
  // decomposed and composed forms, compatibility characters
  "cafe\u0301", "café", "e\u0301\u0323", "a\u0323\u0301", "a\u0301\u0323", "\u1100\u1161\u11A8", "\u1112\u1161\u11AB\u1100\u1173\u11AF",
  "\u1112\u1161\u11AB", "한글", "\u212B", "\u2126", "\u0344", "Å", "\u0041\u030A", "①②", "㎏ ㎞", "Ｈｅｌｌｏ", "ｶﾀｶﾅ", "½ ¾", "ℌ𝓗𝟙",
  "\u3200", "x² y³", "ㄱㅏ ㅎㅏㄴ", "\u0958", "\u1E9B\u0323", "\uFB2C", "\u0F73", "\u00C5\u0327", "ᄀᄀᄀ가",
  // controls, formats, spaces of every kind
  "\u0000", "a\u0007b", "soft\u00ADhyphen", "zero\u200Bwidth", "join\u200Der", "word\u2060joiner", "\uFEFFbom", "x\u0085y",
  "v\u000Bt", "f\u000Cf", "line\u2028sep", "para\u2029sep", "nb\u00A0sp", "ideo\u3000sp", "n\u202Fn", "o\u1680g", "\t", "\r\n", "\n",
  "  \n  ", "\u2003em", "\u180Emvs",
  // emoji and other scripts
  "🥺", "🫠", "👩‍👩‍👧", "🇰🇷", "❤️", "مرحبا بالعالم", "שָׁלוֹם", "नमस्ते", "สวัสดี", "Привет", "中文", "日本語のテキスト", "나는 학생 이다", "그녀는",
  // punctuation, contractions, numbers
  "¿Qué?", "¡Hola!", "«quote»", "—dash—", "wait…", "‽", "it's", "IT'S", "they'LL", "it’s", "１２３", "٣٤٥", "12345678901234", "⁵", "3.14",
  // specials and near-specials
  "[MASK]", "[mask]", "[CLS]x", "<|endoftext|>", "<|endoftext|", "<|begin_of_text|>", "<|im_start|>", "<|im_end|>",
  // long runs
  "a".repeat(150), "가".repeat(120), " ".repeat(40), "!".repeat(60), "9".repeat(90), "ab".repeat(70), "\n".repeat(12),
  "Σ".repeat(30), "\u0301".repeat(20), "x" + "\u0301".repeat(40),
];
const seps = ["", " ", "  ", "\t", "\n", ".", "-", "'"];
const hostile = [...fragments];
while (hostile.length < 320) {
  const k = 2 + Math.floor(rand() * 5);
  let s = "";
  for (let j = 0; j < k; ++j) s += (j ? pick(seps) : "") + pick(fragments);
  hostile.push(s);
}

const bert_with = (type) => {
  const t = load("bert-base-uncased");
  t.normalizer = { type: "Sequence", normalizers: [{ type }, t.normalizer] };
  return t;
};
const kinds = [
  ["gpt2", load("gpt2"), true],
  ["bert", load("bert-base-uncased"), true],
  ["llama3_real", load("llama3"), true],
  ["qwen3", load("qwen3"), true],
  ["bert_nfkc", bert_with("NFKC"), true],
  ["bert_nfd", bert_with("NFD"), true],
  ["bert_nfkd", bert_with("NFKD"), true],
  ["llama3", split_variant(LLAMA3, true), false],
  ["qwen2", split_variant(QWEN2, false), false],
  ["roberta", roberta_variant(), false],
  ["llama2", llama2, true],
  ["gemma", gemma, true],
];

// a C++ string_view literal of s's UTF-8 bytes (octal escapes, so NUL and every byte survive)
const c = (s) => {
  const b = Buffer.from(s, "utf8");
  let o = "";
  for (const x of b) o += x >= 0x20 && x < 0x7f && x !== 0x22 && x !== 0x5c && x !== 0x3f ? String.fromCharCode(x) : "\\" + x.toString(8).padStart(3, "0");
  return `std::string_view{"${o}", ${b.length}}`;
};
// flat constant arrays (a vector per case made the compiler crawl): the ids of case k are
// kHfTokenizerIds[first, first + count)
let cases = "", ids_out = [], n = 0;
for (const [kind, json, withHostile] of kinds) {
  const tok = Tokenizer.fromString(JSON.stringify(json));
  const sp = kind === "bert" || kind.startsWith("bert_") ? specials.bert : specials.gpt2;
  const list = kind.startsWith("bert_") ? hostile : [...sentences, ...sp.map((s) => `x ${s} y`), ...(withHostile ? hostile : [])];
  for (const s of list) {
    const ids = (await tok.encode(s)).getIds();
    cases += `    {"${kind}", ${c(s)}, ${ids_out.length}, ${ids.length}},\n`;
    ids_out.push(...ids);
    ++n;
  }
}
let out = "// Generated by tests/reference/gen_tokenizer_reference.mjs with npm tokenizers (Hugging Face's Rust engine); do not edit.\n";
out += "// {kind, text, first, count}: Hugging Face's ids for each text (special tokens added by default) are\n";
out += "// kHfTokenizerIds[first, first + count).\n";
out += "struct HfTokenizerCase { const char* kind; std::string_view text; std::size_t first, count; };\n";
out += "inline constexpr std::uint32_t kHfTokenizerIds[] = {\n";
for (let i = 0; i < ids_out.length; i += 16) out += "    " + ids_out.slice(i, i + 16).join(", ") + ",\n";
out += "};\n";
out += "inline constexpr HfTokenizerCase kHfTokenizerCases[] = {\n" + cases + "};\n";
// a big text, for the path that cuts a text of 1 MiB or more and encodes its parts on all cores:
// the 230 sentences joined by "\n", over and over until 1,200,000 bytes or more; its ids' count
// and FNV-1a 64 hash (over each id as 4 little-endian bytes) under each real tokenizer
let big = "";
while (Buffer.byteLength(big, "utf8") < 1200000) big += sentences.join("\n") + "\n";
out += "// {kind, ids, FNV-1a 64 of the ids}: HF's encode of the big text (see big_text() in the test)\n";
out += "struct HfBigCase { const char* kind; std::size_t count; std::uint64_t hash; };\n";
out += "inline constexpr HfBigCase kHfBigCases[] = {\n";
for (const [kind, json] of kinds.filter(([k]) => ["gpt2", "bert", "llama3_real", "qwen3"].includes(k))) {
  const ids = (await Tokenizer.fromString(JSON.stringify(json)).encode(big)).getIds();
  let h = 0xcbf29ce484222325n;
  for (const id of ids)
    for (let b = 0; b < 4; ++b) h = ((h ^ BigInt((id >>> (8 * b)) & 255)) * 0x100000001b3n) & 0xffffffffffffffffn;
  out += `    {"${kind}", ${ids.length}, 0x${h.toString(16)}ull},\n`;
}
out += "};\n";
fs.writeFileSync(path.join(here, "hf_tokenizer_reference.inc"), out);
console.log(`${n} cases, ${sentences.length} sentences, ${hostile.length} hostile texts`);
