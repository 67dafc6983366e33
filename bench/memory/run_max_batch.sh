#!/usr/bin/env bash
# One device call: the largest fp32 training batch of the test side's first model of
# twelve families (bench/memory/hints_h100_test.json: dlsim's prediction, where the
# search starts), by bracketing and bisection (bench/corpus/max_batch.py).
#   bench/memory/run_max_batch.sh OUTDIR [MAX_SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1; max_s=${2:-540}
mkdir -p "$out"
names=$(python3 -c "import json; print(' '.join(json.load(open('memory/hints_h100_test.json'))))")
PYTHONUNBUFFERED=1 python3 corpus/max_batch.py --out "$out/max_batch.jsonl" --limit 1048576 \
  --max-seconds "$max_s" --hints memory/hints_h100_test.json $names 2>&1 | grep -v Warning | tail -n 100
