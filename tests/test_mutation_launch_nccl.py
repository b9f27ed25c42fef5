"""Table-driven cases for checks/launch.py and checks/nccl_env.py (docs/mutation.md, the "last
pass"): each case is real node facts (fixtures/nodes/, sections changed by `patched`) and a
launch plan (gpudoctor/launch/plan.py's Plan, or build_plan over fixtures/launch/), and the
whole result the user sees (status, per-node text, every finding's message, observed, expected,
fix, exports and hosts) is compared to EXPECTED below, reviewed when it was made. The
launch.rendezvous cases build the `rendezvous` section as gpudoctor/collector/rendezvous.py
writes it (role, port, addr, bind / connect), without the sshd test bed."""

import os

import pytest

from conftest import FIXTURES, node_facts, patched, run_check
from gpudoctor.config import Config
from gpudoctor.launch import build_plan
from gpudoctor.launch.plan import Batch, Node, Plan

H100 = node_facts("h100-ubuntu2404-torch211")   # 1 x H100 (cc 9.0), eth0 192.0.2.2
H200 = node_facts("h200x2-ubuntu2404-torch211")  # 2 x H200 (cc 9.0)


def gpus(n, name="NVIDIA A100-SXM4-80GB", cc="8.0"):
    return {"status": "ok", "gpus": [{"index": i, "name": name, "compute_capability": cc} for i in range(n)]}


def nodes(*spec, base=H200, **sections):
    """{host: facts} of hosts given as (host, gpu count) or host (8 GPUs); `sections` patch every node."""
    out = {}
    for s in spec:
        host, n = (s, 8) if isinstance(s, str) else s
        f = patched(base, gpu=gpus(n) if n is not None else {"status": "error", "error": "nvidia-smi failed"},
                    **sections)
        f["node"] = host
        out[host] = f
    return out


def cfg(plan):
    c = Config()
    c.launch = plan
    return c


def result(res):
    return {
        "status": res.status,
        "outcomes": {h: list(v) for h, v in sorted(res.outcomes.items())},
        "findings": [[f.severity, f.message, f.observed, f.expected, f.fix, dict(f.exports), list(f.hosts)]
                     for f in res.findings],
    }


def P(**kw):
    kw.setdefault("sources", ["job.yaml"])
    return Plan(**kw)


def hosts_plan(launcher, spec, source="-H list", **kw):
    p = P(launcher=launcher, **kw)
    p.set_nodes([Node(h, slots=s, procs=c) for h, s, c in spec], source)
    return p


# ------------------------------------------------------------ launch.counts

COUNTS = {
    "no plan": (nodes("a", "b"), None),
    "accelerate 2x8 fits": (nodes("a", "b"), P(launcher="accelerate", nnodes_min=2, nnodes_max=2, nproc_per_node=8,
                                               world_min=16, world_max=16)),
    "accelerate num_machines 3 on 2": (nodes("a", "b"), P(launcher="accelerate", nnodes_min=3, nnodes_max=3,
                                                          nproc_per_node=8, world_min=24, world_max=24)),
    "deepspeed range 3 to 4 on 2": (nodes("a", "b"), P(launcher="deepspeed", nnodes_min=3, nnodes_max=4)),
    "torchrun range 1 to 4 on 2": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=1, nnodes_max=4,
                                                      nproc_per_node=8)),
    "torchrun range 1 to 2 on 2": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=1, nnodes_max=2)),
    "torchrun range 2 to 3 on 2": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=2, nnodes_max=3)),
    "torchrun range 3 to 5 on 2": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=3, nnodes_max=5)),
    "torchrun 1 to 1 on 2": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=1)),
    "torchrun 2 hi None on 2": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=2, world_min=16, world_max=16,
                                                   nproc_per_node=8)),
    "torchrun 1 node on 1 of 1 gpu": (nodes(("a", 1), ("b", 1)), P(launcher="torchrun", nnodes_min=1, nnodes_max=1,
                                                                   world_min=1, world_max=1, nproc_per_node=1)),
    "torchrun host list count": (nodes("a", "b"), hosts_plan("torchrun", [("a", None, 8)])),
    "mpirun too many procs": (nodes(("a", 4), ("b", 8)), hosts_plan("mpirun", [("a", 8, 8), ("b", 8, 8)],
                                                                    "-H a:8,b:8")),
    "mpirun slots only too many": (nodes(("a", 4), ("b", 8)), hosts_plan("mpirun", [("a", 8, None), ("b", 8, None)],
                                                                         "hostfile hf")),
    "mpirun procs equal gpus": (nodes(("a", 4), ("b", 4)), hosts_plan("mpirun", [("a", 4, 4), ("b", 4, 4)], "hostfile hf")),
    "mpirun one idle slot": (nodes(("a", 4), ("b", 4)), hosts_plan("mpirun", [("a", 4, 4), ("b", 4, 3)], "-H a:4,b:4")),
    "mpiexec idle slots": (nodes(("a", 4), ("b", 4)), hosts_plan("mpiexec", [("a", 4, 2), ("b", 4, 1)], "-H a:4,b:4")),
    "horovodrun idle slots": (nodes(("a", 4), ("b", 4)), hosts_plan("horovodrun", [("a", 4, 2), ("b", 4, 4)], "-H")),
    "mpiexec.hydra idle": (nodes(("a", 4), ("b", 4)), hosts_plan("mpiexec.hydra", [("a", 4, 4), ("b", 4, 2)], "-hosts")),
    "deepspeed spare slots are no warning": (nodes(("a", 4), ("b", 4)),
                                             hosts_plan("deepspeed", [("a", 4, 4), ("b", 4, 2)], "hostfile hf")),
    "idle slot on a host not checked": (nodes(("a", 4), ("b", 4)),
                                        hosts_plan("mpirun", [("a", 4, 4), ("b", 4, 4), ("c", 4, 3)], "-H")),
    "one host missing": (nodes("a", "b"), hosts_plan("deepspeed", [("a", 8, 8), ("b", 8, 8), ("c", 8, 8)], "hostfile hf")),
    "two hosts missing, localhost and zero procs not": (
        nodes("a", "b"), hosts_plan("deepspeed", [("a", 8, 8), ("b", 8, 8), ("c", 8, 8), ("d", 8, 8),
                                                  ("localhost", 8, 8), ("127.0.0.1", 8, 8), ("e", 8, 0)],
                                    "hostfile hf")),
    "nproc 8 on 4 and 2": (nodes(("a", 4), ("b", 2), ("c", 8)), P(launcher="torchrun", nproc_per_node=8,
                                                                    nnodes_min=3, nnodes_max=3, world_min=24,
                                                                    world_max=24)),
    "nproc 8 on one with 7": (nodes(("a", 7), ("b", 8)), P(launcher="torchrun", nproc_per_node=8, nnodes_min=2,
                                                           nnodes_max=2, world_min=16, world_max=16)),
    "nproc equal gpus": (nodes(("a", 8), ("b", 8)), P(launcher="torchrun", nproc_per_node=8)),
    "nproc with host list not per node": (nodes(("a", 4), ("b", 4)), P(launcher="torchrun", nproc_per_node=8,
                                                                       nodes=[Node("a"), Node("b")])),
    "accelerate not a multiple": (nodes("a", "b"), P(launcher="accelerate", nnodes_min=2, nnodes_max=2,
                                                     world_min=15, world_max=15)),
    "accelerate more than gpus": (nodes(("a", 4), ("b", 4)), P(launcher="accelerate", nnodes_min=2, nnodes_max=2,
                                                               world_min=16, world_max=16)),
    "accelerate fewer than gpus": (nodes(("a", 4), ("b", 4)), P(launcher="accelerate", nnodes_min=2, nnodes_max=2,
                                                                world_min=6, world_max=6, nproc_per_node=3)),
    "accelerate fewer by one": (nodes(("a", 4), ("b", 4)), P(launcher="accelerate", nnodes_min=2, nnodes_max=2,
                                                             world_min=7, world_max=7)),
    "accelerate equal to gpus": (nodes(("a", 4), ("b", 4)), P(launcher="accelerate", nnodes_min=2, nnodes_max=2,
                                                              world_min=8, world_max=8)),
    "accelerate one node without gpu facts": (nodes(("a", 4), ("b", None)), P(
        launcher="accelerate", nnodes_min=2, nnodes_max=2, world_min=16, world_max=16, nproc_per_node=8)),
    "torchrun world as listing": (nodes(("a", 4), ("b", 4)), hosts_plan("mpirun", [("a", 4, 4), ("b", 4, 2)], "-H")),
    "torchrun no world": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=2, nnodes_max=2)),
    "world without nnodes": (nodes("a", "b"), P(launcher="torchrun", world_min=16, world_max=16)),
    "world range is not one": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=1, nnodes_max=2, world_min=8,
                                                  world_max=16)),
    "gpus listed from /proc only": (
        {h: dict(patched(H200, gpu={"status": "ok", "gpus": None, "gpus_proc": [{"minor": 0}, {"minor": 1}]}), node=h)
         for h in ("a", "b")}, P(launcher="torchrun", nproc_per_node=4, nnodes_min=2, nnodes_max=2, world_min=8,
                                 world_max=8)),
    "two sources named in the fix": (nodes("a", "b"), P(sources=["acc.yaml", "ds.json"], launcher="accelerate",
                                                        nnodes_min=3, nnodes_max=3)),
    "a host without GPU facts, then one with too few": (
        nodes(("a", 4), ("b", 8)), hosts_plan("mpirun", [("c", 8, 8), ("a", 8, 8), ("b", 8, 8)], "-H c:8,a:8,b:8")),
    "-np under the slots on fewer GPUs": (nodes(("a", 4), ("b", 8)), hosts_plan("mpirun", [("a", 8, 4), ("b", 8, 8)],
                                                                                  "-H a:8,b:8")),
    "a host given no process": (nodes(("a", 4), ("b", 4)), hosts_plan("mpirun", [("a", 4, 4), ("b", 4, 0)], "-H")),
    "one node of two planned": (nodes("a", "b"), P(launcher="torchrun", nnodes_min=1, nnodes_max=2, nproc_per_node=8,
                                                   world_min=8, world_max=8)),
    "a node without GPU facts in a pass": (nodes(("a", 8), ("b", None)), P(launcher="torchrun", nnodes_min=2,
                                                                          nnodes_max=2)),
    "seed002 accelerate + deepspeed": (nodes("huaweiyun1", "huaweiyun2"), "seed002"),
}


def _seed002():
    L = os.path.join(FIXTURES, "launch")
    cwd = os.getcwd()
    os.chdir(L)
    try:
        return build_plan(accelerate="accelerate_seed002.yaml", accelerate_given=True, environ={})
    finally:
        os.chdir(cwd)


def _plan(p):
    return _seed002() if p == "seed002" else p


# ------------------------------------------------------------ launch.master

def res_names(*entries):
    """resolve section: {name: [addresses]} (an empty list: does not resolve)."""
    return {"status": "ok", "names": dict(entries)}


def iface(*addrs):
    return {"status": "ok", "interfaces": [{"name": "eth0", "state": "up", "virtual": False,
                                           "ipv4": [{"address": a, "prefixlen": 24} for a in addrs]}]}


def per_host(**facts_by_host):
    out = {}
    for h, sections in facts_by_host.items():
        f = patched(H200, **sections)
        f["node"] = h
        out[h] = f
    return out


NO_IPV4 = {"status": "ok", "interfaces": []}


def mnodes(*hosts):
    """launch.master's nodes: no interface addresses (see test_master_on_real_interface_facts)."""
    return nodes(*hosts, network=NO_IPV4)


def mper_host(**facts_by_host):
    return per_host(**{h: dict(s, network=s.get("network", NO_IPV4)) for h, s in facts_by_host.items()})


MASTER = {
    "no plan": (mnodes("a", "b"), None),
    "no master address": (mnodes("a", "b"), P(launcher="torchrun")),
    "loopback 127.0.0.1": (mnodes("a", "b"), P(launcher="torchrun", master_addr="127.0.0.1", master_port=29500)),
    "loopback 127.0.1.1": (mnodes("b", "a"), P(launcher="torchrun", master_addr="127.0.1.1")),
    "loopback localhost": (mnodes("a", "b"), P(launcher="torchrun", master_addr="localhost")),
    "loopback ::1": (mnodes("a", "b"), P(launcher="torchrun", master_addr="::1")),
    "loopback ip6-localhost": (mnodes("a", "b"), P(launcher="torchrun", master_addr="ip6-localhost")),
    "master is a node by name": (mnodes("a", "b"), P(launcher="torchrun", master_addr="b", master_port=29500)),
    "master by name, resolves on both": (
        mper_host(a=dict(resolve=res_names(("a", ["10.0.0.1"]), ("b", ["10.0.0.2"]))),
                 b=dict(resolve=res_names(("a", ["10.0.0.1"]), ("b", ["10.0.0.2"])))),
        P(launcher="torchrun", master_addr="a", master_port=29500)),
    "master by address a node name resolves to": (
        mper_host(a=dict(resolve=res_names(("a", ["10.0.0.1"]), ("b", ["10.0.0.2"]))),
                 b=dict(resolve=res_names(("a", ["10.0.0.1"]), ("b", ["10.0.0.2"])))),
        P(launcher="accelerate", master_addr="10.0.0.1", master_port=29500)),
                "master does not resolve on one": (
        mper_host(a=dict(resolve=res_names(("m0", ["10.0.0.1"]), ("a", ["10.0.0.1"]))),
                 b=dict(resolve=res_names(("m0", []))), c=dict(resolve=res_names(("m0", ["10.0.0.1"])))),
        P(launcher="torchrun", master_addr="m0", master_port=29500)),
    "master resolves to loopback on one": (
        mper_host(a=dict(resolve=res_names(("m0", ["127.0.1.1"]), ("a", ["10.0.0.1"]))),
                 b=dict(resolve=res_names(("m0", ["10.0.0.1"]))), c=dict(resolve=res_names(("m0", ["10.0.0.1"])))),
        P(launcher="torchrun", master_addr="m0", master_port=29500)),
    "master resolves differently": (
        mper_host(a=dict(resolve=res_names(("m0", ["10.0.0.1"]), ("a", ["10.0.0.1"]))),
                 b=dict(resolve=res_names(("m0", ["10.0.0.1"]))), c=dict(resolve=res_names(("m0", ["10.0.0.7"])))),
        P(launcher="torchrun", master_addr="m0", master_port=29500)),
    "master resolution unknown on a node (not ok)": (
        mper_host(a=dict(resolve=res_names(("m0", ["10.0.0.1"]), ("a", ["10.0.0.1"]))),
                 b=dict(resolve={"status": "error", "names": {"m0": []}})),
        P(launcher="torchrun", master_addr="m0", master_port=29500)),
    "master not listed in a node's names": (
        mper_host(a=dict(resolve=res_names(("a", ["10.0.0.1"]))), b=dict(resolve=res_names(("a", ["10.0.0.1"])))),
        P(launcher="torchrun", master_addr="m0", master_port=29500)),
    "resolve section without names": (
        mper_host(a=dict(resolve={"status": "ok"}), b=dict(resolve=res_names(("m0", ["10.0.0.1"]), ("a", ["10.0.0.1"])))),
        P(launcher="torchrun", master_addr="m0", master_port=29500)),
    "master resolves to two addresses, differently": (
        mper_host(a=dict(resolve=res_names(("m0", ["10.0.0.1", "10.0.1.1"]), ("a", ["10.0.0.1"]))),
                  b=dict(resolve=res_names(("m0", ["10.0.0.1", "10.0.1.1"]))),
                  c=dict(resolve=res_names(("m0", ["10.0.1.1"])))),
        P(launcher="torchrun", master_addr="m0", master_port=29500)),
    "master not a node, interfaces without addresses": (
        mper_host(a=dict(network={"status": "ok", "interfaces": [{"name": "eth0", "ipv4": []}, {"name": "lo"}]}),
                  b=dict(network={"status": "ok", "interfaces": [{"name": "eth0", "ipv4": []}]})),
        P(launcher="accelerate", master_addr="10.9.9.9", master_port=22)),
}

# ------------------------------------------------------------ launch.precision (per node)

PRECISION = {
    "no plan": (H100, None),
    "bf16 and fp16 in DeepSpeed": (H100, P(launcher="deepspeed", ds_config="/j/ds.json", ds_bf16=True, ds_fp16=True)),
    "accelerate fp16, DeepSpeed bf16": (H100, P(launcher="accelerate", mixed_precision="fp16", ds_config="/j/ds.json",
                                                ds_bf16=True, ds_fp16=False)),
    "accelerate bf16, DeepSpeed fp16": (H100, P(launcher="accelerate", mixed_precision="bf16", ds_config="/j/ds.json",
                                                ds_bf16=False, ds_fp16=True)),
    "accelerate fp16, DeepSpeed fp16": (H100, P(launcher="accelerate", mixed_precision="fp16", precision="fp16",
                                                ds_config="/j/ds.json", ds_bf16=False, ds_fp16=True)),
    "fp16 only": (H100, P(launcher="torchrun", precision="fp16")),
    "no precision": (H100, P(launcher="torchrun")),
    "accelerate bf16 on H100": (H100, P(launcher="accelerate", mixed_precision="bf16", precision="bf16")),
    "accelerate bf16 on two H200": (H200, P(launcher="accelerate", mixed_precision="bf16", ds_bf16=True,
                                            precision="bf16")),
    "--bf16 on one V100": (patched(H100, gpu=gpus(1, "Tesla V100-SXM2-32GB", "7.0")),
                           P(launcher="torchrun", precision="bf16")),
    "DeepSpeed bf16 on mixed T4 and V100": (
        patched(H100, gpu={"status": "ok", "gpus": [{"name": "Tesla T4", "compute_capability": "7.5"},
                                                    {"name": "Tesla T4", "compute_capability": "7.5"},
                                                    {"name": "Tesla V100", "compute_capability": "7.0"},
                                                    {"name": "NVIDIA A100", "compute_capability": "8.0"},
                                                    {"name": "odd", "compute_capability": "x"}]}),
        P(launcher="deepspeed", ds_config="/j/ds.json", ds_bf16=True)),
    "bf16 and fp16 on a V100": (patched(H100, gpu=gpus(1, "Tesla V100", "7.0")),
                                P(launcher="deepspeed", ds_config="/j/ds.json", ds_bf16=True, ds_fp16=True)),
    "bf16 and fp16 on an A100": (patched(H100, gpu=gpus(2, "A100", "8.0")),
                                 P(launcher="deepspeed", ds_config="/j/ds.json", ds_bf16=True, ds_fp16=True)),
    "bf16 on cc 8.6 and 12.0": (patched(H100, gpu={"status": "ok", "gpus": [
        {"name": "RTX 3090", "compute_capability": "8.6"}, {"name": "RTX 5090", "compute_capability": "12.0"}]}),
        P(launcher="torchrun", precision="bf16")),
    "bf16 with unparsable cc": (patched(H100, gpu={"status": "ok", "gpus": [
        {"name": "A", "compute_capability": "7"}, {"name": "B", "compute_capability": "7.0.1"},
        {"name": "C", "compute_capability": " 7.5"}]}), P(launcher="torchrun", precision="bf16")),
    "accelerate and DeepSpeed bf16 on a V100": (patched(H100, gpu=gpus(2, "Tesla V100", "7.0")), P(
        launcher="accelerate", mixed_precision="bf16", ds_config="/j/ds.json", ds_bf16=True, ds_fp16=False)),
    "accelerate and DeepSpeed bf16, no GPU listed": (patched(H100, gpu={"status": "ok", "gpus": []}), P(
        launcher="accelerate", mixed_precision="bf16", ds_config="/j/ds.json", ds_bf16=True)),
    "bf16 with no GPU listed": (patched(H100, gpu={"status": "ok", "gpus": []}), P(launcher="torchrun", precision="bf16")),
    "bf16 with GPUs from /proc only": (patched(H100, gpu={"status": "ok", "gpus": None, "gpus_proc": [
        {"bus_id": "0000:00:07.0", "minor": 0}]}), P(launcher="torchrun", precision="bf16")),
}

# ------------------------------------------------------------ launch.batch (per node)


def ds(ok, ws=16, notes=(), **b):
    return P(launcher="deepspeed", ds_config="/j/ds.json", world_min=ws, world_max=ws, notes=list(notes),
             batch=Batch(ok=ok, **b))


BATCH = {
    "no plan": (H100, None),
    "no DeepSpeed config": (H100, P(launcher="torchrun")),
    "auto": (H100, ds(None, notes=["train_batch_size is \"auto\""])),
    "no world size": (H100, ds(None, notes=["something else"])),
    "wrong product": (H100, ds(False, ws=16, error="train_batch_size 100 != 4 x 2 x 16")),
    "right product": (H100, ds(True, ws=16, train_batch_size=128, micro_batch_per_gpu=4,
                               gradient_accumulation_steps=2)),
    "seed002": (H100, "seed002"),
}

# ------------------------------------------------------------ launch.env (cluster)


