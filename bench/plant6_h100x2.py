#!/usr/bin/env python3
"""P6: plant failures in 2-rank jobs on 2 real GPUs (one GPU per rank), keep verbatim logs, for an
independent held-out set for `gpudoctor explain` (issue 18). Made by the eval-p6 evaluator.

Self-contained: writes small torch programs with neutral names to /tmp/p6-XXXX/, runs each scenario's
shell command (torchrun --nproc-per-node 2, or two torchrun "nodes" with --nnodes 2 --node-rank 0/1 and
their own CUDA_VISIBLE_DEVICES, or mpirun -np 2) under a wall-clock limit (whole process group killed),
saves stdout+stderr verbatim to <out>/<name>.log, then packs the logs into <out>/logs.tar.gz and writes
<out>/manifest.json (command, extra env, exit status, seconds, machine facts incl. nvidia-smi topo -m).
NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 are forced (multicast off).

Kept exactly as it ran (the record of bench/data/explain_heldout_2026-11-26p6.jsonl): its runner,
process-group kill and machine facts repeat the earlier planting scripts' (bench/plant2_h100.py,
plant3_h100.py) on purpose, so that one file carries to the GPU machine alone and the set's logs stay
reproducible from this file as it was.

    OUT=/tmp/out python3 plant6.py [NAMES]
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

COMMON = r'''
import datetime, os, sys, time
import torch
import torch.distributed as dist
RANK = int(os.environ.get("RANK", "0"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
def setup(backend="nccl", seconds=20, set_device=True):
    if backend == "nccl" and set_device:
        torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=seconds))
    return torch.device("cuda", LOCAL_RANK) if backend == "nccl" else torch.device("cpu")
'''

PROGS = {
    # ---------- (a) user code ----------
    # logging: rank 0 gathers metrics then reduces the loss, rank 1 the other way round
    "log_metrics.py": COMMON + r'''
dev = setup(seconds=20)
grads = torch.randn(1 << 18, device=dev)
for step in range(3):
    dist.all_reduce(grads)
    print(f"rank {RANK} step {step} grads synced", flush=True)
loss = torch.tensor([0.25 + RANK], device=dev)
acc = torch.tensor([0.5, 0.7], device=dev)
gathered = torch.empty(2 * WORLD, device=dev)
if RANK == 0:
    dist.all_gather_into_tensor(gathered, acc)
    dist.all_reduce(loss)
else:
    dist.all_reduce(loss)
    dist.all_gather_into_tensor(gathered, acc)
torch.cuda.synchronize()
print(f"rank {RANK} loss {loss.item():.3f} acc {gathered.tolist()}", flush=True)
dist.destroy_process_group()
''',
    # a data error caught and the step skipped on one rank
    "pretrain.py": COMMON + r'''
dev = setup(seconds=15)
def load_batch(step):
    if RANK == 1 and step == 2:
        raise ValueError("corrupt record at offset 184467 in shard-00001.tar")
    return torch.randn(1 << 16, device=dev)
for step in range(4):
    try:
        batch = load_batch(step)
    except ValueError as exc:
        print(f"[rank {RANK}] warning: skipping step {step}: {exc}", flush=True)
        continue
    g = batch * 2
    dist.all_reduce(g)
    print(f"[rank {RANK}] step {step} done", flush=True)
dist.barrier()
torch.cuda.synchronize()
print(f"[rank {RANK}] epoch finished", flush=True)
dist.destroy_process_group()
''',
    # pipeline stage group, broadcast with a group-local src
    "pipeline.py": COMMON + r'''
dev = setup()
stage_groups = [dist.new_group([0]), dist.new_group([1])]
my_stage = RANK
group = stage_groups[my_stage]
act = torch.full((4, 1024), float(RANK), device=dev)
dist.broadcast(act, src=0, group=group)
print(f"rank {RANK} stage {my_stage} activations ready", flush=True)
dist.barrier()
dist.destroy_process_group()
''',
    # an evaluation group created only where evaluation runs
    "finetune.py": COMMON + r'''
dev = setup(seconds=15)
t = torch.ones(1 << 12, device=dev)
dist.all_reduce(t)
print(f"rank {RANK} warmup ok {t[0].item()}", flush=True)
if RANK == 0:
    eval_group = dist.new_group([0])
    print("rank 0 created eval group", flush=True)
for step in range(3):
    dist.all_reduce(t)
    print(f"rank {RANK} step {step}", flush=True)
torch.cuda.synchronize()
dist.destroy_process_group()
''',
    # tensor-parallel group listing only rank 0
    "tp_linear.py": COMMON + r'''
dev = setup()
tp_group = dist.new_group([0])
tp_size = dist.get_world_size(tp_group)
tp_rank = dist.get_rank(tp_group)
weight = torch.randn(1024, 512, device=dev)
shard = weight.chunk(tp_size, dim=0)[tp_rank]
print(f"rank {RANK} holds shard {tuple(shard.shape)}", flush=True)
dist.barrier()
dist.destroy_process_group()
''',
    # reduce_scatter with a chunk count for 4-GPU nodes
    "grad_shard.py": COMMON + r'''
dev = setup()
GPUS_PER_NODE = 4
grad = torch.randn(4096, device=dev)
out = torch.empty(4096 // WORLD, device=dev)
dist.reduce_scatter(out, list(grad.chunk(GPUS_PER_NODE)))
torch.cuda.synchronize()
print(f"rank {RANK} shard {out.shape}", flush=True)
dist.destroy_process_group()
''',
    # positional buffer sized from the longest sequence each rank saw locally
    "train_lm.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
dev = setup(seconds=20)
class LM(nn.Module):
    def __init__(self, max_len):
        super().__init__()
        self.emb = nn.Embedding(1000, 256)
        self.head = nn.Linear(256, 1000)
        self.register_buffer("pos_ids", torch.arange(max_len))
    def forward(self, x):
        return self.head(self.emb(x) + self.emb(self.pos_ids[: x.shape[1]]))
local_lengths = [512, 1024] if RANK == 0 else [512, 2048, 4096]
model = DDP(LM(max(local_lengths)).to(dev), device_ids=[LOCAL_RANK])
x = torch.randint(0, 1000, (8, 128), device=dev)
loss = model(x).float().pow(2).mean()
loss.backward()
torch.cuda.synchronize()
print(f"rank {RANK} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # FSDP wrap policy taken from an env var only node 0's launcher exports
    "train_fsdp.py": COMMON + r'''
import functools
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import ModuleWrapPolicy
dev = setup(seconds=20)
if RANK == 0:
    os.environ["WRAP_BLOCKS"] = "1"
blocks = [nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512)) for _ in range(4)]
model = nn.Sequential(*blocks, nn.Linear(512, 10)).to(dev)
policy = ModuleWrapPolicy({nn.Sequential}) if os.environ.get("WRAP_BLOCKS") == "1" else None
model = FSDP(model, auto_wrap_policy=policy, device_id=dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(3):
    loss = model(torch.randn(16, 512, device=dev)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # a rank with no data files leaves with exit code 0
    "train_shards.py": COMMON + r'''
dev = setup(seconds=15)
t = torch.ones(1 << 16, device=dev)
dist.all_reduce(t)
print(f"rank {RANK}: warmup all_reduce ok", flush=True)
files = ["/data/shard-000.bin", "/data/shard-001.bin", "/data/shard-002.bin"][RANK::2] if RANK == 0 else []
if not files:
    print(f"rank {RANK}: no data files for this rank, nothing to do", flush=True)
    sys.exit(0)
for step, f in enumerate(files):
    dist.all_reduce(t)
    print(f"rank {RANK}: step {step} ({f})", flush=True)
torch.cuda.synchronize()
dist.destroy_process_group()
''',
    # halo exchange with a per-rank buffer length
    "halo.py": COMMON + r'''
dev = setup(seconds=15)
n = (1 << 20) if RANK == 0 else (1 << 19)
peer = 1 - RANK
send_buf = torch.full((n,), float(RANK), device=dev)
recv_buf = torch.empty(n, device=dev)
ops = [dist.P2POp(dist.isend, send_buf, peer), dist.P2POp(dist.irecv, recv_buf, peer)]
for req in dist.batch_isend_irecv(ops):
    req.wait()
torch.cuda.synchronize()
print(f"rank {RANK} halo received {recv_buf[:2].tolist()}", flush=True)
dist.destroy_process_group()
''',
    # object collective with no torch.cuda.set_device
    "collect_stats.py": COMMON + r'''
dev = setup(set_device=False)
model = torch.nn.Linear(16, 16).to(f"cuda:{LOCAL_RANK}")
stats = {"rank": RANK, "samples": 1000 + RANK, "host": os.uname().nodename}
gathered = [None] * WORLD
dist.all_gather_object(gathered, stats)
print(f"rank {RANK} stats {gathered}", flush=True)
dist.destroy_process_group()
''',
    # DDP with device_ids copied from a one-GPU script
    "train_cls.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
dev = setup()
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(dev)
model = DDP(model, device_ids=[0])
out = model(torch.randn(8, 32, device=dev))
print(f"rank {RANK} out {tuple(out.shape)}", flush=True)
dist.destroy_process_group()
''',
    # ring exchange with a neighbour offset of 2
    "ring.py": COMMON + r'''
dev = setup()
HOPS = 2
t = torch.full((1024,), float(RANK), device=dev)
dst = (RANK + HOPS) % WORLD
src = (RANK - HOPS) % WORLD
r = torch.empty_like(t)
if RANK % 2 == 0:
    dist.send(t, dst=dst)
    dist.recv(r, src=src)
else:
    dist.recv(r, src=src)
    dist.send(t, dst=dst)
print(f"rank {RANK} got {r[0].item()}", flush=True)
dist.destroy_process_group()
''',
    # rank 1 busy on the GPU (long validation) while rank 0 waits in all_reduce
    "train_val.py": COMMON + r'''
dev = setup(seconds=10)
t = torch.ones(1 << 16, device=dev)
dist.all_reduce(t)
print(f"rank {RANK}: step 0 ok", flush=True)
if RANK == 1:
    print(f"rank {RANK}: running validation on 50000 samples", flush=True)
    torch.cuda._sleep(int(45 * 1.9e9))
dist.all_reduce(t)
torch.cuda.synchronize()
print(f"rank {RANK}: step 1 ok", flush=True)
dist.destroy_process_group()
''',
    # rank 1's batch carries a token id past the vocabulary while rank 0 waits in all_reduce
    "train_tok.py": COMMON + r'''
import torch.nn as nn
dev = setup(seconds=30)
emb = nn.Embedding(32000, 256).to(dev)
for step in range(3):
    ids = torch.randint(0, 32000, (8, 128), device=dev)
    if RANK == 1 and step == 1:
        ids[3, 17] = 32007
    h = emb(ids).float().mean()
    dist.all_reduce(h)
    print(f"rank {RANK} step {step} {h.item():.5f}", flush=True)
dist.destroy_process_group()
''',
    # rank 1 keeps its metrics tensor on cuda:0
    "eval_metrics.py": COMMON + r'''
dev = setup()
t = torch.ones(1 << 12, device=dev)
dist.all_reduce(t)
print(f"rank {RANK} grads ok", flush=True)
correct = torch.tensor([93.0, 100.0], device="cuda:0")
dist.all_reduce(correct)
print(f"rank {RANK} accuracy {correct[0].item() / correct[1].item():.3f}", flush=True)
dist.destroy_process_group()
''',
    # ---------- (b) environment: programs ----------
    "allreduce.py": COMMON + r'''
backend = sys.argv[1] if len(sys.argv) > 1 else "nccl"
dev = setup(backend, seconds=int(os.environ.get("PG_TIMEOUT", "20")))
x = torch.ones(1 << 20, device=dev)
for i in range(3):
    dist.all_reduce(x)
if backend == "nccl":
    torch.cuda.synchronize()
print(f"rank {RANK}/{WORLD} all_reduce ok: {x[0].item()}", flush=True)
dist.destroy_process_group()
''',
    # rank 0 prepares data before init (late)
    "train_late.py": COMMON + r'''
if RANK == 0:
    print("rank 0: downloading tokenizer and building dataset index", flush=True)
    time.sleep(40)
dev = setup(seconds=10)
x = torch.ones(1 << 16, device=dev)
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"rank {RANK} ok", flush=True)
dist.destroy_process_group()
''',
    # explicit file:// init, one path per node
    "train_file.py": r'''
import datetime, os, sys, torch
import torch.distributed as dist
rank = int(os.environ["NODE_RANK"])
init_file = os.path.join(os.environ["SCRATCH"], "ddp_init")
os.makedirs(os.environ["SCRATCH"], exist_ok=True)
torch.cuda.set_device(0)
print(f"node {rank}: init_method=file://{init_file}", flush=True)
dist.init_process_group("nccl", init_method="file://" + init_file, rank=rank, world_size=2,
                        timeout=datetime.timedelta(seconds=20))
x = torch.ones(1024, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"node {rank} ok {x[0].item()}", flush=True)
dist.destroy_process_group()
''',
    # timed all_reduce (healthy, prints bandwidth)
    "bench_ar.py": COMMON + r'''
dev = setup(seconds=60)
x = torch.ones(64 << 20, device=dev)
for _ in range(3):
    dist.all_reduce(x)
torch.cuda.synchronize()
t0 = time.time()
for _ in range(10):
    dist.all_reduce(x)
torch.cuda.synchronize()
dt = (time.time() - t0) / 10
if RANK == 0:
    gb = x.numel() * 4 / 1e9
    print(f"all_reduce {gb*1e3:.0f} MB: {dt*1e3:.2f} ms, busbw {2*(WORLD-1)/WORLD*gb/dt:.1f} GB/s", flush=True)
dist.destroy_process_group()
''',
    # ---------- (c) healthy ----------
    "train_ddp.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
backend = sys.argv[1] if len(sys.argv) > 1 else "nccl"
dev = setup(backend, seconds=60)
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev),
            device_ids=[LOCAL_RANK] if backend == "nccl" else None)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    loss = model(torch.randn(64, 256, device=dev)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.barrier()
if RANK == 0:
    print("training done", flush=True)
dist.destroy_process_group()
''',
    "train_mpi.py": COMMON + r'''
dev = setup()
x = torch.ones(1024, device=dev)
dist.all_reduce(x)
print(f"rank {RANK} ok", flush=True)
dist.destroy_process_group()
''',
}


def tr(port, prog, *args, extra=""):
    return "%s -m torch.distributed.run --nproc-per-node 2 --master-port %d %s%s %s" % (
        PY, port, extra, prog, " ".join(args))


def node(rank, port, prog, env, nnodes=2, extra="", args=""):
    envs = " ".join("%s=%s" % kv for kv in env.items())
    return ("env %s %s -m torch.distributed.run --nnodes %d --node-rank %d --nproc-per-node 1 "
            "--master-addr 127.0.0.1 --master-port %d %s%s %s" % (envs, PY, nnodes, rank, port, extra, prog, args))


def two(cmd0, cmd1, delay=0):
    """two "nodes" on one host, output interleaved in one log as a shared job log would be"""
    return "%s & p0=$!; sleep %s; %s & p1=$!; wait $p0; r0=$?; wait $p1; r1=$?; exit $(( r0 > r1 ? r0 : r1 ))" % (
        cmd0, delay, cmd1)


def scenarios():
    W = {"NCCL_DEBUG": "WARN"}
    I = {"NCCL_DEBUG": "INFO"}
    rc = "--rdzv-conf timeout=25 "
    return {
        # ---- long ones first (hangs / timeouts) ----
        "nccl_watchdog_slow_rank_gpu": (tr(29901, "train_val.py"), dict(W, TORCH_NCCL_ASYNC_ERROR_HANDLING="1"), 80),
        "early_exit_rank_sys_exit0": (tr(29902, "train_shards.py"), dict(W), 80),
        "skip_step_on_exception": (tr(29903, "pretrain.py"), dict(W), 80),
        "new_group_one_rank_only": (tr(29904, "finetune.py"), dict(W), 80),
        "batch_isend_irecv_size_mismatch": (tr(29905, "halo.py"), dict(W), 80),
        "fsdp_wrap_policy_differs": (tr(29906, "train_fsdp.py"), dict(W), 80),
        "ddp_buffer_shape_differs": (tr(29907, "train_lm.py"), dict(W), 80),
        "collective_order_swapped_desync": (tr(29908, "log_metrics.py"), dict(W, TORCH_NCCL_DESYNC_DEBUG="1"), 80),
        "store_timeout_rank_late": (tr(29909, "train_late.py"), dict(W), 80),
        "init_barrier_rank_late": (tr(29910, "train_late.py"), dict(W, TORCH_DIST_INIT_BARRIER="1"), 80),
        "master_port_differs_nodes": (two(node(0, 29911, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "0"}, extra=rc),
                                          node(1, 29912, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "1"}, extra=rc), 1),
                                      {}, 60),
        "nnodes_differs_nodes": (two(node(0, 29913, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "0"}, extra=rc),
                                     node(1, 29913, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "1"}, nnodes=3, extra=rc), 1),
                                 {}, 60),
        "init_file_not_shared": (two("env NODE_RANK=0 SCRATCH=/tmp/p6-node0/run CUDA_VISIBLE_DEVICES=0 %s train_file.py" % PY,
                                     "env NODE_RANK=1 SCRATCH=/tmp/p6-node1/run CUDA_VISIBLE_DEVICES=1 %s train_file.py" % PY),
                                 dict(W), 60),
        # ---- (a) user code ----
        "collective_order_swapped_detail": (tr(29920, "log_metrics.py"), dict(W, TORCH_DISTRIBUTED_DEBUG="DETAIL"), 60),
        "broadcast_src_not_in_group": (tr(29921, "pipeline.py"), dict(W), 60),
        "subgroup_non_member_size": (tr(29922, "tp_linear.py"), dict(W), 60),
        "reduce_scatter_list_len": (tr(29923, "grad_shard.py"), dict(W), 60),
        "all_gather_object_no_set_device": (tr(29924, "collect_stats.py"), dict(W), 60),
        "ddp_device_ids_zero": (tr(29925, "train_cls.py"), dict(W), 60),
        "send_to_self": (tr(29926, "ring.py"), dict(W), 60),
        "rank1_device_assert_in_nccl_job": (tr(29927, "train_tok.py"), dict(W), 70),
        "rank1_tensor_on_cuda0": (tr(29928, "eval_metrics.py"), dict(W), 60),
        # ---- (b) environment ----
        "socket_ifname_excludes_all": (tr(29930, "allreduce.py"), dict(W, NCCL_SOCKET_IFNAME="^lo,eth"), 60),
        "algo_collnet_unavailable": (tr(29931, "allreduce.py"), dict(W, NCCL_ALGO="CollNetDirect"), 60),
        "max_nchannels_zero": (tr(29932, "allreduce.py"), dict(W, NCCL_MAX_NCHANNELS="0"), 60),
        "buffsize_tiny": (tr(29933, "allreduce.py"), dict(W, NCCL_BUFFSIZE="4096"), 60),
        "topo_file_missing": (tr(29934, "allreduce.py"), dict(W, NCCL_TOPO_FILE="/etc/nccl/topo/ndv5-topo.xml"), 60),
        "cvd_same_gpu_two_nodes": (two(node(0, 29935, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": "WARN"}),
                                       node(1, 29935, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": "WARN"})),
                                   {}, 60),
        "net_ib_forced_two_nodes": (two(node(0, 29936, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "0", "NCCL_HOSTID": "gpu-a01",
                                                                        "NCCL_NET": "IB", "NCCL_DEBUG": "WARN"}),
                                        node(1, 29936, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "1", "NCCL_HOSTID": "gpu-a02",
                                                                        "NCCL_NET": "IB", "NCCL_DEBUG": "WARN"})),
                                    {}, 60),
        "mpirun_env_rendezvous": ("command -v mpirun >/dev/null || { echo 'mpirun: command not found'; exit 127; }; "
                                  "mpirun -np 2 %s train_mpi.py" % PY,
                                  {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}, 60),
        # ---- (c) healthy ----
        "healthy_nccl_info_graph_tuning": (tr(29940, "train_ddp.py"), dict(I, NCCL_DEBUG_SUBSYS="INIT,GRAPH,TUNING"), 75),
        "healthy_tdd_detail_nccl": (tr(29941, "train_ddp.py"), {"TORCH_DISTRIBUTED_DEBUG": "DETAIL",
                                                                 "TORCH_CPP_LOG_LEVEL": "INFO"}, 75),
        "healthy_two_nodes_info": (two(node(0, 29942, "train_ddp.py", {"CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": "INFO"}),
                                       node(1, 29942, "train_ddp.py", {"CUDA_VISIBLE_DEVICES": "1", "NCCL_DEBUG": "INFO"})),
                                   {}, 75),
        "healthy_p2p_shm_off_socket": (tr(29943, "bench_ar.py"), dict(I, NCCL_P2P_DISABLE="1", NCCL_SHM_DISABLE="1",
                                                                    NCCL_NET="Socket"), 90),
        "healthy_ib_hca_absent_fallback": (tr(29944, "allreduce.py"), dict(I, NCCL_IB_HCA="mlx5_0,mlx5_1"), 60),
        "healthy_two_nodes_socket_lo": (two(node(0, 29945, "bench_ar.py", {"CUDA_VISIBLE_DEVICES": "0", "NCCL_HOSTID": "gpu-b01",
                                                                           "NCCL_SOCKET_IFNAME": "lo", "NCCL_DEBUG": "INFO"}),
                                            node(1, 29945, "bench_ar.py", {"CUDA_VISIBLE_DEVICES": "1", "NCCL_HOSTID": "gpu-b02",
                                                                           "NCCL_SOCKET_IFNAME": "lo", "NCCL_DEBUG": "INFO"})),
                                        {}, 90),
        "healthy_p2p_level_loc_shm": (tr(29946, "bench_ar.py"), dict(I, NCCL_P2P_LEVEL="LOC"), 75),
        "healthy_deprecated_env_names": (tr(29947, "train_ddp.py"), {"NCCL_ASYNC_ERROR_HANDLING": "1",
                                                                     "NCCL_BLOCKING_WAIT": "0", "NCCL_DEBUG": "WARN"}, 75),
        # ---- run 2 (added after run 1; run 1's scenarios above are unchanged) ----
        "nccl_version_differs_two_nodes": (
            "NCCL_SYS=$(ldconfig -p | awk '/libnccl\\.so\\.2 /{print $NF; exit}'); "
            "NCCL_SYS=${NCCL_SYS:-$(ls /usr/lib/x86_64-linux-gnu/libnccl.so.2* /usr/local/nccl*/lib/libnccl.so.2* 2>/dev/null | head -1)}; " + two(
                node(0, 29960, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": "WARN"}),
                node(1, 29960, "allreduce.py", {"CUDA_VISIBLE_DEVICES": "1", "NCCL_DEBUG": "WARN",
                                                "LD_PRELOAD": "$NCCL_SYS"})), {}, 60),
        "world_size_env_mismatch": (two(
            "env MASTER_ADDR=127.0.0.1 MASTER_PORT=29961 RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 CUDA_VISIBLE_DEVICES=0 %s allreduce.py" % PY,
            "env MASTER_ADDR=127.0.0.1 MASTER_PORT=29961 RANK=1 WORLD_SIZE=3 LOCAL_RANK=0 CUDA_VISIBLE_DEVICES=1 %s allreduce.py" % PY, 1),
            dict(W, PG_TIMEOUT="20"), 60),
        "shm_1m_p2p_disabled": ("unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec %s'" % tr(29962, "allreduce.py"),
                                dict(W, NCCL_P2P_DISABLE="1"), 60),
        "shm_1m_default": ("unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec %s'" % tr(29963, "train_ddp.py"),
                           dict(W), 60),
        "healthy_nccl_debug_file_unwritable": (tr(29964, "train_ddp.py"), dict(I, NCCL_DEBUG_FILE="/var/log/nccl/nccl.%h.%p.log"), 75),
    }


T_START = time.time()
START_BY_S = float(os.environ.get("P6_START_BY_S", "250"))
END_BY_S = float(os.environ.get("P6_END_BY_S", "320"))


LONG = set(filter(None, os.environ.get("P6_LONG", "").split(",")))  # run 2: these get P6_LONG_LIMIT s


def run_one(name, spec, d, out):
    cmd, env_add, limit = spec
    if name in LONG:
        limit = int(os.environ.get("P6_LONG_LIMIT", "120"))
    if time.time() - T_START > START_BY_S:
        return {"name": name, "cmd": cmd, "env": env_add, "rc": "not started (time)", "seconds": 0}
    limit = int(min(limit, max(5, END_BY_S - (time.time() - T_START))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t0 = time.time()
    with open(os.path.join(out, name + ".log"), "wb") as log:
        proc = subprocess.Popen(cmd, shell=True, executable="/bin/bash", cwd=d, stdout=log,
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
    return {"name": name, "cmd": cmd, "env": env_add, "rc": rc, "seconds": round(time.time() - t0, 1)}


def facts():
    def sh(c):
        try:
            p = subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60)
            return (p.stdout + p.stderr).strip()
        except Exception as exc:  # noqa: BLE001
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv,noheader"),
        "topo": sh("nvidia-smi topo -m"),
        "nvlink": sh("nvidia-smi nvlink -s 2>&1 | head -40"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'" % PY),
        "nccl_lib": sh("%s -c 'import nvidia.nccl, os; print(os.listdir(os.path.join(list(nvidia.nccl.__path__)[0], \"lib\")))'; "
                       "pip list 2>/dev/null | grep -i nccl" % PY),
        "mpirun": sh("command -v mpirun && mpirun --version | head -2"),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "hostname": sh("hostname"),
        "nproc": sh("nproc"),
        "ip": sh("ip -br addr 2>&1"),
        "infiniband": sh("ls /dev/infiniband 2>&1"),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p6out"
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
    d = tempfile.mkdtemp(prefix="p6-")
    for name, src in PROGS.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(src.lstrip())
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    results = []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P6_JOBS", "10"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], d, out) for k in want]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results.append(r)
            print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "programs_dir": d, "wall_s": round(time.time() - T_START, 1),
                   "scenarios": results, "programs": PROGS}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - T_START), flush=True)


if __name__ == "__main__":
    main()
