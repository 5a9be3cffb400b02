#!/usr/bin/env bash
# Regenerates the figure gallery: every figure tfx draws, as PNG (and SVG where the file stays
# small) into DOCS/img/gallery/, and the gallery section of DOCS/figures.md (everything after the
# "<!-- gallery -->" line). The README shows some of these same files. Deterministic: the same
# tfx and fonts give byte-identical files. tests/gallery_test.cpp runs it into a temporary copy
# and checks that every picture figures.md and README.md show is made.
# Usage: scripts/gen-figures.sh [path/to/tfx] [DOCS]
set -euo pipefail
unset TFX_EMBEDDINGS TFX_FONT COLUMNS  # the built-in embedding and the system fonts: the same gallery everywhere
export NO_COLOR=1
root="$(cd "$(dirname "$0")/.." && pwd)"
tfx="$(realpath "${1:-$root/build/tfx}")"
docs="$(realpath "${2:-$root/docs}")"
gallery="$docs/img/gallery"
md="$docs/figures.md"
[ -x "$tfx" ] || { echo "gen-figures: $tfx is not an executable tfx" >&2; exit 1; }
[ -f "$md" ] || { echo "gen-figures: $md not found" >&2; exit 1; }
grep -q '^<!-- gallery -->$' "$md" || { echo "gen-figures: no '<!-- gallery -->' line in $md" >&2; exit 1; }
rm -rf "$gallery"
mkdir -p "$gallery"

# name | files (png, png+svg, or gif: an animation) | command (the figure flags are appended) | what it shows
figures=(
  "pe|png|pe --len 50 --dim 128|The lecture's 50×128 encoding: fast sin/cos pairs on the left, slow ones on the right (blue +1, red −1)."
  "pe_add|png|pe add --sentence \"I love you\" --scale-embedding|e′ = √d_model·e + p: embedding, positional encoding and their sum as columns of vectors on one scale; scaled, e dominates."
  "pe_curves|png+svg|pe curves --len 100 --dim 20 --dims 4,5,6,7|Dimensions 4–7 over 100 positions (the Annotated Transformer's figure): a sine and a cosine per wavelength."
  "pe_transposed|png|pe --len 50 --dim 128 --transpose|The same matrix with --transpose: position along x, depth along y (note 001's fig. 7)."
  "pe_sim|png|pe sim --len 50 --dim 128|PE·PEᵀ: the dot product of two positions' encodings depends only on their distance."
  "pe_sim_euclidean|png|pe sim --len 50 --dim 128 --metric euclidean --profile|‖PE(i) − PE(j)‖: equal offsets give equal distances (note 004), the closed form √(D − 2 Σ cos(kω)) dashed."
  "pe_sim_profile|png|pe sim --len 64 --dim 32 --metric cosine --profile|The same by offset k = j − i, with the closed form Σ cos(kω) dashed under the measured mean."
  "pe_shift|png+svg|pe shift --offset 3 --dim 8|R(k): the block-diagonal rotation that moves PE(p) to PE(p+k), the same for every p."
  "pe_shift_gif|gif|pe shift --offset 3 --dim 8 --frames 32|Animated: PE(p) and PE(p + 3) = R(3)·PE(p) pair by pair for p = 0 … 31; the angle kω between them never changes."
  "rope_theta|png+svg|rope --len 16 --dim 16 --what theta|RoPE's angles θ = p·ω_j per position and pair."
  "rope_cos|png+svg|rope --len 16 --dim 16 --what cos|cos θ, the table RoPE multiplies queries and keys by."
  "rope_rotate|png+svg|rope rotate --dim 8 --pos 3 --seed 7|Each pair of a vector before (x) and after (R x) the rotation, with its angle."
  "rope_rotate_gif|gif|rope rotate --dim 8 --pos 3 --seed 7 --frames 32|Animated: x at positions m and m + 3 for m = 0 … 31 — each pair turns at its own speed ω_j, the angle between the two stays 3·ω_j."
  "rope_relative|png+svg|rope relative --dim 64 --len 16|With RoPE the score of fixed q, k depends only on j − i (constant diagonals); with additive PE it does not."
  "rope_freqs|png+svg|rope freqs --dim 128 --scaling linear,ntk,yarn,llama3 --factor 8 --original-max-pos 8192|How each context-extension method changes the pairs' frequencies and wavelengths."
  "rope_decay|png+svg|rope decay --dim 128 --len 512|RoFormer's long-term decay: the bound on the score falls with the distance."
  "attention|png+svg|attention --sentence \"I love you\" --dk 4|A 3×3 weight table, values printed in the cells."
  "attention_korean|png+svg|attention --sentence \"나는 학생 이다\" --dk 4|The lecture's Korean sentence: Hangul tokens on the axes."
  "attention_causal|png+svg|attention --sentence \"I love playing football\" --causal|The decoder's causal mask: masked cells hatched, outside the colour scale."
  "attention_heads|png+svg|attention --sentence \"the cat sat on the mat\" --heads 4 --dk 8|Four heads, one panel each, on one colour scale."
  "softmax|png+svg|softmax 0,-11,7 --temperature 1,10|The lecture's scores with standard deviation 10: softmax peaks on one entry; divided by √d_k = 10 it does not."
  "attention_masks|png|attention masks --len 5 --pad 2|One causal + padding mask as nn.MultiheadAttention (True = blocked) and SDPA (True = attend) spell it, the weights, and MHA's mask wrongly given to SDPA."
  "attention_variance|png+svg|attention variance --dk 1,4,16,64,256 --samples 2000|Why √d_k: Var(q·k) grows like d_k (theory dashed) and the softmax saturates without the scaling."
  "encoder|png+svg|encoder --sentence \"I am a student\"|The teaching translator's trained encoder: self-attention weights of its 2 layers, per head."
  "decoder|png+svg|decoder --sentence \"I am a student\" --memory \"나는 학생 이다\"|The trained decoder: masked self-attention and cross-attention over the Korean memory (row t predicts token t + 1)."
  "decoder_random|png+svg|decoder --sentence \"I am a student\" --memory \"나는 학생 이다\" --random|The same layer with seeded random weights: flat, meaningless attention."
  "translate|png+svg|translate \"그녀는 커피를 마셨다\"|Cross-attention of the trained translator, SOV → SVO: \"drank\" looks back past the object to 마셨다."
  "trace|png|trace \"나는 학생 이다\"|The whole Transformer on one poster: e, p, e + p, Q, K, V, scores, softmax, Z, add & norm, FFN, the decoder's mask and cross-attention, the next token."
  "patches|png|patches --image samples/grace_hopper.jpg|ViT patches of a real picture: resized to 224×224, cut into 196 numbered 16×16 patches, read in order as tokens."
  "layernorm|png+svg|layernorm|The lecture's thinking/machines table: x with μ and μ ± σ, x̂, and y on one scale."
  "lr|png+svg|lr|The Transformer's warm-up schedule: linear rise for 4000 steps, then step^−0.5."
  "similar|png+svg|similar king -k 8|Nearest neighbours of “king” by cosine, in the built-in teaching embedding."
  "project|png+svg|project king queen man woman prince princess boy girl --arrows king:queen,man:woman,prince:princess,boy:girl|PCA to two dimensions: the male → female arrows are nearly parallel."
  "complexity|png+svg|complexity --n 512 --d 768|Operations per layer against n: self-attention n²·d passes recurrence n·d² at n = d."
  "model_view|png|model attention tests/data/hf_models/gpt2 \"the cat sat on the mat\"|The model view of a (tiny, random) GPT-2 checkpoint: every layer × head, causal triangles, on one 0–1 scale."
  "project_3d|png|project king queen man woman kings queens --arrows king:queen,man:woman --components 3 --azimuth -60,30|The words on their first three principal components, seen from two angles (note 001 fig. 3); the gender arrows stay parallel."
  "model_head|png+svg|model attention tests/data/hf_models/bert \"the cat sat on the mat\" --layer 0 --head 1|One head of a (tiny, random) BERT checkpoint with its WordPiece tokens, [CLS] and [SEP] included."
  "model_pe_sim|png|pe sim --model tests/data/hf_models/gpt2|A learned position table (GPT-2's wpe) beside the sinusoid of the same size: only the sinusoid depends on j − i alone."
  "model_rope_freqs|png+svg|rope freqs --config tests/data/hf_models/llama_llama3/config.json|A Llama checkpoint's own RoPE from its config.json: θ = 500000 and the llama3 scaling of each pair."
  "pe_ko|png+svg|pe --len 50 --dim 128 --lang ko|In Korean (--lang ko): the same 50×128 encoding, titled in the notes' terms (위치 인코딩, 임베딩 차원)."
  "attention_korean_ko|png+svg|attention --sentence \"나는 학생 이다\" --dk 4 --lang ko|The lecture's sentence with Korean titles and axes: 어텐션 가중치, 쿼리, 키."
  "layernorm_ko|png+svg|layernorm --lang ko|The thinking/machines table in Korean: 층 정규화 with μ, σ, x̂ and y."
  "lr_ko|png+svg|lr --lang ko|The warm-up schedule in Korean: 학습률 against 학습 단계."
  "trace_ko|png|trace \"나는 학생 이다\" --lang ko|The whole-Transformer poster in Korean: every step named as the notes name it."
)

