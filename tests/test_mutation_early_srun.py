"""Cases written from the mutants that survived tests/test_early_srun.py (docs/mutation.md, fourth
round): gpudoctor/early_srun.py (which runs start a step, with which first part, which step the
transport takes) and blobcache.cached (the cached blob, never a build). A fake srun (test_early_srun's
`alloc`), a private blob cache; no Slurm."""

import errno
import os
import subprocess

import pytest

from gpudoctor import blobcache, early_srun
from gpudoctor.transport.srun import PAYLOAD_ENV, SrunTransport, build_stub, env_value
from test_early_srun import _carrying, alloc  # noqa: F401 (a fixture)

NODES = ["sn1", "sn2", "sn3", "sn4"]


def test_a_config_is_read_for_its_first_mib_and_one_that_cannot_be_read_counts(tmp_path):
    path = tmp_path / "gpudoctor.toml"
    assert early_srun._may_name_python(str(path)) is False  # no file: nothing to choose
    path.write_bytes(b"#" * 100 + b"\npython = '/opt/bin/python'\n")
    assert early_srun._may_name_python(str(path)) is True
    assert early_srun._may_name_python(str(path), early_srun._HISTORY_KEY) is False
    path.write_bytes(b"#" * (1 << 20) + b"\npython = '/opt/bin/python'\n")  # past the first MiB
    assert early_srun._may_name_python(str(path)) is False
    path.write_bytes(b"[tool.gpudoctor]\nhistory = true\n")
    assert early_srun._may_name_python(str(path), early_srun._HISTORY_KEY) is True
    folder = tmp_path / "dir.toml"
    folder.mkdir()  # there, but not readable as a file: config.py decides, so no early step
    assert early_srun._may_name_python(str(folder)) is True
    os.symlink(str(tmp_path / "gone"), str(tmp_path / "dangling.toml"))
    assert early_srun._may_name_python(str(tmp_path / "dangling.toml")) is True


def test_the_configs_looked_at():
    assert early_srun._configs({}) == ["gpudoctor.toml", "pyproject.toml", "/etc/gpudoctor/gpudoctor.toml"]
    assert early_srun._configs({"GPUDOCTOR_CONFIG": ""}) == early_srun._configs({})
    assert early_srun._configs({"GPUDOCTOR_CONFIG": "/x/c.toml"}) == ["/x/c.toml"] + early_srun._configs({})


@pytest.mark.parametrize("argv, starts", [
    (["check", "--timeout=20", "--format=json"], True),
    (["check", "--fallback=a=b"], True),
    (["check", "--json", "-v", "--verbose"], True),
    (["check", "--json", "--local"], False),
    (["check", "--timeout=20", "--local"], False),
    (["check", "--timeout", "20", "--local"], False),
    (["facts", "--via", "srun"], True),
    (["check", "--via=srun"], True),
    (["check", "--via", "srun", "--json"], True),
    (["check", "--via=srun", "--local"], False),
    (["check", "--via", "srun", "--local"], False),
    (["check", "--via=ssh"], False),
    (["check", "--via"], False),
    (["check", "--via", "ssh", "srun"], False),
])
def test_the_options_that_change_nothing_of_the_step(alloc, argv, starts):  # noqa: F811
    assert (early_srun.plan(argv, dict(os.environ)) is not None) is starts


@pytest.mark.parametrize("env, starts", [
    ({"SLURM_JOB_ID": None}, False),
    ({"SLURM_JOB_NODELIST": None}, False),
    ({"CONDA_PREFIX": "/opt/conda"}, False),
    ({"SLURM_JOB_NODELIST": "sn[1-2]"}, True),
    ({"SLURM_JOB_NODELIST": "sn[1-%d]" % early_srun.MAX_EARLY}, True),
    ({"SLURM_JOB_NODELIST": "sn[1-%d]" % (early_srun.MAX_EARLY + 1)}, False),
])
def test_the_allocations_an_early_step_starts_in(alloc, env, starts):  # noqa: F811
    e = dict(os.environ)
    for k, v in env.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    assert (early_srun.plan(["check"], e) is not None) is starts


@pytest.fixture
def cache(alloc, tmp_path, monkeypatch):  # noqa: F811
    """A private blob cache with the collector's blob in it (what a first run leaves)."""
    _carrying(alloc, tmp_path, monkeypatch)
    blobcache.parts(blobcache.left_out({}, {}))
    return alloc


