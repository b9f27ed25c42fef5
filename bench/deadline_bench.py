"""Benchmark: how long past its deadline a run that meets a hang ends (the figures the tests used to assert).

    python bench/deadline_bench.py [--runs 3]

The tests (tests/test_probe_local.py, tests/test_timeout.py, tests/test_cluster.py) prove by states that a
deadline ends a run that meets a hang: the hang lasts 300-3600 s and the run returns within the test's generous
deadline, classified (hang, init-hang, timeout). How close to the deadline it ends is a speed, measured here on
the machine at hand (its load printed beside it), never asserted by a test:

- probe, local transport, two nodes whose python3 is `sleep 300` (--budget 4): wall of run.probe and the report's
  own elapsed_s;
- probe, mode nccl, a stand-in torch whose rank hangs in init (tests/fake_torch, FAKE_HANG=init), --budget 7;
- `python -m gpudoctor check --timeout 1 --python HUNG`: the process's wall, interpreter start included;
- `python -m gpudoctor check --fast --timeout 5` with a hung python3 first on PATH (never run: the fast tier
  reads this process only).

Each is printed as: the deadline, the median / max wall over --runs, and wall minus deadline.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _hung(folder, name="python3"):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\nsleep 300 &\nexec sleep 300\n")
    os.chmod(path, 0o755)
    return path


def probe_hang(folder):
    from gpudoctor.probe import launch, run

    t0 = time.time()
    doc = run.probe(["a", "b"], launch.LocalTransport(python=_hung(folder)), mode="tcp", budget=4)
    assert [n["error_kind"] for n in doc["nodes"]] == ["hang", "hang"], doc["nodes"]
    return 4, time.time() - t0, doc["elapsed_s"]


def probe_init_hang(folder):
    from gpudoctor.probe import launch, run

    fake = os.path.join(ROOT, "tests", "fake_torch")
    env = {"n1": {"PYTHONPATH": fake}, "n2": {"PYTHONPATH": fake, "FAKE_HANG": "init"}}
    t0 = time.time()
    doc = run.probe(["n1", "n2"], launch.LocalTransport(), mode="nccl", budget=7, gpus=1, node_env=env)
    assert doc["jobs"][0]["error_kind"] == "init-hang", doc["jobs"]
    return 7, time.time() - t0, doc["elapsed_s"]


def _gd(args, env=None):
    t0 = time.time()
    p = subprocess.run([sys.executable, "-m", "gpudoctor"] + args, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT, **(env or {})))
    return p, time.time() - t0


def check_timeout(folder):
    p, took = _gd(["check", "--timeout", "1", "--python", _hung(folder, "python-hangs"), "--format", "json"])
    assert p.returncode == 1 and '"timeout"' in p.stdout, p.stderr[-500:]
    return 1, took, None


def check_fast(folder):
    _hung(folder)
    p, took = _gd(["check", "--fast", "--timeout", "5", "--format", "json"],
                  env={"PATH": folder + ":" + os.environ.get("PATH", "")})
    assert '"reachable": true' in p.stdout, p.stderr[-500:]
    return 5, took, None


CASES = (("probe --budget 4, two hung python3 (in-process)", probe_hang),
         ("probe nccl --budget 7, a rank hung in init (in-process)", probe_init_hang),
         ("check --timeout 1 --python HUNG (process)", check_timeout),
         ("check --fast --timeout 5, hung python3 on PATH (process)", check_fast))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    print("load (1/5/15 min): %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    for title, fn in CASES:
        walls, own = [], []
        for _ in range(a.runs):
            with tempfile.TemporaryDirectory() as d:
                deadline, wall, elapsed = fn(d)
            walls.append(wall)
            if elapsed is not None:
                own.append(elapsed)
        line = "%-58s deadline %4.1f s  wall median %5.2f max %5.2f  (max - deadline %+5.2f s)" % (
            title, deadline, statistics.median(walls), max(walls), max(walls) - deadline)
        if own:
            line += "  report's elapsed_s max %.2f" % max(own)
        print(line)
    print("load (1/5/15 min): %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
