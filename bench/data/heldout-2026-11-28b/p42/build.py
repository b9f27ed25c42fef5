#!/usr/bin/env python3
"""Build explain_heldout_p42.jsonl from logs/ + labels written from the plant and the log (eval-p42)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SC = {}
for mf in ("manifest_run1.json", "manifest2.json"):
    SC.update({s["name"]: s for s in json.load(open(os.path.join(D, mf)))["scenarios"]})
MACH = ("planted on 2x NVIDIA H100 80GB HBM3 (kind nvidia-h100-x2, driver 580.159.04, Python 3.12, "
        "torch 2.11.0+cu130, NCCL 2.28.9), harness plant42.py + %s, log logs/%s.log, rc %s")

def cmdline(name):
    s = SC[name]
    pre = " ".join("%s=%s" % (k, ("'%s'" % v) if " " in v else v) for k, v in s["env"].items())
    return "$ " + (pre + " " if pre else "") + s["cmd"]

def text(name):
    log = open(os.path.join(D, "logs", name + ".log"), encoding="utf-8", errors="replace").read().rstrip("\n")
    return cmdline(name) + "\n" + log

C = []
def add(name, cid, category, group, family, alts, fix, kws, note, healthy=False):
    scen = "scen2.py" if name.startswith("v") or name == "h07" else "scen.py"
    C.append(dict(id="p42-" + cid, url="planted:p42-" + cid, source_repo="planted-gpu-2026-11-28-p42",
                  category=category, text=text(name), family=family, family_alternatives=alts,
                  fix=fix, fix_keywords=kws, healthy=healthy, group=group,
                  label_note=(MACH % (scen, name, SC[name]["rc"])) + "; " + note))

TD = "torch.distributed"
# ---- user code
add("u02", "ddp_two_backwards_one_forward", TD, "usercode", "torch.ddp_ready_twice",
    ["torch.distributed_usage"],
    "The DDP model's two-head output is backpropagated twice per forward (cls_loss.backward(retain_graph=True) then reg_loss.backward()), so DDP's reducer sees each shared parameter's gradient hook fire twice in one iteration. Sum the losses and call backward once ((cls_loss + reg_loss).backward()).",
    ["cls_loss + reg_loss", "sum the losses", "single backward", "backward once", "one backward"],
    "torchrun 2 GPUs; DDP over a body + two heads; two backward calls per step. Both ranks raise 'Expected to mark a variable ready only once' at the second backward. Neighbours with the same message but another cause: the reentrant-checkpoint cases (p13-ddp_reentrant_ckpt_shared_block, msswift-3171, aq-trl). Log verbatim.")
add("u07", "batch_isend_irecv_ops_on_two_groups", TD, "usercode", "torch.distributed_usage", ["torch.c10d_error"],
    "One batch_isend_irecv call mixes P2POps on a gloo subgroup (the shape metadata) with P2POps on the default NCCL group; every op in one batch must use the same group. Issue the gloo ops and the NCCL ops in two separate batch_isend_irecv calls (or send the metadata on the NCCL group too).",
    ["separate batch_isend_irecv", "two batch_isend_irecv", "two calls", "separate calls", "split the ops"],
    "torchrun 2 GPUs; init 'cuda:nccl,cpu:gloo'; new_group(backend='gloo') for a shape tensor; ring of 4 P2POps (2 on the gloo group, 2 default). ValueError on both ranks. Log verbatim.")
add("u13", "set_device_local_rank_plus_one", "cuda", "usercode", "cuda.invalid_device_ordinal",
    ["torch.distributed_usage"],
    "The script numbers GPUs from 1 (gpu = LOCAL_RANK + 1), so local rank 1 asks for cuda:2 on a 2-GPU node; CUDA device indices start at 0. Use torch.cuda.set_device(local_rank) (and the same index for device_id).",
    ["set_device(local_rank", "start at 0", "0-based", "zero-based", "off-by-one"],
    "torchrun 2 GPUs on a node with exactly 2 GPUs; torch.cuda.set_device(LOCAL_RANK + 1). Local rank 1 fails with invalid device ordinal. The traceback shows only set_device(gpu), so the answer has to infer the off-by-one from 'GPU device may be out of range' with nproc 2 (doubtful: a generic 'nproc > GPUs' answer is likely). Log verbatim.")
add("u14", "all_to_all_input_list_longer_than_world", TD, "usercode", "torch.distributed_usage",
    ["nccl.ncclInvalidArgument", "nccl.invalid_usage"],
    "dist.all_to_all got 4 input/output tensors (one per expert) in a world of 2 ranks; the lists must have exactly world_size tensors, one per destination rank. Group the experts' chunks per rank (e.g. tokens.chunk(world_size)) or use all_to_all_single with split sizes.",
    ["world_size", "one per rank", "one tensor per rank", "all_to_all_single", "number of ranks"],
    "torchrun 2 GPUs; n_experts=4, inp = list(tokens.chunk(4)); dist.all_to_all(out, inp). Both ranks get 'NCCL Error 4: invalid argument' (no torch-side list-length check). Log verbatim.")
add("u16", "dcp_save_given_module", TD, "usercode", "torch.distributed_usage", ["torch.dcp_files", "code.exception"],
    "dcp.save was given the DDP module itself; it expects a state dict (a dict of tensors / Stateful objects). Save {'model': model.state_dict()} (or get_state_dict(model, optimizer) from torch.distributed.checkpoint.state_dict).",
    ["state_dict()", "get_state_dict", "a state dict", "a dict"],
    "torchrun 2 GPUs; DDP, 3 steps, then dcp.save(model, checkpoint_id=...). AttributeError 'DistributedDataParallel' object has no attribute 'items' on both ranks. Log verbatim.")
add("u17", "fsdp_transformer_auto_wrap_policy_not_partial", TD, "usercode", "torch.distributed_usage",
    ["code.exception", "torch.usage"],
    "transformer_auto_wrap_policy was passed as auto_wrap_policy directly, without binding transformer_layer_cls; use functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}) (or ModuleWrapPolicy({Block})).",
    ["functools.partial", "partial(", "ModuleWrapPolicy"],
    "torchrun 2 GPUs; FSDP1 of a 6-block net with auto_wrap_policy=transformer_auto_wrap_policy. TypeError missing 'transformer_layer_cls'. The fix (partial) was verified by h06 in the same call. Log verbatim.")
add("u18", "fsdp1_mixed_precision_given_dtype", TD, "usercode", "torch.distributed_usage", ["torch.usage", "code.exception"],
    "FSDP's mixed_precision argument takes a MixedPrecision config, not a dtype; pass mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16 or torch.float32, buffer_dtype=torch.bfloat16).",
    ["MixedPrecision(", "param_dtype"],
    "torchrun 2 GPUs; FSDP1 with mixed_precision=torch.bfloat16. AttributeError 'torch.dtype' object has no attribute '_module_classes_to_ignore'. h06 (MixedPrecision(param_dtype=bf16)) ran in the same call. Log verbatim.")
add("u19", "fsdp1_hybrid_shard_single_process_group", TD, "usercode", "torch.distributed_usage", ["torch.usage"],
    "HYBRID_SHARD needs two groups (shard within a node, replicate across nodes): pass process_group=None (FSDP builds them), a (shard_group, replicate_group) tuple, or device_mesh=init_device_mesh('cuda', (replicas, shard_size)); on one node use FULL_SHARD instead.",
    ["FULL_SHARD", "device_mesh", "process_group=None", "(shard_group", "two process groups"],
    "torchrun 2 GPUs; FSDP1 sharding_strategy=HYBRID_SHARD with process_group=new_group(all ranks). ValueError 'Expected process_group to be passed in as either None or Tuple[...]'. Log verbatim.")
add("v01", "dcp_load_checkpoint_dir_missing", TD, "usercode", "torch.checkpoint_load", ["torch.dcp_files", "errno.enoent"],
    "dcp.load was pointed (RESUME_FROM) at /tmp/runs/exp7/ckpt/step_2000, where no checkpoint was ever written, so there is no .metadata file and the load plan fails with 'metadata is None'. Point checkpoint_id at the directory that dcp.save wrote (it must contain .metadata and be visible to every rank), or check that it exists before resuming.",
    [".metadata", "does not exist", "doesn't exist", "wrong path", "os.path.exists"],
    "torchrun 2 GPUs; dcp.load(state, checkpoint_id='/tmp/runs/exp7/ckpt/step_2000'), a path that does not exist on the machine. CheckpointException with AssertionError 'metadata is None' for both ranks (no FileNotFoundError is shown). Log verbatim.")
add("v02", "device_mesh_slice_without_dim_names", TD, "usercode", "torch.distributed_usage", ["torch.usage"],
    "The DeviceMesh was created without mesh_dim_names, so mesh['dp'] cannot slice it; create it with init_device_mesh('cuda', (world_size,), mesh_dim_names=('dp',)) (or use the 1-D mesh itself).",
    ["mesh_dim_names=", "('dp',)", "(\"dp\",)"],
    "torchrun 2 GPUs; mesh = init_device_mesh('cuda', (ws,)); mesh['dp']. RuntimeError 'Cannot slice a DeviceMesh without mesh_dim_names!'. Neighbour p10-mesh_dim_name_config (a name that differs from the mesh's names). Log verbatim.")
add("v03", "tp_colwise_without_rowwise", TD, "usercode", "torch.distributed_usage", ["usercode.shape_mismatch"],
    "Only the first Linear got ColwiseParallel, so each rank's output is its local column shard (16x1024) and the unparallelized second Linear (2048->512) cannot take it; shard the second Linear with RowwiseParallel (plan {'0': ColwiseParallel(), '2': RowwiseParallel()}) or make the colwise output replicated (output_layouts=Replicate(), use_local_output).",
    ["RowwiseParallel", "Replicate()", "output_layouts", "use_local_output"],
    "torchrun 2 GPUs; parallelize_module(mlp, mesh, {'0': ColwiseParallel()}) on Linear(512,2048)-ReLU-Linear(2048,512). 'mat1 and mat2 shapes cannot be multiplied (16x1024 and 2048x512)' on both ranks. h04 in call 1 (same MLP with Colwise+Rowwise) ran with max error ~1e-7. Log verbatim.")
add("v04", "zero_redundancy_optimizer_class_instance", TD, "usercode", "torch.distributed_usage", ["code.exception", "torch.usage"],
    "ZeroRedundancyOptimizer's optimizer_class takes the optimizer class, and builds it for each shard; the script passed an AdamW instance. Use ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4).",
    ["optimizer_class=torch.optim.AdamW,", "the class", "not an instance", "class itself"],
    "torchrun 2 GPUs; DDP + ZeroRedundancyOptimizer(params, optimizer_class=torch.optim.AdamW(params, lr=1e-4)). TypeError 'AdamW' object is not callable on both ranks. Log verbatim.")
add("v05", "ddp_device_ids_int", TD, "usercode", "torch.distributed_usage", ["code.exception", "torch.usage"],
    "DistributedDataParallel's device_ids must be a list (device_ids=[local_rank]); the script passed the int local rank.",
    ["device_ids=[lr]", "device_ids=[local_rank]", "[local_rank]", "a list"],
    "torchrun 2 GPUs; DDP(model, device_ids=lr). TypeError object of type 'int' has no len() on both ranks. Log verbatim.")
add("v06", "futures_wait_all_given_work_handles", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "torch.futures.wait_all takes torch.futures.Future objects, but dist.all_reduce(..., async_op=True) returns Work handles; call w.wait() on each handle (or pass [w.get_future() for w in handles]).",
    ["get_future", "w.wait()", "h.wait()", "each handle", "wait() on each"],
    "torchrun 2 GPUs; manual gradient all_reduce with async_op=True, then torch.futures.wait_all(handles). TypeError _collect_all(): incompatible function arguments. The fix (w.wait() per handle) was verified by h07 in the same call (ranks in sync). Log verbatim.")
# ---- configuration
add("u12", "backend_string_semicolon", TD, "config", "torch.distributed_usage", ["torch.usage", "torch.c10d_error"],
    "The backend string uses ';' between device:backend pairs ('cpu:gloo;cuda:nccl'); the separator is a comma: init_process_group(backend='cpu:gloo,cuda:nccl') (DIST_BACKEND).",
    ["comma", "semicolon"],
    "torchrun 2 GPUs; init_process_group(backend=os.environ.get('DIST_BACKEND', 'cpu:gloo;cuda:nccl')). ValueError 'Invalid device:backend pairing' on both ranks; the message itself shows the comma format (an easy case). Log verbatim.")
# ---- healthy
H = "none: healthy run"
add("h02", "healthy_ddp_dcp_get_set_state_dict_roundtrip", TD, "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; DDP, get_state_dict/dcp.save, 3 more steps, dcp.load/set_state_dict; both ranks report the step-5 weights restored. rc 0. Log verbatim.", healthy=True)
add("h03", "healthy_nccl_trace_buffer_cpp_log_info", "nccl", "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; all_reduce benchmark with TORCH_NCCL_TRACE_BUFFER_SIZE=2000, TORCH_CPP_LOG_LEVEL=INFO, NCCL_DEBUG=WARN: c10d INFO lines and a deprecation warning (use TORCH_FR_BUFFER_SIZE), 293 GB/s busbw. rc 0. Log verbatim.", healthy=True)
add("h06", "healthy_fsdp1_transformer_wrap_bf16", TD, "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; FSDP1 with functools.partial(transformer_auto_wrap_policy, {Block}) and MixedPrecision(param bf16, reduce fp32); prints the wrapped model and the loss. rc 0. Log verbatim.", healthy=True)
add("h07", "healthy_manual_async_allreduce_wait", TD, "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; manual data parallel with async all_reduce(AVG) per grad and w.wait() on each handle; ranks in sync. rc 0. Log verbatim.", healthy=True)

assert len({c["id"] for c in C}) == len(C)
with open(os.path.join(D, "explain_heldout_p42.jsonl"), "w") as f:
    for c in C:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases,", sum(c["healthy"] for c in C), "healthy")
