"""Seen check for explain_heldout_aj.jsonl (eval-aj). Last line: 'BAD: ' followed by the failing ids (nothing = clean)."""
import collections, glob, json, subprocess, sys

MAIN = '/work/main'
CASES = [json.loads(l) for l in open('/tmp/heldout-aj/explain_heldout_aj.jsonl') if l.strip()]
bad = []

def grep_fixed(needle, paths):
    r = subprocess.run(['grep', '-rlF', '--', needle] + paths, capture_output=True, text=True)
    return r.stdout.strip()

heldout_files = sorted(glob.glob(MAIN + '/bench/data/explain_heldout_*.jsonl'))
for c in CASES:
    url = c['url']
    base = url.split('#')[0]
    for u in {url, base}:
        hit = grep_fixed(u, [MAIN])
        if hit:
            print('URL seen in /work/main:', c['id'], u, hit.splitlines()[:3]); bad.append(c['id'])
        for f in heldout_files:
            if u in open(f, encoding='utf-8', errors='replace').read():
                print('URL seen in', f, c['id']); bad.append(c['id'])
    lines = [ln for ln in c['text'].splitlines() if len(ln.strip()) >= 16]
    seen_lines = 0
    for ln in lines:
        s = ln.strip()
        mid = s[max(0, len(s) // 2 - 20): max(0, len(s) // 2 - 20) + 40]
        if grep_fixed(mid, [MAIN + '/fixtures', MAIN + '/tests', MAIN + '/bench']):
            seen_lines += 1
    print(f"{c['id']}: {seen_lines}/{len(lines)} long lines already present")
    if lines and seen_lines == len(lines):
        print('ALL LINES SEEN:', c['id']); bad.append(c['id'])

per_source = collections.Counter(c['source_repo'] for c in CASES)
for src, n in per_source.items():
    if n > 2:
        print('more than 2 cases from', src); bad.extend(c['id'] for c in CASES if c['source_repo'] == src)
print('cases:', len(CASES), 'healthy:', sum(c['healthy'] for c in CASES))
print('BAD: ' + ' '.join(sorted(set(bad))))
