"""Run checks over facts and aggregate their outcomes into the Report every format renders.

Per node a check ends in one outcome (gpudoctor.registry): pass (with its evidence), warn,
fail, na (nothing to judge) or skipped (could not judge, with the reason). Node checks run
once per reachable node; cluster checks once over every node whose sections they need.
A check passes for the cluster only when it passed on every node in scope; otherwise the
result says which nodes did what (``pass gpu[01-03]; skipped gpu04: no NVIDIA driver``).
A node is never dropped silently: a node whose sections a cluster check needs are missing
is ``skipped`` with that reason, not left out of the comparison.
"""

import json

from gpudoctor import __version__
from gpudoctor.node import Node  # noqa: F401 (re-exported: Node used to live here)
from gpudoctor.nodes import fold
from gpudoctor.record import NEW, Record
from gpudoctor.registry import Finding, Verdict

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
# Cluster-level precedence: one failing node fails the check; a node that could not be
# judged keeps the cluster from a clean pass; n/a nodes are out of scope.
STATUS_ORDER = ("fail", "warn", "skipped", "pass", "na")
SINGLE_NODE = "a single node: nothing to compare"
NO_EVIDENCE = "the check reported neither a problem nor its evidence (a bug in the check)"


class CheckResult(Record):
    _fields = ("id", "title", "severity", "scope", "status", "outcomes", "findings", "crashed", "tracebacks")

    def __init__(self, id, title, severity, scope, status="na", outcomes=NEW, findings=NEW, crashed=NEW,  # noqa: A002
                 tracebacks=NEW):
        self.id = id
        self.title = title
        self.severity = severity  # the check's default (worst) severity
        self.scope = scope
        self.status = status  # cluster level: pass | warn | fail | na | skipped
        self.outcomes = {} if outcomes is NEW else outcomes  # host -> (status, evidence or reason)
        self.findings = [] if findings is NEW else findings  # [Finding]
        self.crashed = {} if crashed is NEW else crashed  # exception -> hosts
        self.tracebacks = {} if tracebacks is NEW else tracebacks  # exception -> its traceback (the crash file)

    def groups(self, status):
        """[(text, [hosts])] of the nodes that ended in ``status``, grouped by their text."""
        by = {}  # text -> hosts
        for host, (st, text) in self.outcomes.items():
            if st == status:
                by.setdefault(text, []).append(host)
        return list(by.items())

    def hosts(self, status):
        return [h for h, (st, _) in self.outcomes.items() if st == status]

    @property
    def by_status(self):
        out = {}
        for st in STATUS_ORDER:
            hosts = self.hosts(st)
            if hosts:
                out[st] = fold(hosts)
        return out

    @property
    def evidence(self):
        """What the passing nodes judged: one text, or the texts by node group."""
        return _join_groups(self.groups("pass"))

    @property
    def mixed(self):
        return len({st for st, _ in self.outcomes.values()}) > 1

    def breakdown(self):
        """`fail gpu03; pass gpu[01-02]: <evidence>; skipped gpu04: no NVIDIA driver`."""
        parts = []
        for st in STATUS_ORDER:
            groups = self.groups(st)
            if st in ("fail", "warn"):  # their messages are the findings, shown with the fixes
                hosts = [h for _, hs in groups for h in hs]
                if hosts:
                    parts.append("%s %s" % (st, fold(hosts)))
                continue
            for text, hosts in groups:
                parts.append("%s %s: %s" % (st, fold(hosts), text))
        return "; ".join(parts)

    @property
    def summary(self):
        """The report line: the worst finding, the evidence, or the reason."""
        if self.status in ("fail", "warn"):
            sev = "error" if self.status == "fail" else "warning"
            worst = [f for f in self.findings if f.severity == sev] or self.findings
            text = worst[0].message if worst else self.status
            # one problem on several nodes, each with its own observed value (NCCL_SOCKET_IFNAME=nosuch0 on
            # sn1 and sn2, each listing its own interfaces: slurm24), is one message, not "+1 more"
            more = len(set(f.message for f in worst)) - 1
            if more > 0:
                text += " (+%d more)" % more
            return text
        if self.status == "pass":
            return self.evidence
        groups = self.groups(self.status)
        return _join_groups(groups) if groups else self.status


