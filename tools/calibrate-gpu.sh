#!/usr/bin/env bash
# Runs on the lent GPU machine from the repository root: the whole
# calibration behind a bundled machine database, timed phase by phase.
#   1. dlsim-calibrate: build, GPU smoke test, probe (machine skeleton with
#      measured bandwidth, GEMM peaks, launch latency) and the launch sweep;
#   2. the PyTorch-level pass (calibrate/torch_calibrate.py, cudnn.benchmark)
#      over the zoo's job lists, the sweep grids and the attention grid:
#      the records `dlsim db import` turns into the perf database.
# Everything lands in $OUT. The pass resumes: give the records of an earlier
# call with -r to continue where it stopped (the probe is then skipped).
#
# Usage: tools/calibrate-gpu.sh [-t SECONDS] [-r PREVIOUS.jsonl] [-d DATASHEET.yaml] NAME [JOBFILE...]
#   -t  wall-clock budget of this call (default 570)
#   -r  records of an earlier call (copied to $OUT/NAME.jsonl; skips phase 1)
#   -d  datasheet YAML the probe checks its measurements against
#   JOBFILE defaults to calibration/jobs/zoo-full/*.txt and calibration/jobs/attention.txt
set -u
budget=570; resume=""; datasheet=""
while getopts "t:r:d:" opt; do
  case $opt in
    t) budget=$OPTARG ;;
    r) resume=$OPTARG ;;
    d) datasheet=$OPTARG ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,17p' "$0"; exit 2; }
name=$1; shift
jobs=("$@")
[ ${#jobs[@]} -gt 0 ] || jobs=(calibration/jobs/zoo-full/*.txt calibration/jobs/attention.txt)
OUT=${OUT:-$PWD/calibration-out}
mkdir -p "$OUT"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

if [ -z "$resume" ]; then
  ds=(); [ -n "$datasheet" ] && ds=(-d "$datasheet")
  echo "# phase 1: dlsim-calibrate build, smoke test, probe, launch sweep"
  OUT="$OUT" tools/run-calibration.sh -t 150 -s launch -n "$name-probe" "${ds[@]}" \
    > "$OUT/$name-probe.log" 2>&1
  tail -n 12 "$OUT/$name-probe.log"
  echo "# phase 1 took $(elapsed) s"
else
  case $resume in
    *.gz) gzip -dc "$resume" > "$OUT/$name.jsonl" ;;
    *) cp "$resume" "$OUT/$name.jsonl" ;;
  esac
  echo "# resuming from $resume ($(wc -l < "$OUT/$name.jsonl") records)"
fi

t2=$(date +%s)
echo "# phase 2: PyTorch-level pass over ${jobs[*]}"
OUT="$OUT" tools/device-calibrate.sh "$name" $(( budget - $(elapsed) - 10 )) "${jobs[@]}"
echo "# phase 2 took $(( $(date +%s) - t2 )) s; this call $(elapsed) s in all"
