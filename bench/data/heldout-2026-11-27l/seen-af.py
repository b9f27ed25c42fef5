"""Seen check for held-out set AF (eval-common18 rules; at most 2 cases per page/URL, per the eval-af brief)."""
import glob, json, subprocess, sys, collections
P = "/tmp/heldout-af/explain_heldout_af.jsonl"
cases = [json.loads(l) for l in open(P) if l.strip()]
bad = []
old_urls = set()
for f in glob.glob("/work/main/bench/data/explain_heldout_*.jsonl"):
    for l in open(f):
        if l.strip():
            old_urls.add(json.loads(l).get("url"))
def grep(s, paths):
    r = subprocess.run(["grep", "-rqF", "--", s] + paths, capture_output=True)
    return r.returncode == 0
repos = collections.Counter()
ids = set()
for c in cases:
    if c["id"] in ids:
        bad.append(c["id"] + ": duplicate id")
    ids.add(c["id"])
    repos[c["url"]] += 1
    u = c["url"]
    if u in old_urls:
        bad.append(c["id"] + ": url in earlier set")
    if grep(u, ["/work/main"]):
        bad.append(c["id"] + ": url occurs in /work/main")
    lines = [l.strip() for l in c["text"].splitlines() if len(l.strip()) >= 16]
    seen = 0
    for l in lines:
        m = len(l) // 2
        sub = l[max(0, m - 20): m + 20]
        if grep(sub, ["/work/main/fixtures", "/work/main/tests", "/work/main/bench"]):
            seen += 1
    if lines and seen == len(lines):
        bad.append(c["id"] + ": every line already seen")
    print(c["id"], "lines>=16:", len(lines), "seen:", seen)
    t = c["text"].lower()
    for k in c["fix_keywords"]:
        parts = [p.lower() for p in k.split("&")]
        if all(p in t for p in parts):
            bad.append(c["id"] + ": keyword in text: " + k)
    if not c["healthy"] and not (2 <= len(c["fix_keywords"]) <= 5):
        bad.append(c["id"] + ": keyword count")
    if len(c["text"].splitlines()) > 400:
        bad.append(c["id"] + ": >400 lines")
for r, n in repos.items():
    if n > 2 and not r.startswith("planted"):
        bad.append(r + ": %d cases from one repo" % n)
hosts = collections.Counter(c["source_repo"] for c in cases)
print("hosts", dict(hosts))
print("cases", len(cases), "healthy", sum(c["healthy"] for c in cases))
print("BAD: " + "; ".join(bad))
