#!/usr/bin/env bash
# CI jobs of issue 7 that follow tools/test.sh: the test suite under
# ASan + UBSan, then a short fuzz run of every target. DLSIM_FUZZ_SECONDS
# sets the time per fuzz target (default 60).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
./tools/sanitize.sh
echo "ci-extra: sanitizer job took $(( $(date +%s) - start )) s"
start=$(date +%s)
./tools/fuzz.sh "${DLSIM_FUZZ_SECONDS:-60}"
echo "ci-extra: fuzz job took $(( $(date +%s) - start )) s"
