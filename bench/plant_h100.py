"""Plant failures whose cause is in the user's code or data on a one-GPU machine and keep what
torch prints (issue 18): each scenario is a tiny torch program, its stdout and stderr go
verbatim to <out>/<name>.log; a manifest (command, exit status, seconds) and the machine's facts
go beside them, and everything is packed into <out>/planted.tar.gz (the device tool brings back
at most 8 files).

    OUT=/tmp/planted python3 bench/plant_h100.py            # every scenario
    OUT=/tmp/planted python3 bench/plant_h100.py gloo_size   # only the names given

Two ranks run under torchrun on the one GPU where the backend allows it (gloo on CPU); NCCL
with two ranks on one GPU stops at init ('Duplicate GPU detected'), which is kept too. The
environment is passed on as it is (NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 stay
set). The logs in fixtures/explain/planted-h100-2026-11-25/ were made with this script.
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time

PROGS = {
    # a classifier whose labels include a class id >= num_classes (cross_entropy's nll kernel
    # asserts `t >= 0 && t < n_classes`)
    "ce_labels.py": r'''
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
model = nn.Linear(32, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(16, 32, device="cuda")
    y = torch.randint(0, 10, (16,), device="cuda")
    if step == 2:
        y[5] = 10  # a label out of range: 10 classes are 0..9
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, "loss", round(loss.item(), 4), flush=True)
''',
    # an index out of range in an embedding lookup (index_select's kernel asserts)
    "embedding_oob.py": r'''
import torch, torch.nn as nn
emb = nn.Embedding(1000, 64).cuda()
tokens = torch.randint(0, 1000, (4, 128), device="cuda")
tokens[2, 7] = 1003  # a token id past the vocabulary
out = emb(tokens).sum()
print("sum", out.item(), flush=True)
''',
    # a Triton kernel that stores without a mask, far past its buffer
    "triton_oob.py": r'''
import torch, triton, triton.language as tl

@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs * 4096 + (1 << 36), x * 2)  # no mask, wrong stride: out of bounds

x = torch.randn(4096, device="cuda")
out = torch.empty_like(x)
scale[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
print("out", out.sum().item(), flush=True)
''',
    # the same kind of bug in a CUDA C++ kernel (CuPy RawKernel, compiled by NVRTC)
    "cupy_oob.py": r'''
import cupy as cp
k = cp.RawKernel(r"""
extern "C" __global__ void fill(float* p, int n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    p[i * 1048576LL + (1LL << 36)] = 1.0f;  /* wrong index arithmetic */
}""", "fill")
a = cp.zeros(1024, dtype=cp.float32)
k((4,), (256,), (a, cp.int32(a.size)))
cp.cuda.Device().synchronize()
print("ok", float(a.sum()))
''',
    "oom.py": r'''
import torch
model = torch.nn.Linear(8192, 8192).cuda()
batch = torch.randn(3_000_000, 8192, device="cuda")  # a batch of 92 GiB
out = model(batch)
print(out.shape)
''',
    # every tensor a worker sends through the default 'file_descriptor' strategy is an open fd
    # in the main process while the tensor lives; keeping them exhausts a small `ulimit -n`
    "loader_fds.py": r'''
import torch
from torch.utils.data import DataLoader, Dataset
print("sharing strategy:", torch.multiprocessing.get_sharing_strategy(), flush=True)

import sys
workers = int(sys.argv[1]) if len(sys.argv) > 1 else 8
if len(sys.argv) > 2:
    torch.multiprocessing.set_sharing_strategy(sys.argv[2])

class Pieces(Dataset):
    def __len__(self):
        return 4000
    def __getitem__(self, i):
        return [torch.full((4,), float(i)) for _ in range(8)]

kept = []
for i, batch in enumerate(DataLoader(Pieces(), batch_size=None, num_workers=workers)):
    kept.append(batch)
    if i % 500 == 0:
        print("item", i, flush=True)
print("done", len(kept))
''',
    # big samples through workers into a 1 MiB /dev/shm
    "loader_shm.py": r'''
import torch
from torch.utils.data import DataLoader, Dataset

import sys
if len(sys.argv) > 1:
    torch.multiprocessing.set_sharing_strategy(sys.argv[1])
print("sharing strategy:", torch.multiprocessing.get_sharing_strategy(), flush=True)

class Images(Dataset):
    def __len__(self):
        return 64
    def __getitem__(self, i):
        return torch.randn(3, 512, 512)

for i, batch in enumerate(DataLoader(Images(), batch_size=8, num_workers=2)):
    print("batch", i, tuple(batch.shape), flush=True)
''',
    # the ranks pass tensors of different sizes to the same all_reduce
    "gloo_size.py": r'''
import os, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
t = torch.ones(1000 if rank == 0 else 4000)  # e.g. a last batch of another size on one rank
dist.all_reduce(t)
print("rank", rank, "sum", t.sum().item(), flush=True)
dist.destroy_process_group()
''',
    # one rank is late (slow data, a checkpoint) beyond the group's timeout
    "gloo_late.py": r'''
import os, time, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
rank = dist.get_rank()
t = torch.ones(1024)
dist.all_reduce(t)
print("rank", rank, "first all_reduce ok", flush=True)
if rank == 1:
    time.sleep(12)  # slow
dist.all_reduce(t)
print("rank", rank, "second all_reduce ok", flush=True)
dist.destroy_process_group()
''',
    # rank-dependent control flow: the ranks call different collectives or shapes
    # (run with TORCH_DISTRIBUTED_DEBUG=DETAIL, whose wrapper compares them first)
    "mismatch.py": r'''
import os, sys, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
what = sys.argv[1]
t = torch.ones(8)
dist.all_reduce(t)
print("rank", rank, "step 0 ok", flush=True)
if what == "shape":
    dist.all_reduce(torch.ones(8 if rank == 0 else 16))
elif what == "op":
    if rank == 0:
        dist.all_reduce(t)
    else:
        dist.broadcast(t, src=0)
print("rank", rank, "step 1 ok", flush=True)
dist.destroy_process_group()
''',
    # evaluation on rank 0 only while the other ranks wait in the next collective
    "eval_rank0.py": r'''
import os, sys, time, datetime, torch, torch.distributed as dist
backend = sys.argv[1]
if backend == "nccl":
    # the usual set_device(local_rank); with one GPU both ranks land on cuda:0
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]) % torch.cuda.device_count())
dist.init_process_group(backend, timeout=datetime.timedelta(seconds=6))
rank = dist.get_rank()
dev = "cuda" if backend == "nccl" else "cpu"
for epoch in range(2):
    g = torch.ones(1 << 16, device=dev)
    dist.all_reduce(g)
    print("rank", rank, "epoch", epoch, "train step ok", flush=True)
    evaluator = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    if rank == evaluator:
        print("rank %d: evaluating" % rank, flush=True)
        time.sleep(15)  # evaluate() on one rank only
    if len(sys.argv) > 2 and sys.argv[2] == "monitored":
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=6))
    else:
        dist.barrier()
print("rank", rank, "done", flush=True)
dist.destroy_process_group()
''',
    "ddp_unused.py": r'''
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
torch.manual_seed(0)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 16)
        self.aux_head = nn.Linear(16, 4)  # never used in forward
        self.head = nn.Linear(16, 2)
    def forward(self, x):
        return self.head(torch.relu(self.body(x)))

model = DDP(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print("rank", dist.get_rank(), "step", step, "loss", round(loss.item(), 4), flush=True)
dist.destroy_process_group()
''',
    "no_init.py": r'''
import torch, torch.distributed as dist
model = torch.nn.Linear(4, 4)
print("world size from env:", __import__("os").environ.get("WORLD_SIZE"), flush=True)
t = torch.ones(4)
dist.all_reduce(t)  # the launcher did not start this process, or init_process_group was never called
print(t)
''',
    # fill the GPU with the caching allocator, then the first cuBLAS call needs a handle
    "cublas_full.py": r'''
import torch
a = torch.randn(256, 256, device="cuda")
hold = []
for size in (1 << 30, 1 << 26, 1 << 22, 1 << 20):
    while True:
        try:
            hold.append(torch.empty(size, dtype=torch.uint8, device="cuda"))
        except torch.OutOfMemoryError:
            break
print("held", sum(h.numel() for h in hold) >> 20, "MiB", flush=True)
print((a @ a).sum().item())
''',
    "healthy_ddp.py": r'''
import os, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print("step %d loss %.4f" % (step, loss.item()), flush=True)
if rank == 0:
    x = torch.randn(1024, 1024, device="cuda")
    print("cuda matmul ok on", torch.cuda.get_device_name(0), (x @ x).shape, flush=True)
dist.barrier()
print("rank", rank, "finished", flush=True)
dist.destroy_process_group()
''',
    "healthy_nccl.py": r'''
import os, torch, torch.distributed as dist
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print("rank", dist.get_rank(), "all_reduce ok", x[0].item(), flush=True)
dist.destroy_process_group()
''',
    # activation checkpointing (reentrant) inside DDP with find_unused_parameters=True
    "ddp_ckpt.py": r'''
import torch, torch.nn as nn, torch.distributed as dist
from torch.utils.checkpoint import checkpoint
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Linear(16, 16)
        self.head = nn.Linear(16, 2)
    def forward(self, x):
        x = checkpoint(self.block, x, use_reentrant=True)
        x = checkpoint(self.block, x, use_reentrant=True)  # the same layer twice
        return self.head(x)

model = DDP(Net(), find_unused_parameters=True)
for step in range(2):
    model(torch.randn(4, 16, requires_grad=True)).sum().backward()
    print("rank", dist.get_rank(), "step", step, flush=True)
dist.destroy_process_group()
''',
    # the ranks build different models (a rank-dependent config)
    "ddp_models.py": r'''
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
hidden = 32 if dist.get_rank() == 0 else 64
model = DDP(nn.Sequential(nn.Linear(16, hidden), nn.ReLU(), nn.Linear(hidden, 2)))
print("rank", dist.get_rank(), "wrapped", flush=True)
dist.destroy_process_group()
''',
    # a CPU tensor passed to an NCCL all_reduce
    "nccl_cpu.py": r'''
import os, torch, torch.distributed as dist
torch.cuda.set_device(0)
dist.init_process_group("nccl")
t = torch.ones(8)  # forgot .cuda()
dist.all_reduce(t)
print(t)
''',
    # set_device(local_rank) with more processes than GPUs
    "ordinal.py": r'''
import os, torch, torch.distributed as dist
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl")
print("rank", dist.get_rank(), "on", torch.cuda.current_device(), flush=True)
''',
    # the model on the GPU, the batch left on the CPU
    "devices.py": r'''
import torch, torch.nn as nn
model = nn.Linear(16, 2).cuda()
x = torch.randn(4, 16)  # not moved to the GPU
print(model(x))
''',
    # a bad sample in the dataset raises inside a worker
    "loader_bad_sample.py": r'''
import json, torch
from torch.utils.data import DataLoader, Dataset

class Lines(Dataset):
    rows = ['{"x": 1.0, "y": 0}'] * 50 + ['{"x": 1.0, "y": '] + ['{"x": 2.0, "y": 1}'] * 13
    def __len__(self):
        return len(self.rows)
    def __getitem__(self, i):
        r = json.loads(self.rows[i])
        return torch.tensor([r["x"]]), r["y"]

for i, (x, y) in enumerate(DataLoader(Lines(), batch_size=8, num_workers=2)):
    print("batch", i, x.shape, flush=True)
''',
    # big batches through a 64 MiB /dev/shm (a container's default)
    "loader_shm64.py": r'''
import torch
from torch.utils.data import DataLoader, Dataset

class Video(Dataset):
    def __len__(self):
        return 64
    def __getitem__(self, i):
        return torch.randn(16, 3, 224, 224)

for i, batch in enumerate(DataLoader(Video(), batch_size=4, num_workers=4, prefetch_factor=4)):
    print("batch", i, tuple(batch.shape), flush=True)
''',
}

PY = sys.executable


def torchrun(n, port, prog, *args):
    return [PY, "-m", "torch.distributed.run", "--nproc_per_node", str(n), "--master_port", str(port), prog] + list(args)


def scenarios(d):
    p = lambda name: os.path.join(d, name)  # noqa: E731
    shm = ("if command -v unshare >/dev/null; then unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && "
           "df -h /dev/shm && exec %s %s %%s'; else echo 'no unshare here'; exit 99; fi" % (PY, p("loader_shm.py")))
    fds = "ulimit -n %d && echo \"ulimit -n: $(ulimit -n)\" && exec %s %s %s"
    # name: (argv or shell string, extra env, timeout s, group) - group 'gpu' runs one at a time
    return {
        "device_assert_ce": ([PY, p("ce_labels.py")], {}, 60, "gpu"),
        "device_assert_ce_blocking": ([PY, p("ce_labels.py")], {"CUDA_LAUNCH_BLOCKING": "1"}, 60, "gpu"),
        "device_assert_embedding": ([PY, p("embedding_oob.py")], {}, 60, "gpu"),
        "illegal_access_triton": ([PY, p("triton_oob.py")], {}, 90, "gpu"),
        "illegal_access_triton_blocking": ([PY, p("triton_oob.py")], {"CUDA_LAUNCH_BLOCKING": "1"}, 90, "gpu"),
        "illegal_access_cupy": ([PY, p("cupy_oob.py")], {}, 60, "gpu"),
        "sanitizer_cupy_oob": (["compute-sanitizer", "--tool", "memcheck", PY, p("cupy_oob.py")], {}, 120, "gpu"),
        "cuda_oom": ([PY, p("oom.py")], {}, 60, "gpu"),
        "loader_emfile_64": (fds % (64, PY, p("loader_fds.py"), ""), {}, 90, "cpu"),
        "loader_emfile_256": (fds % (256, PY, p("loader_fds.py"), ""), {}, 90, "cpu"),
        "loader_emfile_32_16workers": (fds % (32, PY, p("loader_fds.py"), "16"), {}, 90, "cpu"),
        "loader_emfile_64_file_system": (fds % (64, PY, p("loader_fds.py"), "8 file_system"), {}, 90, "cpu"),
        "loader_shm_1m": (shm % "", {}, 90, "cpu"),
        "loader_shm_1m_file_system": (shm % "file_system", {}, 90, "cpu"),
        "gloo_size_mismatch": (torchrun(2, 29611, p("gloo_size.py")), {}, 60, "cpu"),
        "gloo_late_rank": (torchrun(2, 29612, p("gloo_late.py")), {}, 60, "cpu"),
        "mismatch_shape_detail": (torchrun(2, 29613, p("mismatch.py"), "shape"),
                                  {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, 60, "cpu"),
        "mismatch_op_detail": (torchrun(2, 29614, p("mismatch.py"), "op"),
                               {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, 60, "cpu"),
        "eval_rank0_gloo": (torchrun(2, 29615, p("eval_rank0.py"), "gloo"), {}, 60, "cpu"),
        "eval_rank0_gloo_monitored": (torchrun(2, 29616, p("eval_rank0.py"), "gloo", "monitored"), {}, 60, "cpu"),
        "eval_rank0_nccl_one_gpu": (torchrun(2, 29617, p("eval_rank0.py"), "nccl"),
                                    {"NCCL_DEBUG": "WARN"}, 60, "gpu"),
        "eval_rank1_gloo_monitored": (torchrun(2, 29621, p("eval_rank0.py"), "gloo", "monitored", "1"), {}, 60, "cpu"),
        "ddp_unused_params": (torchrun(2, 29618, p("ddp_unused.py")), {}, 60, "cpu"),
        "no_process_group": ([PY, p("no_init.py")], {}, 60, "cpu"),
        "healthy_ddp_gloo": (torchrun(2, 29619, p("healthy_ddp.py")), {}, 60, "gpu"),
        "healthy_nccl_one_rank": (torchrun(1, 29620, p("healthy_nccl.py")), {"NCCL_DEBUG": "INFO"}, 60, "gpu"),
        "ddp_checkpoint_twice": (torchrun(2, 29622, p("ddp_ckpt.py")), {}, 60, "cpu"),
        "ddp_model_differs": (torchrun(2, 29623, p("ddp_models.py")), {}, 60, "cpu"),
        "nccl_cpu_tensor": (torchrun(1, 29624, p("nccl_cpu.py")), {}, 60, "gpu"),
        "invalid_device_ordinal": (torchrun(2, 29625, p("ordinal.py")), {}, 60, "gpu"),
        "tensors_on_two_devices": ([PY, p("devices.py")], {}, 60, "gpu"),
        "loader_bad_sample": ([PY, p("loader_bad_sample.py")], {}, 60, "cpu"),
        "loader_shm_64m": (shm.replace("size=1m", "size=64m").replace("loader_shm.py", "loader_shm64.py") % "", {}, 90, "cpu"),
        "cublas_full_gpu": ([PY, p("cublas_full.py")], {}, 90, "last"),
    }


def run_one(name, spec, out):
    cmd, env_add, limit, _ = spec
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t0 = time.time()
    with open(os.path.join(out, name + ".log"), "wb") as log:
        try:
            rc = subprocess.run(cmd, shell=isinstance(cmd, str), executable="/bin/bash" if isinstance(cmd, str) else None,
                                stdout=log, stderr=subprocess.STDOUT, env=env, timeout=limit,
                                start_new_session=True).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout %d s" % limit
    return {"name": name, "cmd": cmd, "env": env_add, "rc": rc, "seconds": round(time.time() - t0, 1)}


def facts():
    def sh(c):
        try:
            return subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
        except Exception as exc:  # noqa: BLE001 - a fact that cannot be read is recorded as such
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'" % PY),
        "python": sys.version.split()[0],
        "kernel": sh("uname -r"),
        "env": {k: os.environ.get(k) for k in ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST")},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/planted"
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    d = tempfile.mkdtemp(prefix="plant-")
    for name, src in PROGS.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(src.lstrip())
    all_sc = scenarios(d)
    want = sys.argv[1:] or list(all_sc)
    sc = {k: all_sc[k] for k in want}
    results = []
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        cpu = [pool.submit(run_one, k, v, logs) for k, v in sc.items() if v[3] == "cpu"]
        for k, v in sc.items():  # the GPU ones one after another, beside the CPU ones
            if v[3] == "gpu":
                results.append(run_one(k, v, logs))
                print(results[-1], flush=True)
        for f in cpu:
            results.append(f.result())
            print(results[-1], flush=True)
    for k, v in sc.items():
        if v[3] == "last":
            results.append(run_one(k, v, logs))
            print(results[-1], flush=True)
    with open(os.path.join(logs, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "scenarios": results, "programs": PROGS}, f, indent=1)
    with tarfile.open(os.path.join(out, "planted.tar.gz"), "w:gz") as tar:
        tar.add(logs, arcname="planted")
    print("wrote", os.path.join(out, "planted.tar.gz"))


if __name__ == "__main__":
    main()
