#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root: framework-level
# calibration of the given job lists into $OUT/<name>.jsonl within a time
# budget, restarting the measuring process if a CUDA error kills its context
# (it resumes from its own output).
# Usage: tools/device-calibrate.sh NAME SECONDS JOBFILE...
set -u
name=$1; budget=$2; shift 2
jobs=(); for j in "$@"; do jobs+=(--jobs "$j"); done
out="$OUT/$name.jsonl"
start=$(date +%s)
for attempt in 1 2 3 4 5 6; do
  left=$(( budget - ($(date +%s) - start) ))
  [ "$left" -gt 20 ] || break
  PYTHONUNBUFFERED=1 python3 calibrate/torch_calibrate.py "${jobs[@]}" --out "$out" --shuffle \
      --max-seconds "$left" && break
  echo "# calibration process exited ($?); restarting (attempt $attempt)"
done
echo "# records: $(wc -l < "$out"), ok: $(grep -c '"status": "ok"' "$out")"
