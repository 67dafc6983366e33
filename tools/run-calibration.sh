#!/usr/bin/env bash
# Runs on the lent GPU machine, from the repository root: builds
# dlsim-calibrate into build-gpu, runs its tests (the GPU smoke test
# included), probes the machine, then measures job lists and sweeps within
# a wall-clock budget, restarting the measuring process when a CUDA error
# breaks its context (each run resumes from its own output). Everything is
# written under $OUT. docs/calibration.md explains the output.
#
# Usage: tools/run-calibration.sh [-t SECONDS] [-s SWEEP]... [-n NAME] [-d DATASHEET.yaml]
#                                 [-r PREVIOUS.jsonl[.gz]] [-o] [-P] [JOBFILE...]
#   -t  total wall-clock budget of this script, build included (default 540)
#   -s  built-in sweep: gemm, conv, memory, launch, all (repeatable)
#   -n  records file name: $OUT/NAME.jsonl (default calibration)
#   -d  datasheet YAML for `probe` to check (key: number lines)
#   -r  records of an earlier call to resume from (copied to $OUT/NAME.jsonl first)
#   -o  measure in job-list order (default: a fixed shuffle, so a budget cut
#       leaves every kind of key partly covered)
#   -P  skip the probe
set -u
budget=540; name=calibration; datasheet=""; resume=""; shuffle=(--shuffle); probe=1
sweeps=()
while getopts "t:s:n:d:r:oP" opt; do
  case $opt in
    t) budget=$OPTARG ;;
    s) sweeps+=(--sweep "$OPTARG") ;;
    n) name=$OPTARG ;;
    d) datasheet=$OPTARG ;;
    r) resume=$OPTARG ;;
    o) shuffle=() ;;
    P) probe=0 ;;
    *) sed -n '2,22p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
jobs=()
for j in "$@"; do jobs+=(--jobs "$j"); done
if [ ${#jobs[@]} -eq 0 ] && [ ${#sweeps[@]} -eq 0 ]; then
  echo "run-calibration: give job files and/or -s SWEEP" >&2; exit 2
fi
OUT=${OUT:-$PWD/calibration-out}
mkdir -p "$OUT"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

# --- build (cuDNN headers may live in /usr/include/x86_64-linux-gnu) ---
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
echo "# building dlsim-calibrate into build-gpu"
if ! { cmake -S calibrate -B build-gpu "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
         -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" &&
       cmake --build build-gpu -j"$(nproc)"; } > "$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"; echo "run-calibration: build failed (see $OUT/build.log)"; exit 1
fi
echo "# built in $(elapsed) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv > "$OUT/gpu-state.csv" 2>&1 || true

# --- tests: host checks and the GPU smoke test ---
(cd build-gpu && ctest --output-on-failure) > "$OUT/ctest.log" 2>&1
echo "# ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"

# --- probe ---
if [ "$probe" = 1 ]; then
  ds=(); [ -n "$datasheet" ] && ds=(--datasheet "$datasheet")
  build-gpu/dlsim-calibrate probe --out "$OUT/machine-skeleton.yaml" "${ds[@]}" \
    > "$OUT/probe.log" 2>&1
  cat "$OUT/probe.log"
fi

# --- run, restarted after a broken CUDA context (exit code 3) ---
records="$OUT/$name.jsonl"
if [ -n "$resume" ] && [ ! -s "$records" ]; then
  case $resume in
    *.gz) gzip -dc "$resume" > "$records" ;;
    *) cp "$resume" "$records" ;;
  esac
  echo "# resuming from $resume ($(wc -l < "$records") records)"
fi
for attempt in 1 2 3 4 5 6 7 8; do
  left=$(( budget - $(elapsed) - 15 ))
  [ "$left" -gt 20 ] || { echo "# no time left for measuring"; break; }
  build-gpu/dlsim-calibrate run "${jobs[@]}" "${sweeps[@]}" "${shuffle[@]}" --out "$records" \
      --max-seconds "$left" 2>&1 | tee -a "$OUT/run.log"
  rc=${PIPESTATUS[0]}
  [ "$rc" = 3 ] || break
  echo "# the CUDA context broke (attempt $attempt): restarting to resume"
done

# --- summary ---
if [ -f "$records" ]; then
  n=$(wc -l < "$records")
  keys=$(grep -o '"key": "[^"]*"' "$records" | sort -u | wc -l)
  echo "# $records: $n records, $keys keys"
  for s in ok noisy unsupported failed; do
    printf '#   %-12s %s\n' "$s" "$(grep -c "\"status\": \"$s\"" "$records")"
  done
  grep -o '"key": "[a-z_]*' "$records" | sort | uniq -c | sed 's/"key": "/#   kind /'
  # Files over 15 MiB do not come back from the device machine: compress.
  if [ "$(stat -c %s "$records")" -gt $((15 << 20)) ]; then
    gzip -9f "$records"; echo "# compressed to $records.gz"
  fi
fi
echo "# total $(elapsed) s; files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
