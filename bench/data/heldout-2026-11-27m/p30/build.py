"""Build explain_heldout_p30.jsonl from logs/ (labels written after reading each log, before any scoring)."""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
def log(n, head=None):
    d = "logs2" if n.startswith("s") else "logs"
    t = open(os.path.join(HERE, d, n + ".log"), encoding="utf-8", errors="replace").read()
    if head:
        t = "".join(t.splitlines(True)[:head])
    return t
SRC = "planted-gpu-2026-11-27-p30"
TR = "torchrun --nproc-per-node 2 --master-port %d train.py"
rows = []
def add(name, log_name, category, group, family, alts, fix, kws, note, pre="", head=None, healthy=False):
    text = pre + log(log_name, head)
    rows.append(dict(id="p30-" + name, url="planted:" + name, source_repo=SRC, category=category, text=text,
                     family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy,
                     group=group, label_note=note))

H = dict(fix="none: the run succeeded.", kws=[], healthy=True)
# ---------------- user code
add("new_subgroups_group_size_gt_world", "u01", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.usage", "code.library_error"],
    "dist.new_subgroups(group_size=4) was written for 4-GPU nodes; group_size must not exceed (and must divide) the world size. Derive it from the launch: group_size=int(os.environ['LOCAL_WORLD_SIZE']) or torch.cuda.device_count() (here 2), or build the groups with a DeviceMesh.",
    ["LOCAL_WORLD_SIZE", "device_count", "group_size=2", "DeviceMesh"],
    "torchrun 2 GPUs (H200 pair); new_subgroups(group_size=4) for a hierarchical all-reduce. Log verbatim.")
add("scatter_object_list_empty_output", "u02", "torch.distributed", "usercode", "torch.distributed_usage",
    ["code.library_error", "torch.usage"],
    "scatter_object_list needs a pre-sized output list on every rank: pass my_shard = [None] (one slot) and read my_shard[0]; an empty list [] is rejected.",
    ["[None]", "one slot", "pre-sized", "preallocat"],
    "torchrun 2 GPUs; rank 0 scatters per-rank file lists with scatter_object_list(my_shard, shards, src=0) where my_shard = []. Log verbatim.")
add("gradscaler_on_half_model", "u04", "torch", "usercode", "torch.usage",
    ["usercode.dtype_mismatch", "code.library_error"],
    "The model was converted with .half(), so its gradients are fp16 and GradScaler refuses to unscale them. Keep the parameters in float32 (drop model.half()) and let torch.autocast run the fp16 math; or, if you want half-precision weights, use bf16 without a GradScaler.",
    ["float32&parameters", "fp32 master", "model.half()", "without a GradScaler", "without GradScaler"],
    "torchrun 2 GPUs; DDP model .cuda().half(), autocast fp16, GradScaler.unscale_ before clip_grad_norm_. Log verbatim.")
add("loss_parallel_backward_outside_context", "u06", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.tp_plan", "torch.usage"],
    "With tensor-parallel loss (loss_parallel), the backward of the sharded cross-entropy must run inside the same `with loss_parallel():` context; move loss.backward() into the with block.",
    ["backward() inside", "backward inside", "inside the loss_parallel", "within the loss_parallel", "inside the same"],
    "torchrun 2 GPUs; logits distributed as DTensor Shard(1) (vocab-parallel), F.cross_entropy under loss_parallel(), loss.backward() after the with block. NOTE the final message ('got mixed torch.Tensor and DTensor') also appears in earlier sets for other mechanisms; this mechanism (backward outside loss_parallel) is new. Log verbatim.")
add("p2p_send_to_own_rank", "u07", "torch.distributed", "usercode", "torch.distributed_usage",
    ["code.exception", "torch.usage"],
    "The pipeline's destination expression picks the process's own rank when world size is 2 (dst=... else rank); a rank cannot send to itself. Send to the peer, dst=(rank + 1) % world, (and receive from (rank - 1) % world); for data that stays on the same rank just use the tensor.",
    ["(rank + 1) % world", "(rank+1)", "peer rank", "the other rank"],
    "torchrun 2 GPUs; ring send/recv with a special case for world size 2 that sends to self. Log verbatim.")
