"""slurm23: gpudoctor walked by hand, round 2, on the real 4-node Slurm (the session's
`multislurm` fixture, tests/slurmcluster.py: one slurmctld, one slurmd per network namespace;
sn3 has a 64 MiB /dev/shm). What failed there, kept as tests; each failed on the tree before
its fix. docs/slurm.md, "Walked by hand, round 2"."""

import json
import os
import subprocess
import sys

import pytest

GD = [sys.executable, "-m", "gpudoctor"]


@pytest.fixture
def ms(multislurm, tmp_path):
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


def nodes_of(stdout):
    return dict((n["host"], n) for n in json.loads(stdout)["nodes"])


def inside(ms, alloc, shell, env=None, timeout=90):
    """``salloc ALLOC sh -c SHELL`` (GD: this gpudoctor's command line, quoted)."""
    gd = " ".join("'%s'" % w for w in GD)
    try:
        return ms.run(*(["salloc"] + list(alloc) + ["-t", "3", "sh", "-c", shell.replace("GD", gd)]),
                      env=env, timeout=timeout, cwd=ms.cwd)
    except subprocess.TimeoutExpired as e:
        # ci28f: a heterogeneous salloc stayed "queued and waiting for resources" for 90 s once;
        # say what the queue, the nodes and slurmctld said then, so a recurrence can be read
        raise AssertionError("salloc %s timed out: %s\nsqueue: %s\nnodes: %s\nslurmctld: %s" % (
            alloc, e.stderr, ms.run("squeue", "-h", "-o", "%A %T %r %N").stdout, ms.states(),
            "\n".join(ms.log_tail(40)))) from None


def test_a_heterogeneous_job_is_checked_on_every_component(ms):
    """`salloc -N1 : -N2` sets no SLURM_JOB_NODELIST, only SLURM_JOB_NODELIST_HET_GROUP_0/1:
    `gpudoctor check` inside it checked this machine alone ('1 node (vm)'), and a step over
    the three nodes without --het-group fails ("Only allocated 1 nodes asked for 3"). Now one
    step with a component per job component reaches sn1 and sn[2-3]; --nodes of one component
    reaches that one."""
    p = inside(ms, ["-N1", ":", "-N2"], 'GD check --json --select shm > all.json; echo rc=$? >&2; '
               'GD check --json --select shm --nodes "$SLURM_JOB_NODELIST_HET_GROUP_1" > one.json')
    with open(os.path.join(ms.cwd, "all.json")) as f:
        doc = json.load(f)
    every = dict((n["host"], n) for n in doc["nodes"])
    with open(os.path.join(ms.cwd, "one.json")) as f:
        one = nodes_of(f.read())
    assert sorted(every) == ["sn1", "sn2", "sn3"], (every, p.stderr)
    assert all(n["reachable"] and n.get("via") == "srun" for n in every.values()), (every, p.stderr)
    shm = next(c for c in doc["checks"] if c["id"] == "shm.size")
    assert shm["by_status"] == {"fail": "sn3", "pass": "sn[1-2]"}, shm  # sn3's own 64 MiB /dev/shm: its own task
    assert "rc=1" in p.stderr  # sn3's small /dev/shm fails shm.size
    assert sorted(one) == ["sn2", "sn3"] and all(n["reachable"] for n in one.values()), (one, p.stderr)


def test_a_heterogeneous_batch_job_is_checked_on_every_component(ms):
    """The batch script of `#SBATCH hetjob` has SLURM_JOB_NODELIST of component 0 only (sn1):
    gpudoctor checked sn1 alone there."""
    script = os.path.join(ms.cwd, "het.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n#SBATCH -N1 -t 3\n#SBATCH hetjob\n#SBATCH -N2\n%s check --json --select shm > het.json\n"
                % " ".join("'%s'" % w for w in GD))
    p = ms.run("sbatch", "--wait", "-o", "het.out", script, timeout=120, cwd=ms.cwd)
    with open(os.path.join(ms.cwd, "het.json")) as f:
        nodes = nodes_of(f.read())
    assert sorted(nodes) == ["sn1", "sn2", "sn3"], (nodes, p.stderr)
    assert all(n["reachable"] for n in nodes.values()), nodes


