"""Plant collective bugs on a 2-GPU machine with NCCL and keep what torch prints and what its
Flight Recorder dumps (issue 18 item 4): a rank that skips a collective, ranks that call
different collectives, and a healthy run. NCCL needs one GPU per rank (two ranks on one GPU stop
at init, 'Duplicate GPU detected': bench/plant_h100.py), so these need two GPUs.

    OUT=/tmp/planted python3 bench/plant_h100x2.py            # every scenario
    OUT=/tmp/planted python3 bench/plant_h100x2.py nccl_skip   # only the names given
    BACKEND=gloo OUT=/tmp/dry /tmp/tv/bin/python bench/plant_h100x2.py   # a dry run on CPUs

Each scenario runs `torchrun --nproc_per_node 2` under coreutils `timeout` (which signals the
whole process group, so no rank outlives its run); its stdout+stderr go to <out>/logs/<name>.log
and the ranks' dumps to <out>/logs/<name>/nccl_trace_rank_<rank>. The recorder is turned on the
way PyTorch's Flight Recorder tutorial says
(https://docs.pytorch.org/tutorials/prototype/flight_recorder_tutorial.html), with the names
torch reads in torch/csrc/distributed/c10d/FlightRecorder.hpp / .cpp (buffer size:
TORCH_FR_BUFFER_SIZE, else TORCH_NCCL_TRACE_BUFFER_SIZE; dump prefix: TORCH_FR_DUMP_TEMP_FILE,
else TORCH_NCCL_DEBUG_INFO_TEMP_FILE, default ~/.cache/torch/comm_lib_trace_rank_ in recent
releases) and ProcessGroupNCCL.hpp (TORCH_NCCL_DUMP_ON_TIMEOUT; after a timeout the watchdog
writes the dump signal to the TCPStore, every rank's monitor thread writes its dump, and the
watchdog waits 4 x TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC before it ends the process). Both names
of each variable are set. NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 are set if
absent and never unset (NVLink multicast must stay off on the shared machines).

Helpers (the torchrun command line, the runner, the machine's facts) come from
bench/plant_h100.py. Everything is packed into <out>/planted_x2.tar.gz.
"""

import glob
import json
import os
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plant_h100 import facts, run_one, torchrun  # noqa: E402

PG_TIMEOUT_S = 15  # the process group's collective timeout
WAIT_DUMP_MS = 3000  # the watchdog then waits 4 x this for the dumps before it ends the process

# common to the programs: one GPU per rank with NCCL, CPUs with gloo (the dry run)
_HEAD = r'''
import datetime, os, sys, time, torch, torch.distributed as dist
BACKEND = os.environ.get("BACKEND", "nccl")
local = int(os.environ["LOCAL_RANK"])
if BACKEND == "nccl":
    torch.cuda.set_device(local)
dev = "cuda" if BACKEND == "nccl" else "cpu"
dist.init_process_group(BACKEND, timeout=datetime.timedelta(seconds=int(os.environ["PG_TIMEOUT_S"])))
rank = dist.get_rank()


def train_step(step):
    g = torch.full((1 << 16,), float(step), device=dev)  # the gradients
    dist.all_reduce(g)
    return g


def dump_if_none(wait_s):
    """The dump the watchdog writes on a timeout (TORCH_NCCL_DUMP_ON_TIMEOUT), else after wait_s
    the same trace written here, so that a run without a timeout (gloo, or NCCL completing a
    mismatched pair) still leaves one; the log says which."""
    if not os.environ.get("TORCH_FR_DUMP_TEMP_FILE"):  # the run with torch's defaults: no fallback
        time.sleep(wait_s)
        return
    path = os.environ["TORCH_FR_DUMP_TEMP_FILE"] + str(rank)
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        if os.path.exists(path):
            return
        time.sleep(0.5)
    c10d = torch._C._distributed_c10d
    fn = getattr(c10d, "_dump_fr_trace", None) or getattr(c10d, "_dump_nccl_trace")
    with open(path, "wb") as f:
        f.write(fn())
    print("rank %d: no watchdog dump after %d s: wrote the recorder's trace by hand to %s"
          % (rank, wait_s, path), flush=True)
'''

