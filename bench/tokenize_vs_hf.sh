#!/usr/bin/env bash
# tfx model tokenize against Hugging Face's Rust engine (its Node binding, npm `tokenizers`), whole
# processes, on the same tokenizer.json and the same ~5 MB English + Korean text
# (bench/gen_mixed_text.py), the whole text one sequence in both (HF `encode`): GPT-2 byte-level
# BPE, BERT uncased WordPiece, Llama 3. The ids of both are compared (equal or the row says so).
# Also the two inputs that were superlinear (issue 36): one 5,000-character word under WordPiece
# with max_input_chars_per_word 2^20, and 100,000 added tokens over a 120 KB text, tfx alone.
# Prints a Markdown table; node and npm are needed for the HF column (the package is installed into
# $TFX_BENCH_NODE, default ~/.cache/tfx-bench-node); without them the HF cells are skipped with the
# reason.
#
#   bench/tokenize_vs_hf.sh            (BUILD_DIR=build; SIZE=5000000; DATA=../shared/data/tokenizers)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
SIZE="${SIZE:-5000000}"
DATA="${DATA:-../shared/data/tokenizers}"
NODE_DIR="${TFX_BENCH_NODE:-$HOME/.cache/tfx-bench-node}"
TFX=$(realpath "$BUILD_DIR/tfx")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$TFX" ] || { echo "tokenize_vs_hf: build $BUILD_DIR/tfx first" >&2; exit 1; }
[ -d "$DATA/gpt2" ] || { echo "tokenize_vs_hf: skipped: $DATA is absent" >&2; exit 0; }

hf=1 why=""
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  hf=0 why="node/npm not installed (apt-get install nodejs npm)"
elif [ ! -d "$NODE_DIR/node_modules/tokenizers" ]; then
  mkdir -p "$NODE_DIR" && (cd "$NODE_DIR" && npm install --silent tokenizers >/dev/null 2>&1) || { hf=0 why="npm install tokenizers failed"; }
fi
[ -d "$NODE_DIR/node_modules/tokenizers" ] || { hf=0; why="${why:-npm package tokenizers missing}"; }

/usr/bin/python3 bench/gen_mixed_text.py "$SIZE" >"$work/text.txt"
bytes=$(stat -c %s "$work/text.txt")

# the HF side: load, read, encode the whole text, write the ids as uint32
cat >"$work/hf.js" <<'JS'
const fs = require("fs");
const { Tokenizer } = require("tokenizers");
(async () => {
  const tok = Tokenizer.fromFile(process.argv[2]);
  const text = fs.readFileSync(process.argv[3], "utf8");
  const ids = (await tok.encode(text)).getIds();
  fs.writeFileSync(process.argv[4], Buffer.from(Uint32Array.from(ids).buffer));
})();
JS
# ids.npy (float32) of tfx against ids.u32 of HF: "equal (N ids)" or where they first differ
cat >"$work/cmp.js" <<'JS'
const fs = require("fs");
const npy = fs.readFileSync(process.argv[2]), hl = npy.readUInt16LE(8);
const a = new Float32Array(npy.buffer.slice(npy.byteOffset + 10 + hl, npy.byteOffset + npy.length));
const u = fs.readFileSync(process.argv[3]), b = new Uint32Array(u.buffer.slice(u.byteOffset, u.byteOffset + u.length));
let i = 0;
while (i < a.length && i < b.length && a[i] === b[i]) ++i;
console.log(i === a.length && i === b.length ? `equal (${a.length} ids)` : `DIFFER at ${i} (tfx ${a.length} ids, HF ${b.length})`);
JS
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

echo "machine: $(lscpu | sed -nE 's/^Model name:[[:space:]]+//p' | head -1), $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "text: $bytes bytes (bench/gen_mixed_text.py $SIZE); node $(node --version 2>/dev/null), tokenizers $(node -p "require('$NODE_DIR/node_modules/tokenizers/package.json').version" 2>/dev/null)"
echo
echo "| tokenizer | tfx s | HF tokenizers (Rust, node) s | tfx / HF | ids |"
echo "|---|---|---|---|---|"
for name in gpt2 bert-base-uncased llama3; do
  dir="$DATA/$name"
  [ -f "$dir/tokenizer.json" ] || { echo "| $name | - | skipped: no $dir/tokenizer.json | - | - |"; continue; }
  t0=$(now)
  "$TFX" model tokenize "$dir" --file "$work/text.txt" --format npy -o "$work/tfx.npy" || { echo "| $name | failed | | | |"; continue; }
  t1=$(now)
  tfx_s=$(secs "$t0" "$t1")
  if ((hf)); then
    t0=$(now)
    NODE_PATH="$NODE_DIR/node_modules" node "$work/hf.js" "$dir/tokenizer.json" "$work/text.txt" "$work/hf.u32"
    t1=$(now)
    hf_s=$(secs "$t0" "$t1")
    same=$(node "$work/cmp.js" "$work/tfx.npy" "$work/hf.u32")
    ratio=$(awk -v a="$tfx_s" -v b="$hf_s" 'BEGIN { printf "%.2f", a / b }')
    echo "| $name | $tfx_s | $hf_s | $ratio | $same |"
  else
    echo "| $name | $tfx_s | skipped: $why | - | - |"
  fi
done

# the two inputs issue 36 found superlinear, tfx alone (seconds for n and 2n: linear when ~2×)
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
vocab = {"[UNK]": 0, "a": 1, "##a": 2}
json.dump({"model": {"type": "WordPiece", "vocab": vocab, "unk_token": "[UNK]", "max_input_chars_per_word": 1 << 20},
           "pre_tokenizer": {"type": "BertPreTokenizer"}}, open(w + "/wp.json", "w"))
added = [{"id": 3 + k, "content": "tok%05d>" % k, "special": True} for k in range(100000)]
v = {"<unk>": 0, "a": 1, " ": 2}
for a in added: v[a["content"]] = a["id"]
json.dump({"model": {"type": "BPE", "vocab": v, "merges": [], "unk_token": "<unk>"}, "added_tokens": added}, open(w + "/added.json", "w"))
for n in (5000, 10000):
    open(w + "/word%d.txt" % n, "w").write("a" * n)
for n in (120000, 240000):
    open(w + "/added%d.txt" % n, "w").write(("tok%05d> a " % 7 * (n // 11 + 1))[:n])
PY
mkdir -p "$work/wp" "$work/added"
cp "$work/wp.json" "$work/wp/tokenizer.json"
cp "$work/added.json" "$work/added/tokenizer.json"
echo
echo "| input (tfx alone) | n | s | 2n | s | ratio |"
echo "|---|---|---|---|---|---|"
for spec in "one word of a's, WordPiece, max_input_chars_per_word 2^20:wp:word:5000:10000" \
            "100,000 added tokens over a text:added:added:120000:240000"; do
  IFS=: read -r label dir file n1 n2 <<<"$spec"
  t0=$(now); "$TFX" model tokenize "$work/$dir" --file "$work/$file$n1.txt" --format npy -o "$work/x.npy"; t1=$(now)
  s1=$(secs "$t0" "$t1")
  t0=$(now); "$TFX" model tokenize "$work/$dir" --file "$work/$file$n2.txt" --format npy -o "$work/x.npy"; t1=$(now)
  s2=$(secs "$t0" "$t1")
  echo "| $label | $n1 | $s1 | $n2 | $s2 | $(awk -v a="$s1" -v b="$s2" 'BEGIN { printf "%.2f", b / a }') |"
done
