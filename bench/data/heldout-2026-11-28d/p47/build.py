import json, re
L = "/tmp/heldout-p47/run2/"
def txt(name, drop_info=False):
    lines = open(L + name + ".log", errors="replace").read().splitlines()
    lines = [l.replace("/tmp/job-0rn62imj/", "/home/user/") for l in lines]
    lines = [re.sub(r"job\d\d/", "proj/", l) for l in lines]
    if drop_info:
        lines = [l for l in lines if "NCCL INFO" not in l]
    return "\n".join(lines[:400])
C = [
 ("q01", True, "nccl.socket_ifname", ["nccl.net_socket", "nccl.invalid_usage"],
  "NCCL_SOCKET_IFNAME names an interface (ib0) that does not exist on the host; set it to an existing interface (see `ip addr`, e.g. eth0/lo) or unset it.",
  ["NCCL_SOCKET_IFNAME", "ip addr"], "planted NCCL_SOCKET_IFNAME=ib0 on a host with only lo/eth; log shows 'no socket interface found'"),
 ("q03", False, "torch.ddp_ready_twice", ["torch.ddp_unused_parameters"],
  "Reentrant activation checkpointing with DDP(find_unused_parameters=True) marks parameters ready twice; use checkpoint(..., use_reentrant=False) (or static_graph=True without find_unused_parameters).",
  ["use_reentrant=False", "non-reentrant"], "planted checkpoint(use_reentrant=True) + find_unused_parameters=True; DDP raises 'marked as ready twice'"),
 ("q06", False, "nccl.timeout", ["torch.collective_mismatch"],
  "The process-group timeout (8 s) is shorter than rank 0's one-off preprocessing before the first collective; raise timeout= in init_process_group (timedelta) or do the preprocessing before init / on all ranks.",
  ["timedelta", "increase the timeout"], "planted timeout=8 s with a 15 s sleep on rank 0 before the first all_reduce"),
 ("q07", False, "torch.collective_mismatch", ["nccl.timeout", "nccl.hang"],
  "Ranks have a different number of batches (uneven inputs): rank 0 leaves the loop and waits in barrier while rank 1 still runs DDP allreduce; use the Join context manager or equal-length shards (DistributedSampler, drop_last).",
  ["Join", "DistributedSampler"], "planted 4 vs 6 batches per rank without Join; rank 1 hangs in allreduce"),
 ("q09", False, "torch.ddp_unused_parameters", ["torch.ddp_ready_twice"],
  "DDP static_graph=True but the set of used parameters changes between iterations; drop static_graph and use find_unused_parameters=True (or make the graph the same every step).",
  ["find_unused_parameters", "static_graph=False"], "planted static_graph=True with a branch used every other step"),
 ("q10", False, "torch.collective_mismatch", ["rendezvous.store_timeout"],
  "Ranks call new_group() in different orders (nccl then gloo on rank 0, gloo then nccl on rank 1); every rank must create process groups in the same order with the same arguments.",
  ["same order", "consistent order"], "planted new_group calls in different order per rank; gloo group creation fails"),
 ("q12", False, "torch.collective_mismatch", ["nccl.timeout", "nccl.collective_mismatch"],
  "broadcast_object_list is called with lists of different lengths on the ranks (1 on rank 0, 2 on rank 1), so the size broadcasts mismatch and hang; pass a list of the same length on every rank.",
  ["same length", "length"], "planted len 1 vs 2 object list; rank 1 broadcast times out"),
 ("q13", False, "nccl_forced_algo", ["nccl.invalid_usage"],
  "NCCL_ALGO=NVLS forces an algorithm that is unavailable (NVLS/multicast disabled or unsupported); unset NCCL_ALGO (or allow Ring/Tree).",
  ["unset", "Ring"], "planted NCCL_ALGO=NVLS with NCCL_NVLS_ENABLE=0"),
 ("q14", True, "nccl.net_ib", ["nccl.net_plugin"],
  "NCCL_NET=IB is forced on a host with no InfiniBand/RDMA devices, so no NET plugin initialises; unset NCCL_NET (and NCCL_IB_HCA) or set it to Socket.",
  ["NCCL_NET", "InfiniBand|RDMA"], "planted NCCL_NET=IB NCCL_IB_HCA=mlx5_0 on a host without IB"),
]
H = [("h01", False), ("h02", False), ("h04", False)]
out = []
for n, di, fam, alt, fix, kw, note in C:
    kw = [k.split("|")[0] for k in kw]
    out.append(dict(id="p47-" + n, url="planted:p47/" + n, source_repo="planted/p47-" + n, category="planted",
                    text=txt(n, di), family=fam, family_alternatives=alt, fix=fix, fix_keywords=kw, healthy=False,
                    group="p47", label_note="planted and fix verified by re-running: " + note if False else "planted (2x H200 run): " + note))
for n, di in H:
    out.append(dict(id="p47-" + n, url="planted:p47/" + n, source_repo="planted/p47-" + n, category="planted-healthy",
                    text=txt(n, di), family="healthy", family_alternatives=[], fix="", fix_keywords=[], healthy=True,
                    group="p47", label_note="planted healthy run, rc 0, expected output"))
with open("explain_heldout_p47.jsonl", "w") as f:
    for d in out:
        f.write(json.dumps(d) + "\n")
for d in out:
    bad = [k for k in d["fix_keywords"] if all(p.lower() in d["text"].lower() for p in k.split("&"))]
    print(d["id"], d["family"], len(d["text"].splitlines()), "KW-IN-TEXT:" + str(bad) if bad else "")
