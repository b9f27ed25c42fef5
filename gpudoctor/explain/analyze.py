"""From what the scan found to an answer: the root error, related errors, the cascade of
echoes, and context (INFO/WARN lines, never a root cause on their own).

Scoring: an entry's score is the rank of its best pattern on an error line (or of a
`together` group: several lines, each weak alone, found within a few lines of each other),
plus the weights of its `signals` (confirming lines) seen in the log. An entry matched only
on INFO lines is context; one matched only on WARN lines is a cause only when it is of kind
"error" (NCCL prints its errors as "NCCL WARN"); a "warning" entry (a hint such as NCCL falling
back to sockets) on an INFO or WARN line is context.
"""

from gpudoctor.explain.scan import MAX_SHOWN

MAX_SIGNAL_BONUS = 30


def _together(scan, e):
    """(rank, hits, severity) of the best `together` group of entry e found in the log, or None."""
    best = None
    for gi, t in enumerate(e.get("together", [])):
        lists = [scan.parts.get((e["id"], gi, i), []) for i in range(len(t["all"]))]
        if not all(lists):
            continue
        for anchor in lists[0]:
            chosen = [anchor]
            for other in lists[1:]:
                near = [h for h in other if abs(h.line - anchor.line) <= t["within"]]
                if not near:
                    break
                chosen.append(min(near, key=lambda h: abs(h.line - anchor.line)))
            else:
                sevs = [h.severity for h in chosen]
                sev = None if None in sevs else ("warn" if "warn" in sevs else "info")
                rank = t.get("rank", e["rank"])
                cand = (rank, sorted(chosen, key=lambda h: h.line), sev)
                if best is None or (cand[2] is None, cand[0]) > (best[2] is None, best[0]):
                    best = cand
                break
    return best


def _signals(scan, e, lines):
    """Bonus and the signal hits that earned it."""
    bonus, seen = 0, []
    for p in e["_patterns"]:
        if p.role != "signal":
            continue
        hits = scan.signals.get(p, [])
        if p.near is not None:
            hits = [h for h in hits if any(abs(h.line - ln) <= p.near for ln in lines)]
        if hits:
            bonus += p.weight
            seen.append(hits[0])
    return min(bonus, MAX_SIGNAL_BONUS), seen


