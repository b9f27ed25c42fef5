"""Seen check for explain_heldout_p27.jsonl (run at freeze; last line must be 'BAD: ')."""
import json, subprocess, collections, tempfile, os
J = "/tmp/heldout-p27/explain_heldout_p27.jsonl"
cases = [json.loads(l) for l in open(J)]
bad = []
# 1) case URL nowhere in /work/main or the earlier held-out sets
with tempfile.NamedTemporaryFile("w", delete=False) as f:
    f.write("\n".join(c["url"] for c in cases) + "\n"); pf = f.name
hits = subprocess.run(["grep", "-rhoF", "-f", pf, "/work/main", "--exclude-dir=.git", "--exclude-dir=.venv"],
                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().split("\n")
for c in cases:
    if c["url"] in hits: bad.append(c["id"] + ":url-seen")
# 2) not every 16+ char line already present (40-char middle) in fixtures/tests/bench
mids = {}
for c in cases:
    ms = []
    for ln in c["text"].splitlines():
        s = ln.strip()
        if len(s) >= 16:
            m = (len(s) - 40) // 2 if len(s) > 40 else 0
            ms.append(s[m:m + 40])
    mids[c["id"]] = ms
allm = sorted({m for ms in mids.values() for m in ms})
with tempfile.NamedTemporaryFile("w", delete=False) as f:
    f.write("\n".join(allm) + "\n"); pf2 = f.name
found = set(subprocess.run(["grep", "-rhoF", "-f", pf2] + ["/work/main/" + d for d in ("fixtures", "tests", "bench")],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().split("\n"))
for c in cases:
    ms = mids[c["id"]]
    seen = sum(m in found for m in ms)
    print(c["id"], "lines>=16:", len(ms), "already present:", seen)
    if ms and seen == len(ms): bad.append(c["id"] + ":all-lines-seen")
# 3) at most 2 per source repository (thread sets only; this set is planted: one source_repo by design)
cnt = collections.Counter(c["source_repo"] for c in cases)
for r, n in cnt.items():
    if n > 2 and not r.startswith("planted"): bad.append(r + ":>2")
print("source_repo counts:", dict(cnt))
os.unlink(pf); os.unlink(pf2)
print("BAD: " + " ".join(bad))
