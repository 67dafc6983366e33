#!/usr/bin/env bash
# Configures and builds into build/ (the CLI ends up at build/dlsim; the Python
# module in build/python/ where pybind11 is found: docs/python.md).
set -euo pipefail
cd "$(dirname "$0")/.."
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
[ -f build/CMakeCache.txt ] || cmake -S . -B build "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j "$(nproc)"
# The Python module, where it was built: installed into the user's site-packages
# (~/.local, or $PYTHONUSERBASE) so that `python3 -c "import dlsim"` works from
# anywhere; PYTHONPATH=build/python does the same without installing.
if [ -d build/python/dlsim ]; then
  prefix="${PYTHONUSERBASE:-$HOME/.local}"
  cmake --install build --component python --prefix "$prefix" >/dev/null
  echo "build: Python module dlsim installed under $prefix"
fi
