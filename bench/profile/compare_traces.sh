#!/usr/bin/env bash
# Runs `dlsim compare` on every profiler trace in bench/profile/data/
# (captured on the lent H100 by capture_traces.py; none of them was used to
# write the kernel-name patterns, which came from tests/data/traces/) and
# prints one line per trace: iterations found, share of kernel time aligned
# to layers, measured and estimated GPU time per iteration.
# Usage: bench/profile/compare_traces.sh [build/dlsim]
set -euo pipefail
cd "$(dirname "$0")/../.."
DLSIM=${1:-build/dlsim}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tar xzf bench/profile/data/traces-h100.tar.gz -C "$work"
printf '%-34s %5s %8s %9s %12s %12s %6s\n' trace iters aligned expected measured_ms estimated_ms ratio
for f in "$work"/*.trace.json; do
  b=$(basename "$f" .trace.json)              # MODEL_bBATCH_DTYPE[_train]
  model=${b%_b[0-9]*}; rest=${b#"$model"_b}
  batch=${rest%%_*}; dtype=$(cut -d_ -f2 <<<"$rest"); mode=inference
  [[ $b == *_train ]] && mode=training
  "$DLSIM" compare "tests/data/zoo/$model.onnx" --profile "$f" --machine h100 --batch "$batch" \
    --dtype "$dtype" --mode "$mode" --format json 2>/dev/null |
  python3 -c '
import json, sys
d = json.load(sys.stdin)
m, e = d["measured_gpu_ms"], d["estimated_gpu_ms"]
print("%-34s %5d %7.1f%% %8.1f%% %12.3f %12.3f %6.2f" % (sys.argv[1], d["iterations"],
      100 * d["aligned_share"], 100 * d["expected_share"], m, e, e / m))' "$b"
done
