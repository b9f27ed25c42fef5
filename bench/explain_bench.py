#!/usr/bin/env python3
"""Benchmark `gpudoctor explain` on a large, realistic log.

Generates a log of --mb megabytes (default 100): training progress lines with rank prefixes and
timestamps, NCCL INFO lines (NCCL_DEBUG=INFO), Python warnings, tqdm bars with carriage returns,
ANSI colours and a few bytes of invalid UTF-8 - then buries real error texts from
fixtures/logs/dev/ in it (a root error, its watchdog echo, a ChildFailedError after an OOM). Times
one `explain_file` pass in this process and reports the peak RSS (ru_maxrss).

    python bench/explain_bench.py [--mb 100] [--keep PATH]

Adversarial shapes (issue 23: explain's time is linear in its input), each timed in this
process with its peak RSS:

    python bench/explain_bench.py --shape repeated   # 1,000,000 lines of one NCCL error (35 MB)
    python bench/explain_bench.py --shape longline   # one 10 MB line of 'error ' (no newline in it)
    python bench/explain_bench.py --shape noise      # 500 MB of log noise, streamed (never on disk)
    python bench/explain_bench.py --shape distinct   # 33,000 distinct known message lines (2 MB)
    python bench/explain_bench.py --shape alone      # 100,000 lines of 'rank 0 of 1: step N' (3.3 MB)
    python bench/explain_bench.py --shape progress   # 100 MB of training progress lines (--mb; --no-shapes: before)

`distinct` (issue 18): lines drawn (seeded) from the message sites of
gpudoctor/data/knowledge/generated/*.json, their printf conversions filled (%s a word, %d a number,
%p an address, ...), one message per line with no prefix: every line is a candidate, most of them
different, and each looks like the continuation of the one before (a wrapped message).
"""

import argparse
import os
import random
import re
import resource
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

NOISE = [
    "[rank{r}]:[I{d} 12:{m:02d}:{s:02d}.{us:06d} {pid} train.py:{ln}] step {step} loss={loss:.4f} lr=1.0e-04 "
    "grad_norm={g:.3f} tokens/s={tps}",
    "gpu-node-{n:02d}:{pid}:{tid} [{r}] NCCL INFO Channel {c:02d}/0 : {r}[{r}] -> {r2}[{r2}] via P2P/IPC/read",
    "gpu-node-{n:02d}:{pid}:{tid} [{r}] NCCL INFO comm 0x55cc8aa86c70 rank {r} nranks 16 cudaDev {r} busId 1c000"
    " - Init COMPLETE",
    "2024-03-01 12:{m:02d}:{s:02d},123 - INFO - Epoch 3 | iter {step}/100000 | loss {loss:.4f} | time 0.512s",
    "\x1b[32m[2024-03-01 12:{m:02d}:{s:02d}]\x1b[0m wandb: logging metrics to run abc123 (step {step})",
    "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line {ln}, in _call_impl",
    "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader "
    "will create 16 worker processes in total.",
    "Training:  {p}%|####      | {step}/100000 [01:{s:02d}<02:10, 7.61it/s]\rTraining:  {p}%|#####     | "
    "{step}/100000 [01:{s:02d}<02:09, 7.62it/s]",
]

ERRORS = [
    "nccl.remote_error__nccl-2076-connection-reset-by-peer-ib.log",
    "cascade__monai-model-zoo-685-watchdog-timeout-then-terminate.log",
    "cascade__dformer-52-childfailederror-after-oom.log",
]


def fixture_body(name):
    # development texts only: the held-out set is read by bench/explain_accuracy.py alone
    with open(os.path.join(ROOT, "fixtures", "logs", "dev", name), "rb") as f:
        return f.read().partition(b"# ---\n")[2]


