#!/usr/bin/env bash
# One device call for lowering work: training-mode exports of corpus models
# (export.py --train, on CPU cores 2..) beside attribute.py's kernel-to-op
# attribution of named cases (GPU, cores 0-1).
#
#   bench/corpus/run_diagnose.sh OUTDIR --export-side all|cal|test|none \
#       --cases inference:fp32,training:bf16_amp NAME [NAME ...]
# EXPORT_FLAG=--half exports the fp16 models instead (on the GPU, beside the
# attribution). Leaves in OUTDIR: onnx_train.tar.xz (or onnx_half.tar.xz),
# export_train.jsonl (export_half.jsonl), attribute.jsonl, log.txt
set -uo pipefail
cd "$(dirname "$0")"
out=$1; side=$3; cases=$5; shift 5
flag=${EXPORT_FLAG:---train}
what=${flag#--}
work=$(mktemp -d)
mkdir -p "$out" "$work/onnx"
cores=$(nproc)
pin_gpu=(); pin_cpu=()
if [ "$cores" -ge 8 ] && taskset -c 0-1 true 2>/dev/null; then
  pin_gpu=(taskset -c 0-1); pin_cpu=(taskset -c "2-$((cores - 1))")
fi
exporters=
if [ "$side" != none ]; then
  python3 corpus.py list --side "$side" |
    OMP_NUM_THREADS=1 "${pin_cpu[@]}" \
    xargs -P "$((cores > 4 ? cores - 2 : 1))" -n 2 python3 export.py "$flag" --out "$work/onnx" \
    > "$out/export_$what.jsonl" 2> "$work/export.err" &
  exporters=$!
fi
if [ "$#" -gt 0 ]; then
  PYTHONUNBUFFERED=1 "${pin_gpu[@]}" python3 attribute.py --out "$out/attribute.jsonl" --cases "$cases" "$@" \
    2>&1 | grep -v '^\s*$' | tail -n 100 | tee -a "$out/log.txt"
fi
if [ -n "$exporters" ]; then
  wait "$exporters"
  grep -v "Warning\|warn(" "$work/export.err" | tail -n 60 >> "$out/log.txt"
  echo "# exports: $(grep -c '"ok": true' "$out/export_$what.jsonl") ok, $(grep -c '"ok": false' "$out/export_$what.jsonl") failed" | tee -a "$out/log.txt"
  tar -C "$work" -cJf "$out/onnx_$what.tar.xz" onnx
fi
ls -la "$out"
