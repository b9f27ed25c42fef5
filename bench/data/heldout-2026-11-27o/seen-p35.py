# Seen check for explain_heldout_p35.jsonl (eval-common21 rules); last line "BAD: " + list of problems
import glob, json, subprocess, collections
F = "/tmp/heldout-p35/explain_heldout_p35.jsonl"
rows = [json.loads(l) for l in open(F) if l.strip()]
bad = []
def grep_fixed(s, paths):
    r = subprocess.run(["grep", "-r", "-F", "-l", "-q", "--", s] + paths, capture_output=True)
    return r.returncode == 0
earlier = glob.glob("/work/main/bench/data/explain_heldout_*.jsonl")
for d in rows:
    if grep_fixed(d["url"], ["/work/main"] + earlier):
        bad.append(f"{d['id']}: url found")
    lines = [l for l in d["text"].split("\n") if len(l.strip()) >= 16]
    if not lines:
        bad.append(f"{d['id']}: no line of 16+ chars"); continue
    seen_all = True
    for l in lines:
        s = l.strip(); mid = len(s) // 2
        sub = s[max(0, mid - 20): mid + 20]
        if not grep_fixed(sub, ["/work/main/fixtures", "/work/main/tests", "/work/main/bench"]):
            seen_all = False; break
    if seen_all:
        bad.append(f"{d['id']}: every line already present")
cnt = collections.Counter(d["source_repo"] for d in rows if not d["source_repo"].startswith("planted"))
bad += [f"{k}: {v} cases" for k, v in cnt.items() if v > 2]
print(len(rows), "cases checked")
print("BAD: " + ", ".join(bad))
