"""The runner's outcome model and the drift engine, asserted rule by rule.

Written against the survivors of a mutation run (docs/mutation.md, bench/mutation.sh): each test
pins one rule of the outcome model (issue 11, items 1 and 2) so that flipping a comparison,
moving a threshold or dropping a branch in gpudoctor/runner.py or gpudoctor/drift.py fails here.
The checks are real check functions registered in a private Registry; the nodes are real facts
documents (fixtures/nodes) or the minimal sections a check names in `needs`."""

import json

import pytest

from conftest import node_facts
from gpudoctor import __version__, drift
from gpudoctor.config import Config
from gpudoctor.registry import NA, Check, Finding, Pass, Registry, Skip
from gpudoctor.runner import (NO_EVIDENCE, SINGLE_NODE, CheckResult, Node, Report, merge_findings, outcome,
                              run_checks)


class _Reg(Registry):
    """A private registry. (registry.check(registry=Registry()) registers into the global REGISTRY
    while the given registry is empty: `registry or REGISTRY` tests its length.)"""

    def add_fn(self, cid, fn, needs=(), severity="error", scope="node", title="a test check"):
        return self.add(Check(id=cid, title=title, func=fn, needs=tuple(needs), severity=severity, scope=scope,
                              module=__name__))


def _reg():
    return _Reg()


def check(cid, title, needs=(), severity="error", scope="node", registry=None):
    return lambda fn: registry.add_fn(cid, fn, needs=needs, severity=severity, scope=scope, title=title)


def _node(host, **sections):
    facts = {"node": host}
    for name, sec in sections.items():
        facts[name] = sec
    return Node(host=host, facts=facts)


OK = {"status": "ok"}


def _one(checks, nodes, config=None):
    report = run_checks(nodes, list(checks), config or Config())
    assert len(report.results) == 1, [r.id for r in report.results]
    return report, report.results[0]


# -- one node's outcome from what a check yielded ----------------------------------------------
E, W, I = Finding.error("bad"), Finding.warning("meh"), Finding.info("fyi")


@pytest.mark.parametrize("name,findings,verdicts,want", [
    ("error beats everything", [W, E], [Pass("ok")], ("fail", "bad")),
    ("warning beats verdicts", [I, W], [Pass("ok"), Skip("?")], ("warn", "meh")),
    ("the first error's message", [Finding.error("one"), Finding.error("two")], [], ("fail", "one")),
    ("the first warning's message", [Finding.warning("w1"), Finding.warning("w2")], [], ("warn", "w1")),
    ("skipped part beats pass", [], [Pass("ok"), Skip("part unknown")], ("skipped", "part unknown")),
    ("pass beats na", [], [NA("nothing"), Pass("judged")], ("pass", "judged")),
    ("na alone", [], [NA("nothing here")], ("na", "nothing here")),
    ("texts joined, duplicates once, in order", [], [Pass("a"), Pass("b"), Pass("a")], ("pass", "a; b")),
    ("an info note is not an outcome", [I], [], ("skipped", NO_EVIDENCE)),
    ("silence is never a pass", [], [], ("skipped", NO_EVIDENCE)),
])
def test_node_outcome_precedence(name, findings, verdicts, want):
    assert outcome(findings, verdicts) == want, name


# -- node checks --------------------------------------------------------------------------------
def _node_check(reg, fn, cid="t.node", needs=("shm",), severity="error"):
    return check(cid, title="a test check", needs=needs, severity=severity, registry=reg)(fn)


def test_node_check_runs_once_per_reachable_node_and_names_each():
    reg = _reg()

    def judge(facts, config):
        if facts["shm"]["total_bytes"] < 100:
            yield Finding.error("small on %s" % facts["node"])
        else:
            yield Pass("%d >= 100" % facts["shm"]["total_bytes"])

    chk = _node_check(reg, judge)
    nodes = [_node("n1", shm=dict(OK, total_bytes=100)), _node("n2", shm=dict(OK, total_bytes=99)),
             Node(host="n3", error="connection refused", error_kind="refused")]
    report, res = _one([chk], nodes)
    assert res.outcomes == {"n1": ("pass", "100 >= 100"), "n2": ("fail", "small on n2")}
    assert res.status == "fail" and res.hosts("pass") == ["n1"] and res.hosts("fail") == ["n2"]
    assert [f.hosts for f in res.findings] == [["n2"]] and res.findings[0].check == "t.node"
    assert report.exit_code == 1 and report.summary["nodes_unreachable"] == 1


