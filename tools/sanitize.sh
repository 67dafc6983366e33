#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (issue 7), in build-asan/. Any sanitizer report fails the test it occurs
# in (UBSan halts on the first error). dlsim-calibrate is left out (CUDA);
# its host-only code and tests are built from tests/ instead. Debug info is
# line tables only (-g1): reports still name file and line, and objects are
# about a quarter smaller than with -g (build-asan/ takes 1.6 GB; CI hosts
# can be short of disk).
set -euo pipefail
cd "$(dirname "$0")/.."
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
[ -f build-asan/CMakeCache.txt ] || cmake -S . -B build-asan "${GEN[@]}" \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DDLSIM_SANITIZE=ON -DDLSIM_BUILD_CALIBRATE=OFF
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
