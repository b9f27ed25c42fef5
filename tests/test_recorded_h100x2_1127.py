"""A real 2x H100 host (fixtures/recorded/h100x2-2026-11-27/, captured through the device machine): the
release's check judges its facts as it did there, and explain names each planted fault of the real NCCL/torch
logs and nothing in the healthy one."""

import collections
import json
import os

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h100x2-2026-11-27")


Run = collections.namedtuple("Run", "returncode stdout stderr")


@pytest.fixture
def gd(cli):
    """`gpudoctor ARGS`: the CLI in this process (what is tested is the report, not a process)."""
    return lambda *args: Run(*cli(*args))


def test_check_facts_of_the_real_host(gd):
    p = gd("check", "--facts", os.path.join(HERE, "facts.json"), "--json")
    assert p.returncode == 1, p.stderr
    d = json.loads(p.stdout)
    assert [f["check"] for f in d["findings"]] == ["host.name"]
    by_id = {c["id"]: c for c in d["checks"]}
    assert by_id["host.name"]["status"] == "fail"
    assert "127.0.0.1" in by_id["host.name"]["summary"]
    assert by_id["driver.cuda"]["status"] == "pass"
    assert "580.159.04" in by_id["driver.cuda"]["evidence"]
    assert by_id["cuda.libs"]["status"] == "pass" and "2.28.9" in by_id["cuda.libs"]["evidence"]
    # the skipped checks are tmp.writable (added in session 27) and gpu.links (session 29): these facts were
    # recorded before they existed
    assert d["summary"]["checks_passed"] == 10 and d["summary"]["checks_skipped"] == 2
    assert by_id["tmp.writable"]["status"] == "skipped" and by_id["gpu.links"]["status"] == "skipped"
    # what the host printed there is what the same facts give here
    there = open(os.path.join(HERE, "check.txt")).read()
    assert "Summary: 1 error, 0 warnings; 10 passed, 7 n/a, 0 skipped" in there


@pytest.mark.parametrize("name, root", [
    ("planted-shm-tiny.log", "shm.size"),
    ("planted-port-in-use.log", "rendezvous.address_in_use"),
    ("planted-socket-ifname.log", "nccl.socket_ifname"),
])
def test_explain_names_each_planted_fault(gd, name, root):
    p = gd("explain", "--json", os.path.join(HERE, name))
    assert p.returncode == 0, p.stderr  # explain's 0: an answer (docs/explain.md, exit codes)
    d = json.loads(p.stdout)
    assert d["verdict"] == "root_cause" and d["root"] == root


def test_explain_healthy_accelerate_run_has_no_root(gd):
    p = gd("explain", "--json", os.path.join(HERE, "healthy-accelerate.log"))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["verdict"] == "no_error"