def test_the_first_part_is_the_transports_of_the_runs_options(cache, monkeypatch):
    env = dict(os.environ)
    (cache / "gpudoctor.toml").write_text("strict = true\n")  # a config that sets neither python nor history
    options, stub, value = early_srun._first_part(env)
    assert options == {"resolve": NODES, "env_key": options["env_key"]} and len(options["env_key"]) == 64
    assert int(options["env_key"], 16) >= 0 and options["env_key"] != early_srun._first_part(env)[0]["env_key"]
    # the very stub the transport builds of those options (no per-host options), and its first part
    assert stub == build_stub(options, {}, parts=blobcache.cached(())) and value == env_value(stub)
    assert early_srun._first_part(dict(env, SLURM_JOB_NODELIST="")) is None
    assert early_srun._first_part(dict(env, SLURM_JOB_NODELIST="sn1 sn2")) is None
    # nothing is built for it: only a cached blob is used
    monkeypatch.setattr(blobcache, "parts", lambda *a: pytest.fail("built"))
    assert early_srun._first_part(env) is not None
    # a first part too large for the environment is none
    with monkeypatch.context() as m:
        m.setattr("gpudoctor.transport.srun.env_value", lambda stub: None)
        assert early_srun._first_part(env) is None
    assert early_srun._first_part(env) is not None
    monkeypatch.setattr(blobcache, "_read", {})
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache / "empty-cache"))
    assert early_srun._first_part(dict(os.environ)) is None


def test_start_uses_the_environment_it_is_given_and_a_session_of_its_own(cache, monkeypatch):
    early_srun.start(["check"], {})
    assert not early_srun.started()
    early_srun.start(["check"])
    proc = early_srun._state["proc"]
    assert os.getpgid(proc.pid) == proc.pid  # its own process group: discard's SIGKILL reaches only it
    assert early_srun.key() == early_srun._state["options"]["env_key"]
    early_srun.discard()
    assert early_srun.key() is None

    def broken(env):
        raise RuntimeError("x")

    monkeypatch.setattr(early_srun, "_first_part", broken)
    early_srun.start(["check"])  # the step starts all the same, with the first part on stdin
    assert early_srun.started() and early_srun.key() is None and early_srun._state["options"] is None


@pytest.mark.parametrize("code, starts", [(errno.E2BIG, True), (errno.EACCES, False)])
def test_only_a_full_environment_starts_the_step_without_the_first_part(cache, monkeypatch, code, starts):
    real = subprocess.Popen
    tried = []

    def popen(cmd, **kw):
        tried.append(PAYLOAD_ENV in (kw.get("env") or {}))
        if tried[-1]:
            raise OSError(code, os.strerror(code))
        return real(cmd, **kw)

    monkeypatch.setattr(subprocess, "Popen", popen)
    early_srun.start(["check"])
    assert tried == ([True, False] if starts else [True]) and early_srun.started() is starts
    if starts:
        proc = early_srun._state["proc"]
        assert os.getpgid(proc.pid) == proc.pid and early_srun.key() is None


def test_take_wants_the_same_command_environment_folder_and_options(cache, tmp_path, monkeypatch):
    early_srun.start(["check"])
    cmd, opts = list(early_srun._state["cmd"]), dict(early_srun._state["options"])
    other = list(cmd)
    other[1] = "--nodes=3"
    assert early_srun.take(other, opts) is None and not early_srun.started()  # the options alone are not enough

    monkeypatch.setattr(early_srun, "_first_part", lambda env: None)  # no first part: the command decides
    early_srun.start(["check"])
    assert early_srun.take(other) is None and not early_srun.started()
    early_srun.start(["check"])
    monkeypatch.setenv("GPUDOCTOR_SOMETHING", "1")
    assert early_srun.take(cmd) is None and not early_srun.started()
    early_srun.start(["check"])
    monkeypatch.chdir(tmp_path)
    assert early_srun.take(cmd) is None and not early_srun.started()
    monkeypatch.chdir(cache)
    early_srun.start(["check"])
    got = early_srun.take(cmd)
    assert got is not None and got[1:] == (None, None)
    got[0].kill()
    got[0].wait(timeout=5)


def test_discard_gives_srun_one_second(cache, monkeypatch):
    graces = []
    real = SrunTransport._stop

    def stop(proc, grace=5.0):
        graces.append(grace)
        return real(proc, grace=grace)

    monkeypatch.setattr(SrunTransport, "_stop", staticmethod(stop))
    early_srun.start(["check"])
    proc = early_srun._state["proc"]
    early_srun.discard()
    assert graces == [1.0] and proc.poll() is not None


def test_cached_reads_the_cache_and_never_builds(alloc, tmp_path, monkeypatch):  # noqa: F811
    from gpudoctor.collector import bundle

    (tmp_path / "cache").mkdir(mode=0o700)  # privcache writes only into a folder of this user's own
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(blobcache, "_read", {})
    monkeypatch.setattr(bundle, "_parts", {})  # this process's builds: the next build writes the cache
    assert blobcache.cached(()) is None and blobcache._read == {}  # nothing cached: nothing built
    built = blobcache.parts(())
    monkeypatch.setattr(blobcache, "_read", {})
    got = blobcache.cached(())
    assert got == built and isinstance(got[0], str) and isinstance(got[1], bytes)
    assert blobcache._read == {(): built} and blobcache.cached(()) is got  # read once
    monkeypatch.setattr(blobcache, "_read", {})
    assert blobcache.cached(("watch",)) is None  # another selection is another file

    def fails(k):
        raise OSError("unreadable folder")

    monkeypatch.setattr(blobcache, "key", fails)
    assert blobcache.cached(()) is None
