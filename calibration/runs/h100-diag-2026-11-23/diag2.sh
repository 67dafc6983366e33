#!/usr/bin/env bash
# Second diagnostic call: dlsim-calibrate built against the cuDNN that
# PyTorch loads (the nvidia-cudnn wheel, 9.19) instead of the system 9.14.
set -u
D=calibration/runs/h100-diag-2026-11-23
P=$(python3 -c 'import nvidia.cudnn as c; print(list(c.__path__)[0])')
t0=$(date +%s)
cmake -S calibrate -B build-pip -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCUDNN_ROOT=$P >$OUT/build-pip.log 2>&1 && cmake --build build-pip -j16 >>$OUT/build-pip.log 2>&1 || { tail -30 $OUT/build-pip.log; exit 1; }
grep "dlsim-calibrate: cuDNN" $OUT/build-pip.log
echo "# built in $(( $(date +%s) - t0 )) s"
export LD_LIBRARY_PATH=$P/lib:${LD_LIBRARY_PATH:-}
build-pip/dlsim-calibrate run --jobs $D/conv-sample.txt --out $OUT/cpp919-conv.jsonl --max-seconds 50 --progress-seconds 20 2>&1 | tail -3
gzip $OUT/*.jsonl
