#!/usr/bin/env python3
"""Regenerate gpudoctor/data/torch_builds.json (which CUDA builds each PyTorch line
publishes, and which GPU architectures each build carries) from PyTorch's own files:

- RELEASE.md, "Release Compatibility Matrix" (PyTorch version -> stable and experimental
  CUDA) and "PyTorch CUDA Support Matrix" (CUDA -> architectures, Linux x86 and Windows):
  https://github.com/pytorch/pytorch/blob/main/RELEASE.md
- .ci/manywheel/build_cuda.sh, the `case ${CUDA_VERSION}` block (TORCH_CUDA_ARCH_LIST of
  the wheels, for CUDA builds the support matrix does not list):
  https://github.com/pytorch/pytorch/blob/main/.ci/manywheel/build_cuda.sh

    python bench/explain_torch_builds.py RELEASE.md build_cuda.sh [--write]

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
    archs = {}
    for m in re.finditer(r"^\s*(\d+\.\d+)\)\s*\n\s*TORCH_CUDA_ARCH_LIST=\"([^\"]+)\"", text, re.M):
        archs[m.group(1)] = m.group(2).split(";")
    return archs


def build(release_text, build_cuda_text):
    lines, archs = parse_release(release_text)
    for cuda, lst in parse_build_cuda(build_cuda_text).items():
        archs.setdefault(cuda, lst)  # the support matrix wins where both list a CUDA
    return {
        "title": "PyTorch line -> CUDA builds (wheel index cuXYZ); CUDA build -> GPU architectures",
        "sources": {
            "lines": "pytorch/pytorch RELEASE.md, 'Release Compatibility Matrix' (stable and experimental CUDA), "
                     "https://github.com/pytorch/pytorch/blob/main/RELEASE.md",
            "archs": "pytorch/pytorch RELEASE.md, 'PyTorch CUDA Support Matrix' (Linux x86 and Windows), and "
                     ".ci/manywheel/build_cuda.sh TORCH_CUDA_ARCH_LIST (commit 00c7a380b836) for CUDA builds the "
                     "matrix does not list",
            "generated_by": "bench/explain_torch_builds.py",
        },
        "lines": lines,
        "archs": archs,
    }


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: explain_torch_builds.py RELEASE.md build_cuda.sh [--write]\n")
        return 2
    with open(argv[0]) as f:
        rel = f.read()
    with open(argv[1]) as f:
        bc = f.read()
    doc = build(rel, bc)
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if "--write" in argv:
        with open(OUT, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
