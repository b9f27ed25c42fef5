#!/usr/bin/env python3
"""Build explain_heldout_p63.jsonl from the real recorded outputs in raw/ (eval-p63, session 31)."""
import json, os
C = "/tmp/heldout-p63/raw"
SR = "planted-h200-2026-11-29-p63/"
V = "verified on the same H200 (torch 2.11.0+cu130, NCCL 2.28.9) by the run named in README (exit 0, all_reduce ok)."
cases = [
 dict(id="p63-backend_string_device_backend_swapped", file="backend_swapped.txt", comp="torch.distributed/backend-config", category="torch.distributed",
  family="torch.distributed_usage", alts=["torch.c10d_error"],
  fix="A backend string with a colon is read as device:backend pairs, so 'nccl:cuda' asks for a backend named 'cuda' (on device type 'nccl'); write it the other way round, 'cuda:nccl' (or 'cpu:gloo,cuda:nccl'), or just 'nccl'.",
  kw=["cuda:nccl", "device:backend", "other way round", "reverse"], note="fix: --backend cuda:nccl ran"),
 dict(id="p63-init_timeout_int_not_timedelta", file="timeout_int.txt", comp="torch.distributed/init_process_group", category="torch.distributed",
  family="torch.distributed_usage", alts=["torch.api_version"],
  fix="init_process_group's timeout must be a datetime.timedelta, not a number of seconds; wrap it: timeout=datetime.timedelta(seconds=args.dist_timeout).",
  kw=["timedelta(seconds", "timedelta("], note="fix: --fixed wraps it in timedelta(seconds=...) and ran"),
 dict(id="p63-new_group_after_destroy_process_group", file="group_after_destroy.txt", comp="torch.distributed/new_group", category="torch.distributed",
  family="torch.pg_not_initialized", alts=["torch.distributed_usage"],
  fix="The script calls destroy_process_group() after training and then dist.new_group() for evaluation, but a subgroup needs the default (world) group; create the eval group and run the evaluation before destroy_process_group(), and destroy only at the very end.",
  kw=["before destroy", "destroy_process_group", "already destroyed", "after destroy"], note="fix: --fixed creates the group and evaluates before destroying; ran"),
 dict(id="p63-nccl_topo_file_malformed_xml", file="topo_malformed.txt", comp="nccl/graph-xml", category="nccl",
  family="nccl.topo_file", alts=["nccl.internal_error", "nccl.ncclInternalError"],
  fix="NCCL_TOPO_FILE points at a hand-edited topology XML whose <gpu> element is never closed before </pci>, so NCCL's XML parser fails during communicator init; fix the file (close the <gpu .../> element, e.g. regenerate it with NCCL_TOPO_DUMP_FILE) or unset NCCL_TOPO_FILE so NCCL detects the topology itself.",
  kw=["unset", "NCCL_TOPO_DUMP_FILE", "close", "malformed", "well-formed"], note="fix: the same run without NCCL_TOPO_FILE ran"),
 dict(id="p63-alloc_conf_expandable_segments_lowercase_true", file="alloc_lower_true.txt", comp="c10-cuda-caching-allocator", category="cuda",
  family="cuda.alloc_conf", alts=["cuda.expandable_segments"],
  fix="PYTORCH_CUDA_ALLOC_CONF values are case-sensitive and expandable_segments takes only True or False with a capital letter; set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
  kw=["capital", "case-sensitive", "case sensitive", "uppercase"], note="fix: expandable_segments:True ran"),
 dict(id="p63-cuda_visible_devices_all", file="cvd_all.txt", comp="cuda-runtime", category="cuda",
  family="cuda.not_available", alts=["container.gpus_not_visible"],
  fix="CUDA_VISIBLE_DEVICES=all is not valid (\"all\" is NVIDIA_VISIBLE_DEVICES syntax for the container runtime); CUDA stops at the first invalid entry and hides every GPU. Set CUDA_VISIBLE_DEVICES to device indices or UUIDs (here 0) or unset it.",
  kw=["NVIDIA_VISIBLE_DEVICES", "unset", "indices", "CUDA_VISIBLE_DEVICES=0"], note="fix: CUDA_VISIBLE_DEVICES=0 ran"),
 dict(id="p63-tcp_init_method_without_rank", file="tcp_no_rank.txt", comp="torch.distributed/tcp-rendezvous", category="torch.distributed",
  family="rendezvous.env_missing", alts=["torch.distributed_usage"],
  fix="With a tcp:// init_method, init_process_group does not read RANK/WORLD_SIZE from the environment; pass rank= and world_size= explicitly (or use env:// with MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE set).",
  kw=["rank=", "world_size=", "env://"], note="fix: --fixed passes rank=0, world_size=1 and ran"),
 dict(id="p63-set_device_local_rank_string", file="local_rank_str.txt", comp="torch.cuda", category="cuda",
  family="torch.distributed_usage", alts=["torch.usage", "launcher.local_rank_arg"],
  fix="os.environ['LOCAL_RANK'] is a string, and torch.cuda.set_device('0') parses it as a device string, which is invalid; convert it: torch.cuda.set_device(int(os.environ['LOCAL_RANK'])).",
  kw=["int(", "integer", "convert"], note="fix: train_lr_fixed.py with int(...) ran"),
 dict(id="p63-healthy_nccl_info_tuner_plugin_not_found", file="h_tuner_missing.txt", comp="nccl/tuner-plugin", category="healthy", healthy=True,
  note="working run: NCCL_TUNER_PLUGIN points at a .so that is not there; NCCL logs 'Could not find' at INFO and uses its internal tuner; all_reduce ok, exit 0."),
 dict(id="p63-healthy_cudamallocasync_nccl_info", file="h_alloc_async.txt", comp="torch+nccl/init-info", category="healthy", healthy=True,
  note="working run: backend:cudaMallocAsync allocator with NCCL_DEBUG=INFO; benign record_stream warning and IB-plugin INFO lines; all_reduce ok, exit 0."),
]
out = []
for c in cases:
    text = open(os.path.join(C, c["file"]), encoding="utf-8", errors="replace").read().rstrip("\n")
    h = c.get("healthy", False)
    out.append(dict(id=c["id"], url="planted:" + c["id"], source_repo=SR + c["comp"], category=c["category"], text=text,
        family="healthy" if h else c["family"], family_alternatives=[] if h else c["alts"], fix="" if h else c["fix"],
        fix_keywords=[] if h else c["kw"], healthy=h, label_note=c["note"] + ("" if h else "; " + V)))
with open("/tmp/heldout-p63/explain_heldout_p63.jsonl", "w") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "cases", sum(o["healthy"] for o in out), "healthy")
