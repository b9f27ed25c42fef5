"""Benchmark: `gpudoctor check` on the local machine, as a scheduler prolog runs it.

Prints the median wall time of N cold runs (each a fresh process, as a prolog starts it),
the collector's own time (from the facts' collector.duration_s), and peak RSS; when torch
is installed, the same for `python -m torch.utils.collect_env` side by side.

    python bench/check_bench.py [-n 15] [--fast]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time


def measure(argv, n):
    walls, rss, cpu = [], [], []
    for _ in range(n):
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t0)
        rss.append(usage.ru_maxrss / 1024.0)  # KiB -> MiB
        cpu.append(usage.ru_utime + usage.ru_stime)
    return {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
            "cpu_s_median": statistics.median(cpu), "peak_rss_mib": max(rss)}, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=15)
    ap.add_argument("--fast", action="store_true", help="the prolog tier (check --fast)")
    args = ap.parse_args()
    base = [sys.executable, "-m", "gpudoctor"]
    check = base + ["check", "--json"] + (["--fast"] if args.fast else [])
    res, _ = measure(check, args.n)
    _, facts_out = measure(base + ["facts"], 3)
    facts = json.loads(facts_out)
    print("machine: %s, %d cores, Python %s, %s" % (platform.platform(), os.cpu_count(), platform.python_version(),
                                                  facts["host"].get("os_pretty")))
    print("gpudoctor check%s: median %.3f s (min %.3f, max %.3f) over %d cold runs; CPU %.3f s; peak RSS %.1f MiB" % (
        " --fast" if args.fast else "", res["median_s"], res["min_s"], res["max_s"], args.n, res["cpu_s_median"],
        res["peak_rss_mib"]))
    secs = facts["collector"]["section_seconds"]
    print("collector: %.3f s in-process; slowest sections: %s" % (
        facts["collector"]["duration_s"], ", ".join("%s %.3f" % kv for kv in sorted(secs.items(), key=lambda kv: -kv[1])[:4])))
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch not installed here: python -m torch.utils.collect_env not measured")
        return
    ce, _ = measure([sys.executable, "-m", "torch.utils.collect_env"], max(3, args.n // 3))
    print("python -m torch.utils.collect_env: median %.3f s; CPU %.3f s; peak RSS %.1f MiB" % (
        ce["median_s"], ce["cpu_s_median"], ce["peak_rss_mib"]))


if __name__ == "__main__":
    main()