def generate(path, mb, seed=1):
    rnd = random.Random(seed)
    target = mb * 1000 * 1000
    bodies = [fixture_body(n) for n in ERRORS]
    insert_at = sorted(rnd.sample(range(1, 9), len(bodies)))  # in tenths of the file
    size, step, placed = 0, 0, 0
    with open(path, "wb") as f:
        while size < target:
            chunk = []
            for _ in range(2000):
                step += 1
                t = rnd.choice(NOISE)
                chunk.append(t.format(r=step % 8, r2=(step + 1) % 8, d="0301", m=step // 3600 % 60, s=step % 60,
                                      us=step % 999999, pid=4000 + step % 7, tid=5000 + step % 13, ln=step % 900,
                                      step=step, loss=1.0 / (1 + step % 97), g=0.5 + step % 7 / 10.0, tps=12000 + step % 999,
                                      n=step % 16, c=step % 32, p=step % 100))
            data = ("\n".join(chunk) + "\n").encode()
            if step % 50000 < 2000:
                data += b"garbage \xff\xfe\xc3 not utf-8\n"
            f.write(data)
            size += len(data)
            if placed < len(bodies) and size >= target * insert_at[placed] / 10:
                f.write(bodies[placed])
                size += len(bodies[placed])
                placed += 1
    return os.path.getsize(path)


class _Stream:
    """A binary stream of ``size`` bytes made by ``chunk(i)`` as it is read: a large input that
    never sits on disk or in memory whole."""

    def __init__(self, size, chunk):
        self.size, self.chunk, self.done, self.i, self.buf = size, chunk, 0, 0, b""

    def read(self, n=-1):
        while len(self.buf) < n and self.done + len(self.buf) < self.size:
            self.buf += self.chunk(self.i)
            self.i += 1
        take = min(n, self.size - self.done)
        out, self.buf = self.buf[:take], self.buf[take:]
        self.done += len(out)
        return out


def _noise_chunk(i):
    rnd = random.Random(i)
    out = []
    for k in range(2000):
        step = i * 2000 + k
        t = rnd.choice(NOISE)
        out.append(t.format(r=step % 8, r2=(step + 1) % 8, d="0301", m=step // 3600 % 60, s=step % 60,
                            us=step % 999999, pid=4000 + step % 7, tid=5000 + step % 13, ln=step % 900, step=step,
                            loss=1.0 / (1 + step % 97), g=0.5 + step % 7 / 10.0, tps=12000 + step % 999, n=step % 16,
                            c=step % 32, p=step % 100))
    return ("\n".join(out) + "\n").encode()


def _repeated_chunk(i):
    # what 1,000 ranks on 125 nodes print, again and again: one NCCL error, each line with its own
    # rank, host, pid and time
    return b"".join(b"[rank%d]:[E0301 12:%02d:%02d.%06d %d ProcessGroupNCCL.cpp:1] gpu-node-%03d:%d:%d [%d] "
                    b"NCCL error: unhandled system error\n" % (r, r // 60 % 60, r % 60, r, 4000 + r, r // 8,
                                                                4000 + r, 5000 + r, r % 8)
                    for r in range(1000))


_CONV = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?([a-zA-Z%])")
_WORDS = ["eth0", "mlx5_0", "ib0", "/dev/shm/nccl-Ab12", "gpu-node-07", "10.0.0.12", "invalid argument",
          "ncclAllReduce", "rank", "Connection refused", "cuda", "/tmp/x", "tcp", "job 4411"]


def _fill(rnd, text):
    """A site's printf format with its conversions filled."""
    def one(m):
        c = m.group(1)
        if c == "%":
            return "%"
        if c in "diu":
            return str(rnd.randrange(0, 100000))
        if c in "xX":
            return "%x" % rnd.randrange(0, 1 << 32)
        if c == "p":
            return "0x7f%010x" % rnd.randrange(0, 1 << 40)
        if c in "feg":
            return "%.2f" % rnd.random()
        if c == "m":
            return "No such file or directory"
        return rnd.choice(_WORDS)
    return _CONV.sub(one, text).replace("\n", " ").replace("\r", " ")


def distinct_lines(n=33000, seed=1):
    """n message lines drawn from the generated sites (each file's assigned sites, in name order)."""
    from gpudoctor.explain.knowledge import generated_files, read_json

    texts = []
    for path in generated_files():  # (.json and .json.gz, in name order)
        texts.extend(s["text"] for s in read_json(path)["sites"] if s.get("re") and s.get("family") and s.get("text"))
    rnd = random.Random(seed)
    return [_fill(rnd, rnd.choice(texts)) for _ in range(n)]


