"""Benchmark: what keeping history costs the Slurm hooks (docs/history.md, docs/benchmarks.md).

1. The prolog's command with and without history: `gpudoctor check --fast --json` (what
   `slurm-health --fast` runs before it talks to scontrol), N cold processes each,
   alternating, history into a fresh state directory; median wall time and its difference.
2. The history step alone, in process, on this machine's real facts: annotate the report
   from the last passing run and record the run (two fsynced writes), N times.
3. Bytes: the state directory after R runs of one node whose facts change every K-th run,
   against the bound (history_states, history_bytes per node), and after a real GPU node's
   facts (fixtures/nodes/h100-...-deep.json, the largest facts document we have).

    python bench/history_bench.py [-n 21] [--runs 500]
"""

import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cold(argv, n):
    walls = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
    return walls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=21)
    ap.add_argument("--runs", type=int, default=500)
    args = ap.parse_args()
    sys.path.insert(0, ROOT)
    from gpudoctor import history
    from gpudoctor.collector import Context, collect
    from gpudoctor.config import Config
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import Node, run_checks

    doc = collect(Context(python=None, options={"nvidia_smi": False}))
    print("machine: %s, %d cores, Python %s, %s" % (platform.platform(), os.cpu_count(), platform.python_version(),
                                                  doc["host"].get("os_pretty")))
    tmp = tempfile.mkdtemp(prefix="gpudoctor-history-bench-")
    base = [sys.executable, "-m", "gpudoctor", "check", "--fast", "--json"]
    off, on = [], []
    for i in range(args.n):  # alternate, so load on the machine falls on both alike
        off += cold(base + ["--no-history"], 1)
        on += cold(base + ["--history", "--state-dir", os.path.join(tmp, "cold")], 1)
    mo, mn = statistics.median(off), statistics.median(on)
    print("check --fast, cold process: without history median %.3f s, with history %.3f s (+%.1f ms) over %d runs "
          "each" % (mo, mn, (mn - mo) * 1000, args.n))

    checks = list(load_checks())
    store = history.Store.open(os.path.join(tmp, "warm"))
    store.current_key_id = store.key_id
    times = []
    for i in range(args.n):
        report = run_checks([Node(host="bench01", facts=doc)], checks, Config())
        t0 = time.perf_counter()
        history.after_run(report, store, checks, warn=print)
        times.append(time.perf_counter() - t0)
    print("history step in process (annotate + record, fsynced): median %.1f ms, max %.1f ms over %d runs" % (
        statistics.median(times) * 1000, max(times) * 1000, args.n))

    for name, facts in (("this machine", doc),
                        ("h100 deep facts", json.load(open(os.path.join(ROOT, "fixtures", "nodes",
                                                                        "h100-ubuntu2404-torch211-deep.json"))))):
        s = history.Store.open(os.path.join(tmp, "bytes-" + name.replace(" ", "_")))
        facts = copy.deepcopy(facts)
        t0 = time.perf_counter()
        for i in range(args.runs):
            if i % 10 == 0:  # a new facts state every 10th run (a package, a variable, a limit)
                facts.setdefault("env", {"status": "ok"}).setdefault("values", {})["NCCL_BENCH"] = str(i)
            facts["collected_at"] = "2026-11-%02dT%02d:%02d:00Z" % (1 + i // 1440, (i // 60) % 24, i % 60)
            s.record("bench01", facts, passed=(i % 3 != 0), verdicts={c.id: ("pass", "evidence of %s" % c.id)
                                                                      for c in checks})
        el = time.perf_counter() - t0
        nodes, files, size = s.usage()
        one = len(json.dumps(facts, sort_keys=True, separators=(",", ":")))
        print("%s: one facts document %.1f KiB; after %d runs (%d facts states): %d files, %.1f KiB on disk "
              "(bound: %d states, %d runs, %.0f KiB per node); %.1f ms per recorded run" % (
                  name, one / 1024.0, args.runs, args.runs // 10, files, size / 1024.0, s.max_states, s.max_runs,
                  s.max_node_bytes / 1024.0, el / args.runs * 1000))
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
