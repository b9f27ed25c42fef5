"""Seen check for explain_heldout_p30.jsonl (eval-common19.md): last line `BAD: ` followed by the bad ids."""
import glob
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
MAIN = "/work/main"
cases = [json.loads(l) for l in open(os.path.join(HERE, "explain_heldout_p30.jsonl"), encoding="utf-8")]
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
print("cases", len(cases))
print("BAD: " + " ".join(bad))
