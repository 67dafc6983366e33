#!/usr/bin/env bash
# Third diagnostic call: convolutions through cuDNN's graph API (engine
# configurations, as PyTorch benchmarks them) on the conv sample.
set -u
D=calibration/runs/h100-diag-2026-11-23
t0=$(date +%s)
cmake -S calibrate -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >$OUT/build.log 2>&1 && cmake --build build-gpu -j16 >>$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "# built in $(( $(date +%s) - t0 )) s"
(cd build-gpu && ctest 2>&1 | tail -2)
build-gpu/dlsim-calibrate run --key "conv_fwd n=16 c=224 h=28 w=28 k=128 r=1 s=1 pad_h=0 pad_w=0 stride_h=1 stride_w=1 dil_h=1 dil_w=1 groups=1 dtype=fp16 math=fp16 layout=nchw" --out $OUT/one.jsonl --profile 2>&1 | tail -25
build-gpu/dlsim-calibrate run --jobs $D/conv-sample.txt --out $OUT/eng-conv.jsonl --max-seconds 150 --profile --progress-seconds 20 2>$OUT/eng-profile.log | tail -3
grep -c "^# profile" $OUT/eng-profile.log; grep -v "^#" $OUT/eng-profile.log | head
gzip $OUT/*.jsonl
echo "# total $(( $(date +%s) - t0 )) s"