def test_a_heterogeneous_job_probes_every_pair_across_its_components(ms):
    """`gpudoctor probe` in `salloc -N1 : -N1`: its workers (one srun per worker) ran in
    component 0 only before, and the node of component 1 was checked as this machine's."""
    p = inside(ms, ["-N1", "-w", "sn1", ":", "-N1", "-w", "sn2"], "GD probe --mode tcp --json", timeout=120)
    doc = json.loads(p.stdout)
    assert doc["transport"] == "srun" and [n["host"] for n in doc["nodes"]] == ["sn1", "sn2"], doc
    assert all(n["reachable"] for n in doc["nodes"]), doc["nodes"]
    assert any({q["a"], q["b"]} == {"sn1", "sn2"} and q["gbps"] and not q["error"] for q in doc["pairs"]), doc
    assert p.returncode == 0 and doc["exit_code"] == 0, (doc["findings"], p.stderr[-2000:])


@pytest.mark.parametrize("name, value", [
    ("SLURM_UNBUFFEREDIO", "1"),  # every node 'garbage': broken frame (--unbuffered cut the frames)
    ("SLURM_STDOUTMODE", "out-%t.txt"),  # every node 'slurm': srun ran no task there: srun exited 0
    ("SLURM_MPI_TYPE", "pmix"),  # no pmix plugin here: task launch failed
    ("SLURM_EXPORT_ENV", "NONE"),  # no PATH: execve(): sh: No such file or directory -> python-missing
    ("SLURM_GPUS_PER_TASK", "1"),  # sbatch --gpus-per-task exports it; the step took one task's share
])
def test_srun_variables_a_user_sets_do_not_reshape_gpudoctors_own_step(ms, name, value):
    """srun reads its options from SLURM_* variables (srun(1), INPUT ENVIRONMENT VARIABLES) that
    users set for their own steps; inside `salloc -N2` each one below left both nodes unchecked."""
    p = inside(ms, ["-N2"], "GD check --json --select shm", env={name: value})
    nodes = nodes_of(p.stdout)
    assert sorted(nodes) == ["sn1", "sn2"], (p.stdout[-2000:], p.stderr[-2000:])
    assert all(n["reachable"] for n in nodes.values()), nodes
    assert p.returncode == 0, p.stderr
    assert not any(f.startswith("out-") for f in os.listdir(ms.cwd))


def test_a_node_that_died_under_slurm_is_a_slurmd_out_of_reach_not_a_slurm_error(ms):
    """sn2's slurmd killed and its link down (a node that died): slurmctld still lists it IDLE
    (SlurmdTimeout), its port neither refuses nor answers, and srun's task launch fails with
    'Communication connection failure'. It was `slurm` with a hint about scancel and revoked
    allocations; now `slurmd`, out of reach, and the other nodes checked."""
    link = "gds%s2h" % ms.tag
    ms.kill_slurmd("sn2")
    subprocess.run(["ip", "link", "set", link, "down"], check=True, timeout=10)
    try:
        p = ms.run(*(GD + ["check", "--via", "srun", "--nodes", "sn[1-2]", "--json", "--select", "shm",
                           "--timeout", "30"]), timeout=90, cwd=ms.cwd)
    finally:
        subprocess.run(["ip", "link", "set", link, "up"], timeout=10)
    nodes = nodes_of(p.stdout)
    assert nodes["sn1"]["reachable"], nodes
    assert nodes["sn2"]["error_kind"] == "slurmd", nodes["sn2"]
    assert "Communication connection failure" in nodes["sn2"]["error"], nodes["sn2"]
    assert p.returncode == 1


