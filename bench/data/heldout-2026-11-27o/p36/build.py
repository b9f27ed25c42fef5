#!/usr/bin/env python3
"""Build explain_heldout_p36.jsonl from logs/ + labels written after reading each log (eval-p36)."""
import json, os, re
D = os.path.dirname(os.path.abspath(__file__))
M = json.load(open(os.path.join(D, "manifest.json")))
SC = {s["name"]: s for s in M["scenarios"]}
LABELS = set(open(os.path.join(D, "labels.txt")).read().split())
MACH = ("planted on 2x NVIDIA H100 80GB HBM3 (kind nvidia-h100-x2; NV18, driver 580.159.04, kernel 6.18.44-fc-v657-gpu, "
        "Ubuntu 24.04.3, Python 3.12.3, torch 2.11.0+cu130, NCCL 2.28.9, jax 0.11.2, accelerate 1.15.0), harness "
        "plant36.py + scen.py, log logs/%s.log, rc %s")

def cmdline(name, hide=()):
    s = SC[name]
    pre = " ".join("%s=%s" % (k, ("'%s'" % v) if " " in v else v) for k, v in s["env"].items() if k not in hide)
    return "$ " + (pre + " " if pre else "") + s["cmd"]

def text(name, hide=(), user=None):
    log = open(os.path.join(D, "logs", name + ".log"), encoding="utf-8", errors="replace").read().rstrip("\n")
    parts = ([user] if user else []) + [cmdline(name, hide), log]
    return "\n".join(parts)

C = []
def add(name, cid, category, group, family, alts, fix, kws, note, hide=(), user=None, healthy=False):
    C.append(dict(id="p36-" + cid, url="planted:p36-" + cid, source_repo="planted-gpu-2026-11-27-p36",
                  category=category, text=text(name, hide, user), family=family, family_alternatives=alts,
                  fix=fix, fix_keywords=kws, healthy=healthy, group=group,
                  label_note=(MACH % (name, SC[name]["rc"])) + "; " + note))

# ---- user code
add("u01", "cuda_event_elapsed_no_timing", "torch", "usercode", "torch.usage", ["code.exception"],
    "The step timer uses torch.cuda.Event() created without timing; construct both events as torch.cuda.Event(enable_timing=True) to call elapsed_time.",
    ["Event(enable_timing", "construct&enable_timing", "cuda.Event(enable"],
    "torchrun 2 GPUs, DDP MLP; start/end = torch.cuda.Event() (no enable_timing), elapsed_time on rank 0. Log verbatim.")
add("u02", "split_group_no_bound_device", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
    "split_group needs a device bound to the default process group: call init_process_group('nccl', device_id=torch.device('cuda', local_rank)) (or use dist.new_group for the subgroups).",
    ["device_id", "new_group", "bind&device"],
    "torchrun 2 GPUs; init_process_group('nccl') without device_id, then dist.split_group(split_ranks=[[0],[1]]). Log verbatim.")
add("u03", "sampler_num_replicas_default_1", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.no_distributed_sampler", "torch.usage"],
    "DistributedSampler gets num_replicas from the script's --world-size flag (default 1) while torchrun started 2 processes: pass num_replicas=dist.get_world_size() (or leave num_replicas/rank out so the sampler reads them from the process group).",
    ["get_world_size", "--world-size 2", "--world-size=2", "leave num_replicas", "omit num_replicas"],
    "torchrun 2 GPUs; argparse --world-size default 1 fed to DistributedSampler(num_replicas=..., rank=dist rank). Log verbatim.")
add("u05", "all_gather_output_dtype_mismatch", "torch.distributed", "usercode", "usercode.dtype_mismatch", ["torch.distributed_usage"],
    "dist.all_gather needs the output list tensors in the input's dtype: the buffers are bfloat16 (the encoder's weight dtype) but emb is float32 - allocate them with torch.empty_like(emb) / dtype=emb.dtype, or cast emb to bfloat16 before gathering.",
    ["empty_like", "emb.dtype", "dtype=emb", "cast&emb"],
    "torchrun 2 GPUs; contrastive all_gather of float32 embeddings into buffers made with dtype=enc.weight.dtype (bf16). Log verbatim.")
# u09 (jax batch 125 not divisible by the 2-device mesh) DROPPED after labelling: same mechanism as p22-jax_sharding_indivisible.
add("u12", "fsdp2_clip_grad_norm_method", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage", "code.exception"],
    "clip_grad_norm_ as a method exists only on FSDP1's FullyShardedDataParallel; with FSDP2 (fully_shard) call torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0), which handles the DTensor gradients.",
    ["nn.utils.clip_grad_norm_", "utils.clip_grad_norm_(model.parameters()", "clip_grad_norm_(model.parameters()"],
    "torchrun 2 GPUs; fully_shard on each Linear and the root, then model.clip_grad_norm_(1.0) (FSDP1 API). Log verbatim.")
add("u13", "device_mesh_2d_get_local_rank", "torch.distributed", "usercode", "torch.distributed_usage", ["torch.usage"],
    "The mesh is 2-D (dp, tp), so get_local_rank() needs the dimension: use mesh.get_local_rank('tp') (mesh_dim='tp' or 1), or mesh['tp'].get_local_rank().",
    ["get_local_rank('tp')", "get_local_rank(\"tp\")", "mesh_dim=", "mesh['tp']", "mesh[\"tp\"]"],
    "torchrun 2 GPUs; init_device_mesh('cuda', (1, 2), mesh_dim_names=('dp','tp')); mesh.get_local_rank() without mesh_dim. Log verbatim.")
