#!/usr/bin/env python3
"""Per case, what changed in `gpudoctor explain`'s answers between two trees (issue 18: several
answer mechanisms land at once; one may take another's right answer away).

`run` scores every seen held-out set (bench/data/explain_heldout_*.jsonl, judged by
bench/explain_heldout.py's judge) through explain's CLI path (explain.main with a file argument and
--json, in this process, the knowledge loaded once), and the own split (fixtures/logs: dev, heldout,
healthy; bench/explain_accuracy.py's judge), with the gpudoctor that the running interpreter imports
(run it with another tree's interpreter, from a folder outside this tree, to score that tree). The
cases and judges are always this tree's, so both runs score the same texts the same way.

`diff` prints, per set, fix named / family right / no answer / confidently wrong / healthy without a
root for A -> B, then each case that changed: LOST-FIX, LOST-FAMILY, NEW-NOANSWER, NEW-WRONG,
HEALTHY-FLAGGED (and, without -q, the gains).

    cd /tmp && /path/to/base/venv/bin/python /work/main/bench/explain_compare.py run base.json
    cd /tmp && /work/main/.venv/bin/python /work/main/bench/explain_compare.py run now.json
    python bench/explain_compare.py diff base.json now.json [-q]

`run OUT --skip SET,SET` leaves those sets out (a session's development held-out, whose per-case
results its builders must not see; the set name is the file's, e.g. 2026-11-28at).
"""

import collections
import glob
import io
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(out, skip=()):
    import gpudoctor  # the interpreter's own (imported before this tree's bench/ is on the path)
    import gpudoctor.checks  # noqa: F401
    from gpudoctor import explain
    from gpudoctor.cli import build_parser

    sys.path.insert(0, HERE)
    import explain_accuracy as A
    import explain_heldout as H

    sys.stderr.write("gpudoctor from %s\n" % gpudoctor.__file__)
    kb = explain.load_knowledge()
    load = explain.load_knowledge
    explain.load_knowledge = lambda *a, **k: kb
    res = {"sets": {}, "acc": []}
    try:
        with tempfile.TemporaryDirectory() as work:
            for path in sorted(glob.glob(os.path.join(HERE, "data", "explain_heldout_*.jsonl"))):
                name = os.path.basename(path)[len("explain_heldout_"):-len(".jsonl")]
                if name in skip:
                    continue
                rows = []
                for case in H.load_cases(path):
                    p = os.path.join(work, case["id"] + ".log")
                    with open(p, "w", encoding="utf-8") as f:
                        f.write(case["text"])
                    real, sys.stdout = sys.stdout, io.StringIO()
                    try:
                        explain.main(build_parser().parse_args(["explain", "--json", p]))
                        got, err = json.loads(sys.stdout.getvalue()), None
                    except Exception as e:  # noqa: BLE001  (a crash is a result here)
                        got, err = None, "%s: %s" % (type(e).__name__, e)
                    finally:
                        sys.stdout = real
                    row = H.judge(case, got, err)
                    row["findings"] = ["%s:%s" % (f.get("id"), f.get("role")) for f in (got or {}).get("findings", [])]
                    row["notes"] = [n.get("id") for n in (got or {}).get("context", [])]
                    rows.append(row)
                res["sets"][name] = rows
        A.explain = explain
        res["acc"] = A.evaluate(kb)
    finally:
        explain.load_knowledge = load
    with open(out, "w") as f:
        json.dump(res, f, indent=0)


KEYS = ("fix_ok", "family_ok", "no_answer", "confident_wrong", "healthy_ok")


def _tags(x, y):
    tags = []
    if x["healthy"]:
        if x["healthy_ok"] and not y["healthy_ok"]:
            tags.append("HEALTHY-FLAGGED")
        if not x["healthy_ok"] and y["healthy_ok"]:
            tags.append("healthy-now")
    else:
        for key, lost, won in (("fix_ok", "LOST-FIX", "gained-fix"), ("family_ok", "LOST-FAMILY", "gained-family")):
            if x[key] and not y[key]:
                tags.append(lost)
            if not x[key] and y[key]:
                tags.append(won)
        if not x["no_answer"] and y["no_answer"]:
            tags.append("NEW-NOANSWER")
    if not x["confident_wrong"] and y["confident_wrong"]:
        tags.append("NEW-WRONG")
    if x["confident_wrong"] and not y["confident_wrong"]:
        tags.append("wrong-gone")
    return tags


