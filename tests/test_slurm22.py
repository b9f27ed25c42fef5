"""slurm22: gpudoctor walked as an admin would on the real 4-node Slurm (the session's
`multislurm` fixture, tests/slurmcluster.py: one slurmctld, one slurmd per network namespace;
sn3 has a 64 MiB /dev/shm). What failed there, kept as tests."""

import json
import sys
import time

import pytest

GD = [sys.executable, "-m", "gpudoctor"]


@pytest.fixture
def ms(multislurm, tmp_path):
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


def check(ms, nodes, partition=None, timeout_s=30):
    """`gpudoctor check --via srun --nodes NODES` from outside a job; SLURM_PARTITION is what
    srun reads as -p (srun(1), INPUT ENVIRONMENT VARIABLES)."""
    env = {"SLURM_PARTITION": partition} if partition else {}
    t0 = time.time()
    p = ms.run(*(GD + ["check", "--via", "srun", "--nodes", nodes, "--json", "--select", "shm",
                       "--timeout", str(timeout_s)]), env=env, timeout=timeout_s * 3, cwd=ms.cwd)
    return p.returncode, dict((n["host"], n) for n in json.loads(p.stdout)["nodes"]), p.stderr, time.time() - t0


def hold(ms, node, *how):
    """A batch job that runs on ``node`` until cancelled (sbatch options ``how``); returns its id
    once Slurm says the node holds it."""
    job = ms.run("sbatch", "--parsable", "-w", node, "-o", "/dev/null", *(list(how) + ["--wrap", "sleep 300"]),
                 check=True).stdout.strip().split(";")[0]
    ms.wait(lambda st: st[node][0].startswith(("ALLOCATED", "MIXED")), what="%s running job %s" % (node, job))
    return job


def test_a_node_whose_cpus_jobs_of_an_oversubscribe_force_partition_hold_is_checked_there(ms):
    """A 2-CPU job of the FORCE:4 partition on sn1: a job of that partition shares its cores
    (`srun -p shared -w sn1` runs at once), so gpudoctor's job there reaches sn1; it left sn1 out
    as node-busy (CPUAlloc=2 of CPUTot=2) before. In the default partition (OverSubscribe=NO)
    sn1 is busy as before."""
    job = hold(ms, "sn1", "-p", "shared", "-n2")
    try:
        rc, nodes, err, took = check(ms, "sn[1-2]", partition="shared")
        rc2, nodes2, err2, _ = check(ms, "sn[1-2]")
    finally:
        ms.run("scancel", job)
    assert nodes["sn1"]["reachable"] and nodes["sn2"]["reachable"], (nodes, err)
    assert rc == 0, err
    assert nodes2["sn1"]["error_kind"] == "node-busy" and "CPUAlloc=2 of CPUTot=2" in nodes2["sn1"]["error"], nodes2
    assert nodes2["sn2"]["reachable"] and rc2 == 1, (nodes2, err2)


def test_a_node_one_job_uses_is_busy_for_a_partition_of_whole_nodes(ms):
    """OverSubscribe=EXCLUSIVE gives each job whole nodes: beside a 1-CPU job on sn1 (MIXED)
    gpudoctor's job in that partition waits for sn1. It is named busy from scontrol at once (the
    partition's rule), not after the step stalled; the default partition still reaches it."""
    job = hold(ms, "sn1", "-n1")
    try:
        rc, nodes, err, took = check(ms, "sn[1-2]", partition="whole")
        rc2, nodes2, err2, _ = check(ms, "sn[1-2]")
    finally:
        ms.run("scancel", job)
    assert nodes["sn1"]["error_kind"] == "node-busy", (nodes, err)
    assert "OverSubscribe=EXCLUSIVE" in nodes["sn1"]["error"] and "CPUAlloc=1 of CPUTot=2" in nodes["sn1"]["error"]
    assert nodes["sn2"]["reachable"] and rc == 1, (nodes, err)
    assert nodes2["sn1"]["reachable"] and nodes2["sn2"]["reachable"] and rc2 == 0, (nodes2, err2)