@pytest.mark.parametrize("sec,want", [
    (None, ("skipped", "shm: not collected")),
    ("garbage", ("skipped", "shm: not collected")),
    ({"status": "unsupported", "reason": "no /dev/shm"}, ("na", "shm: no /dev/shm")),
    ({"status": "unsupported"}, ("na", "shm: unsupported")),
    ({"status": "error", "reason": "EIO"}, ("skipped", "shm: EIO")),
    ({"status": "error"}, ("skipped", "shm: error")),
    ({}, ("skipped", "shm: None")),
])
def test_unmet_sections_are_na_or_skipped_and_the_check_is_not_called(sec, want):
    reg = _reg()
    calls = []

    def judge(facts, config):
        calls.append(1)
        yield Pass("called")

    chk = _node_check(reg, judge, needs=("host", "shm"))
    facts = {"host": dict(OK)}
    if sec is not None:
        facts["shm"] = sec
    _, res = _one([chk], [Node(host="n1", facts=facts)])
    assert res.outcomes == {"n1": want} and res.status == want[0] and not calls


def test_the_first_unmet_section_names_the_reason():
    reg = _reg()
    chk = _node_check(reg, lambda f, c: iter([Pass("x")]), needs=("a", "b"))
    facts = {"a": {"status": "error", "reason": "first"}, "b": {"status": "unsupported", "reason": "second"}}
    _, res = _one([chk], [Node(host="n1", facts=facts)])
    assert res.outcomes == {"n1": ("skipped", "a: first")}


def test_a_node_check_that_crashes_is_skipped_named_and_spares_the_other_nodes():
    reg = _reg()

    def judge(facts, config):
        if facts["node"] == "n2":
            raise KeyError("total_bytes")
        yield Pass("fine")

    chk = _node_check(reg, judge)
    report, res = _one([chk], [_node("n1", shm=OK), _node("n2", shm=OK), _node("n3", shm=OK)])
    assert res.crashed == {"KeyError: 'total_bytes'": ["n2"]}
    assert res.outcomes["n2"] == ("skipped", "the check crashed (a gpudoctor bug): KeyError: 'total_bytes'")
    assert res.outcomes["n1"] == res.outcomes["n3"] == ("pass", "fine")
    assert report.crashed == ["t.node"] and report.exit_code == 3 and report.summary["checks_crashed"] == 1


def test_a_check_that_yields_something_else_is_a_crash_not_a_pass():
    reg = _reg()
    chk = _node_check(reg, lambda f, c: iter(["all good"]))
    _, res = _one([chk], [_node("n1", shm=OK)])
    assert res.status == "skipped" and list(res.crashed) == [
        "TypeError: check t.node yielded 'all good', neither a Finding nor a verdict"]


def test_a_check_returning_none_is_silence_not_a_pass():
    reg = _reg()
    chk = _node_check(reg, lambda f, c: None)
    _, res = _one([chk], [_node("n1", shm=OK)])
    assert res.outcomes == {"n1": ("skipped", NO_EVIDENCE)} and not res.crashed


def test_no_reachable_node_leaves_every_check_skipped():
    reg = _reg()
    chk = _node_check(reg, lambda f, c: iter([Pass("x")]))
    report, res = _one([chk], [Node(host="n1", error="timeout", error_kind="timeout")])
    assert res.status == "skipped" and res.outcomes == {}
    assert report.exit_code == 1  # an unreachable node is a finding of its own


# -- severity overrides -------------------------------------------------------------------------
def test_severity_override_rewrites_problems_not_notes_and_off_drops_the_check():
    reg = _reg()

    def judge(facts, config):
        yield Finding.error("e")
        yield Finding.info("i")

    chk = _node_check(reg, judge)
    cfg = Config(severity={"t.node": "warning"})
    report, res = _one([chk], [_node("n1", shm=OK)], cfg)
    assert sorted(f.severity for f in res.findings) == ["info", "warning"]
    assert res.severity == "warning" and res.status == "warn" and report.exit_code == 0
    cfg.strict = True
    assert run_checks([_node("n1", shm=OK)], [chk], cfg).exit_code == 1
    assert run_checks([_node("n1", shm=OK)], [chk], Config(severity={"t.node": "off"})).results == []
    assert run_checks([_node("n1", shm=OK)], [chk], Config()).results[0].severity == "error"


# -- cluster checks -----------------------------------------------------------------------------
def _cluster_check(reg, fn, cid="t.cluster", needs=("env",)):
    return check(cid, title="a cluster test check", needs=needs, scope="cluster", registry=reg)(fn)


