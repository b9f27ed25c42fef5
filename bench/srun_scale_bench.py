"""Benchmark: gpudoctor's fan-out through srun, ssh and pdsh at N nodes, each beside its floor.

    python bench/srun_scale_bench.py [--sizes 8,64,256] [--repeat 3] [--only srun,ssh] [--baseline TREE] [--split]

- srun: a real Slurm of N slurmd daemons, one per network namespace (tests/slurmcluster.py),
  inside one allocation of all N (`salloc --no-shell`): `gpudoctor facts` (srun by default
  there: one step, one task per node, the collector on stdin) beside `srun -N N python3 -c pass`
  and `srun -N N true` as steps of the same job;
- ssh: N loopback sshd nodes (tests/sshcluster.py): `gpudoctor facts --hosts` beside pdsh running
  `python3 -c pass` and pdsh running the same collector (from a file), both with curve25519
  (bench/fanout_bench.py says why).

Median of --repeat runs, wall clock of the whole command; controller CPU (user+sys of the
command and the children it waits for: gpudoctor + srun, or pdsh + its ssh clients; the nodes'
slurmstepd/sshd and python are not counted) and peak RSS, from /usr/bin/time; "all CPU": every
process of the benchmark, the nodes' included, from a cpuacct cgroup it runs in (join_cgroup;
the whole machine's /proc/stat where there is none), and its ratio to the floor's, which the
load of other work on the machine does not move as it moves the wall clock. `--split` prints
where that CPU goes at N nodes, one step at a time. Needs root,
Debian's slurmctld/slurmd, openssh-server and pdsh (tests/run.sh installs them). Every node
runs on this machine: the nodes' interpreter starts share its cores with the controller.
"""

import argparse
import base64
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import slurmcluster  # noqa: E402
import sshcluster  # noqa: E402

from gpudoctor.collector.bundle import build_script  # noqa: E402
from node_payload_bench import BUILD as PAYLOAD  # noqa: E402  (a tree's stub, READ_BLOB and SHELL)

GD = [sys.executable, "-m", "gpudoctor"]
# `python3` on the nodes is this interpreter itself, as /usr/bin/python3 is on a cluster: not
# a version manager's shim (pyenv's bash shim costs 100-250 ms per start here, on both sides)
PATH = os.pathsep.join([os.path.join(sys.base_prefix, "bin"), os.environ.get("PATH", "")])
os.environ["PATH"] = PATH


CGROUP = None  # a cpuacct cgroup (v1) this process and everything it starts runs in, where there is one


def join_cgroup():
    """Run this benchmark and everything it starts (the Slurm daemons, slurmstepd, the nodes'
    python, gpudoctor, srun, sshd) in a cpuacct cgroup of its own: its cpuacct.usage is the CPU
    of those processes alone, whatever else runs on the machine (the load of other sessions
    moved whole-machine figures by 20-40% here). Root and cgroup v1's cpuacct only."""
    global CGROUP
    top = "/sys/fs/cgroup/cpuacct"
    if os.geteuid() != 0 or not os.path.exists(os.path.join(top, "cpuacct.usage")):
        return
    path = os.path.join(top, "gd-bench-%d" % os.getpid())
    try:
        os.mkdir(path)
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    except OSError:
        return
    CGROUP = path


