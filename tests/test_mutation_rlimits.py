"""limits.process and limits.parity (checks/rlimits.py) over named variants of a recorded /proc/self/limits
(fixtures/limits14/proc_limits_prlimit.txt, a prlimit run): each limit at and past its floor, each place a limit is
set (host, docker, podman, Kubernetes' runtimes), malformed and missing values, and nodes that differ. Each case
states the outcome; the whole result (status, per-node text, each finding's message, observed, expected, fix,
hosts) is compared to tests/test_mutation_rlimits.json, reviewed when made (mutation round 9, docs/mutation.md).
Regenerate it on purpose with GPUDOCTOR_REGEN_GOLDEN=1 and review the diff."""

import copy
import json
import os

import pytest

from conftest import run_check
from gpudoctor.collector.system import parse_limits

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECT = os.path.join(HERE, "test_mutation_rlimits.json")
with open(os.path.join(os.path.dirname(HERE), "fixtures", "limits14", "proc_limits_prlimit.txt")) as _f:
    PRLIMIT = parse_limits(_f.read())
U = "unlimited"


def lims(source="/proc/self/limits", drop=(), **kw):
    """The prlimit run's limits with soft (and hard) values replaced: key=(soft, hard) or key=soft."""
    d = copy.deepcopy(PRLIMIT)
    for k, v in kw.items():
        soft, hard = v if isinstance(v, tuple) else (v, v)
        d[k] = dict(d.get(k) or {"unit": "x"}, soft=soft, hard=hard)
    for k in drop:
        d.pop(k, None)
    d["status"] = "ok"
    if source:
        d["source"] = source
    return d


def node(limits, container=None, host="n1"):
    return {"node": host, "limits": limits, "host": {"status": "ok", "container": container}}


GOOD = dict(fsize=U, as_=U, data=U, cpu=U, nofile=65536, nproc=65536)


def good(**kw):
    g = {("as" if k == "as_" else k): v for k, v in GOOD.items()}
    g.update({("as" if k == "as_" else k): v for k, v in kw.items()})
    return g


CASES = []


def case(name, check_id, facts, status):
    CASES.append(pytest.param(check_id, facts, status, id=name))


P = "limits.process"
case("prlimit-host", P, node(lims()), "fail")
for c in ("docker", "podman", "kubernetes", "kubepods", "containerd", "lxc"):
    case("prlimit-" + c, P, node(lims(), c), "fail")
case("all-good", P, node(lims(**good())), "pass")
case("all-good-no-source", P, node(lims(source=None, **good())), "pass")
case("all-good-core-and-stack-absent", P, node(lims(drop=("core", "stack"), **good())), "pass")
case("nofile-at-floor", P, node(lims(**good(nofile=4096))), "pass")
case("nofile-below-floor", P, node(lims(**good(nofile=(4095, 8192)))), "warn")
case("nproc-at-floor", P, node(lims(**good(nproc=4096))), "pass")
case("nproc-below-floor-podman", P, node(lims(**good(nproc=4095)), "podman"), "warn")
case("nofile-below-floor-kubernetes", P, node(lims(**good(nofile=1024)), "kubernetes"), "warn")
case("nofile-unlimited", P, node(lims(**good(nofile=U))), "pass")
case("cpu-limited", P, node(lims(**good(cpu=(3600, U)))), "fail")
case("cpu-limited-docker", P, node(lims(**good(cpu=3600)), "docker"), "fail")
case("cpu-zero", P, node(lims(**good(cpu=0))), "fail")
case("data-limited", P, node(lims(**good(data=(1 << 30, U)))), "warn")
case("data-limited-kubepods", P, node(lims(**good(data=1 << 30)), "kubepods"), "warn")
case("fsize-soft-unlimited-hard-not", P, node(lims(**good(fsize=(U, 1 << 40)))), "pass")
case("as-limited-podman", P, node(lims(**good(**{"as": 8 << 30})), "podman"), "fail")
case("as-limited-containerd", P, node(lims(**good(**{"as": 8 << 30})), "containerd"), "fail")
case("one-malformed-soft", P, node(lims(**good(nofile=("many", 65536)))), "pass")
case("one-malformed-hard", P, node(lims(**good(nproc=(65536, -1)))), "pass")
case("one-bool", P, node(lims(**good(cpu=(True, True)))), "pass")
case("one-not-a-dict", P, node(dict(lims(**good()), data="unlimited")), "pass")
case("malformed-and-low", P, node(dict(lims(**good(fsize=1 << 20)), nofile=[1])), "fail")
case("two-malformed", P, node(dict(lims(**good()), nofile="many", nproc={"soft": -2, "hard": 1})), "pass")
case("none-known", P, node({"status": "ok", "memlock": {"soft": U, "hard": U}}), "skipped")
case("all-malformed", P, node({"status": "ok", "fsize": "x", "as": {"soft": 1.5, "hard": 2}, "cpu": None}), "skipped")

