"""launch.port: the master port against sshd's 22, privileged ports, port 0 on several nodes
and the kernel's ephemeral range, from each node's own facts (gpudoctor/launch/ports.py)."""

import os

from conftest import FIXTURES, node_facts, patched, run_check
from gpudoctor.collector.network import parse_port_range
from gpudoctor.config import Config
from gpudoctor.launch import build_plan, parse_launch

L = os.path.join(FIXTURES, "launch")


def cfg(line):
    c = Config()
    c.launch = build_plan(launch=line, environ={})
    return c


def node(uid=1000, rng=(32768, 60999), unpriv=1024):
    base = node_facts("devbox-debian12-nogpu")
    host = dict(base["host"], uid=uid)
    net = dict(base.get("network") or {"status": "ok"}, ip_local_port_range=list(rng) if rng else None, ip_unprivileged_port_start=unpriv)
    return patched(patched(base, host=host), network=net)


def outcome(line, **facts):
    n = node(**facts)
    res = run_check("launch.port", n, cfg(line))
    return res.status, [(f.severity, f.message, f.fix) for f in res.findings], res.outcomes[n["node"]][1]


def test_the_seed002_accelerate_config_port_22_is_sshds(monkeypatch, tmp_path):
    # the users' accelerate config: main_process_port 22 with deepspeed_multinode_launcher pdsh
    for n in ("accelerate_seed002.yaml", "deepspeed.json", "hostfile"):
        (tmp_path / n).write_bytes(open(os.path.join(L, n), "rb").read())
    monkeypatch.chdir(tmp_path)
    c = Config()
    c.launch = build_plan(accelerate="accelerate_seed002.yaml", accelerate_given=True, environ={})
    assert any("port 22 is sshd's" in n for n in c.launch.notes)
    res = run_check("launch.port", node(uid=0), c)
    (f,) = res.findings
    assert res.status == "fail" and "master port 22 is sshd's port" in f.message
    assert f.fix.startswith("use main_process_port 29500")


def test_privileged_port_needs_root_from_the_nodes_uid_and_sysctl():
    line = "torchrun --nnodes 2 --nproc_per_node 8 --master_addr gpu1 --master_port 80 t.py"
    st, found, _ = outcome(line, uid=1000)
    assert st == "fail" and "port 80 is privileged (below 1024)" in found[0][1] and "uid 1000 here" in found[0][1]
    st, found, ev = outcome(line, uid=0)
    assert st == "pass" and "uid 0 may bind any port" in ev
    st, found, _ = outcome(line, uid=1000, unpriv=0)  # net.ipv4.ip_unprivileged_port_start=0 (rootless podman)
    assert st == "pass"


def test_port_0_is_an_error_only_where_several_nodes_must_know_it():
    st, found, _ = outcome("accelerate launch --multi_gpu --num_machines 2 --num_processes 16 --machine_rank 0 "
                           "--main_process_ip 10.0.0.1 --main_process_port 0 t.py")
    assert st == "fail" and found[0][0] == "error" and "master port 0 on a multi-node plan" in found[0][1]
    assert "main_process_port 29500" in found[0][2]
    st, found, ev = outcome("accelerate launch --num_processes 8 --main_process_port 0 t.py")
    assert st == "pass" and "picked at run time on the one node" in ev  # accelerate picks a free port itself
    st, found, _ = outcome("torchrun --nnodes 1:4 --nproc_per_node 8 --rdzv-backend c10d --rdzv-endpoint gpu1:0 t.py")
    assert st == "fail" and "port 0" in found[0][1]
    st, found, _ = outcome("deepspeed --master_port 0 t.py")
    assert st == "pass"


def test_ephemeral_range_from_the_node_else_linux_default():
    line = "torchrun --nnodes 2 --nproc_per_node 8 --master_addr gpu1 --master_port 40000 t.py"
    st, found, _ = outcome(line, rng=(32768, 60999))
    assert st == "warn" and "ephemeral range 32768-60999 (ip_local_port_range here)" in found[0][1]
    assert "ip_local_reserved_ports=40000" in found[0][2]
    st, found, ev = outcome(line, rng=(50000, 60999))
    assert st == "pass" and "below the ephemeral range starting at 50000 here" in ev
    st, found, _ = outcome(line, rng=None)
    assert st == "warn" and "Linux's default ip_local_port_range" in found[0][1]
    st, found, ev = outcome(line.replace("40000", "29500"))
    assert st == "pass" and ev.startswith("master port 29500: fixed, not sshd's 22, unprivileged")
    assert outcome("mpirun -np 2 -H a:1,b:1 python t.py")[0] == "na"


def test_parse_port_range():
    assert parse_port_range("32768\t60999\n") == [32768, 60999]
    for bad in ("", "1", "60999 32768", "0 10", "1 99999", "a b", None, "1 2 3"):
        assert parse_port_range(bad) is None, bad


def test_the_plan_notes_them_too():
    plan = parse_launch("torchrun --nnodes 2 --nproc_per_node 8 --master_addr gpu1 --master_port 22 t.py",
                        environ={})
    assert plan.master_port == 22
    plan = build_plan(launch="deepspeed --hostfile /nonexistent --master_port 0 t.py", environ={})
    assert plan.master_port is None and plan.port_asked == 0


def test_processes_counted_on_the_node_are_read_from_its_facts():
    # DeepSpeed without a hostfile, torchrun --nproc-per-node gpu, accelerate without
    # --num_processes: the launcher counts this node's GPUs when it starts
    base = node_facts("h200x2-ubuntu2404-torch211")
    for line, why in (("deepspeed t.py", "DeepSpeed without a hostfile runs on the local GPUs"),
                      ("torchrun --nproc-per-node gpu t.py", "torchrun --nproc-per-node counts the devices"),
                      ("accelerate launch t.py", "accelerate without --num_processes")):
        c = Config()
        c.launch = build_plan(launch=line, environ={"HF_HOME": "/nonexistent"})
        res = run_check("launch.accepted", base, c)
        (f,) = res.findings
        assert f.severity == "info" and f.message.startswith(why) and "2 GPUs here" in f.message, line
        assert res.status == "pass" and "world size 2 (this node's GPUs)" in res.outcomes[base["node"]][1], line
