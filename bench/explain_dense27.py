#!/usr/bin/env python3
"""Time `gpudoctor explain --json` on logs dense in error lines, the shapes a 1,000-node job prints when every rank
fails alike (issue 18: "the 100 MB log stays in seconds"; red team 2026-11-28 session 27: ~2 ms of CPU per error line
in scan._evaluate, 10,000 srun task lines 23 s).

usage: python bench/explain_dense27.py PYTHON [--ranks N] [--save DIR]
  PYTHON: the interpreter whose gpudoctor runs (e.g. .venv/bin/python); --ranks: ranks / tasks per log (default 10000);
  --save DIR: write each log's answer (JSON, elapsed fields removed) to DIR/<shape>.json, to compare two builds.

Every shape is a real text from fixtures/logs multiplied across ranks, with the rank, task, host and pid numbers each
rank would print (deterministic: the same logs on every run):
- srun: `srun: error: vm: task 0: Exited with exit code 1` (fixtures/logs/planted/nccl.socket_ifname__h200x2-no-such-
  interface.log), one line per task, hosts node0001.. (8 tasks a node), as srun prints one per task.
- rank_tb: that log's `[rank0]:` traceback (torch 2.11 / NCCL 2.28.9 on an H200 host), printed by every rank.
- nccl_warn: that log's `vm:1625:1625 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found` and its
  `init.cc:126 -> 5` chain, per rank (host:pid:tid [local rank]).
- glog: that log's `[rank0]:[W1123 00:50:34.425518984 ProcessGroupNCCL.cpp:1575] Warning: ... destroy_process_group()`
  record, per rank, with the failing ranks' `E1123 ... failed (exitcode: 1) local_rank: N` elastic lines.
- mixed: the four above, interleaved rank by rank, as one job's merged output.
Each log ends with the failing rank's traceback tail once (the root the answer must name)."""
import json
import os
import subprocess
import sys
import tempfile
import time

SRC = "fixtures/logs/planted/nccl.socket_ifname__h200x2-no-such-interface.log"
TB = [
    '[rank{r}]: Traceback (most recent call last):',
    '[rank{r}]:   File "/tmp/tiny.py", line 6, in <module>',
    '[rank{r}]:     dist.all_reduce(x)',
    '[rank{r}]:   File "/opt/torch/.venv/lib/python3.12/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper',
    '[rank{r}]:     return func(*args, **kwargs)',
    '[rank{r}]:   File "/opt/torch/.venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 3068, in all_reduce',
    '[rank{r}]:     work = group.allreduce([tensor], opts)',
    '[rank{r}]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3135, '
    'invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.9',
    '[rank{r}]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.',
    '[rank{r}]: Last error:',
    '[rank{r}]: Bootstrap : no socket interface found',
]
WARN = [
    'node{n:04d}:{pid}:{pid} [{lr}] NCCL INFO NCCL_SOCKET_IFNAME set to doesnotexist0',
    '[2026-11-23 00:50:34] node{n:04d}:{pid}:{pid} [{lr}] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found',
    'node{n:04d}:{pid}:{pid} [{lr}] NCCL INFO init.cc:126 -> 5',
    'node{n:04d}:{pid}:{pid} [{lr}] NCCL INFO init.cc:160 -> 5',
]
GLOG = [
    '[rank{r}]:[W1123 00:50:{s:02d}.{us:09d} ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not '
    'called before program exit, which can leak resources. For more info, please see '
    'https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())',
    'E1123 00:50:{s:02d}.{us6:06d} {pp} torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1) '
    'local_rank: {lr} (pid: {pid}) of binary: /opt/torch/.venv/bin/python3',
]
SRUN = ['srun: error: node{n:04d}: task {r}: Exited with exit code 1']


def _lines(tmpl, r):
    n, lr = r // 8 + 1, r % 8
    f = dict(r=r, n=n, lr=lr, pid=1625 + 7 * r, pp=1579 + 13 * n, s=34 + r % 20, us=425518984 + 7919 * r,
             us6=180000 + 31 * r)
    return [t.format(**f) for t in tmpl]


def build(shape, ranks):
    parts = {"srun": [SRUN], "rank_tb": [TB], "nccl_warn": [WARN], "glog": [GLOG],
             "mixed": [WARN, TB, GLOG, SRUN]}[shape]
    out = []
    for r in range(ranks):
        for tmpl in parts:
            out.extend(_lines(tmpl, r))
    out.extend(_lines(TB, 0))
    return "\n".join(out) + "\n"


def _strip(doc):
    """The answer without its timings (elapsed seconds differ between runs)."""
    if isinstance(doc, dict):
        return {k: _strip(v) for k, v in doc.items() if k not in ("elapsed_s", "seconds", "took_s")}
    if isinstance(doc, list):
        return [_strip(v) for v in doc]
    return doc


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    py, ranks, save = argv[0], 10000, None
    rest = argv[1:]
    while rest:
        if rest[0] == "--ranks":
            ranks, rest = int(rest[1]), rest[2:]
        elif rest[0] == "--save":
            save, rest = rest[1], rest[2:]
        else:
            print("unknown argument: %s" % rest[0], file=sys.stderr)
            return 2
    assert os.path.exists(SRC), "run from the repository root (the shapes are read from %s)" % SRC
    with tempfile.TemporaryDirectory() as d:
        for shape in ("srun", "rank_tb", "nccl_warn", "glog", "mixed"):
            path = os.path.join(d, shape + ".log")
            text = build(shape, ranks)
            with open(path, "w") as f:
                f.write(text)
            t0, c0 = time.monotonic(), os.times()
            p = subprocess.run([py, "-m", "gpudoctor", "explain", "--json", "--timeout", "0", "--file", path],
                               capture_output=True, text=True)
            c1 = os.times()
            wall = time.monotonic() - t0
            cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
            doc = json.loads(p.stdout) if p.stdout.strip().startswith("{") else None
            root = (doc or {}).get("root")
            print("%-10s %8d lines %6.1f MB  rc %d  wall %6.2f s  cpu %6.2f s  root %s" % (
                shape, text.count("\n"), len(text) / 1e6, p.returncode, wall, cpu, root if isinstance(root, str) else json.dumps(root)[:60]))
            if save and doc is not None:
                os.makedirs(save, exist_ok=True)
                with open(os.path.join(save, shape + ".json"), "w") as f:
                    json.dump(_strip(doc), f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