def test_a_heterogeneous_jobs_step_has_one_component_per_job_component(monkeypatch):
    """The words of the step (no Slurm needed): the nodes of each component of the job, in the
    job's order, each with its own --het-group, --nodes and --nodelist; a node of no component
    is left to the preflight (not-allocated)."""
    import shutil

    from gpudoctor.inventory import Host
    from gpudoctor.transport import het_groups, in_allocation, job_nodelist
    from gpudoctor.transport.srun import SrunTransport

    if not shutil.which("srun"):
        pytest.skip("srun is not installed")
    for k in list(os.environ):
        if k.startswith("SLURM_"):
            monkeypatch.delenv(k)
    env = {"SLURM_JOB_ID": "4", "SLURM_HET_SIZE": "2", "SLURM_JOB_NODELIST_HET_GROUP_0": "sn1",
           "SLURM_JOB_NODELIST_HET_GROUP_1": "sn[2-3]"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert in_allocation() and job_nodelist() == ("sn1,sn[2-3]", "$SLURM_JOB_NODELIST_HET_GROUP_0..1")
    assert het_groups() == [(0, ["sn1"]), (1, ["sn2", "sn3"])]
    cmd = SrunTransport(timeout=10).command([Host(name=n) for n in ("sn3", "sn1", "sn2")], "python3")
    cut = cmd.index(":")
    first, second = cmd[1:cut], cmd[cut + 1:]
    assert first[:5] == ["--het-group=0", "--nodes=1", "--ntasks=1", "--ntasks-per-node=1", "--nodelist=sn1"], cmd
    assert second[:5] == ["--het-group=1", "--nodes=2", "--ntasks=2", "--ntasks-per-node=1",
                          "--nodelist=sn[2-3]"], cmd
    assert "--overlap" in first and "--mpi=none" in second and second[-5] == "/bin/sh", cmd
    monkeypatch.setenv("SLURM_HET_SIZE", "x")  # malformed: no heterogeneous job, and no allocation
    assert het_groups() == [] and not in_allocation()


def test_check_slurm_outside_a_job_checks_the_partitions_nodes_through_srun(ms):
    """`gpudoctor check --slurm` was no option (exit 2, 'unrecognized arguments'). It is --via srun,
    and outside a job with no --nodes the nodes of the partition srun's job goes to: the default
    one, or $SLURM_PARTITION's (a hidden one too), said in one line on stderr."""
    def run(*args, env=None):
        return ms.run(*(GD + ["check", "--slurm", "--select", "shm", "--json"] + list(args)), env=env, timeout=90,
                      cwd=ms.cwd)

    p = run()
    nodes = nodes_of(p.stdout)
    assert sorted(nodes) == ["sn1", "sn2", "sn3", "sn4"], (p.stdout[-2000:], p.stderr)
    assert all(n["reachable"] and n["via"] == "srun" for n in nodes.values()), nodes
    assert p.returncode == 1 and "--slurm: the nodes of partition debug: sn[1-4]" in p.stderr, p.stderr
    p = run(env={"SLURM_PARTITION": "front"})
    assert sorted(nodes_of(p.stdout)) == ["sn1", "sn2"] and p.returncode == 0, (p.stdout[-2000:], p.stderr)
    for args, env, said in ((["--via", "ssh"], None, "--slurm is --via srun"),
                            (["--local"], None, "--local checks this machine only"),
                            ([], {"SLURM_PARTITION": "nosuch"}, "SLURM_PARTITION names 'nosuch'")):
        p = run(*args, env=env)
        assert p.returncode == 2 and said in p.stderr and len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)
        assert p.stdout == ""


