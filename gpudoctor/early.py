"""The prolog tier's facts, collected by three child processes while gpudoctor imports.

`check --fast` and `slurm-health --fast` (the prolog tier) read this machine in process. On
an H100 node that is about 45 ms of imports before the first fact (the cli, config,
registry, runner, 17 check modules, the collector's 12 section modules: CPU, under one GIL)
and then about 60 ms of collecting (importing pynvml 8-20 ms; ``nvmlInit`` 11 ms, the first
device handle 7 ms and the ECC reads 5 ms of driver time; the python section's
site-packages scan 8-14 ms; dmesg, the host's names, CUDA's libraries): docs/benchmarks.md,
"The prolog tier against the NVML floor". A thread could overlap the driver time, not the
imports. So ``start`` forks three times, first thing, while the process is still one thread
(a fork copies only the calling thread; a lock another thread held would never be released
in the child), and the children collect while the parent imports:

- the reading child reads NVML (``_nvml``, the gpu section's own read) and nothing else: a
  thread starts the driver through ctypes (``nvmlInit_v2``, the handles) while the main
  thread imports pynvml and ``_nvml``; it sends the read to the collecting child as JSON;
- the python child runs the python section (the site-packages scan) and sends it to the
  collecting child as JSON;
- the collecting child runs every other section, then gpu (whose kernel log it reads before
  it waits) and python, taking the other children's reads (``last`` and ``prefetched`` in
  collector/base.py), with the options the local fast path gives (``OPTIONS``), in the
  environment and with the rlimits, user and interpreter the parent has at the fork, and
  sends the facts to the parent as JSON;
- the parent takes them (``take_facts``) when it would collect with the same options in the
  same environment; where only the per-run key for hashing environment values differs
  (slurm-health keeps one in its history), it runs the collector and takes every section
  but the few that read that key (``KEYED``) from the child (``take``); otherwise it
  collects for itself, as before.

Each child closes its end of the pipe as soon as its reply is written (``_write``): the
reader's EOF then never waits for the child's exit.

The facts are the same values: a result goes on only when JSON carries it unchanged (it
compares equal after the round trip), else whoever needs it reads it itself; no pynvml in the
reading child raises the same ImportError in the gpu section; a read that failed or a child
that died leaves the read to the next in line, in process, as before.

Waiting for the children happens inside the local deadline's thread (transport/local.py), and
a child still running when gpudoctor exits is killed, so a wedged NVML never outlives the run.
Nothing here imports more than ``os`` and ``sys`` before the forks.
"""

import os
import sys

# options that send the run elsewhere (saved facts, other nodes, another interpreter), or end
# it before any facts: with one of these (or an argparse abbreviation of one) there is no child
_ELSEWHERE = ("--facts", "--hosts", "--nodes", "--python", "--help", "--version", "--slurm")
_COMMANDS = ("check", "slurm-health")
OPTIONS = {"nvidia_smi": False}  # the collector's options on the local fast path (transport/local.py)
KEYED = ("env", "nccl", "watch", "munge")  # the sections that read options["env_key"]: never taken across keys
MAX_REPLY = 64 << 20  # bytes read from the child (facts are 20-150 KiB; gather.MAX_FACTS_BYTES is 64 MiB)

# No child outlives this many seconds (SIGALRM's default action ends it): gpudoctor's exit kills
# its children, but a SIGTERM to gpudoctor alone skips that while a child waits on a wedged NVML.
# The run's --timeout (default 30 s, the config's at most a day) ends the parent long before;
# a child ended early only leaves its read to the next in line, in process (see above).
CHILD_LIMIT_S = 360
_state = {"pids": [], "fd": None, "env": None, "reply": None}
_marks = []  # (what, time.monotonic()) in this process; the children send theirs (bench/prolog_timeline.py)


def _mark(what):
    import time  # built in: no file read

    _marks.append((what, time.monotonic()))


