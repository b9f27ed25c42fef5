#!/usr/bin/env python3
"""Regenerate gpudoctor/data/torch_builds.json (which CUDA builds each PyTorch line
publishes, and which GPU architectures each build carries) from PyTorch's own files:

- RELEASE.md, "Release Compatibility Matrix" (PyTorch version -> stable and experimental
  CUDA) and "PyTorch CUDA Support Matrix" (CUDA -> architectures, Linux x86 and Windows):
  https://github.com/pytorch/pytorch/blob/main/RELEASE.md
- .ci/manywheel/build_cuda.sh, the `case ${CUDA_VERSION}` block (TORCH_CUDA_ARCH_LIST of
  the wheels, for CUDA builds the support matrix does not list):
  https://github.com/pytorch/pytorch/blob/main/.ci/manywheel/build_cuda.sh

    python bench/explain_torch_builds.py RELEASE.md build_cuda.sh [older build_cuda.sh ...] [--write]

(the older build script: pytorch/builder's manywheel/build_cuda.sh, for the CUDA 11.x builds)

explain uses the table to name the torch build that includes a GPU's compute capability
for the torch line in use and the CUDA the node's driver runs ("no kernel image").
"""

import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "gpudoctor", "data", "torch_builds.json")


def parse_release(text):
    lines, archs = {}, {}
    in_support = False
    for row in text.splitlines():
        if "CUDA Support Matrix" in row:
            in_support = True
        if "aarch64" in row:
            in_support = False
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) >= 5 and re.match(r"^\d+\.\d+$", cells[0]):
            cudas = re.findall(r"CUDA (\d+\.\d+)", cells[3] + " " + cells[4])
            lines[cells[0]] = sorted(set(cudas), key=lambda v: tuple(map(int, v.split("."))))
        elif in_support and len(cells) >= 2 and re.match(r"^\d+\.\d+(\.\d+)?$", cells[0]):
            cuda = ".".join(cells[0].split(".")[:2])
            archs[cuda] = re.findall(r"\d+\.\d+(?:\+PTX)?", cells[1])
    return lines, archs


def parse_build_cuda(text):
    """CUDA X.Y -> TORCH_CUDA_ARCH_LIST from a build_cuda.sh: the `case ${CUDA_VERSION}` arms,
    with a list set before the case and extended in an arm ("${TORCH_CUDA_ARCH_LIST};7.5;..."),
    and arms such as `11.[67])`."""
    archs = {}
    base = re.search(r'^TORCH_CUDA_ARCH_LIST="([^"$]+)"', text, re.M)
    base = base.group(1).split(";") if base else []
    for m in re.finditer(r"^\s*([\d.\[\]]+)\)\s*\n\s*TORCH_CUDA_ARCH_LIST=\"([^\"]+)\"", text, re.M):
        pat, value = m.group(1), m.group(2)
        lst = value.split(";")
        if lst and lst[0] == "${TORCH_CUDA_ARCH_LIST}":
            lst = base + lst[1:]
        alts = re.match(r"^(\d+)\.\[(\d+)\]$", pat)
        versions = ["%s.%s" % (alts.group(1), d) for d in alts.group(2)] if alts else [pat]
        for v in versions:
            archs[v] = lst
    return archs


def build(release_text, build_cuda_texts):
    """build_cuda_texts: newest first; a CUDA version takes its list from the support matrix, else
    from the first build script that has it."""
    lines, archs = parse_release(release_text)
    for text in build_cuda_texts:
        for cuda, lst in parse_build_cuda(text).items():
            archs.setdefault(cuda, lst)
    return {
        "title": "PyTorch line -> CUDA builds (wheel index cuXYZ); CUDA build -> GPU architectures",
        "sources": {
            "lines": "pytorch/pytorch RELEASE.md, 'Release Compatibility Matrix' (stable and experimental CUDA), "
                     "https://github.com/pytorch/pytorch/blob/main/RELEASE.md",
            "archs": "pytorch/pytorch RELEASE.md, 'PyTorch CUDA Support Matrix' (Linux x86 and Windows); for CUDA "
                     "builds it does not list, TORCH_CUDA_ARCH_LIST of pytorch/pytorch .ci/manywheel/build_cuda.sh "
                     "(commit 00c7a380b836: 12.6, 12.8, 12.9) and of pytorch/builder manywheel/build_cuda.sh "
                     "(commit 009ed170cd2b: 11.6, 11.7, 11.8)",
            "generated_by": "bench/explain_torch_builds.py",
        },
        "lines": lines,
        "archs": archs,
    }


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) < 2:
        sys.stderr.write("usage: explain_torch_builds.py RELEASE.md build_cuda.sh [older build_cuda.sh ...] [--write]\n")
        return 2
    texts = []
    for path in args:
        with open(path) as f:
            texts.append(f.read())
    doc = build(texts[0], texts[1:])
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if "--write" in argv:
        with open(OUT, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