def env(values=None, hashed=None):
    return {"status": "ok", "values": dict(values or {}), "hashed": dict(hashed or {})}


def env_nodes(**by_host):
    out = {}
    for h, e in by_host.items():
        f = patched(H200, env=None)
        f["env"] = e
        f["node"] = h
        out[h] = f
    return out


def mpi(fwd, env_set=None, launcher="mpirun"):
    return P(launcher=launcher, forwarded=fwd, env_set=dict(env_set or {}))


ENV = {
    "no plan": (env_nodes(a=env(), b=env()), None),
    "torchrun carries it": (env_nodes(a=env(), b=env()), P(launcher="torchrun", forwarded=["X"])),
    "mpirun without -x list": (env_nodes(a=env(), b=env()), P(launcher="mpirun")),
    "set on the line, unset on the ranks": (
        env_nodes(a=env({"NCCL_DEBUG": "INFO"}), b=env({"PATH": "/bin"}), c=env()),
        mpi(["PATH"], {"NCCL_DEBUG": "INFO", "OTHER": "1"})),
    "set on the line, another value on one": (
        env_nodes(a=env({"NCCL_DEBUG": "INFO"}), b=env({"NCCL_DEBUG": "WARN"})),
        mpi([], {"NCCL_DEBUG": "INFO"}, launcher="mpiexec")),
    "set on the line, hashed other value": (
        env_nodes(a=env(hashed={"LD_LIBRARY_PATH": "sha256:aa"}), b=env(hashed={"LD_LIBRARY_PATH": "sha256:bb"})),
        mpi(["NCCL_DEBUG"], {"LD_LIBRARY_PATH": "sha256:aa"}, launcher="horovodrun")),
    "set on the line and forwarded": (
        env_nodes(a=env(), b=env()), mpi(["NCCL_DEBUG", "UCX_TLS"], {"NCCL_DEBUG": "INFO", "UCX_TLS": "rc"})),
    "set on the line, same everywhere": (
        env_nodes(a=env({"NCCL_DEBUG": "INFO"}), b=env({"NCCL_DEBUG": "INFO"})), mpi([], {"NCCL_DEBUG": "INFO"})),
    "redacted on the line": (
        env_nodes(a=env({"NCCL_DEBUG": "INFO"}), b=env({"NCCL_DEBUG": "INFO"})),
        mpi([], {"NCCL_IB_HCA": "<redacted>"}, launcher="mpiexec.hydra")),
    "set on one node only": (
        env_nodes(a=env({"PYTHONPATH": "/x", "HOME": "/h"}), b=env(), c=env(hashed={"PYTHONPATH": "sha256:1"})),
        mpi([])),
    "names that are not job variables": (
        env_nodes(a=env({"XNCCL_DEBUG": "1", "LD_LIBRARY_PATH2": "/x", "MY_PYTHONPATH": "/y", "NCCL_": "z",
                         "UCX_TLS": "rc"}), b=env()), mpi(["UCX_TLS"])),
    "hashed on one node only": (env_nodes(a=env(hashed={"LD_LIBRARY_PATH": "sha256:1"}), b=env()), mpi([])),
    "set on every node, not on the line": (
        env_nodes(a=env({"NCCL_SOCKET_IFNAME": "eth0"}), b=env({"NCCL_SOCKET_IFNAME": "ib0"})), mpi([])),
}

# ------------------------------------------------------------ launch.files (cluster)


def files(**by_path):
    return {"status": "ok", "files": {p: ({"error": "missing"} if v is None else {"sha256": v}) for p, v in
                                       by_path.items()}}


FILES_PLAN = P(launcher="accelerate", files=["/j/train.py", "/j/ds.json"])
FILES = {
    "no plan": (per_host(a=dict(files=files()), b=dict(files=files())), None),
    "none reported, two": (per_host(a=dict(files=files()), b=dict(files=files())), FILES_PLAN),
    "none reported, one": (per_host(a=dict(files=files()), b=dict(files=files())),
                           P(launcher="torchrun", files=["/j/train.py"])),
    "identical, two files": (per_host(a=dict(files=files(**{"/j/train.py": "a" * 64, "/j/ds.json": "b" * 64})),
                                      b=dict(files=files(**{"/j/train.py": "a" * 64, "/j/ds.json": "b" * 64}))),
                             FILES_PLAN),
    "identical, one file reported": (per_host(a=dict(files=files(**{"/j/train.py": "a" * 64})),
                                              b=dict(files=files(**{"/j/train.py": "a" * 64})),
                                              c=dict(files=files(**{"/j/train.py": "a" * 64}))), FILES_PLAN),
    "missing on one": (per_host(a=dict(files=files(**{"/j/train.py": "a" * 64})),
                                b=dict(files=files(**{"/j/train.py": None})),
                                c=dict(files=files(**{"/j/train.py": None}))), FILES_PLAN),
    "missing everywhere": (per_host(a=dict(files=files(**{"/j/ds.json": None})),
                                    b=dict(files=files(**{"/j/ds.json": None}))), FILES_PLAN),
    "differs": (per_host(a=dict(files=files(**{"/j/train.py": "a" * 64})),
                         b=dict(files=files(**{"/j/train.py": "a" * 64})),
                         c=dict(files=files(**{"/j/train.py": "c" * 64}))), FILES_PLAN),
    "reported by some nodes only": (per_host(a=dict(files=files()), b=dict(files=files(**{"/j/train.py": "a" * 64})),
                                             c=dict(files=files(**{"/j/train.py": "c" * 64}))), FILES_PLAN),
}

# ------------------------------------------------------------ launch.rendezvous (cluster)


def master(port=29500, ok=True, error=None, addr="10.0.0.1"):
    return {"status": "ok", "role": "master", "port": port, "addr": addr,
            "bind": {"ok": ok, "error": error}, "accepted": []}


def peer(ok=True, error=None, port=29500, addr="10.0.0.1", connect=True):
    d = {"status": "ok", "role": "peer", "port": port, "addr": addr}
    if connect:
        d["connect"] = {"ok": ok, "error": error}
    return d


def rdv(**by_host):
    out = {}
    for h, r in by_host.items():
        f = patched(H200)
        f["rendezvous"] = r
        f["node"] = h
        out[h] = f
    return out


RDV_PLAN = P(launcher="torchrun", master_addr="10.0.0.1", master_port=29500)
RENDEZVOUS = {
    "no plan": (rdv(a=master(), b=peer()), None),
    "no master probed": (rdv(a=peer(), b=peer()), RDV_PLAN),
    "port in use": (rdv(a=master(ok=False, error="in use (another process listens on it)"), b=peer()), RDV_PLAN),
    "port in use, no bind record": (rdv(a={"status": "ok", "role": "master", "port": 22, "bind": {}}, b=peer()),
                                    RDV_PLAN),
    "two masters, first by name": (rdv(b=master(port=2), a=master(port=1), c=peer(port=1)), RDV_PLAN),
    "peers reach": (rdv(a=master(), b=peer(), c=peer()), RDV_PLAN),
    "no peer": (rdv(a=master(), b={"status": "ok", "role": "idle"}), RDV_PLAN),
    "one peer refused, one timed out, one without error, one without connect": (
        rdv(m=master(addr="10.0.0.9"), b=peer(ok=False, error="connection refused"),
            c=peer(ok=False, error="timed out (a firewall drops the traffic?)"), d=peer(ok=False),
            e=peer(connect=False), f=peer()), RDV_PLAN),
}

TABLES = {"launch.counts": COUNTS, "launch.master": MASTER, "launch.precision": PRECISION,
          "launch.batch": BATCH, "launch.env": ENV, "launch.files": FILES, "launch.rendezvous": RENDEZVOUS}


# ------------------------------------------------------------ nccl.env (per node)

def eff(source="environment", **values):
    return {k: {"value": v, "source": source} for k, v in values.items()}


def nccl(effective=None, paths=None, **sections):
    return patched(H100, nccl={"effective": effective or {}, "paths": paths or {}}, **sections)


def port(n, state="ACTIVE", link="InfiniBand", gids=None):
    return {"port": n, "state": state, "link_layer": link, "gids": list(gids or [])}


def rdma(*devices, gdr=False, modules=()):
    return {"status": "ok", "devices": list(devices), "gdr_modules_loaded": gdr, "modules_loaded": list(modules)}


def dev(name, *ports):
    return {"name": name, "ports": list(ports)}


NETWORK = {"status": "ok", "default_route": {"interface": "ens2"}, "interfaces": [
    {"name": "eth0", "state": "up", "virtual": False, "ipv4": [{"address": "10.0.0.5"}],
     "ipv6": [{"address": "fd00::5"}]},
    {"name": "ens2", "state": "up", "virtual": False, "ipv4": [{"address": "10.1.0.5"}], "ipv6": []},
    {"name": "ens3", "state": "down", "virtual": False, "ipv4": [{"address": "10.2.0.5"}], "ipv6": []},
    {"name": "docker0", "state": "up", "virtual": True, "ipv4": [{"address": "172.17.0.1"}], "ipv6": []},
    {"name": "lo", "state": "unknown", "virtual": True, "ipv4": [{"address": "127.0.0.1"}], "ipv6": []},
    {"name": "ens4", "state": "up", "virtual": False, "ipv4": [], "ipv6": []},
]}
NOGPU = {"status": "error", "error": "no GPU"}
ROCE_GIDS = [{"index": 0, "type": "IB/RoCE v1", "gid": "fe80::1"},
             {"index": 1, "type": "RoCE v2", "gid": "fe80::1"},
             {"index": 2, "type": "IB/RoCE v1", "gid": "::ffff:10.3.0.5", "ipv4": "10.3.0.5"},
             {"index": 3, "type": "RoCE v2", "gid": "::ffff:10.3.0.5", "ipv4": "10.3.0.5"}]
ROCE = rdma(dev("mlx5_0", port(1, link="Ethernet", gids=ROCE_GIDS)),
            dev("mlx5_1", port(1, link="Ethernet", gids=[{"index": 0, "type": "RoCE v2", "gid": "fe80::2"}])),
            dev("mlx5_10", port(1, state="DOWN"), port(2)))
IB = rdma(dev("mlx5_0", port(1)), dev("mlx5_1", port(1, state="DOWN")))

NCCL = {
    "nothing set, no rdma": (nccl(rdma={"status": "unsupported"}), None),
    "nothing set, rdma with no port": (nccl(), None),
    "ifname eth0": (nccl(eff(NCCL_SOCKET_IFNAME="eth0"), network=NETWORK), None),
    "ifname =eth0 from a file": (nccl(eff("/etc/nccl.conf", NCCL_SOCKET_IFNAME="=eth0"), network=NETWORK), None),
    "ifname en prefix": (nccl(eff(NCCL_SOCKET_IFNAME="en"), network=NETWORK), None),
    "ifname exact prefix is no match": (nccl(eff(NCCL_SOCKET_IFNAME="=en"), network=NETWORK), None),
    "ifname exclude eth": (nccl(eff(NCCL_SOCKET_IFNAME="^eth,docker,lo"), network=NETWORK), None),
    "ifname ipv6": (nccl(eff(NCCL_SOCKET_IFNAME="eth0", NCCL_SOCKET_FAMILY="AF_INET6"), network=NETWORK), None),
    "ifname ipv6 without v6 address": (nccl(eff(NCCL_SOCKET_IFNAME="ens2", NCCL_SOCKET_FAMILY="AF_INET6"),
                                            network=NETWORK), None),
    "ifname down": (nccl(eff("/root/.nccl.conf", NCCL_SOCKET_IFNAME="ens3"), network=NETWORK), None),
    "ifname no address": (nccl(eff(NCCL_SOCKET_IFNAME="ens4"), network=NETWORK), None),
    "ifname none": (nccl(eff(NCCL_SOCKET_IFNAME="ib0"), network=NETWORK), None),
    "ifname none, no best": (nccl(eff(NCCL_SOCKET_IFNAME="ib0"), network={"status": "ok", "interfaces": [
        {"name": "lo", "state": "unknown", "virtual": True, "ipv4": [{"address": "127.0.0.1"}]}]}), None),
    "ifname only virtual": (nccl(eff(NCCL_SOCKET_IFNAME="docker0,lo"), network=NETWORK), None),
    "ifname only virtual, no best": (nccl(eff(NCCL_SOCKET_IFNAME="lo"), network={"status": "ok", "interfaces": [
        {"name": "lo", "state": "unknown", "virtual": True, "ipv4": [{"address": "127.0.0.1"}]}]}), None),
    "ifname one char ignored": (nccl(eff(NCCL_SOCKET_IFNAME="x"), network=NETWORK), None),
    "ifname network failed": (nccl(eff(NCCL_SOCKET_IFNAME="eth0"), network={"status": "error", "interfaces": []}),
                               None),
    "ifname fixture eth0": (nccl(eff(NCCL_SOCKET_IFNAME="eth")), None),
    "ifname fixture best eth0": (nccl(eff(NCCL_SOCKET_IFNAME="ifb")), None),
    "hca none match": (nccl(eff(NCCL_IB_HCA="mlx4"), rdma=IB, gpu=NOGPU), None),
    "hca none match from file, no device": (nccl(eff("/etc/nccl.conf", NCCL_IB_HCA="mlx4"), rdma=rdma(), gpu=NOGPU),
                                            None),
    "hca exact": (nccl(eff(NCCL_IB_HCA="=mlx5_0:1,mlx5_1"), rdma=IB, gpu=NOGPU), None),
    "hca exact bad port": (nccl(eff(NCCL_IB_HCA="=mlx5_0:2"), rdma=IB, gpu=NOGPU), None),
    "hca prefix bad port": (nccl(eff(NCCL_IB_HCA="mlx5_1:3"), rdma=ROCE, gpu=NOGPU), None),
    "hca prefix": (nccl(eff(NCCL_IB_HCA="mlx5_1"), rdma=ROCE, gpu=NOGPU), None),
    "hca prefix with port": (nccl(eff(NCCL_IB_HCA="mlx5_1:1"), rdma=ROCE, gpu=NOGPU), None),
    "hca prefix two named": (nccl(eff(NCCL_IB_HCA="mlx5_0,mlx5_1"), rdma=IB, gpu=NOGPU), None),
    "hca exclude": (nccl(eff(NCCL_IB_HCA="^mlx5_1:1"), rdma=IB, gpu=NOGPU), None),
    "hca exclude all": (nccl(eff(NCCL_IB_HCA="^mlx5"), rdma=IB, gpu=NOGPU), None),
    "hca rdma failed": (nccl(eff(NCCL_IB_HCA="mlx4"), rdma={"status": "error", "devices": []}, gpu=NOGPU), None),
    "hca with no active port": (nccl(eff(NCCL_IB_HCA="mlx4"), rdma=rdma(dev("mlx5_0", port(1, state="DOWN"))),
                                     gpu=NOGPU), None),
    "net ib no active": (nccl(eff(NCCL_NET=" IB "), rdma=rdma(dev("mlx5_0", port(1, state="DOWN"))), gpu=NOGPU), None),
    "net ib one active": (nccl(eff("/etc/nccl.conf", NCCL_NET="ib"), rdma=IB, gpu=NOGPU), None),
    "net ib two active": (nccl(eff(NCCL_NET="IB"), rdma=rdma(dev("a", port(1), port(2))), gpu=NOGPU), None),
    "net ib rdma failed": (nccl(eff(NCCL_NET="IB"), rdma={"status": "error"}, gpu=NOGPU), None),
    "net socket": (nccl(eff(NCCL_NET="Socket"), rdma=IB, gpu=NOGPU), None),
    "ib disable one active": (nccl(eff(NCCL_IB_DISABLE=" 1"), rdma=IB, gpu=NOGPU), None),
    "ib disable two active from file": (nccl(eff("/etc/nccl.conf", NCCL_IB_DISABLE="1"),
                                             rdma=rdma(dev("a", port(1), port(2))), gpu=NOGPU), None),
    "ib disable none active": (nccl(eff(NCCL_IB_DISABLE="1"), rdma=rdma(dev("a", port(1, state="DOWN"))),
                                    gpu=NOGPU), None),
    "ib disable rdma failed": (nccl(eff(NCCL_IB_DISABLE="1"), rdma={"status": "error"}, gpu=NOGPU), None),
    "ib disable 0": (nccl(eff(NCCL_IB_DISABLE="0"), rdma=IB, gpu=NOGPU), None),
    "gid v2 ipv4": (nccl(eff(NCCL_IB_GID_INDEX="3", NCCL_IB_HCA="=mlx5_0"), rdma=ROCE, gpu=NOGPU), None),
    "gid v2 no ipv4": (nccl(eff(NCCL_IB_GID_INDEX="1", NCCL_IB_HCA="=mlx5_0"), rdma=ROCE, gpu=NOGPU), None),
    "gid v1": (nccl(eff(NCCL_IB_GID_INDEX="2", NCCL_IB_HCA="=mlx5_0"), rdma=ROCE, gpu=NOGPU), None),
    "gid missing on every roce port": (nccl(eff("/etc/nccl.conf", NCCL_IB_GID_INDEX="7"), rdma=ROCE, gpu=NOGPU), None),
    "gid not a number": (nccl(eff(NCCL_IB_GID_INDEX="x", NCCL_IB_HCA="mlx5_1"), rdma=ROCE, gpu=NOGPU), None),
    "gid -1": (nccl(eff(NCCL_IB_GID_INDEX="-1"), rdma=ROCE, gpu=NOGPU), None),
    "gid empty": (nccl(eff(NCCL_IB_GID_INDEX=""), rdma=ROCE, gpu=NOGPU), None),
    "gid rdma failed": (nccl(eff(NCCL_IB_GID_INDEX="3"), rdma={"status": "error"}, gpu=NOGPU), None),
    "gid no v2 on port": (nccl(eff(NCCL_IB_GID_INDEX="0"), rdma=rdma(dev("r", port(1, link="Ethernet", gids=[
        {"index": 0, "type": "IB/RoCE v1", "gid": "fe80::3"}]))), gpu=NOGPU), None),
    "gid ports without type or down": (nccl(eff(NCCL_IB_GID_INDEX="0"), rdma=rdma(
        dev("r", port(1, link="Ethernet", gids=[{"index": 0, "gid": "fe80::3"}]),
            port(2, state="DOWN", link="Ethernet", gids=ROCE_GIDS), port(3, link="Ethernet"),
            port(4, gids=ROCE_GIDS))), gpu=NOGPU), None),
    "gdr level wanted, not loaded": (nccl(eff(NCCL_NET_GDR_LEVEL="PHB"), rdma=rdma(dev("a", port(1)),
                                                                                   modules=["ib_core", "mlx5_ib"]),
                                          gpu=NOGPU), None),
    "gdr level LOC": (nccl(eff(NCCL_NET_GDR_LEVEL="LOC"), rdma=IB, gpu=NOGPU), None),
    "gdr level 0": (nccl(eff(NCCL_NET_GDR_LEVEL="0"), rdma=IB, gpu=NOGPU), None),
    "gdr by gpus, not loaded, no modules": (nccl(rdma=IB), None),
    "gdr by gpus, loaded": (nccl(rdma=rdma(dev("a", port(1)), gdr=True, modules=["ib_core", "nvidia_peermem"])),
                            None),
    "gdr by gpus, nv_peer_mem": (nccl(rdma=rdma(dev("a", port(1)), gdr=True, modules=["nv_peer_mem", "x"])), None),
    "gdr loaded, module list empty": (nccl(rdma=rdma(dev("a", port(1)), gdr=True)), None),
    "gdr gpus, no active port": (nccl(rdma=rdma(dev("a", port(1, state="DOWN")))), None),
    "gdr level, rdma failed": (nccl(eff(NCCL_NET_GDR_LEVEL="SYS"), rdma={"status": "error"}), None),
    "paths": (nccl(paths={"NCCL_TOPO_FILE": {"path": "/t.xml", "exists": True},
                          "NCCL_GRAPH_FILE": {"path": "/g.xml", "exists": False}},
                   effective=eff("/etc/nccl.conf", NCCL_GRAPH_FILE="/g.xml", NCCL_TOPO_FILE="/t.xml"),
                   rdma={"status": "unsupported"}), None),
    "paths exist": (nccl(paths={"NCCL_TOPO_FILE": {"path": "/t.xml", "exists": True}},
                         effective=eff(NCCL_TOPO_FILE="/t.xml"), rdma={"status": "unsupported"}), None),
    "ifname none, default route eth0": (nccl(eff(NCCL_SOCKET_IFNAME="ib0"), network=dict(
        NETWORK, default_route={"interface": "eth0"})), None),
    "ifname none, no default route": (nccl(eff(NCCL_SOCKET_IFNAME="ib0"), network=dict(NETWORK, default_route=None)),
                                      None),
    "ifname none, route not a record": (nccl(eff(NCCL_SOCKET_IFNAME="ib0"), network=dict(
        NETWORK, default_route="eth0")), None),
    "effective not a record": (nccl(["NCCL_DEBUG"], rdma={"status": "unsupported"}), None),
    "devices not a list": (nccl(eff(NCCL_NET="IB"), rdma=dict(rdma(), devices="mlx5_0"), gpu=NOGPU), None),
    "device and port records not records": (nccl(eff(NCCL_NET="IB"), rdma=rdma("mlx5_0", {"name": "m", "ports": "1"},
                                                                              dev("n", "1", port(1))), gpu=NOGPU), None),
    "names: contrib only": (nccl(eff(NCCL_EP_DEBUG="1"), rdma={"status": "unsupported"}), None),
    "names: close to a contrib name only": (nccl(eff(NCCL_EP_DEBUGX="1"), rdma={"status": "unsupported"}), None),
    # read by one release only (2.29.7), after the node's 2.28.9 (gpu26: the older-node branch)
    "names: former, one release": (nccl(eff(NCCL_GIN_EXCLUSIVE_CONTEXTS="1"), rdma={"status": "unsupported"}), None),
    "ifname two interfaces, two addresses": (nccl(eff(NCCL_SOCKET_IFNAME="eth0,ens2"), network=dict(
        NETWORK, interfaces=[dict(NETWORK["interfaces"][0], ipv4=[{"address": "10.0.0.5"}, {"address": "10.0.9.5"}])]
        + NETWORK["interfaces"][1:])), None),
    "network not a record": (dict(nccl(eff(NCCL_DEBUG="INFO"), rdma={"status": "unsupported"}), network=["eth0"]),
                             None),
    "paths not a record": (nccl(eff(NCCL_DEBUG="INFO"), paths=["/t.xml"], rdma={"status": "unsupported"}), None),
    "hca exclude, no device": (nccl(eff(NCCL_IB_HCA="^mlx"), rdma=rdma(), gpu=NOGPU), None),
    "hca exact, first without port, second bad port": (nccl(eff(NCCL_IB_HCA="=mlx5_0,mlx5_1:3"), rdma=IB, gpu=NOGPU),
                                                       None),
    "hca exact port on a prefix of another": (nccl(eff(NCCL_IB_HCA="=mlx5_1:2"), rdma=ROCE, gpu=NOGPU), None),
    "hca names of different lengths": (nccl(eff(NCCL_IB_HCA="mlx5_0,a"), rdma=rdma(dev("mlx5_0", port(1)),
                                                                                    dev("a", port(1))), gpu=NOGPU), None),
    "hca prefix of two names": (nccl(eff(NCCL_IB_HCA="mlx5_1:1,mlx5_0"), rdma=ROCE, gpu=NOGPU), None),
    "gid v1, two v2 with IPv4": (nccl(eff(NCCL_IB_GID_INDEX="0"), rdma=rdma(dev("r", port(1, link="Ethernet", gids=[
        {"index": 0, "type": "IB/RoCE v1", "gid": "fe80::3"},
        {"index": 1, "type": "RoCE v2", "gid": "::ffff:10.3.0.6", "ipv4": "10.3.0.6"},
        {"index": 2, "type": "RoCE v2", "gid": "::ffff:10.4.0.6", "ipv4": "10.4.0.6"}]))), gpu=NOGPU), None),
    "gdr both modules": (nccl(rdma=rdma(dev("a", port(1)), gdr=True, modules=["nv_peer_mem", "nvidia_peermem"])), None),
    "names: every kind, in order": (nccl(eff(NCCL_AGG_CHANNEL_SIZE="1", NCCL_DEBUG="INFO", NCCL_LL_THRESHOLD="0",
                                             NCCL_MY_PLUGIN_KNOB="1", NCCL_SOCKET_IFNAM="eth0"),
                                         rdma={"status": "unsupported"}), None),
    "names: a typo": (nccl(eff(NCCL_SOCKET_IFNAM="eth0"), rdma={"status": "unsupported"}), None),
    "names: a typo from a file, and a torch name": (
        nccl(eff("/etc/nccl.conf", NCCL_DEBUG_SUBSYSS="INIT", TORCH_NCCL_BLOCKING_WAIT="1"),
             rdma={"status": "unsupported"}), None),
    "names: unknown": (nccl(eff(NCCL_MY_PLUGIN_KNOB="1"), rdma={"status": "unsupported"}), None),
    "names: documented, not read": (nccl(eff(NCCL_LL_THRESHOLD="0"), rdma={"status": "unsupported"}), None),
    "names: former": (nccl(eff("/etc/nccl.conf", NCCL_AGG_CHANNEL_SIZE="1"), rdma={"status": "unsupported"}), None),
    "names: not NCCL's, and one": (nccl(eff(NCCL_VERSION="2.28", NCCL_DEBUG="INFO"), rdma={"status": "unsupported"}),
                                   None),
    "names: the fixture": (H100, None),
    "names: the H200 fixture": (H200, None),
    "untrusted entries dropped": (nccl({"NCCL_DEBUG": "INFO", "NCCL_NET": {"value": 1}, "NCCL_ALGO": {
        "value": "Ring", "source": "environment"}}, rdma={"status": "unsupported"}), None),
}