def analyze(scan, kb, assume_error=False):
    """-> (verdict, findings, context). verdict: 'root_cause', 'echo_only', 'no_error' or
    'unknown_error'."""
    matched = {}
    for eid, hits in scan.matches.items():
        matched[eid] = {"hits": list(hits), "count": scan.counts[eid], "ranks": dict(scan.rank[eid]),
                        "firsts": dict(scan.first[eid]), "lines": list(scan.match_lines.get(eid, []))}
    for e in kb.entries:
        tg = _together(scan, e)
        if tg:
            rank, hits, sev = tg
            m = matched.setdefault(e["id"], {"hits": [], "count": 0, "ranks": {}, "firsts": {}, "lines": []})
            m["ranks"][sev] = max(m["ranks"].get(sev, rank), rank)
            m["firsts"][sev] = min(m["firsts"].get(sev, hits[0].line), hits[0].line)
            have = {h.line for h in m["hits"]}
            m["hits"] = sorted(m["hits"] + [h for h in hits if h.line not in have], key=lambda h: h.line)[:MAX_SHOWN]
            m["count"] += len([h for h in hits if h.line not in have])
            m["lines"] += [h.line for h in hits]
            m["together"] = True
    for eid, keys in scan.distinct.items():
        for key, values in keys.items():
            if len(values) >= 2:
                hits = sorted(values.values(), key=lambda h: h.line)
                rank = kb.by_id[eid]["rank"]
                m = matched.setdefault(eid, {"hits": [], "count": 0, "ranks": {}, "firsts": {}, "lines": []})
                # two versions in one log is an error whatever the lines' severity
                m["ranks"][None] = max(m["ranks"].get(None, rank), rank)
                m["firsts"][None] = min(m["firsts"].get(None, hits[0].line), hits[0].line)
                m["hits"] = sorted(m["hits"] + hits, key=lambda h: h.line)[:MAX_SHOWN]
                m["count"] += len(hits)
                m["lines"] += [h.line for h in hits]
                m["distinct"] = {"key": key, "values": sorted(values)}
    # NCCL prints its errors as "NCCL WARN" lines: a WARN line that an entry of kind "error"
    # names is an error; other WARN lines ("Failed to open libibverbs", DeepSpeed's missing
    # hostfile) and every INFO line are context.
    has_error = assume_error or scan.error_count > 0 or any(
        (None in m["ranks"] and kb.by_id[eid]["kind"] != "warning") or
        ("warn" in m["ranks"] and kb.by_id[eid]["kind"] == "error") for eid, m in matched.items())
    causes, context = [], []
    for eid, m in matched.items():
        e = kb.by_id[eid]
        eligible = [s for s in m["ranks"] if s is None or (s == "warn" and (e["kind"] == "error" or has_error
                                                                            and e["kind"] == "echo"))]
        if e["kind"] == "warning":
            # a known warning (NCCL fell back to sockets, Open MPI's openib banner) is a note,
            # never the root cause: with an error nothing explains, the answer stays "unknown"
            eligible = []
        if not eligible:
            context.append(eid)
            continue
        m["rank"] = max(m["ranks"][s] for s in eligible)
        m["first"] = min(m["firsts"][s] for s in eligible)
        m["bonus"], m["signal_hits"] = _signals(scan, e, m["lines"])
        m["score"] = m["rank"] + m["bonus"]
        causes.append(eid)
    # A family entry (generic = true: a generated message site, or a phrase that several causes
    # print, such as 'invalid usage') never outranks an entry that names a specific cause.
    order = sorted(causes, key=lambda eid: (kb.by_id[eid]["kind"] == "echo", bool(kb.by_id[eid].get("generic")),
                                             -matched[eid]["score"], matched[eid]["first"]))
    findings = []
    for i, eid in enumerate(order):
        e = kb.by_id[eid]
        role = "root" if i == 0 else ("cascade" if e["kind"] == "echo" else "related")
        findings.append(_finding(e, matched[eid], role, scan))
    notes = []
    for eid in sorted(context, key=lambda x: min(matched[x]["firsts"].values())):
        e, m = kb.by_id[eid], matched[eid]
        h = m["hits"][0] if m["hits"] else None
        sev = "info" if set(m["ranks"]) == {"info"} else ("warn" if "warn" in m["ranks"] else "warning")
        notes.append({"id": eid, "severity": sev, "note": (e.get("note") or e["title"]).strip(),
                      "fix": e["causes"][0]["fix"][0], "first_line": h.line if h else None,
                      "text": h.text if h else None, "match_count": m["count"]})
    if findings:
        verdict = "echo_only" if findings[0]["kind"] == "echo" else "root_cause"
        if verdict == "echo_only":
            findings[0]["notes"].append("Only the echo of a failure was found: the error that started it is earlier "
                                        "in the full log or in another rank's log.")
    elif scan.error_count or (has_error and not notes):
        # an error line nothing explains; or text given as an error (an argument) that matched
        # nothing at all. An argument that is a known INFO/WARN line gets its note instead.
        verdict = "unknown_error"
    else:
        verdict = "no_error"
    return verdict, findings, notes


def _finding(e, m, role, scan):
    causes = []
    for ci, c in enumerate(e["causes"]):
        ev = scan.evidence.get((e["id"], ci), [])
        causes.append({"text": c["text"], "checks": list(c["checks"]), "confirm": list(c["confirm"]),
                       "fix": list(c["fix"]), "exports": dict(c["exports"]),
                       "evidence": [{"line": h.line, "text": h.text} for h in ev], "static_rank": ci + 1,
                       "computed": c.get("computed")})
    # causes the log itself points at go first (stable: the data's order among equals)
    causes.sort(key=lambda c: (not c["evidence"], c["static_rank"]))
    notes = []
    for group, table in e.get("lookup", {}).items():
        seen = []
        for h in m["hits"]:
            v = h.groups.get(group)
            if v is not None and v not in seen:
                seen.append(v)
                notes.append("%s %s: %s" % (group.capitalize(), v, table.get(v, "not in gpudoctor's table: see the "
                                                                                 "references")))
    f = {"id": e["id"], "family": e["family"], "title": e["title"], "kind": e["kind"], "role": role,
         "rank": m["rank"], "score": m["score"], "explain": e["explain"].strip(), "first_line": m["first"],
         "match_count": m["count"],
         "matches": [{"line": h.line, "text": h.text, "severity": h.severity} for h in m["hits"]],
         "signals": [{"line": h.line, "text": h.text} for h in m["signal_hits"]],
         "notes": notes, "causes": causes, "debug": list(e["debug"]),
         "references": [dict(r) for r in e["references"]], "knowledge_file": e["source_file"]}
    if m.get("distinct"):
        f["distinct"] = m["distinct"]
        f["notes"].append("%s differs within this log: %s" % (m["distinct"]["key"].replace("_", " "),
                                                              ", ".join(m["distinct"]["values"])))
    return f