def test_check_slurm_inside_a_job_checks_the_jobs_nodes_and_busy_nodes_are_named_per_node(ms):
    """Inside `salloc -N2` --slurm is the job's nodes; outside, a partition whose every node an
    exclusive job holds gives every node `node-busy` (no step waits in the queue)."""
    p = inside(ms, ["-N2"], "GD check --slurm --select shm --json")
    assert sorted(nodes_of(p.stdout)) == ["sn1", "sn2"] and p.returncode == 0, (p.stdout[-2000:], p.stderr)
    job = ms.run("sbatch", "--parsable", "--exclusive", "-N4", "-o", "/dev/null", "--wrap", "sleep 300",
                 check=True).stdout.strip()
    try:
        ms.wait(lambda st: all(st[n][0].startswith("ALLOCATED") for n in ms.names), what="every node allocated")
        p = ms.run(*(GD + ["check", "--slurm", "--select", "shm", "--json"]), timeout=90, cwd=ms.cwd)
    finally:
        ms.run("scancel", job)
    nodes = nodes_of(p.stdout)
    assert sorted(nodes) == ms.names and all(n["error_kind"] == "node-busy" for n in nodes.values()), nodes
    assert p.returncode == 1


def gres(ms):
    if not ms.gres:
        pytest.skip("no /dev/tty1 and /dev/tty2 to stand for sn1's and sn2's GPU device files")


def test_gpudoctors_step_in_a_job_of_gpus_per_task_sees_every_gpu_of_the_job(ms, tmp_path):
    """sbatch/salloc --gpus-per-task=1 exports SLURM_GPUS_PER_TASK=1 to the job's steps; gpudoctor's
    step (one task per node) took one task's share: CUDA_VISIBLE_DEVICES=0 of the node's 0,1 that the
    job holds (SLURM_STEP_GPUS=0). It now gets every GPU of the job (srun(1) --gres)."""
    gres(ms)
    p = inside(ms, ["-N1", "-w", "sn1", "--gres=gpu:2", "--ntasks-per-node=2", "--gpus-per-task=1"],
               "GD facts --via srun -o f.json")
    with open(os.path.join(ms.cwd, "f.json")) as f:
        values = json.load(f)["env"]["values"]
    assert values.get("CUDA_VISIBLE_DEVICES") == "0,1" and values.get("SLURM_STEP_GPUS") == "0,1", (values, p.stderr)


@pytest.mark.parametrize("name, value, fit", [
    ("SLURM_CONSTRAINT", "a100", ["sn1", "sn2"]),
    ("SLURM_GPUS_PER_NODE", "1", ["sn1", "sn2"]),
    ("SLURM_GRES", "gpu:2", ["sn1", "sn2"]),
    ("SLURM_CONSTRAINT", "a100|cpuonly", ["sn1", "sn2", "sn3", "sn4"]),
])
def test_nodes_that_lack_the_features_or_gpus_the_user_asks_for_are_named_and_the_others_checked(ms, name, value,
                                                                                                  fit):
    """A cluster of GPU (sn[1-2], a100, gpu:2) and CPU nodes (sn[3-4], cpuonly) in one partition, and a
    user who exports what their jobs ask for: srun refused gpudoctor's whole job over sn[1-4]
    ("Requested node configuration is not available"), and every node was `slurm`. Now the nodes
    that lack it are `not-eligible`, saying which variable and what the node has; the others run."""
    gres(ms)
    p = ms.run(*(GD + ["check", "--via", "srun", "--nodes", "sn[1-4]", "--select", "shm", "--json"]),
               env={name: value}, timeout=90, cwd=ms.cwd)
    nodes = nodes_of(p.stdout)
    for h, n in nodes.items():
        if h in fit:
            assert n["reachable"], (h, n, p.stderr)
        else:
            assert n["error_kind"] == "not-eligible" and "%s=%s" % (name, value) in n["error"], (h, n)
    assert p.returncode == 1  # sn3's /dev/shm, or the nodes left out


