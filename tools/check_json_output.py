#!/usr/bin/env python3
"""Checks `dlsim estimate --format json` against docs/estimate.schema.json.

Runs the CLI on a bundled model for inference, training (AdamW, bf16 AMP) and
data-parallel training, and validates each output against the schema (JSON
Schema draft 2020-12) with the `jsonschema` package (Debian: python3-jsonschema,
installed by tools/setup.sh). If this interpreter lacks it, the script runs
itself again under /usr/bin/python3; if no interpreter has it, it exits 77
(ctest: skipped).

Usage: tools/check_json_output.py --dlsim build/dlsim [--root DIR]
Run by ctest as the test `json_output_schema` (label `docs`).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77

CASES = [
    ("inference", ["tests/data/zoo/resnet50.onnx", "--machine", "machines/h100.yaml", "--batch", "16"]),
    ("training", ["tests/data/zoo/gpt2_small.onnx", "--machine", "machines/h100.yaml", "--batch", "2",
                  "--mode", "training", "--optimizer", "adamw", "--dtype", "bf16", "--amp"]),
    ("data-parallel training", ["tests/data/zoo/resnet50.onnx", "--machine", "machines/h200.yaml",
                                "--batch", "32", "--mode", "training", "--gpus", "8"]),
]


def import_jsonschema():
    try:
        import jsonschema  # noqa: F401
        return jsonschema
    except ImportError:
        pass
    if os.environ.get("DLSIM_CHECK_JSON_REEXEC") != "1":
        for py in ("/usr/bin/python3", "/usr/local/bin/python3"):
            if os.path.exists(py) and os.path.realpath(py) != os.path.realpath(sys.executable):
                env = dict(os.environ, DLSIM_CHECK_JSON_REEXEC="1")
                r = subprocess.run([py, "-c", "import jsonschema"], capture_output=True)
                if r.returncode == 0:
                    os.execve(py, [py] + sys.argv, env)
    print("check_json_output: no Python with the jsonschema package (apt-get install "
          "python3-jsonschema): skipped")
    sys.exit(SKIP)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--root", default=ROOT)
    args = ap.parse_args()
    jsonschema = import_jsonschema()
    with open(os.path.join(args.root, "docs", "estimate.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    validator_cls = jsonschema.Draft202012Validator
    validator_cls.check_schema(schema)
    validator = validator_cls(schema)
    failures = 0
    for name, argv in CASES:
        cmd = [args.dlsim, "estimate"] + argv + ["--format", "json"]
        r = subprocess.run(cmd, cwd=args.root, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL {name}: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
            failures += 1
            continue
        doc = json.loads(r.stdout)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:20]:
            where = "/".join(str(p) for p in e.path) or "(top)"
            print(f"FAIL {name}: {where}: {e.message[:300]}")
        if errors:
            failures += 1
        else:
            print(f"ok   {name}: {len(doc['layers'])} layers, gpu_time_ms {doc['gpu_time_ms']:.3f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
