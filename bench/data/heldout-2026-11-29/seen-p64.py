"""Seen check for /tmp/heldout-p64/explain_heldout_p64.jsonl (eval-p64; run at freeze; last line must be 'BAD: ')."""
import glob, json, subprocess, collections
F = "/tmp/heldout-p64/explain_heldout_p64.jsonl"
cases = [json.loads(l) for l in open(F) if l.strip()]
bad = []
earlier = sorted(glob.glob("/work/main/bench/data/explain_heldout_*.jsonl") + glob.glob("/work/main/bench/data/heldout-*/**/*.jsonl", recursive=True))
earlier_text = "".join(open(p, encoding="utf-8", errors="replace").read() for p in earlier)
for c in cases:
    url = c["url"]
    r = subprocess.run(["grep", "-rlF", "--exclude-dir=.git", "--exclude-dir=.venv", url, "/work/main"], capture_output=True, text=True)
    if r.stdout.strip():
        bad.append(f"{c['id']}: url in /work/main: {r.stdout.split()[:3]}")
    if url in earlier_text:
        bad.append(f"{c['id']}: url in earlier held-out set")
    r2 = subprocess.run("grep -rlF -- " + repr(url) + " /tmp/heldout-* 2>/dev/null | grep -v '^/tmp/heldout-p64/'", shell=True, capture_output=True, text=True)
    if r2.stdout.strip():
        bad.append(f"{c['id']}: url in another /tmp/heldout-* folder: {r2.stdout.split()[:2]}")
    lines = [l for l in c["text"].splitlines() if len(l) >= 16]
    if lines:
        found = 0
        for l in lines:
            mid = len(l) // 2
            sub = l[max(0, mid - 20): max(0, mid - 20) + 40]
            r = subprocess.run(["grep", "-rqF", "--", sub, "/work/main/fixtures", "/work/main/tests", "/work/main/bench"], capture_output=True)
            if r.returncode == 0:
                found += 1
        print(f"{c['id']}: {found}/{len(lines)} long lines already present")
        if found == len(lines):
            bad.append(f"{c['id']}: every 16+ char line already present")
    txt = c["text"].lower()
    for k in c["fix_keywords"]:
        parts = [p.lower() for p in k.split("&")]
        if all(p in txt for p in parts):
            bad.append(f"{c['id']}: keyword {k!r} occurs in text")
    if not c["healthy"] and not (2 <= len(c["fix_keywords"]) <= 5):
        bad.append(f"{c['id']}: {len(c['fix_keywords'])} keywords")
    if len(c["text"].splitlines()) > 400:
        bad.append(f"{c['id']}: text > 400 lines")
per = collections.Counter(c["source_repo"] for c in cases)
for repo, n in per.items():
    if n > 2:
        bad.append(f"{repo}: {n} cases")
print("BAD: " + "; ".join(bad))
# label check (from seen-ah.py via seen-aq.py): every family/alternative must be an existing id/family or a prefix of one
labels = [l.strip() for l in open("/tmp/heldout-p64/labels.txt") if l.strip()]
bad2 = []
for c in cases:
    for f in [c["family"]] + c["family_alternatives"]:
        if f == "healthy":
            continue
        if not any(x == f or x.startswith(f + ".") for x in labels):
            bad2.append(f"{c['id']}: unknown family {f}")
print("LABELS-BAD: " + "; ".join(bad2))
print("BAD: " + "; ".join(bad + bad2))
