"""Benchmark: the collector's `resolve` section on a node starved of CPU, against an idle one.

    python bench/resolve_starve_bench.py [--runs 11] [--names 256] [--busy 8] [--baseline REV]

At 256 nodes the test Slurm puts 256 nodes' collectors on two cores (load 1,100-2,200). This
reproduces one node of that without 256 slurmd: a python that runs `cluster.resolve` over N
names (sn1..snN, from a private /etc/hosts: a mount namespace of its own, `unshare -m`, root
only, as bench/node_payload_bench.py does), pinned with `taskset` to CPU 0 (at --nice) beside
--busy processes that spin on the same CPU (--busy 0: unloaded). For this tree and a `git archive`
copy of --baseline, interleaved, --runs times each: the process's CPU over the section
(getrusage(RUSAGE_SELF), every thread), its wall time, the threads it started (1: the worker
only; more: it spread the names still queued over a thread each) and names reported timed out.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = r"""
import json, resource, sys, time, _thread
sys.path.insert(0, sys.argv[1])
from gpudoctor.collector import cluster
from gpudoctor.collector.base import Context
started = []
real = _thread.start_new_thread
def counting(*a):
    started.append(1)
    return real(*a)
_thread.start_new_thread = counting
names = ["sn%d" % i for i in range(1, int(sys.argv[2]) + 1)]
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.time()
got = cluster.resolve(Context(options={"resolve": names}))
r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.time()
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(json.dumps({"cpu": cpu * 1000, "wall": (t1 - t0) * 1000, "threads": len(started),
                  "timed_out": len(got["timed_out"]), "empty": sum(1 for v in got["names"].values() if not v)}))
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--names", type=int, default=256)
    ap.add_argument("--busy", type=int, default=8, help="spinning processes on CPU 0 beside the measured one")
    ap.add_argument("--baseline", help="a commit to compare with (git archive of gpudoctor/)")
    ap.add_argument("--nice", type=int, default=0, help="the measured process's nice value (the busy ones: 0)")
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.inner:
        if os.geteuid() != 0:
            sys.exit("resolve_starve_bench: root only (a private /etc/hosts through unshare -m)")
        d = tempfile.mkdtemp(prefix="gd-starve-")
        hosts = os.path.join(d, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 localhost\n127.0.1.1 %s\n" % os.uname()[1])
            f.writelines("10.9.%d.%d sn%d\n" % (i // 250, i % 250 + 1, i) for i in range(1, args.names + 1))
        cmd = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"', hosts,
               sys.executable] + sys.argv + ["--inner"]
        sys.exit(subprocess.call(cmd))
    trees = [("this tree", os.path.abspath(os.path.join(HERE, "..")))]
    if args.baseline:
        d = tempfile.mkdtemp(prefix="gd-starve-base-")
        archive = subprocess.run(["git", "-C", os.path.join(HERE, ".."), "archive", args.baseline, "gpudoctor"],
                                 stdout=subprocess.PIPE, check=True).stdout
        subprocess.run(["tar", "-x", "-C", d], input=archive, check=True)
        trees.append((args.baseline, d))
    busy = [subprocess.Popen(["taskset", "-c", "0", args.python, "-c", "while 1: pass"]) for _ in range(args.busy)]
    res = dict((label, []) for label, _ in trees)
    try:
        for _ in range(args.runs):
            for label, tree in trees:
                p = subprocess.run(["nice", "-n", str(args.nice), "taskset", "-c", "0", args.python, "-c", CHILD, tree, str(args.names)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
                try:
                    res[label].append(json.loads(p.stdout))
                except ValueError:
                    sys.exit("child failed (rc %d): %s" % (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
                if p.returncode:  # after its answer: at exit, beside threads still resolving
                    res[label][-1]["rc"] = p.returncode
    finally:
        for b in busy:
            b.kill()
            b.wait()
    print("names %d, busy processes on CPU 0: %d, measured at nice %d, runs %d, load %s" % (
        args.names, args.busy, args.nice, args.runs, " ".join(open("/proc/loadavg").read().split()[:3])))
    for label, rows in res.items():
        med = lambda k: statistics.median(r[k] for r in rows)  # noqa: E731
        print("%-12s CPU median %.1f ms (%.1f-%.1f), wall median %.0f ms, spread in %d/%d runs "
              "(threads median %d), names timed out %d, empty answers %d, exit status not 0 in %d" % (
                  label, med("cpu"), min(r["cpu"] for r in rows), max(r["cpu"] for r in rows), med("wall"),
                  sum(r["threads"] > 1 for r in rows), len(rows), med("threads"),
                  sum(r["timed_out"] for r in rows), sum(r["empty"] for r in rows),
                  sum("rc" in r for r in rows)))


if __name__ == "__main__":
    main()