def test_a_cluster_check_is_not_listed_for_a_single_node():
    reg = _reg()
    chk = _cluster_check(reg, lambda nodes, c: iter([Pass("compared")]))
    assert run_checks([_node("n1", env=OK)], [chk], Config()).results == []
    assert run_checks([], [chk], Config()).results == []
    two = run_checks([_node("n1", env=OK), _node("n2", env=OK)], [chk], Config()).results
    assert [(r.id, r.status, r.evidence) for r in two] == [("t.cluster", "pass", "compared")]


def test_on_a_single_node_the_checks_after_a_cluster_check_still_run():
    reg = _reg()
    first = _cluster_check(reg, lambda nodes, c: iter([Pass("compared")]), cid="a.cluster")
    second = _node_check(reg, lambda f, c: iter([Pass("judged")]), cid="b.node")
    results = run_checks([_node("n1", env=OK, shm=OK)], [first, second], Config()).results
    assert [(r.id, r.status) for r in results] == [("b.node", "pass")]


def test_a_cluster_check_with_one_reachable_node_is_na_for_it():
    reg = _reg()
    chk = _cluster_check(reg, lambda nodes, c: iter([Pass("compared")]))
    _, res = _one([chk], [_node("n1", env=OK), Node(host="n2", error="refused", error_kind="refused")])
    assert res.outcomes == {"n1": ("na", SINGLE_NODE)} and res.status == "na"


def test_a_cluster_check_never_drops_a_node_whose_section_is_missing():
    reg = _reg()
    seen = []

    def judge(nodes, config):
        seen.append(sorted(nodes))
        yield Pass("same")

    chk = _cluster_check(reg, judge)
    nodes = [_node("n1", env=OK), _node("n2", env=OK), _node("n3", env={"status": "error", "reason": "EIO"}),
             _node("n4", env={"status": "unsupported", "reason": "none"})]
    _, res = _one([chk], nodes)
    assert seen == [["n1", "n2"]]
    assert res.outcomes == {"n1": ("pass", "same"), "n2": ("pass", "same"), "n3": ("skipped", "env: EIO"),
                            "n4": ("na", "env: none")}
    assert res.status == "skipped"  # a node that could not be judged keeps the cluster from a clean pass
    assert res.by_status == {"skipped": "n3", "pass": "n[1-2]", "na": "n4"}


def test_a_cluster_check_with_one_usable_node_compares_nothing():
    reg = _reg()
    calls = []
    chk = _cluster_check(reg, lambda nodes, c: calls.append(1) or iter([Pass("x")]))
    _, res = _one([chk], [_node("n1", env=OK), _node("n2", env={"status": "error", "reason": "EIO"})])
    assert res.outcomes == {"n1": ("na", "no other node to compare with"), "n2": ("skipped", "env: EIO")}
    assert not calls and res.status == "skipped"


def test_cluster_findings_and_verdicts_land_on_the_nodes_they_name():
    reg = _reg()

    def judge(nodes, config):
        yield Finding.error("n3 differs", hosts=["n3", "elsewhere"])
        yield Finding.warning("everyone", hosts=[])
        yield Pass("majority", hosts=["n1", "n2"])
        yield NA("not here", hosts=["n4", "nowhere"])

    chk = _cluster_check(reg, judge)
    nodes = [_node(h, env=OK) for h in ("n1", "n2", "n3", "n4")]
    report, res = _one([chk], nodes)
    assert res.outcomes == {"n1": ("warn", "everyone"), "n2": ("warn", "everyone"), "n3": ("fail", "n3 differs"),
                            "n4": ("warn", "everyone")}
    assert res.status == "fail" and [f.message for f in report.findings] == ["n3 differs", "everyone"]


def test_cluster_verdicts_without_hosts_apply_to_every_usable_node():
    reg = _reg()

    def judge(nodes, config):
        yield Pass("ok on the majority", hosts=["n1", "n2"])
        yield Skip("could not compare n3", hosts=["n3"])

    chk = _cluster_check(reg, judge)
    _, res = _one([chk], [_node(h, env=OK) for h in ("n1", "n2", "n3")])
    assert res.outcomes == {"n1": ("pass", "ok on the majority"), "n2": ("pass", "ok on the majority"),
                            "n3": ("skipped", "could not compare n3")}
    assert res.breakdown() == "skipped n3: could not compare n3; pass n[1-2]: ok on the majority"
    assert res.mixed and res.summary == "could not compare n3"


