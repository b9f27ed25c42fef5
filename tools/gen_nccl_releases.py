#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nccl_releases.json: NCCL's releases (version, date,
commit, the "Fix ..." lines of the release commit's message, which are its release notes'
fixed issues) and, for each fix commit of a known bug (BUG_FIXES below: the commits that NCCL's
issue threads name), the first releases that contain it. explain's known-bug entries
(gpudoctor/data/knowledge/nccl_bugs.toml) say "fixed in X" from this file; a test checks they
agree.

Usage:
    python tools/gen_nccl_releases.py --repo /path/to/nccl.git [-o OUT]
    python tools/gen_nccl_releases.py --slice tools/data/nccl_releases_slice.txt -o OUT   (the test)

Source: NVIDIA/nccl (https://github.com/NVIDIA/nccl): `git log` (one commit per release, titled
"2.18.3-1" or "NCCL 2.30.7-1", whose message lists the fixes) and `git tag --contains`. A slice
holds `#! release VERSION DATE COMMIT` lines each followed by its message, and
`#! fixed COMMIT VERSION,...` lines.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_nccl_releases.py"
# fix commits of known bugs (named by NCCL's issue threads) -> the thread
BUG_FIXES = {
    "4365458757e4107ecbf629b2fd6e0e19a5d237c2": "https://github.com/NVIDIA/nccl/issues/957",
}
_TITLE = re.compile(r"^(?:NCCL )?(\d+\.\d+\.\d+)-\d+$")


def _key(v):
    return tuple(int(x) for x in v.split("."))


def build(releases, fixed, version):
    rel = []
    for v, date, commit, msg in sorted(releases, key=lambda r: _key(r[0])):
        items = re.split(r"(?<=[.)])\s+(?=[A-Z])|\n\s*\n|\n[-*] ", " ".join(msg.split("\n")) if "\n\n" not in msg
                         else msg)
        fixes = [" ".join(x.split()) for x in items if x.strip().lower().startswith("fix")]
        rel.append({"version": v, "date": date, "commit": commit, "fixes": fixes})
    bugs = [{"commit": c, "thread": BUG_FIXES.get(c, ""), "fixed_in": sorted(vs, key=_key)}
            for c, vs in sorted(fixed.items())]
    return {"header": knowgen.header("NVIDIA/nccl (https://github.com/NVIDIA/nccl) release commits", version, GENERATOR),
            "releases": rel, "bug_fixes": bugs, "sites": []}


def from_repo(repo):
    def git(*args):
        return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True, text=True,
                              errors="replace").stdout

    head = git("rev-parse", "HEAD").strip()
    log = git("log", "--format=%H%x00%ad%x00%B%x01", "--date=short")
    releases, seen = [], set()
    for rec in log.split("\x01"):
        if "\x00" not in rec:
            continue
        commit, date, body = rec.strip("\n").split("\x00", 2)
        lines = body.strip().split("\n", 1)
        m = _TITLE.match(lines[0].strip())
        if not m or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        releases.append((m.group(1), date, commit[:12], lines[1] if len(lines) > 1 else ""))
    fixed = {}
    for c in BUG_FIXES:
        tags = git("tag", "--contains", c).split()
        vs = sorted({t[1:].split("-")[0] for t in tags if re.match(r"^v\d+\.\d+\.\d+-\d+$", t)}, key=_key)
        firsts = []
        for v in vs:  # the first release of each minor line that has the fix
            if not any(_key(f)[:2] == _key(v)[:2] for f in firsts):
                firsts.append(v)
        fixed[c] = firsts
    return releases, fixed, "commit %s" % head


def from_slice(path):
    releases, fixed, cur, version = [], {}, None, "slice"
    with open(path) as f:
        for line in f:
            if line.startswith("#! release "):
                v, date, commit = line.split()[2:5]
                cur = [v, date, commit, ""]
                releases.append(cur)
            elif line.startswith("#! fixed "):
                c, vs = line.split()[2:4]
                fixed[c] = vs.split(",")
                cur = None
            elif line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif cur is not None and not line.startswith("#"):
                cur[3] += line
    return [tuple(r) for r in releases], fixed, version


def main(argv):
    a = knowgen.arguments(__doc__, argv)
    releases, fixed, version = from_repo(a.repo) if a.repo else from_slice(a.slice)
    doc = build(releases, fixed, version)
    print("%s: %d releases" % (knowgen.write("nccl_releases", doc, a.out), len(doc["releases"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
