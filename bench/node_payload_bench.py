"""Benchmark: what one node spends on the collector that srun gives it, against a bare start.

    python bench/node_payload_bench.py [--runs 21] [--names 64] [--python PY ...] [--tree DIR ...]

For each interpreter and each gpudoctor tree (this one by default; a `git archive` copy of
another commit for a before/after), builds the stub + loader + blob exactly as the srun
transport sends it (gpudoctor/transport/srun.py build_stub; options as `gpudoctor facts` has
them: the node names to resolve and the environment key), then runs `PY -c READ_BLOB` with it
on stdin, as every node's task does, and `PY -c pass`, interleaved, --runs times each. Prints
the median CPU (user+sys of the child, getrusage(RUSAGE_CHILDREN)) and wall time in ms.

The names (sn1..snN) resolve through a private /etc/hosts (a mount namespace of its own,
`unshare -m`, root only), as the test Slurm's nodes have it, so no lookup waits on DNS.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from gpudoctor.transport.srun import build_stub
from gpudoctor.collector import bundle
opts = {"resolve": ["sn%d" % i for i in range(1, int(sys.argv[3]) + 1)], "env_key": "ab" * 32}
stub = build_stub(opts, {}, parts=bundle.build_parts(bundle.left_out(opts, {}), cache=False))
try:  # what a node that takes the bytecode reads; the sources follow only when one asks
    from gpudoctor.transport.srun import first_part
    stub = stub[:first_part(stub)]
except ImportError:  # a tree from before: every node got everything
    pass
with open(sys.argv[2], "wb") as f:
    f.write(stub)
import gpudoctor.transport.srun as srun  # how a node of that tree reads it (READ_BLOB), and its task's shell
for name, suffix in (("READ_BLOB", ".read"), ("SHELL", ".shell")):
    if hasattr(srun, name):
        with open(sys.argv[2] + suffix, "w") as f:
            f.write(getattr(srun, name))
"""  # also bench/srun_scale_bench.py's payload builder


def run_once(argv, data):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(data)
    wall = time.perf_counter() - t0
    # the child's own CPU: communicate() reaped it; RUSAGE_CHILDREN grows by its share
    return wall, out, err, p.returncode


def cpu_of(argv, data):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, out, err, rc = run_once(argv, data)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall * 1000, cpu * 1000, out, err, rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--names", type=int, default=64)
    ap.add_argument("--python", action="append", help="default: /usr/bin/python3 and this interpreter")
    ap.add_argument("--tree", action="append", help="gpudoctor trees to compare (default: this one)")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.inner and os.geteuid() == 0:
        d = tempfile.mkdtemp(prefix="gd-nodebench-")
        hosts = os.path.join(d, "hosts")
        with open(hosts, "w") as f:
            f.write("127.0.0.1 localhost\n127.0.1.1 %s\n" % os.uname()[1])  # the node's own name, as a cluster's hosts have it
            f.writelines("10.9.%d.%d sn%d\n" % (i // 250, i % 250 + 1, i) for i in range(1, args.names + 1))
        cmd = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$@"', hosts,
               sys.executable] + sys.argv + ["--inner"]
        sys.exit(subprocess.call(cmd))
    pythons = args.python or ["/usr/bin/python3", os.path.realpath(sys.executable)]
    trees = args.tree or [os.path.join(HERE, "..")]
    d = tempfile.mkdtemp(prefix="gd-nodebench-")
    stubs = []
    for i, tree in enumerate(trees):
        path = os.path.join(d, "stub%d" % i)
        subprocess.run([sys.executable, "-c", BUILD, os.path.abspath(tree), path, str(args.names)], check=True,
                       cwd=d, env=dict(os.environ, PYTHONPATH=""))
        with open(path, "rb") as f, open(path + ".read") as g:
            stubs.append((tree, f.read(), g.read()))
    env_note = os.environ.get("SLURMD_NODENAME")
    os.environ["SLURMD_NODENAME"] = env_note or "sn1"
    sizes = dict((t, len(x)) for t, x, _ in stubs)
    for py in pythons:
        res = {"pass": []}
        res.update((t, []) for t, _, _ in stubs)
        for _ in range(args.runs):
            res["pass"].append(cpu_of([py, "-c", "pass"], b""))
            for tree, data, read in stubs:
                r = cpu_of([py, "-c", read], data)
                if r[4] != 0 or b"gpudoctor-end sn1 0 " not in r[2]:
                    sys.exit("%s on %s failed: rc %s\n%s" % (py, tree, r[4], r[3].decode(errors="replace")[-2000:]))
                res[tree].append(r)
        print("%s (%s)" % (py, subprocess.run([py, "-V"], capture_output=True, text=True).stdout.strip()))
        for k, v in res.items():
            print("  %-40s cpu %6.1f ms  wall %6.1f ms  (%d bytes on stdin)" % (
                k, statistics.median(r[1] for r in v), statistics.median(r[0] for r in v),
                sizes.get(k, 0)))
    print("load average: %s" % open("/proc/loadavg").read().split()[0])


if __name__ == "__main__":
    main()
