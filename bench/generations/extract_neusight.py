#!/usr/bin/env python3
"""Extracts NeuSight's public measurements into bench/generations/data/.

  e2e_neusight.csv       end-to-end times of Hugging Face models (fp32, eager) per GPU,
                         with NeuSight's and its roofline baseline's published predictions
  kernels_neusight.csv.gz per-kernel times (GEMM/bmm, elementwise, layer norm, softmax) per GPU

Reads a git mirror of github.com/sitar-lab/NeuSight (`fetch` it, or `git clone --mirror`):
  python3 bench/generations/extract_neusight.py --repo /path/to/NeuSight.git [--commit 6945927d]
Provenance: bench/generations/data/PROVENANCE.md.
"""
import argparse, csv, gzip, io, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
LABEL = "scripts/asplos/label"
PRED = "scripts/asplos/results/prediction"
DATASET = "scripts/asplos/data/dataset"
MODELS = {"bert_large", "gpt2_large", "gpt3_xl", "gpt3_27", "opt_13"}  # not the MoE switchxl4
GPU_IDS = {  # NeuSight's device folder -> dlsim machine name
    "NVIDIA_H100_80GB_HBM3": "h100", "NVIDIA_A100-PCIE-40GB": "a100-pcie-40gb",
    "NVIDIA_A100_80GB_PCIe": "a100-pcie-80gb", "Tesla_V100-PCIE-32GB": "v100-pcie-32gb",
    "Tesla_P100-PCIE-16GB": "p100-pcie-16gb", "Tesla_T4": "t4", "Tesla_P4": "p4", "NVIDIA_L4": "l4",
}
DEVICE_NAMES = {"NVIDIA H100 80GB HBM3": "h100", "NVIDIA A100-PCIE-40GB": "a100-pcie-40gb",
                "NVIDIA A100 80GB PCIe": "a100-pcie-80gb", "Tesla V100-PCIE-32GB": "v100-pcie-32gb",
                "Tesla P100-PCIE-16GB": "p100-pcie-16gb", "Tesla T4": "t4", "Tesla P4": "p4",
                "NVIDIA L4": "l4"}
NAME_RE = re.compile(r"^(\w+?)-(inf|train)-(\d+)-(\d+)\.json$")


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True).stdout


def show(repo, commit, path):
    return git(repo, "show", f"{commit}:{path}").decode()


def ls(repo, commit, path):
    out = git(repo, "ls-tree", "-r", "-z", "--name-only", commit, path).decode()
    return [p for p in out.split("\0") if p]


def e2e_rows(repo, commit):
    rows = []
    for path in sorted(ls(repo, commit, LABEL)):
        parts = path.split("/")
        gpu_dir, name = parts[-2], parts[-1]
        m = NAME_RE.match(name)
        if gpu_dir not in GPU_IDS or not m or m.group(1) not in MODELS:
            continue  # AMD, fusion, distributed, MoE
        model, mode, seq, batch = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        measured = json.loads(show(repo, commit, path))
        row = {"model": model, "gpu": GPU_IDS[gpu_dir], "neusight_gpu": gpu_dir,
               "mode": "inference" if mode == "inf" else "training", "batch": batch, "seq": seq,
               "measured_ms": round(measured["e2e_latency"], 4),
               "measured_fw_ms": round(measured["fw_latency"], 4),
               "measured_bw_ms": round(measured.get("bwall_latency", 0) or 0, 4)}
        for method in ("neusight", "roofline"):
            try:
                pred = json.loads(show(repo, commit, f"{PRED}/{gpu_dir}/{method}/{name}"))
                row[f"{method}_pred_ms"] = round(pred["e2e_latency"], 4)
            except subprocess.CalledProcessError:
                row[f"{method}_pred_ms"] = ""
        row["source"] = path
        rows.append(row)
    return rows


KERNEL_FIELDS = ["op", "gpu", "device", "latency_ms", "b", "m", "n", "k", "h", "kernel", "table"]


def kernel_rows(repo, commit):
    paths = [f"{DATASET}/{s}/{t}.csv" for s in ("train", "test") for t in ("elem", "ln", "softmax")]
    paths += [f"{DATASET}/test/{t}.csv" for t in ("bmm", "linear")]
    paths += [p for p in ls(repo, commit, f"{DATASET}/train/collect") if re.search(r"/(bmm|linear)/", p)]
    for path in paths:
        try:
            text = show(repo, commit, path)
        except subprocess.CalledProcessError:
            print(f"skipped (absent in the mirror): {path}", file=sys.stderr)
            continue
        for r in csv.DictReader(io.StringIO(text)):
            dev = r["Device"]
            if dev not in DEVICE_NAMES:
                continue
            yield {"op": r["OPName"], "gpu": DEVICE_NAMES[dev], "device": dev,
                   "latency_ms": r["Latency"], "b": r.get("B", ""), "m": r.get("M", ""),
                   "n": r.get("N", ""), "k": r.get("K", ""), "h": r.get("H", ""),
                   "kernel": r["Kernel Name"][:80], "table": path[len(DATASET) + 1:]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="git directory of a NeuSight mirror")
    ap.add_argument("--commit", default="6945927d")
    args = ap.parse_args()
    os.makedirs(DATA, exist_ok=True)
    rows = e2e_rows(args.repo, args.commit)
    with open(os.path.join(DATA, "e2e_neusight.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    n = 0
    seen = set()
    with gzip.open(os.path.join(DATA, "kernels_neusight.csv.gz"), "wt", newline="") as f:
        w = csv.DictWriter(f, fieldnames=KERNEL_FIELDS)
        w.writeheader()
        for r in kernel_rows(args.repo, args.commit):
            key = tuple(r[k] for k in ("op", "gpu", "latency_ms", "b", "m", "n", "k", "h"))
            if key in seen:
                continue
            seen.add(key)
            w.writerow(r)
            n += 1
    print(f"{len(rows)} end-to-end rows, {n} kernel rows")


if __name__ == "__main__":
    main()
