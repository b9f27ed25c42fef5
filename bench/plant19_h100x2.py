#!/usr/bin/env python3
"""P19 (eval-p19): plant multi-GPU training failures of kinds no earlier set planted, on 2x H100.

Harness as bench/plant16_h100x2.py: each scenario runs in a neutral job folder (/tmp/job-XXXX/jobNN, train.py),
under a wall-clock limit (process group killed); stdout+stderr verbatim to $OUT/<name>.log, packed into
$OUT/logs.tar.gz; $OUT/manifest.json holds command, env, exit status, seconds and machine facts.
NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 forced for every scenario.
"""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

PY = sys.executable
BIN = os.path.dirname(PY)
T0 = time.time()
START_BY_S = float(os.environ.get("P19_START_BY_S", "300"))
END_BY_S = float(os.environ.get("P19_END_BY_S", "400"))

HEAD = r'''
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

RANK = int(os.environ.get("RANK", "0"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))


def log(msg):
    print(f"[rank{RANK}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


def setup(seconds=600, device_id=True):
    torch.cuda.set_device(LOCAL_RANK)
    kw = {"device_id": torch.device("cuda", LOCAL_RANK)} if device_id else {}
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=seconds), **kw)
    return torch.device("cuda", LOCAL_RANK)


class MLP(nn.Module):
    def __init__(self, d_in=128, d=512, n_cls=10, p=0.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d), nn.GELU(), nn.Dropout(p), nn.Linear(d, d), nn.GELU(),
                                 nn.Dropout(p), nn.Linear(d, n_cls))

    def forward(self, x):
        return self.net(x)


def batch(dev, n=256, d_in=128, n_cls=10):
    x = torch.randn(n, d_in, device=dev)
    y = (x[:, :n_cls] * 3).argmax(-1)
    return x, y
'''

# ------------------------------------------------------------------ user code (p19)
P_ORIG_MOD = HEAD + r'''
def main():
    dev = torch.device("cuda", 0)
    model = MLP().to(dev)
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(cmodel.parameters(), lr=1e-3)
    for step in range(30):
        x, y = batch(dev)
        loss = F.cross_entropy(cmodel(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    log(f"train done loss={loss.item():.4f}")
    torch.save(cmodel.state_dict(), "model.pt")
    log("saved model.pt")
    # --- evaluate.py part: plain model for export
    export = MLP()
    export.load_state_dict(torch.load("model.pt", map_location="cpu"))
    log("loaded for export")


main()
'''

P_DP_CUDA1 = HEAD + r'''
def main():
    model = MLP().to("cuda:1")
    model = nn.DataParallel(model, device_ids=[0, 1])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        x, y = batch(torch.device("cuda:1"))
        loss = F.cross_entropy(model(x), y.to("cuda:0"))
        opt.zero_grad(); loss.backward(); opt.step()
        log(f"step {step} loss {loss.item():.4f}")


main()
'''

P_SCALER_BF16 = HEAD + r'''
def main():
    dev = setup()
    from torch.nn.parallel import DistributedDataParallel as DDP
    model = DDP(MLP().to(dev, dtype=torch.bfloat16), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for step in range(10):
        x, y = batch(dev)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x.bfloat16()), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 5 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_MESH_SHAPE = HEAD + r'''
from torch.distributed.device_mesh import init_device_mesh


def main():
    torch.cuda.set_device(LOCAL_RANK)
    # 2-D mesh: dp x tp
    mesh = init_device_mesh("cuda", (2, 2), mesh_dim_names=("dp", "tp"))
    log(f"mesh {mesh}")


main()
'''

P_AG_INTO = HEAD + r'''
def main():
    dev = setup(seconds=60)
    emb = torch.randn(1024, 256, device=dev)
    out = torch.empty_like(emb)
    dist.all_gather_into_tensor(out, emb)
    log(f"gathered {tuple(out.shape)}")
    dist.destroy_process_group()


main()
'''

P_FSDP2_LOAD = HEAD + r'''
from torch.distributed.fsdp import fully_shard


