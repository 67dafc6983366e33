#!/usr/bin/env bash
# One device call: export and measure corpus models on the GPU machine.
#
#   bench/corpus/run_device.sh OUTDIR MAX_SECONDS NAME [NAME ...]
#   bench/corpus/run_device.sh OUTDIR MAX_SECONDS --side test|cal|all
#
# Exports run on CPU cores 2.. in parallel (export.py, four models a process)
# while measure.py times the models on the GPU from cores 0-1, so the eager
# loops do not share their cores with the exporters. Leaves in OUTDIR:
#   measure.jsonl  (one line per case)   export.jsonl (one line per export)
#   onnx.tar.xz    (graph-only ONNX)     traces.tar.xz (compact kernel traces)
#   log.txt
set -uo pipefail
cd "$(dirname "$0")"
out=$1; max_s=$2; shift 2
if [ "${1:-}" = "--side" ]; then
  mapfile -t names < <(python3 corpus.py list --side "$2")
else
  names=("$@")
fi
work=$(mktemp -d)
mkdir -p "$out" "$work/onnx" "$work/traces"
cores=$(nproc)
pin_gpu=(); pin_cpu=()
if [ "$cores" -ge 8 ] && taskset -c 0-1 true 2>/dev/null; then
  pin_gpu=(taskset -c 0-1); pin_cpu=(taskset -c "2-$((cores - 1))")
fi
echo "# ${#names[@]} models; $cores cores; pinned: ${pin_gpu[*]:-no}" | tee -a "$out/log.txt"
printf '%s\n' "${names[@]}" |
  CUDA_VISIBLE_DEVICES= OMP_NUM_THREADS=1 "${pin_cpu[@]}" \
  xargs -P "$((cores > 4 ? cores - 2 : 1))" -n 3 python3 export.py --out "$work/onnx" \
  > "$out/export.jsonl" 2> "$work/export.err" &
exporters=$!
PYTHONUNBUFFERED=1 "${pin_gpu[@]}" python3 measure.py --out "$out/measure.jsonl" --traces "$work/traces" \
  --max-seconds "$max_s" "${names[@]}" 2>&1 | tee -a "$out/log.txt" | grep -v '^\s*$' | tail -n 400
wait "$exporters"
grep -v "Warning\|warn(" "$work/export.err" | tail -n 60 >> "$out/log.txt"
echo "# exports: $(grep -c '"ok": true' "$out/export.jsonl") ok, $(grep -c '"ok": false' "$out/export.jsonl") failed" | tee -a "$out/log.txt"
tar -C "$work" -cJf "$out/onnx.tar.xz" onnx
tar -C "$work" -cJf "$out/traces.tar.xz" traces
ls -la "$out"
