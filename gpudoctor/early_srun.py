"""Inside an allocation, the srun step of `gpudoctor facts` / `gpudoctor check` starts first.

`gpudoctor check` in `salloc -N N` reaches the job's nodes through one srun step (transport/srun.py).
Before that step starts, the controller spends 0.1-0.15 s (2-core VM, docs/benchmarks.md "Scale:
srun vs ssh vs pdsh") importing, reading its config, listing the nodes and asking scontrol which
can take a task; the step then needs about as long again before the first node's python runs
(srun's launch through slurmd's tree). So ``start`` launches the step first thing, with the
command line the srun transport would build for the job's nodes (``--nodes=N ... sh -c SHELL
gpudoctor PYTHON``), and the tasks wait for the script on their stdin while gpudoctor imports.

The transport then builds its command as always and ``take`` hands it this process only when
that command is the same (the node list compared as a set of names), in the same environment
and folder; otherwise the early step is stopped (SIGTERM: srun cancels the step, man srun) and
the transport starts its own, as before. What the nodes run (the script on stdin, with this
run's options and key) is the transport's own, written after ``take``, or (below) built by the
same build_stub of options equal to the transport's: the facts and the verdicts cannot differ.

Where this run's options are known before the step starts (the node list in its plain form,
``sn[1-64]``, whose names are what `resolve` gets; no config that could turn history on, whose
key would replace the run's; the collector's blob in the cache), the step carries the nodes'
first part in its environment instead (transport/srun.py PAYLOAD_ENV, as the transport's own
step does): the run's key is made here, first thing (``key``; commands/common.py uses it), and
srun relays no 48 KB of stdin to every node in 1 KiB messages (docs/benchmarks.md,
"srun-smalln"). ``take`` then hands the step over only when the transport's options are the
ones the step carries (compared as values), else stops it. A task that started the collector
from the environment before a step was stopped is ended with the step.

A command line with anything but the few options that change nothing
of the step (below) starts nothing here, nor does a run in an active environment or with a config file
that mentions python (the job's interpreter is part of the command line), and every run that does not take the step
(an input error, --help, Ctrl-C, a node the preflight leaves out) stops it before gpudoctor
exits (cli.main calls ``discard``).
"""

import os
import re

_COMMANDS = ("facts", "check")
# options that change nothing of the srun command line inside an allocation (the timeout is
# part of it only outside one, --time): with any other word there is no early step
_FLAGS = ("--json", "-v", "--verbose")
_VALUED = ("--timeout", "--format", "--fallback")
_CONFIGS = ("gpudoctor.toml", "pyproject.toml", "/etc/gpudoctor/gpudoctor.toml")  # config.py find_config
_PYTHON_KEY = re.compile(rb"""(?:^|[\s.{,"'])python["']?\s*=""", re.M)
# history (config key `history`): its store's key replaces the run's (history.for_command)
_HISTORY_KEY = re.compile(rb"""(?:^|[\s.{,"'])history["']?\s*=""", re.M)
_ITEM = re.compile(r"^([A-Za-z0-9._-]*)(?:\[([0-9,\-]+)\])?([A-Za-z0-9._-]*)$")
MAX_NODES = 100000
# Above this many nodes the transport starts the step itself, with the collector's first part in
# the step's environment instead of on srun's stdin (transport/srun.py _run): srun relays stdin to
# every node in 1 KiB messages, a cost that grows past the ~0.1 s the early start saves once
# (docs/benchmarks.md, "srun-256")
MAX_EARLY = 64

_state = {"proc": None, "cmd": None, "env": None, "cwd": None, "options": None, "stub": None, "value": None}
_EMPTY = dict(_state)
_started = [None]  # when the early step was started (this machine's clock)


def started_at():
    """When this process started its early step (time.time()), or None."""
    return _started[0]


