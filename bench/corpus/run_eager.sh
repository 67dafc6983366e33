#!/usr/bin/env bash
# One device call: calibrate the host, then time corpus models' eager loops on it.
#
#   bench/corpus/run_eager.sh OUTDIR MAX_SECONDS --side test|cal|all
#   bench/corpus/run_eager.sh OUTDIR MAX_SECONDS NAME [NAME ...]
#
# calibrate/host_calibrate.py runs before and after measure_eager.py (both
# pinned to cores 0-1 where there are 8 or more), so that the drift of the
# host across the run shows. Leaves in OUTDIR: host_before.yaml,
# host_after.yaml (+ .json), eager.jsonl, log.txt. ROUNDS=R times every case
# once per round (measure_eager.py --rounds).
set -uo pipefail
cd "$(dirname "$0")"
out=$1; max_s=$2; shift 2
if [ "${1:-}" = "--side" ]; then
  mapfile -t names < <(python3 corpus.py list --side "$2")
else
  names=("$@")
fi
mkdir -p "$out"
pin=()
[ "$(nproc)" -ge 8 ] && taskset -c 0-1 true 2>/dev/null && pin=(taskset -c 0-1)
cal=../../calibrate/host_calibrate.py
"${pin[@]}" python3 "$cal" --out "$out/host_before.yaml" --json "$out/host_before.json" 2>&1 | tee -a "$out/log.txt"
PYTHONUNBUFFERED=1 "${pin[@]}" python3 measure_eager.py --out "$out/eager.jsonl" --max-seconds "$max_s" \
  --rounds "${ROUNDS:-1}" \
  "${names[@]}" 2>&1 | grep -v '^\s*$' | tee -a "$out/log.txt" | tail -n 200
"${pin[@]}" python3 "$cal" --out "$out/host_after.yaml" --json "$out/host_after.json" 2>&1 | tee -a "$out/log.txt"
