#!/usr/bin/env python3
"""Time `gpudoctor explain --json` on logs DENSE in error lines as an N-rank job prints them (issue 18: "the 100 MB
log stays in seconds"; red team session 29: 40,000 random error lines of 10 shapes, 2.2 MB, took 125 s).

usage: python bench/explain_dense_lines29.py PYTHON [--ranks N[,N...]] [--shapes a,b] [--save DIR]
  PYTHON: the interpreter whose gpudoctor runs (e.g. .venv/bin/python; PYTHONPATH picks another tree);
  --ranks: ranks per log (default 64,256,1024,4096); --shapes: which logs (default all); --save DIR: each log's
  answer (JSON, elapsed fields removed) to DIR/<shape>-<N>.json, to compare two builds.

Prints per log: lines, MB, exit code, wall and CPU seconds of the whole command (start-up included), peak RSS of the
child, microseconds of CPU per line, and the answer's root. Every shape is a real text multiplied across ranks with the
rank, pid, host, address and time each rank would print (deterministic: a seeded order, the same logs every run):
- watchdog: torch's ProcessGroupNCCL watchdog line per rank, '[rankR]:[E626 ...] [Rank R] Watchdog caught collective
  operation timeout: WorkNCCL(SeqNum=808, ...) ran for 6000NN milliseconds' (fixtures/logs/heldout/nccl.timeout__
  basicsr-737-allreduce-watchdog.log), then torchrun's ChildFailedError block once per node.
- ib_bare: NCCL's 'NET/IB : Got completion from peer <addr><port> with error 12, opcode 0, len 0, vendor err 129'
  (fixtures/logs/heldout/rdma.gid_index__pytorch-81628-completion-error-12-gid-index.log) as each rank prints it,
  'host:pid:tid [lr] transport/net_ib.cc:NNNN NCCL WARN ...', the lines of all ranks in a seeded random order.
- bare_mixed: the ranks' unprefixed exception lines (torchrun without --tee / srun without -l) merged in a seeded
  random order: CUDA OOM (fixtures/logs/dev/cascade__dformer-52-childfailederror-after-oom.log's issue), NCCL's
  DistBackendError, the IB completion error, srun's task line; each reads the next ones as its wrapped continuation.
- redteam29: the red team's 10 shapes (traceback head, AttributeError, NCCL WARN Bootstrap, CUDA OOM, ibv_reg_mr,
  srun task, Munge, Xid, slurmstepd CANCELLED, DistBackendError), 10 random lines per rank (N=4096: 40,960 lines,
  the red team's 2.2 MB log)."""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

WATCHDOG = ("[rank{r}]:[E626 06:24:{s:02d}.{ns:09d} ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, "
            "Timeout(ms)=600000) ran for {ms} milliseconds before timing out.")
CHILD = [
    "Traceback (most recent call last):",
    '  File "/opt/conda/bin/torchrun", line 8, in <module>',
    "    sys.exit(main())",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "train.py FAILED",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-06-26_06:34:{s:02d}",
    "  host      : node{n:04d}",
    "  rank      : {r} (local_rank: 0)",
    "  exitcode  : -6 (pid: {pid})",
    "  error_file: <N/A>",
    "  traceback : Signal 6 (SIGABRT) received by PID {pid}",
    "============================================================",
]
IB = ("node{n:04d}:{pid}:{tid} [{lr}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
      "10.{a}.{b}.{c}<{port}> with error 12, opcode 0, len 0, vendor err 129")
BARE = [
    "RuntimeError: CUDA error: out of memory",
    "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
    "{line}, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
    "NCCL WARN NET/IB : Got completion from peer 10.{a}.{b}.{c}<{port}> with error 12, opcode 0, len 0, vendor err 129",
    "srun: error: node{n:04d}: task {r}: Exited with exit code 1",
]
RED = [
    "[rank{r}]: Traceback (most recent call last):",
    "AttributeError: 'tuple' object has no attribute 'x{x}'",
    "NCCL WARN Bootstrap : no socket interface found",
    "RuntimeError: CUDA error: out of memory",
    "ibv_reg_mr failed errno={e}",
    "srun: error: sn{n}: task {r}: Exited with exit code 1",
    "Munge decode failed: Invalid credential {x}",
    "NVRM: Xid (PCI:0000:{bus:02x}:00): {xid}, pid={pid}",
    "slurmstepd: error: *** JOB {job} ON sn{n} CANCELLED AT 2026-11-28T03:18:{s:02d} ***",
    "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
    "{line}, unhandled system error",
]
SHAPES = ("watchdog", "ib_bare", "bare_mixed", "redteam29")


