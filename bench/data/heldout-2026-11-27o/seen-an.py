"""Seen check for /tmp/heldout-an/explain_heldout_an.jsonl (brief: eval-common21)."""
import json, glob, subprocess, collections, sys
F = '/tmp/heldout-an/explain_heldout_an.jsonl'
cases = [json.loads(l) for l in open(F) if l.strip()]
bad = []
old = glob.glob('/work/main/bench/data/explain_heldout_*.jsonl')
def grep(s, paths):
    r = subprocess.run(['grep', '-rlF', '--', s] + paths, capture_output=True, text=True)
    return [p for p in r.stdout.split('\n') if p]
for c in cases:
    u = c['url']
    hits = grep(u, ['/work/main']) + grep(u, old)
    if hits:
        bad.append(f"{c['id']}: url seen in {hits[:3]}")
    lines = [l for l in c['text'].split('\n') if len(l.strip()) >= 16]
    if lines:
        allseen = True
        for l in lines:
            mid = len(l) // 2
            sub = l[max(0, mid - 20): mid + 20]
            if not grep(sub, ['/work/main/fixtures', '/work/main/tests', '/work/main/bench']):
                allseen = False
                break
        if allseen:
            bad.append(f"{c['id']}: every 16+ char line already present in fixtures/tests/bench")
    for k in c['fix_keywords']:
        parts = [p.lower() for p in k.split('&')]
        if all(p in c['text'].lower() for p in parts):
            bad.append(f"{c['id']}: keyword {k!r} occurs in text")
    if not c['healthy'] and not (2 <= len(c['fix_keywords']) <= 5):
        bad.append(f"{c['id']}: {len(c['fix_keywords'])} keywords")
cnt = collections.Counter(c['source_repo'] for c in cases)
for r, n in cnt.items():
    if n > 2:
        bad.append(f"source {r}: {n} cases (>2)")
ids = collections.Counter(c['id'] for c in cases)
bad += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
print(f"cases: {len(cases)}")
print("BAD: " + "; ".join(bad))