@pytest.mark.parametrize("env, features, gpus", [
    ({"SLURM_CONSTRAINT": "a100"}, ("&", ["a100"]), None),
    ({"SLURM_CONSTRAINT": "a100&ib"}, ("&", ["a100", "ib"]), None),
    ({"SLURM_CONSTRAINT": "a100|h100"}, ("|", ["a100", "h100"]), None),
    ({"SLURM_CONSTRAINT": "[a100|h100]"}, None, None),  # matching OR: srun decides
    ({"SLURM_CONSTRAINT": "a100*2"}, None, None),  # a count: srun decides
    ({"SLURM_CONSTRAINT": "a100&ib|h100"}, None, None),  # mixed operators: srun decides
    ({"SLURM_GPUS_PER_NODE": "4"}, None, (None, 4)),
    ({"SLURM_GPUS_PER_NODE": "a100:4"}, None, ("a100", 4)),
    ({"SLURM_GPUS_PER_TASK": "1"}, None, (None, 1)),
    ({"SLURM_GRES": "gpu:a100:2"}, None, ("a100", 2)),
    ({"SLURM_GRES": "gpu:2,nvme:1"}, None, (None, 2)),
    ({"SLURM_GRES": "nvme:1"}, None, None),
    ({"SLURM_GPUS_PER_NODE": "0"}, None, None),
    ({"SLURM_GPUS": "8"}, None, (None, 1)),  # for the whole job: at least one on each node (slurm27, the bed)
])
def test_what_gpudoctors_own_job_asks_of_each_node(env, features, gpus):
    from gpudoctor.transport.srun import job_request

    f, g = job_request(env)
    assert (f[:2] if f else None) == features and (g[:2] if g else None) == gpus


def test_a_nodes_gpus_are_read_from_scontrols_gres():
    from gpudoctor.transport.srun import node_gpus

    assert node_gpus("(null)") == {None: 0}
    assert node_gpus("gpu:2") == {None: 2}
    assert node_gpus("gpu:a100:4(S:0-1)") == {None: 4, "a100": 4}
    assert node_gpus("gpu:a100:2(S:0),gpu:h100:1(S:1),nvme:1") == {None: 3, "a100": 2, "h100": 1}


@pytest.mark.parametrize("name", ["SLURM_EXCLUSIVE", "SLURM_NO_KILL"])
def test_an_srun_option_refused_from_the_environment_names_the_variable(ms, name):
    """`SLURM_EXCLUSIVE=1` (srun wants user/mcs/...) or `SLURM_NO_KILL=1` exported: srun refuses
    gpudoctor's step with "Invalid --exclusive specification", an option gpudoctor never passed.
    The node's error now names the variable it came from."""
    p = ms.run(*(GD + ["check", "--via", "srun", "--nodes", "sn1", "--select", "shm", "--json"]),
               env={name: "1"}, timeout=90, cwd=ms.cwd)
    n = nodes_of(p.stdout)["sn1"]
    assert n["error_kind"] == "slurm" and "Invalid --" in n["error"], n
    assert "srun read it from %s=1 in the environment" % name in n["error"], n


def test_a_slow_nodes_finding_names_each_peer_once():
    """The 4-node bed with sn2's link shaped to 100 Mbit/s (tc tbf): sn3<->sn2 was measured again in
    pass 2, and the finding listed sn3 twice ("sn3 0.095, sn1 0.095, sn3 0.096"). One number per
    peer now, its best pass. The pairs are the bed's (probe --json)."""
    from gpudoctor.probe import findings

    pairs = [{"a": "sn2", "b": "sn3", "gbps": 0.095, "pass": 1}, {"a": "sn1", "b": "sn2", "gbps": 0.095, "pass": 1},
             {"a": "sn1", "b": "sn3", "gbps": 10.4, "pass": 1}, {"a": "sn3", "b": "sn2", "gbps": 0.096, "pass": 2}]
    doc = {"mode": "tcp", "pairs": [dict(p, transport="tcp", error=None, error_kind=None, blame=None) for p in pairs],
           "nodes": [{"host": h, "reachable": True} for h in ("sn1", "sn2", "sn3")],
           "isolation": {"median_gbps": 10.4, "slow_nodes": ["sn2"], "slow_links": []}}
    (f,) = [x for x in findings.evaluate(doc, {}) if x.check == "probe.node.slow"]
    assert f.message.startswith("sn2 is slow with every peer: sn3 0.096, sn1 0.095 (Gbit/s;"), f.message


