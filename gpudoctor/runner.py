"""Run checks over facts: node checks once per node, cluster checks once over all nodes.
Produces the Report that every output format renders."""

import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from gpudoctor import __version__
from gpudoctor.registry import Check, Finding

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


@dataclass
class Node:
    """One node: its facts, or why it could not be checked."""

    host: str
    facts: Optional[dict] = None
    error: Optional[str] = None
    error_kind: Optional[str] = None  # resolve, refused, timeout, auth, hostkey, python, collector, ...

    @property
    def reachable(self):
        return self.facts is not None


@dataclass
class CheckResult:
    id: str
    title: str
    severity: str  # the check's default (worst) severity
    scope: str
    status: str = "pass"  # pass | error | warning | skipped | crashed
    passed: List[str] = field(default_factory=list)  # hosts where it ran and found nothing
    skipped: Dict[str, List[str]] = field(default_factory=dict)  # reason -> hosts
    crashed: Dict[str, List[str]] = field(default_factory=dict)  # exception -> hosts
    findings: List[Finding] = field(default_factory=list)


@dataclass
class Report:
    nodes: List[Node]
    results: List[CheckResult]
    findings: List[Finding]
    strict: bool = False

    @property
    def summary(self):
        count = lambda sev: sum(1 for f in self.findings if f.severity == sev)  # noqa: E731
        unreachable = [n.host for n in self.nodes if not n.reachable]
        s = {
            "errors": count("error"),
            "warnings": count("warning"),
            "infos": count("info"),
            "checks_run": sum(1 for r in self.results if r.status != "skipped"),
            "checks_passed": sum(1 for r in self.results if r.status == "pass"),
            "checks_failed": sum(1 for r in self.results if r.status in ("error", "warning")),
            "checks_skipped": sum(1 for r in self.results if r.status == "skipped"),
            "checks_crashed": sum(1 for r in self.results if r.crashed),
            "nodes": len(self.nodes),
            "nodes_unreachable": len(unreachable),
        }
        s["exit_code"] = self.exit_code
        return s

    @property
    def exit_code(self):
        if any(f.severity == "error" for f in self.findings) or any(not n.reachable for n in self.nodes):
            return 1
        if self.strict and any(f.severity == "warning" for f in self.findings):
            return 1
        return 0

    def to_dict(self):
        return {
            "schema": "gpudoctor.report/1",
            "version": __version__,
            "nodes": [{"host": n.host, "reachable": n.reachable, "error": n.error, "error_kind": n.error_kind}
                      for n in self.nodes],
            "checks": [{"id": r.id, "title": r.title, "severity": r.severity, "scope": r.scope,
                        "status": r.status, "passed": r.passed, "skipped": r.skipped, "crashed": r.crashed}
                       for r in self.results],
            "findings": [finding_dict(f) for f in self.findings],
            "summary": self.summary,
        }


def finding_dict(f: Finding):
    return {"check": f.check, "severity": f.severity, "hosts": f.hosts, "message": f.message,
            "observed": f.observed, "expected": f.expected, "fix": f.fix, "exports": f.exports}


def _skip_reason(facts, needs):
    for name in needs:
        sec = facts.get(name)
        if sec is None:
            return "%s: not collected" % name
        if sec.get("status") != "ok":
            return "%s: %s" % (name, sec.get("reason") or sec.get("status"))
    return None


def _call(chk: Check, arg, config):
    out = []
    for f in chk.func(arg, config) or ():
        if not isinstance(f, Finding):
            raise TypeError("check %s yielded %r, not a Finding" % (chk.id, f))
        out.append(f)
    return out


def run_checks(nodes: List[Node], checks: List[Check], config) -> Report:
    results, raw = [], []
    live = [n for n in nodes if n.reachable]
    overrides = getattr(config, "severity", {}) or {}
    for chk in checks:
        override = overrides.get(chk.id)
        if override == "off":
            continue
        res = CheckResult(id=chk.id, title=chk.title, severity=override or chk.severity, scope=chk.scope)
        if not live:
            res.skipped["no node could be checked"] = []
        elif chk.scope == "node":
            for node in live:
                reason = _skip_reason(node.facts, chk.needs)
                if reason:
                    res.skipped.setdefault(reason, []).append(node.host)
                    continue
                try:
                    found = _call(chk, node.facts, config)
                except Exception as exc:  # a buggy check reports itself and spares the rest
                    res.crashed.setdefault("%s: %s" % (type(exc).__name__, exc), []).append(node.host)
                    continue
                for f in found:
                    f.hosts = f.hosts or [node.host]
                res.findings.extend(found)
                if not any(f.severity in ("error", "warning") for f in found):
                    res.passed.append(node.host)
        else:
            usable = {n.host: n.facts for n in live if not _skip_reason(n.facts, chk.needs)}
            if len(usable) < 2:
                res.skipped["a single node: nothing to compare" if len(live) < 2 else
                            "needs %s from at least 2 nodes" % ", ".join(chk.needs)] = sorted(usable)
            else:
                try:
                    res.findings.extend(_call(chk, usable, config))
                except Exception as exc:
                    res.crashed["%s: %s" % (type(exc).__name__, exc)] = sorted(usable)
                if not res.findings and not res.crashed:
                    res.passed = sorted(usable)
        for f in res.findings:
            f.check = chk.id
            if override and f.severity != "info":
                f.severity = override
        res.findings = merge_findings(res.findings)
        sev = sorted((f.severity for f in res.findings), key=SEVERITY_RANK.get)
        if sev and sev[0] in ("error", "warning"):
            res.status = sev[0]
        elif res.crashed:
            res.status = "crashed"
        elif not res.passed and not res.findings and res.skipped:
            res.status = "skipped"
        results.append(res)
        raw.extend(res.findings)
    raw.sort(key=lambda f: (SEVERITY_RANK[f.severity], f.check))
    return Report(nodes=nodes, results=results, findings=raw, strict=getattr(config, "strict", False))


def merge_findings(findings: List[Finding]) -> List[Finding]:
    """The same finding on many nodes becomes one finding naming all of them."""
    merged: Dict[str, Finding] = {}
    for f in findings:
        key = json.dumps([f.check, f.severity, f.message, f.observed, f.expected, f.fix, f.exports],
                         sort_keys=True, default=str)
        if key in merged:
            for h in f.hosts:
                if h not in merged[key].hosts:
                    merged[key].hosts.append(h)
        else:
            merged[key] = f
    return list(merged.values())
