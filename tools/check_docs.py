#!/usr/bin/env python3
"""Checks the user documentation (README.md and docs/**/*.md).

Fails (exit 1), listing each problem as FILE:LINE: message, on:
  - a markdown link or image whose target is an absolute URL (http:, https:,
    ftp:, mailto:, any scheme), an autolink or bare URL, a path that leaves the
    repository, a file that does not exist, or an #anchor that is not a
    heading of the target file (GitHub's heading slugs);
  - a docs/**/*.md file over 25 KB (25,000 bytes);
  - a mention of docs/NAME.md in CMakeLists.txt, src/, include/, tests/,
    tools/, bench/, calibrate/, README.md or docs/ that names a missing file;
  - a source path in inline code of docs/architecture.md (`src/ops/lower_*.cc`,
    `include/dlsim/kernel/key.h`, ...) that matches no file or folder, so that
    its module list and checklists follow renames;
  - a YAML key that the machine, workload or training-job parser reads
    (src/machine/*_parse.cc, *_io.cc) and that its format page does not name.
Code blocks and inline code are not links and are skipped. A path outside
the repository written in the text (../shared/…) is a warning, not a failure.

Standard library only. Usage: tools/check_docs.py [--root DIR]
Run by ctest as the test `check_docs` (label `docs`).
"""
import argparse
import glob
import os
import re
import sys

MAX_DOC_BYTES = 25_000  # 25 KB

# Docs allowed over MAX_DOC_BYTES, each with the reason (none today).
SIZE_ALLOW = {}

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target "title") and ![alt](target); target may be <wrapped>.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
                         r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]*:[^\s>]+)>")
BARE_URL = re.compile(r"(?<![\w(<\[])(?:https?|ftp)://[^\s)>\]]+|(?<![\w./-])www\.[A-Za-z0-9-]+\.[A-Za-z]{2,}")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
# A path outside the repository written out in prose or code (not a link, so a
# warning only): readers of the repository cannot follow it.
OUTSIDE_PATH = re.compile(r"(?<![\w.])(?:\.\./)+shared/|/work/shared/")
DOC_REF = re.compile(r"(?<![\w/.-])docs/[a-z0-9_.-]*\.md\b")

SOURCE_EXTS = (".cc", ".h", ".hpp", ".cpp", ".cu", ".cuh", ".txt", ".cmake", ".py", ".sh",
               ".md", ".yaml", ".yml", ".json")
SOURCE_DIRS = ("src", "include", "tests", "tools", "bench", "calibrate", "docs")


def strip_code_spans(line):
    """The line with inline code replaced by spaces (columns kept)."""
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, line


