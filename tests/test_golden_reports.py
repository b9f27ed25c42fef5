"""Golden outputs: the text report (plain, as a prolog log or a pipe sees it) and the JSON
report over recorded facts, compared whole. A change to the report shows up here as a diff a
reviewer reads; regenerate on purpose with GPUDOCTOR_REGEN_GOLDEN=1 and review the diff."""

import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT

GOLDEN = os.path.join(ROOT, "tests", "golden")
CASES = {
    "devbox": os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json"),
    "h100": os.path.join(FIXTURES, "nodes", "h100-ubuntu2404-torch211.json"),
    "two-node-one-driverless": os.path.join(FIXTURES, "clusters", "two-node-one-driverless"),
}


def _run(*args):
    env = dict(os.environ, COLUMNS="100", PYTHONPATH=ROOT)
    env.pop("VIRTUAL_ENV", None)
    env.pop("CONDA_PREFIX", None)
    p = subprocess.run([sys.executable, "-m", "gpudoctor"] + list(args), capture_output=True, text=True, env=env,
                       cwd=GOLDEN, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


def _compare(name, got):
    path = os.path.join(GOLDEN, name)
    if os.environ.get("GPUDOCTOR_REGEN_GOLDEN") == "1":
        with open(path, "w") as f:
            f.write(got)
    with open(path) as f:
        want = f.read()
    assert got == want, "report changed: diff tests/golden/%s (regenerate with GPUDOCTOR_REGEN_GOLDEN=1)" % name


@pytest.mark.parametrize("case", sorted(CASES))
def test_text_report(case):
    _compare(case + ".txt", _run("check", "--facts", CASES[case], "--verbose"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_report(case):
    doc = json.loads(_run("check", "--facts", CASES[case], "--json"))
    doc["version"] = "(version)"  # the only field that moves with a release
    _compare(case + ".json", json.dumps(doc, indent=1, sort_keys=True) + "\n")


def test_every_pass_in_the_goldens_carries_evidence():
    for case in CASES:
        with open(os.path.join(GOLDEN, case + ".json")) as f:
            doc = json.load(f)
        for c in doc["checks"]:
            assert c["status"] != "pass" or (c["evidence"] or "").strip(), (case, c["id"])