def test_a_crashing_cluster_check_marks_every_usable_node():
    reg = _reg()

    def judge(nodes, config):
        raise ValueError("boom")
        yield  # pragma: no cover

    chk = _cluster_check(reg, judge)
    nodes = [_node("n2", env=OK), _node("n1", env=OK), _node("n3", env={"status": "error", "reason": "x"})]
    report, res = _one([chk], nodes)
    assert res.crashed == {"ValueError: boom": ["n1", "n2"]}
    assert res.outcomes["n1"] == res.outcomes["n2"] == ("skipped", "the check crashed (a gpudoctor bug): "
                                                                   "ValueError: boom")
    assert res.outcomes["n3"] == ("skipped", "env: x") and report.exit_code == 3


def test_cluster_check_override_applies_to_its_findings():
    reg = _reg()
    chk = _cluster_check(reg, lambda nodes, c: iter([Finding.error("x", hosts=["n2"]), Finding.info("note")]))
    _, res = _one([chk], [_node("n1", env=OK), _node("n2", env=OK)], Config(severity={"t.cluster": "warning"}))
    assert [f.severity for f in res.findings] == ["warning", "info"] and res.status == "warn"


# -- the cluster line ---------------------------------------------------------------------------
@pytest.mark.parametrize("statuses,want", [
    (["pass", "na", "fail", "warn", "skipped"], "fail"),
    (["pass", "na", "warn", "skipped"], "warn"),
    (["pass", "na", "skipped"], "skipped"),
    (["na", "pass"], "pass"),
    (["na", "na"], "na"),
])
def test_cluster_status_precedence(statuses, want):
    reg = _reg()
    verdict = {"pass": Pass("p"), "na": NA("n"), "skipped": Skip("s"), "warn": Finding.warning("w"),
               "fail": Finding.error("f")}
    by_host = {"n%d" % i: st for i, st in enumerate(statuses)}

    def judge(facts, config):
        yield verdict[by_host[facts["node"]]]

    chk = _node_check(reg, judge)
    _, res = _one([chk], [_node(h, shm=OK) for h in by_host])
    assert res.status == want


def _result(outcomes, findings=()):
    r = CheckResult(id="t.x", title="t", severity="error", scope="cluster")
    r.outcomes = dict(outcomes)
    r.findings = list(findings)
    return r


def test_breakdown_folds_nodes_and_keeps_problem_texts_for_the_findings():
    r = _result([("gpu01", ("pass", "A")), ("gpu02", ("pass", "A")), ("gpu03", ("fail", "broken")),
                 ("gpu04", ("warn", "odd")), ("gpu05", ("skipped", "no driver")), ("gpu06", ("na", "n/a")),
                 ("gpu07", ("pass", "B")), ("gpu08", ("fail", "other"))])
    assert r.breakdown() == ("fail gpu[03,08]; warn gpu04; skipped gpu05: no driver; pass gpu[01-02]: A; "
                             "pass gpu07: B; na gpu06: n/a")
    assert r.by_status == {"fail": "gpu[03,08]", "warn": "gpu04", "skipped": "gpu05", "pass": "gpu[01-02,07]",
                           "na": "gpu06"}
    assert list(r.by_status) == ["fail", "warn", "skipped", "pass", "na"]
    assert r.evidence == "gpu[01-02]: A; gpu07: B"
    assert r.groups("pass") == [("A", ["gpu01", "gpu02"]), ("B", ["gpu07"])]


def test_evidence_lists_at_most_three_values():
    r = _result([("n%d" % i, ("pass", "v%d" % i)) for i in range(1, 6)])
    r.status = "pass"
    assert r.evidence == "n1: v1; n2: v2; n3: v3; (+2 other values)"
    assert _result([("n%d" % i, ("pass", "v%d" % i)) for i in range(1, 4)]).evidence == "n1: v1; n2: v2; n3: v3"
    assert r.summary == r.evidence
    r = _result([("n1", ("pass", "same")), ("n2", ("pass", "same"))])
    assert r.evidence == "same" and not r.mixed
    assert _result([]).evidence == "" and not _result([]).mixed


@pytest.mark.parametrize("status,findings,want", [
    ("fail", [Finding.warning("w"), Finding.error("e1"), Finding.error("e2"), Finding.error("e3")], "e1 (+2 more)"),
    ("fail", [Finding.error("only")], "only"),
    ("warn", [Finding.info("i"), Finding.warning("w1"), Finding.warning("w2")], "w1 (+1 more)"),
    ("warn", [Finding.info("i1"), Finding.info("i2")], "i1 (+1 more)"),  # an override left no warning
    ("fail", [], "fail"),
    ("warn", [], "warn"),
])
def test_summary_of_a_problem_is_its_worst_finding(status, findings, want):
    r = _result([("n1", (status, "x"))], findings)
    r.status = status
    assert r.summary == want