def diff(a_path, b_path, quiet=False):
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    fmt = "%-8s %4s | %-10s | %-10s | %-8s | %-8s | %s"
    print(fmt % ("set", "n", "fix", "family", "no ans", "wrong", "healthy ok"))
    tot, events = collections.Counter(), []
    for name in sorted(set(a["sets"]) & set(b["sets"])):
        ra = {r["id"]: r for r in a["sets"][name]}
        rb = {r["id"]: r for r in b["sets"][name]}
        ids = [i for i in ra if i in rb]
        err = [i for i in ids if not ra[i]["healthy"]]
        hl = [i for i in ids if ra[i]["healthy"]]
        cnt = {}
        for k, over in zip(KEYS, (err, err, err, ids, hl)):
            cnt[k] = (sum(ra[i][k] for i in over), sum(rb[i][k] for i in over))
            tot[k, 0] += cnt[k][0]
            tot[k, 1] += cnt[k][1]
        tot["err"] += len(err)
        tot["hl"] += len(hl)
        print(fmt % (name[5:] if name.startswith("20") else name, len(ids), "%d -> %d" % cnt["fix_ok"], "%d -> %d" % cnt["family_ok"],
                     "%d -> %d" % cnt["no_answer"], "%d -> %d" % cnt["confident_wrong"],
                     "%d -> %d / %d" % (cnt["healthy_ok"] + (len(hl),))))
        for i in ids:
            tags = _tags(ra[i], rb[i])
            if tags:
                events.append((name, i, tags, ra[i], rb[i]))
    print(fmt % ("all", tot["err"] + tot["hl"], "%d -> %d" % (tot["fix_ok", 0], tot["fix_ok", 1]),
                 "%d -> %d" % (tot["family_ok", 0], tot["family_ok", 1]),
                 "%d -> %d" % (tot["no_answer", 0], tot["no_answer", 1]),
                 "%d -> %d" % (tot["confident_wrong", 0], tot["confident_wrong", 1]),
                 "%d -> %d / %d" % (tot["healthy_ok", 0], tot["healthy_ok", 1], tot["hl"])))
    fa = {(r["split"], r["file"]): r for r in a["acc"]}
    fb = {(r["split"], r["file"]): r for r in b["acc"]}
    for split in ("dev", "heldout", "healthy"):
        keys = [k for k in fa if k[0] == split and k in fb]
        print("own split %-8s %3d texts: fix named %d -> %d, family %d -> %d" % (
            split, len(keys), sum(fa[k]["ok"] for k in keys), sum(fb[k]["ok"] for k in keys),
            sum(fa[k]["family_ok"] for k in keys), sum(fb[k]["family_ok"] for k in keys)))
        for k in sorted(keys):
            if fa[k]["ok"] and not fb[k]["ok"]:
                events.append(("own-" + split, k[1], ["LOST"], {"root": fa[k]["got"], "expected": fa[k]["expected"]},
                               {"root": fb[k]["got"]}))
    print()
    bad = 0
    for name, i, tags, x, y in events:
        loud = [t for t in tags if t.isupper() or t == "LOST"]
        bad += bool(loud)
        if quiet and not loud:
            continue
        print("%-11s %-44s %-28s expected %-26s %s -> %s" % (name[5:] if name.startswith("20") else name, i[:44], ",".join(tags), x.get("expected"),
                                                             x.get("root"), y.get("root")))
    return 1 if bad else 0


def main(argv):
    if any(a in ("-h", "--help") for a in argv) or any(a.startswith("-") for a in argv[1:2]):
        sys.stderr.write(__doc__)  # (`run --help` wrote the whole report to a file named '--help')
        return 0 if any(a in ("-h", "--help") for a in argv) else 2
    if len(argv) >= 2 and argv[0] == "run":
        skip = set()
        if len(argv) >= 4 and argv[2] == "--skip":
            skip = {x for x in argv[3].split(",") if x}
        run(argv[1], skip)
        return 0
    if len(argv) >= 3 and argv[0] == "diff":
        return diff(argv[1], argv[2], quiet="-q" in argv[3:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
