#!/usr/bin/env bash
# One diagnostic device call (2026-11-23): where dlsim-calibrate's conv time
# goes (--profile), and the PyTorch-level pass's rate on conv and other keys.
set -u
D=calibration/runs/h100-diag-2026-11-23
t0=$(date +%s)
cmake -S calibrate -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >$OUT/build.log 2>&1 && cmake --build build-gpu -j16 >>$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "# built in $(( $(date +%s) - t0 )) s"
build-gpu/dlsim-calibrate run --jobs $D/conv-sample.txt --out $OUT/cpp-conv.jsonl --max-seconds 45 --profile --progress-seconds 10 2>$OUT/cpp-profile.log | tail -3
tail -2 $OUT/cpp-profile.log
PYTHONUNBUFFERED=1 python3 calibrate/torch_calibrate.py --jobs $D/other-sample.txt --out $OUT/torch-other.jsonl --max-seconds 60 | tail -2
PYTHONUNBUFFERED=1 python3 calibrate/torch_calibrate.py --jobs $D/conv-sample.txt --out $OUT/torch-conv.jsonl --max-seconds 45 | tail -2
python3 - <<'PY' > $OUT/env.txt 2>&1
import torch, os, glob
print(torch.__version__, torch.backends.cudnn.version())
try:
    import nvidia.cudnn as c; p=list(c.__path__)[0]; print(p); print(os.listdir(p)); print(glob.glob(p+"/include/*")[:20]); print(glob.glob(p+"/lib/*"))
except Exception as e: print("no nvidia.cudnn", e)
PY
cat $OUT/env.txt
gzip $OUT/*.jsonl
echo "# total $(( $(date +%s) - t0 )) s"
