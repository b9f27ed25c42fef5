#!/usr/bin/env python3
"""Seen check for explain_heldout_p56.jsonl (eval-p56, evalbrief29 rules). Last line: 'BAD: ' + list of bad ids."""
import collections, glob, json, os, subprocess, tempfile
D = os.path.dirname(os.path.abspath(__file__))
MAIN = "/work/main"
rows = [json.loads(l) for l in open(os.path.join(D, "explain_heldout_p56.jsonl"), encoding="utf-8")]
bad = []
held = glob.glob(os.path.join(MAIN, "bench/data/explain_heldout_*.jsonl"))
for r in rows:
    u = r["url"]
    p = subprocess.run(["grep", "-rlF", "--exclude-dir=.git", "--exclude-dir=.venv", "--", u, MAIN],
                       capture_output=True, text=True)
    hits = [x for x in p.stdout.split("\n") if x]
    if hits:
        print("URL seen", r["id"], hits[:3]); bad.append(r["id"])
    mids = []
    for line in r["text"].split("\n"):
        s = line.strip()
        if len(s) >= 16:
            m = len(s) // 2
            mids.append(s[max(0, m - 20):m + 20])
    mids = sorted(set(mids))
    with tempfile.NamedTemporaryFile("w", delete=False) as tf:
        tf.write("\n".join(mids) + "\n")
    p = subprocess.run(["grep", "-rhoF", "-f", tf.name, os.path.join(MAIN, "fixtures"), os.path.join(MAIN, "tests"),
                        os.path.join(MAIN, "bench")], capture_output=True, text=True, errors="replace")
    os.unlink(tf.name)
    found = set(p.stdout.split("\n"))
    unseen = [x for x in mids if x not in found]
    print("%-55s lines>=16: %3d  already present: %3d  new: %3d" % (r["id"], len(mids), len(mids) - len(unseen), len(unseen)))
    if not unseen:
        bad.append(r["id"])
per_repo = collections.Counter(r["source_repo"] for r in rows)
for k, v in per_repo.items():
    if v > 3:
        print("too many from", k, v); bad.append(k)
LABELS = set(open(os.path.join(D, "labels.txt")).read().split())
for r in rows:
    tl = r["text"].lower()
    if not r["healthy"]:
        if not 2 <= len(r["fix_keywords"]) <= 5:
            print("keyword count", r["id"]); bad.append(r["id"])
        for k in r["fix_keywords"]:
            if all(x.lower() in tl for x in k.split("&")):
                print("keyword in text", r["id"], k); bad.append(r["id"])
    for f in [r["family"]] + r["family_alternatives"]:
        if f != "healthy" and not any(l == f or l.startswith(f) for l in LABELS):
            print("label not found", r["id"], f); bad.append(r["id"])
    if r["text"].count("\n") + 1 > 400:
        print("too long", r["id"]); bad.append(r["id"])
print("BAD: " + " ".join(bad))
