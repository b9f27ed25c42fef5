import json, subprocess, sys
D = "/tmp/heldout-p31"
cases = [json.loads(l) for l in open(f"{D}/explain_heldout_p31.jsonl")]
bad = []
# 1. URLs not anywhere in /work/main (incl. bench/data/explain_heldout_*.jsonl)
for c in cases:
    r = subprocess.run(["grep", "-r", "-F", "-l", "-m1", c["url"], "/work/main", "--exclude-dir=.git", "--exclude-dir=.venv"], capture_output=True, text=True)
    if r.stdout.strip():
        bad.append((c["id"], "url seen", r.stdout.split()[0]))
# 2. not every 16+ char line already present (40-char middle substring, fixed string)
def mid(line):
    line = line.strip()
    if len(line) <= 40: return line
    s = (len(line) - 40) // 2
    return line[s:s + 40]
for c in cases:
    pats = sorted({mid(l) for l in c["text"].splitlines() if len(l.strip()) >= 16})
    if not pats: continue
    pf = f"{D}/.pats"
    open(pf, "w").write("\n".join(pats) + "\n")
    r = subprocess.run(["grep", "-r", "-h", "-o", "-F", "-f", pf, "/work/main/fixtures", "/work/main/tests", "/work/main/bench"], capture_output=True, text=True)
    found = set(r.stdout.splitlines())
    unseen = [p for p in pats if p not in found]
    print(f"{c['id']}: {len(pats)} lines, {len(pats) - len(unseen)} seen")
    if not unseen:
        bad.append((c["id"], "all lines seen"))
# 3. at most 2 cases per source repository (thread sets only; planted here)
from collections import Counter
cnt = Counter(c["source_repo"] for c in cases if not c["source_repo"].startswith("planted"))
bad += [(r, "repo>2") for r, n in cnt.items() if n > 2]
print("BAD: " + (repr(bad) if bad else ""))
