import json
C = "/tmp/heldout-p62/cases/"
SR = "planted-torchrun-2026-11-29-p62/"
def t(n): return open(C + n + ".txt").read().rstrip("\n")
cases = [
 dict(id="p62-ddp_param_used_outside_forward", f="clip_fail", repo="torch-ddp-reducer", cat="torch.distributed",
      family="torch.ddp_ready_twice", alt=[],
      fix="The loss uses model.module.logit_scale after DDP's forward, so with find_unused_parameters=True DDP marks it unused at forward end and again when its gradient arrives; compute logit_scale.exp() inside the module's forward and return it with the embeddings (verified: 5 steps ran).",
      kw=["inside forward", "inside the forward", "in forward", "into forward", "within forward"]),
 dict(id="p62-ddp_head_replaced_after_wrap", f="head_fail", repo="torch-ddp-reducer", cat="torch.distributed",
      family="torch.ddp_unused_parameters", alt=[],
      fix="The 5-class head was assigned to model.module.fc after DDP was built, so DDP's reducer still expects the old fc (never used) and does not know the new one; replace the head before wrapping the model in DDP (verified: 4 steps ran).",
      kw=["before wrapping", "before wrap", "before DDP", "re-wrap", "rewrap"]),
 dict(id="p62-dcp_resume_hidden_size_changed", f="dcp_fail", repo="torch-distributed-checkpoint", cat="torch.distributed",
      family="torch.checkpoint_load", alt=[],
      fix="The DCP checkpoint was saved from a model with hidden size 256 and the resume builds it with HIDDEN=512; resume with the saved model config (HIDDEN=256), or start the wider model from scratch (verified: resume with 256 loaded on both ranks).",
      kw=["HIDDEN=256", "hidden size", "same config", "256&config", "architecture"]),
 dict(id="p62-rpc_timeout_shorter_than_remote_call", f="rpc_fail", repo="torch-distributed-rpc", cat="torch.distributed",
      family="torch.distributed_usage", alt=["torch.c10d_error"],
      fix="The RPC agent's rpc_timeout (2 s, set in TensorPipeRpcBackendOptions) is shorter than the remote evaluation (about 3 s); raise rpc_timeout (or pass timeout= to rpc_async) above the call's run time (verified with 60 s).",
      kw=["rpc_timeout", "TensorPipeRpcBackendOptions", "timeout=", "increase&timeout", "longer&timeout"]),
 dict(id="p62-ddp_debug_detail_segfault", f="detail_fail", repo="torchrun-elastic-agent", cat="torch.distributed",
      family="distributed_debug_detail", alt=["torch.slow_debug_setting"],
      fix="Both ranks die with SIGSEGV inside DDP construction (_ddp_init_helper) only when TORCH_DISTRIBUTED_DEBUG=DETAIL is set (torch 2.13.0+cpu, gloo); unset it or use INFO (verified: the same script ran 4 steps with INFO).",
      kw=["unset", "=INFO", "=OFF", "remove&DETAIL", "without&DETAIL"]),
 dict(id="p62-healthy_rpc_eval_deprecation_warning", f="rpc_fix", repo="torch-distributed-rpc", cat="healthy", healthy=True),
 dict(id="p62-healthy_fsdp2_dcp_reshard_2_to_4_cpp_info", f="h_fsdp_load", repo="torch-fsdp2-dcp", cat="healthy", healthy=True),
]
with open("explain_heldout_p62.jsonl", "w") as out:
    for c in cases:
        h = c.get("healthy", False)
        row = {"id": c["id"], "url": "planted:" + c["id"], "source_repo": SR + c["repo"], "category": c["cat"],
               "text": t(c["f"]), "family": "healthy" if h else c["family"], "family_alternatives": [] if h else c["alt"],
               "fix": "" if h else c["fix"], "fix_keywords": [] if h else c["kw"], "healthy": h}
        out.write(json.dumps(row) + "\n")
print(len(cases))
