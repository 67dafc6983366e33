#!/usr/bin/env bash
# Installs dlsim's build dependencies from Debian packages (run as root or
# with sudo available). Safe to run again.
set -euo pipefail
PKGS=(cmake ninja-build g++ pkg-config python3
      libonnx-dev libprotobuf-dev protobuf-compiler
      libyaml-cpp-dev libboost-graph-dev libeigen3-dev libsqlite3-dev
      libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev
      libxgboost-dev  # the boosted correction of the fitted models (src/perfdb)
      python3-jsonschema  # tools/check_json_output.py (ctest json_output_schema)
      python-is-python3   # `python -c "import dlsim"` as docs/python.md shows
      pybind11-dev python3-dev  # the Python module `import dlsim` (python/, docs/python.md)
      clang libclang-rt-14-dev)  # libFuzzer and the sanitizers (tools/fuzz.sh)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: dependencies present"
