"""`gpudoctor diff`: what changed between two runs, as text or JSON (schema
gpudoctor.diff/1, docs/report-schema.md). The checks whose verdict changed come first, each
with the changes in the facts it reads; then every change, its nodes folded."""

import json

from gpudoctor import __version__
from gpudoctor.nodes import fold

SCHEMA = "gpudoctor.diff/1"
MARK = {"pass": "PASS", "fail": "FAIL", "warn": "WARN", "skipped": "SKIP", "na": "N/A"}


def _value(v):
    from gpudoctor.changes import ABSENT

    if v is ABSENT:
        return None
    if isinstance(v, tuple):
        return list(v)
    return v


def _outcome(v):
    return {"status": v[0], "text": v[1]} if v else None


def to_dict(diff, since=None):
    from gpudoctor.history import utc  # noqa: F401 (times stay ISO 8601 in JSON)

    return {
        "schema": SCHEMA,
        "version": __version__,
        "before": {"source": diff.before_source, "since": since,
                   "collected_at": {h: t[0] for h, t in diff.times.items()},
                   "records": diff.records},
        "after": {"source": diff.after_source, "collected_at": {h: t[1] for h, t in diff.times.items()}},
        "nodes": {"compared": fold([h for h in diff.times]), "added": diff.added, "removed": diff.removed,
                  "unreachable": diff.unreachable},
        "verdicts": [{"check": v.check, "hosts": fold(v.hosts), "host_list": v.hosts, "before": _outcome(v.before),
                      "after": _outcome(v.after), "changes": v.changes} for v in diff.verdicts],
        "changes": [{"label": c.label, "path": c.path, "sections": list(c.sections), "before": _value(c.before),
                     "after": _value(c.after), "text": c.text, "hint": c.hint, "hosts": fold(hosts),
                     "host_list": hosts} for c, hosts in diff.changes],
        "env_hashes_compared": diff.hashes_compared,
        "summary": {"nodes": len(diff.times), "changes": len(diff.changes), "verdicts_changed": len(diff.verdicts),
                    "exit_code": diff.exit_code},
    }


def render_json(diff, stream, since=None):
    json.dump(to_dict(diff, since), stream, indent=2)
    stream.write("\n")


def _when(diff):
    from gpudoctor.history import utc

    befores = sorted({t[0] for t in diff.times.values() if t[0]})
    afters = sorted({t[1] for t in diff.times.values() if t[1]})
    if not befores or not afters:
        return ""
    span = lambda xs: utc(xs[0]) if len(xs) == 1 else "%s .. %s" % (utc(xs[0]), utc(xs[-1]))  # noqa: E731
    return " (%s -> %s)" % (span(befores), span(afters))


def lines(diff, since=None):
    from gpudoctor.history import utc

    out = []
    nodes = list(diff.times)
    out.append("gpudoctor diff: %s -> %s%s" % (diff.before_source, diff.after_source, _when(diff)))
    out.append("%d node%s compared%s" % (len(nodes), "" if len(nodes) == 1 else "s",
                                         (": " + fold(nodes)) if nodes else ""))
    odd = [(h, r) for h, r in sorted((diff.records or {}).items()) if r.get("kind") == "fewest-failures"]
    for h, r in odd[:8]:  # which record stood in for a node that has no passing run
        out.append("%s: no passing run kept; compared with its run of %s, the fewest failures (%s)" % (
            h, utc(r.get("at")), "; ".join("%s: %s" % (k, ", ".join(r[k][:6])) for k in ("failed", "warned")
                                           if r.get(k)) or "nothing failed"))
    if len(odd) > 8:
        out.append("(+%d more nodes with no passing run kept)" % (len(odd) - 8))
    if since and since != "last-good":  # --since DATE: say where the record taken is after that date
        later = [(h, r) for h, r in sorted((diff.records or {}).items()) if str(r.get("at") or "") > since]
        for h, r in later[:8]:
            out.append("%s: no run kept at or before %s; compared with its first run after it, %s" % (
                h, utc(since), utc(r.get("at"))))
        if len(later) > 8:
            out.append("(+%d more nodes with no run kept at or before %s)" % (len(later) - 8, utc(since)))
    for label, hosts in (("only after (new)", diff.added), ("only before (gone)", diff.removed),
                         ("not compared (unreachable in a run)", diff.unreachable)):
        if hosts:
            out.append("%s: %s" % (label, fold(hosts)))
    if diff.verdicts:
        out.append("")
        # history.py: another status, or the same status with another message (the problem changed)
        out.append("Checks whose verdict changed (another status, or the same status with another message)")
        width = max(len(v.check) for v in diff.verdicts)
        for v in diff.verdicts:
            then = v.before[0] if v.before else "not run"
            now = v.after[0] if v.after else "not run"
            moved = "%s -> %s" % (then, now) if then != now else "%s, message changed" % now
            out.append("%-4s %-*s  %s [%s]: %s" % (MARK.get(now, now.upper()), width, v.check, moved,
                                                 fold(v.hosts), v.after[1] if v.after else ""))
            if v.changes:
                for text in v.changes[:6]:
                    out.append("       changed: %s" % text)
                if len(v.changes) > 6:
                    out.append("       (+%d more changes)" % (len(v.changes) - 6))
            else:
                out.append("       nothing this check reads changed")
    out.append("")
    if diff.changes:
        out.append("Changes (%d)" % len(diff.changes))
        for c, hosts in diff.changes:
            out.append("  %s: %s" % (fold(hosts), c.text))
    else:
        # hashed values only where a node has them on both sides; facts -o records no key (review27: a folder
        # against itself said 'under another key in each run')
        why = getattr(diff, "hashes_not_compared", "")
        out.append("No change in the facts%s" % (
            " (secret-looking environment values are hashed under another key in each run: not compared)"
            if why == "key" else
            " (secret-looking environment values are hashed: not compared, these facts record no hash key)"
            if why == "unknown" else ""))
    out.append("")
    out.append("Summary: %d change%s on %d node%s; %d check%s changed verdict; exit %d" % (
        len(diff.changes), "" if len(diff.changes) == 1 else "s", len(nodes), "" if len(nodes) == 1 else "s",
        len(diff.verdicts), "" if len(diff.verdicts) == 1 else "s", diff.exit_code))
    return out


def render_text(diff, stream, since=None):
    from gpudoctor.report.text import _printable

    stream.write("\n".join(_printable(line) for line in lines(diff, since)) + "\n")
