#!/usr/bin/env python3
"""A zoo-blind copy of a calibrated machine: prices as a user with a new model sees them.

The bundled H100 database holds the exact kernels of the zoo and of the
corpus's calibration side, measured for them. A user's model has none of its
kernels measured: they are priced by the models fitted on everything else
(the shape-space sweeps, other models' keys). This script writes

    OUT/<machine>-blind.sqlite  the database without any record of those keys
                                (`dlsim db exclude`), its models fitted anew
    OUT/<machine>-blind.yaml    the machine file, reading that database

and prints the machine file's path, for compare.py (zoo) and
bench/corpus/evaluate.py (corpus) to estimate with:

    python3 bench/accuracy/blind.py
    python3 bench/accuracy/compare.py --machine build/blind/h100-blind.yaml \\
        --out build/blind/zoo.md --cases-csv build/blind/zoo.csv
    python3 bench/corpus/evaluate.py --side test --machine build/blind/h100-blind.yaml

The keys left out are those of the job lists planned for the zoo
(calibration/jobs/zoo*.txt, zoo-full/inference.txt and training.txt) and for
the corpus's calibration side (corpus-cal*.txt); the sweeps stay. A machine
that prices what its database lacks from a reference (calibration.scale_from
beside its perf_db: the H100 from the H200's) reads a blind copy of that
reference too, OUT/<reference>-blind.{sqlite,yaml}.

Usage: blind.py [--machine h100] [--dlsim build/dlsim] [--out-dir build/blind]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
JOBS = os.path.join(ROOT, "calibration", "jobs")


def own_key_lists():
    """The job lists of the zoo's and the corpus calibration side's own keys."""
    lists = sorted(glob.glob(os.path.join(JOBS, "zoo*.txt")) + glob.glob(os.path.join(JOBS, "corpus-cal*.txt")))
    lists += [os.path.join(JOBS, "zoo-full", f) for f in ("inference.txt", "training.txt")]
    return [p for p in lists if os.path.exists(p)]


def blind_machine_text(text, db_path, name):
    """The machine file's text reading db_path, its other relative paths made absolute."""
    out = re.sub(r"(?m)^(\s*perf_db:\s*)\S+", lambda m: m.group(1) + db_path, text, count=1)
    out = out.replace("../calibration/", os.path.join(ROOT, "calibration") + "/")
    return re.sub(r"(?m)^name:\s*\S+", f"name: {name}", out, count=1)


def make_blind(machine_path, dlsim, out_dir, ref_yaml=None):
    """Writes the blind database and machine file of machine_path; its
    calibration.scale_from becomes ref_yaml (the line dropped when None).
    Returns the machine file's path."""
    with open(machine_path) as f:
        text = f.read()
    m = re.search(r"(?m)^\s*perf_db:\s*(\S+)", text)
    if not m:
        sys.exit(f"blind.py: {machine_path}: no calibration.perf_db to leave keys out of")
    db = os.path.normpath(os.path.join(os.path.dirname(machine_path), m.group(1)))
    name = os.path.splitext(os.path.basename(machine_path))[0] + "-blind"
    out_db = os.path.join(out_dir, name + ".sqlite")
    cmd = [dlsim, "db", "exclude", "--db", db, "--out", out_db]
    for path in own_key_lists():
        cmd += ["--keys", path]
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    text = blind_machine_text(text, out_db, name)
    text = re.sub(r"(?m)^(\s*)scale_from:\s*\S+.*\n",
                  lambda s: f"{s.group(1)}scale_from: {ref_yaml}\n" if ref_yaml else "", text, count=1)
    out_yaml = os.path.join(out_dir, name + ".yaml")
    with open(out_yaml + ".partial", "w") as f:
        f.write(text)
    os.replace(out_yaml + ".partial", out_yaml)
    return out_yaml


def reference(machine_path):
    """(path, has a perf_db) of machine_path's scale_from reference, or None."""
    ref = re.search(r"(?m)^\s*scale_from:\s*(\S+)", open(machine_path).read())
    if not ref:
        return None
    path = os.path.normpath(os.path.join(os.path.dirname(machine_path), ref.group(1)))
    return path, re.search(r"(?m)^\s*perf_db:", open(path).read()) is not None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--machine", default="h100", help="a bundled machine with its own perf_db")
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "build", "blind"))
    args = ap.parse_args()
    src = os.path.join(ROOT, "machines", f"{args.machine}.yaml")
    out_dir = os.path.abspath(args.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    ref = reference(src)
    ref_yaml = None if ref is None else make_blind(ref[0], args.dlsim, out_dir) if ref[1] else ref[0]
    print(make_blind(src, args.dlsim, out_dir, ref_yaml))


if __name__ == "__main__":
    main()
