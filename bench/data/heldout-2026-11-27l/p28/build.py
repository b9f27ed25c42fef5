#!/usr/bin/env python3
"""Build explain_heldout_p28.jsonl from the saved logs (labels written after reading each log, before scoring)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = "planted-gpu-2026-11-27-p28"


def log(name, folder="logs"):
    with open(os.path.join(HERE, folder, name + ".log"), encoding="utf-8", errors="replace") as f:
        return f.read().rstrip("\n")


CASES = []


def case(name, category, group, family, alts, fix, kws, note, text=None, folder="logs", healthy=False):
    CASES.append(dict(id="p28-" + name, url="planted:" + name, source_repo=SRC, category=category,
                      text=text if text is not None else log(name, folder), family=family,
                      family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy, group=group,
                      label_note=note))


# ---------------------------------------------------------------- user code
case("new_group_rank0_only", "torch.distributed", "usercode", "torch.collective_mismatch",
     ["nccl.timeout", "torch.distributed_usage"],
     "dist.new_group() is a collective over the whole default group: every rank must call it (same ranks, same "
     "order), also ranks that will not use it. Move new_group out of the `if rank == 0:` block and only use the "
     "group on its members.",
     ["every rank", "called by all", "outside the if", "new_group&each rank"],
     "torchrun 2 GPUs, NCCL, PG timeout 30 s. Rank 0 alone calls dist.new_group([0, 1]) for an eval group and "
     "blocks in it; rank 1 goes on to dist.barrier() and its watchdog times out (ALLREDUCE SeqNum=9). Log verbatim.")
case("tp_colwise_on_layernorm", "torch.distributed", "usercode", "torch.tp_plan",
     ["torch.distributed_usage", "torch.usage"],
     "ColwiseParallel/RowwiseParallel only shard nn.Linear and nn.Embedding. Take the LayerNorm out of the "
     "tensor-parallel plan (leave it replicated) or use SequenceParallel() for the norm.",
     ["SequenceParallel", "replicat", "remove&norm", "only the Linear"],
     "torchrun 2 GPUs; parallelize_module plan {'norm': ColwiseParallel(), 'up': ColwiseParallel(), "
     "'down': RowwiseParallel()} where norm is nn.LayerNorm. Log verbatim.")
case("dtensor_placements_len", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
     "distribute_tensor needs exactly one placement per mesh dimension: on the 1-D mesh use [Shard(0)]; if a "
     "Shard+Replicate layout is meant, build a 2-D mesh (init_device_mesh('cuda', (dp, tp))).",
     ["[Shard(0)]", "one placement per", "2-D mesh", "2D mesh", "two-dimensional mesh"],
     "torchrun 2 GPUs; 1-D mesh, distribute_tensor(w, mesh, [Shard(0), Replicate()]). Log verbatim.")
case("mesh_device_type_with_index", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
     "init_device_mesh takes a device type, not a device: pass \"cuda\" (device.type), not str(torch.device('cuda', "
     "local_rank)) = 'cuda:1'; select the rank's GPU with torch.cuda.set_device(local_rank).",
     ["init_device_mesh(\"cuda\"", "init_device_mesh('cuda'", "\"cuda\"", "'cuda'"],
     "torchrun 2 GPUs; init_device_mesh(str(torch.device('cuda', local)), (2,)). Log verbatim.")
case("spawn_fn_missing_rank", "torch.multiprocessing", "usercode", "torch.distributed_usage",
     ["code.exception", "python.multiprocessing"],
     "torch.multiprocessing.spawn calls fn(process_index, *args): the worker must take the rank as its first "
     "parameter, e.g. def train(rank, world_size), and use that rank.",
     ["def train(rank", "process index", "first parameter", "first argument", "(rank, world_size)"],
     "python train.py on 2 GPUs; mp.spawn(train, args=(world_size,), nprocs=2) with def train(world_size). "
     "Log verbatim.")
case("default_device_cuda_loader", "torch", "usercode", "torch.usage",
     ["code.exception", "usercode.tensors_on_two_devices"],
     "torch.set_default_device('cuda') makes RandomSampler's randperm run on CUDA while the sampler's generator is a "
     "CPU generator. Pass generator=torch.Generator(device='cuda') to the DataLoader, or do not set the default "
     "device globally (create the model/tensors with device= or inside `with torch.device('cuda'):` only).",
     ["Generator(device='cuda')", "Generator(device=\"cuda\")", "generator=torch.Generator(device",
      "with torch.device(", "set_default_device&remov"],
     "python train.py, one GPU; torch.set_default_device('cuda') then DataLoader(TensorDataset, shuffle=True). "
     "Log verbatim.")
case("compile_mode_and_options", "torch.compile", "usercode", "torch.compile_error", ["torch.usage", "compile"],
     "torch.compile accepts either mode= or options=, not both. Keep one: e.g. options={'max_autotune': True, "
     "'triton.cudagraphs': False} without mode, or mode='max-autotune' alone (other settings through "
     "torch._inductor.config).",
     ["max_autotune", "_inductor.config", "drop options", "remove options", "only one of"],
     "python train.py, one GPU; torch.compile(model, mode='max-autotune', options={'triton.cudagraphs': False}). "
     "Log verbatim.")
case("spm_vocab_too_high", "sentencepiece", "usercode", "code.library_error", ["code.exception"],
     "The training corpus yields fewer pieces than vocab_size=8000: lower vocab_size to at most the printed limit, "
     "train the tokenizer on (much) more text, or pass hard_vocab_limit=false to treat vocab_size as a soft limit.",
     ["hard_vocab_limit=false", "hard_vocab_limit=False", "lower vocab_size", "reduce vocab_size",
      "larger corpus"],
     "python prep_tokenizer.py (tokenizer step of a training pipeline); SentencePieceTrainer.train on a 300-line "
     "corpus with vocab_size=8000. Log verbatim (sentencepiece's own INFO lines included).")
case("ddp_device_ids_all_gpus", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
     "With one process per GPU each DDP instance drives a single device: pass device_ids=[local_rank] (after "
     "torch.cuda.set_device(local_rank)), not the list of all GPUs.",
     ["device_ids=[local_rank]", "[local_rank]", "one GPU per process", "single GPU per", "one device per"],
     "torchrun 2 GPUs; DistributedDataParallel(model, device_ids=list(range(torch.cuda.device_count()))). "
     "Log verbatim.")
case("adamw_fused_and_foreach", "torch", "usercode", "torch.usage", ["code.exception"],
     "Choose one implementation: fused=True with foreach left unset (or False), or foreach=True without fused.",
     ["only one", "foreach=False", "leave foreach", "drop foreach", "remove foreach"],
     "python train.py, one GPU; torch.optim.AdamW(..., fused=True, foreach=True). Log verbatim.")
case("fsdp2_fully_shard_twice", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
     "fully_shard can be applied once per module; the model builder already sharded the blocks and the root, so "
     "remove the second round of fully_shard in the trainer (or skip modules that are already FSDPModule).",
     ["FSDPModule", "remove the second", "only once", "once per module", "already sharded"],
     "torchrun 2 GPUs; build_model() applies fully_shard to blocks and root, the trainer applies it again. "
     "Log verbatim.", folder="logs2")
case("ddp_over_fully_shard", "torch.distributed", "usercode", "torch.distributed_usage",
     ["torch.usage", "code.exception"],
     "Do not wrap a fully_shard (FSDP2) model in DistributedDataParallel: FSDP2 already synchronises gradients "
     "over its mesh. Use FSDP2 alone (or DDP alone on an unsharded model; for replicate+shard use an HSDP 2-D mesh).",
     ["not both", "drop DDP", "remove DDP", "without DDP", "HSDP"],
     "torchrun 2 GPUs; fully_shard(model, mesh) then DistributedDataParallel(model, device_ids=[local]). "
     "DDP's parameter broadcast hits DTensor parameters. Log verbatim.", folder="logs2")
case("fsdp2_reshard_int_3", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
     "An int reshard_after_forward must divide the shard-group size (2 here); use True/False, or an int factor of "
     "the shard world size (it is meant for resharding to a smaller intra-node group).",
     ["reshard_after_forward=True", "reshard_after_forward=False", "divisor", "divides the", "factor such as"],
     "torchrun 2 GPUs; fully_shard(blk, mesh=mesh, reshard_after_forward=3). Log verbatim.", folder="logs2")
case("sdpa_gqa_heads_indivisible", "torch", "usercode", "torch.usage",
     ["usercode.shape_mismatch", "torch.sdpa_no_kernel"],
     "With enable_gqa=True the number of query heads must be a multiple of the number of key/value heads: choose "
     "n_kv_heads dividing n_heads (12 query heads: 1, 2, 3, 4, 6 or 12 kv heads), or repeat_interleave k/v.",
     ["multiple of", "divisor", "divides n_heads", "n_kv_heads", "repeat_interleave"],
     "python train.py, one GPU; F.scaled_dot_product_attention with 12 query heads, 5 kv heads, enable_gqa=True. "
     "torch's message is cut after 'number of heads in'. Log verbatim.", folder="logs2")
case("collective_group_rank_list", "torch.distributed", "usercode", "torch.distributed_usage",
     ["code.exception", "torch.usage"],
     "group= takes a ProcessGroup, not a list of ranks: create it once on all ranks with g = dist.new_group([0, 1]) "
     "and pass group=g (or omit group for the default world group).",
     ["new_group(", "dist.new_group", "group=None", "omit group", "world group"],
     "torchrun 2 GPUs; dist.all_reduce(t, group=[0, 1]). Log verbatim.", folder="logs2")
case("pg_timeout_int_seconds", "torch.distributed", "usercode", "torch.distributed_usage", ["code.exception"],
     "init_process_group's timeout must be a datetime.timedelta, e.g. timeout=timedelta(seconds=1800) "
     "(or timedelta(minutes=30)), not a plain int.",
     ["timedelta(seconds", "timedelta(minutes", "seconds=1800", "minutes=30"],
     "torchrun 2 GPUs; dist.init_process_group(backend='nccl', init_method='env://', timeout=1800). Log verbatim.",
     folder="logs2")

# ---------------------------------------------------------------- configuration (command line added)
CMD_NOTE = (" The first line (the shell command as the user typed it, '$ ' prompt) was added by the evaluator; "
            "the rest is the log verbatim.")
case("cvd_semicolon", "cuda", "configuration", "cuda.invalid_device_ordinal",
     ["launcher.nproc_gpus", "cuda.visible_devices_no_effect"],
     "CUDA_VISIBLE_DEVICES was written with a semicolon ('0;1'); CUDA stops parsing at the first invalid entry, so "
     "only GPU 0 is visible and local rank 1 has no device. Use a comma-separated list (CUDA_VISIBLE_DEVICES=0,1) "
     "or unset it.",
     ["comma", "CUDA_VISIBLE_DEVICES=0,1", "unset CUDA_VISIBLE_DEVICES"],
     "2 GPUs present; CUDA_VISIBLE_DEVICES=\"0;1\" torchrun --nproc-per-node 2. Rank 1's set_device fails." + CMD_NOTE,
     text="$ CUDA_VISIBLE_DEVICES=\"0;1\" torchrun --nproc-per-node 2 --master-port 29721 train.py\n"
          + log("cvd_semicolon"))
case("nccl_comm_blocking_0", "nccl", "configuration", "nccl.config",
     ["nccl.invalid_usage", "torch.distributed_usage"],
     "NCCL_COMM_BLOCKING=0 makes NCCL communicators non-blocking (calls return ncclInProgress), which this "
     "PyTorch/NCCL path does not handle; unset NCCL_COMM_BLOCKING (or set it to 1).",
     ["unset NCCL_COMM_BLOCKING", "NCCL_COMM_BLOCKING=1", "non-blocking", "nonblocking"],
     "torchrun 2 GPUs, NCCL 2.28.9, torch 2.11; all_reduce benchmark script with NCCL_COMM_BLOCKING=0 exported "
     "(NCCL_DEBUG=WARN)." + CMD_NOTE,
     text="$ NCCL_DEBUG=WARN NCCL_COMM_BLOCKING=0 torchrun --nproc-per-node 2 --master-port 29723 train.py\n"
          + log("nccl_comm_blocking_0"))
case("nproc_gpu_cvd_empty", "torchrun", "configuration", "launcher.nproc_gpus",
     ["cuda.not_available", "cuda.visible_devices_no_effect"],
     "--nproc-per-node gpu counts the visible GPUs and CUDA_VISIBLE_DEVICES is set to an empty string, which hides "
     "every GPU; unset CUDA_VISIBLE_DEVICES (or list the GPUs, e.g. 0,1), or give --nproc-per-node a number.",
     ["unset CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES=0,1", "empty", "hides all", "hides every"],
     "2 GPUs present; CUDA_VISIBLE_DEVICES='' (exported empty by a job wrapper) and torchrun --nproc-per-node gpu."
     + CMD_NOTE,
     text="$ CUDA_VISIBLE_DEVICES= NCCL_DEBUG=WARN torchrun --nproc-per-node gpu --master-port 29724 train.py\n"
          + log("nproc_gpu_cvd_empty"))

# ---------------------------------------------------------------- words (user description added)
W_NOTE = (" The first paragraph (the user's description) was added by the evaluator; the rest is the case run's log "
          "verbatim. Baseline log: ")
case("w_fsdp2_cpu_offload", "torch.distributed", "words", "torch.slow_setting",
     ["zero_offload", "torch.gpu_underutilized", "torch.multi_gpu_no_speedup"],
     "The memory-saving recipe enables FSDP2 CPU offload (fully_shard(..., offload_policy=CPUOffloadPolicy())): "
     "parameters/gradients live on the CPU, are copied every step and AdamW steps on the CPU. Drop the offload "
     "policy when the model fits in GPU memory.",
     ["offload_policy", "CPUOffloadPolicy", "offload"],
     "torchrun 2 GPUs, 12x Linear(2048) blocks, each fully_shard'ed; case with CPUOffloadPolicy 158.5 ms/step, "
     "baseline without it 30.6 ms/step, run one after the other on the idle machine." + W_NOTE
     + "logs/base_fsdp2_cpu_offload.log.",
     text="I switched our FSDP2 (fully_shard) job to the memory-saving config from our big-model recipe. The same "
          "12-block model on the same 2 GPUs now takes about 160 ms per step instead of about 31 ms; no errors, the "
          "loss is identical. What makes it 5x slower?\n\n" + log("w_fsdp2_cpu_offload"))
case("w_bcast_half_workers", "torch.distributed", "words", "usercode.dtype_mismatch",
     ["torch.ranks_diverge", "torch.nan_one_rank"],
     "Rank 1 converted its model to fp16 before the rank-0 broadcast of fp32 parameters; NCCL broadcast does not "
     "check dtypes, so rank 0's fp32 bytes are reinterpreted as fp16 (NaN/huge values). Keep the same dtype on "
     "every rank for the broadcast and cast to half afterwards.",
     ["same dtype", "dtype mismatch", "different dtype", "dtypes differ", "cast after"],
     "torchrun 2 GPUs; rank != 0 calls model.half() before dist.broadcast(p.data, src=0) of each parameter; "
     "baseline (all fp32) gives identical weights on both ranks." + W_NOTE + "logs/base_bcast_half_workers.log.",
     text="At startup rank 0 broadcasts its freshly initialised weights to the other ranks (dist.broadcast on every "
          "parameter); ranks > 0 run the model in half precision because they also serve as cheap eval workers. "
          "After the broadcast rank 1's weights are garbage (NaN, values like -2768) and its output is nan, rank 0 "
          "is fine, nothing raises. Without the eval-worker setting both ranks match exactly.\n\n"
          + log("w_bcast_half_workers"))
case("w_taskset_one_core", "torchrun", "words", "torch.gpu_underutilized",
     ["torch.slow_setting", "code.blas_threads"],
     "The job is launched under `taskset -c 0`, so both ranks and all their DataLoader workers are pinned to one "
     "CPU core and the CPU-bound preprocessing runs serially. Launch without the taskset wrapper (or give each "
     "rank its own cores, e.g. --cpus-per-task / numactl).",
     ["taskset", "cpuset", "cpus-per-task", "CPU binding", "one core"],
     "torchrun 2 GPUs, DataLoader with 6 workers doing a NumPy FFT per sample; case launched as "
     "`taskset -c 0 torchrun ...` 807 samples/s/rank, baseline plain torchrun 3835 samples/s/rank, one after the "
     "other." + W_NOTE + "logs/base_taskset_one_core.log.",
     text="Since we moved the launch into our site wrapper script, an epoch takes 2.5 s instead of 0.5 s "
          "(807 vs 3835 samples/s per rank) on the same node with the same data, and the DataLoader warns about "
          "the worker count. GPUs are mostly idle.\n\n" + log("w_taskset_one_core"))
case("w_compile_threads_1", "torch.compile", "words", "torch.slow_setting",
     ["compile", "torch.slow_debug_setting"],
     "TORCHINDUCTOR_COMPILE_THREADS=1 (set in the job environment) makes Inductor compile its Triton kernels "
     "serially in the main process; unset it so kernels are compiled by the parallel worker pool.",
     ["unset TORCHINDUCTOR_COMPILE_THREADS", "compile_threads", "parallel compil", "serial"],
     "python train.py, one GPU each, fresh Inductor/Triton cache dirs; case TORCHINDUCTOR_COMPILE_THREADS=1 first "
     "step 35.8 s, baseline (unset) 17.6 s, both started together on GPU 0 / GPU 1; steady step equal." + W_NOTE
     + "logs/base_compile_threads_1.log.",
     text="Our first training step (the torch.compile warm-up) takes about 36 s in the cluster job but about 18 s "
          "when I run the same script by hand on the same node type, with empty caches both times. Steady-state "
          "step time is the same.\n\n" + log("w_compile_threads_1"))

# ---------------------------------------------------------------- healthy
H = "healthy run; no failure. Log verbatim."
case("healthy_fsdp2_compile_blocks", "torch.distributed", "healthy", "healthy", [], "none: the run succeeded.", [],
     "torchrun 2 GPUs; FSDP2 with bf16 MixedPrecisionPolicy and per-block compile(); " + H, healthy=True)
case("healthy_funcol_compile", "torch.distributed", "healthy", "healthy", [], "none: the run succeeded.", [],
     "torchrun 2 GPUs; functional all_reduce inside a torch.compile'd function; " + H, healthy=True)
case("healthy_dtensor_redistribute", "torch.distributed", "healthy", "healthy", [], "none: the run succeeded.", [],
     "torchrun 2 GPUs; distribute_tensor Shard(0) then redistribute to Replicate, checked equal; " + H, healthy=True)
case("healthy_pci_order_reversed_info", "nccl", "healthy", "healthy", [], "none: the run succeeded.", [],
     "torchrun 2 GPUs with CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1,0 NCCL_DEBUG=INFO; NCCL INFO lines "
     "about missing IB / net plugins are normal on a single node; allreduce 229.7 GB/s; " + H, healthy=True)
case("healthy_loglevel_info_ddp", "torchrun", "healthy", "healthy", [], "none: the run succeeded.", [],
     "torchrun 2 GPUs with LOGLEVEL=INFO TORCH_NCCL_HIGH_PRIORITY=1; DDP bf16 autocast training, 2 epochs; " + H,
     healthy=True)
case("healthy_spm_ddp", "sentencepiece", "healthy", "healthy", [], "none: the run succeeded.", [],
     "torchrun 2 GPUs; rank 0 trains a SentencePiece model (vocab 40, its INFO log), barrier, both ranks load it "
     "and run a DDP embedding step; " + H, folder="logs2", healthy=True)
case("healthy_cudagraph_sizes_warning", "torch.compile", "healthy", "healthy", [], "none: the run succeeded.", [],
     "python train.py, one GPU; torch.compile(mode='reduce-overhead', dynamic=True) with 60 batch sizes; the "
     "[__cudagraphs] 'too many distinct sizes' warning is printed but the run finishes and was not slower than "
     "mode='default' run beside it (6.9 s vs 7.3 s for 240 steps, logs2/base_cudagraph_many_sizes.log). Planted "
     "as a words candidate (w_cudagraph_many_sizes), relabelled healthy after seeing no slowdown; " + H,
     text=log("w_cudagraph_many_sizes", "logs2"), healthy=True)


def check():
    bad = []
    for c in CASES:
        t = c["text"]
        low = t.lower()
        n = len(t.splitlines())
        if n > 400:
            bad.append((c["id"], "lines %d" % n))
        for w in ("p28", "plant", "heldout", "held-out"):
            if w in low:
                bad.append((c["id"], "leak " + w))
        if not c["healthy"]:
            if not 2 <= len(c["fix_keywords"]) <= 5:
                bad.append((c["id"], "kw count %d" % len(c["fix_keywords"])))
            for k in c["fix_keywords"]:
                parts = [p.lower() for p in k.split("&")]
                if all(p in low for p in parts):
                    bad.append((c["id"], "kw in text: " + k))
    return bad


if __name__ == "__main__":
    bad = check()
    for b in bad:
        print("BAD", b)
    with open(os.path.join(HERE, "explain_heldout_p28.jsonl"), "w", encoding="utf-8") as f:
        for c in CASES:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(len(CASES), "cases;", sum(c["healthy"] for c in CASES), "healthy")
