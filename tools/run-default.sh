#!/usr/bin/env bash
# README command 1: install, build, and estimate the bundled ResNet-50 export
# on the bundled, calibrated H100 at batch 16.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/setup.sh
./tools/build.sh
./build/dlsim estimate tests/data/zoo/resnet50.onnx --machine machines/h100.yaml --batch 16 --top 25 "$@"