CASES = [(cid, name) for cid, table in TABLES.items() for name in table] + [("nccl.env", n) for n in NCCL]


def run_case(cid, name):
    if cid == "nccl.env":
        facts, _ = NCCL[name]
        return result(run_check(cid, facts))
    facts, plan = TABLES[cid][name]
    return result(run_check(cid, facts, cfg(_plan(plan)) if plan is not None else Config()))


@pytest.mark.parametrize("cid,name", CASES, ids=["%s: %s" % c for c in CASES])
def test_case(cid, name):
    assert run_case(cid, name) == EXPECTED[cid][name]


def test_every_case_has_its_expected_result():
    assert sorted("%s|%s" % c for c in CASES) == sorted("%s|%s" % (c, n) for c in EXPECTED for n in EXPECTED[c])


# ------------------------------------------------------------ NCCL's list syntax, directly

@pytest.mark.parametrize("value,parsed,selected", [
    ("mlx5_0:1,mlx5_1", (False, False, [("mlx5_0", "1"), ("mlx5_1", None)]), ["mlx5_0", "mlx5_1", "mlx5_10"]),
    ("=mlx5_1", (False, True, [("mlx5_1", None)]), ["mlx5_1"]),
    ("^=mlx5_1", (True, True, [("mlx5_1", None)]), ["mlx5_0", "mlx5_10"]),
    ("^mlx5_1", (True, False, [("mlx5_1", None)]), ["mlx5_0"]),
    ("  mlx5_0:1:2 , ,", (False, False, [("mlx5_0", "1")]), ["mlx5_0"]),
    ("", (False, False, []), []),
    (None, (False, False, []), []),
    ("^", (True, False, []), ["mlx5_0", "mlx5_1", "mlx5_10"]),
])
def test_parse_list_and_matches(value, parsed, selected):
    from gpudoctor.checks.nccl_env import list_matches, parse_list
    assert parse_list(value) == parsed
    assert list_matches(value, ["mlx5_0", "mlx5_1", "mlx5_10"]) == selected



# launch.master reads each interface's "ipv4" as a list of address strings, but the collector
# (gpudoctor/collector/network.py, and every recorded fixture) writes a list of
# {"address", "prefixlen"} records: with a real network section the check crashes
# (TypeError: unhashable type: 'dict'). Reported, not fixed here (checks/launch.py is not this
# file's); strict, so the fix shows up here.
@pytest.mark.parametrize("addr,status", [("10.9.9.9", "fail"), ("192.0.2.2", "pass")])
def test_master_on_real_interface_facts(addr, status):
    facts = nodes("a", "b")  # the H200 fixture's own network section: eth0 192.0.2.2 (on both copies)
    res = run_check("launch.master", facts, cfg(P(launcher="accelerate", master_addr=addr, master_port=22)))
    assert res.status == status, res.summary


# nccl.env judges NCCL_SOCKET_IFNAME over named interface records only (untrusted node output):
# a record without a name is left out, never a crash.
def test_nccl_ifname_with_an_interface_record_without_a_name():
    facts = nccl(eff(NCCL_SOCKET_IFNAME="eth0"), network={"status": "ok", "interfaces": [
        {"state": "up"}, {"name": "eth0", "state": "up", "virtual": False, "ipv4": [{"address": "10.0.0.5"}]}]})
    assert run_check("nccl.env", facts).status == "pass"


# A check that yields an error yields no Pass beside it (the runner hides such a Pass on the
# nodes the error names, so only the check's own output shows it).
@pytest.mark.parametrize("cid,name", [c for c in CASES if c[0] in ("launch.counts", "launch.precision")],
                         ids=["%s: %s" % c for c in CASES if c[0] in ("launch.counts", "launch.precision")])
def test_no_pass_beside_an_error(cid, name):
    from gpudoctor.registry import load_checks

    facts, plan = TABLES[cid][name]
    func = load_checks().get(cid).func
    out = list(func(facts, cfg(_plan(plan)) if plan is not None else Config()))
    # (userwalk22) a node the error does not name gets its own pass (hosts: that node), as it must get a verdict;
    # a pass for every node (no hosts) or for a node the error names is what the runner would hide
    named = {h for o in out if getattr(o, "severity", None) == "error" for h in (o.hosts or facts)}
    passes = [o for o in out if getattr(o, "status", None) == "pass"]  # a Verdict (Pass, NA, Skip) has a status
    assert not named or not [o for o in passes if not o.hosts or set(o.hosts) & named], out


