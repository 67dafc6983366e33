#!/usr/bin/env bash
# Builds calibration/h100-cudnn.sqlite, the algorithm database `dlsim analyze`
# reads (machines/h100.yaml: calibration.algorithm_db), from dlsim-calibrate's
# records. The per-record kernel lists (150 MB of kernel names) are dropped:
# analyze needs only each algorithm's times and the heuristic's mark, and the
# full records stay in calibration/records-h100-cudnn.jsonl.gz. The build runs
# it (CMakeLists.txt, target algorithm_db) when the file is missing or older
# than the records; the database itself is not in git.
# Usage: tools/build-algorithm-db.sh [DLSIM_BINARY]   (from the repository root)
set -euo pipefail
dlsim=${1:-build/dlsim}
src=calibration/records-h100-cudnn.jsonl.gz
out=calibration/h100-cudnn.sqlite
tmp=$(mktemp --suffix=.jsonl)
trap 'rm -f "$tmp"' EXIT
zcat "$src" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    r["kernels"] = []
    print(json.dumps(r))
' >"$tmp"
rm -f "$out.tmp"
"$dlsim" db import "$tmp" --db "$out.tmp" >/dev/null
sqlite3 "$out.tmp" VACUUM 2>/dev/null || true
mv -f "$out.tmp" "$out"  # readers never see a half-written database
ls -l "$out"