add("rpc_distributed_optimizer_with_ddp", "u08", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.usage", "code.exception"],
    "torch.distributed.optim.DistributedOptimizer belongs to the RPC framework and expects a list of RRefs to remote parameters. With DDP use an ordinary optimizer on model.parameters() (torch.optim.Adam); to shard optimizer state use ZeroRedundancyOptimizer or FSDP.",
    ["torch.optim.Adam(model", "ordinary optimizer", "ZeroRedundancyOptimizer", "regular optimizer", "RPC framework"],
    "torchrun 2 GPUs; DDP model with DistributedOptimizer(torch.optim.Adam, model.parameters(), lr=...). Log verbatim.")
add("dtensor_from_local_uneven_shards", "u10", "torch.distributed", "usercode", "torch.distributed_usage",
    ["torch.collective_mismatch", "torch.ranks_diverge"],
    "DTensor.from_local(..., [Shard(0)], run_check=False) assumes every rank holds an equal shard, so with 3 rows on rank 0 and 2 on rank 1 each rank infers a different global shape and full_tensor() gathers mismatched sizes (wrong rows on rank 1, rank 0 stuck). Pass the true global shape and stride (from_local(..., shape=(5, 4), stride=(4, 1))) or pad the shards to equal size.",
    ["shape=(5", "stride=", "pad the", "padding", "equal size"],
    "torchrun 2 GPUs; 5 validation embeddings split 3/2 over the ranks. Rank 1 prints a wrong global shape (4,4) and row sums; rank 0 hangs in full_tensor, then TCPStore/heartbeat warnings repeat until the harness killed the job at 90 s. text = first 120 of 701 lines (the rest repeats the same TCPStore recvValue/sendBytes warning and C++ frames).",
    head=120)
add("premul_sum_op_bare", "u11", "torch.distributed", "usercode", "torch.distributed_usage",
    ["code.library_error", "code.exception"],
    "ReduceOp.PREMUL_SUM cannot be passed as a bare op: it has to be built with its factor (dist._make_nccl_premul_sum(1.0 / world_size)). For gradient averaging simply use op=dist.ReduceOp.AVG with NCCL, or SUM and divide by the world size.",
    ["_make_nccl_premul_sum", "ReduceOp.AVG", "divide by the world size", "op=dist.ReduceOp.SUM"],
    "torchrun 2 GPUs; dist.all_reduce(g, op=dist.ReduceOp.PREMUL_SUM). Log verbatim.")
add("jax_jit_args_on_two_devices", "u13", "jax", "usercode", "jax.usage",
    ["usercode.tensors_on_two_devices", "jax.sharding_shape"],
    "The params were device_put on GPU 0 and the batch on GPU 1; one jitted call needs all arguments on the same device(s). device_put both to the same device, or lay them out over a Mesh with NamedSharding (params replicated, batch sharded).",
    ["same device", "NamedSharding", "replicate", "Mesh("],
    "python train.py on 2 GPUs (JAX 0.11.2). Log verbatim.")
add("jax_make_mesh_hardcoded_4", "u14", "jax", "usercode", "jax.usage",
    ["jax.sharding_shape", "code.library_error"],
    "The mesh shape is hard-coded for 4 GPUs; build it from the devices present, e.g. jax.make_mesh((jax.device_count(),), ('data',)).",
    ["jax.device_count()", "device_count()", "len(jax.devices())"],
    "python train.py on 2 GPUs; jax.make_mesh((4,), ('data',)). Log verbatim.")
add("jax_pmap_leading_axis_4_on_2", "u15", "jax", "usercode", "jax.usage",
    ["jax.sharding_shape", "usercode.shape_mismatch"],
    "pmap maps over the leading axis, which must equal the number of local devices: the batch was prepared as [4, ...] for a 4-GPU box but only 2 GPUs are present. Reshape to (jax.local_device_count(), -1, ...) (or move to jit with a NamedSharding).",
    ["local_device_count()", "reshape", "leading axis", "number of local devices"],
    "python train.py on 2 GPUs; pmap over an array of shape (4, 32, 128). JAX's message is an unhelpful squeeze error. Log verbatim.")
add("jax_partitionspec_axis_not_in_mesh", "u16", "jax", "usercode", "jax.usage",
    ["jax.sharding_shape", "code.library_error"],
    "The PartitionSpec names an axis ('data') that the Mesh does not have (it was built with axis name 'batch'); use the mesh's axis name, P('batch', None), or name the mesh axis 'data'.",
    ["P('batch'", "P(\"batch\"", "mesh's axis name", "axis_names", "rename the"],
    "python train.py on 2 GPUs; Mesh(devices, ('batch',)) but NamedSharding(mesh, P('data', None)). Log verbatim.")
