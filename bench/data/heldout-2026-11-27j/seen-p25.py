# seen check for explain_heldout_p25.jsonl (eval-common16 brief); last line "BAD: " + list of problems
import glob, json, os, subprocess, collections
B = "/tmp/heldout-p25"; M = "/work/main"
cases = [json.loads(l) for l in open(f"{B}/explain_heldout_p25.jsonl")]
bad = []
# 1. URL nowhere in /work/main nor in any bench/data/explain_heldout_*.jsonl
for c in cases:
    r = subprocess.run(["grep", "-rlF", "--exclude-dir=.git", "--exclude-dir=.venv", c["url"], M], capture_output=True, text=True)
    if r.stdout.strip():
        bad.append(f"url-in-main:{c['id']}")
    for f in glob.glob(f"{M}/bench/data/explain_heldout_*.jsonl"):
        if c["url"] in open(f, encoding="utf-8", errors="replace").read():
            bad.append(f"url-in-heldout:{c['id']}:{os.path.basename(f)}")
# 2. not every line of 16+ chars already present (middle 40 chars, fixed string) in fixtures, tests, bench
chunks = []
for d in ("fixtures", "tests", "bench"):
    for root, _, files in os.walk(f"{M}/{d}"):
        for fn in files:
            p = os.path.join(root, fn)
            try:
                s = open(p, encoding="utf-8", errors="replace").read()
            except Exception:
                continue
            chunks.append(s)
            if p.endswith(".jsonl"):   # stricter: also the decoded text fields
                for l in s.splitlines():
                    try:
                        chunks.append(json.loads(l).get("text", ""))
                    except Exception:
                        pass
big = "\n\0\n".join(chunks)
for c in cases:
    lines = [l for l in c["text"].splitlines() if len(l) >= 16]
    seen = 0
    for l in lines:
        if len(l) > 40:
            m = (len(l) - 40) // 2; sub = l[m:m + 40]
        else:
            sub = l
        if sub in big:
            seen += 1
    if lines and seen == len(lines):
        bad.append(f"all-lines-seen:{c['id']}")
    print(f"{c['id']}: {seen}/{len(lines)} long lines already present")
# 3. at most 2 cases per source repository for thread sets (planted set: one source_repo, not a thread set)
cnt = collections.Counter(c["source_repo"] for c in cases if not c["url"].startswith("planted:"))
bad += [f"repo>2:{r}" for r, n in cnt.items() if n > 2]
print("BAD: " + " ".join(bad))