def main():
    dev = setup()
    if RANK == 0:
        torch.save(MLP().state_dict(), "pretrained.pt")
    dist.barrier()
    model = MLP().to(dev)
    for m in model.net:
        if isinstance(m, nn.Linear):
            fully_shard(m)
    fully_shard(model)
    sd = torch.load("pretrained.pt", map_location="cpu")
    model.load_state_dict(sd)
    log("loaded pretrained weights")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = batch(dev)
    F.cross_entropy(model(x), y).backward(); opt.step()
    log("step ok")
    dist.destroy_process_group()


main()
'''

P_FULL_TENSOR_RANK0 = HEAD + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard


def main():
    dev = setup(seconds=45)
    mesh = init_device_mesh("cuda", (WORLD,))
    w = distribute_tensor(torch.randn(4096, 1024, device=dev), mesh, [Shard(0)])
    for step in range(3):
        w = w * 0.99
        log(f"step {step} local shard {tuple(w.to_local().shape)}")
    if RANK == 0:
        full = w.full_tensor()
        torch.save(full.cpu(), "weights_full.pt")
        log("wrote weights_full.pt")
    dist.barrier()
    log("done")
    dist.destroy_process_group()


main()
'''

P_META_NO_EMPTY = HEAD + r'''
from torch.distributed.fsdp import fully_shard


def main():
    dev = setup()
    with torch.device("meta"):
        model = MLP(d=2048)
    for m in model.net:
        if isinstance(m, nn.Linear):
            fully_shard(m)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = batch(dev)
    loss = F.cross_entropy(model(x), y)
    loss.backward(); opt.step()
    log(f"loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_SEND_NONCONTIG = HEAD + r'''
def main():
    dev = setup(seconds=60)
    act = torch.randn(64, 512, device=dev)
    if RANK == 0:
        dist.send(act.t(), dst=1)
        log("sent activations")
    else:
        buf = torch.empty(512, 64, device=dev)
        dist.recv(buf, src=0)
        log(f"received {buf.sum().item():.3f}")
    dist.destroy_process_group()


main()
'''

P_INIT_TWICE = HEAD + r'''
def init_distributed():
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl")


def build_trainer():
    init_distributed()
    from torch.nn.parallel import DistributedDataParallel as DDP
    return DDP(MLP().cuda(), device_ids=[LOCAL_RANK])


def main():
    init_distributed()
    log("process group ready")
    model = build_trainer()
    log("trainer ready")


main()
'''

P_SPARSE_EMB = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


class Rec(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100000, 64, sparse=True)
        self.head = nn.Linear(64, 2)

    def forward(self, ids):
        return self.head(self.emb(ids).mean(1))


def main():
    dev = setup(seconds=60)
    model = DDP(Rec().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(5):
        ids = torch.randint(0, 100000, (128, 20), device=dev)
        y = torch.randint(0, 2, (128,), device=dev)
        loss = F.cross_entropy(model(ids), y)
        opt.zero_grad(); loss.backward(); opt.step()
        log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_PLAIN_DDP = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(40):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    log("done")
    dist.destroy_process_group()


main()
'''

P_STATIC_GRAPH = P_PLAIN_DDP.replace("device_ids=[LOCAL_RANK])", "device_ids=[LOCAL_RANK], static_graph=True)")

P_SINGLE_ALLOC = HEAD + r'''
def main():
    dev = torch.device("cuda", 0)
    model = MLP(d=4096).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(20):
        x, y = batch(dev, n=1024)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    log(f"done loss {loss.item():.4f} peak {torch.cuda.max_memory_allocated() >> 20} MiB")


main()
'''