def fast_local_run(argv, environ=None):
    """Whether this command line is the prolog tier collecting this machine in this process
    (the local transport's fast path). False is always safe (no child); True where it is
    wrong costs a child whose facts nobody takes."""
    env = os.environ if environ is None else environ
    if not argv or argv[0] not in _COMMANDS:
        return False
    local, fast = argv[0] == "slurm-health", False  # the hooks check this node alone
    for i, word in enumerate(argv[1:], 1):
        if word == "--":
            break
        name = word.split("=", 1)[0]
        if name in ("-h", "--deep"):  # --deep: the python section imports torch, in its own child
            return False
        if name.startswith("--") and len(name) > 3 and any(o.startswith(name) for o in _ELSEWHERE):
            return False
        if len(name) >= 5 and "--fast".startswith(name):
            fast = True
        if name == "--local":
            local = True
        if name == "--via":
            via = word.split("=", 1)[1] if "=" in word else (argv[i + 1] if i + 1 < len(argv) else "")
            if via != "local":
                return False
            local = True
    if not fast or env.get("VIRTUAL_ENV") or env.get("CONDA_PREFIX"):
        return False  # an active environment's python is probed in another process (interpreter.choose)
    # (a heterogeneous job's too: it sets SLURM_HET_SIZE, and no SLURM_JOB_NODELIST)
    if not local and (env.get("SLURM_JOB_NODELIST") or env.get("SLURM_HET_SIZE")) and \
            not env.get("SLURM_SCRIPT_CONTEXT"):
        return False  # inside an allocation `check` reaches the job's nodes (inventory.resolve)
    return True


def _one_thread():
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def start(argv, environ=None, proc="/proc/driver/nvidia/version"):
    """Fork the three children when ``argv`` is the prolog tier on a GPU node (the NVIDIA
    driver is loaded: there the reads are slow enough to be worth a process) and this process
    is one thread. Returns the collecting child's pid, or None."""
    if _state["pids"] or _state["reply"] is not None or not hasattr(os, "fork") \
            or not fast_local_run(argv, environ) or not os.path.exists(proc) or not _one_thread():
        return None
    import gc

    was = gc.isenabled()
    gc.disable()  # a short run that makes few cycles: no collection passes while all four import
    _mark("parent: forks")
    rn, wn = os.pipe()
    reader = _fork(_reader_child, (wn,), (rn,))
    os.close(wn)
    rp, wp = os.pipe()
    python = _fork(_python_child, (wp,), (rn, rp)) if reader is not None else None
    os.close(wp)
    r, w = os.pipe()
    collector = _fork(_child, (w, rn, rp if python is not None else None),
                      (r,) if python is not None else (r, rp)) if reader is not None else None
    os.close(w)
    os.close(rn)
    os.close(rp)
    children = [p for p in (reader, python, collector) if p is not None]
    if collector is None:  # the parent collects for itself
        os.close(r)
        _state["pids"] = children
        _end_child()
        if was:
            gc.enable()
        return None
    _state.update(pids=children, fd=r, env=dict(os.environ), gc=was)
    _mark("parent: forked")
    import atexit

    atexit.register(_end_child)
    return collector


def _fork(body, args, close):
    """body(*args) in a child, which closes the descriptors ``close`` first and never returns."""
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:
        try:
            import _signal  # built in: no file read, no enum (the signal module's)

            _signal.alarm(CHILD_LIMIT_S)
            for fd in close:
                os.close(fd)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # never the parent's stdout: whoever reads it to EOF must not wait for a child
                os.dup2(null, fd)
            body(*args)
        finally:
            os._exit(0)  # no atexit handlers, no flush of the parent's buffers
    return pid


def _json_safe(value, json):
    """Whether JSON carries ``value`` unchanged (no tuple, number as a key, NaN, bytes)."""
    try:
        return json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        return False


def _write(fd, text):
    """``text`` to ``fd``, then closed: the reader's EOF comes now, not when this process has
    finished exiting (unmapping its memory, closing the NVIDIA devices: 1-3 ms on the H100
    node, docs/benchmarks.md)."""
    data = text.encode("utf-8")
    try:
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def _read(fd, limit=MAX_REPLY):
    """A JSON object from ``fd`` (read to its end, then closed); {} for anything else."""
    chunks, size = [], 0
    try:
        while size <= limit:
            b = os.read(fd, 1 << 16)
            if not b:
                break
            chunks.append(b)
            size += len(b)
    finally:
        os.close(fd)
    import json

    try:
        msg = json.loads(b"".join(chunks).decode("utf-8")) if size <= limit else None
    except ValueError:  # a child that died mid-reply
        msg = None
    return msg if isinstance(msg, dict) else {}


