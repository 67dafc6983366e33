#!/usr/bin/env bash
# One device call: the corpus' peak memory again, with the per-process library workspaces warmed
# first (bench/corpus/measure_memory.py --prewarm), every model of both sides in four processes;
# before that, two models measured without and with the prewarm, each in a fresh process.
#   bench/memory/run_corpus_memory.sh OUTDIR MAX_SECONDS
set -uo pipefail
cd "$(dirname "$0")/.."
out=$1; max_s=$2
mkdir -p "$out"
python3 corpus/measure_memory.py --out "$out/diag.jsonl" c_attn_2 c_encdec_0 2>&1 | grep -v Warning | tail -n 3
python3 corpus/measure_memory.py --out "$out/diag.jsonl" --prewarm c_attn_2 c_encdec_0 2>&1 | grep -v Warning | tail -n 3
mapfile -t names < <(python3 -c "
import sys; sys.path.insert(0, 'corpus'); import corpus
print('\n'.join(corpus.names('cal') + corpus.names('test')))")
for k in 0 1 2 3; do
  part=(); for i in "${!names[@]}"; do [ $((i % 4)) -eq $k ] && part+=("${names[$i]}"); done
  python3 corpus/measure_memory.py --out "$out/memory_$k.jsonl" --prewarm --max-seconds "$max_s" "${part[@]}" \
    > "$out/log_$k.txt" 2>&1 &
done
wait
tail -n 2 "$out"/log_*.txt
cat "$out"/memory_[0-3].jsonl > "$out/memory_prewarm_h100.jsonl" && rm "$out"/memory_[0-3].jsonl
wc -l "$out/memory_prewarm_h100.jsonl"
