# Seen check for explain_heldout_p37.jsonl (eval-common22 rules); last line "BAD: " + list of problems
import glob, json, subprocess, collections
F = "/tmp/heldout-p37/explain_heldout_p37.jsonl"
rows = [json.loads(l) for l in open(F) if l.strip()]
labels = set(open("/tmp/heldout-p37/labels.txt").read().split())
bad = []
def grep_fixed(s, paths):
    r = subprocess.run(["grep", "-r", "-F", "-l", "-q", "--exclude-dir=.git", "--exclude-dir=.venv", "--", s] + paths, capture_output=True)
    return r.returncode == 0
for d in rows:
    if grep_fixed(d["url"], ["/work/main"]):
        bad.append(f"{d['id']}: url found")
    lines = [l for l in d["text"].split("\n") if len(l.strip()) >= 16]
    n_seen = 0
    for l in lines:
        s = l.strip(); mid = len(s) // 2
        if grep_fixed(s[max(0, mid - 20): mid + 20], ["/work/main/fixtures", "/work/main/tests", "/work/main/bench"]):
            n_seen += 1
    print(f"{d['id']}: {n_seen}/{len(lines)} lines of 16+ chars already present, {len(d['text'].splitlines())} lines")
    if not lines or n_seen == len(lines):
        bad.append(f"{d['id']}: every line already present")
    if len(d["text"].splitlines()) > 400: bad.append(f"{d['id']}: over 400 lines")
    t = d["text"].lower()
    if d["healthy"]:
        if d["family"] != "healthy" or d["fix_keywords"]: bad.append(f"{d['id']}: healthy label")
    else:
        if not 2 <= len(d["fix_keywords"]) <= 5: bad.append(f"{d['id']}: {len(d['fix_keywords'])} keywords")
        for k in d["fix_keywords"]:
            for part in k.split("&"):
                if part.lower() in t: bad.append(f"{d['id']}: keyword {part!r} in text")
        for fam in [d["family"]] + d["family_alternatives"]:
            if not any(x == fam or x.startswith(fam + ".") or x.startswith(fam) for x in labels):
                bad.append(f"{d['id']}: label {fam} unknown")
cnt = collections.Counter(d["source_repo"] for d in rows if not d["source_repo"].startswith("planted"))
bad += [f"{k}: {v} cases" for k, v in cnt.items() if v > 2]
print(len(rows), "cases checked,", sum(d["healthy"] for d in rows), "healthy")
print("BAD: " + ", ".join(bad))
