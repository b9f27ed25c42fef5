"""Seen check for held-out set Y. Last line: 'BAD: ' followed by the offending ids (nothing = clean)."""
import glob, json, subprocess, sys, collections
F = sys.argv[1] if len(sys.argv) > 1 else '/tmp/heldout-y/explain_heldout_y.jsonl'
cases = [json.loads(l) for l in open(F) if l.strip()]
bad = []
prior = glob.glob('/work/main/bench/data/explain_heldout_*.jsonl')
def grep_fixed(s, paths):
    r = subprocess.run(['grep', '-rFqs', '--', s] + paths, capture_output=True)
    return r.returncode == 0
per_repo = collections.Counter(c['source_repo'] for c in cases)
for c in cases:
    url = c['url']
    if not url.startswith('planted:'):
        if grep_fixed(url, ['/work/main']) or grep_fixed(url, prior):
            print('URL SEEN', c['id'], url); bad.append(c['id'])
    lines = [l.strip() for l in c['text'].splitlines() if len(l.strip()) >= 16]
    hits = 0
    for l in lines:
        m = len(l) // 2
        sub = l[max(0, m - 20): max(0, m - 20) + 40]
        if grep_fixed(sub, ['/work/main/fixtures', '/work/main/tests', '/work/main/bench']):
            hits += 1
    print(f"{c['id']}: {hits}/{len(lines)} lines seen")
    if lines and hits == len(lines):
        print('ALL LINES SEEN', c['id']); bad.append(c['id'])
    if not lines:
        print('NO 16+ LINES', c['id'])
    # keyword sanity
    kws = c['fix_keywords']
    if not c['healthy'] and not (2 <= len(kws) <= 5):
        print('KW COUNT', c['id']); bad.append(c['id'])
    t = c['text'].lower()
    for k in kws:
        parts = [p.lower() for p in k.split('&')]
        if all(p in t for p in parts):
            print('KW IN TEXT', c['id'], k); bad.append(c['id'])
for r, n in per_repo.items():
    if n > 2:
        print('TOO MANY FROM', r, n); bad.append(r)
print('BAD: ' + ' '.join(sorted(set(bad))))
