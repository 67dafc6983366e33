#!/usr/bin/env bash
# One device call: bench/memory/techniques.py (optimizers, checkpointing, LLM shapes), then the
# largest batch of the models named after it, if any (bench/corpus/max_batch.py with the hints).
#   bench/memory/run_techniques.sh OUTDIR MAX_SECONDS [NAME ...]
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1; max_s=$2; shift 2
mkdir -p "$out"
t0=$(date +%s)
PYTHONUNBUFFERED=1 python3 memory/techniques.py --out "$out/techniques.jsonl" --max-seconds "$max_s" 2>&1 \
  | grep -v "Warning\|transformers\]" | tail -n 60
left=$(( max_s - ($(date +%s) - t0) ))
if [ $# -gt 0 ] && [ $left -gt 30 ]; then
  PYTHONUNBUFFERED=1 python3 corpus/max_batch.py --out "$out/max_batch.jsonl" --limit 1048576 \
    --max-seconds "$left" --hints memory/hints_h100_test.json "$@" 2>&1 | grep -v Warning | tail -n 20
fi