def _distinct():
    import io

    return io.BytesIO(("\n".join(distinct_lines()) + "\n").encode("utf-8"))


def _rank_alone():
    # a script's own print that it is rank 0 of a world of 1, on every step (what each copy of a job prints when
    # mpirun / srun start processes that never join one world): launchctx keeps the first MAX_ALONE of them
    import io

    return io.BytesIO(b"".join(b"rank 0 of 1: step %d loss 0.%04d\n" % (i, i % 9973) for i in range(100000)))


# Training progress lines as the frameworks print them (perf21: each holds 'throughput' or 'samples/s', a candidate
# line for explain's _meaning/_settings readers, and its digits make every line unique):
# - Megatron-LM's training_log (megatron/training/training.py, https://github.com/NVIDIA/Megatron-LM): ' [%Y-%m-%d
#   %H:%M:%S] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per iteration (ms): {:.1f} | throughput per
#   GPU (TFLOP/s/GPU): {:.1f} | learning rate: {:.6E} | global batch size: {:5d} | lm loss: {:.6E} | loss scale: {:.1f}
#   | grad norm: {:.3f} | number of skipped iterations: {:3d} | number of nan iterations: {:3d} |'
# - transformers' Trainer.log (src/transformers/trainer.py, https://github.com/huggingface/transformers): the logs dict
#   printed as a Python dict, {'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}, and the run's end
#   with speed_metrics' 'train_samples_per_second' / 'train_steps_per_second'
# - DeepSpeed's pipeline engine (deepspeed/runtime/pipe/engine.py, https://github.com/microsoft/DeepSpeed): 'steps: {}
#   loss: {:0.4f} iter time (s): {:0.3f} samples/sec: {:0.3f}'
# - Lightning's TQDM progress bar (src/lightning/pytorch/callbacks/progress/tqdm_progress.py,
#   https://github.com/Lightning-AI/pytorch-lightning): 'Epoch 0:  45%|####5     | 450/1000 [01:23<01:42,
#   5.38it/s, v_num=0, train_loss=2.310]' with its '\r' updates
def _progress_chunk(i):
    rnd = random.Random(i)
    out = []
    for k in range(1000):
        it = i * 1000 + k + 1
        t = "2024-03-01 %02d:%02d:%02d" % (it // 3600 % 24, it // 60 % 60, it % 60)
        kind = k % 10
        if kind < 6:
            out.append(" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                       "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | "
                       "lm loss: %.6E | loss scale: %.1f | grad norm: %.3f | number of skipped iterations: %3d | "
                       "number of nan iterations: %3d |" % (
                           t, it, 500000, it * 1024, 500 + rnd.random() * 40, 180 + rnd.random() * 9,
                           3e-4 * (1 - it / 5e5), 1024, 2 + 5 * rnd.random(), 65536.0, 0.5 + rnd.random(), 0, 0))
        elif kind < 8:
            out.append("{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %.4e, 'epoch': %.2f}" % (
                2 + rnd.random(), 0.5 + rnd.random(), 5e-5 * (1 - it / 5e5), it / 1e4))
            if k == 7:
                out.append("{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, "
                           "'train_loss': %.6f, 'epoch': %.1f}" % (it * 0.5, 30 + rnd.random(), 1 + rnd.random(),
                                                                   2 + rnd.random(), it / 1e4))
        elif kind == 8:
            out.append("steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f" % (
                it, 2 + rnd.random(), 0.4 + rnd.random() / 10, 250 + rnd.random() * 20))
        else:
            a, b = it % 1000, 1000
            out.append("\rEpoch %d:  %d%%|%-10s| %d/%d [01:%02d<01:42, %.2fit/s, v_num=0, train_loss=%.3f]" % (
                it // 1000, a * 100 // b, "#" * (a * 10 // b), a, b, it % 60, 5 + rnd.random(), 2 + rnd.random()))
    return ("\n".join(out) + "\n").encode()


def progress_log(mb=100):
    """A stream of ``mb`` MB of the progress lines above (never on disk)."""
    return _Stream(mb * 1000 * 1000, _progress_chunk)


SHAPES = {
    "progress": lambda: progress_log(_MB[0]),  # progress lines (Megatron-LM, transformers, DeepSpeed, Lightning)
    "alone": _rank_alone,  # 100,000 lines of 'rank 0 of 1' (3.3 MB)
    "distinct": _distinct,
    "repeated": lambda: _Stream(1000 * len(_repeated_chunk(0)), _repeated_chunk),  # 1,000,000 lines
    "longline": lambda: _Stream(10 * 1000 * 1000, lambda i: b"error " * 100000),
    "noise": lambda: _Stream(500 * 1000 * 1000, _noise_chunk),
}


_MB = [100]


def run_shape(name):
    from gpudoctor import explain

    kb = explain.load_knowledge()
    c0 = time.process_time()
    assert kb.prefilters  # compiled once per process (before the clock: the scan's own time is measured)
    print("prefilter regexes compiled in %.2fs CPU (not counted below)" % (time.process_time() - c0))
    stream = SHAPES[name]()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0, c0 = time.perf_counter(), time.process_time()
    res = explain.explain_stream(stream, kb, source=name)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("shape %s: %.1f MB, %d lines" % (name, res["bytes"] / 1e6, res["lines"]))
    print("explain: %.2fs wall, %.2fs CPU (%.1f MB/s of CPU)" % (took, cpu, res["bytes"] / 1e6 / max(cpu, 1e-9)))
    print("peak RSS: %.1f MiB (%.1f MiB before the scan)" % (rss / 1024.0, rss_before / 1024.0))
    print("verdict %s, root %s, stopped early: %s" % (res["verdict"], res["root"], res["stopped_early"]))
    f = res["findings"][0] if res["findings"] else None
    if f:
        print("match count %d; first: %s; spread: %s ranks, %s hosts" % (
            f["match_count"], f.get("origin"), (f.get("spread") or {}).get("ranks"),
            (f.get("spread") or {}).get("hosts")))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--keep", metavar="PATH", help="write the log here and keep it")
    ap.add_argument("--shape", choices=sorted(SHAPES), help="an adversarial shape instead of the realistic log")
    ap.add_argument("--no-shapes", action="store_true",
                    help="turn off the scan's shape cache and the readers' idle budget (perf21): the time before it")
    args = ap.parse_args(argv)
    _MB[0] = args.mb
    if args.no_shapes:
        from gpudoctor.explain import scan

        scan.SHAPES = False
    if args.shape:
        return run_shape(args.shape)
    path = args.keep or os.path.join(tempfile.mkdtemp(prefix="gpudoctor-bench-"), "train.log")
    t0 = time.perf_counter()
    size = generate(path, args.mb)
    gen = time.perf_counter() - t0
    from gpudoctor import explain

    t0 = time.perf_counter()
    kb = explain.load_knowledge()
    load = time.perf_counter() - t0
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0, c0 = time.perf_counter(), time.process_time()
    res = explain.explain_file(path, kb)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print("log: %.1f MB, %d lines (generated in %.1fs)" % (size / 1e6, res["lines"], gen))
    print("knowledge: %d entries loaded in %.3fs" % (len(kb.entries), load))
    print("explain: %.2fs wall (%.0f MB/s), %.2fs CPU" % (took, size / 1e6 / took, cpu))
    print("peak RSS: %.1f MiB (%.1f MiB before the scan)" % (rss / 1024.0, rss_before / 1024.0))
    print("root: %s; also: %s" % (res["root"], ", ".join("%s (%s)" % (f["id"], f["role"]) for f in res["findings"][1:])))
    if not args.keep:
        os.unlink(path)
        os.rmdir(os.path.dirname(path))
    return 0 if res["root"] == "nccl.remote_error" else 1


if __name__ == "__main__":
    sys.exit(main())