def count_nodes(nodelist):
    """The number of names in a Slurm node list of the plain forms (``sn[1-8]``,
    ``a,b``, ``gpu[01-04,07],login2``: at most one bracket per name), or None for anything else
    (the transport then starts the step itself)."""
    items, depth, cur = [], 0, ""
    for ch in nodelist:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
        if depth not in (0, 1):
            return None
    items.append(cur)
    total = 0
    for item in items:
        m = _ITEM.match(item)
        if not m or not (m.group(1) or m.group(2) or m.group(3)):
            return None
        if m.group(2) is None:
            total += 1
            continue
        for part in m.group(2).split(","):
            lo, _, hi = part.partition("-")
            if not lo.isdigit() or (hi and not hi.isdigit()):
                return None
            n = int(hi) - int(lo) + 1 if hi else 1
            if n < 1:
                return None
            total += n
        if total > MAX_NODES:
            return None
    return total


def _may_name_python(path, key=_PYTHON_KEY):
    """Whether a config file config.py may read could choose the job's interpreter (the one
    key of a config that changes the srun command line): a key ``python`` assigned anywhere in
    its first MiB (``python = ``, ``tool.gpudoctor.python =``, ``{python = ``; not
    ``requires-python``), or a file that cannot be read here (config.py then decides, and the early step is not
    started). With ``key=_HISTORY_KEY``: whether it may turn history on."""
    if not os.path.lexists(path):
        return False
    try:
        with open(path, "rb") as f:
            return key.search(f.read(1 << 20)) is not None
    except OSError:
        return True


def _configs(environ):
    return [p for p in (environ.get("GPUDOCTOR_CONFIG"),) + _CONFIGS if p]


def plan(argv, environ):
    """The srun command line the srun transport would build for this run, or None."""
    if not argv or argv[0] not in _COMMANDS:
        return None
    words = list(argv[1:])
    while words:
        word = words.pop(0)
        name = word.split("=", 1)[0]
        if word in _FLAGS:
            continue
        if name in _VALUED:
            if "=" not in word:
                if not words:
                    return None
                words.pop(0)
            continue
        if name == "--via" and (word == "--via=srun" or (word == "--via" and words[:1] == ["srun"])):
            if word == "--via":
                words.pop(0)
            continue
        if word == "--slurm":  # inside an allocation --via srun over the job's nodes (commands/common.apply_slurm)
            continue
        return None
    if not (environ.get("SLURM_JOB_ID") and environ.get("SLURM_JOB_NODELIST")) or environ.get("SLURM_SCRIPT_CONTEXT"):
        return None
    if environ.get("VIRTUAL_ENV") or environ.get("CONDA_PREFIX"):
        return None
    if environ.get("SLURM_HET_SIZE"):  # a heterogeneous job: a step per component (transport.het_groups), not this one
        return None
    if "GPUDOCTOR_PAYLOAD" in environ:  # transport/srun.py PAYLOAD_ENV: the transport starts the step without it
        return None
    if environ.get("SLURM_STEP_ID"):  # a task of a step (`srun gpudoctor check`): only its first task runs (cli.py)
        from gpudoctor.transport import step_task

        task = step_task(environ)
        if task is not None and task[0] != 0:
            return None
    if any(_may_name_python(p) for p in _configs(environ)):
        return None
    from gpudoctor.transport import default_nodelist

    nodelist = default_nodelist(environ)[0] or ""  # the nodes inventory.resolve will pick (srun -N3: the step's)
    n = count_nodes(nodelist)
    if not n or n < 2 or n > MAX_EARLY:
        return None
    import shutil

    srun = shutil.which("srun")
    if not srun:
        return None
    from gpudoctor.transport.srun import SHELL

    # the same words, in the same order, as SrunTransport.command inside an allocation
    return [srun, "--nodes=%d" % n, "--ntasks=%d" % n, "--ntasks-per-node=1", "--nodelist=" + nodelist,
            "--kill-on-bad-exit=0", "--label", "--job-name=gpudoctor", "--mpi=none", "--overlap",
            "/bin/sh", "-c", SHELL, "gpudoctor", "python3"]


