#!/usr/bin/env python3
"""Checks dlsim's JSON outputs against their schemas in docs/.

Runs `dlsim estimate` on a bundled model for inference, training (AdamW, bf16
AMP) and data-parallel training (docs/estimate.schema.json), `dlsim estimate
--workload` (docs/workload-rates.schema.json) and `dlsim fom`
(docs/fom.schema.json), and validates each output against its schema (JSON
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

# (name, schema file in docs/, dlsim arguments before --format json)
CASES = [
    ("inference", "estimate.schema.json",
     ["estimate", "tests/data/zoo/resnet50.onnx", "--machine", "machines/h100.yaml", "--batch", "16"]),
    ("training", "estimate.schema.json",
     ["estimate", "tests/data/zoo/gpt2_small.onnx", "--machine", "machines/h100.yaml", "--batch", "2",
      "--mode", "training", "--optimizer", "adamw", "--dtype", "bf16", "--amp"]),
    ("data-parallel training", "estimate.schema.json",
     ["estimate", "tests/data/zoo/resnet50.onnx", "--machine", "machines/h200.yaml",
      "--batch", "32", "--mode", "training", "--gpus", "8"]),
    ("workload rates", "workload-rates.schema.json",
     ["estimate", "--workload", "workloads/candle-projection.yaml", "--machine", "h200"]),
    ("fom, estimated", "fom.schema.json", ["fom", "workloads/candle-projection.yaml"]),
    ("fom, measured", "fom.schema.json", ["fom", "workloads/candle-fom-example.yaml"]),
]


def summary(doc):
    if isinstance(doc, list):
        return f"{len(doc)} workloads"
    if "fom" in doc:
        return f"{len(doc['workloads'])} workloads, fom {doc['fom']:.3f}"
    return f"{len(doc['layers'])} layers, gpu_time_ms {doc['gpu_time_ms']:.3f}"


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
    validator_cls = jsonschema.Draft202012Validator
    validators = {}
    for _, schema_file, _ in CASES:
        if schema_file in validators:
            continue
        with open(os.path.join(args.root, "docs", schema_file), encoding="utf-8") as f:
            schema = json.load(f)
        validator_cls.check_schema(schema)
        validators[schema_file] = validator_cls(schema)
    failures = 0
    for name, schema_file, argv in CASES:
        validator = validators[schema_file]
        cmd = [args.dlsim] + argv + ["--format", "json"]
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
            print(f"ok   {name}: {summary(doc)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