def test_one_node_whose_job_stays_queued_is_busy_not_a_timeout(ms):
    """`--nodes sn1` alone while its job waits in the queue (a FORCE partition's job does not go
    beside a job of a partition that shares nothing, though a CPU is free: seen on 22.05 here).
    The run waited until the deadline and reported sn1 as a timeout ('sshd hangs'); srun's
    'queued and waiting for resources' now makes it node-busy after a quarter of the deadline."""
    job = hold(ms, "sn1", "-n1")
    try:
        rc, nodes, err, took = check(ms, "sn1", partition="shared", timeout_s=40)
    finally:
        ms.run("scancel", job)
    assert nodes["sn1"]["error_kind"] == "node-busy", (nodes, err)
    assert "queued and waiting for resources" in nodes["sn1"]["error"], nodes
    assert rc == 1


def test_nodes_outside_the_partition_the_job_goes_to_are_named_so_and_the_others_checked(ms):
    """SLURM_PARTITION names a partition (hidden) of sn1 and sn2 only: srun refuses the whole
    job for sn3 and sn4 ("Requested node configuration is not available"), and each of the two
    tried alone was reported as a hung slurmd ('alive but not answering'). Now they are
    not-in-partition from scontrol before the step, with the partitions they are in, and sn1
    and sn2 are checked."""
    rc, nodes, err, took = check(ms, "sn[1-4]", partition="front")
    for h in ("sn3", "sn4"):
        assert nodes[h]["error_kind"] == "not-in-partition", (nodes, err)
        assert "not in partition front" in nodes[h]["error"] and "SLURM_PARTITION=debug" in nodes[h]["error"]
    assert nodes["sn1"]["reachable"] and nodes["sn2"]["reachable"], (nodes, err)
    assert rc == 1


@pytest.mark.parametrize("where,value,shown", [
    ("--nodes", "sn1;id", "'sn1' (cut at ';', a character no host name has)"),
    ("--nodes", "sn[1-2],$(id)", "'' (cut at '$', a character no host name has)"),
    ("--nodes", "sn1 sn2", "'sn1' (cut at ' ', a character no host name has)"),
    ("--nodes", "sn1,-oProxyCommand=id", "'-oProxyCommand' (cut at '=', a character no host name has)"),
    ("SLURM_JOB_NODELIST", "sn1,-x", "'-x' is not a host name"),
    ("SLURM_JOB_NODELIST", "sn1;reboot", "'sn1' (cut at ';', a character no host name has)"),
])
def test_a_node_name_with_odd_characters_is_refused_naming_the_character(where, value, shown, tmp_path):
    """Refused in one line, exit 2, before srun or ssh runs. The refusal said "'sn1' (cut at a
    character no host name has) is not a host name" for 'sn1;id' (as if sn1 were the fault)
    and "''" for '$(id)': the character it stopped at is named now (one character, repr'd)."""
    import os
    import subprocess

    env = dict((k, v) for k, v in os.environ.items() if not k.startswith("SLURM_"))
    argv = GD + ["check", "--select", "shm", "--timeout", "10"]
    if where == "--nodes":
        argv += ["--via", "srun", "--nodes", value]
    else:
        env.update(SLURM_JOB_ID="77", SLURM_JOB_NODELIST=value, SLURM_NNODES="2")
    p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=60)
    assert p.returncode == 2 and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1 and shown in p.stderr, p.stderr


def test_a_node_a_reservation_holds_is_busy_with_what_slurm_said_of_the_job(ms):
    """A maintenance reservation of sn2 for another user: gpudoctor's job waits for sn2. The
    node was busy with 'running jobs hold the node's CPUs or memory' (none did) and
    `squeue -w sn2` (empty); now srun's own line and the job's Reason say it is reserved."""
    ms.run("scontrol", "create", "reservation", "reservationname=gd22pm", "starttime=now", "duration=10",
           "nodes=sn2", "users=nobody", "flags=maint,ignore_jobs", check=True)
    try:
        rc, nodes, err, took = check(ms, "sn[1-2]")
        rc1, nodes1, err1, _ = check(ms, "sn2")
    finally:
        ms.run("scontrol", "delete", "reservationname=gd22pm", check=True)
    for got in (nodes["sn2"], nodes1["sn2"]):
        assert got["error_kind"] == "node-busy", (nodes, nodes1, err, err1)
        assert "Required node not available (down, drained or reserved)" in got["error"], got
        assert "Reason=ReqNodeNotAvail" in got["error"] and "scontrol show reservation" in got["error"], got
    assert nodes["sn1"]["reachable"] and rc == 1 and rc1 == 1, (nodes, err)