EXPECTED = {'launch.counts': {'no plan': {'status': 'na',
                               'outcomes': {'a': ['na', 'no launch plan given (--launch, --accelerate-config)'],
                                            'b': ['na', 'no launch plan given (--launch, --accelerate-config)']},
                               'findings': []},
                   'accelerate 2x8 fits': {'status': 'pass',
                                           'outcomes': {'a': ['pass',
                                                              'world size 16 = 2 nodes x 8; 2 nodes checked, 16 '
                                                              'GPUs'],
                                                        'b': ['pass',
                                                              'world size 16 = 2 nodes x 8; 2 nodes checked, 16 '
                                                              'GPUs']},
                                           'findings': []},
                   'accelerate num_machines 3 on 2': {'status': 'fail',
                                                      'outcomes': {'a': ['fail',
                                                                         'num_machines asks for 3 nodes; 2 are being '
                                                                         'checked (a,b)'],
                                                                   'b': ['fail',
                                                                         'num_machines asks for 3 nodes; 2 are being '
                                                                         'checked (a,b)']},
                                                      'findings': [['error',
                                                                    'num_machines asks for 3 nodes; 2 are being '
                                                                    'checked (a,b)',
                                                                    '2 nodes',
                                                                    '3 nodes',
                                                                    'set num_machines to 2 in job.yaml, or check the '
                                                                    'same nodes the job runs on (--hosts)',
                                                                    {},
                                                                    []],
                                                                   ['error',
                                                                    'num_processes=24 but the 2 nodes have 16 GPUs '
                                                                    'in all',
                                                                    '16 GPUs',
                                                                    '24 GPUs',
                                                                    'set num_processes: 16 in job.yaml '
                                                                    "(num_processes counts every machine's GPUs)",
                                                                    {},
                                                                    []]]},
                   'deepspeed range 3 to 4 on 2': {'status': 'fail',
                                                   'outcomes': {'a': ['fail',
                                                                      'the hostfile and --num_nodes asks for 3 to 4 '
                                                                      'nodes; 2 are being checked (a,b)'],
                                                                'b': ['fail',
                                                                      'the hostfile and --num_nodes asks for 3 to 4 '
                                                                      'nodes; 2 are being checked (a,b)']},
                                                   'findings': [['error',
                                                                 'the hostfile and --num_nodes asks for 3 to 4 '
                                                                 'nodes; 2 are being checked (a,b)',
                                                                 '2 nodes',
                                                                 '3 to 4 nodes',
                                                                 'set the hostfile and --num_nodes to 2 in job.yaml, '
                                                                 'or check the same nodes the job runs on (--hosts)',
                                                                 {},
                                                                 []]]},
                   'torchrun range 1 to 4 on 2': {'status': 'pass',
                                                  'outcomes': {'a': ['pass',
                                                                     '1 to 4 nodes planned; 2 nodes checked, 16 '
                                                                     'GPUs'],
                                                               'b': ['pass',
                                                                     '1 to 4 nodes planned; 2 nodes checked, 16 '
                                                                     'GPUs']},
                                                  'findings': []},
                   'torchrun range 1 to 2 on 2': {'status': 'pass',
                                                  'outcomes': {'a': ['pass',
                                                                     '1 to 2 nodes planned; 2 nodes checked, 16 '
                                                                     'GPUs'],
                                                               'b': ['pass',
                                                                     '1 to 2 nodes planned; 2 nodes checked, 16 '
                                                                     'GPUs']},
                                                  'findings': []},
                   'torchrun range 2 to 3 on 2': {'status': 'pass',
                                                  'outcomes': {'a': ['pass',
                                                                     '2 to 3 nodes planned; 2 nodes checked, 16 '
                                                                     'GPUs'],
                                                               'b': ['pass',
                                                                     '2 to 3 nodes planned; 2 nodes checked, 16 '
                                                                     'GPUs']},
                                                  'findings': []},
                   'torchrun range 3 to 5 on 2': {'status': 'fail',
                                                  'outcomes': {'a': ['fail',
                                                                     '--nnodes asks for 3 to 5 nodes; 2 are being '
                                                                     'checked (a,b)'],
                                                               'b': ['fail',
                                                                     '--nnodes asks for 3 to 5 nodes; 2 are being '
                                                                     'checked (a,b)']},
                                                  'findings': [['error',
                                                                '--nnodes asks for 3 to 5 nodes; 2 are being checked '
                                                                '(a,b)',
                                                                '2 nodes',
                                                                '3 to 5 nodes',
                                                                'set --nnodes to 2 in job.yaml, or check the same '
                                                                'nodes the job runs on (--hosts)',
                                                                {},
                                                                []]]},
                   'torchrun 1 to 1 on 2': {'status': 'fail',
                                            'outcomes': {'a': ['fail',
                                                               '--nnodes asks for 1 to None nodes; 2 are being '
                                                               'checked (a,b)'],
                                                         'b': ['fail',
                                                               '--nnodes asks for 1 to None nodes; 2 are being '
                                                               'checked (a,b)']},
                                            'findings': [['error',
                                                          '--nnodes asks for 1 to None nodes; 2 are being checked '
                                                          '(a,b)',
                                                          '2 nodes',
                                                          '1 to None nodes',
                                                          'set --nnodes to 2 in job.yaml, or check the same nodes '
                                                          'the job runs on (--hosts)',
                                                          {},
                                                          []]]},
                   'torchrun 2 hi None on 2': {'status': 'pass',
                                               'outcomes': {'a': ['pass',
                                                                  'world size 16 = 2 nodes x 8; 2 nodes checked, 16 '
                                                                  'GPUs'],
                                                            'b': ['pass',
                                                                  'world size 16 = 2 nodes x 8; 2 nodes checked, 16 '
                                                                  'GPUs']},
                                               'findings': []},
                   'torchrun 1 node on 1 of 1 gpu': {'status': 'fail',
                                                     'outcomes': {'a': ['fail',
                                                                        '--nnodes asks for 1 nodes; 2 are being '
                                                                        'checked (a,b)'],
                                                                  'b': ['fail',
                                                                        '--nnodes asks for 1 nodes; 2 are being '
                                                                        'checked (a,b)']},
                                                     'findings': [['error',
                                                                   '--nnodes asks for 1 nodes; 2 are being checked '
                                                                   '(a,b)',
                                                                   '2 nodes',
                                                                   '1 nodes',
                                                                   'set --nnodes to 2 in job.yaml, or check the same '
                                                                   'nodes the job runs on (--hosts)',
                                                                   {},
                                                                   []]]},
                   'torchrun host list count': {'status': 'fail',
                                                'outcomes': {'a': ['fail',
                                                                   'the host list asks for 1 nodes; 2 are being '
                                                                   'checked (a,b)'],
                                                             'b': ['fail',
                                                                   'the host list asks for 1 nodes; 2 are being '
                                                                   'checked (a,b)']},
                                                'findings': [['error',
                                                              'the host list asks for 1 nodes; 2 are being checked '
                                                              '(a,b)',
                                                              '2 nodes',
                                                              '1 nodes',
                                                              'set the host list to 2 in job.yaml, or check the same '
                                                              'nodes the job runs on (--hosts)',
                                                              {},
                                                              []]]},
                   'mpirun too many procs': {'status': 'fail',
                                             'outcomes': {'a': ['fail',
                                                                '-H a:8,b:8 starts 8 processes on a but it has 4 GPUs'],
                                                          'b': ['pass', '8 processes planned on its 8 GPUs']},
                                             'findings': [['error',
                                                           '-H a:8,b:8 starts 8 processes on a but it has 4 GPUs',
                                                           None,
                                                           None,
                                                           'give a 4 slots, or repair its missing GPUs (nvidia-smi)',
                                                           {},
                                                           ['a']]]},
                   'mpirun slots only too many': {'status': 'fail',
                                                  'outcomes': {'a': ['fail',
                                                                     'hostfile hf starts 8 processes on a but it has 4 '
                                                                     'GPUs'],
                                                               'b': ['pass', '8 processes planned on its 8 GPUs']},
                                                  'findings': [['error',
                                                                'hostfile hf starts 8 processes on a but it has 4 GPUs',
                                                                None,
                                                                None,
                                                                'give a 4 slots, or repair its missing GPUs '
                                                                '(nvidia-smi)',
                                                                {},
                                                                ['a']]]},
                   'mpirun procs equal gpus': {'status': 'pass',
                                               'outcomes': {'a': ['pass',
                                                                  'world size 8 = 2 nodes x 4; 2 nodes checked, 8 '
                                                                  'GPUs'],
                                                            'b': ['pass',
                                                                  'world size 8 = 2 nodes x 4; 2 nodes checked, 8 '
                                                                  'GPUs']},
                                               'findings': []},
                   'mpirun one idle slot': {'status': 'warn',
                                            'outcomes': {'a': ['pass',
                                                               'world size 7 (a: 4, b: 3); 2 nodes checked, 8 GPUs'],
                                                         'b': ['warn',
                                                               '-H a:4,b:4: 1 slot left without a process (b: 1): '
                                                               'those GPUs sit idle']},
                                            'findings': [['warning',
                                                          '-H a:4,b:4: 1 slot left without a process (b: 1): those '
                                                          'GPUs sit idle',
                                                          None,
                                                          None,
                                                          'raise -np to 8 to use every slot, or give the hosts fewer '
                                                          'slots',
                                                          {},
                                                          ['b']]]},
                   'mpiexec idle slots': {'status': 'warn',
                                          'outcomes': {'a': ['warn',
                                                             '-H a:4,b:4: 5 slots left without a process (a: 2, b: '
                                                             '3): those GPUs sit idle'],
                                                       'b': ['warn',
                                                             '-H a:4,b:4: 5 slots left without a process (a: 2, b: '
                                                             '3): those GPUs sit idle']},
                                          'findings': [['warning',
                                                        '-H a:4,b:4: 5 slots left without a process (a: 2, b: 3): '
                                                        'those GPUs sit idle',
                                                        None,
                                                        None,
                                                        'raise -np to 8 to use every slot, or give the hosts fewer '
                                                        'slots',
                                                        {},
                                                        ['a', 'b']]]},
                   'horovodrun idle slots': {'status': 'warn',
                                             'outcomes': {'a': ['warn',
                                                                '-H: 2 slots left without a process (a: 2): those '
                                                                'GPUs sit idle'],
                                                          'b': ['pass',
                                                                'world size 6 (a: 2, b: 4); 2 nodes checked, 8 '
                                                                'GPUs']},
                                             'findings': [['warning',
                                                           '-H: 2 slots left without a process (a: 2): those GPUs '
                                                           'sit idle',
                                                           None,
                                                           None,
                                                           'raise -np to 8 to use every slot, or give the hosts '
                                                           'fewer slots',
                                                           {},
                                                           ['a']]]},
                   'mpiexec.hydra idle': {'status': 'warn',
                                          'outcomes': {'a': ['pass',
                                                             'world size 6 (a: 4, b: 2); 2 nodes checked, 8 GPUs'],
                                                       'b': ['warn',
                                                             '-hosts: 2 slots left without a process (b: 2): those '
                                                             'GPUs sit idle']},
                                          'findings': [['warning',
                                                        '-hosts: 2 slots left without a process (b: 2): those GPUs '
                                                        'sit idle',
                                                        None,
                                                        None,
                                                        'raise -np to 8 to use every slot, or give the hosts fewer '
                                                        'slots',
                                                        {},
                                                        ['b']]]},
                   'deepspeed spare slots are no warning': {'status': 'pass',
                                                            'outcomes': {'a': ['pass',
                                                                               'world size 6 (a: 4, b: 2); 2 nodes '
                                                                               'checked, 8 GPUs'],
                                                                         'b': ['pass',
                                                                               'world size 6 (a: 4, b: 2); 2 nodes '
                                                                               'checked, 8 GPUs']},
                                                            'findings': []},
                   'idle slot on a host not checked': {'status': 'fail',
                                                       'outcomes': {'a': ['fail',
                                                                          'the host list asks for 3 nodes; 2 are '
                                                                          'being checked (a,b)'],
                                                                    'b': ['fail',
                                                                          'the host list asks for 3 nodes; 2 are '
                                                                          'being checked (a,b)']},
                                                       'findings': [['error',
                                                                     'the host list asks for 3 nodes; 2 are being '
                                                                     'checked (a,b)',
                                                                     '2 nodes',
                                                                     '3 nodes',
                                                                     'set the host list to 2 in job.yaml, or check '
                                                                     'the same nodes the job runs on (--hosts)',
                                                                     {},
                                                                     []],
                                                                    ['warning',
                                                                     '-H: 1 slot left without a process (c: 1): '
                                                                     'those GPUs sit idle',
                                                                     None,
                                                                     None,
                                                                     'raise -np to 12 to use every slot, or give the '
                                                                     'hosts fewer slots',
                                                                     {},
                                                                     []],
                                                                    ['warning',
                                                                     '-H names c, which is not among the checked '
                                                                     'nodes (a,b)',
                                                                     None,
                                                                     None,
                                                                     'check the nodes the job will use: gpudoctor '
                                                                     'check --hosts <the same hostfile>',
                                                                     {},
                                                                     []]]},
                   'one host missing': {'status': 'fail',
                                        'outcomes': {'a': ['fail',
                                                           'the hostfile and --num_nodes asks for 3 nodes; 2 are '
                                                           'being checked (a,b)'],
                                                     'b': ['fail',
                                                           'the hostfile and --num_nodes asks for 3 nodes; 2 are '
                                                           'being checked (a,b)']},
                                        'findings': [['error',
                                                      'the hostfile and --num_nodes asks for 3 nodes; 2 are being '
                                                      'checked (a,b)',
                                                      '2 nodes',
                                                      '3 nodes',
                                                      'set the hostfile and --num_nodes to 2 in job.yaml, or check '
                                                      'the same nodes the job runs on (--hosts)',
                                                      {},
                                                      []],
                                                     ['warning',
                                                      'hostfile hf names c, which is not among the checked nodes '
                                                      '(a,b)',
                                                      None,
                                                      None,
                                                      'check the nodes the job will use: gpudoctor check --hosts '
                                                      '<the same hostfile>',
                                                      {},
                                                      []]]},
                   'two hosts missing, localhost and zero procs not': {'status': 'fail',
                                                                       'outcomes': {'a': ['fail',
                                                                                          'the hostfile and '
                                                                                          '--num_nodes asks for 6 '
                                                                                          'nodes; 2 are being '
                                                                                          'checked (a,b)'],
                                                                                    'b': ['fail',
                                                                                          'the hostfile and '
                                                                                          '--num_nodes asks for 6 '
                                                                                          'nodes; 2 are being '
                                                                                          'checked (a,b)']},
                                                                       'findings': [['error',
                                                                                     'the hostfile and --num_nodes '
                                                                                     'asks for 6 nodes; 2 are being '
                                                                                     'checked (a,b)',
                                                                                     '2 nodes',
                                                                                     '6 nodes',
                                                                                     'set the hostfile and '
                                                                                     '--num_nodes to 2 in job.yaml, '
                                                                                     'or check the same nodes the '
                                                                                     'job runs on (--hosts)',
                                                                                     {},
                                                                                     []],
                                                                                    ['warning',
                                                                                     'hostfile hf names c,d, which '
                                                                                     'are not among the checked '
                                                                                     'nodes (a,b)',
                                                                                     None,
                                                                                     None,
                                                                                     'check the nodes the job will '
                                                                                     'use: gpudoctor check --hosts '
                                                                                     '<the same hostfile>',
                                                                                     {},
                                                                                     []]]},
                   'nproc 8 on 4 and 2': {'status': 'fail',
                                          'outcomes': {'a': ['fail',
                                                             '8 processes per node but a,b have fewer GPUs (a: 4, b: '
                                                             '2)'],
                                                       'b': ['fail',
                                                             '8 processes per node but a,b have fewer GPUs (a: 4, b: '
                                                             '2)'],
                                                       'c': ['pass', '8 processes planned on its 8 GPUs']},
                                          'findings': [['error',
                                                        '8 processes per node but a,b have fewer GPUs (a: 4, b: 2)',
                                                        None,
                                                        None,
                                                        'lower --nproc_per_node/--num_gpus to 2, or leave those nodes '
                                                        'out',
                                                        {},
                                                        ['a', 'b']]]},
                   'nproc 8 on one with 7': {'status': 'fail',
                                             'outcomes': {'a': ['fail',
                                                                '8 processes per node but a has fewer GPUs (a: 7)'],
                                                          'b': ['pass', '8 processes planned on its 8 GPUs']},
                                             'findings': [['error',
                                                           '8 processes per node but a has fewer GPUs (a: 7)',
                                                           None,
                                                           None,
                                                           'lower --nproc_per_node/--num_gpus to 7, or leave those '
                                                           'nodes out',
                                                           {},
                                                           ['a']]]},
                   'nproc equal gpus': {'status': 'pass',
                                        'outcomes': {'a': ['pass', 'None nodes planned; 2 nodes checked, 16 GPUs'],
                                                     'b': ['pass', 'None nodes planned; 2 nodes checked, 16 GPUs']},
                                        'findings': []},
                   'nproc with host list not per node': {'status': 'pass',
                                                         'outcomes': {'a': ['pass',
                                                                            'None nodes planned; 2 nodes checked, 8 '
                                                                            'GPUs'],
                                                                      'b': ['pass',
                                                                            'None nodes planned; 2 nodes checked, 8 '
                                                                            'GPUs']},
                                                         'findings': []},
                   'accelerate not a multiple': {'status': 'fail',
                                                 'outcomes': {'a': ['fail',
                                                                    'num_processes=15 is not a multiple of '
                                                                    'num_machines=2'],
                                                              'b': ['fail',
                                                                    'num_processes=15 is not a multiple of '
                                                                    'num_machines=2']},
                                                 'findings': [['error',
                                                               'num_processes=15 is not a multiple of num_machines=2',
                                                               None,
                                                               None,
                                                               'num_processes is the total over all machines: set it '
                                                               'to num_machines x GPUs per machine',
                                                               {},
                                                               []],
                                                              ['warning',
                                                               'num_processes=15 leaves 1 of the 16 GPUs idle',
                                                               None,
                                                               None,
                                                               'set num_processes: 16 in job.yaml to use every GPU',
                                                               {},
                                                               []]]},
                   'accelerate more than gpus': {'status': 'fail',
                                                 'outcomes': {'a': ['fail',
                                                                    'num_processes=16 but the 2 nodes have 8 GPUs in '
                                                                    'all'],
                                                              'b': ['fail',
                                                                    'num_processes=16 but the 2 nodes have 8 GPUs in '
                                                                    'all']},
                                                 'findings': [['error',
                                                               'num_processes=16 but the 2 nodes have 8 GPUs in all',
                                                               '8 GPUs',
                                                               '16 GPUs',
                                                               'set num_processes: 8 in job.yaml (num_processes '
                                                               "counts every machine's GPUs)",
                                                               {},
                                                               []]]},
                   'accelerate fewer than gpus': {'status': 'warn',
                                                  'outcomes': {'a': ['warn',
                                                                     'num_processes=6 leaves 2 of the 8 GPUs idle'],
                                                               'b': ['warn',
                                                                     'num_processes=6 leaves 2 of the 8 GPUs idle']},
                                                  'findings': [['warning',
                                                                'num_processes=6 leaves 2 of the 8 GPUs idle',
                                                                None,
                                                                None,
                                                                'set num_processes: 8 in job.yaml to use every GPU',
                                                                {},
                                                                []]]},
                   'accelerate fewer by one': {'status': 'fail',
                                               'outcomes': {'a': ['fail',
                                                                  'num_processes=7 is not a multiple of '
                                                                  'num_machines=2'],
                                                            'b': ['fail',
                                                                  'num_processes=7 is not a multiple of '
                                                                  'num_machines=2']},
                                               'findings': [['error',
                                                             'num_processes=7 is not a multiple of num_machines=2',
                                                             None,
                                                             None,
                                                             'num_processes is the total over all machines: set it '
                                                             'to num_machines x GPUs per machine',
                                                             {},
                                                             []],
                                                            ['warning',
                                                             'num_processes=7 leaves 1 of the 8 GPUs idle',
                                                             None,
                                                             None,
                                                             'set num_processes: 8 in job.yaml to use every GPU',
                                                             {},
                                                             []]]},
                   'accelerate equal to gpus': {'status': 'pass',
                                                'outcomes': {'a': ['pass',
                                                                   'world size 8 (accelerate); 2 nodes checked, 8 '
                                                                   'GPUs'],
                                                             'b': ['pass',
                                                                   'world size 8 (accelerate); 2 nodes checked, 8 '
                                                                   'GPUs']},
                                                'findings': []},
                   'accelerate one node without gpu facts': {'status': 'fail',
                                                             'outcomes': {'a': ['fail',
                                                                                '8 processes per node but a has fewer '
                                                                                'GPUs (a: 4)'],
                                                                          'b': ['skipped',
                                                                                'no GPU facts from this node: its '
                                                                                'processes not judged against its '
                                                                                'GPUs']},
                                                             'findings': [['error',
                                                                           '8 processes per node but a has fewer GPUs '
                                                                           '(a: 4)',
                                                                           None,
                                                                           None,
                                                                           'lower --nproc_per_node/--num_gpus to 4, or '
                                                                           'leave those nodes out',
                                                                           {},
                                                                           ['a']]]},
                   'torchrun world as listing': {'status': 'warn',
                                                 'outcomes': {'a': ['pass',
                                                                    'world size 6 (a: 4, b: 2); 2 nodes checked, 8 '
                                                                    'GPUs'],
                                                              'b': ['warn',
                                                                    '-H: 2 slots left without a process (b: 2): '
                                                                    'those GPUs sit idle']},
                                                 'findings': [['warning',
                                                               '-H: 2 slots left without a process (b: 2): those '
                                                               'GPUs sit idle',
                                                               None,
                                                               None,
                                                               'raise -np to 8 to use every slot, or give the hosts '
                                                               'fewer slots',
                                                               {},
                                                               ['b']]]},
                   'torchrun no world': {'status': 'pass',
                                         'outcomes': {'a': ['pass', '2 nodes planned; 2 nodes checked, 16 GPUs'],
                                                      'b': ['pass', '2 nodes planned; 2 nodes checked, 16 GPUs']},
                                         'findings': []},
                   'world without nnodes': {'status': 'pass',
                                            'outcomes': {'a': ['pass',
                                                               'world size 16 (torchrun); 2 nodes checked, 16 GPUs'],
                                                         'b': ['pass',
                                                               'world size 16 (torchrun); 2 nodes checked, 16 GPUs']},
                                            'findings': []},
                   'world range is not one': {'status': 'pass',
                                              'outcomes': {'a': ['pass',
                                                                 '1 to 2 nodes planned; 2 nodes checked, 16 GPUs'],
                                                           'b': ['pass',
                                                                 '1 to 2 nodes planned; 2 nodes checked, 16 GPUs']},
                                              'findings': []},
                   'gpus listed from /proc only': {'status': 'fail',
                                                   'outcomes': {'a': ['fail',
                                                                      '4 processes per node but a,b have fewer GPUs '
                                                                      '(a: 2, b: 2)'],
                                                                'b': ['fail',
                                                                      '4 processes per node but a,b have fewer GPUs '
                                                                      '(a: 2, b: 2)']},
                                                   'findings': [['error',
                                                                 '4 processes per node but a,b have fewer GPUs (a: '
                                                                 '2, b: 2)',
                                                                 None,
                                                                 None,
                                                                 'lower --nproc_per_node/--num_gpus to 2, or leave '
                                                                 'those nodes out',
                                                                 {},
                                                                 ['a', 'b']]]},
                   'two sources named in the fix': {'status': 'fail',
                                                    'outcomes': {'a': ['fail',
                                                                       'num_machines asks for 3 nodes; 2 are being '
                                                                       'checked (a,b)'],
                                                                 'b': ['fail',
                                                                       'num_machines asks for 3 nodes; 2 are being '
                                                                       'checked (a,b)']},
                                                    'findings': [['error',
                                                                  'num_machines asks for 3 nodes; 2 are being '
                                                                  'checked (a,b)',
                                                                  '2 nodes',
                                                                  '3 nodes',
                                                                  'set num_machines to 2 in acc.yaml; ds.json, or '
                                                                  'check the same nodes the job runs on (--hosts)',
                                                                  {},
                                                                  []]]},
                   'a host without GPU facts, then one with too few': {'status': 'fail',
                                                                       'outcomes': {'a': ['fail',
                                                                                          'the host list asks for 3 '
                                                                                          'nodes; 2 are being '
                                                                                          'checked (a,b)'],
                                                                                    'b': ['fail',
                                                                                          'the host list asks for 3 '
                                                                                          'nodes; 2 are being '
                                                                                          'checked (a,b)']},
                                                                       'findings': [['error',
                                                                                     'the host list asks for 3 '
                                                                                     'nodes; 2 are being checked '
                                                                                     '(a,b)',
                                                                                     '2 nodes',
                                                                                     '3 nodes',
                                                                                     'set the host list to 2 in '
                                                                                     'job.yaml, or check the same '
                                                                                     'nodes the job runs on '
                                                                                     '(--hosts)',
                                                                                     {},
                                                                                     []],
                                                                                    ['error',
                                                                                     '-H c:8,a:8,b:8 starts 8 '
                                                                                     'processes on a but it has 4 '
                                                                                     'GPUs',
                                                                                     None,
                                                                                     None,
                                                                                     'give a 4 slots, or repair its '
                                                                                     'missing GPUs (nvidia-smi)',
                                                                                     {},
                                                                                     ['a']],
                                                                                    ['warning',
                                                                                     '-H c:8,a:8,b:8 names c, which '
                                                                                     'is not among the checked nodes '
                                                                                     '(a,b)',
                                                                                     None,
                                                                                     None,
                                                                                     'check the nodes the job will '
                                                                                     'use: gpudoctor check --hosts '
                                                                                     '<the same hostfile>',
                                                                                     {},
                                                                                     []]]},
                   '-np under the slots on fewer GPUs': {'status': 'warn',
                                                         'outcomes': {'a': ['warn',
                                                                            '-H a:8,b:8: 4 slots left without a '
                                                                            'process (a: 4): those GPUs sit idle'],
                                                                      'b': ['pass',
                                                                            'world size 12 (a: 4, b: 8); 2 nodes '
                                                                            'checked, 12 GPUs']},
                                                         'findings': [['warning',
                                                                       '-H a:8,b:8: 4 slots left without a process '
                                                                       '(a: 4): those GPUs sit idle',
                                                                       None,
                                                                       None,
                                                                       'raise -np to 16 to use every slot, or give '
                                                                       'the hosts fewer slots',
                                                                       {},
                                                                       ['a']]]},
                   'a host given no process': {'status': 'fail',
                                               'outcomes': {'a': ['fail',
                                                                  'the host list asks for 1 nodes; 2 are being '
                                                                  'checked (a,b)'],
                                                            'b': ['fail',
                                                                  'the host list asks for 1 nodes; 2 are being '
                                                                  'checked (a,b)']},
                                               'findings': [['error',
                                                             'the host list asks for 1 nodes; 2 are being checked '
                                                             '(a,b)',
                                                             '2 nodes',
                                                             '1 nodes',
                                                             'set the host list to 2 in job.yaml, or check the same '
                                                             'nodes the job runs on (--hosts)',
                                                             {},
                                                             []],
                                                            ['warning',
                                                             '-H: 4 slots left without a process (b: 4): those GPUs '
                                                             'sit idle',
                                                             None,
                                                             None,
                                                             'raise -np to 8 to use every slot, or give the hosts '
                                                             'fewer slots',
                                                             {},
                                                             ['b']]]},
                   'one node of two planned': {'status': 'pass',
                                               'outcomes': {'a': ['pass',
                                                                  'world size 8 = 1 node x 8; 2 nodes checked, 16 '
                                                                  'GPUs'],
                                                            'b': ['pass',
                                                                  'world size 8 = 1 node x 8; 2 nodes checked, 16 '
                                                                  'GPUs']},
                                               'findings': []},
                   'a node without GPU facts in a pass': {'status': 'pass',
                                                          'outcomes': {'a': ['pass',
                                                                             '2 nodes planned; 2 nodes checked'],
                                                                       'b': ['pass',
                                                                             '2 nodes planned; 2 nodes checked']},
                                                          'findings': []},
                   'seed002 accelerate + deepspeed': {'status': 'pass',
                                                      'outcomes': {'huaweiyun1': ['pass',
                                                                                  'world size 16 = 2 nodes x 8; 2 '
                                                                                  'nodes checked, 16 GPUs'],
                                                                   'huaweiyun2': ['pass',
                                                                                  'world size 16 = 2 nodes x 8; 2 '
                                                                                  'nodes checked, 16 GPUs']},
                                                      'findings': []}},
 'launch.master': {'no plan': {'status': 'na',
                               'outcomes': {'a': ['na', 'no launch plan given'], 'b': ['na', 'no launch plan given']},
                               'findings': []},
                   'no master address': {'status': 'na',
                                         'outcomes': {'a': ['na',
                                                            'the torchrun plan names no master address (it is chosen '
                                                            'at run time)'],
                                                      'b': ['na',
                                                            'the torchrun plan names no master address (it is chosen '
                                                            'at run time)']},
                                         'findings': []},
                   'loopback 127.0.0.1': {'status': 'fail',
                                          'outcomes': {'a': ['fail',
                                                             'the master address is 127.0.0.1 (loopback): ranks on '
                                                             'other nodes cannot reach it'],
                                                       'b': ['fail',
                                                             'the master address is 127.0.0.1 (loopback): ranks on '
                                                             'other nodes cannot reach it']},
                                          'findings': [['error',
                                                        'the master address is 127.0.0.1 (loopback): ranks on other '
                                                        'nodes cannot reach it',
                                                        None,
                                                        None,
                                                        'set main_process_ip / --master_addr / MASTER_ADDR to the '
                                                        "master node's real address (ip -4 addr on it), e.g. a",
                                                        {},
                                                        []]]},
                   'loopback 127.0.1.1': {'status': 'fail',
                                          'outcomes': {'a': ['fail',
                                                             'the master address is 127.0.1.1 (loopback): ranks on '
                                                             'other nodes cannot reach it'],
                                                       'b': ['fail',
                                                             'the master address is 127.0.1.1 (loopback): ranks on '
                                                             'other nodes cannot reach it']},
                                          'findings': [['error',
                                                        'the master address is 127.0.1.1 (loopback): ranks on other '
                                                        'nodes cannot reach it',
                                                        None,
                                                        None,
                                                        'set main_process_ip / --master_addr / MASTER_ADDR to the '
                                                        "master node's real address (ip -4 addr on it), e.g. a",
                                                        {},
                                                        []]]},
                   'loopback localhost': {'status': 'fail',
                                          'outcomes': {'a': ['fail',
                                                             'the master address is localhost (loopback): ranks on '
                                                             'other nodes cannot reach it'],
                                                       'b': ['fail',
                                                             'the master address is localhost (loopback): ranks on '
                                                             'other nodes cannot reach it']},
                                          'findings': [['error',
                                                        'the master address is localhost (loopback): ranks on other '
                                                        'nodes cannot reach it',
                                                        None,
                                                        None,
                                                        'set main_process_ip / --master_addr / MASTER_ADDR to the '
                                                        "master node's real address (ip -4 addr on it), e.g. a",
                                                        {},
                                                        []]]},
                   'loopback ::1': {'status': 'fail',
                                    'outcomes': {'a': ['fail',
                                                       'the master address is ::1 (loopback): ranks on other nodes '
                                                       'cannot reach it'],
                                                 'b': ['fail',
                                                       'the master address is ::1 (loopback): ranks on other nodes '
                                                       'cannot reach it']},
                                    'findings': [['error',
                                                  'the master address is ::1 (loopback): ranks on other nodes cannot '
                                                  'reach it',
                                                  None,
                                                  None,
                                                  'set main_process_ip / --master_addr / MASTER_ADDR to the master '
                                                  "node's real address (ip -4 addr on it), e.g. a",
                                                  {},
                                                  []]]},
                   'loopback ip6-localhost': {'status': 'fail',
                                              'outcomes': {'a': ['fail',
                                                                 'the master address is ip6-localhost (loopback): '
                                                                 'ranks on other nodes cannot reach it'],
                                                           'b': ['fail',
                                                                 'the master address is ip6-localhost (loopback): '
                                                                 'ranks on other nodes cannot reach it']},
                                              'findings': [['error',
                                                            'the master address is ip6-localhost (loopback): ranks '
                                                            'on other nodes cannot reach it',
                                                            None,
                                                            None,
                                                            'set main_process_ip / --master_addr / MASTER_ADDR to '
                                                            "the master node's real address (ip -4 addr on it), e.g. "
                                                            'a',
                                                            {},
                                                            []]]},
                   'master is a node by name': {'status': 'pass',
                                                'outcomes': {'a': ['pass',
                                                                   'master b:29500 is b, resolves the same on 0 '
                                                                   'nodes'],
                                                             'b': ['pass',
                                                                   'master b:29500 is b, resolves the same on 0 '
                                                                   'nodes']},
                                                'findings': []},
                   'master by name, resolves on both': {'status': 'pass',
                                                        'outcomes': {'a': ['pass',
                                                                           'master a:29500 is a, resolves the same '
                                                                           'on 2 nodes'],
                                                                     'b': ['pass',
                                                                           'master a:29500 is a, resolves the same '
                                                                           'on 2 nodes']},
                                                        'findings': []},
                   'master by address a node name resolves to': {'status': 'pass',
                                                                 'outcomes': {'a': ['pass',
                                                                                    'master 10.0.0.1:29500 is one of '
                                                                                    'the nodes, resolves the same on '
                                                                                    '0 nodes'],
                                                                              'b': ['pass',
                                                                                    'master 10.0.0.1:29500 is one of '
                                                                                    'the nodes, resolves the same on '
                                                                                    '0 nodes']},
                                                                 'findings': []},
                   'master does not resolve on one': {'status': 'fail',
                                                      'outcomes': {'a': ['pass',
                                                                         'the master m0 resolves to 10.0.0.1 here'],
                                                                   'b': ['fail', 'the master m0 does not resolve on b'],
                                                                   'c': ['pass',
                                                                         'the master m0 resolves to 10.0.0.1 here']},
                                                      'findings': [['error',
                                                                    'the master m0 does not resolve on b',
                                                                    None,
                                                                    None,
                                                                    "add '<master-ip> m0' to /etc/hosts on b, or use "
                                                                    "the master's IP address",
                                                                    {},
                                                                    ['b']]]},
                   'master resolves to loopback on one': {'status': 'fail',
                                                          'outcomes': {'a': ['fail',
                                                                             'the master m0 resolves to loopback on a: '
                                                                             'the rendezvous binds or connects to '
                                                                             '127.x there'],
                                                                       'b': ['pass',
                                                                             'the master m0 resolves to 10.0.0.1 here'],
                                                                       'c': ['pass',
                                                                             'the master m0 resolves to 10.0.0.1 '
                                                                             'here']},
                                                          'findings': [['error',
                                                                        'the master m0 resolves to loopback on a: the '
                                                                        'rendezvous binds or connects to 127.x there',
                                                                        None,
                                                                        None,
                                                                        'in /etc/hosts on a, map m0 to its real '
                                                                        'address, not 127.0.0.1/127.0.1.1',
                                                                        {},
                                                                        ['a']]]},
                   'master resolves differently': {'status': 'fail',
                                                   'outcomes': {'a': ['pass',
                                                                      'the master m0 resolves to 10.0.0.1 here'],
                                                                'b': ['pass',
                                                                      'the master m0 resolves to 10.0.0.1 here'],
                                                                'c': ['fail',
                                                                      'the master m0 differs: c (1): 10.0.0.7 vs '
                                                                      'baseline a,b (2): 10.0.0.1']},
                                                   'findings': [['error',
                                                                 'the master m0 differs: c (1): 10.0.0.7 vs baseline '
                                                                 'a,b (2): 10.0.0.1',
                                                                 None,
                                                                 None,
                                                                 'make /etc/hosts or DNS agree: m0 is 10.0.0.1 on a,b',
                                                                 {},
                                                                 ['c']]]},
                   'master resolution unknown on a node (not ok)': {'status': 'pass',
                                                                    'outcomes': {'a': ['pass',
                                                                                       'master m0:29500 is one of '
                                                                                       'the nodes, resolves the same '
                                                                                       'on 1 node'],
                                                                                 'b': ['pass',
                                                                                       'master m0:29500 is one of '
                                                                                       'the nodes, resolves the same '
                                                                                       'on 1 node']},
                                                                    'findings': []},
                   "master not listed in a node's names": {'status': 'fail',
                                                           'outcomes': {'a': ['fail',
                                                                              'the master m0 is not one of the '
                                                                              'checked nodes (a,b)'],
                                                                        'b': ['fail',
                                                                              'the master m0 is not one of the '
                                                                              'checked nodes (a,b)']},
                                                           'findings': [['error',
                                                                         'the master m0 is not one of the checked '
                                                                         'nodes (a,b)',
                                                                         None,
                                                                         None,
                                                                         'set the master to the node that runs rank '
                                                                         '0 (machine_rank: 0), e.g. main_process_ip: '
                                                                         '<address of a>',
                                                                         {},
                                                                         []]]},
                   'resolve section without names': {'status': 'pass',
                                                     'outcomes': {'a': ['pass',
                                                                        'master m0:29500 is one of the nodes, '
                                                                        'resolves the same on 1 node'],
                                                                  'b': ['pass',
                                                                        'master m0:29500 is one of the nodes, '
                                                                        'resolves the same on 1 node']},
                                                     'findings': []},
                   'master resolves to two addresses, differently': {'status': 'fail',
                                                                     'outcomes': {'a': ['pass',
                                                                                        'the master m0 resolves to '
                                                                                        '10.0.0.1,10.0.1.1 here'],
                                                                                  'b': ['pass',
                                                                                        'the master m0 resolves to '
                                                                                        '10.0.0.1,10.0.1.1 here'],
                                                                                  'c': ['fail',
                                                                                        'the master m0 differs: c (1): '
                                                                                        '10.0.1.1 vs baseline a,b (2): '
                                                                                        '10.0.0.1,10.0.1.1']},
                                                                     'findings': [['error',
                                                                                   'the master m0 differs: c (1): 10.0.1.1 vs '
                                                                                   'baseline a,b (2): 10.0.0.1,10.0.1.1',
                                                                                   None,
                                                                                   None,
                                                                                   'make /etc/hosts or DNS agree: m0 is '
                                                                                   '10.0.0.1,10.0.1.1 on a,b',
                                                                                   {},
                                                                                   ['c']]]},
                   'master not a node, interfaces without addresses': {'status': 'fail',
                                                                       'outcomes': {'a': ['fail',
                                                                                          'the master 10.9.9.9 is '
                                                                                          'not one of the checked '
                                                                                          'nodes (a,b)'],
                                                                                    'b': ['fail',
                                                                                          'the master 10.9.9.9 is '
                                                                                          'not one of the checked '
                                                                                          'nodes (a,b)']},
                                                                       'findings': [['error',
                                                                                     'the master 10.9.9.9 is not one '
                                                                                     'of the checked nodes (a,b)',
                                                                                     None,
                                                                                     None,
                                                                                     'set the master to the node '
                                                                                     'that runs rank 0 '
                                                                                     '(machine_rank: 0), e.g. '
                                                                                     'main_process_ip: <address of '
                                                                                     'a>',
                                                                                     {},
                                                                                     []]]}},
 'launch.precision': {'no plan': {'status': 'na', 'outcomes': {'vm': ['na', 'no launch plan given']}, 'findings': []},
                      'bf16 and fp16 in DeepSpeed': {'status': 'fail',
                                                     'outcomes': {'vm': ['fail',
                                                                         'the DeepSpeed config /j/ds.json enables '
                                                                         'both bf16 and fp16']},
                                                     'findings': [['error',
                                                                   'the DeepSpeed config /j/ds.json enables both '
                                                                   'bf16 and fp16',
                                                                   None,
                                                                   None,
                                                                   'enable one: "bf16": {"enabled": true} and '
                                                                   '"fp16": {"enabled": false} (bf16 needs compute '
                                                                   'capability >= 8.0)',
                                                                   {},
                                                                   ['vm']]]},
                      'accelerate fp16, DeepSpeed bf16': {'status': 'fail',
                                                          'outcomes': {'vm': ['fail',
                                                                              'accelerate mixed_precision=fp16 but '
                                                                              'the DeepSpeed config /j/ds.json '
                                                                              'enables bf16']},
                                                          'findings': [['error',
                                                                        'accelerate mixed_precision=fp16 but the '
                                                                        'DeepSpeed config /j/ds.json enables bf16',
                                                                        None,
                                                                        None,
                                                                        'make them agree: mixed_precision and the '
                                                                        'DeepSpeed bf16/fp16 "enabled" flags',
                                                                        {},
                                                                        ['vm']]]},
                      'accelerate bf16, DeepSpeed fp16': {'status': 'fail',
                                                          'outcomes': {'vm': ['fail',
                                                                              'accelerate mixed_precision=bf16 but '
                                                                              'the DeepSpeed config /j/ds.json '
                                                                              'enables fp16']},
                                                          'findings': [['error',
                                                                        'accelerate mixed_precision=bf16 but the '
                                                                        'DeepSpeed config /j/ds.json enables fp16',
                                                                        None,
                                                                        None,
                                                                        'make them agree: mixed_precision and the '
                                                                        'DeepSpeed bf16/fp16 "enabled" flags',
                                                                        {},
                                                                        ['vm']]]},
                      'accelerate fp16, DeepSpeed fp16': {'status': 'pass',
                                                          'outcomes': {'vm': ['pass',
                                                                              'the plan trains in fp16: no bf16 '
                                                                              'asked for']},
                                                          'findings': []},
                      'fp16 only': {'status': 'pass',
                                    'outcomes': {'vm': ['pass', 'the plan trains in fp16: no bf16 asked for']},
                                    'findings': []},
                      'no precision': {'status': 'na',
                                       'outcomes': {'vm': ['na', 'the plan does not say its precision']},
                                       'findings': []},
                      'accelerate bf16 on H100': {'status': 'pass',
                                                  'outcomes': {'vm': ['pass',
                                                                      'mixed_precision: bf16; GPUs here have compute '
                                                                      'capability 9.0 >= 8.0']},
                                                  'findings': []},
                      'accelerate bf16 on two H200': {'status': 'pass',
                                                      'outcomes': {'vm': ['pass',
                                                                          'mixed_precision: bf16 and DeepSpeed '
                                                                          'bf16.enabled; GPUs here have compute '
                                                                          'capability 9.0 >= 8.0']},
                                                      'findings': []},
                      '--bf16 on one V100': {'status': 'fail',
                                             'outcomes': {'vm': ['fail',
                                                                 '--bf16 asks for bf16 but 1 GPU here is below '
                                                                 'compute capability 8.0: Tesla V100-SXM2-32GB (cc '
                                                                 '7.0)']},
                                             'findings': [['error',
                                                           '--bf16 asks for bf16 but 1 GPU here is below compute '
                                                           'capability 8.0: Tesla V100-SXM2-32GB (cc 7.0)',
                                                           'Tesla V100-SXM2-32GB (cc 7.0)',
                                                           'compute capability >= 8.0 (A100, H100, L40, RTX 30xx)',
                                                           'train in fp16 on these GPUs: mixed_precision: fp16 and '
                                                           '"fp16": {"enabled": true}, "bf16": {"enabled": false}; '
                                                           'or leave the pre-Ampere nodes out',
                                                           {},
                                                           ['vm']]]},
                      'DeepSpeed bf16 on mixed T4 and V100': {'status': 'fail',
                                                              'outcomes': {'vm': ['fail',
                                                                                  'DeepSpeed bf16.enabled asks for '
                                                                                  'bf16 but 3 GPUs here are below '
                                                                                  'compute capability 8.0: Tesla T4 '
                                                                                  '(cc 7.5), Tesla V100 (cc 7.0)']},
                                                              'findings': [['error',
                                                                            'DeepSpeed bf16.enabled asks for bf16 '
                                                                            'but 3 GPUs here are below compute '
                                                                            'capability 8.0: Tesla T4 (cc 7.5), '
                                                                            'Tesla V100 (cc 7.0)',
                                                                            'Tesla T4 (cc 7.5), Tesla V100 (cc 7.0)',
                                                                            'compute capability >= 8.0 (A100, H100, '
                                                                            'L40, RTX 30xx)',
                                                                            'train in fp16 on these GPUs: '
                                                                            'mixed_precision: fp16 and "fp16": '
                                                                            '{"enabled": true}, "bf16": {"enabled": '
                                                                            'false}; or leave the pre-Ampere nodes '
                                                                            'out',
                                                                            {},
                                                                            ['vm']]]},
                      'bf16 and fp16 on a V100': {'status': 'fail',
                                                  'outcomes': {'vm': ['fail',
                                                                      'the DeepSpeed config /j/ds.json enables both '
                                                                      'bf16 and fp16']},
                                                  'findings': [['error',
                                                                'the DeepSpeed config /j/ds.json enables both bf16 '
                                                                'and fp16',
                                                                None,
                                                                None,
                                                                'enable one: "bf16": {"enabled": true} and "fp16": '
                                                                '{"enabled": false} (bf16 needs compute capability '
                                                                '>= 8.0)',
                                                                {},
                                                                ['vm']],
                                                               ['error',
                                                                'DeepSpeed bf16.enabled asks for bf16 but 1 GPU here '
                                                                'is below compute capability 8.0: Tesla V100 (cc '
                                                                '7.0)',
                                                                'Tesla V100 (cc 7.0)',
                                                                'compute capability >= 8.0 (A100, H100, L40, RTX '
                                                                '30xx)',
                                                                'train in fp16 on these GPUs: mixed_precision: fp16 '
                                                                'and "fp16": {"enabled": true}, "bf16": {"enabled": '
                                                                'false}; or leave the pre-Ampere nodes out',
                                                                {},
                                                                ['vm']]]},
                      'bf16 and fp16 on an A100': {'status': 'fail',
                                                   'outcomes': {'vm': ['fail',
                                                                       'the DeepSpeed config /j/ds.json enables both '
                                                                       'bf16 and fp16']},
                                                   'findings': [['error',
                                                                 'the DeepSpeed config /j/ds.json enables both bf16 '
                                                                 'and fp16',
                                                                 None,
                                                                 None,
                                                                 'enable one: "bf16": {"enabled": true} and "fp16": '
                                                                 '{"enabled": false} (bf16 needs compute capability '
                                                                 '>= 8.0)',
                                                                 {},
                                                                 ['vm']]]},
                      'bf16 on cc 8.6 and 12.0': {'status': 'pass',
                                                  'outcomes': {'vm': ['pass',
                                                                      '--bf16; GPUs here have compute capability '
                                                                      '12.0, 8.6 >= 8.0']},
                                                  'findings': []},
                      # unreadable compute capabilities are never passed unjudged
                      'bf16 with unparsable cc': {'status': 'skipped',
                                                  'outcomes': {'vm': ['skipped',
                                                                      '--bf16, but the compute capability of 3 GPUs '
                                                                      'here could not be read']},
                                                  'findings': []},
                      'accelerate and DeepSpeed bf16 on a V100': {'status': 'fail',
                                                                  'outcomes': {'vm': ['fail',
                                                                                      'mixed_precision: bf16 and '
                                                                                      'DeepSpeed bf16.enabled asks '
                                                                                      'for bf16 but 2 GPUs here are '
                                                                                      'below compute capability 8.0: '
                                                                                      'Tesla V100 (cc 7.0)']},
                                                                  'findings': [['error',
                                                                                'mixed_precision: bf16 and DeepSpeed '
                                                                                'bf16.enabled asks for bf16 but 2 '
                                                                                'GPUs here are below compute '
                                                                                'capability 8.0: Tesla V100 (cc 7.0)',
                                                                                'Tesla V100 (cc 7.0)',
                                                                                'compute capability >= 8.0 (A100, '
                                                                                'H100, L40, RTX 30xx)',
                                                                                'train in fp16 on these GPUs: '
                                                                                'mixed_precision: fp16 and "fp16": '
                                                                                '{"enabled": true}, "bf16": '
                                                                                '{"enabled": false}; or leave the '
                                                                                'pre-Ampere nodes out',
                                                                                {},
                                                                                ['vm']]]},
                      'accelerate and DeepSpeed bf16, no GPU listed': {'status': 'na',
                                                                       'outcomes': {'vm': ['na',
                                                                                           'mixed_precision: bf16 '
                                                                                           'and DeepSpeed '
                                                                                           'bf16.enabled, but no GPU '
                                                                                           'here to judge']},
                                                                       'findings': []},
                      'bf16 with no GPU listed': {'status': 'na',
                                                  'outcomes': {'vm': ['na', '--bf16, but no GPU here to judge']},
                                                  'findings': []},
                      'bf16 with GPUs from /proc only': {'status': 'skipped',
                                                         'outcomes': {'vm': ['skipped',
                                                                             '--bf16, but the compute capability '
                                                                             'of 1 GPU here could not be read']},
                                                         'findings': []}},
 'launch.batch': {'no plan': {'status': 'na', 'outcomes': {'vm': ['na', 'no launch plan given']}, 'findings': []},
                  'no DeepSpeed config': {'status': 'na',
                                          'outcomes': {'vm': ['na', 'no DeepSpeed config in the launch plan']},
                                          'findings': []},
                  'auto': {'status': 'na',
                           'outcomes': {'vm': ['na', 'not judged: a value is "auto" (the HF Trainer fills it in)']},
                           'findings': []},
                  'no world size': {'status': 'na',
                                    'outcomes': {'vm': ['na', 'not judged: the world size is not known']},
                                    'findings': []},
                  'wrong product': {'status': 'fail',
                                    'outcomes': {'vm': ['fail',
                                                        '/j/ds.json at world size 16: train_batch_size 100 != 4 x 2 '
                                                        'x 16 (DeepSpeed refuses to start)']},
                                    'findings': [['error',
                                                  '/j/ds.json at world size 16: train_batch_size 100 != 4 x 2 x 16 '
                                                  '(DeepSpeed refuses to start)',
                                                  None,
                                                  None,
                                                  'make train_batch_size = train_micro_batch_size_per_gpu x '
                                                  'gradient_accumulation_steps x 16 in /j/ds.json, or leave one of '
                                                  'them out and DeepSpeed derives it',
                                                  {},
                                                  ['vm']]]},
                  'right product': {'status': 'pass',
                                    'outcomes': {'vm': ['pass',
                                                        'train_batch_size 128 = micro 4 x accumulation 2 x world '
                                                        'size 16']},
                                    'findings': []},
                  'seed002': {'status': 'pass',
                              'outcomes': {'vm': ['pass',
                                                  'train_batch_size 128 = micro 4 x accumulation 2 x world size 16']},
                              'findings': []}},
 'launch.env': {'no plan': {'status': 'na',
                            'outcomes': {'a': ['na', 'no launch plan given'], 'b': ['na', 'no launch plan given']},
                            'findings': []},
                'torchrun carries it': {'status': 'na',
                                        'outcomes': {'a': ['na',
                                                           'torchrun carries the launching environment itself (no -x '
                                                           'list to judge)'],
                                                     'b': ['na',
                                                           'torchrun carries the launching environment itself (no -x '
                                                           'list to judge)']},
                                        'findings': []},
                'mpirun without -x list': {'status': 'na',
                                           'outcomes': {'a': ['na',
                                                              'mpirun carries the launching environment itself (no '
                                                              '-x list to judge)'],
                                                        'b': ['na',
                                                              'mpirun carries the launching environment itself (no '
                                                              '-x list to judge)']},
                                           'findings': []},
                'set on the line, unset on the ranks': {'status': 'warn',
                                                        'outcomes': {'a': ['pass',
                                                                           'the job variables reach the ranks here: '
                                                                           'forwarded (-x PATH) or with the launching '
                                                                           'value'],
                                                                     'b': ['warn',
                                                                           'NCCL_DEBUG=INFO is set where you launch '
                                                                           'but mpirun does not forward it: the ranks '
                                                                           'on b,c see it unset'],
                                                                     'c': ['warn',
                                                                           'NCCL_DEBUG=INFO is set where you launch '
                                                                           'but mpirun does not forward it: the ranks '
                                                                           'on b,c see it unset']},
                                                        'findings': [['warning',
                                                                      'NCCL_DEBUG=INFO is set where you launch but '
                                                                      'mpirun does not forward it: the ranks on b,c '
                                                                      'see it unset',
                                                                      None,
                                                                      None,
                                                                      'add -x NCCL_DEBUG to the mpirun line',
                                                                      {},
                                                                      ['b', 'c']]]},
                'set on the line, another value on one': {'status': 'warn',
                                                          'outcomes': {'a': ['pass',
                                                                             'the job variables reach the ranks here: '
                                                                             'with the launching value'],
                                                                       'b': ['warn',
                                                                             'NCCL_DEBUG=INFO is set where you launch '
                                                                             'but mpirun does not forward it: the '
                                                                             'ranks on b see another value']},
                                                          'findings': [['warning',
                                                                        'NCCL_DEBUG=INFO is set where you launch but '
                                                                        'mpirun does not forward it: the ranks on b '
                                                                        'see another value',
                                                                        None,
                                                                        None,
                                                                        'add -x NCCL_DEBUG to the mpirun line',
                                                                        {},
                                                                        ['b']]]},
                'set on the line, hashed other value': {'status': 'warn',
                                                        'outcomes': {'a': ['pass',
                                                                           'the job variables reach the ranks here: '
                                                                           'forwarded (-x NCCL_DEBUG) or with the '
                                                                           'launching value'],
                                                                     'b': ['warn',
                                                                           'LD_LIBRARY_PATH=sha256:aa is set where you '
                                                                           'launch but mpirun does not forward it: the '
                                                                           'ranks on b see another value']},
                                                        'findings': [['warning',
                                                                      'LD_LIBRARY_PATH=sha256:aa is set where you '
                                                                      'launch but mpirun does not forward it: the '
                                                                      'ranks on b see another value',
                                                                      None,
                                                                      None,
                                                                      'add -x LD_LIBRARY_PATH to the mpirun line',
                                                                      {},
                                                                      ['b']]]},
                'set on the line and forwarded': {'status': 'pass',
                                                  'outcomes': {'a': ['pass',
                                                                     'every job variable set on the nodes or the '
                                                                     'line is forwarded or the same everywhere (-x '
                                                                     'NCCL_DEBUG,UCX_TLS)'],
                                                               'b': ['pass',
                                                                     'every job variable set on the nodes or the '
                                                                     'line is forwarded or the same everywhere (-x '
                                                                     'NCCL_DEBUG,UCX_TLS)']},
                                                  'findings': []},
                'set on the line, same everywhere': {'status': 'pass',
                                                     'outcomes': {'a': ['pass',
                                                                        'every job variable set on the nodes or the '
                                                                        'line is forwarded or the same everywhere '
                                                                        '(-x none)'],
                                                                  'b': ['pass',
                                                                        'every job variable set on the nodes or the '
                                                                        'line is forwarded or the same everywhere '
                                                                        '(-x none)']},
                                                     'findings': []},
                'redacted on the line': {'status': 'pass',
                                         'outcomes': {'a': ['pass',
                                                            'every job variable set on the nodes or the line is '
                                                            'forwarded or the same everywhere (-x none)'],
                                                      'b': ['pass',
                                                            'every job variable set on the nodes or the line is '
                                                            'forwarded or the same everywhere (-x none)']},
                                         'findings': []},
                'set on one node only': {'status': 'warn',
                                         'outcomes': {'a': ['pass',
                                                            'the job variables reach the ranks here: with the '
                                                            'launching value'],
                                                      'b': ['warn',
                                                            'PYTHONPATH is set on a,c but not on b, and mpirun does '
                                                            'not forward it'],
                                                      'c': ['pass',
                                                            'the job variables reach the ranks here: with the '
                                                            'launching value']},
                                         'findings': [['warning',
                                                       'PYTHONPATH is set on a,c but not on b, and mpirun does not '
                                                       'forward it',
                                                       None,
                                                       None,
                                                       'export PYTHONPATH where you launch and add -x PYTHONPATH to '
                                                       'the mpirun line',
                                                       {},
                                                       ['b']]]},
                'names that are not job variables': {'status': 'pass',
                                                     'outcomes': {'a': ['pass',
                                                                        'every job variable set on the nodes or the '
                                                                        'line is forwarded or the same everywhere '
                                                                        '(-x UCX_TLS)'],
                                                                  'b': ['pass',
                                                                        'every job variable set on the nodes or the '
                                                                        'line is forwarded or the same everywhere '
                                                                        '(-x UCX_TLS)']},
                                                     'findings': []},
                'hashed on one node only': {'status': 'warn',
                                            'outcomes': {'a': ['pass',
                                                               'the job variables reach the ranks here: with the '
                                                               'launching value'],
                                                         'b': ['warn',
                                                               'LD_LIBRARY_PATH is set on a but not on b, and mpirun '
                                                               'does not forward it']},
                                            'findings': [['warning',
                                                          'LD_LIBRARY_PATH is set on a but not on b, and mpirun does '
                                                          'not forward it',
                                                          None,
                                                          None,
                                                          'export LD_LIBRARY_PATH where you launch and add -x '
                                                          'LD_LIBRARY_PATH to the mpirun line',
                                                          {},
                                                          ['b']]]},
                'set on every node, not on the line': {'status': 'pass',
                                                       'outcomes': {'a': ['pass',
                                                                          'every job variable set on the nodes or '
                                                                          'the line is forwarded or the same '
                                                                          'everywhere (-x none)'],
                                                                    'b': ['pass',
                                                                          'every job variable set on the nodes or '
                                                                          'the line is forwarded or the same '
                                                                          'everywhere (-x none)']},
                                                       'findings': []}},
 'launch.files': {'no plan': {'status': 'na',
                              'outcomes': {'a': ['na', 'no launch plan given'], 'b': ['na', 'no launch plan given']},
                              'findings': []},
                  'none reported, two': {'status': 'na',
                                         'outcomes': {'a': ['na', "the nodes reported none of the plan's 2 files"],
                                                      'b': ['na', "the nodes reported none of the plan's 2 files"]},
                                         'findings': []},
                  'none reported, one': {'status': 'na',
                                         'outcomes': {'a': ['na', "the nodes reported none of the plan's 1 file"],
                                                      'b': ['na', "the nodes reported none of the plan's 1 file"]},
                                         'findings': []},
                  'identical, two files': {'status': 'pass',
                                           'outcomes': {'a': ['pass', '2 files of the plan identical on 2 nodes'],
                                                        'b': ['pass', '2 files of the plan identical on 2 nodes']},
                                           'findings': []},
                  'identical, one file reported': {'status': 'pass',
                                                   'outcomes': {'a': ['pass',
                                                                      '1 file of the plan identical on 3 nodes'],
                                                                'b': ['pass',
                                                                      '1 file of the plan identical on 3 nodes'],
                                                                'c': ['pass',
                                                                      '1 file of the plan identical on 3 nodes']},
                                                   'findings': []},
                  'missing on one': {'status': 'fail',
                                     'outcomes': {'a': ['pass',
                                                        "the plan's files are here, the same as on the baseline nodes"],
                                                  'b': ['fail',
                                                        '/j/train.py, named by the launch plan, is missing on b,c'],
                                                  'c': ['fail',
                                                        '/j/train.py, named by the launch plan, is missing on b,c']},
                                     'findings': [['error',
                                                   '/j/train.py, named by the launch plan, is missing on b,c',
                                                   None,
                                                   None,
                                                   'copy it there: pdcp -w b,c -- /j/train.py /j/train.py (or rsync -a '
                                                   '-- a:/j/train.py /j/train.py); code, configs and data are not '
                                                   'synced by the launcher',
                                                   {},
                                                   ['b', 'c']]]},
                  'missing everywhere': {'status': 'fail',
                                         'outcomes': {'a': ['fail',
                                                            '/j/ds.json, named by the launch plan, is missing on '
                                                            'a,b'],
                                                      'b': ['fail',
                                                            '/j/ds.json, named by the launch plan, is missing on '
                                                            'a,b']},
                                         'findings': [['error',
                                                       '/j/ds.json, named by the launch plan, is missing on a,b',
                                                       None,
                                                       None,
                                                       'create /j/ds.json on every node (the launch plan names it)',
                                                       {},
                                                       ['a', 'b']]]},
                  'differs': {'status': 'fail',
                              'outcomes': {'a': ['pass',
                                                 "the plan's files are here, the same as on the baseline nodes"],
                                           'b': ['pass',
                                                 "the plan's files are here, the same as on the baseline nodes"],
                                           'c': ['fail',
                                                 '/j/train.py differs: c (1): sha256 cccccccccccc vs baseline a,b (2): '
                                                 'sha256 aaaaaaaaaaaa']},
                              'findings': [['error',
                                            '/j/train.py differs: c (1): sha256 cccccccccccc vs baseline a,b (2): '
                                            'sha256 aaaaaaaaaaaa',
                                            None,
                                            None,
                                            'copy it from a baseline node: pdcp -w c -- /j/train.py /j/train.py  (or '
                                            'rsync -a -- a:/j/train.py /j/train.py)',
                                            {},
                                            ['c']]]},
                  'reported by some nodes only': {'status': 'fail',
                                                  'outcomes': {'a': ['skipped',
                                                                     "this node reported none of the plan's files"],
                                                               'b': ['pass',
                                                                     "the plan's files are here, the same as on the "
                                                                     'baseline nodes'],
                                                               'c': ['fail',
                                                                     '/j/train.py differs: c (1): sha256 cccccccccccc '
                                                                     'vs baseline b (1): sha256 aaaaaaaaaaaa']},
                                                  'findings': [['error',
                                                                '/j/train.py differs: c (1): sha256 cccccccccccc vs '
                                                                'baseline b (1): sha256 aaaaaaaaaaaa',
                                                                None,
                                                                None,
                                                                'copy it from a baseline node: pdcp -w c -- '
                                                                '/j/train.py /j/train.py  (or rsync -a -- '
                                                                'b:/j/train.py /j/train.py)',
                                                                {},
                                                                ['c']]]}},
 'launch.rendezvous': {'no plan': {'status': 'na',
                                   'outcomes': {'a': ['na', 'no launch plan given'],
                                                'b': ['na', 'no launch plan given']},
                                   'findings': []},
                       'no master probed': {'status': 'na',
                                            'outcomes': {'a': ['na',
                                                               'no node was probed as the master (the master is not '
                                                               'among the reachable nodes)'],
                                                         'b': ['na',
                                                               'no node was probed as the master (the master is not '
                                                               'among the reachable nodes)']},
                                            'findings': []},
                       'port in use': {'status': 'fail',
                                       'outcomes': {'a': ['fail',
                                                          'port 29500 on the master a is not free: in use (another '
                                                          'process listens on it)'],
                                                    'b': ['skipped',
                                                          "not judged: the master's port 29500 is not free, so no peer "
                                                          'could connect to it']},
                                       'findings': [['error',
                                                     'port 29500 on the master a is not free: in use (another process '
                                                     'listens on it)',
                                                     None,
                                                     None,
                                                     'pick a free port (main_process_port / --master_port / '
                                                     "MASTER_PORT), or stop what holds it: ss -ltnp 'sport = :29500' "
                                                     'on a',
                                                     {},
                                                     ['a']]]},
                       'port in use, no bind record': {'status': 'fail',
                                                       'outcomes': {'a': ['fail',
                                                                          'port 22 on the master a is not free: the '
                                                                          'bind failed (no reason recorded)'],
                                                                    'b': ['skipped',
                                                                          "not judged: the master's port 22 is not "
                                                                          'free, so no peer could connect to it']},
                                                       'findings': [['error',
                                                                     'port 22 on the master a is not free: the bind '
                                                                     'failed (no reason recorded)',
                                                                     None,
                                                                     None,
                                                                     'pick a free port (main_process_port / '
                                                                     '--master_port / MASTER_PORT), or stop what holds '
                                                                     "it: ss -ltnp 'sport = :22' on a",
                                                                     {},
                                                                     ['a']]]},
                       'two masters, first by name': {'status': 'pass',
                                                      'outcomes': {'a': ['pass',
                                                                         'port 1 free on the master a and reached '
                                                                         'from c'],
                                                                   'b': ['pass',
                                                                         'port 1 free on the master a and reached '
                                                                         'from c'],
                                                                   'c': ['pass',
                                                                         'port 1 free on the master a and reached '
                                                                         'from c']},
                                                      'findings': []},
                       'peers reach': {'status': 'pass',
                                       'outcomes': {'a': ['pass',
                                                          'port 29500 free on the master a and reached from b,c'],
                                                    'b': ['pass',
                                                          'port 29500 free on the master a and reached from b,c'],
                                                    'c': ['pass',
                                                          'port 29500 free on the master a and reached from b,c']},
                                       'findings': []},
                       'no peer': {'status': 'pass',
                                   'outcomes': {'a': ['pass',
                                                      'port 29500 free on the master a and reached from no peer'],
                                                'b': ['pass',
                                                      'port 29500 free on the master a and reached from no peer']},
                                   'findings': []},
                       'one peer refused, one timed out, one without error, one without connect': {'status': 'fail',
                                                                                                   'outcomes': {'b': ['fail',
                                                                                                                      'b,c,d,e '
                                                                                                                      'cannot '
                                                                                                                      'reach '
                                                                                                                      'the '
                                                                                                                      'master '
                                                                                                                      '10.0.0.9:29500: '
                                                                                                                      'b: '
                                                                                                                      'connection '
                                                                                                                      'refused; '
                                                                                                                      'c: '
                                                                                                                      'timed '
                                                                                                                      'out '
                                                                                                                      '(a '
                                                                                                                      'firewall '
                                                                                                                      'drops '
                                                                                                                      'the '
                                                                                                                      'traffic?); '
                                                                                                                      'd: '
                                                                                                                      'failed; '
                                                                                                                      'e: '
                                                                                                                      'failed'],
                                                                                                                'c': ['fail',
                                                                                                                      'b,c,d,e '
                                                                                                                      'cannot '
                                                                                                                      'reach '
                                                                                                                      'the '
                                                                                                                      'master '
                                                                                                                      '10.0.0.9:29500: '
                                                                                                                      'b: '
                                                                                                                      'connection '
                                                                                                                      'refused; '
                                                                                                                      'c: '
                                                                                                                      'timed '
                                                                                                                      'out '
                                                                                                                      '(a '
                                                                                                                      'firewall '
                                                                                                                      'drops '
                                                                                                                      'the '
                                                                                                                      'traffic?); '
                                                                                                                      'd: '
                                                                                                                      'failed; '
                                                                                                                      'e: '
                                                                                                                      'failed'],
                                                                                                                'd': ['fail',
                                                                                                                      'b,c,d,e '
                                                                                                                      'cannot '
                                                                                                                      'reach '
                                                                                                                      'the '
                                                                                                                      'master '
                                                                                                                      '10.0.0.9:29500: '
                                                                                                                      'b: '
                                                                                                                      'connection '
                                                                                                                      'refused; '
                                                                                                                      'c: '
                                                                                                                      'timed '
                                                                                                                      'out '
                                                                                                                      '(a '
                                                                                                                      'firewall '
                                                                                                                      'drops '
                                                                                                                      'the '
                                                                                                                      'traffic?); '
                                                                                                                      'd: '
                                                                                                                      'failed; '
                                                                                                                      'e: '
                                                                                                                      'failed'],
                                                                                                                'e': ['fail',
                                                                                                                      'b,c,d,e '
                                                                                                                      'cannot '
                                                                                                                      'reach '
                                                                                                                      'the '
                                                                                                                      'master '
                                                                                                                      '10.0.0.9:29500: '
                                                                                                                      'b: '
                                                                                                                      'connection '
                                                                                                                      'refused; '
                                                                                                                      'c: '
                                                                                                                      'timed '
                                                                                                                      'out '
                                                                                                                      '(a '
                                                                                                                      'firewall '
                                                                                                                      'drops '
                                                                                                                      'the '
                                                                                                                      'traffic?); '
                                                                                                                      'd: '
                                                                                                                      'failed; '
                                                                                                                      'e: '
                                                                                                                      'failed'],
                                                                                                                'f': ['pass', 'port 29500 free on the master m; reached from f'],
                                                                                                                'm': ['pass', 'port 29500 free on the master m; reached from f']},
                                                                                                   'findings': [['error',
                                                                                                                 'b,c,d,e '
                                                                                                                 'cannot '
                                                                                                                 'reach '
                                                                                                                 'the '
                                                                                                                 'master '
                                                                                                                 '10.0.0.9:29500: '
                                                                                                                 'b: '
                                                                                                                 'connection '
                                                                                                                 'refused; '
                                                                                                                 'c: '
                                                                                                                 'timed '
                                                                                                                 'out '
                                                                                                                 '(a '
                                                                                                                 'firewall '
                                                                                                                 'drops '
                                                                                                                 'the '
                                                                                                                 'traffic?); '
                                                                                                                 'd: '
                                                                                                                 'failed; '
                                                                                                                 'e: '
                                                                                                                 'failed',
                                                                                                                 None,
                                                                                                                 None,
                                                                                                                 'open '
                                                                                                                 'TCP '
                                                                                                                 '29500 '
                                                                                                                 'on '
                                                                                                                 'm '
                                                                                                                 '(firewall-cmd '
                                                                                                                 '--add-port=29500/tcp, '
                                                                                                                 'or '
                                                                                                                 'iptables '
                                                                                                                 '-I '
                                                                                                                 'INPUT '
                                                                                                                 '-p '
                                                                                                                 'tcp '
                                                                                                                 '--dport '
                                                                                                                 '29500 '
                                                                                                                 '-j '
                                                                                                                 'ACCEPT), '
                                                                                                                 'and '
                                                                                                                 'make '
                                                                                                                 'sure '
                                                                                                                 '10.0.0.9 '
                                                                                                                 'is '
                                                                                                                 'the '
                                                                                                                 'address '
                                                                                                                 'of '
                                                                                                                 'an '
                                                                                                                 'interface '
                                                                                                                 'the '
                                                                                                                 'other '
                                                                                                                 'nodes '
                                                                                                                 'route '
                                                                                                                 'to',
                                                                                                                 {},
                                                                                                                 ['b',
                                                                                                                  'c',
                                                                                                                  'd',
                                                                                                                  'e']]]}},
 'nccl.env': {'nothing set, no rdma': {'status': 'na',
                                       'outcomes': {'vm': ['na',
                                                           'nothing to judge: no NCCL_* variable is set '
                                                           '(environment, NCCL_CONF_FILE or ~/.nccl.conf, '
                                                           '/etc/nccl.conf) and no GPUDirect RDMA path (GPUs with an '
                                                           'ACTIVE RDMA port)']},
                                       'findings': []},
              'nothing set, rdma with no port': {'status': 'na',
                                                 'outcomes': {'vm': ['na',
                                                                     'nothing to judge: no NCCL_* variable is set '
                                                                     '(environment, NCCL_CONF_FILE or ~/.nccl.conf, '
                                                                     '/etc/nccl.conf) and no GPUDirect RDMA path '
                                                                     '(GPUs with an ACTIVE RDMA port)']},
                                                 'findings': []},
              'ifname eth0': {'status': 'pass',
                              'outcomes': {'vm': ['pass',
                                                  'NCCL_SOCKET_IFNAME=eth0 selects eth0 (10.0.0.5); 1 NCCL_* name '
                                                  'checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                              'findings': []},
              'ifname =eth0 from a file': {'status': 'pass',
                                           'outcomes': {'vm': ['pass',
                                                               'NCCL_SOCKET_IFNAME==eth0 selects eth0 (10.0.0.5); 1 '
                                                               'NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                               '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                           'findings': []},
              'ifname en prefix': {'status': 'pass',
                                   'outcomes': {'vm': ['pass',
                                                       'NCCL_SOCKET_IFNAME=en selects ens2 (10.1.0.5); 1 NCCL_* name '
                                                       'checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 '
                                                       'read']},
                                   'findings': []},
              'ifname exact prefix is no match': {'status': 'fail',
                                                  'outcomes': {'vm': ['fail',
                                                                      'NCCL_SOCKET_IFNAME==en matches no interface '
                                                                      'that is up with an address: NCCL fails with '
                                                                      '"no socket interface found"']},
                                                  'findings': [['error',
                                                                'NCCL_SOCKET_IFNAME==en matches no interface that is '
                                                                'up with an address: NCCL fails with "no socket '
                                                                'interface found"',
                                                                'matched: none; interfaces: eth0 (up, 10.0.0.5), '
                                                                'ens2 (up, 10.1.0.5), ens3 (down, 10.2.0.5), docker0 '
                                                                '(up, 172.17.0.1), lo (unknown, 127.0.0.1), ens4 '
                                                                '(up, no IPv4)',
                                                                'an up interface with an address',
                                                                None,
                                                                {'NCCL_SOCKET_IFNAME': '=ens2'},
                                                                ['vm']]]},
              'ifname exclude eth': {'status': 'pass',
                                     'outcomes': {'vm': ['pass',
                                                         'NCCL_SOCKET_IFNAME=^eth,docker,lo selects ens2 (10.1.0.5); '
                                                         '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                         '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                     'findings': []},
              'ifname ipv6': {'status': 'pass',
                              'outcomes': {'vm': ['pass',
                                                  'NCCL_SOCKET_IFNAME=eth0 selects eth0 (fd00::5); 2 NCCL_* names '
                                                  'checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 2 read']},
                              'findings': []},
              'ifname ipv6 without v6 address': {'status': 'fail',
                                                 'outcomes': {'vm': ['fail',
                                                                     'NCCL_SOCKET_IFNAME=ens2 matches no interface '
                                                                     'that is up with an address: NCCL fails with '
                                                                     '"no socket interface found"']},
                                                 'findings': [['error',
                                                               'NCCL_SOCKET_IFNAME=ens2 matches no interface that is '
                                                               'up with an address: NCCL fails with "no socket '
                                                               'interface found"',
                                                               'matched: ens2; interfaces: eth0 (up, 10.0.0.5), ens2 '
                                                               '(up, 10.1.0.5), ens3 (down, 10.2.0.5), docker0 (up, '
                                                               '172.17.0.1), lo (unknown, 127.0.0.1), ens4 (up, no '
                                                               'IPv4)',
                                                               'an up interface with an address',
                                                               None,
                                                               {'NCCL_SOCKET_IFNAME': '=ens2'},
                                                               ['vm']]]},
              'ifname down': {'status': 'fail',
                              'outcomes': {'vm': ['fail',
                                                  'NCCL_SOCKET_IFNAME=ens3 (from /root/.nccl.conf) matches no '
                                                  'interface that is up with an address: NCCL fails with "no socket '
                                                  'interface found"']},
                              'findings': [['error',
                                            'NCCL_SOCKET_IFNAME=ens3 (from /root/.nccl.conf) matches no interface '
                                            'that is up with an address: NCCL fails with "no socket interface found"',
                                            'matched: ens3; interfaces: eth0 (up, 10.0.0.5), ens2 (up, 10.1.0.5), '
                                            'ens3 (down, 10.2.0.5), docker0 (up, 172.17.0.1), lo (unknown, '
                                            '127.0.0.1), ens4 (up, no IPv4)',
                                            'an up interface with an address',
                                            None,
                                            {'NCCL_SOCKET_IFNAME': '=ens2'},
                                            ['vm']]]},
              'ifname no address': {'status': 'fail',
                                    'outcomes': {'vm': ['fail',
                                                        'NCCL_SOCKET_IFNAME=ens4 matches no interface that is up '
                                                        'with an address: NCCL fails with "no socket interface '
                                                        'found"']},
                                    'findings': [['error',
                                                  'NCCL_SOCKET_IFNAME=ens4 matches no interface that is up with an '
                                                  'address: NCCL fails with "no socket interface found"',
                                                  'matched: ens4; interfaces: eth0 (up, 10.0.0.5), ens2 (up, '
                                                  '10.1.0.5), ens3 (down, 10.2.0.5), docker0 (up, 172.17.0.1), lo '
                                                  '(unknown, 127.0.0.1), ens4 (up, no IPv4)',
                                                  'an up interface with an address',
                                                  None,
                                                  {'NCCL_SOCKET_IFNAME': '=ens2'},
                                                  ['vm']]]},
              'ifname none': {'status': 'fail',
                              'outcomes': {'vm': ['fail',
                                                  'NCCL_SOCKET_IFNAME=ib0 matches no interface that is up with an '
                                                  'address: NCCL fails with "no socket interface found"']},
                              'findings': [['error',
                                            'NCCL_SOCKET_IFNAME=ib0 matches no interface that is up with an address: '
                                            'NCCL fails with "no socket interface found"',
                                            'matched: none; interfaces: eth0 (up, 10.0.0.5), ens2 (up, 10.1.0.5), '
                                            'ens3 (down, 10.2.0.5), docker0 (up, 172.17.0.1), lo (unknown, '
                                            '127.0.0.1), ens4 (up, no IPv4)',
                                            'an up interface with an address',
                                            None,
                                            {'NCCL_SOCKET_IFNAME': '=ens2'},
                                            ['vm']]]},
              'ifname none, no best': {'status': 'fail',
                                       'outcomes': {'vm': ['fail',
                                                           'NCCL_SOCKET_IFNAME=ib0 matches no interface that is up '
                                                           'with an address: NCCL fails with "no socket interface '
                                                           'found"']},
                                       'findings': [['error',
                                                     'NCCL_SOCKET_IFNAME=ib0 matches no interface that is up with an '
                                                     'address: NCCL fails with "no socket interface found"',
                                                     'matched: none; interfaces: lo (unknown, 127.0.0.1)',
                                                     'an up interface with an address',
                                                     None,
                                                     {},
                                                     ['vm']]]},
              'ifname only virtual': {'status': 'fail',
                                      'outcomes': {'vm': ['fail',
                                                          'NCCL_SOCKET_IFNAME=docker0,lo selects only docker0, lo: '
                                                          'other nodes cannot reach loopback or docker/veth '
                                                          'addresses']},
                                      'findings': [['error',
                                                    'NCCL_SOCKET_IFNAME=docker0,lo selects only docker0, lo: other '
                                                    'nodes cannot reach loopback or docker/veth addresses',
                                                    'usable: docker0, lo',
                                                    'a physical interface (ens2)',
                                                    None,
                                                    {'NCCL_SOCKET_IFNAME': '=ens2'},
                                                    ['vm']]]},
              'ifname only virtual, no best': {'status': 'fail',
                                               'outcomes': {'vm': ['fail',
                                                                   'NCCL_SOCKET_IFNAME=lo selects only lo: other '
                                                                   'nodes cannot reach loopback or docker/veth '
                                                                   'addresses']},
                                               'findings': [['error',
                                                             'NCCL_SOCKET_IFNAME=lo selects only lo: other nodes '
                                                             'cannot reach loopback or docker/veth addresses',
                                                             'usable: lo',
                                                             'a physical interface (none found)',
                                                             None,
                                                             {},
                                                             ['vm']]]},
              'ifname one char ignored': {'status': 'pass',
                                          'outcomes': {'vm': ['pass',
                                                              '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                              '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                          'findings': []},
              'ifname network failed': {'status': 'pass',
                                        'outcomes': {'vm': ['pass',
                                                            '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                            '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                        'findings': []},
              'ifname fixture eth0': {'status': 'pass',
                                      'outcomes': {'vm': ['pass',
                                                          'NCCL_SOCKET_IFNAME=eth selects eth0 (192.0.2.2); 1 NCCL_* '
                                                          'name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                          '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                      'findings': []},
              'ifname fixture best eth0': {'status': 'fail',
                                           'outcomes': {'vm': ['fail',
                                                               'NCCL_SOCKET_IFNAME=ifb matches no interface that is '
                                                               'up with an address: NCCL fails with "no socket '
                                                               'interface found"']},
                                           'findings': [['error',
                                                         'NCCL_SOCKET_IFNAME=ifb matches no interface that is up '
                                                         'with an address: NCCL fails with "no socket interface '
                                                         'found"',
                                                         'matched: ifb0, ifb1; interfaces: eth0 (up, 192.0.2.2), '
                                                         'ifb0 (down, no IPv4), ifb1 (down, no IPv4), lo (unknown, '
                                                         '127.0.0.1)',
                                                         'an up interface with an address',
                                                         None,
                                                         {'NCCL_SOCKET_IFNAME': '=eth0'},
                                                         ['vm']]]},
              'hca none match': {'status': 'fail',
                                 'outcomes': {'vm': ['fail',
                                                     'NCCL_IB_HCA=mlx4 matches no RDMA device (this node has: '
                                                     'mlx5_0, mlx5_1)']},
                                 'findings': [['error',
                                               'NCCL_IB_HCA=mlx4 matches no RDMA device (this node has: mlx5_0, '
                                               'mlx5_1)',
                                               'devices: mlx5_0, mlx5_1',
                                               'names from /sys/class/infiniband',
                                               None,
                                               {'NCCL_IB_HCA': '=mlx5_0:1'},
                                               ['vm']]]},
              'hca none match from file, no device': {'status': 'fail',
                                                      'outcomes': {'vm': ['fail',
                                                                          'NCCL_IB_HCA=mlx4 (from /etc/nccl.conf) '
                                                                          'matches no RDMA device (this node has: '
                                                                          'none)']},
                                                      'findings': [['error',
                                                                    'NCCL_IB_HCA=mlx4 (from /etc/nccl.conf) matches '
                                                                    'no RDMA device (this node has: none)',
                                                                    'devices: none',
                                                                    'names from /sys/class/infiniband',
                                                                    None,
                                                                    {},
                                                                    ['vm']]]},
              'hca exact': {'status': 'pass',
                            'outcomes': {'vm': ['pass',
                                                'NCCL_IB_HCA==mlx5_0:1,mlx5_1 selects mlx5_0, mlx5_1 of mlx5_0, '
                                                'mlx5_1; 1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                            'findings': []},
              'hca exact bad port': {'status': 'fail',
                                     'outcomes': {'vm': ['fail',
                                                         'NCCL_IB_HCA names mlx5_0:2 but mlx5_0 has no port 2']},
                                     'findings': [['error',
                                                   'NCCL_IB_HCA names mlx5_0:2 but mlx5_0 has no port 2',
                                                   'ports of mlx5_0: 1',
                                                   'an existing port',
                                                   None,
                                                   {'NCCL_IB_HCA': '=mlx5_0:1'},
                                                   ['vm']]]},
              'hca prefix bad port': {'status': 'fail',
                                      'outcomes': {'vm': ['fail',
                                                          'NCCL_IB_HCA names mlx5_1:3 but mlx5_1 has no port 3']},
                                      'findings': [['error',
                                                    'NCCL_IB_HCA names mlx5_1:3 but mlx5_1 has no port 3',
                                                    'ports of mlx5_1: 1, 1, 2',
                                                    'an existing port',
                                                    None,
                                                    {'NCCL_IB_HCA': '=mlx5_0:1,mlx5_1:1,mlx5_10:2'},
                                                    ['vm']],
                                                   ['warning',
                                                    'NCCL_IB_HCA=mlx5_1:3 is a prefix list: it also selects mlx5_1, '
                                                    'mlx5_10',
                                                    'selected: mlx5_1, mlx5_10',
                                                    'exactly the devices you named',
                                                    None,
                                                    {'NCCL_IB_HCA': '=mlx5_1:3'},
                                                    ['vm']]]},
              'hca prefix': {'status': 'warn',
                             'outcomes': {'vm': ['warn',
                                                 'NCCL_IB_HCA=mlx5_1 is a prefix list: it also selects mlx5_1, '
                                                 'mlx5_10']},
                             'findings': [['warning',
                                           'NCCL_IB_HCA=mlx5_1 is a prefix list: it also selects mlx5_1, mlx5_10',
                                           'selected: mlx5_1, mlx5_10',
                                           'exactly the devices you named',
                                           None,
                                           {'NCCL_IB_HCA': '=mlx5_1'},
                                           ['vm']]]},
              'hca prefix with port': {'status': 'warn',
                                       'outcomes': {'vm': ['warn',
                                                           'NCCL_IB_HCA=mlx5_1:1 is a prefix list: it also selects '
                                                           'mlx5_1, mlx5_10']},
                                       'findings': [['warning',
                                                     'NCCL_IB_HCA=mlx5_1:1 is a prefix list: it also selects mlx5_1, '
                                                     'mlx5_10',
                                                     'selected: mlx5_1, mlx5_10',
                                                     'exactly the devices you named',
                                                     None,
                                                     {'NCCL_IB_HCA': '=mlx5_1:1'},
                                                     ['vm']]]},
              'hca prefix two named': {'status': 'pass',
                                       'outcomes': {'vm': ['pass',
                                                           'NCCL_IB_HCA=mlx5_0,mlx5_1 selects mlx5_0, mlx5_1 of '
                                                           'mlx5_0, mlx5_1; 1 NCCL_* name checked against NCCL '
                                                           '2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                       'findings': []},
              'hca exclude': {'status': 'pass',
                              'outcomes': {'vm': ['pass',
                                                  'NCCL_IB_HCA=^mlx5_1:1 selects mlx5_0 of mlx5_0, mlx5_1; 1 NCCL_* '
                                                  'name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 '
                                                  'read']},
                              'findings': []},
              'hca exclude all': {'status': 'pass',
                                  'outcomes': {'vm': ['pass',
                                                      'NCCL_IB_HCA=^mlx5 selects none of mlx5_0, mlx5_1; 1 NCCL_* '
                                                      'name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 '
                                                      'read']},
                                  'findings': []},
              'hca rdma failed': {'status': 'pass',
                                  'outcomes': {'vm': ['pass',
                                                      '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                      '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                  'findings': []},
              'hca with no active port': {'status': 'fail',
                                          'outcomes': {'vm': ['fail',
                                                              'NCCL_IB_HCA=mlx4 matches no RDMA device (this node '
                                                              'has: mlx5_0)']},
                                          'findings': [['error',
                                                        'NCCL_IB_HCA=mlx4 matches no RDMA device (this node has: '
                                                        'mlx5_0)',
                                                        'devices: mlx5_0',
                                                        'names from /sys/class/infiniband',
                                                        None,
                                                        {},
                                                        ['vm']]]},
              'net ib no active': {'status': 'fail',
                                   'outcomes': {'vm': ['fail',
                                                       'NCCL_NET=IB but no RDMA port is ACTIVE: NCCL init fails '
                                                       'instead of falling back to sockets']},
                                   'findings': [['error',
                                                 'NCCL_NET=IB but no RDMA port is ACTIVE: NCCL init fails instead of '
                                                 'falling back to sockets',
                                                 '1 RDMA devices, 0 active ports',
                                                 'an ACTIVE RDMA port (see rdma.ports), or NCCL_NET=Socket',
                                                 None,
                                                 {'NCCL_NET': 'Socket'},
                                                 ['vm']]]},
              'net ib one active': {'status': 'pass',
                                    'outcomes': {'vm': ['pass',
                                                        'NCCL_NET=IB with 1 ACTIVE RDMA port; 1 NCCL_* name checked '
                                                        'against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                    'findings': []},
              'net ib two active': {'status': 'pass',
                                    'outcomes': {'vm': ['pass',
                                                        'NCCL_NET=IB with 2 ACTIVE RDMA ports; 1 NCCL_* name checked '
                                                        'against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                    'findings': []},
              'net ib rdma failed': {'status': 'pass',
                                     'outcomes': {'vm': ['pass',
                                                         '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                         '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                     'findings': []},
              'net socket': {'status': 'pass',
                             'outcomes': {'vm': ['pass',
                                                 '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                 '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                             'findings': []},
              'ib disable one active': {'status': 'warn',
                                        'outcomes': {'vm': ['warn',
                                                            'NCCL_IB_DISABLE=1 while 1 RDMA port is ACTIVE: NCCL '
                                                            'uses TCP sockets (slow; GPUs wait on the network)']},
                                        'findings': [['warning',
                                                      'NCCL_IB_DISABLE=1 while 1 RDMA port is ACTIVE: NCCL uses TCP '
                                                      'sockets (slow; GPUs wait on the network)',
                                                      'NCCL_IB_DISABLE=1; active: mlx5_0:1',
                                                      'NCCL_IB_DISABLE unset or 0',
                                                      None,
                                                      {'NCCL_IB_DISABLE': '0'},
                                                      ['vm']]]},
              'ib disable two active from file': {'status': 'warn',
                                                  'outcomes': {'vm': ['warn',
                                                                      'NCCL_IB_DISABLE=1 (from /etc/nccl.conf) while '
                                                                      '2 RDMA ports are ACTIVE: NCCL uses TCP '
                                                                      'sockets (slow; GPUs wait on the network)']},
                                                  'findings': [['warning',
                                                                'NCCL_IB_DISABLE=1 (from /etc/nccl.conf) while 2 '
                                                                'RDMA ports are ACTIVE: NCCL uses TCP sockets (slow; '
                                                                'GPUs wait on the network)',
                                                                'NCCL_IB_DISABLE=1; active: a:1, a:2',
                                                                'NCCL_IB_DISABLE unset or 0',
                                                                None,
                                                                {'NCCL_IB_DISABLE': '0'},
                                                                ['vm']]]},
              'ib disable none active': {'status': 'pass',
                                         'outcomes': {'vm': ['pass',
                                                             'NCCL_IB_DISABLE=1 with no ACTIVE RDMA port; 1 NCCL_* '
                                                             'name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                             '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                         'findings': []},
              'ib disable rdma failed': {'status': 'pass',
                                         'outcomes': {'vm': ['pass',
                                                             '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                             '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                         'findings': []},
              'ib disable 0': {'status': 'pass',
                               'outcomes': {'vm': ['pass',
                                                   '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                   '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                               'findings': []},
              'gid v2 ipv4': {'status': 'pass',
                              'outcomes': {'vm': ['pass',
                                                  'NCCL_IB_HCA==mlx5_0 selects mlx5_0 of mlx5_0, mlx5_1, mlx5_10; '
                                                  'NCCL_IB_GID_INDEX=3 is RoCE v2 (10.3.0.5) on mlx5_0:1; 2 NCCL_* '
                                                  'names checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 2 '
                                                  'read']},
                              'findings': []},
              'gid v2 no ipv4': {'status': 'pass',
                                 'outcomes': {'vm': ['pass',
                                                     'NCCL_IB_HCA==mlx5_0 selects mlx5_0 of mlx5_0, mlx5_1, mlx5_10; '
                                                     'NCCL_IB_GID_INDEX=1 is RoCE v2 (fe80::1) on mlx5_0:1; 2 NCCL_* '
                                                     'names checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 2 '
                                                     'read']},
                                 'findings': []},
              'gid v1': {'status': 'warn',
                         'outcomes': {'vm': ['warn',
                                             'NCCL_IB_GID_INDEX=2 selects a IB/RoCE v1 GID on mlx5_0 port 1: RoCE v1 '
                                             'is not routable and must be the same on every node']},
                         'findings': [['warning',
                                       'NCCL_IB_GID_INDEX=2 selects a IB/RoCE v1 GID on mlx5_0 port 1: RoCE v1 is '
                                       'not routable and must be the same on every node',
                                       '2: IB/RoCE v1 10.3.0.5',
                                       'RoCE v2 (3)',
                                       None,
                                       {'NCCL_IB_GID_INDEX': '3'},
                                       ['vm']]]},
              'gid missing on every roce port': {'status': 'fail',
                                                 'outcomes': {'vm': ['fail',
                                                                     'NCCL_IB_GID_INDEX=7 (from /etc/nccl.conf) is '
                                                                     'not populated on mlx5_0 port 1']},
                                                 'findings': [['error',
                                                               'NCCL_IB_GID_INDEX=7 (from /etc/nccl.conf) is not '
                                                               'populated on mlx5_0 port 1',
                                                               'GID table: 0: IB/RoCE v1 fe80::1, 1: RoCE v2 '
                                                               'fe80::1, 2: IB/RoCE v1 10.3.0.5, 3: RoCE v2 10.3.0.5',
                                                               'a RoCE v2 GID (IPv4-mapped)',
                                                               None,
                                                               {'NCCL_IB_GID_INDEX': '3'},
                                                               ['vm']],
                                                              ['error',
                                                               'NCCL_IB_GID_INDEX=7 (from /etc/nccl.conf) is not '
                                                               'populated on mlx5_1 port 1',
                                                               'GID table: 0: RoCE v2 fe80::2',
                                                               'a RoCE v2 GID (IPv4-mapped)',
                                                               None,
                                                               {'NCCL_IB_GID_INDEX': '0'},
                                                               ['vm']]]},
              'gid not a number': {'status': 'fail',
                                   'outcomes': {'vm': ['fail',
                                                       'NCCL_IB_GID_INDEX=x is not populated on mlx5_1 port 1']},
                                   'findings': [['warning',
                                                 'NCCL_IB_HCA=mlx5_1 is a prefix list: it also selects mlx5_1, '
                                                 'mlx5_10',
                                                 'selected: mlx5_1, mlx5_10',
                                                 'exactly the devices you named',
                                                 None,
                                                 {'NCCL_IB_HCA': '=mlx5_1'},
                                                 ['vm']],
                                                ['error',
                                                 'NCCL_IB_GID_INDEX=x is not populated on mlx5_1 port 1',
                                                 'GID table: 0: RoCE v2 fe80::2',
                                                 'a RoCE v2 GID (IPv4-mapped)',
                                                 None,
                                                 {'NCCL_IB_GID_INDEX': '0'},
                                                 ['vm']]]},
              'gid -1': {'status': 'pass',
                         'outcomes': {'vm': ['pass',
                                             '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 '
                                             'read']},
                         'findings': []},
              'gid empty': {'status': 'pass',
                            'outcomes': {'vm': ['pass',
                                                '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): '
                                                '1 read']},
                            'findings': []},
              'gid rdma failed': {'status': 'pass',
                                  'outcomes': {'vm': ['pass',
                                                      '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                      '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                  'findings': []},
              'gid no v2 on port': {'status': 'warn',
                                    'outcomes': {'vm': ['warn',
                                                        'NCCL_IB_GID_INDEX=0 selects a IB/RoCE v1 GID on r port 1: '
                                                        'RoCE v1 is not routable and must be the same on every '
                                                        'node']},
                                    'findings': [['warning',
                                                  'NCCL_IB_GID_INDEX=0 selects a IB/RoCE v1 GID on r port 1: RoCE v1 '
                                                  'is not routable and must be the same on every node',
                                                  '0: IB/RoCE v1 fe80::3',
                                                  'RoCE v2 ()',
                                                  None,
                                                  {},
                                                  ['vm']]]},
              'gid ports without type or down': {'status': 'pass',
                                                 'outcomes': {'vm': ['pass',
                                                                     '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and '
                                                                     'PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                                 'findings': []},
              'gdr level wanted, not loaded': {'status': 'warn',
                                               'outcomes': {'vm': ['warn',
                                                                   'GPUDirect RDMA is requested '
                                                                   '(NCCL_NET_GDR_LEVEL=PHB) but neither '
                                                                   'nvidia_peermem nor nv_peer_mem is loaded: NCCL '
                                                                   'stages through host memory unless DMA-BUF works '
                                                                   '(kernel >= 5.12, open GPU driver)']},
                                               'findings': [['warning',
                                                             'GPUDirect RDMA is requested (NCCL_NET_GDR_LEVEL=PHB) '
                                                             'but neither nvidia_peermem nor nv_peer_mem is loaded: '
                                                             'NCCL stages through host memory unless DMA-BUF works '
                                                             '(kernel >= 5.12, open GPU driver)',
                                                             'modules: ib_core, mlx5_ib',
                                                             'nvidia_peermem loaded',
                                                             'modprobe nvidia-peermem\n'
                                                             'echo nvidia-peermem > '
                                                             '/etc/modules-load.d/nvidia-peermem.conf   # load it at '
                                                             'every boot (it is not auto-loaded)',
                                                             {},
                                                             ['vm']]]},
              'gdr level LOC': {'status': 'pass',
                                'outcomes': {'vm': ['pass',
                                                    '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                    '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                'findings': []},
              'gdr level 0': {'status': 'pass',
                              'outcomes': {'vm': ['pass',
                                                  '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                  '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                              'findings': []},
              'gdr by gpus, not loaded, no modules': {'status': 'warn',
                                                      'outcomes': {'vm': ['warn',
                                                                          'GPUDirect RDMA is possible (GPUs and '
                                                                          'active RDMA ports) but neither '
                                                                          'nvidia_peermem nor nv_peer_mem is loaded: '
                                                                          'NCCL stages through host memory unless '
                                                                          'DMA-BUF works (kernel >= 5.12, open GPU '
                                                                          'driver)']},
                                                      'findings': [['warning',
                                                                    'GPUDirect RDMA is possible (GPUs and active '
                                                                    'RDMA ports) but neither nvidia_peermem nor '
                                                                    'nv_peer_mem is loaded: NCCL stages through host '
                                                                    'memory unless DMA-BUF works (kernel >= 5.12, '
                                                                    'open GPU driver)',
                                                                    'modules: none',
                                                                    'nvidia_peermem loaded',
                                                                    'modprobe nvidia-peermem\n'
                                                                    'echo nvidia-peermem > '
                                                                    '/etc/modules-load.d/nvidia-peermem.conf   # '
                                                                    'load it at every boot (it is not auto-loaded)',
                                                                    {},
                                                                    ['vm']]]},
              'gdr by gpus, loaded': {'status': 'pass',
                                      'outcomes': {'vm': ['pass', 'GPUDirect RDMA: nvidia_peermem loaded']},
                                      'findings': []},
              'gdr by gpus, nv_peer_mem': {'status': 'pass',
                                           'outcomes': {'vm': ['pass', 'GPUDirect RDMA: nv_peer_mem loaded']},
                                           'findings': []},
              'gdr loaded, module list empty': {'status': 'pass',
                                                'outcomes': {'vm': ['pass', 'GPUDirect RDMA: nvidia_peermem loaded']},
                                                'findings': []},
              'gdr gpus, no active port': {'status': 'na',
                                           'outcomes': {'vm': ['na',
                                                               'nothing to judge: no NCCL_* variable is set '
                                                               '(environment, NCCL_CONF_FILE or ~/.nccl.conf, '
                                                               '/etc/nccl.conf) and no GPUDirect RDMA path (GPUs '
                                                               'with an ACTIVE RDMA port)']},
                                           'findings': []},
              'gdr level, rdma failed': {'status': 'pass',
                                         'outcomes': {'vm': ['pass',
                                                             '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                             '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                         'findings': []},
              'paths': {'status': 'fail',
                        'outcomes': {'vm': ['fail',
                                            'NCCL_GRAPH_FILE=/g.xml (from /etc/nccl.conf) does not exist on this '
                                            'node: NCCL init fails']},
                        'findings': [['error',
                                      'NCCL_GRAPH_FILE=/g.xml (from /etc/nccl.conf) does not exist on this node: '
                                      'NCCL init fails',
                                      '/g.xml missing',
                                      'the file on every node',
                                      'copy the file to /g.xml on every node, or: unset NCCL_GRAPH_FILE',
                                      {},
                                      ['vm']]]},
              'paths exist': {'status': 'pass',
                              'outcomes': {'vm': ['pass',
                                                  'NCCL_TOPO_FILE=/t.xml exists; 1 NCCL_* name checked against NCCL '
                                                  '2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                              'findings': []},
              'ifname none, default route eth0': {'status': 'fail',
                                                  'outcomes': {'vm': ['fail',
                                                                      'NCCL_SOCKET_IFNAME=ib0 matches no interface '
                                                                      'that is up with an address: NCCL fails with '
                                                                      '"no socket interface found"']},
                                                  'findings': [['error',
                                                                'NCCL_SOCKET_IFNAME=ib0 matches no interface that is '
                                                                'up with an address: NCCL fails with "no socket '
                                                                'interface found"',
                                                                'matched: none; interfaces: eth0 (up, 10.0.0.5), '
                                                                'ens2 (up, 10.1.0.5), ens3 (down, 10.2.0.5), docker0 '
                                                                '(up, 172.17.0.1), lo (unknown, 127.0.0.1), ens4 '
                                                                '(up, no IPv4)',
                                                                'an up interface with an address',
                                                                None,
                                                                {'NCCL_SOCKET_IFNAME': '=eth0'},
                                                                ['vm']]]},
              'ifname none, no default route': {'status': 'fail',
                                                'outcomes': {'vm': ['fail',
                                                                    'NCCL_SOCKET_IFNAME=ib0 matches no interface '
                                                                    'that is up with an address: NCCL fails with "no '
                                                                    'socket interface found"']},
                                                'findings': [['error',
                                                              'NCCL_SOCKET_IFNAME=ib0 matches no interface that is '
                                                              'up with an address: NCCL fails with "no socket '
                                                              'interface found"',
                                                              'matched: none; interfaces: eth0 (up, 10.0.0.5), ens2 '
                                                              '(up, 10.1.0.5), ens3 (down, 10.2.0.5), docker0 (up, '
                                                              '172.17.0.1), lo (unknown, 127.0.0.1), ens4 (up, no '
                                                              'IPv4)',
                                                              'an up interface with an address',
                                                              None,
                                                              {'NCCL_SOCKET_IFNAME': '=ens2'},
                                                              ['vm']]]},
              'ifname none, route not a record': {'status': 'fail',
                                                  'outcomes': {'vm': ['fail',
                                                                      'NCCL_SOCKET_IFNAME=ib0 matches no interface '
                                                                      'that is up with an address: NCCL fails with '
                                                                      '"no socket interface found"']},
                                                  'findings': [['error',
                                                                'NCCL_SOCKET_IFNAME=ib0 matches no interface that is '
                                                                'up with an address: NCCL fails with "no socket '
                                                                'interface found"',
                                                                'matched: none; interfaces: eth0 (up, 10.0.0.5), '
                                                                'ens2 (up, 10.1.0.5), ens3 (down, 10.2.0.5), docker0 '
                                                                '(up, 172.17.0.1), lo (unknown, 127.0.0.1), ens4 '
                                                                '(up, no IPv4)',
                                                                'an up interface with an address',
                                                                None,
                                                                {'NCCL_SOCKET_IFNAME': '=ens2'},
                                                                ['vm']]]},
              'effective not a record': {'status': 'na',
                                         'outcomes': {'vm': ['na',
                                                             'nothing to judge: no NCCL_* variable is set '
                                                             '(environment, NCCL_CONF_FILE or ~/.nccl.conf, '
                                                             '/etc/nccl.conf) and no GPUDirect RDMA path (GPUs with '
                                                             'an ACTIVE RDMA port)']},
                                         'findings': []},
              'devices not a list': {'status': 'fail',
                                     'outcomes': {'vm': ['fail',
                                                         'NCCL_NET=IB but no RDMA port is ACTIVE: NCCL init fails '
                                                         'instead of falling back to sockets']},
                                     'findings': [['error',
                                                   'NCCL_NET=IB but no RDMA port is ACTIVE: NCCL init fails instead '
                                                   'of falling back to sockets',
                                                   '0 RDMA devices, 0 active ports',
                                                   'an ACTIVE RDMA port (see rdma.ports), or NCCL_NET=Socket',
                                                   None,
                                                   {'NCCL_NET': 'Socket'},
                                                   ['vm']]]},
              'device and port records not records': {'status': 'pass',
                                                      'outcomes': {'vm': ['pass',
                                                                          'NCCL_NET=IB with 1 ACTIVE RDMA port; 1 '
                                                                          'NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) '
                                                                          'and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                                      'findings': []},
              'names: contrib only': {'status': 'pass',
                                      'outcomes': {'vm': ['pass',
                                                          '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                          '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                      'findings': []},
              'names: close to a contrib name only': {'status': 'pass',
                                                      'outcomes': {'vm': ['pass',
                                                                          '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) '
                                                                          'and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 0 read, 1 '
                                                                          'noted']},
                                                      'findings': [['info',
                                                                    'NCCL_EP_DEBUGX is read by neither NCCL 2.30.7 '
                                                                    '(nor any of the 63 NCCL releases scanned back '
                                                                    'to 1.3.0) nor PyTorch 2.14.1+cu130: a '
                                                                    'third-party plugin may read it',
                                                                    None,
                                                                    None,
                                                                    None,
                                                                    {},
                                                                    ['vm']]]},
              'names: former, one release': {'status': 'pass',
                                             'outcomes': {'vm': ['pass',
                                                                 '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and '
                                                                 'PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 0 read, 1 noted']},
                                             'findings': [['info',
                                                           'NCCL_GIN_EXCLUSIVE_CONTEXTS was read by NCCL 2.29.7 '
                                                           '(src/dev_runtime.cc) only: this node loads NCCL 2.28.9, '
                                                           'which does not read it: it has no effect here',
                                                           None,
                                                           None,
                                                           None,
                                                           {},
                                                           ['vm']]]},
              'ifname two interfaces, two addresses': {'status': 'pass',
                                                       'outcomes': {'vm': ['pass',
                                                                           'NCCL_SOCKET_IFNAME=eth0,ens2 selects '
                                                                           'eth0 (10.0.0.5, 10.0.9.5), ens2 '
                                                                           '(10.1.0.5); 1 NCCL_* name checked '
                                                                           'against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                                           '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                                       'findings': []},
              'network not a record': {'status': 'pass',
                                       'outcomes': {'vm': ['pass',
                                                           '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                           '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                       'findings': []},
              'paths not a record': {'status': 'pass',
                                     'outcomes': {'vm': ['pass',
                                                         '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                         '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                     'findings': []},
              'hca exclude, no device': {'status': 'pass',
                                         'outcomes': {'vm': ['pass',
                                                             'NCCL_IB_HCA=^mlx selects none of no device; 1 NCCL_* '
                                                             'name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                             '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                         'findings': []},
              'hca exact, first without port, second bad port': {'status': 'fail',
                                                                 'outcomes': {'vm': ['fail',
                                                                                     'NCCL_IB_HCA names mlx5_1:3 but '
                                                                                     'mlx5_1 has no port 3']},
                                                                 'findings': [['error',
                                                                               'NCCL_IB_HCA names mlx5_1:3 but '
                                                                               'mlx5_1 has no port 3',
                                                                               'ports of mlx5_1: 1',
                                                                               'an existing port',
                                                                               None,
                                                                               {'NCCL_IB_HCA': '=mlx5_0:1'},
                                                                               ['vm']]]},
              'hca exact port on a prefix of another': {'status': 'fail',
                                                        'outcomes': {'vm': ['fail',
                                                                            'NCCL_IB_HCA names mlx5_1:2 but mlx5_1 '
                                                                            'has no port 2']},
                                                        'findings': [['error',
                                                                      'NCCL_IB_HCA names mlx5_1:2 but mlx5_1 has no '
                                                                      'port 2',
                                                                      'ports of mlx5_1: 1',
                                                                      'an existing port',
                                                                      None,
                                                                      {'NCCL_IB_HCA': '=mlx5_0:1,mlx5_1:1,mlx5_10:2'},
                                                                      ['vm']]]},
              'hca names of different lengths': {'status': 'pass',
                                                 'outcomes': {'vm': ['pass',
                                                                     'NCCL_IB_HCA=mlx5_0,a selects mlx5_0, a of '
                                                                     'mlx5_0, a; 1 NCCL_* name checked against NCCL '
                                                                     '2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                                 'findings': []},
              'hca prefix of two names': {'status': 'warn',
                                          'outcomes': {'vm': ['warn',
                                                              'NCCL_IB_HCA=mlx5_1:1,mlx5_0 is a prefix list: it also '
                                                              'selects mlx5_0, mlx5_1, mlx5_10']},
                                          'findings': [['warning',
                                                        'NCCL_IB_HCA=mlx5_1:1,mlx5_0 is a prefix list: it also '
                                                        'selects mlx5_0, mlx5_1, mlx5_10',
                                                        'selected: mlx5_0, mlx5_1, mlx5_10',
                                                        'exactly the devices you named',
                                                        None,
                                                        {'NCCL_IB_HCA': '=mlx5_1:1,mlx5_0'},
                                                        ['vm']]]},
              'gid v1, two v2 with IPv4': {'status': 'warn',
                                           'outcomes': {'vm': ['warn',
                                                               'NCCL_IB_GID_INDEX=0 selects a IB/RoCE v1 GID on r '
                                                               'port 1: RoCE v1 is not routable and must be the same '
                                                               'on every node']},
                                           'findings': [['warning',
                                                         'NCCL_IB_GID_INDEX=0 selects a IB/RoCE v1 GID on r port 1: '
                                                         'RoCE v1 is not routable and must be the same on every node',
                                                         '0: IB/RoCE v1 fe80::3',
                                                         'RoCE v2 (1, 2)',
                                                         None,
                                                         {'NCCL_IB_GID_INDEX': '1'},
                                                         ['vm']]]},
              'gdr both modules': {'status': 'pass',
                                   'outcomes': {'vm': ['pass', 'GPUDirect RDMA: nv_peer_mem, nvidia_peermem loaded']},
                                   'findings': []},
              'names: every kind, in order': {'status': 'warn',
                                              'outcomes': {'vm': ['warn',
                                                                  'NCCL_SOCKET_IFNAM is read by neither NCCL 2.30.7 '
                                                                  'nor PyTorch 2.14.1+cu130; did you mean '
                                                                  'NCCL_SOCKET_IFNAME? NCCL ignores unknown names '
                                                                  'silently']},
                                              'findings': [['info',
                                                            'NCCL_AGG_CHANNEL_SIZE was read by NCCL 2.10.3 to 2.19.4 '
                                                            '(src/init.cc), not by NCCL 2.30.7: it has no effect '
                                                            'with a newer NCCL',
                                                            None,
                                                            None,
                                                            None,
                                                            {},
                                                            ['vm']],
                                                           ['info',
                                                            "NCCL_LL_THRESHOLD: NCCL's environment page lists it "
                                                            '(since 2.1, removed in 2.5), but NCCL 2.30.7 does not '
                                                            'read it: it has no effect with this NCCL',
                                                            None,
                                                            None,
                                                            None,
                                                            {},
                                                            ['vm']],
                                                           ['info',
                                                            'NCCL_MY_PLUGIN_KNOB is read by neither NCCL 2.30.7 (nor '
                                                            'any of the 63 NCCL releases scanned back to 1.3.0) nor '
                                                            'PyTorch 2.14.1+cu130: a third-party plugin may read it',
                                                            None,
                                                            None,
                                                            None,
                                                            {},
                                                            ['vm']],
                                                           ['warning',
                                                            'NCCL_SOCKET_IFNAM is read by neither NCCL 2.30.7 nor '
                                                            'PyTorch 2.14.1+cu130; did you mean NCCL_SOCKET_IFNAME? '
                                                            'NCCL ignores unknown names silently',
                                                            'NCCL_SOCKET_IFNAM=eth0',
                                                            'NCCL_SOCKET_IFNAME',
                                                            'unset NCCL_SOCKET_IFNAM',
                                                            {'NCCL_SOCKET_IFNAME': 'eth0'},
                                                            ['vm']]]},
              'names: a typo': {'status': 'warn',
                                'outcomes': {'vm': ['warn',
                                                    'NCCL_SOCKET_IFNAM is read by neither NCCL 2.30.7 nor PyTorch '
                                                    '2.14.1+cu130; did you mean NCCL_SOCKET_IFNAME? NCCL ignores '
                                                    'unknown names silently']},
                                'findings': [['warning',
                                              'NCCL_SOCKET_IFNAM is read by neither NCCL 2.30.7 nor PyTorch '
                                              '2.14.1+cu130; did you mean NCCL_SOCKET_IFNAME? NCCL ignores unknown '
                                              'names silently',
                                              'NCCL_SOCKET_IFNAM=eth0',
                                              'NCCL_SOCKET_IFNAME',
                                              'unset NCCL_SOCKET_IFNAM',
                                              {'NCCL_SOCKET_IFNAME': 'eth0'},
                                              ['vm']]]},
              'names: a typo from a file, and a torch name': {'status': 'warn',
                                                              'outcomes': {'vm': ['warn',
                                                                                  'NCCL_DEBUG_SUBSYSS (from '
                                                                                  '/etc/nccl.conf) is read by '
                                                                                  'neither NCCL 2.30.7 nor PyTorch '
                                                                                  '2.14.1+cu130; did you mean '
                                                                                  'NCCL_DEBUG_SUBSYS? NCCL ignores '
                                                                                  'unknown names silently']},
                                                              'findings': [['warning',
                                                                            'NCCL_DEBUG_SUBSYSS (from '
                                                                            '/etc/nccl.conf) is read by neither NCCL '
                                                                            '2.30.7 nor PyTorch 2.14.1+cu130; did '
                                                                            'you mean NCCL_DEBUG_SUBSYS? NCCL '
                                                                            'ignores unknown names silently',
                                                                            'NCCL_DEBUG_SUBSYSS=INIT',
                                                                            'NCCL_DEBUG_SUBSYS',
                                                                            'unset NCCL_DEBUG_SUBSYSS',
                                                                            {'NCCL_DEBUG_SUBSYS': 'INIT'},
                                                                            ['vm']]]},
              'names: unknown': {'status': 'pass',
                                 'outcomes': {'vm': ['pass',
                                                     '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                     '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 0 read, 1 noted']},
                                 'findings': [['info',
                                               'NCCL_MY_PLUGIN_KNOB is read by neither NCCL 2.30.7 (nor any of the '
                                               '63 NCCL releases scanned back to 1.3.0) nor PyTorch 2.14.1+cu130: a '
                                               'third-party plugin may read it',
                                               None,
                                               None,
                                               None,
                                               {},
                                               ['vm']]]},
              'names: documented, not read': {'status': 'pass',
                                              'outcomes': {'vm': ['pass',
                                                                  '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and '
                                                                  'PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 0 read, 1 noted']},
                                              'findings': [['info',
                                                            "NCCL_LL_THRESHOLD: NCCL's environment page lists it "
                                                            '(since 2.1, removed in 2.5), but NCCL 2.30.7 does not '
                                                            'read it: it has no effect with this NCCL',
                                                            None,
                                                            None,
                                                            None,
                                                            {},
                                                            ['vm']]]},
              'names: former': {'status': 'pass',
                                'outcomes': {'vm': ['pass',
                                                    '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                    '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 0 read, 1 noted']},
                                'findings': [['info',
                                              'NCCL_AGG_CHANNEL_SIZE (from /etc/nccl.conf) was read by NCCL 2.10.3 '
                                              'to 2.19.4 (src/init.cc), not by NCCL 2.30.7: it has no effect with a '
                                              'newer NCCL',
                                              None,
                                              None,
                                              None,
                                              {},
                                              ['vm']]]},
              "names: not NCCL's, and one": {'status': 'pass',
                                             'outcomes': {'vm': ['pass',
                                                                 '2 NCCL_* names checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and '
                                                                 'PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 2 read']},
                                             'findings': []},
              'names: the fixture': {'status': 'pass',
                                     'outcomes': {'vm': ['pass',
                                                         '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and PyTorch '
                                                         '2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                     'findings': []},
              'names: the H200 fixture': {'status': 'pass',
                                          'outcomes': {'vm': ['pass',
                                                              '2 NCCL_* names checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and '
                                                              'PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 2 read']},
                                          'findings': []},
              'untrusted entries dropped': {'status': 'pass',
                                            'outcomes': {'vm': ['pass',
                                                                '1 NCCL_* name checked against NCCL 2.30.7 (this node loads 2.28.9: a name NCCL first read after it is noted) and '
                                                                'PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would pass): 1 read']},
                                            'findings': []}}}