def test_summary_of_na_and_skipped_is_the_reason():
    r = _result([("n1", ("na", "no OFED")), ("n2", ("na", "no OFED"))])
    r.status = "na"
    assert r.summary == "no OFED"
    r = _result([("n1", ("skipped", "a")), ("n2", ("skipped", "b")), ("n3", ("na", "c"))])
    r.status = "skipped"
    assert r.summary == "n1: a; n2: b"
    r = _result([])
    r.status = "skipped"
    assert r.summary == "skipped"


# -- merging and the report ---------------------------------------------------------------------
def test_merge_findings_names_every_node_once_and_keeps_different_findings_apart():
    a1 = Finding.error("same", fix="f", hosts=["n1"])
    a2 = Finding.error("same", fix="f", hosts=["n2", "n1"])
    a3 = Finding.error("same", fix="f", hosts=["n3"])
    b = Finding.error("same", fix="other fix", hosts=["n2"])
    c = Finding.warning("same", fix="f", hosts=["n4"])
    merged = merge_findings([a1, a2, b, a3, c])
    assert [(f.severity, f.fix, f.hosts) for f in merged] == [
        ("error", "f", ["n1", "n2", "n3"]), ("error", "other fix", ["n2"]), ("warning", "f", ["n4"])]


def test_merge_compares_exports_by_content_and_any_value_by_its_text():
    import pathlib

    a = Finding.error("x", exports={"A": "1", "B": "2"}, hosts=["n1"])
    b = Finding.error("x", exports={"B": "2", "A": "1"}, hosts=["n2"])
    assert [f.hosts for f in merge_findings([a, b])] == [["n1", "n2"]]
    c = Finding.warning("y", observed=pathlib.PurePosixPath("/dev/shm"), hosts=["n1"])
    d = Finding.warning("y", observed=pathlib.PurePosixPath("/dev/shm"), hosts=["n2"])
    assert [f.hosts for f in merge_findings([c, d])] == [["n1", "n2"]]


def test_the_same_finding_on_many_nodes_is_one_finding():
    reg = _reg()
    chk = _node_check(reg, lambda f, c: iter([Finding.error("small", fix="grow it")]))
    report, res = _one([chk], [_node("n%d" % i, shm=OK) for i in (1, 2, 3)])
    assert [(f.message, f.hosts) for f in report.findings] == [("small", ["n1", "n2", "n3"])]


def test_report_findings_sorted_by_severity_then_check_and_counted():
    reg = _reg()
    check("b.warn", title="t", registry=reg)(lambda f, c: iter([Finding.warning("w")]))
    check("a.info", title="t", registry=reg)(lambda f, c: iter([Finding.info("i"), Pass("p")]))
    check("c.err", title="t", registry=reg)(lambda f, c: iter([Finding.error("e")]))
    check("a.err", title="t", registry=reg)(lambda f, c: iter([Finding.error("e2")]))
    check("d.na", title="t", registry=reg)(lambda f, c: iter([NA("nothing")]))
    check("e.skip", title="t", registry=reg)(lambda f, c: iter([Skip("unknown")]))
    report = run_checks([_node("n1")], list(reg), Config())
    assert [(f.severity, f.check) for f in report.findings] == [
        ("error", "a.err"), ("error", "c.err"), ("warning", "b.warn"), ("info", "a.info")]
    assert report.summary == {"errors": 2, "warnings": 1, "infos": 1, "checks_run": 4, "checks_passed": 1,
                              "checks_failed": 3, "checks_na": 1, "checks_skipped": 1, "checks_crashed": 0,
                              "nodes": 1, "nodes_unreachable": 0, "exit_code": 1}


@pytest.mark.parametrize("severities,strict,unreachable,want", [
    ([], False, False, 0),
    (["info"], True, False, 0),
    (["warning"], False, False, 0),
    (["warning"], True, False, 1),
    (["error"], False, False, 1),
    ([], False, True, 1),
])
def test_exit_code(severities, strict, unreachable, want):
    nodes = [Node(host="n1", facts={})] + ([Node(host="n2", error="x")] if unreachable else [])
    report = Report(nodes=nodes, results=[], findings=[Finding(severity=s, message=s) for s in severities],
                    strict=strict)
    assert report.exit_code == want


