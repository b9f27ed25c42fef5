#!/usr/bin/env python3
"""Build /tmp/heldout-p67/explain_heldout_p67.jsonl from the recorded texts in cases/ (eval-p67, session 32)."""
import json, os
C = "/tmp/heldout-p67/cases"
SR = "planted-cpu-2026-11-29-p67/"
cases = [
 dict(id="p67-lightning_fsdp_strategy_on_cpu_accelerator", file="c2_fsdp_cpu.txt", comp="lightning-accelerator-connector",
  category="torch.distributed", family="lightning.strategy", alts=["lightning.config"],
  fix="Lightning's FSDP strategy only runs on CUDA devices; on these CPU-only nodes use strategy='ddp' (or run the fsdp job on GPU nodes).",
  kw=["ddp", "gpu node", "cuda node"],
  note="planted: Trainer(accelerator='cpu', devices=2, strategy='fsdp'); fix verified: same script with --strategy ddp trained 2 epochs (cases/v2_ddp_cpu.txt)."),
 dict(id="p67-lightning_devices1_under_torchrun_nproc2", file="c3_torchrun_devices1.txt", comp="lightning-torchelastic-environment",
  category="torch.distributed", family="lightning.config", alts=["lightning.strategy"],
  fix="Under torchrun Lightning checks devices*num_nodes against torchrun's WORLD_SIZE: --nproc-per-node 2 starts 2 processes but the Trainer was given devices=1; set Trainer(devices=2) (or devices='auto') to match --nproc-per-node.",
  kw=["devices=2", "devices='auto'", "devices=\"auto\"", "devices=auto"],
  note="planted as shown; fix verified: same torchrun command with --devices 2 trained 2 epochs (cases/v3_torchrun_devices2.txt)."),
 dict(id="p67-lightning_ddp_unused_aux_head_params", file="c5_unused_aux_head.txt", comp="lightning-ddp-reducer",
  category="torch.distributed", family="torch.ddp_unused_parameters", alts=["ddp_find_unused", "lightning.strategy"],
  fix="The model defines an auxiliary head whose parameters never enter the loss, so DDP's reducer never gets their gradients; use the aux head in the loss or drop it, or pass strategy='ddp_find_unused_parameters_true'.",
  kw=["remove", "drop", "delete", "add its loss"],
  note="planted: --aux-head adds nn.Linear(32,4) never used in training_step; fix verified: strategy='ddp_find_unused_parameters_true' trained 2 epochs (cases/v5_find_unused_true.txt); without --aux-head it also trains (v2)."),
 dict(id="p67-lightning_num_nodes2_single_node_torchrun", file="c6_torchrun_num_nodes2.txt", comp="lightning-torchelastic-environment",
  category="torch.distributed", family="lightning.config", alts=["lightning.strategy"],
  fix="Trainer(num_nodes=2) but torchrun was started on one node only (--nnodes 1, world size 2): either set num_nodes=1 for this single-node run or launch torchrun with --nnodes 2 on both nodes.",
  kw=["num_nodes=1", "--nnodes 2", "--nnodes=2", "both nodes"],
  note="planted as shown; fix verified: same torchrun command with num_nodes 1 trained 2 epochs (cases/v3_torchrun_devices2.txt)."),
 dict(id="p67-healthy_lightning_fp16_cpu_bf16_fallback_srun_hint", file="probe_prec16_ok.txt", comp="lightning-ddp-cpu-precision",
  category="healthy", healthy=True,
  note="recorded from a working run: precision='16-mixed' on CPU falls back to bf16 AMP (warning), srun hint, pytree deprecation warnings; training done, exit 0."),
 dict(id="p67-healthy_torchrun_lightning_ddp_cpu_omp_warning", file="v3_torchrun_devices2.txt", comp="torchrun-lightning-ddp",
  category="healthy", healthy=True,
  note="recorded from a working run: torchrun --nproc-per-node 2 with c10d rendezvous and Trainer(devices=2); OMP_NUM_THREADS warning and Lightning tips; exit 0."),
]
out = []
for c in cases:
    text = open(os.path.join(C, c["file"]), encoding="utf-8", errors="replace").read().rstrip("\n")
    h = c.get("healthy", False)
    out.append(dict(id=c["id"], url="planted:" + c["id"], source_repo=SR + c["comp"], category=c["category"], text=text,
        family="healthy" if h else c["family"], family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
        fix_keywords=[] if h else c["kw"], healthy=h, label_note=c["note"]))
with open("/tmp/heldout-p67/explain_heldout_p67.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "cases", sum(o["healthy"] for o in out), "healthy")
