"""Seen check for explain_heldout_p32.jsonl (eval-common20.md): last line `BAD: ` followed by the bad ids."""
import glob
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
MAIN = "/work/main"
cases = [json.loads(l) for l in open(os.path.join(HERE, "explain_heldout_p32.jsonl"), encoding="utf-8")]
bad = []

# 1. URL nowhere in /work/main (grep -r, fixed string) nor in any bench/data/explain_heldout_*.jsonl
for c in cases:
    r = subprocess.run(["grep", "-r", "-l", "-F", "--", c["url"], MAIN], capture_output=True, text=True)
    hits = [h for h in r.stdout.split("\n") if h and "/.git/" not in h]
    for f in glob.glob(MAIN + "/bench/data/explain_heldout_*.jsonl"):
        if c["url"] in open(f, encoding="utf-8", errors="replace").read():
            hits.append(f)
    if hits:
        print("URL SEEN", c["id"], hits[:3])
        bad.append(c["id"])

# 2. not every line of 16+ characters already present (its 40-character middle) in fixtures/tests/bench
corpus = []
for d in ("fixtures", "tests", "bench"):
    for root, _, files in os.walk(os.path.join(MAIN, d)):
        for fn in files:
            p = os.path.join(root, fn)
            try:
                corpus.append(open(p, encoding="utf-8", errors="replace").read())
            except OSError:
                pass
corpus = "\n".join(corpus)
for c in cases:
    lines = [l.strip() for l in c["text"].splitlines() if len(l.strip()) >= 16]
    present = 0
    for l in lines:
        mid = (len(l) - 40) // 2
        probe = l[max(0, mid):max(0, mid) + 40]
        if probe in corpus:
            present += 1
    print("%-45s lines>=16: %3d  already present: %3d" % (c["id"], len(lines), present))
    if lines and present == len(lines):
        bad.append(c["id"])

# 3. at most 2 cases per source repository for thread sets (planted set: one source_repo, rule n/a)
by_repo = {}
for c in cases:
    if not c["url"].startswith("planted:"):
        by_repo.setdefault(c["source_repo"], []).append(c["id"])
for repo, ids in by_repo.items():
    if len(ids) > 2:
        bad.extend(ids)
# 4. labels exist (family/alternatives are an id/family or a prefix of one), keywords absent from text
labels = [l.strip() for l in open(os.path.join(HERE, "labels.txt")) if l.strip()] + ["healthy"]
for c in cases:
    for fam in [c["family"]] + c["family_alternatives"]:
        if not any(x == fam or x.startswith(fam) for x in labels):
            print("LABEL MISSING", c["id"], fam); bad.append(c["id"])
    if not c["healthy"]:
        if not 2 <= len(c["fix_keywords"]) <= 5:
            print("KEYWORD COUNT", c["id"]); bad.append(c["id"])
        for k in c["fix_keywords"]:
            parts = [p.lower() for p in k.split("&")]
            if all(p in c["text"].lower() for p in parts):
                print("KEYWORD IN TEXT", c["id"], k); bad.append(c["id"])
print("cases", len(cases))
print("BAD: " + " ".join(bad))