def _reader_child(w):
    """The reading child: NVML alone (``_nvml``, the gpu section's own read), sent to the
    collecting child as JSON.

    The driver's part starts first, in a thread, through ctypes: NVML's init and the device
    handles (about 18 ms of driver time on the H100 node, the GIL released) while the
    main thread imports pynvml (17-20 ms of CPU there) and the gpu section's module; ``_nvml``
    then finds NVML initialised (its inits count: https://docs.nvidia.com/deploy/nvml-api/group__nvmlInitializationAndCleanup.html)
    in the same library (pynvml loads libnvidia-ml.so.1 by that name: dlopen gives the one
    already loaded) and its handles made, and meets the same error where the early call
    failed. Nothing else runs here: beside the python section (a site-packages scan), every
    return from the driver waited for the GIL (docs/benchmarks.md)."""
    _mark("reader: forked")
    msg, thread, pynvml = {}, None, None
    # the driver thread gets the GIL back soon after each driver call while the main thread
    # imports (the default switch interval is 5 ms: https://docs.python.org/3/library/sys.html#sys.setswitchinterval)
    sys.setswitchinterval(0.0005)
    try:
        import threading

        thread = threading.Thread(target=_driver_first, name="gpudoctor-nvml", daemon=True)
        thread.start()
    except BaseException:
        thread = None
    try:
        import pynvml  # noqa: F401 (the module _nvml imports)

        _mark("reader: import pynvml")
    except ImportError as exc:  # no pynvml: the gpu section says so, as it would reading itself
        msg["nvml_import_error"] = str(exc)
    except BaseException:  # the collecting child reads for itself
        pass
    if pynvml is not None:
        try:
            _nvml = _nvml_alone()
            _mark("reader: import _nvml")
            if thread is not None:
                thread.join()
            msg["nvml"] = list(_nvml(None))
            _mark("reader: _nvml read")
        except BaseException:  # the gpu section reads again and reports what it meets
            msg.pop("nvml", None)
    import json

    if "nvml" in msg and not _json_safe(msg["nvml"], json):  # only what JSON carries unchanged
        del msg["nvml"]
    _mark("reader: sent")
    msg["marks"] = _marks
    _write(w, json.dumps(msg))


def _driver_first(lib="libnvidia-ml.so.1"):
    """The calls pynvml's nvmlInit, nvmlDeviceGetCount and nvmlDeviceGetHandleByIndex make
    (nvidia-ml-py 13: nvmlInitWithFlags(0), nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
    in the library it loads as ``CDLL("libnvidia-ml.so.1")``), straight through ctypes
    (signatures: https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html); the
    results are not used: pynvml's calls that follow find them made. A call that fails ends it
    quietly (pynvml meets the same failure and reports it)."""
    try:
        import ctypes

        nvml = ctypes.CDLL(lib)
        if nvml.nvmlInitWithFlags(ctypes.c_uint(0)) != 0:
            return
        _mark("reader/nvml: nvmlInit")
        count = ctypes.c_uint(0)
        if nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)) != 0:
            return
        handle = ctypes.c_void_p()
        for i in range(min(count.value, 1024)):
            nvml.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(i), ctypes.byref(handle))
        _mark("reader/nvml: handles")
    except Exception:
        pass


def _nvml_alone():
    """The gpu section's ``_nvml``, importing collector/base.py and collector/nvidia.py alone:
    the collector package's __init__ imports every section module (7-9 ms of CPU on the H100
    node), which this child never runs. Only here, in a child that exits after its read: a
    package module of the collector's own folder stands in for the package when nothing
    imported it yet (in the parent it never is; tests import it first)."""
    if "gpudoctor.collector" not in sys.modules:
        import types

        import gpudoctor

        pkg = types.ModuleType("gpudoctor.collector")
        pkg.__path__ = [os.path.join(p, "collector") for p in gpudoctor.__path__]
        pkg.__package__ = "gpudoctor.collector"
        sys.modules["gpudoctor.collector"] = pkg
    from gpudoctor.collector.nvidia import _nvml

    return _nvml


def _python_child(w):
    """The python child: the python section (site-packages: 8-14 ms of CPU on the H100 node),
    sent to the collecting child as JSON, so that the collecting child is never the last."""
    _mark("python: forked")
    msg = {}
    try:
        from gpudoctor.collector import Context
        from gpudoctor.collector.base import collect_sections

        out, seconds = collect_sections(Context(python=None, options=dict(OPTIONS)), only={"python"})
        msg["python"] = [out["python"], seconds["python"]]
        _mark("python: section")
    except BaseException:  # the collecting child reads it itself
        pass
    import json

    if "python" in msg and not _json_safe(msg["python"], json):
        del msg["python"]
    msg["marks"] = _marks
    _write(w, json.dumps(msg))


