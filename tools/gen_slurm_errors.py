#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/slurm_errors.json: Slurm's user-facing error texts,
the slurm_strerror table (src/common/slurm_errno.c: every SLURM_* / ESLURM* code and its
description, which sbatch / srun / salloc print after "error: ... failed: " when the controller
refuses a request), each with the knowledge family that says what a user or an admin does about
it (RULES below, by the code's name).

Usage:
    python tools/gen_slurm_errors.py --repo /path/to/slurm.git [--rev HEAD] [-o OUT]
    python tools/gen_slurm_errors.py --slice tools/data/slurm_errno_slice.c -o OUT   (the test)

Source: SchedMD/slurm (https://github.com/SchedMD/slurm), src/common/slurm_errno.c, read with
`git show REV:path`.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_slurm_errors.py"

# (rule, entry id, {"name": regex over the code's name, "text": regex over its description})
RULES = [
    ("prolog", "slurm.prolog", {"name": r"PROLOG|EPILOG"}),
    ("user", "slurm.user_unknown", {"name": r"USER_ID|GROUP_ID|INVALID_UID|USER_UNKNOWN|UID_NOT|_UID\b|BAD_USER"}),
    ("user-text", "slurm.user_unknown", {"text": r"\buser\b.*\b(unknown|not known|missing|invalid)|Invalid user"}),
    ("gres", "slurm.gres", {"name": r"GRES|TRES"}),
    ("partition", "slurm.partition", {"name": r"PARTITION|_PART_"}),
    ("account", "slurm.account", {"name": r"ACCOUNT(?!ING)|ASSOC|WCKEY"}),
    ("qos", "slurm.qos_limit", {"name": r"QOS|ACCOUNTING_POLICY|LIMIT|TIME_LIMIT|_HELD|JOB_HELD|MAX_|BURST_BUFFER_PERM"}),
    ("node", "slurm.node_config", {"name": r"NODE|CONFIG_UNAVAIL|NODES_BUSY|CPU_COUNT|_TASK|INVALID_NODE|"
                                           r"FEATURE|CONSTRAINT|REQUESTED_|TOO_MANY_REQUESTED|BAD_DIST|"
                                           r"CORE_CNT|SOCKET|THREAD|MEM|NOT_SUPPORTED"}),
    ("auth", "slurm.auth", {"name": r"AUTH|MUNGE|CRED|SIGNATURE|ACCESS_DENIED|USER_GROUP"}),
    ("comm", "slurm.communication", {"name": r"COMMUNICATIONS|PROTOCOL|SOCKET|TIMEOUT|_CONNECTION|"
                                             r"CONTROLLER|DB_CONNECTION|IN_STANDBY|SLURMCTLD|SLURMDBD"}),
    ("job", "slurm.error", {"name": r"^(ESLURM|ESLURMD|ESCRIPT|ESPANK|SLURM_)"}),
]
_MIN_BARE = 30
_CONTEXT = (r"(?:sbatch|srun|salloc|sinfo|squeue|scontrol|sacct|sacctmgr|scancel|slurmd|slurmstepd|slurmctld)"
            r"(?:\[\d{1,10}\])?: (?:error|fatal): [^\n]{0,120}?")


def parse(text):
    out = []
    for name, desc in re.findall(r"ERRTAB_ENTRY\((\w+)\),\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)", text):
        d = "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", desc))
        out.append((name, d.replace('\\"', '"')))
    return out


def build(rows, version):
    sites = []
    for name, text in rows:
        if name in ("SLURM_SUCCESS", "EINPROGRESS") or not text:
            continue
        alts = [_CONTEXT + re.escape(text)]
        if len(text) >= _MIN_BARE:
            alts.append(re.escape(text))
        rule, family = knowgen.assign(RULES, None, {"name": name, "text": text})
        sites.append({"id": "slurm.%s" % name.lower(), "name": name, "text": text, "re": "(?:%s)" % "|".join(alts),
                      "family": family, "rule": rule})
    return {"header": knowgen.header("SchedMD/slurm (https://github.com/SchedMD/slurm) src/common/slurm_errno.c",
                                     version, GENERATOR), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    commit = git("rev-parse", rev).strip()
    meta = git("show", "%s:META" % rev)
    v = re.search(r"Version:\s*(\S+)", meta)
    return parse(git("show", "%s:src/common/slurm_errno.c" % rev)), "%s (commit %s)" % (v.group(1) if v else "?",
                                                                                     commit)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--slice")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if bool(a.repo) == bool(a.slice):
        ap.error("give --repo or --slice")
    if a.repo:
        rows, version = from_repo(a.repo, a.rev)
    else:
        with open(a.slice) as f:
            rows, version = parse(f.read()), "slice"
    doc = build(rows, version)
    return knowgen.report(knowgen.write("slurm_errors", doc, a.out), doc, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
