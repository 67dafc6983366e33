#!/usr/bin/env bash
# Configures and builds into build/ (the CLI ends up at build/dlsim; the Python
# module in build/python/ where pybind11 is found: docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/.."
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
[ -f build/CMakeCache.txt ] || cmake -S . -B build "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j "$(nproc)"