Q = "limits.parity"
A, B, C = lims(**good()), lims(**good(nofile=1024)), lims(**good(nofile=1024, memlock=U))
case("parity-same", Q, {"a": node(A, host="a"), "b": node(copy.deepcopy(A), host="b")}, "pass")
case("parity-one-odd", Q, {"a": node(A, host="a"), "b": node(copy.deepcopy(A), host="b"),
                           "c": node(B, host="c")}, "warn")
case("parity-two-values-each", Q, {"a": node(A, host="a"), "b": node(B, host="b"), "c": node(C, host="c"),
                                   "d": node(copy.deepcopy(C), host="d")}, "warn")
case("parity-unknown-node", Q, {"a": node(A, host="a"), "b": node(copy.deepcopy(A), host="b"),
                                "c": node({"status": "error", "reason": "no /proc"}, host="c")}, "skipped")
case("parity-node-without-nofile", Q, {"a": node(A, host="a"), "b": node(copy.deepcopy(A), host="b"),
                                       "c": node(lims(drop=("nofile",), **good()), host="c")}, "skipped")
case("parity-malformed-on-one", Q, {"a": node(A, host="a"), "b": node(copy.deepcopy(A), host="b"),
                                    "c": node(dict(copy.deepcopy(A), nofile={"soft": "x", "hard": 1}), host="c")},
     "skipped")
case("parity-no-memlock-anywhere", Q, {"a": node(lims(drop=("memlock",), **good()), host="a"),
                                       "b": node(lims(drop=("memlock",), **good(nofile=1024)), host="b")}, "warn")
case("parity-three-values", Q, {"a": node(A, host="a"), "b": node(copy.deepcopy(A), host="b"), "c": node(B, host="c"),
                                "d": node(lims(**good(nofile=4096)), host="d")}, "warn")
case("parity-nothing-on-two", Q, {"a": node(A, host="a"), "b": node({"status": "ok"}, host="b")}, "na")


def _snapshot(res):
    return {"status": res.status, "outcomes": {h: list(v) for h, v in sorted(res.outcomes.items())},
            "findings": [{"severity": f.severity, "message": f.message, "observed": f.observed,
                          "expected": f.expected, "fix": f.fix, "hosts": f.hosts} for f in res.findings]}


def _load():
    try:
        with open(EXPECT) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


@pytest.mark.parametrize("check_id,facts,status", CASES)
def test_rlimits_outcome(request, check_id, facts, status):
    res = run_check(check_id, copy.deepcopy(facts))
    assert res.status == status, (res.status, res.summary, [f.message for f in res.findings])
    name = request.node.callspec.id
    got = json.loads(json.dumps(_snapshot(res)))
    if os.environ.get("GPUDOCTOR_REGEN_GOLDEN") == "1":
        doc = _load()
        doc[name] = got
        with open(EXPECT, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    assert got == _load().get(name)


def test_soft_reads_only_a_collected_limits_section():
    """_soft directly: the runner hands limits.parity only nodes whose section was collected, so these guards are
    reached only by a node's facts that are not what the collector writes."""
    from gpudoctor.checks import rlimits

    one = {"soft": 1024, "hard": 4096}
    assert rlimits._soft({"limits": {"status": "ok", "nofile": one}}, "nofile") == "1024"
    assert rlimits._soft({"limits": {"nofile": one}}, "nofile") == "1024"  # an older collector wrote no status
    assert rlimits._soft({"limits": {"status": "error", "nofile": one}}, "nofile") is None
    assert rlimits._soft({"limits": {"STATUS": "error", "status": "unsupported", "nofile": one}}, "nofile") is None
    assert rlimits._soft(["limits"], "nofile") is None and rlimits._soft({"limits": "ok"}, "nofile") is None
