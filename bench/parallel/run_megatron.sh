#!/usr/bin/env bash
# One device call: the Megatron-style parallel training references (issue 27).
#
#   bash bench/parallel/run_megatron.sh OUTDIR [extra megatron_suite.py args]
#
# e.g. extra args: --max-seconds 300, --only tp2_1.3b,pp4_mb1x16_1.3b,
# --gpus 4, --profile none. Detects the GPU count and name, forces the
# NVLink-multicast-off variables, runs the 2-GPU configs then (on 4+ GPUs)
# the 4-GPU configs, and leaves in OUTDIR:
#   megatron-<gpu>-x<N>.jsonl  one line per config (+ "_env" lines)
#   megatron-<gpu>-x<N>.log    stdout/stderr, nvidia-smi -L and topo
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run_megatron.sh OUTDIR [extra args]}
shift
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "${n:-0}" -eq 0 ]; then
  n=$(python3 -c 'import torch; print(torch.cuda.device_count())')
fi
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
case "$name" in
  *H200*) gpu=h200 ;;
  *H100*) gpu=h100 ;;
  *) gpu=$(echo "${name:-gpu}" | tr 'A-Z ' 'a-z-' | tr -cd 'a-z0-9-') ;;
esac
base="$out/megatron-$gpu-x$n"
log="$base.log"
{ date -u; nvidia-smi -L; nvidia-smi topo -m; } > "$log" 2>&1
echo "# $n x $name -> $base.jsonl" | tee -a "$log"
python3 "$here/megatron_suite.py" --out "$base.jsonl" "$@" 2>&1 | tee -a "$log" \
  | grep -v '^\s*$' | tail -n 200
rc=${PIPESTATUS[0]}
echo "# exit $rc; $(grep -c '"status": "ok"' "$base.jsonl" 2>/dev/null) ok," \
  "$(grep -c '"status": "error"' "$base.jsonl" 2>/dev/null) error," \
  "$(grep -c '"status": "not_run"\|"status": "skipped"' "$base.jsonl" 2>/dev/null) not run" | tee -a "$log"
exit "$rc"