def _first_part(environ):
    """(options, stub, PAYLOAD_ENV value) of this run where they are known now (the module's
    docstring says when), else None: the options commands/common.py gather_nodes gives a
    `facts` or `check` that plan() lets through ({"resolve": the job's nodes in
    inventory.resolve's order, "env_key": a new key}), the stub transport/srun.py builds of
    them with the cached blob."""
    from gpudoctor.transport import default_nodelist

    nodelist = default_nodelist(environ)[0] or ""
    from gpudoctor.nodes import _plain_indexes, expand

    if _plain_indexes(nodelist) is None or any(_may_name_python(p, _HISTORY_KEY) for p in _configs(environ)):
        return None
    from gpudoctor import blobcache

    # os.urandom(32).hex(), as commands/common.py makes the run's key (secrets.token_hex(32))
    options = {"resolve": expand(nodelist), "env_key": os.urandom(32).hex()}
    parts = blobcache.cached(blobcache.left_out(options, {}))
    if parts is None:
        return None
    from gpudoctor.transport.srun import build_stub, env_value

    stub = build_stub(options, {}, parts=parts)
    value = env_value(stub)
    return None if value is None else (options, stub, value)


def start(argv, environ=None):
    """Start the step when this run will surely gather the allocation's nodes through srun;
    never raises (the transport starts its own)."""
    env = os.environ if environ is None else environ
    try:
        cmd = plan(argv, env)
        if cmd is None:
            return
        try:
            first = _first_part(env)
        except Exception:
            first = None
        import time

        _started[0] = time.time()  # before the step: the start of the window its facts come in (transport.stamp)
        if first is not None:
            from gpudoctor.transport.srun import start_step

            # E2BIG (no room for it in this environment): started without it, on stdin then
            proc, value = start_step(cmd, first[2])
            first = first if value is not None else None
        else:
            import subprocess

            from gpudoctor.transport.srun import step_environ

            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True, env=step_environ(env))
    except Exception:
        return
    _state.update(proc=proc, cmd=cmd, env=dict(env), cwd=os.getcwd())
    if first is not None:
        _state.update(options=first[0], stub=first[1], value=first[2])


def key():
    """The key of the run whose first part the early step carries, else None (the run makes its
    own: commands/common.py)."""
    return _state["options"]["env_key"] if _state["proc"] is not None and _state["options"] else None


def _same(early, cmd):
    if len(early) != len(cmd):
        return False
    for a, b in zip(early, cmd):
        if a == b:
            continue
        if not (a.startswith("--nodelist=") and b.startswith("--nodelist=")):
            return False
        from gpudoctor.nodes import expand

        try:
            if sorted(expand(a.split("=", 1)[1])) != sorted(expand(b.split("=", 1)[1])):
                return False
        except Exception:
            return False
    return True


def take(cmd, options=None, per_host=None):
    """(the early step's process, the stub and PAYLOAD_ENV value its environment carries, or
    None, None) when ``cmd`` is what it runs (in the same environment and folder) and, where it
    carries a first part, ``options`` and ``per_host`` are the ones that part was built from;
    else None (and the early step, if any, is stopped). Taken at most once."""
    proc = _state["proc"]
    if proc is None:
        return None
    early = _state["cmd"]
    same = _same(early, cmd) and _state["env"] == dict(os.environ) and _state["cwd"] == os.getcwd()
    if same and _state["options"] is not None:
        same = options == _state["options"] and not per_host
    if not same:
        discard()
        return None
    got = (proc, _state["stub"], _state["value"])
    _state.update(_EMPTY)
    return got


def discard():
    """Stop an early step nobody took (SIGTERM, then SIGKILL to its process group after 1 s)."""
    proc = _state["proc"]
    _state.update(_EMPTY)
    if proc is None:
        return
    from gpudoctor.transport.srun import SrunTransport  # imported by now on most paths that get here

    try:
        proc.stdin.close()  # the tasks read an empty script and exit (one running from its environment is ended below)
    except OSError:
        pass
    SrunTransport._stop(proc, grace=1.0)  # SIGTERM cancels the step; SIGKILL if srun lingers
    for f in (proc.stdout, proc.stderr):
        try:
            f.close()
        except OSError:
            pass


def started():
    """Whether an early step is waiting to be taken (for tests)."""
    return _state["proc"] is not None
