"""`gpudoctor check --facts DIR` over N recorded nodes: wall time and peak RSS of the whole
command (reading the facts, running every check, aggregating, rendering the text report).

    python bench/runner_bench.py [--nodes 1024] [--repeat 3]

The nodes are copies of the real H100 capture (fixtures/nodes/h100-ubuntu2404-torch211.json)
under distinct names, with one node in 64 given other values (an older torch, a missing
GPU) so the drift checks have minorities to fold. Results go in docs/benchmarks.md with the
machine they were taken on."""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_cluster(folder, n):
    with open(os.path.join(ROOT, "fixtures", "nodes", "h100-ubuntu2404-torch211.json")) as f:
        base = json.load(f)
    for i in range(1, n + 1):
        doc = json.loads(json.dumps(base))
        doc["node"] = "gpu%04d" % i
        if i % 64 == 0:
            doc["python"]["packages"]["torch"] = "2.10.0"
            doc["gpu"]["gpus"] = []
        with open(os.path.join(folder, "gpu%04d.json" % i), "w") as f:
            json.dump(doc, f)


def run_once(folder):
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", folder, "-o", os.devnull],
                       cwd=folder, env=dict(os.environ, PYTHONPATH=ROOT))
    wall = time.perf_counter() - t0
    assert p.returncode in (0, 1), p.returncode
    return wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        make_cluster(d, args.nodes)
        walls = [run_once(d) for _ in range(args.repeat)]
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    print("check --facts over %d nodes: median %.2f s (min %.2f, max %.2f, %d runs), peak RSS %.0f MiB"
          % (args.nodes, statistics.median(walls), min(walls), max(walls), len(walls), rss))


if __name__ == "__main__":
    main()
