"""What running gpudoctor as a user on a real 5-node Slurm found (slurm21), in-process: a fake
srun on PATH stands for Slurm. The same runs on the real multi-node bed are in
tests/test_slurm_multinode.py."""

import os
import stat

import pytest

from gpudoctor import cli, early_srun
from gpudoctor.transport import step_task


@pytest.fixture
def task_env(tmp_path, monkeypatch):
    """A task of step 7.0 of a job on sn[1-4] (the variables srun gives each task), a fake srun
    that leaves a mark when anything starts a step, a folder with no config."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mark = tmp_path / "srun-ran"
    srun = bin_dir / "srun"
    srun.write_text("#!/bin/sh\necho \"$@\" >> %s\nexit 1\n" % mark)
    srun.chmod(srun.stat().st_mode | stat.S_IXUSR)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", "%s%s%s" % (bin_dir, os.pathsep, os.environ.get("PATH", "")))
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX", "GPUDOCTOR_CONFIG", "SLURM_SCRIPT_CONTEXT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "sn[1-4]")
    monkeypatch.setenv("SLURM_STEP_ID", "0")
    monkeypatch.setenv("SLURM_STEP_NUM_TASKS", "4")
    yield mark
    early_srun.discard()


@pytest.mark.parametrize("argv", [["check", "--json"], ["facts"], ["watch", "--seconds", "1"],
                                  ["probe", "--mode", "tcp"], ["check", "--nodes", "sn[1-2]"],
                                  ["check", "--facts", "saved"]])
def test_a_task_other_than_the_first_of_a_step_reaches_no_node(task_env, monkeypatch, capsys, argv):
    """`srun gpudoctor check` in a 4-node job: each of the 4 tasks ran the whole run, into every
    node through a step of its own (4 JSON documents on one stdout; 4 probes sharing each link)."""
    monkeypatch.setenv("SLURM_PROCID", "2")
    assert step_task() == (2, 4, "7.0")
    assert early_srun.plan(argv, os.environ) is None
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert out == "" and err == ""
    assert not task_env.exists(), task_env.read_text()  # no srun step was started


def test_the_first_task_runs_and_says_so_and_local_runs_in_every_task(task_env, monkeypatch, capsys):
    monkeypatch.setenv("SLURM_PROCID", "0")
    assert early_srun.plan(["check"], os.environ) is not None  # task 0's run is the allocation's, as before
    assert cli._other_task(cli.build_parser(["check"]).parse_args(["check"])) is False
    assert "step 7.0 has 4 tasks: task 0 reaches the nodes for all of them" in capsys.readouterr().err
    monkeypatch.setenv("SLURM_PROCID", "3")
    for argv in (["check", "--local"], ["check", "--via", "local"], ["facts", "--local"]):
        assert cli._other_task(cli.build_parser(argv).parse_args(argv)) is False, argv


@pytest.mark.parametrize("env", [
    {},  # salloc's shell
    {"SLURM_PROCID": "0"},  # a batch script: SLURM_PROCID=0, no SLURM_STEP_ID (slurmd 22.05)
    {"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_SCRIPT_CONTEXT": "prolog_slurmd"},
    {"SLURM_STEP_ID": "0", "SLURM_PROCID": "x"},
])
def test_no_step_task_outside_a_steps_tasks(env):
    base = {"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "sn[1-4]"}
    assert step_task(dict(base, **env)) is None


def _sent_same_files(monkeypatch, argv):
    """The --same paths the collector is sent for this command line (the transport is stubbed)."""
    from gpudoctor import transport
    from gpudoctor.commands import common

    sent = []

    def run(tr, hosts, payload):
        sent.append(payload.options.get("same_files"))
        raise KeyboardInterrupt()  # gathered nothing: the command ends here

    monkeypatch.setattr(transport, "get_transport", lambda name, **settings: name)
    monkeypatch.setattr(common, "_run", run)
    monkeypatch.setattr(os, "_exit", lambda code: None)
    cli.main(argv)
    return sent[0]


def test_a_relative_same_path_through_srun_is_the_one_its_tasks_read(tmp_path, monkeypatch, capsys):
    """srun runs its tasks in this folder (not in the login folder, as ssh does): the relative
    `--same train.py` was reported as `train.py` with the fix `pdcp -w sn2 -- train.py train.py`,
    which copies into the node's login folder, where the job does not look."""
    for var in ("SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_STEP_ID", "SLURM_PROCID", "GPUDOCTOR_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    argv = ["check", "--no-history", "--select", "files.parity", "--nodes", "sn[1-2]", "--same", "train.py",
            "data/cfg.json", "/abs/x", "~/y"]
    srun = _sent_same_files(monkeypatch, argv + ["--via", "srun"])
    assert srun == [str(tmp_path / "train.py"), str(tmp_path / "data" / "cfg.json"), "/abs/x", "~/y"]
    # over ssh a relative path is the node's login folder's, as documented: sent as given
    assert _sent_same_files(monkeypatch, argv + ["--via", "ssh"]) == ["train.py", "data/cfg.json", "/abs/x", "~/y"]