add("fsdp2_full_state_dict_rank0_only", "w03", "torch.distributed", "usercode", "torch.collective_mismatch",
    ["nccl.timeout", "torch.distributed_usage"],
    "get_model_state_dict(..., full_state_dict=True) all-gathers the FSDP shards, so it is a collective: call it on every rank and only do torch.save on rank 0 (or use torch.distributed.checkpoint to save sharded).",
    ["every rank", "on each rank", "torch.distributed.checkpoint", "dcp.save"],
    "torchrun 2 GPUs, timeout 40 s; FSDP2 model, rank 0 alone calls get_model_state_dict(full_state_dict=True, cpu_offload=True) while rank 1 goes to barrier(); watchdog timeout on both. Job killed by the harness at 100 s. Log verbatim.")
# ---------------- configuration
add("cvd_minus_one", "c01", "cuda", "configuration", "cuda.not_available",
    ["cuda.visible_devices_no_effect", "cuda.init_failed"],
    "CUDA_VISIBLE_DEVICES=-1 hides every GPU from the job; unset CUDA_VISIBLE_DEVICES or list the GPUs (CUDA_VISIBLE_DEVICES=0,1).",
    ["unset CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES=0,1", "hides every", "hides all"],
    "2 GPUs present; the job environment exports CUDA_VISIBLE_DEVICES=-1 (left from a CPU-only test). The first line (the shell command) was added by the evaluator; the rest is the log verbatim.",
    pre="$ CUDA_VISIBLE_DEVICES=-1 NCCL_DEBUG=WARN " + TR % 29828 + "\n")
add("cvd_space_separated", "c02", "cuda", "configuration", "cuda.invalid_device_ordinal",
    ["cuda.visible_devices_no_effect", "launcher.nproc_gpus"],
    "CUDA_VISIBLE_DEVICES was given space-separated ('0 1'); CUDA stops at the first invalid entry, so only GPU 0 is visible and local rank 1 has no device. Use a comma-separated list, CUDA_VISIBLE_DEVICES=0,1.",
    ["comma", "CUDA_VISIBLE_DEVICES=0,1"],
    "2 GPUs present; CUDA_VISIBLE_DEVICES=\"0 1\" torchrun --nproc-per-node 2. The first line (the shell command) was added by the evaluator; the rest is the log verbatim.",
    pre="$ CUDA_VISIBLE_DEVICES=\"0 1\" NCCL_DEBUG=WARN " + TR % 29829 + "\n")
add("jax_cvd_empty_cpu_fallback", "c03", "jax", "configuration", "cuda.visible_devices_no_effect",
    ["jax.backend_init", "jax.no_cuda_plugin", "cuda.not_available"],
    "The CUDA jaxlib plugin is installed; CUDA_VISIBLE_DEVICES is set to an empty string, which hides all GPUs (cuInit: CUDA_ERROR_NO_DEVICE), so JAX falls back to the CPU and the 'data' mesh has 1 device. Unset CUDA_VISIBLE_DEVICES or list the GPUs (0,1).",
    ["unset CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES=0,1", "empty string", "hides all"],
    "python train.py (JAX 0.11.2 with jax-cuda13-plugin) with CUDA_VISIBLE_DEVICES='' exported; the run completes on CPU. The first line (the shell command) was added by the evaluator; the rest is the log verbatim.",
    pre="$ CUDA_VISIBLE_DEVICES= python train.py\n")
add("inductor_cache_dir_is_a_file", "c04", "torch.compile", "configuration", "errno.eexist",
    ["torch.compile_error", "compile"],
    "TORCHINDUCTOR_CACHE_DIR points at an existing file (/etc/hostname), so Inductor cannot create its cache directory; point it to a writable directory (e.g. $HOME/.cache/inductor) or unset it to use the default /tmp/torchinductor_<user>.",
    ["writable directory", "unset TORCHINDUCTOR_CACHE_DIR", "a directory"],
    "python train.py on one GPU with TORCHINDUCTOR_CACHE_DIR=/etc/hostname (a job template filled the wrong variable). The first line (the shell command) was added by the evaluator; the rest is the log verbatim.",
    pre="$ TORCHINDUCTOR_CACHE_DIR=/etc/hostname python train.py\n")