def test_check_slurm_inside_a_job_starts_the_early_step_as_via_srun_does():
    """Inside an allocation `check --slurm` is `check --via srun`: the step cli.main starts first
    (early_srun.py) is planned for it too (it was not: an unknown word stopped the plan)."""
    import shutil

    from gpudoctor import early_srun

    if not shutil.which("srun"):
        pytest.skip("srun is not installed")
    env = {"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "sn[1-3]", "PATH": os.environ.get("PATH", "")}
    assert early_srun.plan(["check", "--slurm"], env) == early_srun.plan(["check", "--via", "srun"], env) is not None


def test_nodes_of_a_partition_an_admin_set_down_are_named_so_at_once(ms):
    """`scontrol update partitionname=front state=down` (maintenance), SLURM_PARTITION=front: Slurm
    queues gpudoctor's job (Reason=PartitionDown) and every node was `node-busy` after the stall,
    'running jobs hold the node's CPUs'. Now `partition-down` from scontrol before any job; with
    another partition beside it (front,debug) srun may go there, and the nodes are checked."""
    ms.run("scontrol", "update", "partitionname=front", "state=down", check=True)
    try:
        p = ms.run(*(GD + ["check", "--via", "srun", "--nodes", "sn[1-2]", "--select", "shm", "--json"]),
                   env={"SLURM_PARTITION": "front"}, timeout=90, cwd=ms.cwd)
        q = ms.run(*(GD + ["check", "--via", "srun", "--nodes", "sn[1-2]", "--select", "shm", "--json"]),
                   env={"SLURM_PARTITION": "front,debug"}, timeout=90, cwd=ms.cwd)
    finally:
        ms.run("scontrol", "update", "partitionname=front", "state=up", check=True)
    nodes = nodes_of(p.stdout)
    assert all(n["error_kind"] == "partition-down" and "partition front" in n["error"] for n in nodes.values()), nodes
    assert all(n["reachable"] for n in nodes_of(q.stdout).values()), q.stdout[-2000:]


def test_a_node_that_died_mid_probe_is_not_just_ok_in_the_probes_node_list():
    """sn2's slurmd killed and its link down 6 s into `salloc -N3 gpudoctor probe --mode tcp` on the bed:
    the node list still read "sn2 ok (python 3.11.7, no GPU)" above sn2's probe.node.failed. It says
    that it failed later now; the nodes that did not fail read as before."""
    import io

    from gpudoctor.probe import findings, report

    doc = {"mode": "tcp", "budget_s": 120, "elapsed_s": 42.3,
           "nodes": [{"host": h, "reachable": True, "error_kind": None, "python": "3.11.7"} for h in ("sn1", "sn2")],
           "pairs": [{"a": "sn1", "b": "sn2", "gbps": None, "transport": "tcp", "error_kind": "died", "blame": "sn2",
                      "error": "worker ended (exit 233) without a result: srun: error: Task launch for StepId=19.11 "
                               "failed on node sn2: Communication connection failure", "pass": 1}],
           "isolation": {"slow_nodes": [], "slow_links": []}}
    found = findings.evaluate(doc, {})
    assert any(f.check == "probe.node.failed" and f.hosts == ["sn2"] for f in found), found
    out = io.StringIO()
    report.render_text(doc, found, out)
    lines = out.getvalue().splitlines()
    assert "  sn2              ok (python 3.11.7, no GPU); then failed mid-probe (probe.node.failed below)" in lines
    assert "  sn1              ok (python 3.11.7, no GPU)" in lines