@pytest.mark.parametrize("srun_says", [
    [b"srun: Job step aborted: Waiting up to 32 seconds for job step to finish."],
    [b"3: slurmstepd-sn4: error: *** STEP 33.0 ON sn4 CANCELLED AT 2026-11-27T18:23:05 DUE TO TIME LIMIT ***"],
])
def test_a_task_slurm_ended_is_slurms_doing_not_a_collector_crash(srun_says):
    """salloc given SIGINT without a terminal revoked the allocation while sn4's task ran (a
    real 4-node Slurm): sn4 was reported 'collector exited 1: (no message on stderr)'. The
    lines are what srun and slurmstepd 22.05 printed there (and for a time limit)."""
    from gpudoctor.transport.srun import SrunTransport

    t = SrunTransport(timeout=10)
    tasks, lines = {}, []
    t._lines([b"3: gpudoctor-task sn4", b"2: gpudoctor-task sn3"], None, False, tasks, lines)
    t._lines(srun_says + [b"srun: error: sn4: task 3: Terminated",
                          b"srun: error: sn3: task 2: Exited with exit code 1"], None, True, tasks, lines)
    got = t._results(["sn3", "sn4"], tasks, lines, "python3", final=True)
    assert got["sn4"].error_kind == "slurm" and "Slurm ended the step" in got["sn4"].error, got["sn4"].error
    assert "task: Terminated" in got["sn4"].error
    # a task that exited by itself stays the collector's failure
    assert got["sn3"].error_kind == "collector" and "exited 1" in got["sn3"].error


def test_the_probe_starts_no_worker_where_slurm_cannot_start_one(monkeypatch):
    """`salloc -N4 gpudoctor probe` with sn4's slurmd stopped (SIGSTOP): the facts round said
    `slurmd` for sn4, yet a worker was started there; it was reported 'hang: ... a hung
    interpreter or node' (fix: run `python3 -c 1` there) and 'probe processes may be left on
    sn4' though no process ever started there, and the run went 3 s past its budget. Now the
    node keeps its Slurm error, and no worker starts or is cleaned up there."""
    from gpudoctor.probe import findings, launch, run

    started, cleaned = [], []
    real_start, real_cleanup = launch.LocalTransport.start, launch.LocalTransport.cleanup

    def start(self, host, *a, **k):
        started.append(host)
        return real_start(self, host, *a, **k)

    def cleanup(self, host, *a, **k):
        cleaned.append(host)
        return real_cleanup(self, host, *a, **k)

    monkeypatch.setattr(launch.LocalTransport, "start", start)
    monkeypatch.setattr(launch.LocalTransport, "cleanup", cleanup)
    err = "slurmd did not start a task there within 6s (alive but not answering: stopped, or stuck in the kernel)"
    doc = run.probe(["sn1", "sn4"], launch.LocalTransport(), mode="tcp", budget=10, unreached={"sn4": ("slurmd", err)})
    assert "sn4" not in started and "sn4" not in cleaned and "sn1" in started, (started, cleaned)
    nodes = dict((n["host"], n) for n in doc["nodes"])
    assert nodes["sn4"]["error_kind"] == "slurmd" and nodes["sn4"]["error"] == err
    failed = [f for f in findings.evaluate(doc, {}) if f.check == "probe.node.failed"]
    assert len(failed) == 1 and "(slurmd)" in failed[0].message and "stopped" in failed[0].fix, failed


def test_the_probes_facts_round_hands_on_the_nodes_slurm_could_not_reach(monkeypatch):
    import argparse

    from gpudoctor import transport
    from gpudoctor.commands import probe
    from gpudoctor.node import Node

    got = [Node("sn1", facts={"node": "sn1"}), Node("sn2", error="Slurm lists the node as DOWN", error_kind="node-down"),
           Node("sn3", error="not facts JSON: 'Welcome'", error_kind="garbage")]
    monkeypatch.setattr(transport, "run", lambda hosts, payload, **kw: got)
    args = argparse.Namespace(python=None, via=None, ssh_config=None, host_key_policy=None)
    facts, unreached = probe._gather_facts([], args, {"budget": 30})
    assert facts == {"sn1": {"node": "sn1"}}
    # only Slurm's reasons: a node that answered with garbage still gets its worker (and its own error)
    assert unreached == {"sn2": ("node-down", "Slurm lists the node as DOWN")}


