#!/bin/sh
# Records the outputs of the model commands on the tiny test checkpoints (tests/data/hf_models) and
# of translate / trace / encoder / decoder in every format, so a refactoring of the model families
# or the op set can be shown byte-identical:
#   scripts/compare-model-outputs.sh record BEFORE_TFX DIR_A     # e.g. a build of main
#   scripts/compare-model-outputs.sh record build/tfx DIR_B
#   scripts/compare-model-outputs.sh compare DIR_A DIR_B          # exit 1 and the differing files
set -u
mode=${1:?record|compare}
if [ "$mode" = compare ]; then
  diff -r -q "$2" "$3" && echo "identical: $(find "$2" -type f | wc -l) files" && exit 0
  exit 1
fi
tfx=$(realpath "${2:?tfx binary}")
out=${3:?output dir}
root=$(cd "$(dirname "$0")/.." && pwd)
models="$root/tests/data/hf_models"
mkdir -p "$out"
out=$(realpath "$out")
cd "$out" || exit 1
export LANG=C.UTF-8 NO_COLOR=1 TFX_LANG=en
run() {  # run NAME ARGS… : stdout, stderr and the exit code of one command
  name=$1; shift
  "$tfx" "$@" > "$name.out" 2> "$name.err"
  echo $? > "$name.rc"
}
for m in "$models"/*/; do
  n=$(basename "$m")
  run "info_$n" model info "$m"
  run "info_${n}_json" model info "$m" --format json
  for c in hidden logits attention; do
    for f in table csv json md; do run "${c}_${n}_$f" model $c "$m" --ids 1,2,3,4 --format $f; done
    run "${c}_${n}_npy" model $c "$m" --ids 1,2,3,4 --format npy -o "${c}_${n}.npy"
  done
  run "attention_${n}_png" model attention "$m" --ids 1,2,3 --layer 0 --head 0 --png "att_${n}.png"
  run "attention_${n}_svg" model attention "$m" --ids 1,2,3 --svg "att_${n}.svg"
  run "attention_${n}_html" model attention "$m" --ids 1,2,3 --html "att_${n}.html"
  run "next_$n" model next "$m" --ids 1,2,3 -k 5
  run "fill_$n" model fill "$m" "the [MASK] sat" -k 5
  run "text_$n" model hidden "$m" "the cat sat" --format csv
  run "emb_$n" similar --embeddings "$m" the
done
run pe_sim_gpt2 pe sim --model "$models/gpt2" --format csv
run pe_sim_bert pe sim --model "$models/bert" --format csv
for f in table csv json md; do
  run "translate_$f" translate "나는 학생 이다" --format $f
  run "trace_$f" trace "나는 학생 이다" --format $f
  run "encoder_$f" encoder --sentence "the cat sat" --show all --format $f
  run "decoder_$f" decoder --sentence "the cat sat" --memory "나는 학생 이다" --show all --format $f
  run "encoder2_$f" encoder --sentence "the cat sat on the mat" --layers 2 --norm-first --format $f
done
run translate_npy translate "나는 학생 이다" --format npy -o translate.npy
run translate_png translate "나는 학생 이다" --png translate.png
run translate_svg translate "나는 학생 이다" --per-head --svg translate.svg
run trace_png trace "나는 학생 이다" --png trace.png
run encoder_png encoder --sentence "the cat sat" --png encoder.png
run decoder_svg decoder --sentence "the cat sat" --memory "나는 학생 이다" --svg decoder.svg
run encoder_npy encoder --sentence "the cat sat" --format npy -o encoder.npy
echo "recorded $(ls | wc -l) files in $out"