# ---------------- words (user's description added in front of the log; said so in label_note)
add("w_fsdp2_optimizer_before_shard", "w01", "torch.distributed", "words", "torch.fsdp_params_not_updated",
    ["torch.loss_not_decreasing", "torch.loss_differs_multi_gpu"],
    "The optimizer was created before fully_shard(); fully_shard replaces the module's parameters with new DTensor parameters, so the optimizer holds the old tensors and never updates the sharded weights. Create the optimizer after fully_shard (on model.parameters() of the sharded model).",
    ["after fully_shard", "optimizer after", "create the optimizer", "DTensor param"],
    "torchrun 2 GPUs; 64-256-1 MLP regression, per-Linear fully_shard then root; AdamW constructed BEFORE fully_shard. Baseline (same program, optimizer built after fully_shard, run beside it in the same batch): step 50 loss 0.3641 (logs/b01.log). The first two sentences are the user's description, written by the evaluator; the rest is the log verbatim.",
    pre="User: after moving this model to FSDP2 (fully_shard) on 2 GPUs the loss barely moves (70 -> 50-65 over 60 steps), while our reference run of the same model and data on the same 2 GPUs is at 0.36 by step 50. No error or warning anywhere.\n\n")
add("w_contrastive_allgather_no_grad", "w02", "torch.distributed", "words", "torch.loss_differs_multi_gpu",
    ["torch.distributed_usage", "torch.ranks_diverge"],
    "dist.all_gather returns tensors with no autograd history, so the negatives gathered from other ranks contribute no gradient (only the local slice does). Gather the embeddings with the autograd-aware torch.distributed.nn.functional.all_gather.",
    ["torch.distributed.nn", "autograd-aware", "differentiable", "nn.functional.all_gather"],
    "torchrun 2 GPUs; InfoNCE loss over a global batch, negatives gathered with dist.all_gather and the local slice put back. Baseline (same data/seed, gather with torch.distributed.nn.functional.all_gather): identical loss, grad_norm 0.0233/0.0209/0.0209/0.0218/0.0194/0.0175 vs 0.0167/0.0148/0.0167/0.0170/0.0147/0.0136 (logs/b02.log). The first two sentences are the user's description, written by the evaluator; the rest is the log verbatim.",
    pre="User: our 2-GPU contrastive training has the same loss values as the reference implementation on the same global batch, but its gradient norm is ~25-30% lower every step (0.0167 vs 0.0233 at step 0) and it learns more slowly. Nothing is printed besides the normal output.\n\n")
add("w_inductor_force_disable_caches", "w04", "torch.compile", "words", "torch.slow_setting",
    ["torch.slow_debug_setting", "compile"],
    "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 is set in the job environment; it turns off Inductor's FX-graph/AOTAutograd/Triton caches (and dynamo PGO), so every launch recompiles from scratch. Unset it to get warm-cache restarts.",
    ["TORCHINDUCTOR_FORCE_DISABLE_CACHES", "unset TORCHINDUCTOR_FORCE", "FORCE_DISABLE_CACHES=0"],
    "python train.py twice in a row with the same TORCHINDUCTOR_CACHE_DIR/TRITON_CACHE_DIR, one GPU; case with TORCHINDUCTOR_FORCE_DISABLE_CACHES=1: first step 17.9 s then 16.4 s; baseline (unset, run at the same time on the other GPU): 18.6 s then 8.5 s (logs/b04.log). The first two sentences are the user's description, written by the evaluator; the rest is the log verbatim.",
    pre="User: restarting our compiled training job never gets faster: the first step takes 16-18 s on every launch even with the same cache directory, while a colleague's second launch of the same script on the same node takes 8.5 s. We did not change the code.\n\n")
add("w_autocast_float64", "u05", "torch", "words", "torch.slow_setting",
    ["torch.gpu_underutilized", "torch.multi_gpu_no_speedup"],
    "The autocast dtype comes out as torch.float64 (AMP_DTYPE default 'float64'), so autocast runs the matmuls in double precision, slower than plain fp32. Use dtype=torch.bfloat16 (or float16) for mixed precision.",
    ["bfloat16", "bf16", "float16"],
    "torchrun 2 GPUs; DDP 2x Linear(4096) for 30 steps under torch.autocast('cuda', dtype=getattr(torch, AMP_DTYPE)) with AMP_DTYPE defaulting to 'float64' (no warning from torch). Baseline with AMP_DTYPE=bfloat16 run beside it in the same batch: 0.59 s vs 1.09 s for 30 steps (logs/b05.log). The first two sentences are the user's description, written by the evaluator; the rest is the log verbatim.",
    pre="User: I added torch.autocast to our DDP step to speed it up, but 30 steps take 1.09 s, about twice the 0.59 s a colleague gets with the same model on the same two GPUs. Mixed precision is supposed to make it faster, not slower.\n\n")