@pytest.mark.parametrize("how,value", [("hostname", "sn1,sn3"), ("hostname", "sn[3-4]"), ("hostname", "-a"),
                                       ("--node", "sn1,sn3"), ("SLURMD_NODENAME", "sn[1-2]")])
def test_slurm_health_acts_on_one_node_name_only(ms, how, value):
    """`gpudoctor slurm-health` on a machine whose hostname is 'sn1,sn3' (the kernel takes it:
    /proc/sys/kernel/hostname) drained sn1 and sn3, and 'sn[3-4]' drained sn3 and sn4: scontrol
    reads a list or a range in `nodename=`; '-a' reached scontrol's options. Now a name that is not
    one node name is refused (exit 2, one line; the hooks let the job run and log it) and no node
    changes."""
    import os
    import subprocess

    argv = GD + ["slurm-health", "--no-history", "--config", ms.gd_config, "--timeout", "20"]
    env = dict(ms.env)
    env.pop("SLURMD_NODENAME", None)
    if how == "--node":
        argv += ["--node", value]
    elif how == "SLURMD_NODENAME":
        env["SLURMD_NODENAME"] = value
    if how == "hostname":  # this process's own UTS namespace, with that hostname
        argv = ["unshare", "--uts", "sh", "-c", 'printf %s "$0" > /proc/sys/kernel/hostname && exec "$@"', value] + argv
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, cwd=ms.cwd)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "is not one Slurm node name" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not [n for n, (st, _) in ms.states().items() if "DRAIN" in st], ms.states()
    if how == "hostname":
        assert os.uname().nodename != value  # the namespace was the child's alone


@pytest.mark.parametrize("odd", ["-oProxyCommand=x", "sn1,sn3"])
def test_a_node_whose_hostname_is_no_host_name_fails_host_name_with_the_hostnamectl_fix(ms, odd):
    """sn2's hostname set to an option or a list (its slurmd's UTS namespace; the kernel takes it).
    host.name said "hostname -oProxyCommand=x does not resolve" with the fix
    `echo '<ip> -oProxyCommand=x' >> /etc/hosts`: a name no resolver, ssh or Slurm list can use,
    kept. It says what the name is now, and the fix renames the node."""
    import subprocess

    pid = ms.slurmd["sn2"].pid
    setname = ["nsenter", "-t", str(pid), "-u", "sh", "-c", 'printf %s "$0" > /proc/sys/kernel/hostname']
    subprocess.run(setname + [odd], check=True, timeout=10)
    try:
        p = ms.run(*(GD + ["check", "--via", "srun", "--nodes", "sn[1-2]", "--json", "--select", "host.name",
                           "--timeout", "30"]), timeout=90, cwd=ms.cwd)
    finally:
        subprocess.run(setname + ["sn2"], check=True, timeout=10)
    rep = json.loads(p.stdout)
    found = [f for f in rep["findings"] if f["check"] == "host.name"]
    assert [f["hosts"] for f in found] == [["sn2"]], (found, p.stderr)
    assert ("%r is not a host name" % odd) in found[0]["message"], found
    fix = found[0]["fix"]
    assert "hostnamectl set-hostname" in fix and odd not in fix, fix  # it wrote the odd name into /etc/hosts
    assert p.returncode == 1


@pytest.mark.parametrize("alloc", [True, False], ids=["PrologFlags=Alloc", "prolog-at-first-step"])
def test_a_node_gpudoctors_prolog_drains_under_the_check_is_named_and_the_others_checked(ms, alloc):
    """gpudoctor's prolog installed as docs/slurm.md says, sn3's /dev/shm too small, and
    `gpudoctor check --via srun --nodes sn[1-4]` from outside a job: the prolog of gpudoctor's own
    job fails on sn3 and drains it, and Slurm ends the job on every node. All four nodes were
    `slurm` ("srun ran no task there: ... Something is wrong with the boot of the nodes"); now
    sn3 is node-drained with the prolog's reason and the three others run again and are checked."""
    ms.set_config('shm_min = "1GiB"\n')
    ms.enable("prolog")
    if not alloc and ms._prolog_at_allocation(False):
        ms.run("scontrol", "reconfigure", check=True)
    rc, nodes, err, took = check(ms, "sn[1-4]", timeout_s=40)
    assert nodes["sn3"]["error_kind"] == "node-drained", (nodes, err)
    assert "Prolog failed" in nodes["sn3"]["error"] and "gpudoctor: shm.size" in nodes["sn3"]["error"], nodes
    assert [h for h in ("sn1", "sn2", "sn4") if not nodes[h]["reachable"]] == [], (nodes, err)
    assert rc == 1
    ms.end_prolog_retries(["sn3"])  # 22.05's retry loop after an interactive job's failed prolog