def _child(w, rn, rp=None):
    """The collecting child: every section, gpu and python last, taking NVML's read from the
    reading child (``rn``) and the python section from the python child (``rp``) when they
    came."""
    _mark("collector: forked")
    import json

    got = {}

    def reading():
        if "msg" not in got:
            _mark("collector: waits for reader")
            got["msg"] = _read(rn)
            _marks.extend(tuple(m) for m in got["msg"].pop("marks", []) if isinstance(m, list) and len(m) == 2)
            _mark("collector: reader's reply")
        return got["msg"]

    def prefetched(what, ctx):
        if what == "section:python" and rp is not None:
            if "python" not in got:
                got["python"] = _read(rp)
                _marks.extend(tuple(m) for m in got["python"].pop("marks", []) if isinstance(m, list) and len(m) == 2)
            v = got["python"].get("python")
            ok = isinstance(v, list) and len(v) == 2 and isinstance(v[0], dict) and isinstance(v[1], (int, float))
            return (v[0], v[1]) if ok else None
        if what == "nvml":
            msg = reading()
            if "nvml_import_error" in msg:
                raise ImportError(msg["nvml_import_error"])
            v = msg.get("nvml")
            ok = isinstance(v, list) and len(v) == 2 and isinstance(v[1], dict) and (v[0] is None or isinstance(v[0], list))
            return (v[0], v[1]) if ok else None
        return None

    try:
        from gpudoctor.collector import Context, collect

        _mark("collector: import collector")
        doc = collect(Context(python=None, options=dict(OPTIONS), prefetched=prefetched), last=("gpu", "python"))
        _mark("collector: collected")
        try:
            text = json.dumps(doc)
            same = json.loads(text) == doc
        except (TypeError, ValueError):
            same = False
        if not same:  # a tuple, a number as a key, a NaN, bytes: that section is the parent's to read
            for name in list(doc):
                if not _json_safe(doc[name], json):
                    del doc[name]
            text = json.dumps(doc)
        _mark("collector: sent")
        data = '{"options": %s, "complete": %s, "marks": %s, "doc": %s}' % (json.dumps(OPTIONS), json.dumps(same),
                                                                          json.dumps(_marks), text)
    except BaseException:  # the parent collects for itself
        data = "{}"
    _write(w, data)


def _reply():
    """The collecting child's reply, read once (waiting for it); {} when it sent none."""
    if _state["reply"] is None:
        fd, _state["fd"], _state["reply"] = _state["fd"], None, {}
        if fd is None:
            return _state["reply"]
        _mark("parent: waits for facts")
        msg = _read(fd)
        _mark("parent: facts")
        _marks.extend(tuple(m) for m in msg.pop("marks", []) if isinstance(m, list) and len(m) == 2)
        ok = msg.get("options") == OPTIONS and isinstance(msg.get("doc"), dict)
        _state["reply"] = msg if ok else {}
        if _state.pop("gc", False):  # the imports are done: cycles are collected again
            import gc

            gc.enable()
    return _state["reply"]


def _no_child():
    return _state["fd"] is None and _state["reply"] is None


def take_facts(options, env=None):
    """The child's facts document, when the parent would collect with ``options`` in ``env``
    (default: this process's environment now) and every section came back; else None."""
    if _no_child() or dict(os.environ if env is None else env) != _state["env"] or options != OPTIONS:
        return None
    reply = _reply()
    if not reply.get("complete"):
        return None
    doc, reply["doc"], reply["complete"] = reply["doc"], {}, False  # once
    return doc


def take(what, ctx):
    """``prefetched`` for the parent's collector (collector/base.py): "section:NAME" gives the
    child's (data, seconds) for that section when the parent's context reads what the child
    read (this live machine, this environment, these options but the env_key, which only the
    KEYED sections read), else None: the parent runs that section itself."""
    if _no_child() or not what.startswith("section:"):
        return None
    name = what.split(":", 1)[1]
    if not ctx.live or ctx.root not in ("/", "") or ctx.commands is not None or ctx.python \
            or ctx.uid != os.getuid() or ctx.env != _state["env"]:
        return None
    mine = dict(ctx.options)
    if mine.pop("env_key", None) is not None and name in KEYED:
        return None
    if mine != OPTIONS:
        return None
    doc = _reply().get("doc") or {}
    if name not in doc:
        return None
    return doc.pop(name), (doc.get("collector") or {}).get("section_seconds", {}).get(name, 0.0)


def _end_child():
    """At exit: a child has finished (reap it) or is still running (kill it, without waiting:
    one that has sent its reply may still be exiting, closing the NVIDIA devices, and one in
    a driver call that sleeps uninterruptibly dies only when the call returns; gpudoctor's
    exit waits for neither, and whoever inherits the child reaps it)."""
    pids, _state["pids"] = _state["pids"], []
    for pid in pids:
        try:
            if os.waitpid(pid, os.WNOHANG) == (0, 0):
                import signal

                os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