def leave_cgroup():
    if not CGROUP:
        return
    with open("/sys/fs/cgroup/cpuacct/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    for _ in range(50):  # processes that are still exiting
        try:
            os.rmdir(CGROUP)
            return
        except OSError:
            time.sleep(0.1)


def our_cpu():
    """Seconds of CPU of this benchmark's processes (the cgroup), else of the whole machine."""
    if CGROUP:
        with open(os.path.join(CGROUP, "cpuacct.usage")) as f:
            return int(f.read()) / 1e9
    return machine_cpu()


def timed(cmd, env=None, check=None, timeout=900):
    """(wall s, controller cpu s, peak rss MiB, stdout, all cpu s: every process of the
    benchmark, the nodes' included)"""
    c0 = our_cpu()
    t0 = time.perf_counter()
    # from a folder of its own: `python -m gpudoctor` would take ./gpudoctor first (before
    # PYTHONPATH, so --baseline would run this tree) and a ./gpudoctor.toml
    p = subprocess.run(["/usr/bin/time", "-f", "GDTIME %U %S %M"] + cmd, capture_output=True, env=env,
                       timeout=timeout, stdin=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t0
    line = [l for l in p.stderr.decode(errors="replace").splitlines() if l.startswith("GDTIME ")][-1].split()
    if check is not None:
        check(p)
    return wall, float(line[1]) + float(line[2]), int(line[3]) / 1024.0, p.stdout, our_cpu() - c0


def median_of(fn, repeat):
    runs = [fn() for _ in range(repeat)]
    return tuple(statistics.median(r[i] for r in runs) if i != 3 else None for i in range(5))


def row(n, what, floor_name, got, floor):
    print("| %d | %s | %.2f | %.2f | %.0f | %s | %.2f | %.2f | %.0f | %.2fx | %.2f / %.2f | %.2fx |" % (
        n, what, got[0], got[1], got[2], floor_name, floor[0], floor[1], floor[2], got[0] / floor[0],
        got[4], floor[4], got[4] / floor[4]), flush=True)


def bench_srun(n, repeat, baseline=None):
    base = tempfile.mkdtemp(prefix="gd-srun-bench-")
    c = slurmcluster.MultiSlurm(base, n, hooks=False)
    t0 = time.perf_counter()
    c.start()
    up = time.perf_counter() - t0
    job = None
    try:
        # One allocation for every run, as `salloc -N N gpudoctor check` has it: back-to-back
        # jobs each wait for the previous one's nodes to finish COMPLETING, which added
        # seconds of scheduling noise to either side.
        r = subprocess.run(["salloc", "--no-shell", "-N", str(n), "-t", "60"], env=c.env, capture_output=True,
                           text=True, timeout=300, stdin=subprocess.DEVNULL)
        job = r.stderr.split("Granted job allocation ")[1].split()[0]
        nodes = "sn[1-%d]" % n
        env = dict(c.env, SLURM_JOB_ID=job, SLURM_JOBID=job, SLURM_JOB_NODELIST=nodes)

        def facts_ok(p):
            got = p.stdout.count(b'"schema": "gpudoctor.facts/1"')
            assert got == n, (got, p.stderr[-800:])

        def tasks_ok(p):
            assert p.returncode == 0, p.stderr[-800:]

        srun = ["srun", "-N", str(n), "--ntasks-per-node=1", "--overlap"]
        timed(srun + ["true"], env, tasks_ok)  # warm: page cache, slurmd's first step
        true = median_of(lambda: timed(srun + ["true"], env, tasks_ok), repeat)
        # interleaved: each round runs the floor, gpudoctor and (--baseline) another tree's
        # gpudoctor back to back, so a change in the machine's load falls on all of them
        runs = {"py": [], "gd": [], "base": []}
        for _ in range(repeat):
            paused()
            runs["py"].append(timed(srun + ["python3", "-c", "pass"], env, tasks_ok))
            runs["gd"].append(timed(GD + ["facts", "--timeout", "600"], env, facts_ok))
            if baseline:
                runs["base"].append(timed(GD + ["facts", "--timeout", "600"], baseline_env(env, baseline), facts_ok))
        med = dict((k, tuple(statistics.median(r[i] for r in v) if i != 3 else None for i in range(5)))
                   for k, v in runs.items() if v)
        print("| %d | (Slurm of %d slurmd up and idle in %.1f s; `srun true` %.2f s; load %.1f) | | | | | | | | |" % (
            n, n, up, true[0], os.getloadavg()[0]))
        row(n, "srun: `gpudoctor facts` in the allocation", "`srun python3 -c pass`", med["gd"], med["py"])
        if baseline:
            row(n, "srun: the same, code of %s" % baseline, "`srun python3 -c pass`", med["base"], med["py"])
        # each round's CPU ratio, the round's own floor (the runs are interleaved: the pairs compare)
        print("| %d | (rounds, CPU ratio to that round's floor: %s) | | | | | | | | |" % (n, "; ".join(
            "%s %s" % (k, ", ".join("%.2fx" % (r[4] / f[4]) for r, f in zip(runs[k], runs["py"])))
            for k in ("gd", "base") if runs[k])), flush=True)
    finally:
        if job:
            subprocess.run(["scancel", job], env=c.env, capture_output=True)
        c.stop()
        shutil.rmtree(base, ignore_errors=True)


def machine_cpu():
    """Seconds of CPU the whole machine has spent (all but idle and iowait, /proc/stat: proc(5))."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def split_srun(n, repeat, baseline=None):
    """Where the time goes at N nodes: each step adds one thing to the floor, interleaved in one
    allocation, median of --repeat; the CPU of every process of the benchmark (the nodes'
    slurmstepd and python included: our_cpu)."""
    from gpudoctor.transport.srun import SHELL

    base = tempfile.mkdtemp(prefix="gd-srun-split-")
    c = slurmcluster.MultiSlurm(base, n, hooks=False)
    c.start()
    job = None
    try:
        r = subprocess.run(["salloc", "--no-shell", "-N", str(n), "-t", "60"], env=c.env, capture_output=True,
                           text=True, timeout=300, stdin=subprocess.DEVNULL)
        job = r.stderr.split("Granted job allocation ")[1].split()[0]
        env = dict(c.env, SLURM_JOB_ID=job, SLURM_JOBID=job, SLURM_JOB_NODELIST="sn[1-%d]" % n)
        trees = [("now", os.path.join(HERE, ".."))] + ([("before", baseline)] if baseline else [])
        payloads = {}
        cpu_tree = cpu_copy(os.path.join(HERE, ".."), os.path.join(base, "cpu-tree"))
        for name, tree in trees + ([("cpu", cpu_tree)] if cpu_tree else []):
            path = os.path.join(base, "payload-" + name)
            subprocess.run([sys.executable, "-c", PAYLOAD, os.path.abspath(tree), path, str(n)], check=True,
                           env=dict(os.environ, PYTHONPATH=""), cwd=base)
            payloads[name] = path
        srun = ["srun", "-N", str(n), "--ntasks-per-node=1", "--overlap"]

        def task(name):
            with open(payloads[name] + ".shell") as f:
                return srun + ["--label", "sh", "-c", f.read(), "gpudoctor", "python3"]

        steps = [("`srun python3 -c pass` (the floor)", srun + ["python3", "-c", "pass"], None, None)]
        steps.append(("+ the transport's shell (announce, find python, exec)", srun + [
            "--label", "sh", "-c", SHELL.replace("exec \"$py\" -c", "exec \"$py\" -c pass #"), "gpudoctor", "python3"],
            None, None))
        in_env = {}  # tree -> the step's environment with its first part (a tree that reads it there)
        for name, _ in trees + ([("cpu", cpu_tree)] if cpu_tree else []):
            with open(payloads[name] + ".shell") as f:
                if "GPUDOCTOR_PAYLOAD" in f.read():
                    with open(payloads[name], "rb") as g:
                        in_env[name] = dict(env, GPUDOCTOR_PAYLOAD=base64.b64encode(g.read()).decode("ascii"))
        for name, _ in trees:
            steps.append(("+ the %s payload on stdin, read and dropped (%d KB)" % (name, os.path.getsize(payloads[name]) // 1000),
                          srun + ["python3", "-c", "import sys; sys.stdin.buffer.read()"], payloads[name], None))
            steps.append(("+ the %s collector run from it (no gpudoctor on this side)" % name, task(name), payloads[name],
                          lambda p: p.stdout.count(b"gpudoctor-end ") == n))
            if name in in_env:
                steps.append(("+ the %s payload in the step's environment, decoded (%d KB of base64)" % (
                    name, len(in_env[name]["GPUDOCTOR_PAYLOAD"]) // 1000), srun + [
                    "python3", "-c", "import os, binascii; binascii.a2b_base64(os.environ.pop('GPUDOCTOR_PAYLOAD'))"],
                    ("env", name), None))
                steps.append(("+ the %s collector run from the environment (no gpudoctor on this side)" % name, task(name),
                              ("env", name), lambda p: p.stdout.count(b"gpudoctor-end ") == n))
        if "cpu" in in_env:  # this tree's collector with CPU instead of wall seconds in its timings (cpu_copy)
            steps.append((CPU_STEP, task("cpu"), ("env", "cpu"), lambda p: p.stdout.count(b"gpudoctor-end ") == n))
        steps.append(("`gpudoctor facts` (+ the controller)", GD + ["facts", "--timeout", "600"], None,
                      lambda p: p.stdout.count(b'"schema": "gpudoctor.facts/1"') == n))
        if baseline:
            steps.append(("`gpudoctor facts`, the code before", GD + ["facts", "--timeout", "600"], "base",
                          lambda p: p.stdout.count(b'"schema": "gpudoctor.facts/1"') == n))
        got = dict((s[0], []) for s in steps)
        per_node = []  # CPU_STEP's timings, every node of every round
        subprocess.run(srun + ["true"], env=env, capture_output=True, timeout=300)
        for _ in range(repeat):
            paused()
            for what, cmd, stdin, ok in steps:
                e = baseline_env(env, baseline) if stdin == "base" else in_env[stdin[1]] if isinstance(stdin, tuple) else env
                data = open(stdin, "rb").read() if isinstance(stdin, str) and stdin != "base" else b""
                c0, t0 = our_cpu(), time.perf_counter()
                p = subprocess.run(cmd, input=data, env=e, capture_output=True, timeout=900, cwd=base)
                wall, cpu = time.perf_counter() - t0, our_cpu() - c0
                assert p.returncode == 0 and (ok is None or ok(p)), (what, p.stderr[-800:])
                got[what].append((wall, cpu))
                if what == CPU_STEP:
                    per_node.extend(cpu_timings(p.stdout))
        print("| what runs (%d nodes, load %.0f) | wall (s) | CPU (s, %s) | CPU per node over the floor (ms) |" % (
            n, os.getloadavg()[0], "the benchmark's cgroup" if CGROUP else "whole machine"))
        print("|---|---|---|---|")
        floor = statistics.median(c for _, c in got[steps[0][0]])
        for what, _, _, _ in steps:
            w, cpu = statistics.median(x[0] for x in got[what]), statistics.median(x[1] for x in got[what])
            print("| %s | %.2f | %.2f | %+.1f |" % (what, w, cpu, (cpu - floor) * 1000 / n), flush=True)
        if per_node:
            print("\nCPU of each node's collector (%s), ms, median / 90th percentile of %d nodes x %d rounds:" % (
                CPU_STEP, n, repeat))
            print("| part | median | p90 |\n|---|---|---|")
            for part in sorted(per_node[0], key=lambda k: (k != "before sections", k == "total", k)):
                vals = sorted(d[part] * 1000 for d in per_node if part in d)
                print("| %s | %.2f | %.2f |" % (part, statistics.median(vals), vals[int(len(vals) * 0.9) - 1]))
    finally:
        if job:
            subprocess.run(["scancel", job], env=c.env, capture_output=True)
        c.stop()
        shutil.rmtree(base, ignore_errors=True)


CPU_STEP = "+ the collector run from the environment, CPU per section (a copy of this tree, timed by CPU)"


def cpu_copy(tree, dest):
    """A copy of ``tree``'s gpudoctor package whose collector reports CPU seconds instead of wall
    seconds: ``section_seconds`` each section's (time.process_time: every thread of the process),
    ``duration_s`` [CPU before the first section (the interpreter's start, the stub, unmarshalling
    the modules, their bodies), CPU after the last]. Bench only: the nodes' real collector is not
    changed. None where the code to patch is not there."""
    shutil.copytree(os.path.join(tree, "gpudoctor"), os.path.join(dest, "gpudoctor"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    edits = {"collector/base.py": [("        t0 = time.time()\n        try:\n            data = func(ctx)",
                                    "        t0 = time.process_time()\n        try:\n            data = func(ctx)"),
                                   ("timings[name] = round(time.time() - t0, 4)",
                                    "timings[name] = round(time.process_time() - t0, 5)")],
             "collector/__init__.py": [("    t0 = time.time()\n", "    t0 = time.time()\n    c0 = time.process_time()\n"),
                                       ('"duration_s": round(time.time() - t0, 4)',
                                        '"duration_s": [round(c0, 5), round(time.process_time(), 5)]')]}
    for name, pairs in edits.items():
        path = os.path.join(dest, "gpudoctor", name)
        with open(path) as f:
            text = f.read()
        for a, b in pairs:
            if text.count(a) != 1:
                return None
            text = text.replace(a, b)
        with open(path, "w") as f:
            f.write(text)
    return dest


def cpu_timings(stdout):
    """{part: CPU seconds} of each node that cpu_copy's collector answered, from its frames."""
    import json
    import zlib

    chunks = {}
    for line in stdout.decode("utf-8", "replace").splitlines():
        parts = line.split(": ", 1)[-1].split(" ")
        if len(parts) == 3 and parts[0] == "gpudoctor-chunk":
            chunks.setdefault(parts[1], []).append(parts[2])
    out = []
    for node, data in chunks.items():
        doc = json.loads(zlib.decompress(base64.b64decode("".join(data))))
        c = doc["collector"]
        d = dict(c["section_seconds"])
        d["before sections"], d["total"] = c["duration_s"][0], c["duration_s"][1]
        out.append(d)
    return out


class WideCluster(sshcluster.Cluster):
    """sshcluster nodes past 245: 127.S.B.A."""

    def addr(self, i):
        return "127.%d.%d.%d" % (self.subnet, i // 200, 10 + i % 200)


def bench_ssh(n, repeat):
    c = WideCluster()
    # pdsh forwards no stdin and the bundle (about 200 KB) is past Linux's 128 KiB argument
    # limit: the nodes read it from a file, as from a shared home on a cluster
    path = os.path.join(c.base, "collector.py")
    with open(path, "w") as f:
        f.write(build_script())
    os.chmod(path, 0o644)
    remote = "python3 %s" % path
    for i in range(n):
        c.add("b%d" % (i + 1), env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    c.start()
    try:
        hf = c.hostfile(by_address=True)
        names = ",".join(x["addr"] for x in c.nodes.values())
        gd_cmd = GD + ["facts", "--hosts", hf, "--ssh-config", c.ssh_config, "-j", str(min(n, 256)), "--timeout",
                       "600"]
        subprocess.run(gd_cmd, capture_output=True)  # warm: known_hosts recorded
        env = dict(os.environ, PDSH_SSH_ARGS_APPEND="-F %s -o KexAlgorithms=curve25519-sha256 "
                                                      "-o StrictHostKeyChecking=no" % c.ssh_config)

        short = []

        def facts_ok(p):  # on a loaded 2-core machine a node may miss its deadline: counted, not fatal
            got = p.stdout.count(b"gpudoctor.facts/1")
            assert got >= n * 0.95, (got, p.stderr[-800:])
            if got < n:
                short.append(n - got)

        def ok(p):
            assert p.returncode == 0, p.stderr[-800:]

        pdsh = ["pdsh", "-R", "ssh", "-f", str(n), "-w", names]
        floor = median_of(lambda: timed(pdsh + ["python3 -c pass"], env, ok), repeat)
        gd = median_of(lambda: timed(gd_cmd, None, facts_ok), repeat)
        pd = median_of(lambda: timed(pdsh + [remote], env, facts_ok), repeat)
        row(n, "ssh: `gpudoctor facts --hosts`", "pdsh `python3 -c pass`", gd, floor)
        row(n, "pdsh running the collector", "pdsh `python3 -c pass`", pd, floor)
        if short:
            print("| %d | (runs with nodes missing: %s) | | | | | | | | |" % (n, ", ".join(map(str, short))))
    finally:
        c.cleanup()


def slurm_version():
    """srun --version needs a configuration (SLURM_CONF or DNS SRV) before it prints anything;
    the package's version does not."""
    for cmd in (["dpkg-query", "-W", "-f", "${Version}", "slurm-client"], ["rpm", "-q", "--qf", "%{VERSION}", "slurm"]):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if p.returncode == 0 and p.stdout.strip():
            return "Slurm " + p.stdout.strip()
    return "Slurm ?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="8,64,256")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="srun,ssh")
    ap.add_argument("--baseline", help="srun: also run the gpudoctor of this tree (a `git archive` copy of another "
                                       "commit), interleaved, PYTHONPATH=BASELINE")
    ap.add_argument("--split", action="store_true", help="srun: where the time goes, step by step (machine CPU "
                                                             "per node over the floor), instead of the table")
    ap.add_argument("--gate-load", type=float, help="before each size, wait until the 1-minute load average is at "
                                                    "most this (other work on a shared machine), --gate-wait s at most")
    ap.add_argument("--gate-wait", type=float, default=300.0)
    ap.add_argument("--pause-file", help="before each size, wait while this file exists (a CI run's flag), "
                                         "30 minutes at most, then stop")
    args = ap.parse_args()
    global PAUSE_FILE
    PAUSE_FILE = args.pause_file
    join_cgroup()
    try:
        run(args)
    finally:
        leave_cgroup()
        if os.environ.get("GD_BENCH_BASELINE_CACHE"):
            shutil.rmtree(os.environ["GD_BENCH_BASELINE_CACHE"], ignore_errors=True)


def prepare(baseline):
    """Both gpudoctor trees as an installed copy has them: bytecode compiled (where
    PYTHONDONTWRITEBYTECODE is set, as here, an uncompiled tree compiled every module it imported
    on every run: the `git archive` baseline all of them, this tree the ones edited since its
    __pycache__ was written), and the baseline's collector blob cached in a folder of its own
    (bundle.py keeps one version per cache folder: runs of two versions in turn built the blob
    every time, 45-55 ms of CPU each)."""
    import compileall

    for tree in [os.path.join(HERE, "..")] + ([baseline] if baseline else []):
        compileall.compile_dir(os.path.join(tree, "gpudoctor"), quiet=1)
    if baseline:
        os.environ["GD_BENCH_BASELINE_CACHE"] = tempfile.mkdtemp(prefix="gd-bench-cache-")


def baseline_env(env, baseline):
    return dict(env, PYTHONPATH=baseline, XDG_CACHE_HOME=os.environ["GD_BENCH_BASELINE_CACHE"])


PAUSE_FILE = None  # --pause-file


def paused():
    """Between rounds: wait while --pause-file exists (the cluster stays up, idle)."""
    t0 = time.time()
    while PAUSE_FILE and os.path.exists(PAUSE_FILE) and time.time() - t0 < 1800:
        time.sleep(5)
    if time.time() - t0 > 5:
        print("(paused %.0f s between rounds for %s)" % (time.time() - t0, PAUSE_FILE), flush=True)


def gate(args):
    """Wait for the machine (--pause-file, --gate-load); prints what it waited for and the load then."""
    t0 = time.time()
    while args.pause_file and os.path.exists(args.pause_file):
        if time.time() - t0 > 1800:
            sys.exit("%s still there after 30 minutes: stopped" % args.pause_file)
        time.sleep(5)
    paused = time.time() - t0
    t1 = time.time()
    while args.gate_load is not None and os.getloadavg()[0] > args.gate_load and time.time() - t1 < args.gate_wait:
        time.sleep(5)
    print("(gate at %s UTC: paused %.0f s for %s, waited %.0f s for load <= %s; load now %.1f)" % (
        time.strftime("%H:%M:%S", time.gmtime()), paused, args.pause_file, time.time() - t1, args.gate_load,
        os.getloadavg()[0]), flush=True)


def run(args):
    prepare(args.baseline and os.path.abspath(args.baseline))
    if args.split:
        for n in [int(x) for x in args.sizes.split(",")]:
            gate(args)
            split_srun(n, args.repeat, args.baseline and os.path.abspath(args.baseline))
        return
    load = os.getloadavg()
    print("machine: %s, %d cores, %.1f GiB RAM, Python %s, %s; load before %.2f" % (
        platform.platform(), os.cpu_count(), os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30,
        platform.python_version(), slurm_version(),
        load[0]))
    print("| nodes | what | wall (s) | controller CPU (s) | controller peak RSS (MiB) | floor | floor wall (s) | "
          "floor CPU (s) | floor RSS (MiB) | ratio | all CPU (s): it / floor (%s) | CPU ratio |" % (
              "the benchmark's cgroup" if CGROUP else "whole machine"))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in [int(x) for x in args.sizes.split(",")]:
        gate(args)
        if "srun" in args.only:
            bench_srun(n, args.repeat, args.baseline and os.path.abspath(args.baseline))
        if "ssh" in args.only:
            bench_ssh(n, args.repeat)


if __name__ == "__main__":
    main()
