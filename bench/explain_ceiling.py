#!/usr/bin/env python3
"""How much of the settled fix the pasted text carries: two independent labelers' judgements (issue 18's bar).

Issue 18 asks explain to name the settled fix in >= 85% of real errors it has never seen. That bar is only
meaningful if the text a user pastes carries the fix. bench/data/ceiling-2026-11-28/ holds a seeded sample of 90
error cases from the older held-out sets (bench/data/explain_heldout_2026-11-2[5-7]*.jsonl, the development
held-out of session 24 left out, three per set at most, texts up to 12,000 characters; sample_ids.txt) and the
judgements of two labelers who worked apart from each other and from explain (they read no explain code, knowledge
or notes, ran no gpudoctor, looked nothing up): for each case, before reading its settled fix, a one-sentence
guess from the text alone; then `derivable` (the text points to the settled fix: an expert says it first or as one of
two candidates), `family_only` (the text shows the area, the fix needs what the text lacks: the user's code, config,
hardware, a later experiment) or `not_derivable`.

    python bench/explain_ceiling.py [--compare CMP.json]

--compare: a bench/explain_compare.py `run` output; prints explain's fix / family on the same 90 texts (they are
seen texts now: an upper figure for explain, not a held-out one).
"""

import argparse
import collections
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "ceiling-2026-11-28")


def _labels(name):
    with open(os.path.join(DATA, "labels-%s.jsonl" % name), encoding="utf-8") as fh:
        return {r["id"]: r["judgement"] for r in map(json.loads, filter(str.strip, fh))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compare", help="a bench/explain_compare.py run output")
    args = ap.parse_args()
    with open(os.path.join(DATA, "sample_ids.txt"), encoding="utf-8") as fh:
        ids = [x.strip() for x in fh if x.strip()]
    a, b = _labels("A"), _labels("B")
    n = len(ids)
    pairs = collections.Counter((a[i], b[i]) for i in ids)
    agree = sum(v for (x, y), v in pairs.items() if x == y)
    ca, cb = collections.Counter(a[i] for i in ids), collections.Counter(b[i] for i in ids)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / n / n
    kappa = (agree / n - pe) / (1 - pe)
    both = [i for i in ids if a[i] == b[i] == "derivable"]
    either = [i for i in ids if "derivable" in (a[i], b[i])]
    print("cases: %d (from %d sets)" % (n, len({i.split("/")[0] for i in ids})))
    for name, c in (("A", ca), ("B", cb)):
        print("labeler %s: derivable %d (%.0f%%), family_only %d, not_derivable %d" % (
            name, c["derivable"], 100.0 * c["derivable"] / n, c["family_only"], c["not_derivable"]))
    print("both derivable: %d (%.0f%%); either: %d (%.0f%%); agreement %d/%d, Cohen's kappa %.2f" % (
        len(both), 100.0 * len(both) / n, len(either), 100.0 * len(either) / n, agree, n, kappa))
    if args.compare:
        with open(args.compare, encoding="utf-8") as fh:
            sets = json.load(fh)["sets"]
        fix = fam = fix_both = 0
        for i in ids:
            st, cid = i.split("/", 1)
            row = {r["id"]: r for r in sets["2026-11-" + st]}[cid]
            fix += bool(row["fix_ok"])
            fam += bool(row["family_ok"])
            fix_both += bool(row["fix_ok"]) and i in both
        print("explain (%s) on the same texts: fix named %d (%.0f%%), family right %d (%.0f%%); fix named on the "
              "both-derivable %d: %d" % (os.path.basename(args.compare), fix, 100.0 * fix / n, fam, 100.0 * fam / n,
                                         len(both), fix_both))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
