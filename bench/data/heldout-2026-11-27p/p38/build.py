#!/usr/bin/env python3
"""Build explain_heldout_p38.jsonl from logs/ + labels written after reading each log (eval-p38)."""
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scen2 import RUNSH
D = os.path.dirname(os.path.abspath(__file__))
SC = {}
for mf in ("manifest_run1.json", "manifest2.json"):
    SC.update({s["name"]: s for s in json.load(open(os.path.join(D, mf)))["scenarios"]})
LABELS = set(open(os.path.join(D, "labels.txt")).read().split())
MACH = ("planted on 2x NVIDIA H100 80GB HBM3 (kind nvidia-h100-x2, driver 580.x, Python 3.12.3, torch 2.11.0+cu130, "
        "NCCL 2.28.9, lightning/accelerate from the device image), harness plant38.py + scen.py, log logs/%s.log, rc %s")

def cmdline(name):
    s = SC[name]
    pre = " ".join("%s=%s" % (k, ("'%s'" % v) if " " in v else v) for k, v in s["env"].items())
    return "$ " + (pre + " " if pre else "") + s["cmd"]

def text(name, cmd=None, keep_assert=None, before=None):
    log = open(os.path.join(D, "logs", name + ".log"), encoding="utf-8", errors="replace").read().rstrip("\n")
    if keep_assert is not None:
        out, n = [], 0
        for l in log.split("\n"):
            if "Assertion `" in l:
                n += 1
                if n > keep_assert:
                    continue
            out.append(l)
        log = "\n".join(out)
    return (before or "") + (cmd or cmdline(name)) + "\n" + log

C = []
def add(name, cid, category, group, family, alts, fix, kws, note, healthy=False, **kw):
    C.append(dict(id="p38-" + cid, url="planted:p38-" + cid, source_repo="planted-gpu-2026-11-27-p38",
                  category=category, text=text(name, **kw), family=family, family_alternatives=alts,
                  fix=fix, fix_keywords=kws, healthy=healthy, group=group,
                  label_note=(MACH % (name, SC[name]["rc"])) + "; " + note))

# ---- user code
add("u01", "gnn_pool_scatter_global_graph_ids", "torch", "usercode", "cuda.device_assert",
    ["usercode.kernel_out_of_bounds", "usercode.index_out_of_range"],
    "The scatter_add readout indexes an 8-row output with global graph ids (rank 1 holds ids 8-15), so the scatter/gather kernel asserts; remap the ids to local indices (graph_id - rank*graphs_per_rank) or size the output to the largest id + 1.",
    ["local index", "local id", "remap", "index range", "largest id"],
    "torchrun 2 GPUs, DDP encoder; graph-level pooling with scatter_add where the index holds global graph ids but the output has only "
    "the rank's 8 rows; only rank 1 is out of range. The log had 1696 identical-form Assertion lines; the text keeps the first 24 "
    "of them and every other line, in order, unedited.", keep_assert=24)
add("u02", "vocab_parallel_embedding_no_shard_offset", "torch.distributed", "usercode", "cuda.device_assert",
    ["usercode.nccl_kernel_out_of_bounds", "usercode.index_out_of_range", "nccl.unhandled_cuda_error"],
    "A kernel on rank 1 hit a device-side assert before the all_reduce: the vocab-parallel embedding looks up global token ids in the rank's local shard; subtract the shard start (ids - rank*per) before F.embedding, and rerun with CUDA_LAUNCH_BLOCKING=1 to see the failing kernel.",
    ["CUDA_LAUNCH_BLOCKING", "shard start", "shard offset", "out of range", "out-of-range"],
    "torchrun 2 GPUs; hand-written vocab-parallel embedding that masks foreign ids but forgets to subtract the shard offset; rank 1 "
    "ids 16000-31999 index a 16000-row shard. The assert surfaces in NCCL's all_reduce as 'Cuda failure device-side assert triggered' "
    "(no Assertion line was printed). Log verbatim.")
add("u03", "cupy_memory_pool_holds_freed_arrays_oom", "torch", "usercode", "cuda.oom",
    ["torch.memory_not_released"],
    "CuPy's default memory pool keeps the freed preprocessing arrays (about 28 GiB, the gap between PyTorch's allocated memory and the process total) reserved, so PyTorch runs out; release it with cupy.get_default_memory_pool().free_all_blocks() after preprocessing (or route CuPy through PyTorch's allocator).",
    ["free_all_blocks", "memory pool", "memory_pool", "cupy"],
    "torchrun 2 GPUs; CuPy normalises 27.5 GiB of features (std creates a same-size temporary), hands them to torch via dlpack+clone, "
    "then DDP training OOMs at backward. torch allocated 47.8 GiB of the 76.7 GiB in use. Log verbatim.")
