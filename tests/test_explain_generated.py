"""Knowledge generated from the programs that print the messages (tools/gen_*.py ->
gpudoctor/data/knowledge/generated/*.json; STYLE.md "Generated knowledge"): each generator
regenerates from the small recorded slice of its source in tools/data/ and must give the
committed sites; every generated matcher is bounded (linear in the line); every site's family is
a knowledge entry; and real error texts from public threads get the family and the fix.
"""

import json
import os
import subprocess
import sys
import time

import pytest

from gpudoctor import explain
from gpudoctor.explain.knowledge import _sre, generated_files

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")

GENERATORS = [
    ("gen_nccl_messages.py", "nccl_messages_slice.txt", "nccl_messages"),
    ("gen_cuda_errors.py", "cuda_errors_slice.txt", "cuda_errors"),
    ("gen_errno.py", "errno_slice.tsv", "errno"),
    ("gen_nvml.py", "nvml_slice.tsv", "nvml"),
    ("gen_slurm_errors.py", "slurm_errno_slice.c", "slurm_errors"),
]


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _committed(name):
    with open(os.path.join(GEN, name + ".json")) as f:
        return json.load(f)


@pytest.mark.parametrize("tool,data,name", GENERATORS)
def test_generator_regenerates_the_committed_sites_from_its_slice(tool, data, name, tmp_path):
    out = tmp_path / (name + ".json")
    subprocess.run([sys.executable, os.path.join(REPO, "tools", tool), "--slice", os.path.join(REPO, "tools", "data", data),
                    "-o", str(out)], check=True, capture_output=True)
    with open(out) as f:
        got = json.load(f)
    full = _committed(name)
    assert got["header"]["generator"] == full["header"]["generator"] == "tools/" + tool
    assert full["header"]["source"] and full["header"]["version"] and full["header"]["date"]
    by_id = {s["id"]: s for s in full["sites"]}
    assert got["sites"], "the slice gave no site"
    for s in got["sites"]:
        assert s == by_id.get(s["id"]), s["id"]
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def _repeats(regex):
    """(max bound of every repeat, deepest nesting of repeats) of a regex."""
    parser, c = _sre()
    worst, depth = 0, 0

    def walk(items, d):
        nonlocal worst, depth
        for op, av in items:
            if op in (c.MAX_REPEAT, c.MIN_REPEAT):
                worst = max(worst, av[1])
                inner = d + (av[1] > 1)  # an optional part ({0,1}) does not multiply the work
                depth = max(depth, inner)
                walk(av[2], inner)
            elif op is c.SUBPATTERN:
                walk(av[-1], d)
            elif op is c.BRANCH:
                for b in av[1]:
                    walk(b, d)

    walk(parser.parse(regex), 0)
    return worst, depth


def test_every_generated_matcher_is_bounded_and_linear(kb):
    pats = [p for p in kb.patterns if p.site]
    assert len(pats) > 1000
    for p in pats:
        bound, depth = _repeats(p.source)
        assert bound <= 200 and depth <= 1, (p.site["id"], p.source)
        assert min(len(n) for n in p.needles_b) >= 4, p.site["id"]
    # and in practice: every one over adversarial lines (near-misses of the commonest literals)
    line = ("Cuda failure " + " " * 20 + "CUDA error: " + "NET/IB : " + "Error while " + "x" * 40 + " (size ") * 60
    t = time.perf_counter()
    for p in pats:
        p.regex.search(line)
    assert time.perf_counter() - t < 5


def test_every_site_family_is_an_entry_and_sources_are_recorded(kb):
    files = generated_files()
    assert {os.path.basename(f)[:-5] for f in files} >= {g[2] for g in GENERATORS}
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        for s in doc["sites"]:
            if s.get("family") and s.get("re"):
                assert s["family"] in kb.by_id, (path, s["id"])
