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

# The rules table: a release's "Fix ..." line whose bug a user sees in a log -> what the log shows
# (the symptom: `patterns`, or `together` when it is two lines) and the first release it affects
# (FROM; the last is the release before the one whose notes list the fix). explain makes each a
# known-bug entry (family nccl.known_bug, gpudoctor/explain/versions.py): a finding only when the
# log ran an affected NCCL (printed, or the NCCL its torch release pins) AND shows the symptom.
# A fix line no rule names is listed in the output's "unassigned_fixes" (docs/explain.md): most
# are performance, leaks, build or tuning, with nothing a log shows; a hand-written entry of
# nccl_bugs.toml may cover one (HAND_WRITTEN). FROM is "2.0.0" where the notes do not say when
# the bug appeared; where they name the feature, its first release.
_SEGV = r"Segmentation fault|SIGSEGV|signal 11\b|exitcode\s{0,4}:\s{0,4}-11\b"
KNOWN_BUGS = [
    # (id, regex of the fix line, FROM, {"patterns": [...]} or {"together": [...]}, rank, what the user sees)
    ("nccl.bug_298_bootstrap_crash", r"^Fix crash in bootstrap error case", "2.0.0",
     {"together": [r"bootstrap\.cc:\d{1,5} NCCL WARN", _SEGV]}, 70,
     "a bootstrap error (bootstrap.cc WARN), then a segmentation fault instead of the error"),
    ("nccl.bug_299_p2p_nchannels_crash", r"^Fix crash when setting NCCL_MAX_P2P_NCHANNELS below nchannels", "2.0.0",
     {"together": [r"NCCL_MAX_P2P_NCHANNELS", _SEGV]}, 76,
     "NCCL_MAX_P2P_NCHANNELS set, then a segmentation fault"),
    ("nccl.bug_21212_thread_name_crash", r"^Fix crash when setting NCCL_SET_THREAD_NAME", "2.0.0",
     {"together": [r"NCCL_SET_THREAD_NAME", _SEGV]}, 76,
     "NCCL_SET_THREAD_NAME set, then a segmentation fault"),
    ("nccl.bug_2171_collnet_rail_crash", r"^Fix crash when one CollNet \(SHARP\) rail fails to initialize", "2.0.0",
     {"together": [r"(?:CollNet|SHARP)[^\n]{0,120}(?:fail|error|Error)", _SEGV]}, 72,
     "a CollNet (SHARP) rail that failed to initialize, then a segmentation fault"),
    ("nccl.bug_2243_uds_fd_leak", r"^Fix FD leak in UDS", "2.19.0",
     {"patterns": [r"NCCL WARN UDS:[^\n]{0,200}(?:Too many open files|\(24\))"]}, 78,
     "NCCL's UDS socket (the cuMem IPC handle exchange, 2.19 and later) failing with 'Too many open files'"),
    ("nccl.bug_2262_init_double_free", r"^Fix double-free on failed ncclCommInitRank and ncclCommFinalize", "2.0.0",
     # the failed init: NCCL's return chain through init.cc (NCCL_DEBUG=INFO) or the caller's message
     # (nccl-tests, torch); a WARN alone is any warning, and a double free at exit has other causes
     {"together": [r"double free or corruption|free\(\): double free detected",
                   r"\binit\.cc:\d{1,5} -> \d|ncclCommInitRank(?:Config)? failed"]}, 60,
     "a failed ncclCommInitRank (init.cc's '-> N' chain), then glibc's 'double free' abort: the crash hides the "
     "first error"),
    ("nccl.bug_2263_gdr_c2c_init", r"^Fix an initialization error when running with NCCL_NET_GDR_C2C=1", "2.26.2",
     {"together": [r"NCCL_NET_GDR_C2C", r"NCCL WARN"]}, 60,
     "NCCL_NET_GDR_C2C=1 (new in 2.26.2) and an NCCL failure at initialization"),
]
# fix lines that a hand-written entry of gpudoctor/data/knowledge/nccl_bugs.toml already covers
HAND_WRITTEN = {"Fix crash when shared memory creation fails.": "nccl.bug_2181_shm_crash"}


def _key(v):
    return tuple(int(x) for x in v.split("."))


def build(releases, fixed, version):
    rel = []
    for v, date, commit, msg in sorted(releases, key=lambda r: _key(r[0])):
        items = re.split(r"(?<=[.)])\s+(?=[A-Z])|\n\s*\n|\n[-*] ", " ".join(msg.split("\n")) if "\n\n" not in msg
                         else msg)
        fixes = []
        for x in items:
            if x.strip().lower().startswith("fix"):
                fixes.append(" ".join(x.split()))
                continue
            # a "Fix ..." bullet under another heading (2.22 and later: "Other notable improvements:
            # * Fixes a crash when network plugin assignment fails."), each bullet up to the next one
            for sub in re.split(r"\n\s*[*-] ", x)[1:]:
                if sub.strip().lower().startswith("fix"):
                    fixes.append(" ".join(sub.split()))
        rel.append({"version": v, "date": date, "commit": commit, "fixes": fixes})
    bugs = [{"commit": c, "thread": BUG_FIXES.get(c, ""), "fixed_in": sorted(vs, key=_key)}
            for c, vs in sorted(fixed.items())]
    known, unassigned = known_bugs(rel)
    return {"header": knowgen.header("NVIDIA/nccl (https://github.com/NVIDIA/nccl) release commits", version, GENERATOR),
            "releases": rel, "bug_fixes": bugs, "known_bugs": known,
            "fix_lines": sum(len(r["fixes"]) for r in rel), "unassigned_fixes": unassigned, "sites": []}


def known_bugs(rel):
    """(the known bugs KNOWN_BUGS finds among the releases' fix lines, [[version, fix line]] of the
    lines no rule or hand-written entry names). A rule whose line is in no release is skipped (a
    slice holds only some releases); main() stops when one is missing from a whole history."""
    out, named = [], set()
    for bid, rx, since, symptom, rank, shows in KNOWN_BUGS:
        hit = next(((r, f) for r in rel for f in r["fixes"] if re.search(rx, f)), None)
        if hit is None:
            continue
        r, line = hit
        named.add(line)
        b = {"id": bid, "release_fix": line, "fixed_in": r["version"], "commit": r["commit"],
             "affects": [since, r["version"]], "rank": rank, "shows": shows}
        b.update(symptom)
        out.append(b)
    unassigned = [[r["version"], f] for r in rel for f in r["fixes"] if f not in named and f not in HAND_WRITTEN]
    return out, unassigned


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
    if a.repo:
        missing = [b[0] for b in KNOWN_BUGS if b[0] not in {k["id"] for k in doc["known_bugs"]}]
        if missing:
            a.error("KNOWN_BUGS rows whose fix line is in no release: %s" % ", ".join(missing))
    print("%s: %d releases, %d fix lines, %d known bugs with a symptom" % (
        knowgen.write("nccl_releases", doc, a.out), len(doc["releases"]), doc["fix_lines"], len(doc["known_bugs"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
