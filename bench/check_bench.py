"""Benchmark: `gpudoctor check` on the local machine, as a scheduler prolog runs it.

Prints the median wall time of N cold runs (each a fresh process, as a prolog starts it),
the collector's own time (from the facts' collector.duration_s), and peak RSS; when torch
is installed, the same for `python -m torch.utils.collect_env` side by side.

    python bench/check_bench.py [-n 15] [--fast]
    python bench/check_bench.py --nvml-floor [-n 11]

``--nvml-floor``: the prolog tier (`gpudoctor check --fast`) against its floor, run interleaved
(floor, check, floor, check, ...: both see the same machine state): a fresh process that
starts Python, initialises NVML and reads each GPU's name, memory, compute capability and
UUID, and nothing else. Prints both medians, their ratio, and where the rest goes (the
slowest top-level imports of `check --fast`, from `-X importtime`).

CPU is wait4's: the process and the children it waited for, so `check --fast` on a GPU node
counts the two children that collect its facts (gpudoctor/early.py). Install pynvml with its
bytecode compiled (a wheel and `python -m compileall`, as any real install has it), or both
sides pay for compiling pynvml.py on every run.
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


NVML_FLOOR = """import pynvml as n
n.nvmlInit()
for i in range(n.nvmlDeviceGetCount()):
    h = n.nvmlDeviceGetHandleByIndex(i)
    n.nvmlDeviceGetName(h), n.nvmlDeviceGetMemoryInfo(h), n.nvmlDeviceGetCudaComputeCapability(h), n.nvmlDeviceGetUUID(h)
n.nvmlShutdown()
"""


def nvml_floor(n):
    check = [sys.executable, "-m", "gpudoctor", "check", "--fast", "--json"]
    floor = [sys.executable, "-c", NVML_FLOOR]
    a, b = [], []
    measure(check, 1)  # warm: bytecode written, page cache
    for i in range(n):
        pair = [(floor, a), (check, b)] if i % 2 == 0 else [(check, b), (floor, a)]
        for argv, into in pair:
            res, out = measure(argv, 1)
            into.append(res)
    fa, cb = statistics.median(r["median_s"] for r in a), statistics.median(r["median_s"] for r in b)
    rep = json.loads(out if out.startswith(b"{") else measure(check, 1)[1])
    gpus = [g.get("gpus") for g in [(x.get("profile") or {}) for x in rep.get("nodes", [])]]
    print("machine: %s, %d cores, Python %s; GPUs: %s" % (platform.platform(), os.cpu_count(),
                                                         platform.python_version(), gpus))
    # the ratio of the medians, and the median of each pair's ratio: the floor itself moves by
    # 10-20% between runs of 11 pairs on the H100 node, and a pair sees one machine state
    pairs = statistics.median(y["median_s"] / x["median_s"] for x, y in zip(a, b))
    print("NVML floor: median %.3f s (CPU %.3f s); gpudoctor check --fast: median %.3f s (CPU %.3f s); "
          "ratio %.2fx over %d interleaved pairs (median of the pairs' ratios %.2fx); exit %s" % (
              fa, statistics.median(r["cpu_s_median"] for r in a), cb, statistics.median(r["cpu_s_median"] for r in b),
              cb / fa, n, pairs, rep.get("summary", {}).get("exit_code")))
    p = subprocess.run(check[:1] + ["-X", "importtime"] + check[1:], capture_output=True, text=True)
    top = []
    for line in p.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit() and not parts[2].startswith("  "):
            top.append((int(parts[1]), parts[2].strip()))
    print("slowest top-level imports of check --fast (cumulative ms): " + ", ".join(
        "%s %.1f" % (name, us / 1000.0) for us, name in sorted(top, reverse=True)[:8]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=15)
    ap.add_argument("--fast", action="store_true", help="the prolog tier (check --fast)")
    ap.add_argument("--nvml-floor", action="store_true", help="check --fast against the NVML floor, interleaved")
    args = ap.parse_args()
    if args.nvml_floor:
        nvml_floor(args.n)
        return
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