def _join_groups(groups, limit=3):
    if not groups:
        return ""
    if len(groups) == 1:
        return groups[0][0]
    shown = ["%s: %s" % (fold(hosts), text) for text, hosts in groups[:limit]]
    if len(groups) > limit:
        more = len(groups) - limit
        shown.append("(+%d other value%s)" % (more, "" if more == 1 else "s"))
    return "; ".join(shown)


class Report(Record):
    _fields = ("nodes", "results", "findings", "strict")

    def __init__(self, nodes, results, findings, strict=False, shown=None):
        self.nodes = nodes  # [Node]
        self.results = results  # [CheckResult]
        self.findings = findings  # [Finding]
        self.strict = strict
        self._shown = shown  # fixline.Shown over the nodes' values: run_checks' own, else built once on first use

    def shown_profile(self, node):
        """The node's profile, its hostile values shown as one shell word each (docs/security.md 27.)."""
        from gpudoctor.profile import profile

        if self._shown is None:
            self._shown = shown_of(self.nodes)
        return _shown_profile(profile(node.facts), self._shown)

    @property
    def crashed(self):
        """The checks that raised instead of ending in an outcome (a gpudoctor bug: exit 3)."""
        return [r.id for r in self.results if r.crashed]

    @property
    def summary(self):
        count = lambda sev: sum(1 for f in self.findings if f.severity == sev)  # noqa: E731
        statuses = [r.status for r in self.results]
        s = {
            "errors": count("error"),
            "warnings": count("warning"),
            "infos": count("info"),
            "checks_run": sum(1 for st in statuses if st not in ("skipped", "na")),
            "checks_passed": statuses.count("pass"),
            "checks_failed": statuses.count("fail") + statuses.count("warn"),
            "checks_na": statuses.count("na"),
            "checks_skipped": statuses.count("skipped"),
            "checks_crashed": len(self.crashed),
            "nodes": len(self.nodes),
            "nodes_unreachable": sum(1 for n in self.nodes if not n.reachable),
        }
        s["exit_code"] = self.exit_code
        return s

    interrupted = False  # Ctrl-C (130) or SIGTERM (143) ended the gathering: the report covers the nodes gathered before it

    @property
    def exit_code(self):
        if self.interrupted:  # errors.EXIT_INTERRUPTED / EXIT_TERMINATED: what the process exits with, said here too
            return 143 if self.interrupted == 143 else 130
        if self.crashed:
            return 3  # errors.EXIT_INTERNAL: a crashed check is neither "healthy" nor "findings"
        if any(f.severity == "error" for f in self.findings) or any(not n.reachable for n in self.nodes):
            return 1
        if self.strict and any(f.severity == "warning" for f in self.findings):
            return 1
        return 0

    def to_dict(self):
        return {
            "schema": "gpudoctor.report/2",
            "version": __version__,
            "nodes": [dict({"host": n.host, "reachable": n.reachable, "error_kind": n.error_kind, "error": n.error,
                            "profile": self.shown_profile(n) if n.reachable else None},
                           # how a node of a cluster run was reached (srun, ssh; docs/report-schema.md)
                           **_via(n)) for n in self.nodes],
            "checks": [check_dict(r) for r in self.results],
            "findings": [finding_dict(f) for f in self.findings],
            "summary": self.summary,
        }


def _shown_profile(prof, shown):
    if isinstance(prof, dict):
        return {k: _shown_profile(v, shown) for k, v in prof.items()}
    if isinstance(prof, list):
        return [_shown_profile(v, shown) for v in prof]
    return shown(prof) if isinstance(prof, str) else prof