# ---- told in words (description line written by me from the measured baseline, marked [user])
add("t11", "w_nccl_max_p2p_nchannels_1", "nccl", "words", "nccl.env_slows", ["nccl_few_channels", "nccl.config"],
    "NCCL_MAX_P2P_NCHANNELS=1 limits point-to-point send/recv to a single channel (one SM pair over NVLink); unset it (or raise it) so NCCL uses its default many P2P channels.",
    ["unset&NCCL_MAX_P2P_NCHANNELS", "remove&NCCL_MAX_P2P_NCHANNELS", "raise&NCCL_MAX_P2P_NCHANNELS", "more channels"],
    "WORDS case: the first line is a one-sentence user description I wrote from the measured numbers (baseline t10 = same script "
    "without NCCL_MAX_P2P_NCHANNELS, 1.99 ms/iter 134.9 GB/s, run 11 s earlier on the same idle machine; this run 27.23 ms/iter 9.9 GB/s). "
    "Env prefix shown as run.",
    user="[user] Our pipeline stage hand-off benchmark (batched isend/irecv of 256 MiB between the two NVLinked GPUs) takes 27 ms per exchange; "
         "the same script on the same node a minute earlier from another shell took 1.99 ms (135 GB/s). Nothing else is running.")
add("t21", "w_torchdynamo_disable_exported", "torch.compile", "words", "torch.slow_setting", ["torch.slow_debug_setting", "compile"],
    "TORCHDYNAMO_DISABLE=1 is exported in this shell, which turns torch.compile into a no-op so the model runs eagerly; unset TORCHDYNAMO_DISABLE (or set it to 0).",
    ["TORCHDYNAMO_DISABLE", "TORCHDYNAMO", "dynamo disabled"],
    "WORDS case: first line is a user description I wrote from the measured numbers (baseline t20 = same script and command without the "
    "variable, 15.9 ms/step, run just before on the same idle machine; this run 22.1 ms/step). TORCHDYNAMO_DISABLE=1 was set in the "
    "environment but is NOT shown in the text (as when it is exported in a profile); the command shown is what the user typed.",
    hide=("TORCHDYNAMO_DISABLE",),
    user="[user] torch.compile stopped helping: this DDP + compile job now runs 22.1 ms/step on 2 H100s, while the identical script "
         "gave 15.9 ms/step on this node a few minutes earlier from another terminal. No compile or inductor messages appear anymore, and startup is much quicker.")
# ---- healthy
add("h01", "healthy_fsdp2_mp_dcp_save_load", "torch.distributed", "healthy", "healthy", [], "none: FSDP2 with bf16 MixedPrecisionPolicy trained 20 steps, DCP save and reload finished; exit 0.", [],
    "torchrun 2 GPUs; fully_shard per Linear + root, get_state_dict/dcp.save/dcp.load/set_state_dict. Log verbatim.", healthy=True)
add("h02", "healthy_tp_colwise_rowwise_ffn", "torch.distributed", "healthy", "healthy", [], "none: tensor-parallel FFN (ColwiseParallel/RowwiseParallel) trained 20 steps; exit 0.", [],
    "torchrun 2 GPUs; parallelize_module on a 2-Linear FFN, 1-D mesh. Log verbatim.", healthy=True)
add("h03", "healthy_accelerate_defaults_gather_for_metrics", "accelerate", "healthy", "healthy", [], "none: accelerate launch with defaults (its warning about values not passed) trained 2 epochs with gather_for_metrics; exit 0.", [],
    "accelerate launch --num_processes 2 with no config file (defaults warning), bf16 Accelerator, gather_for_metrics over 1003 samples. Log verbatim.", healthy=True)
add("c03", "healthy_torchrun_static_rdzv", "torchrun", "healthy", "healthy", [], "none: torchrun with --rdzv-backend static and an explicit endpoint, DDP trained; exit 0.", [],
    "torchrun 2 GPUs with --rdzv-backend static --rdzv-endpoint 127.0.0.1:PORT (planted as a config suspect; it ran fine, so kept as healthy). Log verbatim.", healthy=True)
add("h05", "healthy_nccl_info_runtime_connect_0", "nccl", "healthy", "healthy", [], "none: NCCL_DEBUG=INFO all_reduce benchmark with NCCL_RUNTIME_CONNECT=0 (all connections set up at init); exit 0.", [],
    "torchrun 2 GPUs; 256 MiB all_reduce x40 with NCCL_DEBUG=INFO and NCCL_RUNTIME_CONNECT=0. Log verbatim (152 lines).", healthy=True)

bad = []
for c in C:
    t = c["text"]; tl = t.lower()
    n = t.count("\n") + 1
    if n > 400: bad.append((c["id"], "lines", n))
    for w in ("p36", "plant", "heldout", "eval-"):
        if w in tl: bad.append((c["id"], "leak", w))
    if not c["healthy"]:
        if not 2 <= len(c["fix_keywords"]) <= 5: bad.append((c["id"], "nkw"))
        for k in c["fix_keywords"]:
            if all(p.lower() in tl for p in k.split("&")): bad.append((c["id"], "kw in text", k))
    for f in [c["family"]] + c["family_alternatives"]:
        if f != "healthy" and not any(l == f or l.startswith(f + ".") or l.startswith(f) for l in LABELS):
            bad.append((c["id"], "family", f))
with open(os.path.join(D, "explain_heldout_p36.jsonl"), "w", encoding="utf-8") as fo:
    for c in C:
        fo.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C), "cases;", sum(c["healthy"] for c in C), "healthy; max lines", max(c["text"].count("\n") + 1 for c in C))
print("BUILD-BAD:", bad)
