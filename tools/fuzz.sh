#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/ and fuzzes each for
# SECONDS (default 60) from its seed corpus in fuzz/corpus/<target>/, if any
# (issue 7).
# Fails on the first crash, hang (> 10 s per input), leak, UBSan report or
# input over 2 GiB; the input that did it is left in build-fuzz/artifacts/
# <target>/: copy it to fuzz/regressions/<target>/ once fixed (replayed by
# tests/fuzz). New inputs found go to build-fuzz/corpus/<target>/ (not
# committed).
#   tools/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(onnx_import_fuzz onnx_graph_fuzz machine_yaml_fuzz workload_yaml_fuzz
                                    records_fuzz trace_fuzz sweep_grid_fuzz training_job_fuzz
                                    perfdb_file_fuzz)
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
[ -f build-fuzz/CMakeCache.txt ] || CC=clang CXX=clang++ cmake -S . -B build-fuzz "${GEN[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDLSIM_BUILD_FUZZERS=ON -DDLSIM_SANITIZE=ON \
  -DDLSIM_BUILD_TESTS=OFF -DDLSIM_BUILD_CALIBRATE=OFF
cmake --build build-fuzz -j "$(nproc)" --target "${TARGETS[@]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
for t in "${TARGETS[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/artifacts/$t"
  echo "fuzz: $t for $SECONDS_PER_TARGET s"
  seeds=(); [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  rc=0
  "build-fuzz/fuzz/$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t/" \
    "build-fuzz/corpus/$t" "${seeds[@]}" > "build-fuzz/artifacts/$t/log.txt" 2>&1 || rc=$?
  grep -E "^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|==[0-9]+==ERROR)" \
    "build-fuzz/artifacts/$t/log.txt" || true
  [ "$rc" -eq 0 ] || { echo "fuzz: $t FAILED, exit $rc (build-fuzz/artifacts/$t/)"; exit 1; }
done
echo "fuzz: all targets ran clean"
