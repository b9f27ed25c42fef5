"""Neighbouring families (issue 18 item 3, struct23): two knowledge ids a reader could both use for the same text.

generated/neighbours.json (tools/gen_neighbours.py) holds, for each family, the families that evaluators named
together with it for one text in two cases or more (the seen held-out sets' labels: `family` and
`family_alternatives`). Where the root of an answer has such neighbours and the text does not say which (its own
"How sure" is not high), the answer names the family and mentions each neighbour's cause instead of picking one:

- the root keeps its id, its verdict and its causes; each neighbour's first cause follows them, marked with the
  neighbour's id and title, with its confirm and fix lines (what tells it apart, and what to do if it is that one);
- a note names the neighbours;
- only for a root that is a family entry (generic: a generated message site's family, or a phrase several causes
  print) none of whose causes has its own evidence line in the text: it only says which family printed the
  message (issue 18 item 3: a generic phrase alone yields the family and the ways to tell the causes apart). A root
  that names a specific cause (a non-generic entry, or a cause whose evidence the text holds), or a family read
  from where the text's own traceback raised (analyze.structural), is left as it is. The verdict is not changed
  (calibrate lists the neighbours among a likely cause's alternatives).

Called by calibrate.apply before it reads the root's level.
"""

MAX_NEIGHBOURS = 2


def _table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("neighbours").get("neighbours") or {}


def of(fam_ids, kb, present=()):
    """[(id, cases)] of the neighbours of the first of ``fam_ids`` the table holds: entries of kind error, none of
    ``present``, at most MAX_NEIGHBOURS, most often named first."""
    t = _table()
    for fam in fam_ids:
        rows = t.get(fam or "")
        if not rows:
            continue
        out = []
        for other, n in rows:
            e = kb.by_id.get(other)
            if e is None or e.get("kind") in ("echo", "warning") or other in present or not e.get("causes"):
                continue
            out.append((other, n))
            if len(out) == MAX_NEIGHBOURS:
                break
        return out
    return []


def _cause(e):
    c0 = next((c for c in e["causes"] if c.get("confirm") or c.get("checks")), e["causes"][0])
    confirm = list(c0.get("confirm") or []) or list(e.get("debug") or [])[:1]  # (what tells it apart, always)
    return {"text": "Neighbouring family %s (%s): %s" % (e["id"], e["title"], c0.get("text", "")),
            "checks": list(c0.get("checks") or []), "confirm": confirm,
            "fix": list(c0.get("fix") or []), "exports": dict(c0.get("exports") or {}), "evidence": [],
            "static_rank": 0, "computed": None}


def apply(result, kb, level):
    """Mention the neighbours of a family root whose evidence does not tell them apart. ``level``: calibrate.level.
    Returns the neighbours' ids."""
    findings = result.get("findings") or []
    if kb is None or not findings or result.get("verdict") not in ("root_cause", "likely_cause"):
        return []
    root = findings[0]
    e = kb.by_id.get(root.get("id"))
    if e is None or e.get("kind") == "echo" or root.get("kind") == "echo" or level(root) == "high":
        return []
    if not e.get("generic") or root.get("confidence") == "structural" or \
            any(c.get("evidence") for c in root.get("causes") or ()):
        return []  # (a specific cause, its evidence, or the raise the traceback shows: the text tells)
    present = {f.get("id") for f in findings} | {f.get("family") for f in findings}
    nbs = of([root.get("id"), root.get("family")], kb, present)
    if not nbs:
        return []
    ids = [n for n, _ in nbs]
    root.setdefault("causes", []).extend(_cause(kb.by_id[n]) for n in ids)
    names = "; ".join("%s (%s)" % (n, kb.by_id[n]["title"]) for n in ids)
    root["notes"].append("Neighbouring families: texts like this one are also read as %s. The message names %s's "
                         "family only and does not tell them apart; their first causes follow this family's, each "
                         "with what confirms it." % (names, root["id"]))
    return ids