add("w_hashstore_ranks_never_meet", "u03", "torch.distributed", "words", "torch.distributed_usage",
    ["torch.c10d_error", "torch.collective_mismatch"],
    "Each rank creates its own dist.HashStore, an in-process store, so the ranks never see each other's keys and init waits forever. Use a store shared by all ranks: drop store= under torchrun (env:// uses the TCPStore on MASTER_ADDR:MASTER_PORT), or a TCPStore / FileStore on a shared path.",
    ["TCPStore", "env://", "FileStore", "shared store", "in-process"],
    "torchrun 2 GPUs; init_process_group('nccl', store=dist.HashStore(), rank, world_size, timeout=20 s). No error is printed; the harness killed it at 75 s. The first two sentences are the user's description, written by the evaluator; the rest is the log verbatim.",
    pre="User: the 2-GPU job prints the NCCL version line and then hangs with no error, well past the 20 s timeout I pass to init_process_group; it never gets to the first all_reduce. I had to kill it.\n\n")
# ---------------- healthy
add("healthy_ddp_cpp_log_info", "h01", "torchrun", "healthy", "healthy", [], H["fix"], [],
    "torchrun 2 GPUs with TORCH_CPP_LOG_LEVEL=INFO TORCH_DISTRIBUTED_DEBUG=INFO; DDP training 40 steps; ends with an INFO 'uv_loop_close failed ... EBUSY' line that is harmless; healthy run. Log verbatim.", healthy=True)
add("healthy_nccl_info_allreduce_bench", "h02", "nccl", "healthy", "healthy", [], H["fix"], [],
    "torchrun 2 GPUs with NCCL_DEBUG=INFO; 256 MiB all_reduce timing (112 GB/s busbw while other jobs shared the machine); healthy run. Log verbatim.", healthy=True)
add("healthy_fsdp2_compile_bf16", "h03", "torch.distributed", "healthy", "healthy", [], H["fix"], [],
    "torchrun 2 GPUs; FSDP2 with bf16 MixedPrecisionPolicy, whole model torch.compile'd, 12 steps; healthy run. Log verbatim.", healthy=True)
add("healthy_jax_namedsharding_2gpu", "h04", "jax", "healthy", "healthy", [], H["fix"], [],
    "python train.py, JAX 0.11.2 on 2 GPUs; jit step with data sharded over a 2-device Mesh; healthy run. Log verbatim.", healthy=True)
add("healthy_triton_kernel_ddp_check", "h05", "triton", "healthy", "healthy", [], H["fix"], [],
    "torchrun 2 GPUs; a Triton fused bias+ReLU kernel checked against torch on each rank, error max-reduced with NCCL; healthy run. Log verbatim.", healthy=True)
add("healthy_distributed_run_module_gpu", "h06", "torchrun", "healthy", "healthy", [], H["fix"], [],
    "python -m torch.distributed.run --standalone --nproc-per-node gpu; DDP training 40 steps; healthy run. Log verbatim.", healthy=True)
add("healthy_compile_debug_traces", "c05", "torch.compile", "healthy", "healthy", [], H["fix"], [],
    "python train.py, one GPU, TORCH_COMPILE_DEBUG=1; Inductor prints 'debug trace:' warnings and the TF32 hint, compile 28 s (vs 18.6 s without debug in another run), run completes; healthy run. Log verbatim.", healthy=True)

# ---------------- second device call (logs2/)
add("force_weights_only_env_overrides", "s01", "torch", "configuration", "torch.checkpoint_load",
    ["python.pickle", "code.library_error"],
    "TORCH_FORCE_WEIGHTS_ONLY_LOAD=1 is exported in the job environment and overrides the explicit weights_only=False in torch.load, so the trusted checkpoint (which pickles an argparse.Namespace) is loaded weights-only and rejected. Unset TORCH_FORCE_WEIGHTS_ONLY_LOAD for this job (or allowlist the class with add_safe_globals).",
    ["TORCH_FORCE_WEIGHTS_ONLY_LOAD", "FORCE_WEIGHTS_ONLY", "environment variable&weights_only"],
    "python train.py (save) then python train.py --resume ckpt.pt on one GPU, with TORCH_FORCE_WEIGHTS_ONLY_LOAD=1 exported (as if by a site profile; not shown in the text, no command line added). The code passes weights_only=False explicitly. Log verbatim.")