# words: torch.compile gives nothing (TORCH_COMPILE_DISABLE=1 inherited)
P_COMPILE_SPEED = HEAD + r'''
class Block(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.l1 = nn.Linear(d, 4 * d)
        self.l2 = nn.Linear(4 * d, d)
        self.n = nn.LayerNorm(d)

    def forward(self, x):
        return x + self.l2(F.gelu(self.l1(self.n(x))))


def main():
    dev = torch.device("cuda", 0)
    model = nn.Sequential(*[Block() for _ in range(6)]).to(dev)
    model = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(64, 256, 1024, device=dev)
    for step in range(60):
        if step == 10:
            torch.cuda.synchronize(); t = time.time()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    torch.cuda.synchronize()
    log(f"torch.compile model: {(time.time() - t) / 50 * 1000:.1f} ms/step (50 steps after warmup)")


main()
'''

# words: persistent_workers False + heavy worker init -> slow epochs
P_LOADER = HEAD + r'''
from torch.utils.data import DataLoader, Dataset


class Ds(Dataset):
    def __init__(self):
        self.n = 2048

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(128), i % 10


def worker_init(_):
    time.sleep(1.5)  # opens the shard index / tokenizer


def main():
    dev = torch.device("cuda", 0)
    model = MLP().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    dl = DataLoader(Ds(), batch_size=256, num_workers=8, worker_init_fn=worker_init,
                    persistent_workers=@PW@, pin_memory=True)
    t0 = time.time()
    for epoch in range(6):
        t = time.time()
        for x, y in dl:
            loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
            opt.zero_grad(); loss.backward(); opt.step()
        log(f"epoch {epoch} loss {loss.item():.4f} {time.time() - t:.2f}s")
    log(f"total {time.time() - t0:.1f}s")


main()
'''

# words: manual gradient averaging, init differs per rank
P_MANUAL_AVG = HEAD + r'''
def main():
    dev = setup()
    torch.manual_seed(1234 + RANK)  # different data order per rank
    model = MLP().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(60):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
        opt.step()
        if step % 20 == 0 or step == 59:
            log(f"step {step} loss {loss.item():.4f}")
    with torch.no_grad():
        xe, ye = batch(torch.device("cuda", LOCAL_RANK), n=4096)
        g = torch.Generator(device="cuda").manual_seed(0)
        xe = torch.randn(4096, 128, device=dev, generator=g)
        ye = (xe[:, :10] * 3).argmax(-1)
        acc = (model(xe).argmax(-1) == ye).float().mean().item()
    w = sum(p.double().sum().item() for p in model.parameters())
    log(f"eval acc {acc:.4f} param checksum {w:.6f}")
    dist.destroy_process_group()


main()
'''

# healthy: FSDP2 + MixedPrecisionPolicy
P_FSDP2_MP = HEAD + r'''
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy


def main():
    dev = setup()
    model = MLP(d=1024).to(dev)
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for m in model.net:
        if isinstance(m, nn.Linear):
            fully_shard(m, mp_policy=mp)
    fully_shard(model, mp_policy=mp)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(30):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    log(f"done peak {torch.cuda.max_memory_allocated() >> 20} MiB")
    dist.destroy_process_group()


main()
'''

# healthy: tensor parallel colwise/rowwise
P_TP = HEAD + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel


class FF(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(512, 2048)
        self.down = nn.Linear(2048, 512)

    def forward(self, x):
        return self.down(F.relu(self.up(x)))


def main():
    dev = setup()
    mesh = init_device_mesh("cuda", (WORLD,), mesh_dim_names=("tp",))
    torch.manual_seed(0)
    model = parallelize_module(FF().to(dev), mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    for step in range(30):
        torch.manual_seed(step)
        x = torch.randn(32, 512, device=dev)
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.5f}")
    dist.destroy_process_group()


main()
'''



def tr(port, extra=""):
    return " ".join(("torchrun --nproc-per-node 2 --master-port %d %s train.py" % (port, extra)).split())


W = {"NCCL_DEBUG": "WARN"}
G0 = {"CUDA_VISIBLE_DEVICES": "0"}
G1 = {"CUDA_VISIBLE_DEVICES": "1"}


def scenarios():
    sc = {
        # words, timed: single-GPU pairs (case on GPU0, baseline on GPU1), run before the rest
        "w_compile_disabled_env": dict(prog={"train.py": P_COMPILE_SPEED}, cmd="python train.py",
                                       env=dict(G0, TORCH_COMPILE_DISABLE="1"), limit=150,
                                       pair="base_compile_disabled_env"),
        "base_compile_disabled_env": dict(prog={"train.py": P_COMPILE_SPEED}, cmd="python train.py", env=G1,
                                          limit=150, paired=True),
        "w_loader_not_persistent": dict(prog={"train.py": P_LOADER.replace("@PW@", "False")},
                                        cmd="python train.py", env=G0, limit=90, pair="base_loader_not_persistent"),
        "base_loader_not_persistent": dict(prog={"train.py": P_LOADER.replace("@PW@", "True")},
                                           cmd="python train.py", env=G1, limit=90, paired=True),
        # everything else in parallel
        "w_manual_avg_init_differs": dict(prog={"train.py": P_MANUAL_AVG}, cmd=tr(29711), env=W, limit=90),
        "compile_orig_mod_keys": dict(prog={"train.py": P_ORIG_MOD}, cmd="python train.py", env=G0, limit=150),
        "dp_model_on_cuda1": dict(prog={"train.py": P_DP_CUDA1}, cmd="python train.py", env={}, limit=60),
        "scaler_bf16_params": dict(prog={"train.py": P_SCALER_BF16}, cmd=tr(29712), env=W, limit=90),
        "mesh_shape_exceeds_world": dict(prog={"train.py": P_MESH_SHAPE}, cmd=tr(29713), env=W, limit=90),
        "allgather_into_same_size": dict(prog={"train.py": P_AG_INTO}, cmd=tr(29714), env=W, limit=90),
        "fsdp2_load_full_sd": dict(prog={"train.py": P_FSDP2_LOAD}, cmd=tr(29715), env=W, limit=90),
        "dtensor_full_tensor_rank0": dict(prog={"train.py": P_FULL_TENSOR_RANK0}, cmd=tr(29716), env=W, limit=150),
        "fsdp2_meta_no_to_empty": dict(prog={"train.py": P_META_NO_EMPTY}, cmd=tr(29717), env=W, limit=90),
        "send_noncontiguous": dict(prog={"train.py": P_SEND_NONCONTIG}, cmd=tr(29718), env=W, limit=90),
        "init_pg_twice": dict(prog={"train.py": P_INIT_TWICE}, cmd=tr(29719), env=W, limit=90),
        "ddp_sparse_embedding_nccl": dict(prog={"train.py": P_SPARSE_EMB}, cmd=tr(29720), env=W, limit=90),
        # configuration
        "alloc_conf_equals_sep": dict(prog={"train.py": P_SINGLE_ALLOC}, cmd="python train.py",
                                      env=dict(G0, PYTORCH_CUDA_ALLOC_CONF="expandable_segments=True"), limit=60),
        "omp_threads_nonnumeric": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29721),
                                       env={"OMP_NUM_THREADS": "auto"}, limit=90),
        "torchrun_rdzv_etcd": dict(prog={"train.py": P_PLAIN_DDP},
                                   cmd="torchrun --nnodes 1 --nproc-per-node 2 --rdzv-backend etcd "
                                       "--rdzv-endpoint localhost:2379 --rdzv-id job7 train.py", env={}, limit=90),
        "torchrun_node_rank_ge_nnodes": dict(prog={"train.py": P_PLAIN_DDP},
                                             cmd="torchrun --nnodes 1 --node-rank 1 --nproc-per-node 2 "
                                                 "--master-addr 127.0.0.1 --master-port 29722 train.py",
                                             env={}, limit=60),
        "cvd_one_gpu_nproc2": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29723), env=G1, limit=90),
        "nccl_socket_family_v6": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29724),
                                      env={"NCCL_SOCKET_FAMILY": "AF_INET6", "NCCL_DEBUG": "WARN",
                                           "NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}, limit=90),
        "nccl_algo_nvls_off": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29725),
                                   env={"NCCL_ALGO": "NVLS", "NCCL_DEBUG": "WARN"}, limit=90),
        "nccl_proto_typo": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29726),
                                env={"NCCL_PROTO": "LL128,Simpel", "NCCL_DEBUG": "WARN"}, limit=90),
        "heartbeat_timeout_tiny": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29727),
                                       env={"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC": "abc"}, limit=90),
        # healthy
        "healthy_local_ranks_filter": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29728, "--local-ranks-filter 0"),
                                           env={}, limit=90),
        "healthy_ddp_static_graph": dict(prog={"train.py": P_STATIC_GRAPH}, cmd=tr(29729), env={}, limit=90),
        "healthy_fsdp2_mixed_precision": dict(prog={"train.py": P_FSDP2_MP}, cmd=tr(29730), env={}, limit=90),
        "healthy_tp_colwise_rowwise": dict(prog={"train.py": P_TP}, cmd=tr(29731), env={}, limit=90),
        "healthy_max_connections_info": dict(prog={"train.py": P_PLAIN_DDP}, cmd=tr(29732),
                                             env={"CUDA_DEVICE_MAX_CONNECTIONS": "1", "NCCL_DEBUG": "INFO",
                                                  "NCCL_DEBUG_SUBSYS": "INIT,ENV"}, limit=90),
        "healthy_dist_launch_use_env": dict(prog={"train.py": P_PLAIN_DDP},
                                            cmd="python -m torch.distributed.launch --use-env --nproc-per-node 2 "
                                                "--master-port 29733 train.py", env={}, limit=90),
    }
    return sc


def run_one(name, sc, jobdir, out):
    os.makedirs(jobdir, exist_ok=True)
    files = dict(sc.get("prog", {}))
    for fn, text in files.items():
        with open(os.path.join(jobdir, fn), "w") as f:
            f.write(text.lstrip("\n"))
    env_add = dict(sc["env"])
    cmd = sc["cmd"]
    rec = {"name": name, "cmd": cmd, "env": env_add, "jobdir": jobdir, "files": sorted(files)}
    if time.time() - T0 > START_BY_S:
        rec.update(rc="not started (time)", seconds=0)
        return rec
    limit = int(min(sc["limit"], max(5, END_BY_S - (time.time() - T0))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t = time.time()
    rec["start_utc"] = time.strftime("%H:%M:%S", time.gmtime())
    with open(os.path.join(out, name + ".log"), "wb") as logf:
        proc = subprocess.Popen(cmd, shell=True, executable="/bin/bash", cwd=jobdir, stdout=logf,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            rc = "timeout %d s" % limit
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rec.update(rc=rc, seconds=round(time.time() - t, 1))
    return rec


def facts():
    def sh(c):
        try:
            p = subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60)
            return (p.stdout + p.stderr).strip()
        except Exception as exc:  # noqa: BLE001
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version "
                         "--format=csv,noheader"),
        "topo": sh("nvidia-smi topo -m"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version(), "
                    "torch.backends.cudnn.version())'" % PY),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|nvidia-nccl)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "os": sh("grep PRETTY_NAME /etc/os-release"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p19out"
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
    os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
    base = tempfile.mkdtemp(prefix="job-")
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    idx = {n: i for i, n in enumerate(list(all_sc))}
    results = []

    def note(r):
        results.append(r)
        print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)

    def jd(n):
        return os.path.join(base, "job%02d" % idx[n])

    for n in want:
        s = all_sc[n]
        if s.get("paired"):
            continue
        if s.get("seq"):
            note(run_one(n, s, jd(n), out))
        elif s.get("pair"):
            pair = [n] + ([s["pair"]] if s["pair"] in want else [])
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in pair]
                for f in concurrent.futures.as_completed(futs):
                    note(f.result())
    par = sorted([n for n in want if not all_sc[n].get("seq") and not all_sc[n].get("pair")
                  and not all_sc[n].get("paired")], key=lambda n: -all_sc[n]["limit"])
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P19_JOBS", "12"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in par]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T0, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
