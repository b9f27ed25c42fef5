#!/usr/bin/env python3
"""Build explain_heldout_p53.jsonl from the planted logs in run1/ and run2/ (eval-p53)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
ENV = ("planted on 2x NVIDIA H200 (kind nvidia-h200-x2, driver 580.159.04, Python 3.12, torch 2.11.0+cu130, CUDA 13.0, "
       "NCCL 2.28.9), harness build/p53/plant53.py + %s (copied into harness/), log %s, rc %s; ")
TR = "torchrun --standalone --nproc-per-node 2 train.py"
PY = "python train.py"
def log(run, name):
    return open(os.path.join(D, run, name + ".log"), encoding="utf-8").read().rstrip("\n")
C = []
def add(sid, run, name, cmd, family, alts, fix, kws, note, category="torch.distributed", group="usercode",
        healthy=False, rc="1"):
    scen = "scen.py" if run == "run1" else "scen2.py"
    text = "$ " + cmd + "\n" + log(run, name)
    C.append(dict(id="p53-" + sid, url="planted:p53-" + sid, source_repo="planted-gpu-2026-11-28-p53", category=category,
                  text=text, family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy,
                  group=group, label_note=ENV % (scen, "%s/%s.log" % (run, name), rc) + note))

add("join_throw_on_early_termination_uneven_shards", "run1", "f01", TR, "torch.distributed_usage",
    ["torch.collective_mismatch"],
    "The ranks have different numbers of batches (20 vs 14) and the loop runs under Join(..., throw_on_early_termination=True), "
    "which deliberately raises on every rank as soon as one rank runs out of inputs. Give every rank the same number of batches "
    "(DistributedSampler / drop_last / equal shards), or keep the default throw_on_early_termination=False so Join shadows the "
    "collectives of the finished rank.",
    ["DistributedSampler", "drop_last", "throw_on_early_termination=False", "same number of batches"],
    "planted: per-rank shard sizes 20/14 with Join([ddp], throw_on_early_termination=True); rank1 'exhausted all inputs', rank0 "
    "'Detected at least one rank that exhausted inputs. Throwing across all ranks.' The same loop under Join without the flag "
    "(with ZeRO joined too) ran to the end in run1/h01.log (high).")
add("nccl_nan_check_trap_on_nan_input_one_rank", "run1", "f05", "TORCH_NCCL_NAN_CHECK=1 " + TR, "torch.nan_one_rank",
    ["usercode.nan_inf", "cuda.cudaErrorLaunchFailure"],
    "TORCH_NCCL_NAN_CHECK=1 makes every NCCL collective check its input and trap the GPU when it holds a NaN; rank 1 read a "
    "corrupt record (NaN feature) at step 6, its gradients became NaN and the DDP all-reduce trapped, which surfaces as "
    "'unspecified launch failure' in the watchdog (not a hardware fault). Find and drop the bad sample (check inputs/loss with "
    "torch.isfinite / torch.isnan before backward); the NaN check did its job.",
    ["isfinite", "isnan", "nan check", "corrupt"],
    "planted: rank 1's loader writes NaN into one feature of its step-6 batch; with TORCH_NCCL_NAN_CHECK=1 the watchdog on rank 1 "
    "reports CUDA error: unspecified launch failure (SIGABRT) right after step 5. Without NaN the same job is a normal DDP run "
    "(the NaN source is the only planted difference). The log never says 'NaN' except in the env var (medium-high).")
add("dataparallel_plain_tensor_attribute_not_buffer", "run1", "f08", PY, "usercode.tensors_on_two_devices", ["torch.usage"],
    "The module keeps its positional table as a plain tensor attribute (self.pos = pos.cuda()), so nn.DataParallel's replicate() "
    "copies only parameters and buffers to GPU 1 and replica 1 still adds a cuda:0 tensor. Register it with "
    "self.register_buffer('pos', pos) (or make it an nn.Parameter with requires_grad=False, or move it to x.device in forward).",
    ["register_buffer", "buffer"],
    "planted: PosMLP with self.pos = pos.cuda() under nn.DataParallel on 2 GPUs -> 'Caught RuntimeError in replica 1 on device 1 "
    "... found at least two devices, cuda:1 and cuda:0'. The same model with register_buffer trained fine in run1/h04.log (high).",
    category="cuda")
add("ddp_bucket_cap_mb_zero", "run1", "f11", TR, "torch.distributed_usage", ["torch.usage"],
    "DistributedDataParallel(..., bucket_cap_mb=0): 0 is treated like 'not given' and trips the internal assertion. Pass a "
    "positive (non-zero) bucket size, e.g. bucket_cap_mb=1 for small buckets, or leave the default (25 MB).",
    ["positive", "non-zero", "nonzero", "25 mb", "25mb"],
    "planted: DDP(model, device_ids=[lr], bucket_cap_mb=0) -> AssertionError: bucket_cap_mb should be set by now, on both "
    "ranks at construction (high; a positive value is the documented type).")
add("fsdp2_device_mesh_built_on_cpu", "run1", "f13", TR, "torch.distributed_usage", ["usercode.cpu_tensor_to_nccl"],
    "The DeviceMesh passed to fully_shard was created with init_device_mesh(\"cpu\", ...), so FSDP2 runs its all-gathers as "
    "CPU collectives on a process group that has only the NCCL (cuda) backend. Build the mesh for the GPUs: "
    "init_device_mesh(\"cuda\", (world_size,)), or omit mesh= to use the default cuda mesh.",
    ['init_device_mesh("cuda"', "cuda mesh", "mesh on cuda", "device type of the mesh"],
    "planted: mesh = init_device_mesh('cpu', (2,)) with a CUDA model and an NCCL process group; fully_shard accepted it and the "
    "first forward's foreach_all_gather raised 'No backend type associated with device type cpu'. That message is known from "
    "earlier sets for CPU tensors sent to NCCL; here the mechanism is the mesh device type (medium-high).")
add("dtensor_pointwise_across_two_meshes", "run1", "f18", TR, "torch.distributed_usage", ["torch.usage"],
    "w lives on the 1-D 'dp' mesh and b on the 'tp' sub-mesh of a second, 2-D mesh; DTensor operators require both operands "
    "on the same DeviceMesh even when the ranks are the same. Create both tensors on the same mesh (or move one over with "
    "to_local() + DTensor.from_local(..., mesh) / redistribute on the common mesh).",
    ["same mesh", "same device mesh", "same devicemesh", "from_local"],
    "planted: distribute_tensor on init_device_mesh('cuda',(2,),('dp',)) and on init_device_mesh('cuda',(1,2),('pp','tp'))['tp'], "
    "then w + b -> 'Could not run pointwise computation across different mesh' (high).")
add("join_without_zero_optimizer_joinable", "run2", "r01", TR, "torch.collective_mismatch",
    ["nccl.timeout", "torch.distributed_usage"],
    "Uneven shards (20 vs 14 batches) are handled with Join([model]) but the ZeroRedundancyOptimizer is not passed to Join: after "
    "rank 1 finished, rank 0's ZeRO step still broadcasts parameters while rank 1 waits in Join's all-reduce, so both time out. "
    "Pass the optimizer as a joinable too: Join([model, opt]) (ZeRO implements Joinable), or give all ranks the same number of batches.",
    ["Join([model, opt", "Join([model, optimizer", "joinable", "same number of batches"],
    "planted: DDP + ZeroRedundancyOptimizer, Join([model]) only; watchdog timeouts (15 s PG timeout) with rank0 in BROADCAST from "
    "zero_redundancy_optimizer._broadcast_params_from_rank and rank1 in ALLREDUCE from join._get_num_nonjoined_procs. "
    "The same run with Join([model, opt]) finished in run1/h01.log. Log ends while dumping (the run was killed at 40 s) (high).", rc="killed by harness at 40 s")
add("dataparallel_forward_returns_python_int", "run2", "r03", PY, "torch.usage", ["code.exception"],
    "nn.DataParallel gathers every output of the replicas along dim 0; the forward returns a Python int (int(mask.sum())) next to "
    "the logits, which cannot be gathered ('int' object is not iterable in gather_map). Return tensors only (e.g. keep "
    "mask.sum() as a tensor and sum it afterwards) or compute the count outside the model.",
    ["return a tensor", "as a tensor", "tensors only", "outside the model"],
    "planted: forward returns (logits, int(mask.sum())) under DataParallel on 2 GPUs -> TypeError in scatter_gather.gather_map (high).",
    category="cuda")
add("device_mesh_dim_names_string_not_tuple", "run2", "r06", TR, "torch.distributed_usage", ["code.exception"],
    "mesh_dim_names=(\"dp\") is just the string 'dp' (parentheses without a comma), whose length is 2, so it does not match the "
    "1-D mesh shape. Write a one-element tuple: mesh_dim_names=(\"dp\",).",
    ['("dp",)', "trailing comma", "one-element tuple", "tuple"],
    "planted: init_device_mesh('cuda', (2,), mesh_dim_names=('dp')) -> 'mesh_shape and mesh_dim_names should have same length! "
    "Found len(mesh_dim_names): 2 and len(mesh_shape):1' (high).")
add("batch_isend_irecv_empty_op_list", "run2", "r11", TR, "torch.distributed_usage", ["code.exception"],
    "In the backward exchange the first pipeline stage (rank 0) has no P2P ops, and dist.batch_isend_irecv([]) fails on the empty "
    "list (IndexError in _check_p2p_op_list). Only call batch_isend_irecv when the list is non-empty (if ops: ...), and make sure "
    "each isend has a matching irecv on the peer.",
    ["if ops", "non-empty", "nonempty", "empty list"],
    "planted: rank 0 builds no ops for the gradient exchange (its irecv branch is disabled) and calls batch_isend_irecv([]) -> "
    "IndexError: list index out of range at p2p_op_list[0]. An earlier set (p42) hit the same check with ops on two groups; "
    "here the mechanism is an empty list (high for the IndexError; the missing irecv is secondary).")
add("nccl_scatter_uneven_chunks", "run2", "r12", TR, "torch.distributed_usage", ["torch.collective_mismatch"],
    "10,001 rows do not split evenly over 2 ranks: tensor.chunk gives 5001 + 5000 rows, but every tensor in scatter_list must have "
    "exactly the output tensor's shape. Pad the data to a multiple of the world size (or drop the remainder) so all chunks are "
    "equal, or send the sizes first and use scatter_object_list / per-rank sizes.",
    ["pad", "multiple of the world size", "evenly", "equal size", "divisible"],
    "planted: dist.scatter(recv(5000,64), scatter_list=data.chunk(2)) with 10001 rows -> ProcessGroupNCCL::scatter: invalid tensor "
    "size at index 0 (expected (5000, 64), got (5001, 64)) (high).")
add("ddp_find_unused_parameters_differs_per_rank", "run2", "r14", TR, "torch.collective_mismatch",
    ["nccl.timeout", "torch.ddp_model_mismatch"],
    "find_unused_parameters is set per rank (True on rank 1, False on rank 0, because only rank 0 uses the aux head), so the two "
    "DDP instances issue different reduction collectives (rank 1 all-reduces a 6-element unused-parameter bitmap, rank 0 the "
    "17931-element gradient bucket) and the job hangs until the watchdog timeout. DDP arguments must be identical on all ranks: "
    "use find_unused_parameters=True everywhere (or make every rank use the aux head).",
    ["find_unused_parameters", "identical on all ranks", "same on every rank", "same on all ranks"],
    "planted: DDP(..., find_unused_parameters=(rank != 0)); rank0 printed step 0, rank1 none; watchdog timeouts with NumelIn=6 "
    "(rank1) vs NumelIn=17931 (rank0). TCPStore recv/send failures before the timeout are noise seen in this run (the job was "
    "killed at 40 s while dumping). Cause settled by the plant; the log itself only shows the size mismatch (medium).", rc="killed by harness at 40 s")

add("healthy_zero_redundancy_optimizer_join_uneven", "run1", "h01", TR, "healthy", [], "", [],
    "healthy: DDP + ZeroRedundancyOptimizer under Join([model, opt]) with 20/14 batches per rank; both ranks finish and "
    "parameters are equal (high).", group="healthy", healthy=True, rc="0")
add("healthy_tp_loss_parallel_colwise_rowwise", "run1", "h02", TR, "healthy", [], "", [],
    "healthy: tensor-parallel LM (Colwise up/head, Rowwise down) with loss_parallel on 2 GPUs, loss falls 10.56 -> 0.025; the "
    "741 ms first step is warm-up (high).", group="healthy", healthy=True, rc="0")
add("healthy_fp8_all_gather_barrier_device_warning", "run2", "h03b", TR, "healthy", [], "", [],
    "healthy: fp8 (e4m3) all_gather_into_tensor of weight shards + scales, 95 GiB/s, rel err 0.027 (expected e4m3 rounding); "
    "the barrier() 'using the device under current context' UserWarning is harmless (high).", group="healthy", healthy=True, rc="0")
add("healthy_dataparallel_registered_buffer", "run1", "h04", PY, "healthy", [], "", [],
    "healthy: nn.DataParallel over 2 H200 with the positional table registered as a buffer; loss falls, first step includes "
    "warm-up (high).", category="cuda", group="healthy", healthy=True, rc="0")

with open(os.path.join(D, "explain_heldout_p53.jsonl"), "w", encoding="utf-8") as f:
    for c in C:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases,", sum(c["healthy"] for c in C), "healthy")
