"""The prolog tier's facts collected by a child forked first thing (gpudoctor/early.py):
which command lines get one, and that the facts and the report are the same whether the
child collected them or this process did (CI has no GPU: the NVML thread's hand-over to the
gpu section is tested with a stand-in pynvml on a recorded /proc tree)."""

import json
import os
import sys
import types

import pytest

from gpudoctor import early
from gpudoctor.collector import Context, collect, nvidia
from gpudoctor.collector.base import SECTIONS


class _Mem:
    total, used = 81559 << 20, 480 << 20


class _Pci:
    busId = b"00000000:00:06.0"


class _Proc:
    pid, usedGpuMemory = 4242, 2 << 30


def _fake_pynvml():
    m = types.ModuleType("pynvml")

    class NVMLError(Exception):
        pass

    def unsupported(*a):
        raise NVMLError("Not Supported")

    m.NVMLError = NVMLError
    m.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, m.NVML_VOLATILE_ECC = 1, 0
    m.nvmlInit = m.nvmlShutdown = lambda: None
    m.nvmlSystemGetDriverVersion = lambda: "580.159.04"
    m.nvmlSystemGetNVMLVersion = lambda: b"13.580.159.04"
    m.nvmlSystemGetCudaDriverVersion_v2 = lambda: 13000
    m.nvmlDeviceGetCount = lambda: 2
    m.nvmlDeviceGetHandleByIndex = lambda i: i
    m.nvmlDeviceGetMemoryInfo = lambda h: _Mem()
    m.nvmlDeviceGetCudaComputeCapability = lambda h: (9, 0)
    m.nvmlDeviceGetPciInfo = lambda h: _Pci()
    m.nvmlDeviceGetTotalEccErrors = lambda h, t, c: 0 if h == 0 else 3
    m.nvmlDeviceGetEccMode = lambda h: (1, 1)
    m.nvmlDeviceGetRemappedRows = lambda h: (0, 0, False, False) if h == 0 else unsupported()
    m.nvmlDeviceGetComputeRunningProcesses = lambda h: [_Proc()] if h == 1 else []
    m.nvmlDeviceGetPersistenceMode = lambda h: 1
    m.nvmlDeviceGetUUID = lambda h: "GPU-%d" % h
    m.nvmlDeviceGetName = lambda h: b"NVIDIA H100 80GB HBM3" if h == 0 else "NVIDIA H100 \udcff"
    return m


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A clean early state, a driver 'loaded' (a stand-in /proc file), and fork allowed (a
    test run may hold threads other tests left; the child takes no lock they could hold: its
    modules are imported here first)."""
    import threading  # noqa: F401

    import gpudoctor.collector.nvidia  # noqa: F401

    monkeypatch.setattr(early, "_state", {"pids": [], "fd": None, "env": None, "reply": None})
    monkeypatch.setattr(early, "_one_thread", lambda: True)
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX", "SLURM_JOB_NODELIST", "GPUDOCTOR_DEEP"):
        monkeypatch.delenv(var, raising=False)
    proc = tmp_path / "version"
    proc.write_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04\n")
    yield str(proc)
    pids = list(early._state["pids"])
    early._end_child()
    for pid in pids:  # _end_child leaves a killed child to whoever inherits it: here, this test
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    if early._state.pop("gc", False):  # a child whose reply no test read: collection back on
        import gc

        gc.enable()


def _sections(doc):
    out = dict((k, v) for k, v in doc.items() if k not in ("collector", "collected_at"))
    for live in ("tmp", "shm"):  # /tmp's and /dev/shm's free space and inodes change between two reads (live
        if isinstance(out.get(live), dict):  # file systems other processes write: ci28b saw /dev/shm's move by 8 KiB)
            out[live] = dict((k, v) for k, v in out[live].items() if k not in ("free_bytes", "free_inodes"))
    return out


def test_only_the_prolog_tier_on_this_machine_forks():
    yes = [["check", "--fast"], ["check", "--fast", "--json", "-o", "r.json"], ["check", "--fas", "--local"],
           ["slurm-health", "--fast", "--dry-run"], ["check", "--fast", "--via=local"],
           ["check", "--fast", "--via", "local"], ["check", "--fast", "--", "--hosts", "x"]]
    no = [["check"], ["slurm-health"], ["check", "--fast", "--facts", "f.json"], ["check", "--fast", "--fac=f"],
          ["check", "--fast", "--hosts", "hf"], ["check", "--fast", "--nodes=n[1-2]"], ["check", "--fast", "--via", "ssh"],
          ["check", "--fast", "--python", "/opt/env/bin/python"], ["check", "--fast", "--deep"], ["check", "--fast", "-h"],
          ["plan", "--fast"], [], ["--version"]]
    for argv in yes:
        assert early.fast_local_run(argv, {}), argv
    for argv in no:
        assert not early.fast_local_run(argv, {}), argv
    alloc = {"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "n[1-4]"}
    assert not early.fast_local_run(["check", "--fast"], alloc)  # check reaches the job's nodes there
    assert early.fast_local_run(["check", "--fast", "--local"], alloc)
    assert early.fast_local_run(["slurm-health", "--fast"], alloc)
    assert early.fast_local_run(["check", "--fast"], dict(alloc, SLURM_SCRIPT_CONTEXT="prolog_slurmd"))
    assert not early.fast_local_run(["check", "--fast"], {"VIRTUAL_ENV": "/opt/venv"})  # that python is probed


def test_no_child_without_the_driver_or_with_threads(fresh, monkeypatch, tmp_path):
    assert early.start(["check", "--fast"], environ={}, proc=str(tmp_path / "missing")) is None
    monkeypatch.setattr(early, "_one_thread", lambda: False)
    assert early.start(["check", "--fast"], environ={}, proc=fresh) is None
    assert early.take_facts(early.OPTIONS) is None  # no child: the local run collects itself
    assert early.take("section:host", Context()) is None


def test_the_childs_facts_are_this_processs_facts(fresh):
    here = collect(Context(python=None, options=dict(early.OPTIONS)))
    assert early.start(["check", "--fast"], environ={}, proc=fresh) is not None
    assert early.take_facts({"nvidia_smi": True}) is None  # other options: not the child's facts
    child = early.take_facts(dict(early.OPTIONS))
    assert child is not None and child["collector"]["section_seconds"]
    # Network interfaces are live too: ci29b saw the 4-node Slurm bed of another worker add its veths
    # (gds35001h, ...) between the two reads. The interfaces both reads saw must be the same; the rest equal.
    mine, theirs = (dict((i["name"], i) for i in d["network"]["interfaces"]) for d in (here, child))
    both = set(mine) & set(theirs)
    assert "lo" in both and all(mine[n] == theirs[n] for n in both), both
    here, child = (dict(d, network=dict(d["network"], interfaces=None)) for d in (here, child))
    assert _sections(child) == _sections(here)
    assert early.take_facts(dict(early.OPTIONS)) is None  # taken once


def test_with_another_env_key_only_the_keyed_sections_are_collected_again(fresh):
    key = "ab" * 32
    here = collect(Context(python=None, options=dict(early.OPTIONS, env_key=key)))
    early.start(["slurm-health", "--fast"], environ={}, proc=fresh)
    assert early.take_facts(dict(early.OPTIONS, env_key=key)) is None
    taken, ran = [], []

    def prefetched(what, ctx):
        got = early.take(what, ctx)
        (taken if got is not None else ran).append(what.split(":", 1)[1])
        return got

    doc = collect(Context(python=None, options=dict(early.OPTIONS, env_key=key), prefetched=prefetched))
    assert sorted(ran) == sorted(n for n, _ in SECTIONS if n in early.KEYED) and "host" in taken
    assert _sections(doc) == _sections(here)
    assert doc["env"] == here["env"]  # hashed with the run's key, not the child's


def test_a_changed_environment_is_collected_again(fresh, monkeypatch):
    early.start(["check", "--fast"], environ={}, proc=fresh)
    monkeypatch.setenv("GPUDOCTOR_TEST_CHANGED", "1")
    assert early.take_facts(dict(early.OPTIONS)) is None
    assert early.take("section:host", Context(python=None, options=dict(early.OPTIONS))) is None


def test_only_the_keyed_sections_read_the_env_key():
    """KEYED must name every section whose facts depend on options["env_key"]."""
    class Seen(dict):
        def __init__(self, *a):
            super().__init__(*a)
            self.read = set()

        def get(self, k, *d):
            self.read.add(k)
            return super().get(k, *d)

        def __getitem__(self, k):
            self.read.add(k)
            return super().__getitem__(k)

        def __contains__(self, k):
            self.read.add(k)
            return super().__contains__(k)

    readers = []
    for name, func in SECTIONS:
        opts = Seen(dict(early.OPTIONS, env_key="cd" * 32))
        try:
            func(Context(python=None, options=opts))
        except Exception:
            pass
        if "env_key" in opts.read:
            readers.append(name)
    assert readers and set(readers) <= set(early.KEYED), readers


def test_the_gpu_section_takes_the_nvml_threads_read(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    root = tmp_path / "root"
    (root / "proc/driver/nvidia").mkdir(parents=True)
    (root / "proc/driver/nvidia/version").write_text("NVRM version: NVIDIA UNIX Open Kernel Module  580.159.04\n")
    plain = nvidia.gpu(Context(root=str(root), live=True, commands={}))
    read = nvidia._nvml(None)
    assert json.loads(json.dumps(read)) == list(read)  # what the child's JSON carries back unchanged
    via = nvidia.gpu(Context(root=str(root), live=True, commands={},
                             prefetched=lambda what, ctx: read if what == "nvml" else None))
    assert plain["gpus_source"] == "nvml" and len(plain["gpus"]) == 2 and plain["gpus"][1]["processes"]
    assert via == plain

    def no_pynvml(what, ctx):
        raise ImportError("No module named 'pynvml'")

    none = nvidia.gpu(Context(root=str(root), live=True, commands={}, prefetched=no_pynvml))
    assert none["nvml"] == {"source": "none", "init_error": "pynvml is not importable"}


def test_check_fast_reports_the_same_with_the_child(fresh, monkeypatch, tmp_path, capsys):
    """End to end on this machine: the report of `check --fast --json`, collected here and by
    the child."""
    from gpudoctor import cli

    monkeypatch.setenv("GPUDOCTOR_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("GPUDOCTOR_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    argv = ["check", "--fast", "--json"]

    def report():
        rc = cli.main(argv)
        doc = json.loads(capsys.readouterr().out)
        return rc, [(c["id"], c["status"], c["summary"]) for c in doc["checks"]], doc["nodes"]

    alone = report()
    start = early.start
    monkeypatch.setattr(early, "start", lambda argv: start(argv, proc=fresh))
    with_child = report()
    assert early._state["reply"] and early._state["reply"]["doc"] == {}  # the child's facts were taken
    assert with_child == alone


def test_a_stuck_child_is_killed_at_exit(fresh):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)  # waits for ever, as a wedged driver call would
        os._exit(0)
    os.close(r)
    early._state["pids"] = [pid]
    early._end_child()  # kills it, without waiting for it
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(w)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9  # killed, not ended by the closed pipe


def test_a_child_whose_parent_never_ends_it_ends_at_its_own_limit(monkeypatch):
    """A SIGTERM to gpudoctor alone skips the exit's kill; a child waiting on a wedged read
    then ends by its own alarm (the red team's orphan: NVML hung, the parent TERMed)."""
    monkeypatch.setattr(early, "CHILD_LIMIT_S", 1)
    r, w = os.pipe()
    pid = early._fork(lambda fd: os.read(fd, 1), (r,), (w,))  # waits for ever, as a wedged driver call would
    os.close(r)
    import select

    status, pidfd = None, os.pidfd_open(pid)
    try:
        if select.select([pidfd], [], [], 10)[0]:  # readable once the child has ended (deadline 10 s)
            status = os.waitpid(pid, 0)[1]
    finally:
        os.close(pidfd)
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(w)
    assert status is not None, "the child outlived its limit"
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 14  # SIGALRM, not the closed pipe


def _reader_reply(monkeypatch, pynvml_module):
    """What the reading child sends (it runs in a fork here, as in the prolog tier)."""
    monkeypatch.setitem(sys.modules, "pynvml", pynvml_module)
    r, w = os.pipe()
    pid = early._fork(early._reader_child, (w,), (r,))
    os.close(w)
    msg = early._read(r)
    os.waitpid(pid, 0)
    return msg


def test_the_reading_child_reads_nvml_alone_as_this_process(monkeypatch):
    msg = _reader_reply(monkeypatch, _fake_pynvml())
    assert msg["nvml"] == json.loads(json.dumps(nvidia._nvml(None)))
    assert set(msg) == {"nvml", "marks"}  # NVML alone: the python section is the collecting child's
    msg = _reader_reply(monkeypatch, None)  # import pynvml raises ImportError
    assert "nvml" not in msg and "pynvml" in msg["nvml_import_error"] and "python" not in msg


def test_without_the_reading_child_the_collecting_child_reads_everything(fresh, monkeypatch):
    here = collect(Context(python=None, options=dict(early.OPTIONS)))
    monkeypatch.setattr(early, "_reader_child", lambda w: early._write(w, "not json"))
    early.start(["check", "--fast"], environ={}, proc=fresh)
    child = early.take_facts(dict(early.OPTIONS))
    assert child is not None and _sections(child) == _sections(here)


def test_the_collecting_child_takes_the_python_childs_section_and_not_the_readers(fresh, monkeypatch):
    marked = {"status": "ok", "executable": "/marked/by/the/python/child"}
    other = {"status": "ok", "executable": "/marked/by/the/reading/child"}
    monkeypatch.setattr(early, "_reader_child", lambda w: early._write(w, json.dumps({"python": [other, 0.5]})))
    monkeypatch.setattr(early, "_python_child", lambda w: early._write(w, json.dumps({"python": [marked, 0.25]})))
    early.start(["check", "--fast"], environ={}, proc=fresh)
    child = early.take_facts(dict(early.OPTIONS))
    assert child["python"] == marked and child["collector"]["section_seconds"]["python"] == 0.25
    assert list(child) == list(collect(Context(python=None, options=dict(early.OPTIONS))))  # sections in order


def test_without_the_python_childs_section_the_collecting_child_reads_it(fresh, monkeypatch):
    monkeypatch.setattr(early, "_python_child", lambda w: early._write(w, "not json"))
    early.start(["check", "--fast"], environ={}, proc=fresh)
    child = early.take_facts(dict(early.OPTIONS))
    here = collect(Context(python=None, options=dict(early.OPTIONS)))
    assert child["python"] == here["python"] and child["python"]["status"] == "ok"


def test_the_python_child_sends_this_processs_python_section():
    from gpudoctor.collector.base import collect_sections

    r, w = os.pipe()
    pid = early._fork(early._python_child, (w,), (r,))
    os.close(w)
    msg = early._read(r)
    os.waitpid(pid, 0)
    here = collect_sections(Context(python=None, options=dict(early.OPTIONS)), only={"python"})[0]["python"]
    assert msg["python"][0] == here and here["status"] == "ok"


def test_a_reply_ends_before_its_child_does():
    """_write closes the pipe: the reader sees EOF while the child is still alive (a child's
    exit, with NVIDIA devices open, took 1-3 ms on the H100 node)."""
    import select

    r, w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.close(hold_w)
        early._write(w, '{"a": 1}')
        os.read(hold_r, 1)  # alive until the test lets it go
        os._exit(0)
    os.close(w)
    os.close(hold_r)
    try:
        assert select.select([r], [], [], 10)[0]
        assert os.read(r, 100) == b'{"a": 1}'
        assert select.select([r], [], [], 10)[0] and os.read(r, 100) == b""  # EOF, the child still running
        assert os.waitpid(pid, os.WNOHANG) == (0, 0)
    finally:
        os.close(hold_w)
        os.close(r)
        os.waitpid(pid, 0)


def test_the_reading_child_imports_only_the_gpu_sections_module():
    """_nvml_alone: collector/base.py and nvidia.py, not every section module (the reading child
    never runs them); the early driver call without an NVIDIA library ends quietly."""
    code = ("import sys; from gpudoctor import early; f = early._nvml_alone(); early._driver_first('libnvidia-ml-none.so.1'); "
            "print(f.__module__, sorted(m for m in sys.modules if m.startswith('gpudoctor.collector')))")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["gpudoctor.collector.nvidia", "['gpudoctor.collector',", "'gpudoctor.collector.base',",
                                  "'gpudoctor.collector.nvidia']"]


def test_the_gpu_section_reads_the_kernel_log_before_it_waits_for_nvml(monkeypatch, tmp_path):
    """In the prolog tier the NVML read is still under way in the reading child when the
    collecting child reaches the gpu section: dmesg runs first, not after it."""
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    root = tmp_path / "root"
    (root / "proc/driver/nvidia").mkdir(parents=True)
    (root / "proc/driver/nvidia/version").write_text("NVRM version: NVIDIA UNIX Open Kernel Module  580.159.04\n")
    order = []

    def prefetched(what, ctx):
        order.append(what)
        return nvidia._nvml(None) if what == "nvml" else None

    class Recorded(Context):
        def run(self, argv, timeout=10.0, env=None):
            order.append(argv[0])
            return super().run(argv, timeout=timeout, env=env)

    out = nvidia.gpu(Recorded(root=str(root), live=True, commands={"dmesg": (0, "NVRM: Xid (PCI:0000:00:06): 79, pid=1")},
                              prefetched=prefetched))
    assert order == ["dmesg", "nvml"]
    assert out["xids"] == [{"bus_id": "0000:00:06", "xid": 79, "detail": "pid=1"}] and len(out["gpus"]) == 2