add("u04", "manual_model_parallel_residual_on_other_gpu", "torch", "usercode", "usercode.tensors_on_two_devices", ["torch.usage"],
    "In the two-GPU model-parallel forward the residual h stays on cuda:0 while z is on cuda:1; move it before the add (z + h.to(z.device)).",
    ["h.to(", "to(z.device)", "to('cuda:1')", "to(\"cuda:1\")", "move h"],
    "python train.py, one process over 2 GPUs: stage1 on cuda:0, stage2+head on cuda:1, skip connection adds the stage-1 output "
    "without moving it. Log verbatim.")
add("u05", "class_weight_tensor_left_on_cpu", "torch", "usercode", "usercode.tensors_on_two_devices", ["torch.usage"],
    "The CrossEntropyLoss class weights were computed on the CPU and the criterion was never moved; move it to the GPU (criterion.to(device) or weight=class_weights.cuda()).",
    ["criterion.to", "criterion.cuda", "class_weights.cuda", "class_weights.to", "move&weight"],
    "torchrun 2 GPUs, DDP; nn.CrossEntropyLoss(weight=CPU tensor) applied to CUDA logits. Log verbatim.")
add("u07", "int16_all_reduce_nccl", "torch.distributed", "usercode", "torch.distributed_usage", ["usercode.dtype_mismatch"],
    "NCCL has no 16-bit integer type, so all_reduce of an int16 tensor is refused; keep the counts as int32/int64 (cast before the all_reduce).",
    ["int32", "int64", "torch.int", ".long()", ".int()"],
    "torchrun 2 GPUs; bincount cast to torch.int16 then dist.all_reduce. Log verbatim.")
add("u08", "per_rank_vocab_size_broadcast_shape_mismatch", "torch.distributed", "usercode", "torch.collective_mismatch",
    ["nccl.collective_mismatch"],
    "Each rank builds its vocabulary from its own shard, so the embedding tensors broadcast from rank 0 have different shapes (2271 vs 2235 rows); build the vocabulary once and share it (e.g. rank 0 builds it and broadcast_object_list sends it) so every rank allocates the same size.",
    ["broadcast_object_list", "same vocabulary", "share the vocab", "shared vocab", "vocabulary once"],
    "torchrun 2 GPUs with TORCH_DISTRIBUTED_DEBUG=DETAIL in the env prefix (as a user debugging a hang would set it); per-rank "
    "vocabulary from a rank-seeded shard, then dist.broadcast of an embedding sized by it. Log verbatim.")
add("l04", "rank0_only_validation_longer_than_pg_timeout", "torch.distributed", "usercode", "nccl.timeout",
    ["torch.c10d_error", "nccl.hang"],
    "Rank 0 runs a 45 s validation alone while rank 1 goes on into DDP's gradient all_reduce with a 20 s process-group timeout, so the watchdog kills the job; run validation on every rank (or have all ranks wait together after it) and/or raise init_process_group(timeout=...) above the validation time.",
    ["every rank", "increase&timeout", "longer timeout", "larger timeout", "validation on"],
    "torchrun 2 GPUs; init_process_group(timeout=20 s); at step 2 rank 0 alone evaluates model.module for 45 s. Neighbour: "
    "p3-nccl_barrier_timeout_slow_rank0 (slow rank 0 before a barrier) - same family, different code path. Log verbatim.")
# ---- configuration / environment
add("c01", "nccl_buffsize_4gib_sigfpe", "nccl", "config", "nccl.config", ["nccl_large_buffsize", "nccl.buffsize_enomem"],
    "NCCL_BUFFSIZE=4294967296 (4 GiB) is far beyond a sane per-channel buffer and makes both ranks die with SIGFPE at the first collective; unset NCCL_BUFFSIZE (default 4 MiB) or use a modest value such as 8388608.",
    ["unset&NCCL_BUFFSIZE", "remove&NCCL_BUFFSIZE", "lower&NCCL_BUFFSIZE", "smaller&NCCL_BUFFSIZE", "default&4 MiB"],
    "torchrun 2 GPUs, plain DDP MLP; the only planted change is NCCL_BUFFSIZE=4294967296 (env prefix shown). The same script ran "
    "to the end without the variable in device call 2 (b13, baseline) and with NCCL_P2P_DISABLE=1 in call 1 (c04, dropped). Both ranks exit with signal 8. Cause from what I planted; the "
    "log itself shows only SIGFPE. Log verbatim.")
