"""Seen check for the ai held-out set (run at freeze). Last line: 'BAD: ' + problems."""
import json, subprocess, collections, sys
JSONL = "/tmp/heldout-ai/explain_heldout_ai.jsonl"
cases = [json.loads(l) for l in open(JSONL) if l.strip()]
bad = []
def grep(s, paths):
    r = subprocess.run(["grep", "-r", "-F", "-l", "-m1", "--", s] + paths,
                       capture_output=True, text=True)
    return r.returncode == 0
for c in cases:
    u = c["url"]
    if grep(u, ["/work/main"]):
        bad.append(f"{c['id']}: url in /work/main")
    lines = [l.strip() for l in c["text"].splitlines() if len(l.strip()) >= 16]
    if lines:
        present = 0
        for l in lines:
            mid = l[max(0, len(l)//2 - 20): max(0, len(l)//2 - 20) + 40]
            if grep(mid, ["/work/main/fixtures", "/work/main/tests", "/work/main/bench"]):
                present += 1
        print(f"{c['id']}: {present}/{len(lines)} lines present")
        if present == len(lines):
            bad.append(f"{c['id']}: all lines already present")
    for k in c["fix_keywords"]:
        parts = [p.lower() for p in k.split("&")]
        if all(p in c["text"].lower() for p in parts):
            bad.append(f"{c['id']}: keyword {k!r} occurs in text")
cnt = collections.Counter(c["source_repo"] for c in cases)
for r, n in cnt.items():
    if n > 2:
        bad.append(f"{r}: {n} cases")
print("cases:", len(cases))
print("BAD: " + "; ".join(bad))
