#!/usr/bin/env python3
"""Build explain_heldout_p40.jsonl from logs/ + labels written after reading each log (eval-p40)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SC = {}
for mf in ("manifest_run1.json", "manifest2.json"):
    SC.update({s["name"]: s for s in json.load(open(os.path.join(D, mf)))["scenarios"]})
LABELS = set(open(os.path.join(D, "labels.txt")).read().split())
MACH = ("planted on 2x NVIDIA H200 (kind nvidia-h100-x2 served by H200 cards, driver 580.159.04, Python 3.12.3, "
        "torch 2.11.0+cu130, NCCL 2.28.9), harness plant40.py + %s, log logs/%s.log, rc %s")

def cmdline(name):
    s = SC[name]
    pre = " ".join("%s=%s" % (k, ("'%s'" % v) if " " in v else v) for k, v in s["env"].items())
    return "$ " + (pre + " " if pre else "") + s["cmd"]

def text(name):
    log = open(os.path.join(D, "logs", name + ".log"), encoding="utf-8", errors="replace").read().rstrip("\n")
    return cmdline(name) + "\n" + log

C = []
def add(name, cid, category, group, family, alts, fix, kws, note, healthy=False):
    scen = "scen2.py" if name.startswith("n") or name == "h07" else "scen.py"
    C.append(dict(id="p40-" + cid, url="planted:p40-" + cid, source_repo="planted-gpu-2026-11-27-p40",
                  category=category, text=text(name), family=family, family_alternatives=alts,
                  fix=fix, fix_keywords=kws, healthy=healthy, group=group,
                  label_note=(MACH % (scen, name, SC[name]["rc"])) + "; " + note))

# ---- user code
add("u01", "all_reduce_return_value_assigned", "torch.distributed", "usercode", "torch.distributed_usage",
    ["code.exception", "torch.usage"],
    "dist.all_reduce reduces the tensor in place and returns None (a Work handle only with async_op=True); the script assigned its return value to avg_loss. Call dist.all_reduce(avg_loss, op=...) without assigning and then use avg_loss.",
    ["in place", "in-place", "returns None", "don't assign", "do not assign"],
    "torchrun 2 GPUs, DDP MLP; every 10 steps `avg_loss = dist.all_reduce(avg_loss, op=AVG)` then avg_loss.item() on rank 0. Log verbatim.")
add("u02", "tp_l2sp_snapshot_plain_tensor_minus_dtensor", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.usage"],
    "The L2-SP reference weights were cloned before parallelize_module, so they are plain tensors while the tensor-parallel parameters are DTensors; take the snapshot after parallelizing (so it is a DTensor with the same placements) or wrap it with distribute_tensor(ref, p.device_mesh, p.placements).",
    ["distribute_tensor", "after&parallelize", "snapshot after", "from_local", "placements"],
    "torchrun 2 GPUs; ColwiseParallel/RowwiseParallel MLP on a 1-D mesh; penalty sum((p - pretrained[n])**2) where pretrained was "
    "cloned before parallelize_module. Neighbours with the same message: p19-fsdp2_load_full_sd, p3-fsdp2_sharded_sd_into_plain (other code paths). Log verbatim.")
add("u03", "all_gather_object_cuda_tensors_other_device", "torch.distributed", "usercode", "usercode.tensors_on_two_devices",
    ["torch.distributed_usage"],
    "all_gather_object pickles the CUDA tensors with their device, so each rank receives the other rank's predictions on the other GPU and torch.cat mixes cuda:0 and cuda:1; move the tensors to the CPU (.cpu()) before all_gather_object, or gather tensors with dist.all_gather / all_gather_into_tensor.",
    [".cpu()", "all_gather_into_tensor", "dist.all_gather(", "to the cpu", "on the cpu"],
    "torchrun 2 GPUs; validation predictions and labels (CUDA tensors) gathered in a dict with all_gather_object, then torch.cat. "
    "Both ranks fail. Log verbatim.")
add("u04", "destroy_process_group_inside_evaluate", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.c10d_error", "torch.pg_not_initialized"],
    "evaluate() ends with dist.destroy_process_group(), so after the first epoch the NCCL communicator that DDP still uses is aborted and the next backward fails; call destroy_process_group once, at the very end of training.",
    ["end of training", "once at the end", "remove&destroy_process_group", "move&destroy_process_group", "only at the end"],
    "torchrun 2 GPUs, DDP; evaluate() all_reduces the val loss then calls dist.destroy_process_group(); epoch 0 finishes, epoch 1's "
    "first backward raises 'NCCL communicator was aborted'. Log verbatim.")
add("u06", "gpu_dataset_cache_sized_to_all_free_memory", "cuda", "usercode", "cuda.oom", ["torch.usage"],
    "The GPU dataset cache is sized from torch.cuda.mem_get_info() and leaves only 96 MiB free (136.5 of 139.8 GiB taken), so the next allocation (a 4 MiB tensor, kernels, NCCL buffers) fails with out of memory; leave several GiB of headroom (size the cache well below the free memory) or keep the cache in pinned host memory.",
    ["headroom", "smaller cache", "pinned", "host memory", "leave&free"],
    "torchrun 2 GPUs; torch.empty(free - 96 MiB) as a 'dataset cache', then torch.ones(1M) and an all_reduce. Ran alone (no other "
    "scenario on the GPUs). The failure surfaces as 'CUDA error: out of memory' (torch.AcceleratorError), not the caching allocator's "
    "'Tried to allocate' message. Log verbatim.")
add("u07", "nccl_first_collective_inside_cuda_graph_capture", "nccl", "usercode", "nccl.unhandled_cuda_error",
    ["cuda.cudaErrorStreamCaptureInvalidated", "cuda.api_error"],
    "The first all_reduce is issued inside torch.cuda.graph capture and the process group was created lazily (no device_id), so NCCL creates its communicator during capture and hits 'operation not permitted when stream is capturing'; initialise the communicator before capturing: run the collective once eagerly (warm-up on a side stream) and/or pass device_id to init_process_group.",
    ["warm-up", "warmup", "warm up", "device_id", "before capture"],
    "torchrun 2 GPUs; init_process_group('nccl') without device_id, then with torch.cuda.graph(g): static.mul_(2); dist.all_reduce(static). "
    "The counterpart h03 (device_id + 3 warm-up all_reduces on a side stream, same call) captured and replayed correctly "
    "(value 4.0 = expected), which confirms the fix (h03 itself is not kept: its destroy_process_group then hung). Log verbatim.")
add("u10", "complex_all_reduce_max", "torch.distributed", "usercode", "torch.distributed_usage", ["usercode.dtype_mismatch"],
    "ReduceOp.MAX is not defined for complex numbers, so all_reduce refuses the complex Fourier coefficient; reduce a real tensor instead (its magnitude, e.g. the absolute value, with MAX) or reduce real and imaginary parts through torch.view_as_real.",
    ["magnitude", "view_as_real", "absolute value", "real-valued", "real tensor"],
    "torchrun 2 GPUs; rfft spectrum, the complex coefficient with the largest magnitude all_reduced with MAX. The kernel-cache "
    "UserWarning is harmless noise (HOME not writable on the device). Log verbatim.")
add("u11", "manual_grad_allreduce_unused_param_none_grad", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.ddp_unused_parameters", "code.exception"],
    "The auxiliary head is not used in the forward, so its parameters have p.grad None and the hand-written gradient averaging passes None to dist.all_reduce; skip parameters whose grad is None (if p.grad is not None) or zero-fill them, or let DDP do the averaging (find_unused_parameters=True).",
    ["is not None", "is None", "skip", "find_unused_parameters", "zeros_like"],
    "torchrun 2 GPUs; no DDP; after backward `for p in model.parameters(): dist.all_reduce(p.grad)`; the aux head (used only from a "
    "later epoch) has no grad. Log verbatim.")
add("u12", "work_wait_timeout_shorter_than_peer_delay", "torch.distributed", "usercode", "nccl.timeout",
    ["torch.c10d_error", "nccl.hang"],
    "Rank 1 spends about 10 s loading its shard index before joining the all_reduce, while rank 0 waits with work.wait(timeout=3 s), so the collective times out and the watchdog takes rank 0 down; do the slow per-rank work before the collective on every rank (with a barrier after it) or give wait() a timeout longer than the slowest rank's delay (or drop the per-call timeout).",
    ["longer timeout", "increase&timeout", "barrier", "larger timeout", "before the collective"],
    "torchrun 2 GPUs; rank 1 sleeps 10 s ('loading its shard index'), then all_reduce(async_op=True).wait(timeout=timedelta(seconds=3)). "
    "The watchdog reports 10733 ms (it checked after rank 1 had already finished; rank 1 printed value 2.0). Log verbatim.")
add("u15", "tcpstore_is_master_on_every_rank", "torch.distributed", "usercode", "rendezvous.address_in_use",
    ["launcher.same_rank", "launcher.port"],
    "Every rank creates TCPStore('127.0.0.1', 29641, ws, is_master=True), so the second process cannot bind the port (EADDRINUSE); only rank 0 may host the store: is_master=(rank == 0), or drop the hand-made store and use init_method='env://' under torchrun.",
    ["rank == 0", "rank==0", "only rank 0", "env://", "is_master=("],
    "torchrun 2 GPUs; hand-built TCPStore with is_master=True on both ranks, then init_process_group(store=...). Neighbour: "
    "p8-two_ranks_both_rank0 (both processes launched with RANK=0); here RANK is right and the store flag is hard-coded. Log verbatim.")
add("u16", "fsdp2_blocks_sharded_root_not_clip_grad_norm", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.usage"],
    "fully_shard was applied to the blocks only, so the embedding and head stay plain tensors while the block parameters are DTensors, and clip_grad_norm_ cannot combine them (their grads are not synchronised either); also call fully_shard(model) on the root after the blocks so every parameter is a DTensor.",
    ["fully_shard(model)", "root module", "top-level", "whole model", "outermost"],
    "torchrun 2 GPUs; FSDP2 fully_shard on each block, not on the root; torch.nn.utils.clip_grad_norm_(model.parameters()). "
    "Neighbour: p9-fsdp2_submodule_before_root_forward (root sharded, submodule called directly). Log verbatim.")
add("u18", "sync_debug_mode_error_left_on", "torch", "usercode", "torch.slow_debug_setting", ["torch.usage", "code.exception"],
    "torch.cuda.set_sync_debug_mode('error'), left on from a profiling session, makes every synchronizing CUDA operation raise (here the model's .cuda() copy); remove the call or set the mode back to 'default' (0) for training.",
    ["remove&sync_debug", "disable&sync_debug", "set_sync_debug_mode(0)", "set_sync_debug_mode(\"default\")", "set_sync_debug_mode('default')"],
    "torchrun 2 GPUs; set_sync_debug_mode('error') at the top, then DDP(make_model().cuda()). Neighbour: p7-healthy_sync_debug_warn "
    "(the 'warn' mode, harmless). Log verbatim.")
add("n01", "recv_any_source_on_nccl", "torch.distributed", "usercode", "torch.distributed_usage", ["nccl.invalid_usage"],
    "dist.recv without src means 'receive from any rank', which the NCCL backend does not support; receive from each worker explicitly (for r in range(1, ws): dist.recv(buf, src=r)) or use a gloo group for any-source receives.",
    ["src=r", "explicit&src", "specify&src", "gloo", "each worker"],
    "torchrun 2 GPUs; parameter-server loop on rank 0 `sender = dist.recv(buf)`; rank 1 dist.send(g, dst=0). Log verbatim.")
add("n02", "gather_without_gather_list_on_dst", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.c10d_error"],
    "dist.gather needs a preallocated output list on the destination rank; pass gather_list=[torch.empty_like(loss) for _ in range(ws)] on rank 0 (None on the others).",
    ["empty_like", "zeros_like", "preallocate", "list of tensors", "one tensor per rank"],
    "torchrun 2 GPUs; dist.gather(loss, gather_list=None, dst=0) on every rank. Neighbour: p12-gather_object_list_all_ranks (the "
    "opposite mistake with gather_object). Log verbatim.")
add("n03", "all_gather_into_cpu_output_list_illegal_address", "torch.distributed", "usercode", "usercode.cpu_tensor_to_nccl",
    ["cuda.illegal_access", "torch.distributed_usage"],
    "The all_gather output list was allocated on the CPU (torch.empty without device) while the input is on the GPU, so NCCL wrote to host addresses and the GPU faulted (illegal memory access); allocate the output tensors on the GPU (device='cuda') and copy them to the host afterwards (.cpu()).",
    ["device=\"cuda\"", "device='cuda'", "on the gpu", ".cpu()", "same device"],
    "torchrun 2 GPUs; all_emb = [torch.empty(128, 256) for _ in range(ws)] (CPU) and dist.all_gather(all_emb, emb) with emb on CUDA. "
    "Both ranks printed their result before the watchdog reported the illegal access. Log verbatim.")
add("n05", "dcp_checkpoint_id_is_existing_file", "torch.distributed", "usercode", "torch.distributed_usage",
    ["errno.eexist", "torch.checkpoint_load"],
    "dcp.save writes a folder of shard files, but checkpoint_id points to checkpoints/model.pt, an existing file left by the old torch.save version, so creating the folder fails (File exists); give checkpoint_id a directory path (e.g. checkpoints/step_1000) or delete the old file.",
    ["directory", "folder", "delete&model.pt", "remove&model.pt", "rename"],
    "torchrun 2 GPUs, DDP; rank 0 created checkpoints/model.pt with torch.save, then every rank called "
    "dcp.save(..., checkpoint_id='checkpoints/model.pt'). Log verbatim.")
# ---- config / launcher
add("c01", "init_process_group_backend_mpi_not_built", "torch.distributed", "config", "mpi.torch_backend",
    ["torch.distributed_usage", "torch.no_nccl"],
    "The script's default backend is 'mpi', but the PyTorch wheels are built without MPI; use the nccl backend for GPU training (DIST_BACKEND=nccl or change the default), or build PyTorch from source against MPI if MPI is really needed.",
    ["DIST_BACKEND=nccl", "\"nccl\"", "'nccl'", "nccl backend", "backend=nccl"],
    "torchrun 2 GPUs; backend = os.environ.get('DIST_BACKEND', 'mpi'), unset. Log verbatim.")
add("l01", "lightning_strategy_dp_removed", "lightning", "launcher", "lightning.strategy", ["lightning.removed_api", "lightning.config"],
    "Lightning 2.x removed the DataParallel strategy ('dp'); use strategy='ddp' (or 'auto') with devices=2.",
    ["strategy=\"ddp\"", "strategy='ddp'", "removed", "DataParallel", "no longer"],
    "python train.py; L.Trainer(accelerator='gpu', devices=2, strategy='dp'). Log verbatim.")
# ---- healthy
add("h01", "healthy_ddp_no_sync_grad_accum_nproc_gpu", "torch.distributed", "healthy", "healthy", [],
    "none: DDP with no_sync gradient accumulation (4 micro-steps) launched with --nproc-per-node gpu; weights in sync; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)
add("h02", "healthy_ring_batch_isend_irecv", "torch.distributed", "healthy", "healthy", [],
    "none: ring exchange of blocks with batch_isend_irecv; each rank saw both blocks; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)
add("h04", "healthy_nccl_info_init_env_cumem_off", "nccl", "healthy", "healthy", [],
    "none: all_reduce benchmark with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV NCCL_CUMEM_ENABLE=0; the IB 'No device found' / plugin lines are normal on a single node; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)
add("h06", "healthy_fsdp2_dcp_async_save_restore", "torch.distributed", "healthy", "healthy", [],
    "none: FSDP2 model checkpointed with dcp.async_save under 'cpu:gloo,cuda:nccl' while training continued, then restored; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)
add("h07", "healthy_fsdp1_fp16_sharded_grad_scaler", "torch.distributed", "healthy", "healthy", [],
    "none: FSDP1 with fp16 MixedPrecision, ShardedGradScaler and model.clip_grad_norm_ trained 20 steps; exit 0.", [],
    "torchrun 2 GPUs. Log verbatim.", healthy=True)

bad = []
for c in C:
    t = c["text"]; tl = t.lower()
    n = t.count("\n") + 1
    if n > 400: bad.append((c["id"], "lines", n))
    for w in ("p40", "plant", "heldout", "eval-", "@@split"):
        if w in tl: bad.append((c["id"], "leak", w))
    if not c["healthy"]:
        if not 2 <= len(c["fix_keywords"]) <= 5: bad.append((c["id"], "nkw"))
        for k in c["fix_keywords"]:
            if all(p.lower() in tl for p in k.split("&")): bad.append((c["id"], "kw in text", k))
    for f in [c["family"]] + c["family_alternatives"]:
        if f != "healthy" and not any(l == f or l.startswith(f) for l in LABELS):
            bad.append((c["id"], "family", f))
with open(os.path.join(D, "explain_heldout_p40.jsonl"), "w", encoding="utf-8") as fo:
    for c in C:
        fo.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases;", sum(c["healthy"] for c in C), "healthy; max lines", max(c["text"].count("\n") + 1 for c in C))
print("BUILD-BAD:", bad)