def _via(n):
    out = {"via": n.via} if getattr(n, "via", None) else {}
    if getattr(n, "fallback_from", None):
        out["fallback_from"] = n.fallback_from
    return out


def check_dict(r: CheckResult):
    d = {"id": r.id, "title": r.title, "severity": r.severity, "scope": r.scope, "status": r.status,
         "summary": r.summary, "evidence": r.evidence or None, "by_status": r.by_status,
         "outcomes": [{"status": st, "hosts": fold(hosts), "text": text}
                      for st in STATUS_ORDER for text, hosts in r.groups(st)],
         "crashed": r.crashed}
    # a check's notes (its info findings: a history note, docs/history.md) ride with the
    # result they belong to; the key is there only when the check has one
    notes = [{"hosts": fold(f.hosts), "text": f.message} for f in r.findings if f.severity == "info"]
    if notes:
        d["notes"] = notes
    return d


def finding_dict(f: Finding):
    return {"check": f.check, "severity": f.severity, "hosts": f.hosts, "message": f.message,
            "observed": f.observed, "expected": f.expected, "fix": f.fix, "exports": f.exports}


def _unmet(facts, needs):
    """(status, reason) when a section the check needs is not ok: an unsupported section
    (the thing is absent: no driver, no --same files) leaves nothing to judge (na); a failed
    or missing one means the check could not judge (skipped)."""
    for name in needs:
        sec = facts.get(name)
        if not isinstance(sec, dict):
            ran = (facts.get("collector") or {}).get("section_seconds") if isinstance(facts.get("collector"), dict) else None
            if sec is None and isinstance(ran, dict) and ran and name not in ran:
                # (userwalk28) saved facts from a collector that had no such section yet (the README's H200 facts
                # predate tmp): 'tmp: not collected' alone did not say why or what to do
                return "skipped", ("%s: not collected (these facts predate it: gathered by an older gpudoctor; "
                                   "gather them again with gpudoctor facts -o FILE)" % name)
            return "skipped", "%s: not collected" % name
        if sec.get("status") != "ok":
            status = "na" if sec.get("status") == "unsupported" else "skipped"
            return status, "%s: %s" % (name, sec.get("reason") or sec.get("status"))
    return None


def _call(chk, arg, config):
    findings, verdicts = [], []
    for item in chk.func(arg, config) or ():
        if isinstance(item, Finding):
            findings.append(item)
        elif isinstance(item, Verdict):
            verdicts.append(item)
        else:
            raise TypeError("check %s yielded %r, neither a Finding nor a verdict" % (chk.id, item))
    return findings, verdicts


def outcome(findings, verdicts):
    """One node's (status, text) from what a check yielded for it."""
    for sev, status in (("error", "fail"), ("warning", "warn")):
        hit = [f for f in findings if f.severity == sev]
        if hit:
            return status, hit[0].message
    for status in ("skipped", "pass", "na"):  # a part it could not judge keeps a node from a clean pass
        texts = [v.text for v in verdicts if v.status == status]
        if texts:
            return status, "; ".join(dict.fromkeys(texts))
    return "skipped", NO_EVIDENCE


def _apply_override(findings, override):
    if override:
        for f in findings:
            if f.severity != "info":
                f.severity = override


def _run_node_check(chk, res, live, config, override):
    for node in live:
        unmet = _unmet(node.facts, chk.needs)
        if unmet:
            res.outcomes[node.host] = unmet
            continue
        try:
            found, verdicts = _call(chk, node.facts, config)
        except Exception as exc:  # a buggy check reports itself and spares the rest
            msg = "%s: %s" % (type(exc).__name__, exc)
            res.crashed.setdefault(msg, []).append(node.host)
            import traceback  # only for a crash: 1.6 ms of the prolog tier's start otherwise

            res.tracebacks.setdefault(msg, traceback.format_exc())
            res.outcomes[node.host] = ("skipped", "the check crashed (a gpudoctor bug): " + msg)
            continue
        _apply_override(found, override)
        for f in found:
            f.hosts = f.hosts or [node.host]
        res.findings.extend(found)
        res.outcomes[node.host] = outcome(found, verdicts)


