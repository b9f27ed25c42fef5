#!/usr/bin/env python3
"""Seen check for /tmp/heldout-ae/explain_heldout_ae.jsonl (eval-common18 rules; adapted from bench/data/heldout-2026-11-27k/seen-ab.py)."""
import json, glob, subprocess, collections
J = "/tmp/heldout-ae/explain_heldout_ae.jsonl"
M = "/work/main"
cases = [json.loads(l) for l in open(J)]
bad = []
# 1. URL in /work/main (grep -r fixed string, excluding .git/.venv internals) or earlier held-out jsonls
earlier = glob.glob(M + "/bench/data/explain_heldout_*.jsonl")
for c in cases:
    u = c["url"]
    r = subprocess.run(["grep", "-rlF", "--exclude-dir=.git", "--exclude-dir=.venv", "--", u, M],
                       capture_output=True, text=True)
    hits = [h for h in r.stdout.splitlines() if h]
    for f in earlier:
        if u in open(f, encoding="utf-8", errors="replace").read() and f not in hits:
            hits.append(f)
    print(f"url {c['id']}: {'SEEN ' + ','.join(hits[:3]) if hits else 'ok'}")
    if hits: bad.append(c["id"] + ":url")
# 2. not every 16+ char line's 40-char middle already present in fixtures/tests/bench
dirs = [M + "/fixtures", M + "/tests", M + "/bench"]
for c in cases:
    lines = [l.strip() for l in c["text"].splitlines() if len(l.strip()) >= 16]
    seen_n = 0
    for l in lines:
        if len(l) > 40:
            s = (len(l) - 40) // 2; mid = l[s:s + 40]
        else:
            mid = l
        r = subprocess.run(["grep", "-rqF", "--", mid] + dirs, capture_output=True)
        if r.returncode == 0: seen_n += 1
    allseen = lines and seen_n == len(lines)
    print(f"lines {c['id']}: {seen_n}/{len(lines)} middles already present{' ALL-SEEN' if allseen else ''}")
    if allseen or not lines: bad.append(c["id"] + ":lines")
# 3. at most 2 cases per source repo
cnt = collections.Counter(c["source_repo"] for c in cases)
for repo, n in sorted(cnt.items()):
    print(f"repo {repo}: {n}")
    if n > 2: bad.append(repo + ":repo>2")
print("BAD: " + " ".join(bad))