add("c03", "ld_library_path_cuda_stub_libcuda", "cuda", "environment", "cuda.init_failed", ["cuda.libs", "container.no_driver_libs"],
    "LD_LIBRARY_PATH puts the CUDA toolkit's stubs directory (a link-time stand-in for libcuda) ahead of the real driver library, so CUDA reports 'driver is a stub library'; remove /usr/local/cuda/lib64/stubs from LD_LIBRARY_PATH at run time (it is for linking only).",
    ["remove&stubs", "drop&stubs", "only for linking", "for linking only", "real driver"],
    "torchrun 2 GPUs; the harness first linked libcuda.so.1 -> libcuda.so inside the toolkit's stubs directory "
    "(/usr/local/cuda/lib64/stubs, as Docker builds do), then ran with LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LD_LIBRARY_PATH. "
    "Log verbatim.")
add("c11", "nccl_proto_mixed_include_exclude", "nccl", "config", "nccl.config", ["nccl.invalid_usage"],
    "NCCL_PROTO is either a list of protocols to use or, with one leading ^, a list to exclude; 'LL128,^Simple' mixes the two, so NCCL rejects it; write NCCL_PROTO=^Simple (or LL128,LL), or unset it.",
    ["NCCL_PROTO=^Simple", "NCCL_PROTO=LL128,LL", "leading ^", "unset&NCCL_PROTO", "remove&NCCL_PROTO"],
    "torchrun 2 GPUs, all_reduce benchmark; NCCL_DEBUG=WARN NCCL_PROTO=LL128,^Simple in the env prefix. Neighbour: p2-nccl_algo_invalid "
    "(an unrecognised NCCL_ALGO token) - same parser message, other variable and syntax. Log verbatim.")
# ---- launcher
add("l01", "lightning_ddp_fork_after_cuda_init", "lightning", "launcher", "lightning.strategy",
    ["python.multiprocessing", "cuda.init_failed"],
    "strategy='ddp_fork' forks the worker processes after the script has already initialised CUDA (torch.cuda.get_device_name at the top); use strategy='ddp' (fresh processes), or drop the CUDA call before trainer.fit.",
    ["strategy=\"ddp\"", "strategy='ddp'", "ddp_spawn", "remove&get_device_name", "drop&get_device_name"],
    "python train.py; Lightning Trainer(accelerator='gpu', devices=2, strategy='ddp_fork') after printing torch.cuda.get_device_name(0). "
    "Neighbour: p2-cuda_in_forked_workers has the same CUDA message from DataLoader workers; the fix here is the Lightning strategy. Log verbatim.")
add("l03", "torchrun_python_as_script", "torchrun", "launcher", "launcher.script_missing", ["launcher.script_args"],
    "torchrun runs its first positional argument as the Python script, so 'python' was taken as the script file; drop it: torchrun --standalone --nproc-per-node 2 train.py.",
    ["drop&python", "remove&python", "without python", "nproc-per-node 2 train.py"],
    "torchrun --standalone --nproc-per-node 2 python train.py. Log verbatim.")