def _fields(r, rng):
    n, lr = r // 8 + 1, r % 8
    pid = 1625 + 7 * r
    return dict(r=r, n=n, lr=lr, pid=pid, tid=pid + 12, s=rng.randrange(60), ns=rng.randrange(10 ** 9),
                ms=600000 + rng.randrange(100), a=n // 250, b=n % 250, c=10 + lr, port=30000 + rng.randrange(30000),
                line=rng.choice((135, 1970, 3135)), x=rng.randrange(200), e=rng.randrange(100),
                bus=rng.randrange(256), xid=rng.choice((13, 31, 48, 63, 74, 75, 79, 94)), job=rng.randrange(1000))


def build(shape, ranks):
    rng = random.Random(29)
    out = []
    if shape == "watchdog":
        for r in range(ranks):
            out.append(WATCHDOG.format(**_fields(r, rng)))
        for n in range(0, ranks, 8):
            f = _fields(n, rng)
            out.extend(t.format(**f) for t in CHILD)
    elif shape == "ib_bare":
        out = [IB.format(**_fields(r, rng)) for r in range(ranks) for _ in range(4)]
        rng.shuffle(out)
    elif shape == "bare_mixed":
        out = [t.format(**_fields(r, rng)) for r in range(ranks) for t in BARE]
        rng.shuffle(out)
    elif shape == "redteam29":
        out = [rng.choice(RED).format(**_fields(rng.randrange(ranks), rng)) for _ in range(10 * ranks)]
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
    py, ranks, shapes, save = argv[0], [64, 256, 1024, 4096], list(SHAPES), None
    rest = argv[1:]
    while rest:
        if rest[0] == "--ranks" and len(rest) > 1:
            ranks, rest = [int(x) for x in rest[1].split(",")], rest[2:]
        elif rest[0] == "--shapes" and len(rest) > 1:
            shapes, rest = rest[1].split(","), rest[2:]
        elif rest[0] == "--save" and len(rest) > 1:
            save, rest = rest[1], rest[2:]
        else:
            print("unknown argument: %s" % rest[0], file=sys.stderr)
            return 2
    print("load average at start: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
    with tempfile.TemporaryDirectory() as d:
        for shape in shapes:
            for n in ranks:
                path = os.path.join(d, "%s-%d.log" % (shape, n))
                text = build(shape, n)
                with open(path, "w") as f:
                    f.write(text)
                t0, c0 = time.monotonic(), os.times()
                # peak RSS of the child: GNU time's %M where present, else resource's (all children so far)
                p = subprocess.run([py, "-m", "gpudoctor", "explain", "--json", "--timeout", "0", "--file", path],
                                   capture_output=True, text=True)
                c1 = os.times()
                wall = time.monotonic() - t0
                cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
                import resource

                rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
                doc = json.loads(p.stdout) if p.stdout.strip().startswith("{") else None
                root = (doc or {}).get("root")
                lines = text.count("\n")
                print("%-10s N=%-5d %7d lines %5.1f MB rc %d wall %6.2f s cpu %6.2f s rss<=%4.0f MB %6.0f us/line  %s" % (
                    shape, n, lines, len(text) / 1e6, p.returncode, wall, cpu, rss, 1e6 * cpu / lines,
                    (root if isinstance(root, str) else json.dumps(root))[:60]), flush=True)
                if save and doc is not None:
                    os.makedirs(save, exist_ok=True)
                    with open(os.path.join(save, "%s-%d.json" % (shape, n)), "w") as f:
                        json.dump(_strip(doc), f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
