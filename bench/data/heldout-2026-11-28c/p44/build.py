#!/usr/bin/env python3
"""Build explain_heldout_p44.jsonl from logs/ + labels written from the plant and the log (eval-p44)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SC = {}
for mf in ("manifest_run1.json", "manifest2.json"):
    SC.update({s["name"]: s for s in json.load(open(os.path.join(D, mf)))["scenarios"]})
MACH = ("planted on 2x NVIDIA H100 80GB HBM3 (kind nvidia-h100-x2, Python 3.12, torch 2.11.0+cu130, NCCL 2.28.9), "
        "harness plant44.py + %s, log logs/%s.log, rc %s")

def cmdline(name):
    s = SC[name]
    pre = " ".join("%s=%s" % (k, ("'%s'" % v) if (" " in v or ";" in v) else v) for k, v in s["env"].items())
    return "$ " + (pre + " " if pre else "") + s["cmd"]

def text(name):
    log = open(os.path.join(D, "logs", name + ".log"), encoding="utf-8", errors="replace").read().rstrip("\n")
    return cmdline(name) + "\n" + log

C = []
def add(name, cid, category, group, family, alts, fix, kws, note, healthy=False):
    scen = "scen2.py" if name.startswith("v") or name == "h08" else "scen.py"
    C.append(dict(id="p44-" + cid, url="planted:p44-" + cid, source_repo="planted-gpu-2026-11-28-p44",
                  category=category, text=text(name), family=family, family_alternatives=alts,
                  fix=fix, fix_keywords=kws, healthy=healthy, group=group,
                  label_note=(MACH % (scen, name, SC[name]["rc"])) + "; " + note))

TD = "torch.distributed"
# ---- user code
add("u01", "cvd_narrowed_per_rank_then_set_device_local_rank", "cuda", "usercode", "cuda.invalid_device_ordinal",
    ["torch.distributed_usage"],
    "The script sets CUDA_VISIBLE_DEVICES=str(LOCAL_RANK) inside each worker before CUDA starts, so every worker sees exactly one GPU (index 0), but then calls torch.cuda.set_device(local_rank); local rank 1 asks for cuda:1, which does not exist in its view. After narrowing CUDA_VISIBLE_DEVICES use cuda:0 (set_device(0)), or keep all GPUs visible and use set_device(local_rank).",
    ["CUDA_VISIBLE_DEVICES", "set_device(0)", "cuda:0", "only one GPU visible", "one visible"],
    "torchrun 2 GPUs; train.py sets os.environ['CUDA_VISIBLE_DEVICES']=str(local_rank) before importing torch, then torch.cuda.set_device(local_rank). Local rank 1 fails with 'invalid device ordinal' in set_device; rank 0 gets SIGTERM. The fix (set_device(0) with the same per-rank CUDA_VISIBLE_DEVICES) ran in h03 in the same call (both ranks, all_reduce correct). The env assignment is not in the traceback, so the answer has to infer it (medium). Log verbatim.")
add("u02", "all_reduce_loss_instead_of_gradients", TD, "usercode", "torch.ranks_diverge",
    ["torch.distributed_usage", "torch.loss_differs_multi_gpu"],
    "Manual data parallel all-reduces the loss before backward, but c10d all_reduce has no autograd formula, so the gradients stay local and each rank's weights drift apart (param checksums differ). Average the gradients after backward (dist.all_reduce(p.grad) for every parameter, then divide / ReduceOp.AVG) or wrap the model in DistributedDataParallel; use torch.distributed.nn.functional.all_reduce only if a differentiable collective is really wanted.",
    ["p.grad", "DistributedDataParallel", "DDP", "gradients after backward", "torch.distributed.nn"],
    "torchrun 2 GPUs; same init (seed 0), per-rank data; dist.all_reduce(loss, op=AVG) then loss.backward(). UserWarning 'c10d::allreduce_: an autograd kernel was not registered to the Autograd key(s)...' and param_checksum differs between ranks from step 0 while the printed loss is equal. h04 in the same call (all_reduce of p.grad after backward) keeps the checksums identical. Log verbatim.")
add("u05", "all_reduce_handles_without_async_op", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "The gradient all_reduce calls were made without async_op=True, so they return None and the later h.wait() fails; pass async_op=True to get Work handles (handles = [dist.all_reduce(p.grad, op=AVG, async_op=True) ...]) or drop the wait loop (the synchronous call already enqueued the op).",
    ["async_op=True", "async_op"],
    "torchrun 2 GPUs; handles = [dist.all_reduce(p.grad, op=AVG) for p in params]; for h in handles: h.wait(). AttributeError 'NoneType' object has no attribute 'wait' on both ranks. Log verbatim.")
add("u06", "new_group_order_differs_per_rank", TD, "usercode", "torch.collective_mismatch",
    ["torch.distributed_usage", "nccl.hang"],
    "Rank 0 creates the gloo logging group first and the NCCL dp group second, rank 1 the other way round; new_group must be called by every rank in the same order (groups are matched by creation order), so rank 0 waits in the gloo group's rendezvous while rank 1 connects the NCCL group, and both time out. Create the groups in one fixed order on all ranks (outside any rank-dependent branch).",
    ["same order", "order", "every rank", "all ranks"],
    "torchrun 2 GPUs; init timeout 10 s; if rank == 0: new_group(backend='gloo') then new_group(); else the reverse. Rank 0 fails in ProcessGroupGloo (Failed to recv, got 0 bytes), rank 1 in eager_connect_single_device (ncclRemoteError), then TCPStore broken pipes; the run was killed at the 25 s harness limit. The two tracebacks point at different new_group lines (8 and 11). Medium: the log is noisy and the order has to be read from the two traceback lines. Log verbatim.")
add("u08", "torch_load_on_dcp_shard_file", TD, "usercode", "torch.dcp_files", ["torch.checkpoint_load"],
    "export.py calls torch.load on a DCP shard (__0_0.distcp); files written by torch.distributed.checkpoint are not torch.save zip archives (the file is not corrupted). Load the checkpoint with dcp.load into a state dict, or convert it once with torch.distributed.checkpoint.format_utils.dcp_to_torch_save(ckpt_dir, 'model.pt') and torch.load that file.",
    ["dcp_to_torch_save", "dcp.load", "format_utils", "distributed checkpoint"],
    "torchrun 2 GPUs: dcp.save of the model state dict (prints .metadata, __0_0.distcp, __1_0.distcp), then python export.py does torch.load('ckpt/step_200/__0_0.distcp'). RuntimeError 'PytorchStreamReader failed reading zip archive: invalid header or archive is corrupted'. The fix (dcp_to_torch_save then torch.load) ran in h02 in the same call. Log verbatim.")
add("u09", "cuda_event_elapsed_time_before_sync", "cuda", "usercode", "torch.usage", ["code.exception"],
    "The benchmark calls start.elapsed_time(end) right after end.record(), while the 50 all_reduces are still running on the GPU; wait for the end event first (end.synchronize() or torch.cuda.synchronize()) and then read elapsed_time.",
    ["end.synchronize()", "synchronize", "event.synchronize", "torch.cuda.synchronize"],
    "torchrun 2 GPUs; CUDA events around 50 all_reduces of 256 MiB, elapsed_time read without synchronizing. RuntimeError 'Both events must be completed before calculating elapsed time.' on both ranks. Log verbatim.")
add("u11", "broadcast_object_list_given_dict", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "broadcast_object_list takes a list of objects and fills it in place; the script passed the config dict itself (an empty dict on rank 1), so nothing was broadcast and rank 1 keeps {} and fails with KeyError. Wrap it: obj = [cfg if rank == 0 else None]; dist.broadcast_object_list(obj, src=0); cfg = obj[0].",
    ["[cfg", "a list", "obj[0]", "objects[0]"],
    "torchrun 2 GPUs; cfg = {...} if rank == 0 else {}; dist.broadcast_object_list(cfg, src=0). No error from c10d; rank 1 prints 'cfg {}' and then KeyError: 'lr'. Log verbatim.")
add("u22", "all_gather_object_output_list_too_short", TD, "usercode", "torch.distributed_usage",
    ["usercode.index_out_of_range", "code.exception"],
    "all_gather_object needs an output list with one slot per rank; the script passed [None] in a world of 2. Use gathered = [None] * dist.get_world_size().",
    ["[None] * ", "world_size", "one slot per rank", "one per rank"],
    "torchrun 2 GPUs; gathered = [None]; dist.all_gather_object(gathered, stats). IndexError: list assignment index out of range inside all_gather_object on both ranks. Log verbatim.")
add("u40", "reduce_op_given_as_string", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "The op argument was the string 'sum'; collectives take a ReduceOp enum: dist.all_reduce(t, op=dist.ReduceOp.SUM) (SUM is also the default).",
    ["ReduceOp.SUM", "enum"],
    "torchrun 2 GPUs; dist.all_reduce(correct, op='sum'). TypeError incompatible function arguments (AllreduceOptions, ReduceOp) invoked with 'sum'. Log verbatim.")
add("v20", "send_recv_size_mismatch_hang", TD, "usercode", "torch.collective_mismatch",
    ["nccl.timeout", "nccl.hang", "torch.distributed_usage"],
    "Stage 0 sends a (16, 1024) activation but stage 1 posts recv into a (32, 1024) buffer; NCCL point-to-point needs the same element count on both sides, so the receive never completes and the watchdog times out. Send the shape first (or use the same micro-batch size on both stages) and allocate the receive buffer with exactly the sent shape.",
    ["same size", "same shape", "send the shape", "shape first", "micro-batch size"],
    "torchrun 2 GPUs; init timeout 8 s; dist.send of 16x1024 on rank 0, dist.recv into 32x1024 on rank 1. Rank 1: 'Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=RECV, NumelIn=32768 ...) ran for 8024 ms'; both 'sent'/'received' lines printed; killed at the 25 s harness limit. Log verbatim.")
add("v41", "collective_group_given_rank_list", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "group= expects a ProcessGroup, not a list of ranks; create it once on all ranks with g = dist.new_group(ranks=[...]) and pass group=g (or leave group out for the whole world).",
    ["new_group", "group object", "process group"],
    "torchrun 2 GPUs; dist.all_reduce(x, group=list(range(ws))). TypeError: unhashable type: 'list' in all_reduce, then a second exception in the c10d logger. Log verbatim.")
add("v48", "ddp_comm_hook_returns_tensor", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "The custom DDP communication hook returns a tensor; a hook must return a torch.futures.Future that resolves to the bucket's tensor: return dist.all_reduce(t, async_op=True).get_future().then(lambda f: f.value()[0]) (divide by world size before or in the callback).",
    ["get_future", "async_op=True", ".then("],
    "torchrun 2 GPUs; DDP + register_comm_hook(None, hook) where hook does a blocking all_reduce and returns t / world_size. RuntimeError '... DDP communication hook's callback must return a torch.futures.Future object, but got torch.Tensor' in backward. The fix (async all_reduce get_future().then) ran in h08 in the next call (param checksums equal). Log verbatim.")
add("v49", "register_comm_hook_arguments_swapped", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "DistributedDataParallel.register_comm_hook takes (state, hook); the script passed the hook first and None second. Call model.register_comm_hook(None, default_hooks.bf16_compress_hook) (state first).",
    ["register_comm_hook(None", "state first", "(state, hook)", "swapped", "order of the arguments"],
    "torchrun 2 GPUs; model.register_comm_hook(default_hooks.bf16_compress_hook, None). TypeError 'Communication hook must be callable.' on both ranks. Log verbatim.")
add("v85", "all_reduce_python_float", TD, "usercode", "torch.distributed_usage", ["code.exception"],
    "loss.item() is a Python float and collectives only take tensors; all-reduce a tensor (t = loss.detach().clone(); dist.all_reduce(t); t.item() / world_size).",
    ["detach()", "torch.tensor(", "a tensor", "before .item()", "before item()"],
    "torchrun 2 GPUs; loss_val = loss.item(); dist.all_reduce(loss_val). TypeError 'Invalid function argument. Expected parameter `tensor` of type torch.Tensor but got <class 'float'>'. Log verbatim.")
# ---- configuration
add("c01", "nccl_net_sockets_typo", "nccl", "config", "nccl.config", ["nccl.net_plugin", "nccl.ncclInvalidUsage", "nccl.invalid_usage"],
    "NCCL_NET=Sockets names no network module (the built-in ones are 'Socket' and 'IB'), so NCCL finds no NET plugin and init fails with ncclInvalidUsage. Set NCCL_NET=Socket (or unset NCCL_NET to let NCCL choose).",
    ["NCCL_NET=Socket ", "unset NCCL_NET", "'Socket'", "\"Socket\"", "Socket (singular)"],
    "torchrun 2 GPUs, all_reduce benchmark with NCCL_DEBUG=INFO NCCL_NET=Sockets. 'NCCL WARN Failed to initialize any NET plugin' then DistBackendError invalid usage on both ranks. c11 in the same call (NCCL_NET=Socket, same benchmark) ran at normal speed. Log verbatim.")
add("c06", "alloc_conf_expandable_segments_lowercase_true", "cuda", "config", "cuda.alloc_conf", ["cuda.expandable_segments"],
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true is rejected because the allocator parser accepts only 'True' or 'False' (capitalized); set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
    ["capital", "uppercase", "case-sensitive", "capitalized"],
    "torchrun 2 GPUs, all_reduce benchmark with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true. ValueError 'Expected 'True' or 'False' at index 2 in ConfigTokenizer but got 'true'' on both ranks. Log verbatim.")
add("c07", "alloc_conf_semicolon_separator", "cuda", "config", "cuda.alloc_conf", [],
    "PYTORCH_CUDA_ALLOC_CONF separates options with commas; 'expandable_segments:True;max_split_size_mb:512' makes the config tokenizer read past its end and abort (even torchrun dies at import). Use PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512.",
    ["comma", "expandable_segments:True,max_split_size_mb"],
    "torchrun itself aborts (rc -6, 0.8 s) with 'terminate called after throwing an instance of c10::Error ... INTERNAL ASSERT FAILED at AllocatorConfig.h:124 ... Index out of bounds in ConfigTokenizer' while loading libc10_cuda. The assert text suggests a PyTorch bug, but the cause is the ';' separator (the same benchmark ran with valid settings elsewhere in the call). Log verbatim.")
add("c09", "cuda_visible_devices_range_syntax", "cuda", "config", "cuda.invalid_device_ordinal", ["torch.distributed_usage"],
    "CUDA_VISIBLE_DEVICES=0-1 is not a range: CUDA parses it as device 0 and stops, so only one GPU is visible and local rank 1's set_device(1) fails. List the devices with commas: CUDA_VISIBLE_DEVICES=0,1 (or unset it).",
    ["0,1", "comma", "not a range", "range syntax"],
    "torchrun 2 GPUs, all_reduce benchmark with CUDA_VISIBLE_DEVICES=0-1; local rank 1 fails with invalid device ordinal in torch.cuda.set_device, rank 0 gets SIGTERM. Log verbatim.")
# ---- healthy
add("h01", "healthy_ddp_no_sync_accumulation_debug_info", TD, "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; DDP with no_sync() for 3 of 4 micro-batches, TORCH_DISTRIBUTED_DEBUG=INFO; loss falls, ~5 ms/step after the first step. rc 0. Log verbatim.", healthy=True)
add("h03", "healthy_cvd_per_rank_set_device_zero", "cuda", "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; each worker sets CUDA_VISIBLE_DEVICES=LOCAL_RANK and uses cuda:0; both ranks see 1 device and the all_reduce result is right. rc 0. Log verbatim.", healthy=True)
add("h04", "healthy_manual_grad_all_reduce", TD, "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; manual data parallel with all_reduce(p.grad, AVG) after backward; param checksums identical on both ranks every step (interleaved prints). rc 0. Log verbatim.", healthy=True)
add("h08", "healthy_ddp_custom_async_comm_hook", TD, "healthy", "healthy", [], "", [],
    "torchrun 2 GPUs; DDP with a custom comm hook returning all_reduce(async_op=True).get_future().then(...); checksums equal on both ranks. rc 0. Log verbatim.", healthy=True)

assert len({c["id"] for c in C}) == len(C)
with open(os.path.join(D, "explain_heldout_p44.jsonl"), "w") as f:
    for c in C:
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases,", sum(c["healthy"] for c in C), "healthy")