def test_a_node_whose_cpus_running_jobs_hold_is_busy_outside_an_allocation(tmp_path, monkeypatch):
    """`gpudoctor check --via srun --nodes sn[1-4]` while an --exclusive job held sn1 (a real
    4-node Slurm): gpudoctor's own job waited in the queue, and every node was reported as a hung
    slurmd ('slurmd did not start a task there within 5s'); so was sn2 beside a --mem=0 job with
    SelectTypeParameters=CR_Core_Memory (1 CPU of 2 free, AllocMem=500 of RealMemory=500). The
    scontrol lines are 22.05's."""
    from gpudoctor.transport.srun import FALLBACK_KINDS, SrunTransport

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    line = ("NodeName=sn%d Arch=x86_64 CoresPerSocket=2 CPUAlloc=%d CPUEfctv=2 CPUTot=2 CPULoad=0.5 "
            "AvailableFeatures=(null) State=%s ThreadsPerCore=1")
    scontrol = bin_dir / "scontrol"
    # sn4: a --mem=0 job where memory is consumable (CR_Core_Memory): 1 CPU free, no memory
    mem = " RealMemory=%d AllocMem=%d"
    scontrol.write_text("#!/bin/sh\ncat <<'EOF'\n%s\n%s\n%s\n%s\nEOF\n" % (
        line % (1, 2, "ALLOCATED") + mem % (500, 0), line % (2, 1, "MIXED") + mem % (500, 100),
        line % (3, 0, "IDLE") + mem % (500, 0), line % (4, 1, "MIXED") + mem % (500, 500)))
    scontrol.chmod(0o755)
    monkeypatch.setenv("PATH", "%s%s%s" % (bin_dir, os.pathsep, os.environ.get("PATH", "")))
    for var in ("SLURM_JOB_ID", "SLURM_JOB_NODELIST"):
        monkeypatch.delenv(var, raising=False)
    out = SrunTransport(timeout=10)._preflight(["sn1", "sn2", "sn3", "sn4"])
    assert sorted(out) == ["sn1", "sn4"] and out["sn1"].error_kind == out["sn4"].error_kind == "node-busy", out
    assert "CPUAlloc=2 of CPUTot=2" in out["sn1"].error and "node-busy" in FALLBACK_KINDS
    assert "AllocMem=500 of RealMemory=500 MB" in out["sn4"].error
    # inside the job that holds it, the node runs the job's steps (--overlap): not busy
    monkeypatch.setenv("SLURM_JOB_ID", "40")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "sn[1-4]")
    assert SrunTransport(timeout=10)._preflight(["sn1", "sn2", "sn3", "sn4"]) == {}


def test_a_node_gpudoctors_own_job_stays_queued_for_is_busy_not_a_hung_slurmd(tmp_path, monkeypatch):
    """With CR_Core_Memory and no DefMemPerCPU a job asks for all of a node's memory: beside a
    --mem=100 job on sn2 (MIXED, AllocMem=100 of 500) gpudoctor's own job stayed queued, and sn2
    (with sn1 and sn4 on one run) was reported as a hung slurmd. The node tried alone now says
    whether srun's job was queued ("srun: job 86 queued and waiting for resources", 22.05)."""
    from gpudoctor.inventory import Host
    from gpudoctor.transport.srun import SrunTransport

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    srun = bin_dir / "srun"
    srun.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in --nodelist=*) n=${a#--nodelist=};; esac; done\n'
                    'case "$n" in\n  sn1) exit 0;;\n'
                    '  sn2) echo "srun: job 86 queued and waiting for resources" >&2; exec sleep 30;;\n'
                    '  *) exec sleep 30;;\nesac\n')
    srun.chmod(0o755)
    monkeypatch.setenv("PATH", "%s%s%s" % (bin_dir, os.pathsep, os.environ.get("PATH", "")))
    for var in ("SLURM_JOB_ID", "SLURM_JOB_NODELIST"):
        monkeypatch.delenv(var, raising=False)
    # 2 s: sn1's srun ends at once; sn2 and sn3 wait it out together (a loaded machine starts sh late)
    ok, hung, queued = SrunTransport(timeout=10)._isolate([Host(name="sn%d" % i) for i in (1, 2, 3)], 2.0)
    assert [[h.name for h in x] for x in (ok, hung, queued)] == [["sn1"], ["sn3"], ["sn2"]]


def test_the_memlock_fix_in_a_slurm_job_inside_a_container_names_slurmd_too():
    """The bed runs in a docker container (a real /.dockerenv); sn4's slurmd ran under a 64 KiB
    memlock, which every task of a job gets (below the container's 8 MiB). The fix said only
    `docker run --ulimit memlock=-1:-1`, which would not change sn4."""
    from conftest import node_facts, patched, run_check

    dev = node_facts("devbox-debian12-nogpu")
    low = {"memlock": {"soft": 65536, "hard": 65536, "unit": "bytes"}, "source": "/proc/self/limits", "status": "ok"}
    base = patched(dev, host={"container": "docker"}, limits=low, rdma={"devices": [{"name": "mlx5_0", "ports": []}]})
    for where in ({"values": {"SLURM_JOB_ID": "12"}, "hashed": {}},  # a job's task (srun)
                  {"values": {}, "hashed": {"SLURMD_NODENAME": "x"}}):  # a prolog / HealthCheckProgram
        fix = run_check("limits.memlock", patched(base, env=dict(where, status="ok"))).findings[0].fix
        assert "docker run --ulimit memlock=-1:-1" in fix and "LimitMEMLOCK=infinity" in fix, fix
        assert "limits.conf" not in fix  # a login's limits are not the job's
    # outside Slurm, the container's flag alone (issue 20)
    fix = run_check("limits.memlock", patched(base, env={"values": {}, "hashed": {}, "status": "ok"})).findings[0].fix
    assert "docker run" in fix and "LimitMEMLOCK" not in fix
