#!/usr/bin/env python3
"""Start-up latency of `gpudoctor explain "<one line>"`: what a user waits for a pasted line.

Runs `python -m gpudoctor explain LINE` --runs times (after one warm-up run, so the bytecode and
explain's knowledge cache are in place, as they are on a user's second run) and reports the median
CPU time (user+sys of the child) and wall time, and the answer's first line so that two trees can
be compared. With --tree PATH the gpudoctor of that checkout is run (PYTHONPATH=PATH), so one
interpreter measures two commits interleaved:

    python bench/explain_startup.py --runs 9
    python bench/explain_startup.py --tree /tmp/old --tree . --runs 9   # interleaved A/B

The cache folder is a temporary XDG_CACHE_HOME of this run (its own, warm after the first run),
and the bytecode goes to a temporary PYTHONPYCACHEPREFIX where PYTHONDONTWRITEBYTECODE is set.
With --cold each run gets an empty cache folder: explain reads and parses every generated table
(gpudoctor/data/knowledge/generated/, .json and .json.gz) and writes its cache, as on a first run.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LINE = "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled system error"


def one(tree, env):
    e = dict(env, PYTHONPATH=os.path.abspath(tree))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", LINE], env=e, capture_output=True,
                       text=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    first = next((ln for ln in p.stdout.splitlines() if ln.startswith("ROOT CAUSE")), p.stdout[:80])
    return cpu, wall, p.returncode, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", action="append", help="a checkout to run (repeatable; default: this one)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--cold", action="store_true", help="an empty knowledge cache for every run (a first run)")
    args = ap.parse_args()
    trees = args.tree or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    tmp = tempfile.mkdtemp(prefix="explain-startup-")
    try:
        env = dict(os.environ)
        if env.pop("PYTHONDONTWRITEBYTECODE", None):
            env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pyc")
        got = {}
        for i, tree in enumerate(trees):
            tenv = dict(env, XDG_CACHE_HOME=os.path.join(tmp, "cache%d" % i))
            os.makedirs(tenv["XDG_CACHE_HOME"], 0o700)  # (the cache is kept only under a folder of one's own)
            one(tree, tenv)  # warm-up: bytecode and the knowledge cache written
            got[tree] = (tenv, [])
        for n in range(args.runs):
            for i, tree in enumerate(trees):
                tenv, rows = got[tree]
                if args.cold:
                    tenv = dict(tenv, XDG_CACHE_HOME=os.path.join(tmp, "cold%d-%d" % (i, n)))
                    os.makedirs(tenv["XDG_CACHE_HOME"], 0o700)
                rows.append(one(tree, tenv))
        for tree in trees:
            rows = got[tree][1]
            print("%-30s cpu median %.2f s (min %.2f)  wall median %.2f s  rc %s  %s" % (
                tree, statistics.median(r[0] for r in rows), min(r[0] for r in rows),
                statistics.median(r[1] for r in rows), sorted({r[2] for r in rows}), rows[-1][3]))
        print("load average: %.2f %.2f %.2f" % os.getloadavg())
    finally:
        shutil.rmtree(tmp, True)


if __name__ == "__main__":
    main()
