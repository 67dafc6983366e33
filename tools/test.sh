#!/usr/bin/env bash
# README command 2: install, build, run every test (GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
./tools/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
