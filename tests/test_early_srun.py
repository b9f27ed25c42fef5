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
    opts = early_srun._state["options"]  # where the step carries the first part (a cached blob)
    got = early_srun.take(cmd, opts)
    assert got is not None and early_srun.take(cmd, opts) is None
    got[0].kill()
    got[0].wait(timeout=5)

    early_srun.start(["check"])
    proc = early_srun._state["proc"]
    early_srun.discard()  # what cli.main does when the run ends without taking it
    # a state, not the clock: the step is gone when discard returns (SIGTERM, SIGKILL after its 1 s grace); a
    # wall-clock bound on it (< 3 s) was a timed test (suite27)
    assert proc.poll() is not None


def _carrying(alloc, tmp_path, monkeypatch):
    """A fake srun that keeps the GPUDOCTOR_PAYLOAD it was started with; a private blob cache."""
    from gpudoctor import blobcache

    srun = tmp_path / "bin" / "srun"
    srun.write_text('#!/bin/sh\nprintf %%s "${GPUDOCTOR_PAYLOAD-none}" > %s\nexec sleep 30\n' % (tmp_path / "seen"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(blobcache, "_read", {})
    return tmp_path / "seen"


def _seen(path):
    t0 = time.time()
    while not (path.exists() and path.read_text()) and time.time() - t0 < 10:
        time.sleep(0.02)
    return path.read_text()


def test_the_early_step_carries_the_first_part_with_the_runs_key(alloc, tmp_path, monkeypatch):
    """With the collector's blob in the cache, the step starts with the first part in its
    environment, built of the options gather_nodes gives the run (the job's nodes to resolve,
    the key made here, which the run then uses); taken only by a run of those very options."""
    import base64

    from gpudoctor import blobcache
    from gpudoctor.commands import common
    from gpudoctor.transport.srun import PAYLOAD_ENV, first_part

    seen = _carrying(alloc, tmp_path, monkeypatch)
    early_srun.start(["facts"])
    assert _seen(seen) == "none" and early_srun.key() is None  # no cached blob yet: stdin, as before
    early_srun.discard()
    blobcache.parts(blobcache.left_out({}, {}))  # built and cached (what a first run does)
    seen.unlink()
    early_srun.start(["facts"])
    key = early_srun.key()
    assert key and len(key) == 64 and PAYLOAD_ENV not in os.environ
    stub = early_srun._state["stub"]
    assert base64.b64decode(_seen(seen)) == stub[:first_part(stub)] and key.encode() in stub
    # what gather_nodes would give the transport for this allocation
    hosts = [Host(name="sn%d" % i, source="$SLURM_JOB_NODELIST") for i in range(1, 5)]
    captured = {}

    class Tr(object):
        name = "srun"

        def run(self, hosts_, payload):
            captured.update(payload.options)
            return []

    monkeypatch.setattr(common, "_run", lambda tr, h, payload: Tr().run(h, payload))

    class Args(object):
        via = None

    monkeypatch.setattr("gpudoctor.inventory.resolve", lambda **kw: hosts)
    common.gather_nodes(Args(), type("Cfg", (), {"timeout": 30.0, "python": None})())
    assert captured == {"resolve": ["sn1", "sn2", "sn3", "sn4"], "env_key": key}
    cmd = SrunTransport().command(hosts, "python3")
    proc = early_srun._state["proc"]
    assert early_srun.take(cmd, dict(captured, env_key="0" * 64)) is None  # another key: stopped
    assert proc.wait(timeout=5) is not None and early_srun.key() is None

    seen.unlink()
    early_srun.start(["facts"])
    opts = dict(early_srun._state["options"])
    got = early_srun.take(cmd, opts, {})
    assert got is not None and key.encode() not in got[1] and base64.b64decode(got[2]) == got[1][:first_part(got[1])]
    got[0].kill()
    got[0].wait(timeout=5)


def test_no_first_part_in_the_early_step_where_history_may_set_the_key(alloc, tmp_path, monkeypatch):
    from gpudoctor import blobcache

    seen = _carrying(alloc, tmp_path, monkeypatch)
    blobcache.parts(blobcache.left_out({}, {}))
    (alloc / "gpudoctor.toml").write_text("history = true\n")
    early_srun.start(["check"])
    assert early_srun.started() and _seen(seen) == "none" and early_srun.key() is None


def test_an_environment_without_room_starts_the_early_step_without_it(alloc, tmp_path, monkeypatch):
    """execve's E2BIG (the environment has no room for the first part): the step starts
    without it, the first part then goes on stdin."""
    import errno
    import subprocess

    from gpudoctor import blobcache
    from gpudoctor.transport.srun import PAYLOAD_ENV

    seen = _carrying(alloc, tmp_path, monkeypatch)
    blobcache.parts(blobcache.left_out({}, {}))
    real = subprocess.Popen

    def popen(cmd, **kw):
        if PAYLOAD_ENV in (kw.get("env") or {}):
            raise OSError(errno.E2BIG, "Argument list too long")
        return real(cmd, **kw)

    monkeypatch.setattr(subprocess, "Popen", popen)
    early_srun.start(["check"])
    assert early_srun.started() and _seen(seen) == "none" and early_srun.key() is None
