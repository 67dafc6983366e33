#!/usr/bin/env python3
"""Runs every `build/dlsim` command of docs/getting-started.md.

Each ```sh block line that starts with `build/dlsim` runs with bash, as written,
in a scratch folder that links every top-level entry of the repository (so the
page's relative paths resolve and nothing is written into the checkout), with
build/dlsim pointing at --dlsim. Lines that start with `PYTHONPATH=build/python`
run too, with build/python pointing at --python-dir, when that is given (where
the Python module is built; else they are skipped). A ```yaml block right after
a line saying "Save this as `NAME`" is written to NAME there first. A command fails the check
if it exits non-zero. With --compare, each output line the page shows (after
the command, `…` lines skipped) that the run did not print is listed too (a
report, not a failure: figures move with the calibration). With --update, each
such line is replaced in the page by the printed line that starts like it (its
label: the text before the first figure).

Usage: tools/check_getting_started.py [--dlsim build/dlsim] [--python-dir build/python]
                                      [--compare] [--update]
Run by ctest as the test `getting_started_commands` (label `docs`).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join("docs", "getting-started.md")


def blocks(text):
    """(language, body, text before the block) for every fenced block."""
    out = []
    pos = 0
    for m in re.finditer(r"^```(\w*)\n(.*?)^```\s*$", text, re.M | re.S):
        out.append((m.group(1), m.group(2), text[pos:m.start()]))
        pos = m.end()
    return out


def same_label(line, printed):
    """The printed line with `line`'s label (its text up to the first digit),
    if exactly one has it."""
    label = re.split(r"\d", line, maxsplit=1)[0]
    if len(label.strip()) < 4:
        return None
    found = [p for p in printed if p.startswith(label)]
    return found[0] if len(found) == 1 else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dlsim", default=os.path.join(ROOT, "build", "dlsim"))
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--python-dir", default=None,
                    help="the built Python module's folder: run the PYTHONPATH=build/python lines")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--update", action="store_true", help="rewrite the page's differing output lines")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    dlsim = os.path.abspath(args.dlsim)
    with open(os.path.join(root, PAGE), encoding="utf-8") as f:
        text = f.read()
    scratch = tempfile.mkdtemp(prefix="dlsim-getting-started-")
    failures = 0
    try:
        for name in os.listdir(root):
            if name not in ("build", ".git"):
                os.symlink(os.path.join(root, name), os.path.join(scratch, name))
        os.mkdir(os.path.join(scratch, "build"))
        os.symlink(dlsim, os.path.join(scratch, "build", "dlsim"))
        if args.python_dir:
            os.symlink(os.path.abspath(args.python_dir), os.path.join(scratch, "build", "python"))
        bl = blocks(text)
        replacements = []  # (old line, new line)
        ran = 0
        for i, (lang, body, before) in enumerate(bl):
            if lang == "yaml":
                m = re.search(r"Save this as `([^`]+)`[^\n]*\n?[^\n]*$", before.strip())
                if m:
                    with open(os.path.join(scratch, m.group(1)), "w", encoding="utf-8") as f:
                        f.write(body)
                continue
            if lang != "sh":
                continue
            for cmd in body.splitlines():
                if cmd.startswith("PYTHONPATH=build/python") and not args.python_dir:
                    print(f"skip {cmd} (no --python-dir)")
                    continue
                if not cmd.startswith(("build/dlsim", "PYTHONPATH=build/python")):
                    continue
                ran += 1
                r = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], cwd=scratch,
                                   capture_output=True, text=True)
                # 141: SIGPIPE, dlsim cut off by `| head`, as intended
                if r.returncode != 0 and not (r.returncode == 141 and "| head" in cmd):
                    failures += 1
                    print(f"FAIL (exit {r.returncode}): {cmd}\n  {r.stderr.strip()[:500]}")
                    continue
                print(f"ok   {cmd}")
                if (args.compare or args.update) and i + 1 < len(bl) and bl[i + 1][0] == "":
                    printed = [line.rstrip() for line in r.stdout.splitlines()]
                    for line in bl[i + 1][1].splitlines():
                        if line.strip() and "…" not in line and line.rstrip() not in printed:
                            print(f"     differs: {line.rstrip()}")
                            new = same_label(line.rstrip(), printed)
                            if new is not None:
                                replacements.append((line.rstrip(), new))
        print(f"check_getting_started: {ran} commands, {failures} failed")
        if args.update and replacements:
            for old, new in replacements:
                text = text.replace(old + "\n", new + "\n", 1)
            with open(os.path.join(root, PAGE), "w", encoding="utf-8") as f:
                f.write(text)
            print(f"check_getting_started: {len(replacements)} lines of {PAGE} updated")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
