#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root: counts the kernels
# one framework call of each key launches (calibrate/torch_kernel_count.py)
# into $OUT/NAME.jsonl.gz within a time budget, restarting the counting process
# if a CUDA error kills its context (it resumes from its own output).
# Usage: tools/device-count-kernels.sh NAME SECONDS JOBFILE...
set -u
name=$1; budget=$2; shift 2
jobs=(); for j in "$@"; do jobs+=(--jobs "$j"); done
mkdir -p /tmp/kernel-count
out="/tmp/kernel-count/$name.jsonl"  # long names: gzipped into $OUT at the end
[ -f "$OUT/$name.jsonl.gz" ] && gunzip -c "$OUT/$name.jsonl.gz" > "$out"
start=$(date +%s)
for attempt in 1 2 3 4 5 6 7 8; do
  left=$(( budget - ($(date +%s) - start) ))
  [ "$left" -gt 15 ] || break
  PYTHONUNBUFFERED=1 python3 calibrate/torch_kernel_count.py "${jobs[@]}" --out "$out" \
      --max-seconds "$left" >> "$OUT/$name.log" 2>&1 && break
  echo "# counting process exited ($?); restarting (attempt $attempt)"
done
tail -3 "$OUT/$name.log"
echo "# records: $(wc -l < "$out"), counted: $(grep -c '"status": "counted"' "$out"), failed: $(grep -c '"status": "failed"' "$out")"
gzip -c "$out" > "$OUT/$name.jsonl.gz"
