#!/usr/bin/env python3
"""Write gpudoctor/data/knowledge/generated/neighbours.json: the families a reader can both use for one text
(issue 18 item 3, struct23).

Source: the labels of the seen held-out sets (bench/data/explain_heldout_*.jsonl). Each error case was labelled, by an
evaluator other than the builder, with its family and the other families that fit the same text equally well
(`family`, `family_alternatives`). Two knowledge ids named together on one case are neighbours: a reader could use
either, so the text's words alone do not pick one. A pair is kept when two cases or more name it together (one case
is one evaluator's judgement). Area names that are no entry id ('nccl', 'container') are left out.

Sets named with --exclude are not read (a session's development held-out, whose texts and labels its builders must
not see). The header records the sets read, the commit of bench/data they were read at, and the rule.

    python tools/gen_neighbours.py --exclude 2026-11-27aq,2026-11-27ar,2026-11-27as,2026-11-27p37,2026-11-27p38,2026-11-28at,2026-11-28au,2026-11-28p39,2026-11-28p40,2026-11-28av,2026-11-28aw,2026-11-28p41,2026-11-28p42,2026-11-28ax,2026-11-28ay,2026-11-28p43,2026-11-28p44,2026-11-28p45,2026-11-28az,2026-11-28ba,2026-11-28p46,2026-11-28p47,2026-11-28p48,2026-11-28bb,2026-11-28bc,2026-11-28p49,2026-11-28p50,2026-11-28p51,2026-11-28bd,2026-11-28p52,2026-11-28p53,2026-11-28p54,2026-11-28p55,2026-11-28p56,2026-11-28p57,2026-11-29p58,2026-11-29p62,2026-11-29p63,2026-11-29p64,2026-11-29p65,2026-11-29p66,2026-11-29p67
"""

import argparse
import collections
import datetime
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIN_CASES = 2


def knowledge_ids():
    sys.path.insert(0, ROOT)
    from gpudoctor.explain import load_knowledge

    return set(load_knowledge().by_id)


def build(paths, ids):
    pairs = collections.Counter()
    cases = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                c = json.loads(line)
                if c.get("healthy"):
                    continue
                fams = []
                for fam in [c["family"]] + list(c.get("family_alternatives") or []):
                    if fam in ids and fam not in fams:
                        fams.append(fam)
                cases += 1
                for a in fams:
                    for b in fams:
                        if a != b:
                            pairs[(a, b)] += 1
    out = collections.defaultdict(list)
    for (a, b), n in pairs.items():
        if n >= MIN_CASES:
            out[a].append([b, n])
    for a in out:
        out[a].sort(key=lambda x: (-x[1], x[0]))
    return {a: out[a] for a in sorted(out)}, cases


def seen_sets(exclude):
    """The seen held-out sets' files and names, those named in ``exclude`` (comma-separated) left out: (skip, paths,
    names). Also tools/gen_differential_prior.py's."""
    skip = {x for x in exclude.split(",") if x}
    paths, names = [], []
    for p in sorted(glob.glob(os.path.join(ROOT, "bench", "data", "explain_heldout_*.jsonl"))):
        name = os.path.basename(p)[len("explain_heldout_"):-len(".jsonl")]
        if name not in skip:
            paths.append(p)
            names.append(name)
    return skip, paths, names


def bench_data_commit():
    """The commit that last changed bench/data: the version a table counted from the sets records."""
    return subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%H", "--", "bench/data"],
                          capture_output=True, text=True).stdout.strip()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exclude", default="", help="set names not read, comma-separated")
    ap.add_argument("-o", default=os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated",
                                               "neighbours.json"))
    args = ap.parse_args(argv)
    skip, paths, names = seen_sets(args.exclude)
    neighbours, cases = build(paths, knowledge_ids())
    commit = bench_data_commit()
    doc = {"header": {
        "source": "the family / family_alternatives labels of the seen held-out sets, "
                  "bench/data/explain_heldout_*.jsonl (%d sets, %d error cases; not read: %s)"
                  % (len(names), cases, ", ".join(sorted(skip)) or "none"),
        "version": "bench/data at commit %s" % commit,
        "generator": "tools/gen_neighbours.py",
        "date": datetime.date.today().isoformat(),
        "note": "two knowledge ids an evaluator named together for one text, in %d cases or more: neighbours, which "
                "the text's words alone do not tell apart" % MIN_CASES,
        "sets": names,
    }, "sites": [], "neighbours": neighbours}  # (no message site: a table neighbours.py reads)
    with open(args.o, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    print("%s: %d families with neighbours, from %d cases of %d sets" % (args.o, len(neighbours), cases, len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
