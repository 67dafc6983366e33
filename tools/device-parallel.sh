#!/usr/bin/env bash
# On a lent multi-GPU host: NCCL collective tables (dlsim-calibrate nccl, and
# torch.distributed as a cross-check) and DDP training-step references.
# Usage: tools/device-parallel.sh NAME   (results under $OUT, NAME e.g. h200-x2)
set -uo pipefail
cd "$(dirname "$0")/.."
NAME=${1:?name}; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0   # NVLink multicast stays off on the lent hosts
N=$(nvidia-smi -L | wc -l)
LOG="$OUT/$NAME.log"
{ nvidia-smi -L; nvidia-smi topo -m; } >"$LOG" 2>&1
NCCL_ROOT=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) if nvidia.nccl.__file__ else list(nvidia.nccl.__path__)[0])' 2>>"$LOG")
echo "NCCL_ROOT=$NCCL_ROOT" >>"$LOG"; ls -R "$NCCL_ROOT" 2>&1 | head -20 >>"$LOG"
if [ -n "$NCCL_ROOT" ] && [ ! -e "$NCCL_ROOT/lib/libnccl.so" ] && [ -e "$NCCL_ROOT/lib/libnccl.so.2" ]; then
  mkdir -p /tmp/nccl/lib && ln -sf "$NCCL_ROOT/lib/libnccl.so.2" /tmp/nccl/lib/libnccl.so
  ln -sfn "$NCCL_ROOT/include" /tmp/nccl/include; NCCL_ROOT=/tmp/nccl
fi
( cmake -S calibrate -B build-cal -DCMAKE_BUILD_TYPE=Release -DNCCL_ROOT="$NCCL_ROOT" \
    -DCUDNN_ROOT=/usr && cmake --build build-cal -j 16 --target dlsim-calibrate ) >>"$LOG" 2>&1
export LD_LIBRARY_PATH="$NCCL_ROOT/lib:${LD_LIBRARY_PATH:-}"
timeout 120 build-cal/dlsim-calibrate nccl --out "$OUT/nccl-$NAME.csv" --gpus "$N" >>"$LOG" 2>&1 \
  || echo "dlsim-calibrate nccl failed rc=$?" >>"$LOG"
for g in ${DDP_GPUS:-1 $N}; do
  timeout 180 python3 bench/parallel/ddp_reference.py --out "$OUT/ddp-$NAME.jsonl" --gpus "$g" \
    >>"$LOG" 2>&1 || echo "ddp gpus=$g failed rc=$?" >>"$LOG"
done
tail -5 "$LOG"
