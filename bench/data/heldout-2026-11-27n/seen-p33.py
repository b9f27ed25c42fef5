# seen check for explain_heldout_p33.jsonl (brief: URL not in /work/main or earlier sets; not every 16+ char line
# already present (40-char middle substring) in fixtures/tests/bench; <=2 per source repo for thread sets)
import json, subprocess, glob, collections
cases = [json.loads(l) for l in open("/tmp/heldout-p33/explain_heldout_p33.jsonl")]
bad = []
earlier = "".join(open(f, errors="replace").read() for f in glob.glob("/work/main/bench/data/explain_heldout_*.jsonl"))
def grep_fixed(s, paths):
    r = subprocess.run(["grep", "-rqF", "--", s] + paths, capture_output=True)
    return r.returncode == 0
for c in cases:
    if grep_fixed(c["url"], ["/work/main"]) or c["url"] in earlier:
        bad.append(f"{c['id']}: url seen")
    lines = [l for l in c["text"].splitlines() if len(l.strip()) >= 16]
    def present(l):
        l = l.strip(); m = (len(l) - 40) // 2
        sub = l[max(m, 0): max(m, 0) + 40]
        return grep_fixed(sub, ["/work/main/fixtures", "/work/main/tests", "/work/main/bench"])
    if lines and all(present(l) for l in lines):
        bad.append(f"{c['id']}: every line already present")
cnt = collections.Counter(c["source_repo"] for c in cases if not c["url"].startswith("planted:"))
bad += [f"repo {r}: {n} cases" for r, n in cnt.items() if n > 2]
print(len(cases), "cases checked")
print("BAD: " + "; ".join(bad))
