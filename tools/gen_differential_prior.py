#!/usr/bin/env python3
"""Write gpudoctor/data/knowledge/generated/differential_prior.json: how often each knowledge cause named the settled
fix of a seen case labelled with its family (issue 18 item 3, diff25; read by gpudoctor/explain/differential.py,
which ranks a differential's causes by what the text shows first and by this count second).

Source: the labels of the seen held-out sets (bench/data/explain_heldout_*.jsonl): each error case's `family` and
`family_alternatives` and its `fix_keywords` (the words an answer must hold to name the settled fix), written by an
evaluator other than the builder. For every error case and every knowledge entry whose id or family is one of the
case's labelled families, each cause of that entry whose text, fix and exports hold one of the case's fix keywords
(bench/explain_heldout.py's keyword_hit: case-insensitive, a keyword with '&' needs all its parts) counts one. A cause
is keyed by its entry and a digest of its text (differential.cause_key); a changed text starts from 0 again until the
table is regenerated. Counts of 1 are kept: the count only orders causes the text already shows.

Sets named with --exclude are not read (a session's development held-out, whose texts and labels its builders must
not see). The header records the sets read, the commit of bench/data they were read at, and the rule.

    python tools/gen_differential_prior.py --exclude 2026-11-27aq,2026-11-27ar,2026-11-27as,2026-11-27p37,2026-11-27p38,2026-11-28at,2026-11-28au,2026-11-28p39,2026-11-28p40,2026-11-28av,2026-11-28aw,2026-11-28p41,2026-11-28p42,2026-11-28ax,2026-11-28ay,2026-11-28p43,2026-11-28p44,2026-11-28p45,2026-11-28az,2026-11-28ba,2026-11-28p46,2026-11-28p47,2026-11-28p48,2026-11-28bb,2026-11-28bc,2026-11-28p49,2026-11-28p50,2026-11-28p51,2026-11-28bd,2026-11-28p52,2026-11-28p53,2026-11-28p54,2026-11-28p55,2026-11-28p56,2026-11-28p57,2026-11-29p58,2026-11-29p62,2026-11-29p63,2026-11-29p64,2026-11-29p65,2026-11-29p66,2026-11-29p67
"""

import argparse
import collections
import datetime
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _kb():
    sys.path.insert(0, ROOT)
    from gpudoctor.explain import load_knowledge

    return load_knowledge()


def _keyword_hit(text, keywords):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import explain_heldout

    return explain_heldout.keyword_hit(text, keywords)


def _text(c):
    parts = [c.get("text") or ""] + list(c.get("fix") or []) + ["%s=%s" % kv for kv in (c.get("exports") or {}).items()]
    return "\n".join(parts)


def build(paths, kb):
    from gpudoctor.explain.differential import cause_key

    by_family = collections.defaultdict(list)
    for e in kb.entries:
        if e.get("kind") != "error":
            continue
        by_family[e["id"]].append(e)
        fam = e.get("family") or e["id"]
        if fam != e["id"]:
            by_family[fam].append(e)
    prior = collections.Counter()
    cases = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                c = json.loads(line)
                if c.get("healthy") or not c.get("fix_keywords"):
                    continue
                cases += 1
                seen = set()
                for fam in [c["family"]] + list(c.get("family_alternatives") or []):
                    for e in by_family.get(fam, ()):
                        for cause in e["causes"]:
                            key = cause_key(e["id"], cause)
                            if key not in seen and _keyword_hit(_text(cause), c["fix_keywords"]):
                                seen.add(key)
                                prior[key] += 1
    return {k: prior[k] for k in sorted(prior)}, cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exclude", default="", help="set names not read, comma-separated")
    ap.add_argument("-o", default=os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated",
                                               "differential_prior.json"))
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gen_neighbours import bench_data_commit, seen_sets
    skip, paths, names = seen_sets(args.exclude)
    prior, cases = build(paths, _kb())
    commit = bench_data_commit()
    doc = {"header": {
        "source": "the family / family_alternatives / fix_keywords labels of the seen held-out sets, "
                  "bench/data/explain_heldout_*.jsonl (%d sets, %d error cases; not read: %s)"
                  % (len(names), cases, ", ".join(sorted(skip)) or "none"),
        "version": "bench/data at commit %s" % commit,
        "generator": "tools/gen_differential_prior.py",
        "date": datetime.date.today().isoformat(),
        "note": "cause key (entry#digest of its text) -> the seen cases labelled with the entry's family whose fix "
                "keywords the cause holds",
        "sets": names,
    }, "sites": [], "prior": prior}  # (no message site: a table differential.py reads)
    with open(args.o, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    print("%s: %d causes with a count, from %d cases of %d sets" % (args.o, len(prior), cases, len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
