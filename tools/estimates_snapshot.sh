#!/usr/bin/env bash
# A guard for refactorings that must not change any figure: runs
# `dlsim estimate --format json` on every model under tests/data/zoo/ and
# tests/data/probes/ for machines h100 and h200, inference and training,
# batches 1 and 16, dtypes fp32 and fp16, and writes everything (each run's
# arguments, exit status, stdout and stderr) to one file. Two builds agree
# when their snapshots are byte-identical:
#   tools/estimates_snapshot.sh build /tmp/before.txt   # unmodified tree
#   ... change code, rebuild ...
#   tools/estimates_snapshot.sh build /tmp/after.txt && cmp /tmp/before.txt /tmp/after.txt
# JOBS=N runs N estimates at once (default 2); the file's order is fixed.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR OUTPUT_FILE" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
dlsim=$(cd "$1" && pwd)/dlsim
out=$2
jobs=${JOBS:-2}
[[ -x $dlsim ]] || { echo "$0: no dlsim binary at $dlsim" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One line per run: "<id> <model> <machine> <mode> <batch> <dtype>".
i=0
cd "$root"
for model in tests/data/zoo/*.onnx tests/data/probes/*.onnx; do
  for machine in h100 h200; do
    for mode in inference training; do
      for batch in 1 16; do
        for dtype in fp32 fp16; do
          printf '%05d %s %s %s %s %s\n' "$i" "$model" "$machine" "$mode" "$batch" "$dtype"
          i=$((i + 1))
        done
      done
    done
  done
done >"$work/runs"

run_one() {
  local id=$1 model=$2 machine=$3 mode=$4 batch=$5 dtype=$6
  local rc=0
  "$DLSIM" estimate "$model" --machine "$machine" --mode "$mode" --batch "$batch" \
    --dtype "$dtype" --format json >"$WORK/$id.out" 2>"$WORK/$id.err" || rc=$?
  echo "$rc" >"$WORK/$id.rc"
}
export -f run_one
export DLSIM=$dlsim WORK=$work
xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ <"$work/runs"

while read -r id model machine mode batch dtype; do
  echo "=== $model --machine $machine --mode $mode --batch $batch --dtype $dtype"
  echo "--- exit $(cat "$work/$id.rc")"
  cat "$work/$id.out"
  echo "--- stderr"
  cat "$work/$id.err"
done <"$work/runs" >"$out"
echo "$0: $(wc -l <"$work/runs") runs -> $out"