def test_a_node_of_a_hidden_partition_is_in_it_for_a_user_who_is_not_root(tmp_path, monkeypatch):
    """As a user who is not root, `scontrol show node` leaves hidden partitions out of Partitions=
    (seen on the bed: 'debug,shared,share,excl,p12' for nobody, '...,p12,hid' with --all), and
    `scontrol show partition` lists none. With SLURM_PARTITION=hid, sn1 read as not in it. The
    scontrol here answers as 22.05 did for nobody: the hidden partition only under --all."""
    import os

    from gpudoctor.transport.srun import SrunTransport

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "scontrol").write_text(
        '#!/bin/sh\nall=; [ "$1" = --all ] && { all=1; shift; }\n'
        'case "$1 $2" in\n'
        '  "show node") echo "NodeName=sn1 Arch=x86_64 CPUAlloc=0 CPUTot=2 State=IDLE '
        'Partitions=debug${all:+,hid} RealMemory=500 AllocMem=0";;\n'
        '  "show partition") echo "PartitionName=debug Default=YES OverSubscribe=NO Nodes=sn1"\n'
        '     [ -n "$all" ] && echo "PartitionName=hid Default=NO Hidden=YES OverSubscribe=NO Nodes=sn1";;\n'
        '  "show config") echo "SlurmdPort = 1";;\n'
        'esac\n')
    (bin_dir / "scontrol").chmod(0o755)
    monkeypatch.setenv("PATH", "%s%s%s" % (bin_dir, os.pathsep, os.environ.get("PATH", "")))
    for var in ("SLURM_JOB_ID", "SLURM_JOB_NODELIST"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SLURM_PARTITION", "hid")
    out = SrunTransport(timeout=10)._preflight(["sn1"])
    assert "sn1" not in out or out["sn1"].error_kind != "not-in-partition", out["sn1"].error
    monkeypatch.setenv("SLURM_PARTITION", "gpu")  # a partition the node is not in: named so
    assert SrunTransport(timeout=10)._preflight(["sn1"]) == {}  # (no such partition: srun says so itself)


def test_one_node_whose_slurmd_is_stopped_is_a_slurmd_that_starts_nothing_not_a_timeout(ms):
    """`--nodes sn4` alone, sn4's slurmd stopped (SIGSTOP: alive, its port accepts, it answers
    nothing): the run waited its deadline, as it must, and read "timeout ... sshd hangs, or the
    collector hung there"; its shell never announced a task, so slurmd started nothing."""
    import os
    import signal

    stopped = ms.slurmd["sn4"]
    os.killpg(stopped.pid, signal.SIGSTOP)
    try:
        rc, nodes, err, took = check(ms, "sn4", timeout_s=10)
        # gpudoctor's job is cancelled (COMPLETING until sn4's slurmd answers, then gone); it stayed RUNNING on
        # sn4 after the slurmd came back, until its --time (2 minutes), holding a CPU
        left = ms.run("squeue", "-h", "-w", "sn4", "-o", "%T %j").stdout.split()
    finally:
        os.killpg(stopped.pid, signal.SIGCONT)
    try:
        assert "RUNNING" not in left, left
        ms.wait(lambda st: st["sn4"][0] == "IDLE", what="sn4 idle again")
    finally:
        ms.run("scancel", "--name=gpudoctor", "-w", "sn4")  # for the next test, whatever happened
    assert nodes["sn4"]["error_kind"] == "slurmd" and "did not start a task there" in nodes["sn4"]["error"], nodes
    assert rc == 1