section="$(mktemp)"
trap 'rm -f "$section"' EXIT
{
  echo "<!-- gallery -->"
  echo
  echo "## Gallery"
  echo
  echo "Every figure, regenerated by \`scripts/gen-figures.sh\` (the tests run it too). Each PNG is"
  echo "drawn at \`--scale 1\`; where an SVG is linked it is the same figure as vectors — open it in a"
  echo "browser and hover a heatmap cell to read its row, column and value. (The large PE heatmaps"
  echo "have no committed SVG: thousands of hoverable cells make files of 0.3–0.7 MB; \`--svg\` makes one.)"
  for entry in "${figures[@]}"; do
    IFS='|' read -r name files cmd caption <<< "$entry"
    flags="--png \"$gallery/$name.png\""
    [ "$files" = "png+svg" ] && flags+=" --svg \"$gallery/$name.svg\""
    [ "$files" = "gif" ] && flags="--gif \"$gallery/$name.gif\""
    # from the repository root, so the tiny checkpoints are tests/data/hf_models/… as in docs/models.md
    (cd "$root" && eval "\"$tfx\" $cmd $flags" >/dev/null 2>&1) ||
      { echo "gen-figures: 'tfx $cmd $flags' failed" >&2; exit 1; }
    echo
    echo "### \`tfx $cmd $([ "$files" = gif ] && echo --gif || echo --png)\`"
    echo
    echo "$caption"
    echo
    if [ "$files" = "gif" ]; then
      echo "![tfx $cmd](img/gallery/$name.gif)"
    elif [ "$files" = "png+svg" ]; then
      echo "![tfx $cmd](img/gallery/$name.png) — [SVG](img/gallery/$name.svg)"
    else
      echo "![tfx $cmd](img/gallery/$name.png)"
    fi
  done
} > "$section"

# keep everything up to the marker, then the fresh gallery
tmp="$md.tmp"
sed '/^<!-- gallery -->$/,$d' "$md" > "$tmp"
cat "$section" >> "$tmp"
mv "$tmp" "$md"
echo "gen-figures: ${#figures[@]} figures in $gallery, gallery in $md" >&2