def github_slug(heading):
    """GitHub's anchor for a heading's text (before de-duplication)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links -> their text
    text = re.sub(r"<[^>]+>", "", text)                         # inline HTML
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)                        # keep letters, digits, _, -, space
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors_of(path):
    if path not in _anchor_cache:
        seen = {}
        anchors = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text):
            for a in HTML_ANCHOR.findall(line):
                anchors.add(a)
            m = HEADING.match(line)
            if not m:
                continue
            slug = github_slug(m.group(2))
            k = seen.get(slug, 0)
            seen[slug] = k + 1
            anchors.add(slug if k == 0 else f"{slug}-{k}")
        _anchor_cache[path] = anchors
    return _anchor_cache[path]


def check_target(root, md_path, target, problems, where):
    target = target.strip()
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target:
        problems.append(f"{where}: empty link target")
        return
    if SCHEME.match(target) or target.startswith("//"):
        problems.append(f"{where}: link leaves the repository (absolute URL): {target}")
        return
    path_part, _, anchor = target.partition("#")
    path_part = path_part.split("?", 1)[0]
    if path_part == "":
        dest = md_path
    elif path_part.startswith("/"):
        dest = os.path.normpath(os.path.join(root, path_part.lstrip("/")))
    else:
        dest = os.path.normpath(os.path.join(os.path.dirname(md_path), path_part))
    rel = os.path.relpath(dest, root)
    if rel == ".." or rel.startswith(".." + os.sep):
        problems.append(f"{where}: link leaves the repository: {target}")
        return
    if not os.path.exists(dest):
        problems.append(f"{where}: link target does not exist: {target} ({rel})")
        return
    if anchor and dest.endswith(".md") and os.path.isfile(dest):
        if anchor not in anchors_of(dest):
            problems.append(f"{where}: no heading for anchor #{anchor} in {rel}")


warnings = []


def check_markdown(root, md_path, problems):
    rel = os.path.relpath(md_path, root)
    with open(md_path, encoding="utf-8") as f:
        text = f.read()
    for n, raw in prose_lines(text):
        line = strip_code_spans(raw)
        where = f"{rel}:{n}"
        for m in INLINE_LINK.finditer(line):
            check_target(root, md_path, m.group(1), problems, where)
        m = REF_DEF.match(line)
        if m:
            check_target(root, md_path, m.group(1), problems, where)
        for m in AUTOLINK.finditer(line):
            problems.append(f"{where}: link leaves the repository (autolink): {m.group(1)}")
        if OUTSIDE_PATH.search(raw):
            warnings.append(f"{where}: warning: names a path outside the repository: "
                            f"{OUTSIDE_PATH.search(raw).group(0)}…")
        without_links = INLINE_LINK.sub("", REF_DEF.sub("", line))
        for m in BARE_URL.finditer(without_links):
            problems.append(f"{where}: bare URL (GitHub renders it as a link): {m.group(0)}")


def markdown_files(root):
    files = [os.path.join(root, "README.md")]
    for d, _, names in os.walk(os.path.join(root, "docs")):
        files += [os.path.join(d, n) for n in names if n.endswith(".md")]
    return sorted(f for f in files if os.path.isfile(f))


def check_sizes(root, problems):
    for path in markdown_files(root):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        if not rel.startswith("docs/"):
            continue
        size = os.path.getsize(path)
        if size > MAX_DOC_BYTES and rel not in SIZE_ALLOW:
            problems.append(f"{rel}:1: {size} bytes, over the limit of {MAX_DOC_BYTES} "
                            f"(split it or cut it)")


def source_files(root):
    yield os.path.join(root, "CMakeLists.txt")
    yield os.path.join(root, "README.md")
    for top in SOURCE_DIRS:
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x not in ("data", "__pycache__") and not x.startswith(".")]
            for n in names:
                if n.endswith(SOURCE_EXTS) or n == "CMakeLists.txt":
                    yield os.path.join(d, n)


def check_doc_references(root, problems):
    for path in source_files(root):
        if not os.path.isfile(path):
            continue
        rel = os.path.relpath(path, root)
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(lines, 1):
            for m in DOC_REF.finditer(line):
                if not os.path.isfile(os.path.join(root, m.group(0))):
                    problems.append(f"{rel}:{n}: names {m.group(0)}, which does not exist")


# `src/kernel/work.cc`, `tests/ops/`, `src/ops/lower_*.cc`; not templates
# such as `src/<module>/`.
ARCH_PATH = re.compile(r"`((?:src|include|tests|calibrate|tools|python|bench|docs)/[A-Za-z0-9_./*-]*)`")


def check_architecture_paths(root, problems):
    rel = os.path.join("docs", "architecture.md")
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        for m in ARCH_PATH.finditer(line):
            named = m.group(1).rstrip("/")
            if not glob.glob(os.path.join(root, named)):
                problems.append(f"{rel}:{n}: names `{m.group(1)}`, which matches no file")


# Parsers of the YAML formats and the pages that document their keys.
YAML_FORMATS = (
    ("src/machine/machine_parse.cc", ("docs/machine-format.md",)),
    ("src/machine/workload_io.cc", ("docs/workload-format.md",)),
    ("src/machine/training_job_io.cc", ("docs/parallel.md",)),
)
# A key read through YamlFields: f.PositiveInt("sm_count", ...), w.Map("dataset", ...).
YAML_KEY = re.compile(r"\.(?:Positive|PositiveInt|Number|String|Choice|Map|Fraction\w*|Bool|"
                      r"NonNegative\w*|Sequence)\(\"([a-z_0-9]+)\"")


def check_yaml_keys_documented(root, problems):
    for parser, pages in YAML_FORMATS:
        path = os.path.join(root, parser)
        if not os.path.isfile(path):
            problems.append(f"{parser}:1: parser named in tools/check_docs.py is missing")
            continue
        with open(path, encoding="utf-8") as f:
            keys = sorted(set(YAML_KEY.findall(f.read())))
        text = ""
        for page in pages:
            with open(os.path.join(root, page), encoding="utf-8") as f:
                text += f.read()
        for key in keys:
            if not re.search(r"\b" + re.escape(key) + r"\b", text):
                problems.append(f"{pages[0]}:1: does not name `{key}`, which {parser} reads")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="repository root (default: this script's ../)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    problems = []
    for md in markdown_files(root):
        check_markdown(root, md, problems)
    check_sizes(root, problems)
    check_doc_references(root, problems)
    check_architecture_paths(root, problems)
    check_yaml_keys_documented(root, problems)
    for w in warnings:
        print(w)
    for p in problems:
        print(p)
    if problems:
        print(f"check_docs: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_docs: {len(markdown_files(root))} markdown files, no problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