PROGS = {
    # evaluation on rank 0 only, and evaluate() averages its metric with an all_reduce: rank 0
    # waits in that all_reduce, which rank 1 never calls (rank 1 goes on with work that calls no
    # collective: here a sleep standing for its next batch / a checkpoint)
    "skip_eval.py": _HEAD + r'''
for step in range(1, 6):
    train_step(step)
    if rank == 0 and step % 5 == 0:
        print("rank 0: evaluating", flush=True)
        metric = torch.tensor([0.25], device=dev)
        dist.all_reduce(metric)  # the bug: only rank 0 gets here
        print("rank 0: eval metric", metric.item(), flush=True)
print("rank %d: training done" % rank, flush=True)
if rank == 1:
    dump_if_none(int(os.environ["PG_TIMEOUT_S"]) + 40)
    time.sleep(60)
else:
    torch.cuda.synchronize() if dev == "cuda" else None
    dump_if_none(40)
dist.destroy_process_group()
''',
    # at step 3 the ranks call different collectives (op) or one all_reduce with sizes that
    # differ (size: a last batch of another size on one rank)
    "mismatch.py": _HEAD + r'''
what = sys.argv[1]
for step in range(1, 5):
    if step == 3 and what == "op":
        t = torch.ones(1 << 16, device=dev)
        if rank == 0:
            dist.all_reduce(t)
        else:
            dist.broadcast(t, src=0)
    elif step == 3 and what == "size":
        dist.all_reduce(torch.ones((1 << 16) if rank == 0 else (1 << 20), device=dev))
    else:
        train_step(step)
    print("rank %d: step %d enqueued" % (rank, step), flush=True)
if dev == "cuda":
    torch.cuda.synchronize()
print("rank %d: all steps done" % rank, flush=True)
dump_if_none(int(os.environ["PG_TIMEOUT_S"]) + 20)
dist.destroy_process_group()
''',
    "healthy.py": _HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 8)).to(dev),
            device_ids=[local] if dev == "cuda" else None)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    loss = model(torch.randn(32, 64, device=dev)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print("step %d loss %.4f" % (step, loss.item()), flush=True)
x = torch.ones(1 << 20, device=dev)
dist.all_reduce(x)
print("rank", rank, "all_reduce ok", x[0].item(), flush=True)
dist.destroy_process_group()
''',
}


def scenarios(d, dumps):
    """name: (shell command, extra env, timeout s, group): the shell string runs torchrun under
    `timeout`, which kills the whole process group (run_one's own timeout kills only its child)."""
    p = lambda name: os.path.join(d, name)  # noqa: E731

    def tr(port, prog, *args, limit=75):
        cmd = " ".join(torchrun(2, port, p(prog), *args))
        return "ulimit -c 0; exec timeout -k 5 %d %s" % (limit, cmd)  # no core files from an abort

    def rec(name):
        os.makedirs(os.path.join(dumps, name), exist_ok=True)
        prefix = os.path.join(dumps, name, "nccl_trace_rank_")
        return {"TORCH_NCCL_TRACE_BUFFER_SIZE": "2000", "TORCH_FR_BUFFER_SIZE": "2000",
                "TORCH_NCCL_DUMP_ON_TIMEOUT": "1", "TORCH_NCCL_ENABLE_MONITORING": "1",
                "TORCH_FR_DUMP_TEMP_FILE": prefix, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": prefix,
                "TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC": str(WAIT_DUMP_MS)}

    # the same bug with none of the recorder's variables: where (if anywhere) this torch writes
    # dumps by default (recent releases: TORCH_NCCL_DUMP_ON_TIMEOUT defaults to true, the buffer
    # to 2000 entries, the prefix to $XDG_CACHE_HOME or ~/.cache, then torch/comm_lib_trace_rank_)
    home = os.path.join(dumps, "nccl_skip_eval_defaults")
    os.makedirs(home, exist_ok=True)
    defaults = {"HOME": os.path.join(home, "home"), "XDG_CACHE_HOME": os.path.join(home, "cache")}
    return {
        "nccl_skip_eval": (tr(29711, "skip_eval.py"), rec("nccl_skip_eval"), 85, "gpu"),
        "nccl_mismatch_op": (tr(29712, "mismatch.py", "op"), rec("nccl_mismatch_op"), 85, "gpu"),
        "nccl_mismatch_size": (tr(29713, "mismatch.py", "size"), rec("nccl_mismatch_size"), 85, "gpu"),
        "healthy_nccl_2gpu": (tr(29714, "healthy.py", limit=60), {"NCCL_DEBUG": "INFO"}, 70, "gpu"),
        "nccl_skip_eval_defaults": (tr(29715, "skip_eval.py"), defaults, 85, "gpu"),
    }


def main():
    out = os.environ.get("OUT") or "/tmp/planted"
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # the machine's rule: multicast stays off
    os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
    os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")
    os.environ["PG_TIMEOUT_S"] = str(PG_TIMEOUT_S)
    d = tempfile.mkdtemp(prefix="plantx2-")
    for name, src in PROGS.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(src.lstrip())
    all_sc = scenarios(d, logs)
    want = sys.argv[1:] or list(all_sc)
    info = facts()
    info["backend"] = os.environ.get("BACKEND", "nccl")
    try:  # which recorder variables the installed torch knows (its shared libraries' strings)
        import re

        import torch
        names = set()
        for lib in glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch*.so")):
            with open(lib, "rb") as f:
                names.update(re.findall(rb"TORCH_(?:FR|NCCL)_[A-Z_]*(?:FILE|DUMP|BUFFER_SIZE)[A-Z_]*", f.read()))
        info["recorder_variables_in_torch"] = sorted(n.decode() for n in names)
    except Exception as exc:  # noqa: BLE001 - recorded as a fact
        info["recorder_variables_in_torch"] = "unavailable: %s" % exc
    results = []
    for name in want:  # one at a time: each uses both GPUs
        results.append(run_one(name, all_sc[name], logs))
        where = os.path.join(logs, name)
        results[-1]["dumps"] = sorted(os.path.relpath(os.path.join(r, f), where) for r, _, fs in os.walk(where)
                                      for f in fs) if os.path.isdir(where) else None
        results[-1]["tmp_nccl_trace"] = sorted(glob.glob("/tmp/nccl_trace_rank_*"))  # an older default prefix
        print(results[-1], flush=True)
        # after each run, so that a command stopped at its limit still brings back what ran
        with open(os.path.join(logs, "manifest.json"), "w") as f:
            json.dump({"facts": info, "scenarios": results, "programs": PROGS}, f, indent=1)
        with tarfile.open(os.path.join(out, "planted_x2.tar.gz"), "w:gz") as tar:
            tar.add(logs, arcname="planted_x2")
    print("wrote", os.path.join(out, "planted_x2.tar.gz"))


if __name__ == "__main__":
    main()