def test_json_report_of_a_real_node():
    reg = _reg()
    check("t.pass", title="passes", needs=("shm",), registry=reg)(lambda f, c: iter([Pass("256 GiB >= 1 GiB")]))
    check("t.fail", title="fails", severity="warning", registry=reg)(
        lambda f, c: iter([Finding.warning(observed="seen", expected="wanted", fix="do", exports={"A": "1"})]))
    nodes = [Node(host="gpu01", facts=node_facts("h100-ubuntu2404-torch211")),
             Node(host="gpu02", error="no route", error_kind="refused")]
    doc = json.loads(json.dumps(run_checks(nodes, list(reg), Config()).to_dict()))
    assert doc["schema"] == "gpudoctor.report/2" and doc["version"] == __version__
    assert doc["nodes"][0]["host"] == "gpu01" and doc["nodes"][0]["reachable"] is True
    assert doc["nodes"][0]["profile"]["gpus"] and doc["nodes"][1]["profile"] is None
    assert doc["nodes"][1] == {"host": "gpu02", "reachable": False, "error_kind": "refused", "error": "no route",
                               "profile": None}
    checks = {c["id"]: c for c in doc["checks"]}
    assert checks["t.pass"] == {"id": "t.pass", "title": "passes", "severity": "error", "scope": "node",
                                "status": "pass", "summary": "256 GiB >= 1 GiB", "evidence": "256 GiB >= 1 GiB",
                                "by_status": {"pass": "gpu01"},
                                "outcomes": [{"status": "pass", "hosts": "gpu01", "text": "256 GiB >= 1 GiB"}],
                                "crashed": {}}
    assert checks["t.fail"]["evidence"] is None and checks["t.fail"]["status"] == "warn"
    assert doc["findings"] == [{"check": "t.fail", "severity": "warning", "hosts": ["gpu01"],
                                "message": "seen (expected wanted)", "observed": "seen", "expected": "wanted",
                                "fix": "do", "exports": {"A": "1"}}]
    assert doc["summary"]["exit_code"] == 1 and doc["summary"]["nodes_unreachable"] == 1


# -- drift: the majority is the baseline; ties go to hostfile order -------------------------------
@pytest.mark.parametrize("values,want", [
    ({"gpu01": "2.1", "gpu02": "2.0", "gpu03": "2.0"}, [("2.0", ["gpu02", "gpu03"]), ("2.1", ["gpu01"])]),
    # a tie: the first node of the hostfile (rank 0) sets the baseline, whatever the names sort as
    ({"gpu02": "B", "gpu01": "A"}, [("B", ["gpu02"]), ("A", ["gpu01"])]),
    ({"n1": "A", "n2": "B", "n3": "B", "n4": "A", "n5": "C"}, [("A", ["n1", "n4"]), ("B", ["n2", "n3"]),
                                                               ("C", ["n5"])]),
    ({"n1": "C", "n2": "B", "n3": "A"}, [("C", ["n1"]), ("B", ["n2"]), ("A", ["n3"])]),
    ({"n1": 1, "n2": "1"}, [(1, ["n1"]), ("1", ["n2"])]),  # compared by repr: 1 is not "1"
    ({"n1": ("a", 1), "n2": ("a", 1)}, [(("a", 1), ["n1", "n2"])]),
    ({}, []),
])
def test_drift_groups_baseline_first(values, want):
    assert [(g.value, g.hosts) for g in drift.group(values)] == want


def test_drift_tie_break_is_by_the_first_node_of_each_group():
    # both groups have two nodes; the one holding the earliest node wins even if its other node is last
    groups = drift.group({"n1": "A", "n2": "B", "n3": "B", "n4": "A"})
    assert [g.value for g in groups] == ["A", "B"]
    groups = drift.group({"n1": "B", "n2": "A", "n3": "A", "n4": "B"})
    assert [g.value for g in groups] == ["B", "A"]


def test_drift_text():
    groups = drift.group({"gpu01": "2.0.1", "gpu02": "2.0.1", "gpu03": "2.1.2", "gpu04": "2.2"})
    assert groups[0].show() == "gpu[01-02] (2): 2.0.1"
    assert drift.describe("torch", groups) == ("torch differs: gpu03 (1): 2.1.2; gpu04 (1): 2.2 "
                                               "vs baseline gpu[01-02] (2): 2.0.1")
    assert drift.MISSING == "(not installed)"