# ---- healthy
add("h01", "healthy_ddp_bf16_compress_hook", "torch.distributed", "healthy", "healthy", [],
    "none: DDP with the bf16_compress_hook comm hook trained 40 steps; weights in sync on both ranks; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)
add("h02", "healthy_moe_all_to_all_single_uneven", "torch.distributed", "healthy", "healthy", [],
    "none: MoE-style dispatch with all_to_all_single and uneven split sizes round-trips correctly; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)
add("h03", "healthy_lightning_fsdp_bf16_gpu", "lightning", "healthy", "healthy", [],
    "none: Lightning Trainer(strategy='fsdp', precision='bf16-mixed', devices=2) trained 2 epochs; exit 0.", [],
    "python train.py (Lightning launches the second process). Its deprecation/tip lines are harmless. Log verbatim.", healthy=True)
add("h04", "healthy_nccl_info_p2p_level_nvl", "nccl", "healthy", "healthy", [],
    "none: NCCL_DEBUG=INFO all_reduce benchmark with NCCL_P2P_LEVEL=NVL (a valid value; P2P over NVLink used); exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)
add("h05", "healthy_manual_zero1_reduce_scatter_all_gather", "torch.distributed", "healthy", "healthy", [],
    "none: hand-written ZeRO-1 step (reduce_scatter_tensor AVG + all_gather_into_tensor) trained 20 steps, parameters identical on both ranks; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)

# ---- device call 2
add("b08", "alloc_conf_per_process_memory_fraction", "torch", "config", "cuda.alloc_conf", ["cuda.oom", "memory_fraction"],
    "PYTORCH_CUDA_ALLOC_CONF=per_process_memory_fraction:0.1 caps each process at 10% of the GPU (7.92 GiB allowed) although 72 GiB are free; remove per_process_memory_fraction from PYTORCH_CUDA_ALLOC_CONF (or raise it to cover the ~22.5 GiB this job needs).",
    ["remove&per_process_memory_fraction", "higher&per_process_memory_fraction", "unset&PYTORCH_CUDA_ALLOC_CONF", "drop&per_process_memory_fraction", "increase&fraction"],
    "torchrun 2 GPUs, DDP MLP with a 131072x1024 batch; env prefix shown. Baseline b09 (same script, no variable, same call) ran 10 steps "
    "with max_allocated 22.5 GiB. Neighbour: p10-memory_fraction_config (the same cap set through torch.cuda.set_per_process_memory_fraction "
    "from a job config); here the cap comes from the allocator env variable. Log verbatim.")
add("b10", "ld_library_path_cuda_compat_older_than_driver", "cuda", "environment", "cuda.init_failed", ["cuda.libs", "container.no_driver_libs"],
    "LD_LIBRARY_PATH puts /usr/local/cuda-13.0/compat first, so CUDA loads the forward-compatibility libcuda 580.95.05 instead of the installed driver's 580.159.04, and CUDA refuses the combination (error 803); remove the compat directory from LD_LIBRARY_PATH (it is only for running a newer CUDA on an older driver).",
    ["remove&compat", "drop&compat", "forward compat", "forward-compat", "older driver"],
    "torchrun 2 GPUs; LD_LIBRARY_PATH=/usr/local/cuda-13.0/compat:$LD_LIBRARY_PATH (the image's own compat package, libcuda.so.580.95.05; "
    "host driver 580.159.04, both from manifest facts). Neighbour: cuda-804-forward-compat-docker-driver525 (error 804, compat on an "
    "unsupported GPU); here it is 803, compat libs older than the driver. Log verbatim.")
add("b11", "wrapper_sets_cvd_per_rank_then_set_device_local_rank", "torch.distributed", "launcher", "cuda.invalid_device_ordinal",
    ["launcher.nproc_gpus", "cuda.visible_devices_no_effect"],
    "run.sh narrows CUDA_VISIBLE_DEVICES to the worker's own GPU, so each process sees a single device numbered 0 and set_device(LOCAL_RANK=1) is out of range; drop the export from the wrapper (torchrun's LOCAL_RANK already picks the GPU) or call torch.cuda.set_device(0) when the wrapper pins the GPU.",
    ["set_device(0)", "remove&export", "drop&export", "remove&CUDA_VISIBLE_DEVICES", "drop&CUDA_VISIBLE_DEVICES"],
    "torchrun --no-python ./run.sh, where run.sh exports CUDA_VISIBLE_DEVICES=$LOCAL_RANK then execs python train.py; train.py calls "
    "torch.cuda.set_device(LOCAL_RANK). The text starts with `$ cat run.sh` and the file as run (a user would paste it), then the command "
    "and the verbatim log. Only rank 1 fails.",
    before="$ cat run.sh\n" + RUNSH)
add("b12", "ddp_process_group_without_this_rank", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
    "Rank 1 is not in dp_group (new_group(ranks=[0])), so on rank 1 the group is the non-member sentinel -100 and DDP cannot use it; give DDP a process group that contains every rank that wraps the model (new_group(ranks=[0, 1]) or the default group).",
    ["ranks=[0, 1]", "ranks=[0,1]", "every rank", "not a member", "default group"],
    "torchrun 2 GPUs; dist.new_group(ranks=[0]) passed as DDP(process_group=...) on both ranks. Only rank 1 fails (TypeError with "
    "the parameter dump). Log verbatim.")

bad = []
for c in C:
    t = c["text"]; tl = t.lower()
    n = t.count("\n") + 1
    if n > 400: bad.append((c["id"], "lines", n))
    for w in ("p38", "plant", "heldout", "eval-", "@@split"):
        if w in tl: bad.append((c["id"], "leak", w))
    if not c["healthy"]:
        if not 2 <= len(c["fix_keywords"]) <= 5: bad.append((c["id"], "nkw"))
        for k in c["fix_keywords"]:
            if all(p.lower() in tl for p in k.split("&")): bad.append((c["id"], "kw in text", k))
    for f in [c["family"]] + c["family_alternatives"]:
        if f != "healthy" and not any(l == f or l.startswith(f + ".") or l.startswith(f) for l in LABELS):
            bad.append((c["id"], "family", f))
with open(os.path.join(D, "explain_heldout_p38.jsonl"), "w", encoding="utf-8") as fo:
    for c in C:
        fo.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases;", sum(c["healthy"] for c in C), "healthy; max lines", max(c["text"].count("\n") + 1 for c in C))
print("BUILD-BAD:", bad)