add("inductor_remote_cache_without_redis", "s02", "torch.compile", "configuration", "torch.compile_error",
    ["compile", "code.python_env"],
    "TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE=1 is set (copied from a cluster config) but there is no redis package/server here, so every compile logs 'Unable to create a remote cache'. Unset it to use only the local cache, or pip install redis and point TORCHINDUCTOR_REDIS_HOST/PORT at the cache server.",
    ["TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE", "pip install redis", "REDIS_HOST", "remote cache&unset"],
    "python train.py, one GPU, TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE=1 exported (not shown in the text, no command line added); the run completes (compile 25.9 s) after two warning tracebacks. Log verbatim.")
add("torchrun_redirects_hide_rank_traceback", "s03", "torchrun", "configuration", "cascade.child_failed",
    [],
    "The real exception is not on the console because torchrun was started with --redirects 3 --log-dir ./run_logs: each rank's stdout/stderr went to ./run_logs/<run_id>/attempt_0/<local_rank>/stderr.log. Read rank 1's stderr.log (here a matmul shape mismatch), or rerun with --tee 3 (or without --redirects); decorating main with @record also fills error_file.",
    ["stderr.log", "--tee", "attempt_0", "@record"],
    "torchrun 2 GPUs with --redirects 3 --log-dir ./run_logs; rank 1 raises a matmul shape error (16x32 @ 48x8) before an all_reduce; the console shows only the ChildFailedError summary. Files written: run_logs/none_<id>/attempt_0/{0,1}/{stdout,stderr}.log (s03_files.txt). The same program without --redirects prints the RuntimeError (logs2/s06.log, not a case). The first line (the shell command) was added by the evaluator; the rest is the log verbatim.",
    pre="$ NCCL_DEBUG=WARN torchrun --nproc-per-node 2 --master-port 29961 --redirects 3 --log-dir ./run_logs train.py\n")
add("w_inductor_cpp_wrapper_slow_compile", "s04", "torch.compile", "words", "torch.slow_setting",
    ["compile", "torch.slow_debug_setting"],
    "TORCHINDUCTOR_CPP_WRAPPER=1 is set in the environment; Inductor then generates and compiles a C++ wrapper for every graph with the host compiler, which makes a cold compile several times slower. Unset it (the default Python wrapper) unless you need the C++ wrapper.",
    ["TORCHINDUCTOR_CPP_WRAPPER", "cpp_wrapper", "C++ wrapper"],
    "python train.py, one GPU, fresh caches, TORCHINDUCTOR_CPP_WRAPPER=1: first (compile) step 109.7 s. Baselines on the same kind (2x H200): 18.6 s unset (run 1, logs/b04.log) and 25.1-25.9 s for runs beside it with other Inductor env settings (logs2/s02.log, logs2/s05.log). The first two sentences are the user's description, written by the evaluator; the rest is the log verbatim.",
    pre="User: after switching to the new job template the torch.compile warm-up of this small model takes 110 s; the same script compiles in 18-26 s on the same kind of node with our old template. The training itself is fine.\n\n")

# dropped after the novelty re-check (same mechanism as an earlier planted case), before any scoring
DROPPED = {"p2p_send_to_own_rank": "p6-send_to_self", "jax_pmap_leading_axis_4_on_2": "p22-jax_pmap_more_than_devices",
           "cvd_minus_one": "p2-cuda_visible_devices_1 / p28-nproc_gpu_cvd_empty (CUDA_VISIBLE_DEVICES hides the GPUs)",
           "cvd_space_separated": "p28-cvd_semicolon (bad separator in CUDA_VISIBLE_DEVICES)",
           "jax_cvd_empty_cpu_fallback": "p28-nproc_gpu_cvd_empty (empty CUDA_VISIBLE_DEVICES)",
           "healthy_ddp_cpp_log_info": "p8-healthy_gloo_client_retry_late_server (TORCH_CPP_LOG_LEVEL=INFO / uv_loop_close noise)"}
rows = [r for r in rows if r["url"][len("planted:"):] not in DROPPED]
bad = []
for r in rows:
    low = r["text"].lower()
    n = len(r["text"].splitlines())
    assert n <= 400, (r["id"], n)
    for w in ("p30", "plant", "heldout"):
        assert w not in low, (r["id"], w)
    if not r["healthy"]:
        assert 2 <= len(r["fix_keywords"]) <= 5, r["id"]
        for k in r["fix_keywords"]:
            parts = [p.lower() for p in k.split("&")]
            if all(p in low for p in parts):
                bad.append((r["id"], k))
assert not bad, bad
with open(os.path.join(HERE, "explain_heldout_p30.jsonl"), "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), "rows")
