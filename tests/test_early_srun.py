"""The srun step started first thing (gpudoctor/early_srun.py): when, with which command line,
and that a step the transport does not take is stopped. No Slurm needed: a fake srun."""

import os
import stat
import time

import pytest

from gpudoctor import early_srun
from gpudoctor.inventory import Host
from gpudoctor.transport.srun import SrunTransport


@pytest.fixture
def alloc(tmp_path, monkeypatch):
    """An allocation of sn[1-4], a fake srun that waits (for its stdin) on PATH, a folder with
    no config."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    srun = bin_dir / "srun"
    srun.write_text("#!/bin/sh\nexec sleep 30\n")
    srun.chmod(srun.stat().st_mode | stat.S_IXUSR)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", "%s%s%s" % (bin_dir, os.pathsep, os.environ.get("PATH", "")))
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX", "GPUDOCTOR_CONFIG", "SLURM_SCRIPT_CONTEXT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    monkeypatch.setenv("SLURM_JOB_NODELIST", "sn[1-4]")
    yield work
    early_srun.discard()


def test_count_nodes_takes_plain_node_lists_and_refuses_the_rest():
    assert early_srun.count_nodes("sn[1-8]") == 8
    assert early_srun.count_nodes("gpu[01-04,07],login2") == 6
    assert early_srun.count_nodes("a,b") == 2
    for odd in ("", "a[1-2][3]", "a[2-1]", "a[1-", "a b", "a[x]"):
        assert early_srun.count_nodes(odd) is None, odd


def test_the_early_command_is_the_transports_own(alloc):
    cmd = early_srun.plan(["check", "--json", "--timeout", "20"], os.environ)
    hosts = [Host(name="sn%d" % i, source="$SLURM_JOB_NODELIST") for i in range(1, 5)]
    assert cmd is not None and early_srun._same(cmd, SrunTransport().command(hosts, "python3"))
    # another node list or another python is not the same step
    assert not early_srun._same(cmd, SrunTransport().command(hosts[:3], "python3"))
    assert not early_srun._same(cmd, SrunTransport().command(hosts, "/opt/env/bin/python"))


@pytest.mark.parametrize("argv, env", [
    (["check", "--hosts", "h.txt"], {}),
    (["check", "--local"], {}),
    (["facts", "-o", "out"], {}),
    (["check", "--nodes=sn1"], {}),
    (["check", "--via", "ssh"], {}),
    (["check", "--timeout"], {}),
    (["plan"], {}),
    (["check"], {"SLURM_SCRIPT_CONTEXT": "prolog_slurmd"}),
    (["check"], {"VIRTUAL_ENV": "/opt/env"}),
    (["check"], {"SLURM_JOB_NODELIST": "sn1"}),
    # past MAX_EARLY the transport starts the step with the first part in its environment
    (["check"], {"SLURM_JOB_NODELIST": "sn[1-%d]" % (early_srun.MAX_EARLY + 1)}),
    (["check"], {"GPUDOCTOR_PAYLOAD": "x"}),
])
def test_no_early_step_where_the_run_may_go_elsewhere(alloc, argv, env):
    assert early_srun.plan(argv, dict(os.environ, **env)) is None


def test_a_config_that_names_python_starts_no_early_step(alloc):
    assert early_srun.plan(["check"], os.environ) is not None
    (alloc / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.9"\n[tool.gpudoctor]\nstrict = true\n')
    assert early_srun.plan(["check"], os.environ) is not None
    (alloc / "gpudoctor.toml").write_text('python = "/opt/env/bin/python"\n')
    assert early_srun.plan(["check"], os.environ) is None


def test_a_step_nobody_takes_is_stopped_and_the_same_one_is_taken_once(alloc):
    early_srun.start(["check"])
    assert early_srun.started()
    proc = early_srun._state["proc"]
    other = list(early_srun._state["cmd"])
    other[1] = "--nodes=3"
    assert early_srun.take(other) is None and not early_srun.started()
    assert proc.wait(timeout=5) is not None  # SIGTERM ended the fake srun

    early_srun.start(["check"])
    cmd = list(early_srun._state["cmd"])
    cmd[4] = "--nodelist=sn1,sn[2-4]"  # the transport folds the names its own way: the same nodes
    got = early_srun.take(cmd)
    assert got is not None and early_srun.take(cmd) is None
    got.kill()
    got.wait(timeout=5)

    early_srun.start(["check"])
    proc = early_srun._state["proc"]
    t0 = time.time()
    early_srun.discard()  # what cli.main does when the run ends without taking it
    assert proc.poll() is not None and time.time() - t0 < 3