def _run_cluster_check(chk, res, live, config, override):
    if len(live) < 2:
        for node in live:
            res.outcomes[node.host] = ("na", SINGLE_NODE)
        return
    usable = {}
    for node in live:
        unmet = _unmet(node.facts, chk.needs)
        if unmet:
            res.outcomes[node.host] = unmet
        else:
            usable[node.host] = node.facts
    if len(usable) < 2:
        for host in usable:
            res.outcomes[host] = ("na", "no other node to compare with")
        return
    try:
        found, verdicts = _call(chk, usable, config)
    except Exception as exc:
        msg = "%s: %s" % (type(exc).__name__, exc)
        res.crashed[msg] = sorted(usable)
        import traceback

        res.tracebacks[msg] = traceback.format_exc()
        for host in usable:
            res.outcomes[host] = ("skipped", "the check crashed (a gpudoctor bug): " + msg)
        return
    _apply_override(found, override)
    res.findings.extend(found)
    every = set(usable)
    mine_f = {h: [] for h in usable}
    mine_v = {h: [] for h in usable}
    for f in found:
        for h in (set(f.hosts) & every if f.hosts else every):
            mine_f[h].append(f)
    for v in verdicts:
        for h in (set(v.hosts) & every if v.hosts else every):
            mine_v[h].append(v)
    for host in usable:
        res.outcomes[host] = outcome(mine_f[host], mine_v[host])


def _cluster_status(res):
    present = {st for st, _ in res.outcomes.values()}
    for st in STATUS_ORDER:
        if st in present:
            return st
    return "na"


def shown_of(nodes):
    """fixline.Shown over every reachable node's facts: the descriptions name node values as one shell word where
    the value holds what a shell or a terminal acts on (docs/security.md 27.)."""
    from gpudoctor.fixline import Shown, leaf_strings

    return Shown((v for n in nodes if n.reachable and isinstance(n.facts, dict) for v in leaf_strings(n.facts)),
                 inert=True)


def _shown_result(res, shown):
    for f in res.findings:
        f.message, f.observed, f.expected = shown(f.message), shown(f.observed), shown(f.expected)
    for host, (st, text) in list(res.outcomes.items()):
        res.outcomes[host] = (st, shown(text))


def run_checks(nodes, checks, config):
    results, raw = [], []
    live = [n for n in nodes if n.reachable]
    shown = shown_of(nodes)
    overrides = getattr(config, "severity", {}) or {}
    for chk in checks:
        override = overrides.get(chk.id)
        if override == "off" or (chk.scope == "cluster" and len(nodes) <= 1):
            continue  # one node: nothing to compare, and nothing to list
        res = CheckResult(id=chk.id, title=chk.title, severity=override or chk.severity, scope=chk.scope)
        if chk.scope == "node":
            _run_node_check(chk, res, live, config, override)
        else:
            _run_cluster_check(chk, res, live, config, override)
        for f in res.findings:
            f.check = chk.id
        _shown_result(res, shown)
        res.findings = merge_findings(res.findings)
        res.status = _cluster_status(res)
        if not live:
            res.status = "skipped"
        results.append(res)
        raw.extend(res.findings)
    raw.sort(key=lambda f: (SEVERITY_RANK[f.severity], f.check))
    return Report(nodes=nodes, results=results, findings=raw, strict=getattr(config, "strict", False), shown=shown)


def merge_findings(findings):
    """The same finding on many nodes becomes one finding naming all of them."""
    merged = {}  # key -> Finding
    for f in findings:
        key = json.dumps([f.check, f.severity, f.message, f.observed, f.expected, f.fix, f.exports],
                         sort_keys=True, default=str)
        if key in merged:
            have = merged[key].hosts
            seen = set(have)
            have.extend(h for h in f.hosts if h not in seen)
        else:
            merged[key] = f
    return list(merged.values())
