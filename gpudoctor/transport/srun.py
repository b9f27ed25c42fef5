"""The collector as one Slurm task per node, through Slurm's own tree fan-out: no SSH
between nodes, no connection per node from this machine (``--via srun``; the default
inside an allocation, see gpudoctor/transport/__init__.py ``choose``).

    srun --nodes=N --ntasks=N --ntasks-per-node=1 --nodelist=NODESET --kill-on-bad-exit=0
         --label ... sh -c 'announce; find python; exec python -' gpudoctor PYTHON

(https://slurm.schedmd.com/srun.html). What every node reads first (the stub and the
collector's bytecode, about 48 KB) travels in the step's environment where the transport starts
the step (srun(1) --export, ALL by default: it goes with the launch request through slurmd's
tree), else, and for a node that asks for the sources, on srun's stdin, which srun sends to
every task (man srun, "IO Redirection": "stdin will be redirected from the standard input of
srun to all remote tasks"). ``--label`` prefixes every line with the task id, so lines of
different tasks never mix:

- the shell announces its node first (``gpudoctor-task $SLURMD_NODENAME``), before python
  runs, so a task whose python is missing or prints garbage is still mapped to a node;
- a stub in front of the collector adds this node's options (per-host options of the
  rendezvous probe included), captures the collector's stdout and writes it back as
  ``gpudoctor-chunk NODE <base64 of zlib>`` lines of at most 1,000 characters and one
  ``gpudoctor-end NODE RC LENGTH`` frame.

srun's own lines are unlabelled: ``srun: error: NODE: task N: Exited with exit code X``
(src/srun/launch.c: "%s: %s %s: Exited with exit code %d"), ``Task launch for StepId=...
failed on node NODE: ...`` (src/api/step_launch.c: a node not responding; both in
SchedMD/slurm at 284c3b95, and the first seen verbatim from Debian's Slurm 22.05). A task
that exits without its end frame, a node that never answers by the deadline, and a task
whose output passes MAX_OUTPUT are classified from those. When every node has an answer,
or at the deadline, or on Ctrl-C, srun gets SIGTERM: it cancels the step and slurmstepd
ends every process of the step on every node (tested: a ``sleep 3600`` left in the
background by the collector is gone).
"""

import base64
import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zlib

from gpudoctor.transport import (MAX_OUTPUT, MAX_STDERR, MAX_TOTAL, NOT_FOUND_MARK, ControllerError, Node,
                                 Transport, het_group, het_groups, in_allocation, interpret, interrupted_node,
                                 is_fd_exhaustion, job_nodelist, timeout_node)

LINE = 1000  # characters of base64 per chunk line
# srun failures that say nothing about the node itself: Slurm could not start a task there
# (the node is down, drained, not in the job, its slurmd dead or hung, the launch failed).
# Only these are retried over ssh, and only when the user allowed it (--fallback ssh).
FALLBACK_KINDS = ("node-down", "node-drained", "node-busy", "slurmd", "slurm", "not-allocated", "not-in-partition",
                  "not-eligible", "partition-down")
READ_LIMIT = 1 << 16  # bytes of one line read at a time (longer lines are read in pieces)

SOURCE_ASK = "gpudoctor-source"  # the line a node prints for the collector's sources
# The step's environment variable that carries the first part (base64) where _run puts it there
PAYLOAD_ENV = "GPUDOCTOR_PAYLOAD"

# How the node's python reads stdin (build_stub writes it): a header line "LENGTH MAGIC NCODE
# NSOURCE", then LENGTH bytes that every node reads: the stub and the collector's loader compiled
# by the controller (NCODE bytes: zlib of marshal, used where the node's bytecode magic is MAGIC,
# the controller's, as the collector's modules are; bundle.build_parts), then the collector's blob
# up to its sources (bundle.build_parts: "magic ncode nsrc names" and the bytecode), which the stub
# gets as ``_gd_blob``. What follows, the stub as Python source (NSOURCE bytes) and the
# collector's sources, only a node of another interpreter reads: it asks with a `gpudoctor-source
# NODE` line, and the controller writes the rest to srun's stdin only when a node asks (_run).
# A node of the controller's Python compiles nothing but this line: compiling the stub and its
# loader there took 0.9 ms of every node's CPU (3.11). Python 2 syntax too. Compiled, as
# READ_STDIN (transport/__init__.py says why not `python3 -`). A run whose nodes all take the
# bytecode sends 48 KB to every node (64 names), one where some node asks 54 KB more or less.
# Where the first part came in the step's environment (PAYLOAD_ENV, base64; _run says when), the
# node takes it from there (and unsets it before the collector reads the environment) and reads
# nothing on stdin unless it needs the sources: those follow the same first part on stdin, which
# it skips (``k``). Where the variable is missing (srun --export=NONE, a task prolog that unsets
# it) the first part comes on stdin (the task's announcement says so, SHELL); where it is there
# but broken, the node asks for it with the sources' line.
READ_BLOB = ('import sys\nif sys.path and sys.path[0]=="":del sys.path[0]\nimport os\n'
             'i=getattr(sys.stdin,"buffer",sys.stdin);v=os.environ.pop("%(env)s","");k=0\n'
             'try:\n'
             ' e=__import__("binascii").a2b_base64(v);h,d=e.split(b"\\n",1);h=h.split()\n'
             ' k=len(h)==4 and len(d)==int(h[0])and int(h[2])>=0 and int(h[3])>=0 and len(e)\n'
             'except Exception:pass\n'
             'if not k:\n'
             ' v and(sys.stdout.write("%(ask)s %%s\\n"%%(os.environ.get("SLURMD_NODENAME")or os.uname()[1])),'
             'sys.stdout.flush())\n'
             ' h=i.readline().split();d=i.read(int(h[0]))\n'
             'n=int(h[2]);m=sys.modules.get("_frozen_importlib_external")\n'
             'c=n and m and getattr(m,"MAGIC_NUMBER",b"").hex().encode()==h[1] and '
             '__import__("marshal").loads(__import__("zlib").decompress(d[:n]))\n'
             'c or(sys.stdout.write("%(ask)s %%s\\n"%%(os.environ.get("SLURMD_NODENAME")or os.uname()[1])),'
             'sys.stdout.flush())\n'
             'exec(c[0]if c else compile((i.read(k),i.read(int(h[3])))[1],"<stdin>","exec"),{"__name__":"__main__",'
             '"_gd_blob":d[n:],"_gd_in":i,"_gd_loader":c and c[1],"_gd_skip":c and int(h[3])+k})'
             % {"ask": SOURCE_ASK, "env": PAYLOAD_ENV})

# Runs on the node, as `sh -c SHELL gpudoctor PYTHON`: the node announces itself before
# anything can fail (`gpudoctor-task NODE`, with ` env` after it where the step's environment
# has the first part: a node without it gets it on stdin), then the same 'not found' mark as the
# ssh transport.
SHELL = ('echo "gpudoctor-task ${SLURMD_NODENAME:-$(hostname)}${%s:+ env}"; py=$1; '
         'command -v "$py" >/dev/null 2>&1 || { echo "%s $py" >&2; exit 127; }; exec "$py" -c \'%s\''
         % (PAYLOAD_ENV, NOT_FOUND_MARK, READ_BLOB))

# Put in front of the collector's loader and blob. Python 2 syntax too, so that an old python
# reaches the loader's own "too old" message. No base64 (it imports re) and no --set options
# on sys.argv: the options go to the collector as they are, written as Python literals
# (py_literal: the values json.loads gave the stub before, without importing json on the node).
STUB = r"""# -*- coding: utf-8 -*-
# gpudoctor srun stub
import binascii, os, sys, zlib
_node = os.environ.get("SLURMD_NODENAME") or os.uname()[1]
_opts = %(common)s
_opts.update(%(per)s.get(_node, {}))
_opts["node"] = _node
try:
    from io import StringIO
except ImportError:
    from StringIO import StringIO
_real, _buf = sys.stdout, StringIO()


def _gd_more(n):
    # the collector's sources, after the part read first: asked for, then read (build_stub).
    # Compiled by the controller (_gd_skip: the length of the stub's source), the stub asks and
    # skips its own source first; from its source, READ_BLOB asked and read it already.
    if _gd_skip:
        _real.write("%(ask)s %%s\n" %% _node)
        _real.flush()
        _gd_in.read(_gd_skip)
    return _gd_in.read(n)


sys.stdout = _buf
_rc = 0
try:
    exec(%(loader)s, {"__name__": "__main__", "_gd_blob": _gd_blob, "_gd_opts": _opts, "_gd_more": _gd_more})
except SystemExit as _e:
    _rc = _e.code if isinstance(_e.code, int) else (0 if _e.code is None else 1)
except BaseException as _e:
    sys.stderr.write("gpudoctor: collector crashed: %%s: %%s\n" %% (type(_e).__name__, _e))
    _rc = 3
sys.stdout = _real
_data = binascii.b2a_base64(zlib.compress(_buf.getvalue().encode("utf-8"))).decode("ascii").strip()
# one write: with PYTHONUNBUFFERED (common in training environments) each line was a write(2)
# of its own, and a wake-up of slurmstepd
_real.write("".join(["gpudoctor-chunk %%s %%s\n" %% (_node, _data[_i:_i + %(line)d])
                     for _i in range(0, len(_data), %(line)d)]) + "gpudoctor-end %%s %%d %%d\n" %% (_node, _rc, len(_data)))
_real.flush()
# The frame is out: the task ends here, without the interpreter's finalization (the teardown of
# every module and object, and the collection gc.disable() put off: 5-6 ms of each node's CPU with
# pyenv's 3.11, 2 ms with Debian's, against a whole run's 4-6 ms of sections; docs/benchmarks.md
# "srun-smalln"). os._exit flushes nothing and runs no atexit handler (Python docs, os._exit), so
# the streams a message may still sit in are flushed first (stderr is block-buffered before 3.9
# when it is not a terminal). A command the collector left running is ended by slurmstepd with
# the step, as before.
for _s in (sys.stderr, sys.__stderr__, sys.__stdout__):
    try:
        _s.flush()
    except Exception:
        pass
os._exit(0)
"""

_TASK_EXIT = re.compile(r"^srun: error: (\S+): tasks? ([\d,\-]+): (.*)$")
_LAUNCH_FAIL = re.compile(r"failed on node (\S+): (.*)$")
# srun's words for a node whose Prolog failed (22.05: "srun: Prolog failure on node sn3", and without
# PrologFlags=Alloc "srun: error: Task launch for StepId=124.0 failed on node sn3: Job prolog failed")
_PROLOG_FAIL = re.compile(r"^srun: Prolog failure on node (\S+)|failed on node (\S+): Job prolog failed")
# srun's words for a node whose slurmd it could not reach at the task launch (Slurm's slurm_strerror:
# SLURM_COMMUNICATIONS_CONNECTION_ERROR "Communication connection failure", seen on 22.05 for a node whose
# slurmd was killed and whose link went down; the socket errors for a refused or silent port)
_UNREACHED = re.compile(r"Communication connection failure|Connection refused|Connection timed out|"
                        r"Socket timed out on send/recv operation|No route to host")
_EXECVE = re.compile(r"slurmstepd(?:-(\S+))?: error: execve\(\): (.*)$")
# The step ended by Slurm, not by gpudoctor: scancel, the allocation revoked (salloc got SIGINT
# without a terminal), the job's time limit. srun says "Job step aborted: Waiting up to 32 seconds
# for job step to finish.", slurmstepd "*** STEP 33.0 ON sn1 CANCELLED AT <time> [DUE TO TIME
# LIMIT] ***" (both seen with Slurm 22.05), and a task still running ends by a signal
# ("srun: error: sn4: task 3: Terminated").
_ABORTED = re.compile(r"srun: Job step aborted|\*\*\* (?:STEP|JOB) \S+ ON \S+ CANCELLED AT [^*]{1,80}\*\*\*")
_SIGNALLED = ("Terminated", "Killed", "Hangup", "Interrupt")
# srun's words for a job Slurm cannot start now (seen on 22.05: "srun: job 86 queued and waiting
# for resources"; "srun: job 86 has been allocated resources" follows once it starts)
_QUEUED = re.compile(r"srun: job (\d+) queued and waiting for resources")
_ALLOCATED = re.compile(r"srun: job \d+ has been allocated resources")


def py_literal(value):
    """``value`` as a Python literal that evaluates to json.loads(json.dumps(value)), what the
    stub's json.loads gave the collector before: through JSON first (keys as strings, tuples
    as lists, a value JSON cannot write raises as json.dumps does), then written as Python:
    strings with ascii() (Python 2 parses them too), a float that is not finite as
    float('inf') (json.loads reads Infinity as inf). Never evaluated here: the node compiles it."""
    return _literal(json.loads(json.dumps(value)))


def _literal(v):
    if isinstance(v, dict):
        return "{%s}" % ", ".join("%s: %s" % (ascii(k), _literal(x)) for k, x in v.items())
    if isinstance(v, list):
        return "[%s]" % ", ".join(_literal(x) for x in v)
    if isinstance(v, str):
        return ascii(v)
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return "float(%r)" % repr(v)
    return repr(v)  # None, True, False, int, float


def build_stub(options, per_host, parts=None):
    """What srun sends to every node's stdin (bytes, READ_BLOB reads it): a header line, the
    stub with this run's options and the collector's loader compiled here, the collector's blob
    up to its sources (bundle.build_parts: "magic ncode nsrc names" and the bytecode), then the
    stub as source and the collector's sources, which a node reads only after asking for them
    (first_part says where they start). ``parts``: (loader, blob), by default the collector
    without the modules no node of this run needs (bundle.left_out); a blob not in
    build_parts' layout goes in the first part."""
    if parts is None:
        from gpudoctor import blobcache

        parts = blobcache.parts(blobcache.left_out(options, per_host))
    loader, blob = parts
    fields = {"common": py_literal(options), "per": py_literal(per_host), "line": LINE, "ask": SOURCE_ASK}
    source = (STUB % dict(fields, loader='compile(%r, "<gpudoctor>", "exec")' % (loader,))).encode("utf-8")
    magic, code = _compiled(STUB % dict(fields, loader="_gd_loader"), loader)
    head, nl, rest = blob.partition(b"\n")
    words = head.split(b" ")
    keep = len(blob)
    if nl and len(words) == 4 and words[1].isdigit() and words[2].isdigit() \
            and len(rest) == int(words[1]) + int(words[2]):
        keep = len(head) + 1 + int(words[1])
    first = code + blob[:keep]
    return b"%d %s %d %d\n" % (len(first), magic, len(code), len(source)) + first + source + blob[keep:]


def _compiled(stub, loader):
    """(this interpreter's bytecode magic, hexlified; zlib of the marshalled (stub, loader) code
    objects), compiled as a node would compile their sources (no optimisation, the same file
    names), with blobcache.lines_only's location tables; (b"-", b"") where that fails: every node
    then asks for the stub's source."""
    import marshal

    try:
        from gpudoctor.blobcache import lines_only

        codes = tuple(lines_only(compile(text, name, "exec", dont_inherit=True, optimize=0))
                      for text, name in ((stub, "<stdin>"), (loader, "<gpudoctor>")))
        magic = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER  # what READ_BLOB compares
        return magic.hex().encode("ascii"), zlib.compress(marshal.dumps(codes), 6)
    except (SyntaxError, ValueError, TypeError, KeyError, AttributeError):
        return b"-", b""


# Characters of base64 the first part may take in the step's environment: one "NAME=value"
# string passes execve only under MAX_ARG_STRLEN (32 pages, 131,072 bytes: Linux
# include/uapi/linux/binfmts.h), and Slurm copies each variable through buffers of 256 KiB
# (src/common/env.c ENV_BUFSIZE). A larger first part (options naming thousands of nodes) goes on
# stdin as before.
ENV_LIMIT = 100000


def env_value(stub):
    """The first part of ``stub`` (first_part) as the step's PAYLOAD_ENV value (base64), or
    None where it is longer than ENV_LIMIT."""
    text = base64.b64encode(stub[:first_part(stub)]).decode("ascii")
    return text if len(text) <= ENV_LIMIT else None


# srun's input environment variables (srun(1), INPUT ENVIRONMENT VARIABLES) that reshape gpudoctor's own
# step, left out of srun's environment. Where its output goes (--output, --error, --input): with
# SLURM_STDOUTMODE=out-%t.txt every node was `slurm` "srun ran no task there: srun exited 0" (the frames went to
# files); --unbuffered (SLURM_UNBUFFEREDIO=1, which users set to see a job's prints at once) cut the frames
# ("broken frame: frame of 3848 characters, 1000 received" on every node). Seen on the 4-node bed, Slurm 22.05.
STEP_IO_ENV = ("SLURM_STDOUTMODE", "SLURM_STDERRMODE", "SLURM_STDINMODE", "SLURM_UNBUFFEREDIO")
# Inside an allocation, the GPU requests sbatch/salloc export to the job's steps (sbatch(1), OUTPUT
# ENVIRONMENT VARIABLES: SLURM_GPUS_PER_TASK "only set if the --gpus-per-task option is specified"): the
# step's one task per node would get one task's share (`#SBATCH --gpus-per-task=1`: 1 GPU of the node's
# 8, the collector seeing 1 under ConstrainDevices). Without them the step gets every GRES of the job
# (srun(1) --gres: "By default, a job step is allocated all of the generic resources that have been
# requested by the job"). Outside an allocation they are the user's request for gpudoctor's own job: kept.
STEP_GRES_ENV = ("SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_SOCKET", "SLURM_GPUS_PER_TASK", "SLURM_GRES",
                 "SLURM_CPUS_PER_GPU", "SLURM_MEM_PER_GPU", "SLURM_GPU_BIND", "SLURM_GPU_FREQ", "SLURM_TRES_PER_TASK",
                 "SLURM_NTASKS_PER_GPU", "SLURM_GRES_FLAGS")


def step_environ(environ=None):
    """The environment srun starts gpudoctor's steps with: this process's, without STEP_IO_ENV and,
    inside an allocation, STEP_GRES_ENV."""
    env = dict(os.environ if environ is None else environ)
    drop = STEP_IO_ENV + (STEP_GRES_ENV if in_allocation(env) else ())
    for name in drop:
        env.pop(name, None)
    return env


def start_step(cmd, value):
    """(srun's process, ``value``) started with ``value`` (env_value; None: none) as PAYLOAD_ENV
    in its environment; where execve(2) refuses that environment as too big (E2BIG), started
    without it, as (process, None): the first part then goes on stdin. An OSError else is raised.
    The transport's own step and early_srun.py's both start this way."""
    env = step_environ()
    env.pop(PAYLOAD_ENV, None)
    if value is not None:
        env[PAYLOAD_ENV] = value
    try:
        return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, env=env), value
    except OSError as exc:
        if value is None or exc.errno != errno.E2BIG:
            raise
        env.pop(PAYLOAD_ENV)
        return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, env=env), None


def first_part(stub):
    """How many bytes of build_stub's output every node reads (the rest: the stub's source and
    the collector's sources, asked for)."""
    line, _, _ = stub.partition(b"\n")
    return len(line) + 1 + int(line.split()[0])


def _waits(t, finished):
    """Whether a task holds nothing up: over, or announced and waiting for its stdin (a task that
    has its first part from the step's environment runs until it asks for the sources)."""
    if t.node in finished:
        return True
    if t.chunks or t.end or t.garbage or t.err or t.overflow:
        return False
    return t.asked if t.env else not t.asked


class _Task(object):
    def __init__(self):
        self.node = None
        self.chunks = []
        self.size = 0
        self.end = None  # (rc, length)
        self.err = []
        self.err_size = 0
        self.garbage = []  # lines that are not frames (kept bounded, for the message)
        self.overflow = False
        self.asked = False  # asked for the collector's sources
        self.env = False  # announced with the first part in its environment
        self.received = None  # when its end frame came (this machine's clock)


def head_is_chunk(text):
    return text.startswith("gpudoctor-chunk ")



def _ended_with_the_job(node):
    """A node of gpudoctor's job that failed because Slurm ended the job under it: srun ran no task there (`slurm`),
    or its task had started and was killed when another node's Prolog failed (slurmstepd signals every task of the
    job: SIGTERM, then SIGKILL after KillWait; the collector exits 143 / 137, as seen under load on the 4-node bed,
    tests/test_slurm22.py). https://slurm.schedmd.com/slurm.conf.html#OPT_KillWait"""
    if node.reachable:
        return False
    if node.error_kind == "slurm":
        return True
    return node.error_kind == "collector" and (node.error or "").startswith(("collector exited 143:",
                                                                          "collector exited 137:"))


class SrunTransport(Transport):
    name = "srun"
    kept = 0  # characters of frames held, all tasks together
    _silent = ()  # nodes that never announced a task in a step stopped as stuck

    def command(self, hosts, python):
        from gpudoctor.inventory import validate_host

        for h in hosts:
            validate_host(h.name, h.source or "host")
            if "@" in h.name:
                from gpudoctor.errors import InputError

                raise InputError("--via srun: %s names a user; Slurm runs the task as the job's user (use --via ssh)"
                                 % h.name)
        srun = shutil.which("srun")
        if not srun:
            from gpudoctor.errors import InputError

            raise InputError("--via srun: srun is not on PATH (use --via ssh)")
        groups = het_groups() if in_allocation() else []
        if groups:  # a heterogeneous job: one component of the step per component of the job that holds nodes
            taken, parts = set(), []
            for i, members in groups:
                mine = [h for h in hosts if h.name in members and h.name not in taken]
                taken.update(h.name for h in mine)
                if mine:
                    parts.append((i, mine))
            cmd = [srun]
            for k, (i, mine) in enumerate(parts):
                cmd += ([":"] if k else []) + ["--het-group=%d" % i] + self._component(mine, python)
            return cmd if parts else self._component(hosts, python, srun)
        return self._component(hosts, python, srun)

    def _component(self, hosts, python, srun=None):
        """srun's words for one step (with ``srun``) or one component of a heterogeneous one."""
        from gpudoctor.nodes import fold

        nodelist = fold([h.name for h in hosts])
        n = len(hosts)
        # --mpi=none: the collector is no MPI program; MpiDefault=pmix in slurm.conf, or
        # SLURM_MPI_TYPE=pmix in the environment, would give it a PMIx server per step and, where
        # the plugin is missing, no task at all ("task 0 launch failed: Unspecified error" on the
        # 4-node bed with SLURM_MPI_TYPE=pmix, every node `slurm`). srun(1) --mpi.
        cmd = ([srun] if srun else []) + [
            "--nodes=%d" % n, "--ntasks=%d" % n, "--ntasks-per-node=1", "--nodelist=" + nodelist,
            "--kill-on-bad-exit=0", "--label", "--job-name=gpudoctor", "--mpi=none"]
        if in_allocation():
            # Share the allocation with steps already running (the training itself): without
            # it the step waits ("Requested nodes are busy") until the deadline. srun(1),
            # --overlap: "allows steps to share all resources (CPUs, memory, and GRES) with all
            # other steps" (Slurm 20.11+), so no --mem=0 or --exact is needed beside it, and
            # the step keeps the job's GPUs ("By default, a job step is allocated all of the
            # generic resources that have been requested by the job", --gres): with
            # ConstrainDevices the collector sees the GPUs the job sees.
            # https://slurm.schedmd.com/srun.html#OPT_overlap
            cmd.append("--overlap")
        else:  # a job of its own: bound it, should this process die (minutes)
            cmd += ["--time=%d" % (int(self.timeout // 60) + 2), "--comment=" + self._mark()]
        cmd += list(self.settings.get("srun_args") or [])
        # /bin/sh, not sh: with --export=NONE (SLURM_EXPORT_ENV=NONE) a task has no PATH and
        # slurmstepd's execve() of "sh" failed ("execve(): sh: No such file or directory"), read
        # as python-missing on every node; dash searches its default PATH for python then.
        return cmd + ["/bin/sh", "-c", SHELL, "gpudoctor", python]

    def run(self, hosts, payload):
        """One Node per host (see _run_all), each marked with the transport that reached it
        (``via``). With ``fallback="ssh"`` (--fallback ssh, or the config key; off by default)
        the nodes srun could not reach for Slurm's reasons (FALLBACK_KINDS) are tried again
        over ssh, and the ones reached there say so."""
        nodes = self._run_all(hosts, payload)
        for n in nodes:
            n.via = "srun"
        if self.settings.get("fallback") == "ssh":
            nodes = self._fallback_ssh(hosts, nodes, payload)
        return nodes

    def _fallback_ssh(self, hosts, nodes, payload):
        """Retry over ssh the nodes whose srun failure says nothing about the node itself
        (Slurm could not start a task there); a node whose collector hung, printed garbage or
        has no python fails the same way over ssh and is not retried."""
        retry = [h for h, n in zip(hosts, nodes) if not n.reachable and n.error_kind in FALLBACK_KINDS]
        if not retry:
            return nodes
        from gpudoctor.transport.ssh import SSHTransport

        ssh = SSHTransport(jobs=self.jobs, timeout=self.timeout, progress=False,
                           **dict((k, v) for k, v in self.settings.items() if k in ("ssh_config", "host_key_policy")))
        try:
            again = ssh.run(retry, payload)
        except KeyboardInterrupt as exc:  # every host in the partial list, not only the retried ones
            partial = dict((n.host, n) for n in getattr(exc, "partial_nodes", None) or [])
            exc.partial_nodes = [partial.get(h.name, n) if h in retry else n for h, n in zip(hosts, nodes)]
            raise
        got = dict((h.name, n) for h, n in zip(retry, again))
        out = []
        for h, n in zip(hosts, nodes):
            again = got.get(h.name)
            if again is None:
                out.append(n)
            elif again.reachable:
                again.via = "ssh"
                again.fallback_from = "srun: %s: %s" % (n.error_kind, n.error)
                out.append(again)
            else:  # the srun cause first (the one the fix starts from), then what ssh said
                n.error = "%s; over ssh (--fallback ssh): %s: %s" % (n.error, again.error_kind, again.error)
                out.append(n)
        return out

    def _run_all(self, hosts, payload):
        """Nodes Slurm itself says cannot run a task (down, drained, not responding, unknown,
        not in this job's allocation) are classified from one ``scontrol show node`` and left
        out of the step: srun would otherwise wait for them until the deadline and no node
        would be reported. The rest run as one step."""
        self.command(hosts, payload.python or "python3")  # refuse bad input before asking Slurm
        # The collector's script is built (50-60 ms of CPU, once per run) while scontrol answers:
        # the tasks wait for it on their stdin, so it is on the way to every node's first fact.
        # A build that fails is simply built again (and fails) in _run, in this thread. From the
        # cache (blobcache.py), without importing the collector package.
        from gpudoctor import blobcache

        builder = threading.Thread(target=blobcache.parts,
                                   args=(blobcache.left_out(payload.options, payload.per_host_options),), daemon=True)
        builder.start()
        known = self._preflight([h.name for h in hosts])
        builder.join()
        live = [h for h in hosts if h.name not in known]
        t0 = time.time()
        # A slurmd that is alive but answers nothing (stopped, stuck in the kernel) holds the
        # whole step: the other nodes' tasks start, but srun forwards them no stdin until
        # every node has answered the launch (seen on 22.05: "Task launch ... failed on node
        # sn2: Socket timed out" only after minutes). When every task is over or waits for its
        # stdin by then and a node never announced, each silent node is tried alone (`srun -w
        # NODE true`), and the step runs again, for the nodes with no answer yet, without the
        # ones that could not start even that.
        # One node alone is stopped that way only while srun says its job is queued ("srun: job N
        # queued and waiting for resources"): that node is what the job waits for. It waited
        # until the deadline and was reported as a timeout ("sshd hangs") before: `gpudoctor
        # check --via srun --nodes sn1` beside a job on sn1 in an OverSubscribe=EXCLUSIVE
        # partition, on a real 4-node Slurm 22.05.
        stall = min(max(3.0, self.timeout / 4), 20.0) if live else None
        self._kept = {}
        self._queued = False
        self._why_queued = {}  # {node: what srun and slurmctld said of its queued job}
        self._prolog_failed, self._prolog_seen = set(), set()  # nodes srun said the Prolog failed on (_lines)
        got = self._run(live, payload, stall_after=stall, queued_only=len(live) == 1) if live else []
        if got is None:  # only the nodes that never announced a task are suspects
            silent = [h for h in live if h.name in self._silent]
            if len(live) == 1 and self._queued:
                ok, hung, queued = [], [], silent
                self._why_queued = dict((h.name, self._queued_words(self._queued)) for h in silent)
            else:
                ok, hung, queued = self._isolate(silent, min(5.0, max(1.0, (self.timeout - (time.time() - t0)) / 3)))
            ok = [h for h in live if h.name not in self._silent and h.name not in self._kept] + ok
            # the rest of the deadline, and never less than 5 s for the nodes that answered
            left = max(self.timeout - (time.time() - t0), min(5.0, self.timeout))
            got = list(self._kept.values())
            if ok:
                saved, self.timeout = self.timeout, left
                try:
                    got += self._run(ok, payload) or []
                finally:
                    self.timeout = saved
            got += [Node(host=h.name, error="slurmd did not start a task there within %.0fs (alive but not answering: "
                         "stopped, or stuck in the kernel); it held the step of every node, so the others were "
                         "gathered without it" % (time.time() - t0), error_kind="slurmd") for h in hung]
            got += [Node(host=h.name, error="Slurm did not start gpudoctor's job there within %.0fs (srun: job queued "
                         "and waiting for resources%s): running jobs hold the node's CPUs or memory, a reservation "
                         "holds the node, or a limit keeps the job waiting; `squeue -w %s` names the jobs, `scontrol "
                         "show reservation` the reservations" % (
                             time.time() - t0, self._why_queued.get(h.name, ""), h.name),
                         error_kind="node-busy") for h in queued]
        done = dict((n.host, n) for n in got)
        self._after_prolog(live, done, payload, t0)
        self._after_launch_failure(live, done, payload, t0)
        if getattr(self, "_left_jobs", False):
            self._cancel_own_jobs()
        done.update(known)
        return [done[h.name] for h in hosts]

    def _mark(self):
        """The --comment of this run's own jobs outside an allocation (its pid and 8 random hex digits)."""
        if getattr(self, "_comment", None) is None:
            import secrets

            self._comment = "gpudoctor-%d-%s" % (os.getpid(), secrets.token_hex(4))
        return self._comment

    def _cancel_own_jobs(self):
        """scancel the jobs of this run that a stopped srun left behind (outside an allocation). A
        job whose srun was stopped while a node's slurmd answered nothing stayed RUNNING on that
        node after the slurmd came back, holding a CPU until its --time (2 minutes; a real 4-node
        Slurm 22.05, slurm22): srun ends its job only once every node answered. Found by this
        run's --comment in `squeue --me` (%k), so no other job of the user is touched. Bounded:
        5 s each call."""
        comment = getattr(self, "_comment", None)
        squeue, scancel = shutil.which("squeue"), shutil.which("scancel")
        if not comment or not squeue or not scancel:
            return
        try:
            p = subprocess.run([squeue, "--me", "-h", "-o", "%i %k"], stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=5)
            ids = [w[0] for w in (line.split(None, 1) for line in
                                  p.stdout[:MAX_OUTPUT].decode("utf-8", "replace").splitlines()[:10000])
                   if len(w) == 2 and w[0].isdigit() and w[1].strip() == comment][:1000]
            if ids:
                subprocess.run([scancel] + ids, stdin=subprocess.DEVNULL, capture_output=True, timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def _after_prolog(self, live, done, payload, t0):
        """The nodes whose Prolog failed when gpudoctor's job started there, and the nodes that
        failed with them. A Prolog that fails on one node (gpudoctor's own prolog, on a node it
        drains) ends the whole job: with PrologFlags=Alloc srun says "Prolog failure on node sn3 ...
        Nodes sn[1-4] are still not ready ... Something is wrong with the boot of the nodes" and
        starts no task; without it the other nodes' tasks are killed. Every node of a real 4-node
        Slurm 22.05 was reported `slurm` for sn3's prolog (slurm22). Now the node whose prolog
        failed is what Slurm lists it as now (drained, with the prolog's reason), and outside an
        allocation the others that failed with it run again once without it (gpudoctor's job is
        its own; inside one the job is over). https://slurm.schedmd.com/prolog_epilog.html"""
        for _ in range(2):  # a second node's prolog may fail in the run again
            failed = [h for h in live if h.name in self._prolog_failed and h.name not in self._prolog_seen]
            if not failed:
                return
            self._prolog_seen.update(h.name for h in failed)
            now = self._preflight([h.name for h in failed]) if not in_allocation() else {}
            for h in failed:
                n = now.get(h.name)
                done[h.name] = Node(host=h.name, error="the node's Prolog failed when gpudoctor's %s started there "
                                    "(srun: Prolog failure on node %s)%s" % (
                                        "step" if in_allocation() else "job", h.name,
                                        "; " + n.error if n else ": Slurm ended the job; the prolog's output is in "
                                        "slurmd's log there (`prolog failed: rc:`)"),
                                    error_kind=n.error_kind if n else "slurm")
            again = [h for h in live if h.name not in self._prolog_failed and done.get(h.name) is not None
                     and _ended_with_the_job(done[h.name])]
            left = self.timeout - (time.time() - t0)
            if in_allocation() or not again or left < 1.0:
                return
            # The job's other nodes ran their prologs at the same time, and one that failed there too drained itself
            # while srun named only the first: a 4-node Slurm 22.05 with sn1's /tmp read-only and sn4's /dev/shm
            # full said "Prolog failure on node sn1" alone, sn4 drained in the same second; the run again asked for
            # sn4, its job stayed queued (a drained node) and sn4 read 'timeout' after the whole deadline (slurm27).
            # The run again waits for the ended job to leave the nodes (COMPLETING: their prologs end) and leaves out
            # what Slurm lists as out of service then, with its reason
            self._wait_completing([h.name for h in again], min(5.0, left / 4))
            now = self._preflight([h.name for h in again])
            for h in again:
                if h.name in now:
                    done[h.name] = now[h.name]
            again = [h for h in again if h.name not in now]
            left = self.timeout - (time.time() - t0)
            if not again or left < 1.0:
                return
            saved, self.timeout = self.timeout, max(left, min(5.0, self.timeout))
            try:
                for n in self._run(again, payload) or []:
                    done[n.host] = n
            finally:
                self.timeout = saved

    def _after_launch_failure(self, live, done, payload, t0):
        """The nodes srun's step ended with because the task could not start on another node (slurmd there refused
        it: an expired credential from a clock ahead, a missing user), run once more without that node. On a real
        4-node Slurm 22.05 with sn4's clock 150 s ahead, srun aborted the whole step ("Task launch for StepId=N.0
        failed on node sn4: Job credential expired"), and check and the probe read all four nodes as failed
        (slurm28); the allocation itself stays, so this holds inside one too."""
        # a node whose task srun killed in that abort before it wrote a line ("srun: error: sn1: task 0: Killed":
        # 'srun ran no task there') is the same case when another node's task could not start (one clean-clone CI
        # of two saw sn1 so, the other _ENDED_BY_OTHER)
        refused = any((n.error or "").startswith(_LAUNCH_REFUSED) for n in done.values() if n is not None)
        again = [h for h in live if done.get(h.name) is not None and done[h.name].error_kind == "slurm"
                 and ((done[h.name].error or "").startswith(_ENDED_BY_OTHER)
                      or refused and (done[h.name].error or "").startswith(_RAN_NONE))]
        left = self.timeout - (time.time() - t0)
        if not again or len(again) == len(live) or left < 1.0:
            return
        saved, self.timeout = self.timeout, max(left, min(5.0, self.timeout))
        try:
            for n in self._run(again, payload) or []:
                if not (n.error or "").startswith(_ENDED_BY_OTHER):  # the same again: keep the first words
                    done[n.host] = n
        finally:
            self.timeout = saved

    def _wait_completing(self, names, seconds):
        """Until no node of ``names`` is COMPLETING (a job that ended is still leaving it: its prolog or epilog
        runs), or ``seconds`` passed; one scontrol call every 0.2 s, each bounded."""
        from gpudoctor.nodes import fold

        scontrol = shutil.which("scontrol")
        end = time.time() + seconds
        while scontrol and names:
            try:
                p = subprocess.run([scontrol, "show", "node", "-o", fold(names)], stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=max(1.0, min(5.0, seconds)))
            except (OSError, subprocess.TimeoutExpired):
                return
            states = parse_node_states(p.stdout[:MAX_OUTPUT].decode("utf-8", "replace"))
            if not any("COMPLETING" in (states.get(n) or ("",))[0] for n in names) or time.time() >= end:
                return
            time.sleep(0.2)

    def _isolate(self, hosts, timeout):
        """(hosts where `srun -w NODE true` ran within ``timeout``, hosts where it did not, hosts
        where it did not because its job stayed queued: outside an allocation srun says "srun: job
        N queued and waiting for resources" when Slurm cannot give the job the node now (running
        jobs hold its CPUs or memory), a wait that is no hung slurmd)."""
        from concurrent.futures import ThreadPoolExecutor

        if not hosts:
            return [], [], []
        self.__dict__.setdefault("_why_queued", {})

        def one(h):
            # no --quiet: srun's "queued and waiting for resources" is one of its informational lines
            group = het_group(h.name) if in_allocation() else None
            cmd = [shutil.which("srun") or "srun"] + ([] if group is None else ["--het-group=%d" % group]) + [
                "--nodes=1", "--ntasks=1", "--nodelist=" + h.name, "--job-name=gpudoctor", "--mpi=none"]
            cmd += ["--overlap"] if in_allocation() else ["--time=1", "--comment=" + self._mark()]
            try:
                p = subprocess.Popen(cmd + ["true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True, env=step_environ())
            except OSError:
                return "hung"
            try:
                _, err = p.communicate(timeout=timeout)
                return "ok" if p.returncode == 0 else "hung"
            except subprocess.TimeoutExpired:
                self._stop(p, grace=0.5)  # srun would wait for the node that does not answer
                self._left_jobs = True
                try:
                    _, err = p.communicate(timeout=1.0)
                except (subprocess.TimeoutExpired, OSError, ValueError):
                    err = b""
                said = (err or b"")[:MAX_STDERR].decode("utf-8", "replace").splitlines()[:50]
                for line in said:
                    self._prolog(line)
                if any(_QUEUED.search(l) for l in said):
                    self._why_queued[h.name] = self._queued_words(said)
                    return "queued"
                return "hung"

        with ThreadPoolExecutor(max_workers=min(32, len(hosts))) as pool:
            answered = list(pool.map(one, hosts))
        return tuple([h for h, a in zip(hosts, answered) if a == want] for want in ("ok", "hung", "queued"))

    def _preflight(self, names):
        """{node: Node} for the nodes that cannot take a task now, from one scontrol call
        (bounded: 10 s at most). Inside an allocation a drained node of the job still runs
        the job's steps (a drain stops new jobs only: scontrol(1), State=DRAIN), so only a
        node that is down or not responding is left out there. If scontrol fails, nothing is
        left out: srun's own errors classify the nodes."""
        from gpudoctor.nodes import expand, fold

        out = {}
        allocated = set()
        if in_allocation():
            try:
                allocated = set(expand(job_nodelist()[0]))
            except Exception:  # a malformed variable: judge every node as outside the job
                allocated = set()
            # A step runs only on its job's nodes: srun --nodelist with another node fails the
            # whole step ("Requested node configuration is not available"), every node with it.
            if allocated:
                for h in names:
                    if h not in allocated:
                        out[h] = Node(host=h, error="not a node of job %s (%s=%s): a job step runs "
                                      "only on the job's own nodes" % (os.environ.get("SLURM_JOB_ID", "?")[:20],
                                                                        job_nodelist()[1][1:], job_nodelist()[0][:200]),
                                      error_kind="not-allocated")
                names = [h for h in names if h not in out]
        scontrol = shutil.which("scontrol")
        if not scontrol or not names:
            return out
        try:
            # --all: for a user who is not root, Partitions= leaves the hidden partitions out without it
            # (22.05 here: sn1's 'debug,...,p12' for nobody, '...,p12,hid' with --all), and a node in the
            # hidden partition $SLURM_PARTITION names would read as not-in-partition
            p = subprocess.run([scontrol, "--all", "show", "node", "-o", fold(names)], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=max(1.0, min(10.0, self.timeout / 3)))
        except (OSError, subprocess.TimeoutExpired):
            return out
        text = p.stdout[:MAX_OUTPUT].decode("utf-8", "replace")
        states = parse_node_states(text)
        # Outside an allocation gpudoctor's step is a job of its own, which waits in the queue
        # until each node has a free CPU: a node whose every CPU a running job holds (an
        # --exclusive job, or jobs on every core) kept the whole step from starting, and every
        # node was reported as a hung slurmd ("slurmd did not start a task there within 5s"),
        # then that node alone, once the others were tried one by one (a real 4-node Slurm).
        # Where memory is a consumable resource (SelectTypeParameters=CR_*_Memory), a job of
        # --mem=0 takes all of it (AllocMem = RealMemory, MB) with CPUs left free: the same wait
        # (seen with CR_Core_Memory; under CR_Core AllocMem stays 0).
        busy = {}
        used = {}  # {node: (CPUAlloc, CPUTot, AllocMem, RealMemory, [its partitions])} where jobs run
        member = {}  # {node: [its partitions]} (scontrol prints Partitions= for a node in any)
        unfit = {} if in_allocation() else job_misfits(text, os.environ)  # {node: why gpudoctor's job cannot go there}
        for line in text.splitlines()[:100000]:
            f = dict(re.findall(r"\b(NodeName|CPUAlloc|CPUTot|AllocMem|RealMemory|Partitions)=(\d+|\S+)", line))
            n, num = f.get("NodeName"), lambda k: int(f[k]) if f.get(k, "").isdigit() else 0
            if n and f.get("Partitions"):
                member[n] = f["Partitions"].split(",")[:100]
            if n and (num("CPUAlloc") or num("AllocMem")):
                used[n] = (num("CPUAlloc"), num("CPUTot"), num("AllocMem"), num("RealMemory"), member.get(n, []))
        modes = self._oversubscribe(scontrol) if not in_allocation() else {}
        for n, (cpu, cpus, mem, real, parts) in used.items():
            # the partitions gpudoctor's job may run in that hold this node, and each one's OverSubscribe
            mine = [modes[p] for p in parts if p in modes]
            if mine and all(m[0] == "EXCLUSIVE" for m in mine) and cpu:
                busy[n] = ("the partition gives every job whole nodes (OverSubscribe=EXCLUSIVE) and running jobs hold "
                           "CPUs of this one (CPUAlloc=%d of CPUTot=%d" % (cpu, cpus))
            elif cpus and cpu >= cpus and not any(m[0] == "FORCE" and m[1] > 1 for m in mine):
                busy[n] = "every CPU of the node is allocated to running jobs (CPUAlloc=%d of CPUTot=%d" % (cpu, cpus)
            elif real and mem >= real:
                busy[n] = "all memory of the node is allocated to running jobs (AllocMem=%d of RealMemory=%d MB" % (
                    mem, real)
        missing = set(re.findall(r"Node (\S+) not found", p.stderr[:MAX_STDERR].decode("utf-8", "replace")))
        # Every partition the job may go to is DOWN: Slurm queues the job and starts it nowhere (Reason=PartitionDown),
        # and every node was `node-busy` after the stall (10 s), "running jobs hold the node's CPUs" (the 4-node
        # bed: `scontrol update partitionname=front state=down`, SLURM_PARTITION=front). A DRAIN or INACTIVE
        # partition refuses the job at once, in srun's own words.
        down = sorted(m for m, v in modes.items() if v[2] == "DOWN") if modes and all(
            v[2] == "DOWN" for v in modes.values()) else []
        for h in names:
            if h in missing:
                out[h] = Node(host=h, error="Slurm knows no node %s (scontrol show node)" % h, error_kind="slurm")
                continue
            if down and h in states and not (h in member and not set(member[h]) & set(modes)):
                out[h] = Node(host=h, error="partition %s, where the job gpudoctor starts goes (%s), is DOWN: Slurm "
                              "queues jobs there and starts none (Reason=PartitionDown)" % (
                                  ",".join(down)[:200],
                                  "$SLURM_PARTITION" if os.environ.get("SLURM_PARTITION") else "the default partition"),
                              error_kind="partition-down")
                continue
            if h not in states:
                continue
            if modes and h in member and not set(member[h]) & set(modes):
                from gpudoctor.fixline import sh

                # srun refuses the whole job ("Requested node configuration is not available"), and
                # each node tried alone was then a hung slurmd ("alive but not answering"): a real
                # 4-node Slurm 22.05 with SLURM_PARTITION naming a partition of sn[1-2] only
                out[h] = Node(host=h, error="not in partition %s, where the job gpudoctor starts goes (%s); the "
                              "node is in %s: SLURM_PARTITION=%s gpudoctor ..." % (
                                  ",".join(sorted(modes))[:200],
                                  "$SLURM_PARTITION" if os.environ.get("SLURM_PARTITION") else "the default partition",
                                  ",".join(member[h])[:200], sh(member[h][0][:100])), error_kind="not-in-partition")
                continue
            if h in unfit:
                # srun refused the whole job ("Requested node configuration is not available"), every node
                # `slurm`: SLURM_CONSTRAINT=a100 or SLURM_GPUS_PER_NODE=1 over sn[1-4] of which two have
                # neither (the 4-node bed, Features=a100 Gres=gpu:2 on sn[1-2] only)
                out[h] = Node(host=h, error=unfit[h], error_kind="not-eligible")
                continue
            kind = node_unavailable(states[h][0], h in allocated)
            if kind:
                state, reason = states[h]
                out[h] = Node(host=h, error="Slurm lists the node as %s%s: no task can start there" % (
                    state, " (Reason=%s)" % reason if reason else ""), error_kind=kind)
            elif not in_allocation() and h in busy:
                out[h] = Node(host=h, error="%s, State=%s): the job gpudoctor starts outside an allocation would wait "
                              "for it; `squeue -w %s` names the jobs" % (busy[h], states[h][0], h), error_kind="node-busy")
        # A slurmd that died is still IDLE for slurmctld until SlurmdTimeout (300 s by default)
        # passes, and a step that includes it waits for it (with PrologFlags=Alloc the whole
        # allocation does): every node would time out. A refused TCP connection to its
        # slurmd port says it is gone now; anything else (a timeout, a firewall) proves
        # nothing and the node stays in the step.
        addrs = dict((n, a) for n, a in re.findall(r"^NodeName=(\S+) .*?\bNodeAddr=(\S+)", text, re.M)
                     if n in states and n not in out)
        if addrs:
            for h in refused(addrs, self._slurmd_port(scontrol)):
                out[h] = Node(host=h, error="slurmd does not answer on %s (connection refused), though Slurm still "
                              "lists the node as %s" % (addrs[h], states[h][0]), error_kind="slurmd")
        return out

    def _oversubscribe(self, scontrol):
        """{partition: (OverSubscribe mode, count)} of the partitions the job gpudoctor starts
        outside an allocation may run in: those $SLURM_PARTITION names (srun reads it as -p,
        srun(1) INPUT ENVIRONMENT VARIABLES), else the default one. {} when scontrol does not
        say (every node is then judged as in a partition that shares nothing, as before).

        Why: a node whose every CPU running jobs hold is no wait for a job of a partition with
        OverSubscribe=FORCE:N (N > 1): Slurm puts it on the same cores. On a real 4-node Slurm
        22.05 (CR_Core) `srun -p shared -w sn1 hostname` ran at once beside a 2-CPU job on sn1,
        in a FORCE:4 partition, and gpudoctor left sn1 out as node-busy. Such a job still
        waits for a job of a partition that shares nothing (seen, same bed); srun decides then,
        and a node whose job stays queued is node-busy all the same (_isolate). With
        OverSubscribe=EXCLUSIVE each job gets whole nodes: one running job on the node (MIXED,
        1 CPU of 2) kept gpudoctor's job queued. slurm.conf(5), OverSubscribe:
        https://slurm.schedmd.com/slurm.conf.html#OPT_OverSubscribe"""
        try:
            # --all: a hidden partition (Hidden=YES) is listed too, as srun -p takes it (without it a
            # user who is not root saw none: scontrol(1) -a, Slurm 22.05 here)
            p = subprocess.run([scontrol, "--all", "show", "partition", "-o"], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=max(1.0, min(5.0, self.timeout / 3)))
        except (OSError, subprocess.TimeoutExpired):
            return {}
        if p.returncode != 0:
            return {}
        from gpudoctor.slurm import partition_rows, wanted_partitions

        rows = partition_rows(p.stdout[:MAX_OUTPUT].decode("utf-8", "replace"))
        wanted = wanted_partitions(rows, os.environ)
        out = {}
        for f in rows:
            name = f["PartitionName"]
            if name not in wanted:
                continue
            mode, _, count = f.get("OverSubscribe", "NO").upper().partition(":")
            # a count left out is 4 for YES and FORCE (slurm.conf(5)); scontrol prints it. The
            # partition's State too (UP, DOWN, DRAIN, INACTIVE): _preflight reads DOWN
            out[name] = (mode, int(count) if count.isdigit() else 4 if mode in ("YES", "FORCE") else 1,
                         f.get("State", "UP").upper()[:20])
        return out

    def _slurmd_port(self, scontrol):
        try:
            p = subprocess.run([scontrol, "show", "config"], stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=5)
            m = re.search(rb"^SlurmdPort\s*=\s*(\d+)\s*$", p.stdout[:MAX_OUTPUT], re.M)
            return int(m.group(1)) if m else 6818
        except (OSError, subprocess.TimeoutExpired, ValueError):
            return 6818  # slurm.conf(5): SlurmdPort's default

    def _run(self, hosts, payload, stall_after=None, queued_only=False):
        """One step over ``hosts``: their Nodes; None when ``stall_after`` seconds passed with
        no word from any task (the step was stopped)."""
        python = payload.python or "python3"
        names = [h.name for h in hosts]
        cmd = self.command(hosts, python)
        per = dict((h, o) for h, o in (payload.per_host_options or {}).items())
        from gpudoctor import early_srun

        # the step cli.main started first thing, when it runs this very command (early_srun.py),
        # with the first part in its environment where it was built of these very options
        sent = time.time()  # the window's start for the nodes' clocks (transport.stamp)
        proc, stub, in_env = early_srun.take(cmd, payload.options or {}, per) or (None, None, None)
        if proc is not None:
            sent = min(sent, early_srun.started_at() or 0.0)  # the step started first thing (0: no lower bound known)
        self._sent = sent
        try:
            if proc is None:
                # A step of its own: the first part goes in the step's environment, which Slurm
                # sends with the launch request through slurmd's tree (srun(1) --export: ALL by
                # default), and not on stdin: srun writes stdin to each node's slurmstepd in
                # messages of at most 1 KiB (SchedMD/slurm src/api/step_io.c _file_read,
                # MAX_MSG_LEN), 48 KB in ~48 messages per node, each relayed to the task by its
                # slurmstepd (3-7 ms of CPU a node at 256 nodes here, docs/benchmarks.md).
                stub = build_stub(dict(payload.options or {}), per)
                proc, in_env = start_step(cmd, env_value(stub))
        except OSError as exc:
            if is_fd_exhaustion(exc):
                raise ControllerError("this machine ran out of file descriptors starting srun: %s" % exc)
            raise ControllerError("cannot run srun: %s" % exc)
        # The early step's script is built while srun launches it (its tasks start python, which
        # waits for stdin): the bundle's build (50-60 ms of CPU here, once per run) no longer
        # comes before the launch. Nothing is read from srun before the script is written, and
        # the tasks print nothing but their announcement until their stdin ends, far below a
        # pipe's buffer.
        try:
            if stub is None:
                stub = build_stub(dict(payload.options or {}), per)
        except BaseException:
            self._stop(proc, grace=1.0)
            raise
        started = time.time()
        deadline = started + self.timeout
        tasks = {}
        srun_lines = []
        lock = threading.Lock()
        first = first_part(stub)
        # set when a node asks for the collector's sources (_take) or when the step is over:
        # stdin stays open until then, and closes after the sources (if asked for)
        self._asked = asked = threading.Event()
        # set when the first part must go on stdin: at once where it is not in the step's
        # environment, else when a task announces itself without it (_take) or asks
        self._need = need = threading.Event()
        if in_env is None:
            need.set()
        over = [False]

        def feed():
            try:
                need.wait()
                if over[0]:
                    return
                proc.stdin.write(stub[:first])
                proc.stdin.flush()
                if first < len(stub):
                    asked.wait()
                    if not over[0]:
                        proc.stdin.write(stub[first:])
            except (BrokenPipeError, OSError, ValueError):
                pass
            finally:
                try:
                    proc.stdin.close()
                except OSError:
                    pass

        def end_feed():
            over[0] = True
            need.set()
            asked.set()

        def read(stream, is_err):
            # Chunks, not lines: a task streaming `yes garbage` sends ~700,000 lines per
            # 4 MiB, and each chunk's lines are handled under one lock.
            last, rest = None, b""
            while True:
                chunk = stream.read1(1 << 16) if hasattr(stream, "read1") else stream.read(1 << 16)
                if not chunk:
                    break
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()
                if len(rest) > READ_LIMIT:  # a line with no end: handled in pieces
                    lines.append(rest)
                    rest = b""
                with lock:
                    last = self._lines(lines, last, is_err, tasks, srun_lines)
            if rest:
                with lock:
                    self._lines([rest], last, is_err, tasks, srun_lines)

        threads = [threading.Thread(target=feed, daemon=True),
                   threading.Thread(target=read, args=(proc.stdout, False), daemon=True),
                   threading.Thread(target=read, args=(proc.stderr, True), daemon=True)]
        for t in threads:
            t.start()
        stopped = False
        try:
            while True:
                with lock:
                    settled = self._settled(names, tasks, srun_lines)
                    # stuck at launch: a node never announced, and every task that did is over
                    # or waits for stdin (srun forwards stdin only once every node has answered
                    # the launch)
                    fin = self._finished(tasks, srun_lines)
                    silent = bool(set(names) - set(t.node for t in tasks.values())) \
                        and all(_waits(t, fin) for t in tasks.values())
                if settled or proc.poll() is not None or time.time() >= deadline:
                    end_feed()
                    break
                if stall_after and silent and time.time() - started >= stall_after and not (
                        queued_only and not self._queued_now(srun_lines, lock)):
                    end_feed()
                    with lock:
                        self._queued = [l for l in srun_lines] if any(_QUEUED.search(l) for l in srun_lines) else False
                        self._silent = set(names) - set(t.node for t in tasks.values())
                        # the nodes whose task is over keep their answer (those that ran from
                        # the step's environment): only the others run again
                        done = self._results(names, tasks, srun_lines, python, final=True)
                        self._kept = dict((h, done[h]) for h in fin if h in done)
                    # srun would wait for the silent node to cancel the step (KillWait); the
                    # started tasks end by themselves once srun is gone (their stdin closes)
                    self._stop(proc, grace=1.0)
                    self._left_jobs = True
                    for t in threads[1:]:
                        t.join(2.0)
                    return None
                threads[1].join(0.1)
            if proc.poll() is None:
                stopped = not settled  # the deadline ended it: unfinished nodes timed out
                with lock:  # before srun reports the tasks it is about to kill
                    finished = self._finished(tasks, srun_lines)
                self._stop(proc)
                self._left_jobs = True
            for t in threads[1:]:
                t.join(2.0)
        except KeyboardInterrupt as exc:
            end_feed()
            self._stop(proc)
            with lock:
                done = self._results(names, tasks, srun_lines, python, final=False)
            exc.partial_nodes = [done.get(h) or interrupted_node(h) for h in names]
            raise
        with lock:
            done = self._results(names, tasks, srun_lines, python, final=True)
            if not stopped:
                finished = self._finished(tasks, srun_lines)
        out = []
        # A node that never announced its task (the shell's first line, before python) by the deadline: its
        # slurmd started nothing there. One node alone whose slurmd was stopped (SIGSTOP) read "timeout ... sshd
        # hangs, or the collector hung there" on a real 4-node Slurm 22.05 (slurm22); several such nodes are
        # tried alone after the stall (_run_all) and named the same way.
        announced = set(t.node for t in tasks.values() if t.node)
        queued = self._queued_now(srun_lines, lock)
        for h in names:
            node = done.get(h)
            if stopped and h not in finished and (node is None or node.error_kind != "garbage"):
                node = timeout_node(h, self.timeout)
                if h not in announced and not queued:
                    node = Node(host=h, error="slurmd did not start a task there within %.0fs (alive but not answering: "
                                "stopped, or stuck in the kernel; or the node's Prolog still runs)" % self.timeout,
                                error_kind="slurmd")
            if node is None:
                node = Node(
                    host=h, error=_RAN_NONE + _last(srun_lines, proc.returncode), error_kind="slurm")
            out.append(node)
        return out

    def _prolog(self, line):
        m = _PROLOG_FAIL.search(line)
        if m and hasattr(self, "_prolog_failed") and len(self._prolog_failed) < 10000:
            self._prolog_failed.add(m.group(1) or m.group(2))

    @staticmethod
    def _queued_words(lines):
        """'; ' and what srun and slurmctld said of a job srun left queued (its job is over by now):
        srun's own line before 'queued' ("Required node not available (down, drained or
        reserved)", for a node a reservation holds) and the job's Reason from `scontrol show job`
        ("ReqNodeNotAvail,_May_be_reserved_for_other_job"; slurmctld keeps it after the job was
        cancelled: 22.05 here); "" when neither says more. Bounded: 3 s, 300 characters."""
        said = [l[6:].strip()[:160] for l in lines if l.startswith("srun: ") and not _QUEUED.search(l)
                and not re.search(r"revoked|Force Terminated|has been allocated|error:", l)][:2]
        job = next((m.group(1) for m in map(_QUEUED.search, lines) if m), None)
        scontrol = shutil.which("scontrol")
        if job and scontrol:
            try:
                p = subprocess.run([scontrol, "show", "job", "-o", job], stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=3)
                m = re.search(rb"\bReason=(\S{1,120})", p.stdout[:MAX_OUTPUT])
                if m and m.group(1) not in (b"None", b"(null)"):
                    said.append("Reason=" + m.group(1).decode("utf-8", "replace"))
            except (OSError, subprocess.TimeoutExpired):
                pass
        text = "; ".join(said)
        text = "".join(c if c.isprintable() else "?" for c in text[:300])
        return ("; " + text) if text else ""

    @staticmethod
    def _queued_now(srun_lines, lock):
        """srun said its job waits in the queue (outside an allocation) and not yet that it started."""
        with lock:
            seen = [l for l in srun_lines if _QUEUED.search(l) or _ALLOCATED.search(l)]
        return bool(seen) and bool(_QUEUED.search(seen[-1]))

    def _lines(self, lines, last, is_err, tasks, srun_lines):
        """Sort srun's output lines by task (its --label prefix); returns the last task."""
        for raw in lines:
            head, sep, body = raw.partition(b": ")
            if sep and head.strip().isdigit():
                last = tasks.get(int(head))
                if last is None:
                    last = tasks[int(head)] = _Task()
                if not is_err and last.overflow:  # past the cap: only counted, never kept
                    continue
                self._take(last, body.decode("utf-8", "replace"), is_err)
            elif raw.startswith(b"srun: "):
                if len(srun_lines) < 200:
                    srun_lines.append(raw[:500].decode("utf-8", "replace"))
                    self._prolog(srun_lines[-1])
            elif last is not None and raw:  # the rest of a line longer than READ_LIMIT
                self._take(last, raw.decode("utf-8", "replace"), is_err, continued=True)
        return last

    def _take(self, task, text, is_err, continued=False):
        """One line of a task. Memory is bounded three ways: the stderr tail (MAX_STDERR),
        each task's stdout (MAX_OUTPUT, past it the node is garbage and its lines are only
        counted), and all frames kept at once (MAX_TOTAL)."""
        if is_err:
            kept = text[:500]
            task.err_size += len(kept) + 1
            task.err.append(kept)
            while task.err_size > MAX_STDERR and len(task.err) > 1:
                task.err_size -= len(task.err.pop(0)) + 1
            return
        n = len(text) + 1
        task.size += n
        if task.size > MAX_OUTPUT or (head_is_chunk(text) and self.kept + n > MAX_TOTAL):
            task.overflow = True
            self.kept -= sum(len(c) + 1 for c in task.chunks)
            task.chunks = []
            return
        if continued:
            if len(task.garbage) < 5:
                task.garbage.append(text[:80])
            return
        head, _, rest = text.partition(" ")
        if head == "gpudoctor-task" and task.node is None:
            name, _, mark = rest.strip().partition(" ")
            task.node = name if mark == "env" else rest.strip()
            task.env = mark == "env"
            need = getattr(self, "_need", None)
            if mark != "env" and need is not None:  # no first part in its environment: on stdin then
                need.set()
        elif head == SOURCE_ASK and task.node is not None and rest.strip() == task.node:
            task.asked = True
            for event in (getattr(self, "_need", None), getattr(self, "_asked", None)):
                if event is not None:
                    event.set()
        elif head == "gpudoctor-chunk" and task.node is not None and rest.startswith(task.node + " "):
            task.chunks.append(rest[len(task.node) + 1:])
            self.kept += len(task.chunks[-1]) + 1
        elif head == "gpudoctor-end" and task.node is not None and rest.startswith(task.node + " "):
            parts = rest.split()
            if len(parts) == 3 and parts[1].lstrip("-").isdigit() and parts[2].isdigit():
                task.end = (int(parts[1]), int(parts[2]))
                task.received = time.time()  # the node read its clock before this frame (transport.stamp)
        elif len(task.garbage) < 5:
            task.garbage.append(text[:80])

    @staticmethod
    def _finished(tasks, srun_lines=()):
        """Nodes whose task is over: its end frame, too much output, or srun reported
        its exit (a missing python, a crash)."""
        done = set(t.node for t in tasks.values() if t.node and (t.end or t.overflow))
        for line in srun_lines:
            m = _TASK_EXIT.match(line)
            if m:
                done.add(m.group(1))
        return done

    def _settled(self, names, tasks, srun_lines):
        return self._finished(tasks, srun_lines) >= set(names)

    def _results(self, names, tasks, srun_lines, python, final):
        """Node results from what the tasks and srun said so far."""
        wanted = set(names)
        by_node, claims = {}, {}
        for tid, t in sorted(tasks.items()):
            if t.node in wanted:
                claims.setdefault(t.node, []).append(tid)
                by_node[t.node] = t
        exits, launch = {}, {}
        for line in srun_lines:
            m = _TASK_EXIT.match(line)
            if m:
                exits[m.group(1)] = m.group(3)
                continue
            m = _LAUNCH_FAIL.search(line)
            if m:
                launch[m.group(1)] = m.group(2)
        for t in tasks.values():  # execve errors: python is not there
            for e in t.err:
                m = _EXECVE.search(e)
                if m and t.node is None and m.group(1) in wanted:
                    by_node.setdefault(m.group(1), t)

        def aborted():
            for line in srun_lines + [e for t in tasks.values() for e in t.err]:
                m = _ABORTED.search(line)
                if m:
                    return m.group(0)
            return None

        out = {}
        for h in names:
            t = by_node.get(h)
            if len(claims.get(h, [])) > 1:
                out[h] = Node(host=h, error="%d tasks claimed to be this node" % len(claims[h]), error_kind="garbage")
                continue
            if h in launch and (t is None or t.end is None):
                if _UNREACHED.search(launch[h]):
                    # srun could not reach the node's slurmd: a node that died (its slurmd killed and its
                    # link down, on the 4-node bed) is still IDLE for slurmctld until SlurmdTimeout, and
                    # its port neither refused nor answered (_preflight's probe proves nothing then)
                    out[h] = Node(host=h, error="srun could not reach slurmd there (%s): the node is down or its "
                                  "network is, though Slurm still lists it as up" % launch[h][:300],
                                  error_kind="slurmd")
                    continue
                from gpudoctor.slurm import credential_hint

                out[h] = Node(host=h, error=_LAUNCH_REFUSED + "%s%s" % (
                    launch[h][:300], credential_hint(launch[h])), error_kind="slurm")
                continue
            if t is None:
                continue
            err = "\n".join(t.err)
            if t.overflow:
                out[h] = interpret(h, 0, "", err, python, truncated=True)
            elif t.end is not None:
                rc, length = t.end
                data = "".join(t.chunks)
                try:
                    if len(data) != length:
                        raise ValueError("frame of %d characters, %d received" % (length, len(data)))
                    d = zlib.decompressobj()
                    text = d.decompress(base64.b64decode(data), MAX_OUTPUT + 1)
                    if len(text) > MAX_OUTPUT or d.unconsumed_tail:
                        out[h] = interpret(h, 0, "", err, python, truncated=True)
                        continue
                except (ValueError, zlib.error, TypeError) as exc:
                    out[h] = Node(host=h, error="broken frame: %s" % exc, error_kind="garbage")
                    continue
                sent = getattr(self, "_sent", None)
                # (a window without its ends still says the node was gathered remotely: clock.offset is skipped, not na)
                out[h] = interpret(h, rc, text, err, python, window=("srun", sent or None, t.received))
            elif NOT_FOUND_MARK in err or any(_EXECVE.search(e) for e in t.err):
                out[h] = Node(host=h, error="%s not found on the node" % python, error_kind="python-missing")
            elif h in exits and final:
                out[h] = interpret(h, _exit_code(exits[h]), "\n".join(t.garbage), err, python)
                ended = aborted() if out[h].error_kind == "collector" and exits[h].strip() in _SIGNALLED else None
                others = sorted(x for x in launch if x != h)
                if ended and others:
                    # srun aborts the whole step when the launch failed on one node (slurm28: sn4's slurmd refused
                    # an expired credential, and sn1-3 read "the job was cancelled ... or its time limit reached")
                    out[h] = Node(host=h, error=_ENDED_BY_OTHER + "%s (%s; task: "
                                  "%s): nothing wrong seen here; run it again without %s (--nodes)" % (
                                      ",".join(others[:8]), ended[:160], exits[h].strip(), ",".join(others[:8])),
                                  error_kind="slurm")
                elif ended:  # a task still running when Slurm ended the step: no crash of the collector
                    out[h] = Node(host=h, error="Slurm ended the step before this node's task finished (%s; task: %s): "
                                  "the job was cancelled, its allocation revoked or its time limit reached"
                                  % (ended[:160], exits[h].strip()), error_kind="slurm")
                elif out[h].error_kind == "collector" and "Killed" in exits[h]:
                    out[h].error = "the task was killed (%s)" % exits[h][:200]
            elif final and t.garbage:
                out[h] = interpret(h, 0, "\n".join(t.garbage), err, python)
        return out

    @staticmethod
    def _stop(proc, grace=5.0):
        """SIGTERM to srun cancels the step: slurmstepd signals every process of it on every
        node. SIGKILL to srun's process group if it does not exit in ``grace`` seconds."""
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        except OSError:
            pass


# Node states (scontrol(1), "State" of `show node`; sinfo(1), "NODE STATE CODES"): a base
# state, then +FLAGS. NOT_RESPONDING is slurmctld's own word for a slurmd that stopped
# answering its pings (the node goes DOWN after SlurmdTimeout).
_DOWN_BASES = ("DOWN", "FUTURE", "UNKNOWN")
_DOWN_FLAGS = ("NOT_RESPONDING", "FAIL", "POWERED_DOWN", "POWERING_DOWN", "POWER_DOWN", "POWERING_UP",
               "REBOOT_ISSUED")


def refused(addrs, port, timeout=1.0):
    """Nodes whose address:port refuses a TCP connection: {node: address} -> [node]. All at
    once, non-blocking, within ``timeout`` (s) together."""
    import errno
    import select

    # socket.py's C module: the same calls, without socket.py's import (its enum classes: 1.5-2 ms
    # of every run's CPU here); an ASCII address as bytes, which the resolver takes without the
    # idna codec (CPython Modules/socketmodule.c encodes a str with it; its import: 0.5 ms), as
    # the collector does (collector/system.py)
    import _socket as socket

    socks, out = {}, []
    start = time.time()
    try:
        for node, addr in addrs.items():
            host = addr.encode("ascii") if addr.isascii() else addr
            try:
                try:  # an address needs no lookup; a NodeAddr that is a name is looked up only
                    # while the time allows (a slow resolver must not stall the run)
                    info = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)[0]
                except socket.gaierror:
                    if time.time() - start > timeout:
                        continue
                    info = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0]
                s = socket.socket(info[0], socket.SOCK_STREAM)
            except (OSError, UnicodeError):
                continue
            s.setblocking(False)
            rc = s.connect_ex(info[4])
            if rc == errno.ECONNREFUSED:
                out.append(node)
                s.close()
            elif rc in (0, errno.EINPROGRESS):
                socks[s] = node
            else:
                s.close()
        end = time.time() + timeout
        pending = dict(socks)
        while pending and time.time() < end:
            _, ready, _ = select.select([], list(pending), [], max(0.0, end - time.time()))
            for s in ready:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == errno.ECONNREFUSED:
                    out.append(pending[s])
                del pending[s]
    finally:
        for s in socks:
            s.close()
    return out


def parse_node_states(text):
    """`scontrol show node -o` -> {node: (State, Reason or None)}; lines bounded, untrusted."""
    out = {}
    for line in text.splitlines()[:100000]:
        m = re.match(r"NodeName=(\S+)", line)
        st = re.search(r"\bState=(\S+)", line)
        if not (m and st):
            continue
        rs = re.search(r"\bReason=(.*?)(?: \[[^\]]*\])?\s*$", line)
        out[m.group(1)] = (st.group(1)[:100], rs.group(1)[:200] if rs else None)
    return out


_FEATURE = re.compile(r"^[A-Za-z0-9_.+-]{1,100}$")
_GPU_ASK = re.compile(r"^(?:gpu:)?(?:([A-Za-z0-9_.-]{1,60}):)?(\d{1,6})$")


def job_request(environ):
    """What gpudoctor's own job (outside an allocation: one task per node) asks of every node through
    the variables srun reads as options (srun(1), INPUT ENVIRONMENT VARIABLES): (features, gpus).
    features: ("&" or "|", [feature, ...], "SLURM_CONSTRAINT=...") for a plain constraint (one feature,
    or features joined by & alone or by | alone), else None: counts, brackets and mixed operators
    are left to srun. gpus: (type or None, count per node, "VAR=...") from SLURM_GPUS_PER_NODE,
    SLURM_GPUS_PER_TASK (one task per node) or SLURM_GRES (gpu[:type]:N), else one GPU per node from
    SLURM_GPUS ([type:]N for the whole job), else None."""
    features = None
    want = (environ.get("SLURM_CONSTRAINT") or "").strip()
    if want and len(want) <= 1000:
        for op in ("&", "|"):
            names = want.split(op)
            if all(_FEATURE.match(n) for n in names):
                features = (op, names, "SLURM_CONSTRAINT=" + want)
                break
    gpus = None
    for var in ("SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK", "SLURM_GRES"):
        value = (environ.get(var) or "").strip()
        if not value or len(value) > 1000:
            continue
        asks = [v for v in value.split(",") if v.startswith("gpu")] if var == "SLURM_GRES" else [value]
        m = _GPU_ASK.match(asks[0]) if len(asks) == 1 else None
        if m and int(m.group(2)) > 0:
            gpus = (m.group(1), int(m.group(2)), "%s=%s" % (var, value))
            break
    value = (environ.get("SLURM_GPUS") or "").strip()
    m = _GPU_ASK.match(value) if gpus is None and len(value) <= 1000 else None
    if m and int(m.group(2)) > 0:
        # --gpus is the whole job's count, not a node's: Slurm spreads it and gives each node of the job at least
        # one. On the 4-node bed (Slurm 22.05.8, Gres=gpu:2 on sn[1-2] only) SLURM_GPUS=4 ran on sn[1-2] and was
        # refused over sn[1-3] ("Requested node configuration is not available"), every node `slurm` (slurm27)
        gpus = (m.group(1), 1, "SLURM_GPUS=%s: GPUs for the whole job, at least one on each of its nodes"
                % value)
    return features, gpus


def node_gpus(gres):
    """scontrol's Gres= of a node (`gpu:2`, `gpu:a100:4(S:0-1)`, `gpu:a100:2,gpu:h100:1`, `(null)`) ->
    {type or None: count}, every typed count also under None."""
    out = {None: 0}
    for part in gres.split(","):
        bits = re.sub(r"\(.*?\)", "", part).split(":")
        if bits[0] != "gpu" or len(bits) < 2 or not bits[-1].isdigit():
            continue
        n = int(bits[-1])
        out[None] += n
        if len(bits) == 3:
            out[bits[1]] = out.get(bits[1], 0) + n
    return out


def job_misfits(text, environ):
    """{node: why} for the nodes of `scontrol show node -o` ``text`` that lack what job_request
    says gpudoctor's job asks of each node: srun would refuse the whole job."""
    features, gpus = job_request(environ)
    if not features and not gpus:
        return {}
    out = {}
    for line in text.splitlines()[:100000]:
        m = re.match(r"NodeName=(\S+)", line)
        if not m:
            continue
        node = m.group(1)
        why = []
        if features:
            f = re.search(r"\bAvailableFeatures=(\S*)", line)
            have = set((f.group(1) if f else "").split(",")) - {"", "(null)"}
            op, names, said = features
            if not (all(n in have for n in names) if op == "&" else any(n in have for n in names)):
                why.append("%s, and the node's features are %s" % (said, ",".join(sorted(have))[:200] or "none"))
        if gpus:
            g = re.search(r"\bGres=(\S*)", line)
            kind, count, said = gpus
            have = node_gpus(g.group(1) if g else "").get(kind, 0)
            if have < count:
                why.append("%s, and the node has %d%s GPU%s in Slurm (Gres=%s)" % (
                    said, have, " " + kind if kind else "", "" if have == 1 else "s", (g.group(1) if g else "")[:100]))
        if why:
            out[node] = ("the job gpudoctor starts outside an allocation asks what this node lacks (%s): srun would "
                         "refuse the whole job (Requested node configuration is not available); leave the node out "
                         "(`sinfo -N -o '%%N %%f %%G'` lists features and GPUs) or unset the variable for gpudoctor"
                         % "; ".join(why))
    return out


def node_unavailable(state, allocated=False):
    """The error kind of a node in this state that cannot start a task, else None."""
    parts = state.upper().split("+")
    base, flags = parts[0].rstrip("*~#!%$@^-"), set(parts[1:])
    if base in _DOWN_BASES or flags & set(_DOWN_FLAGS) or state.endswith("*"):
        return "node-down"
    if not allocated and ("DRAIN" in flags or base in ("DRAINED", "DRAINING", "DRAIN")):
        return "node-drained"
    return None


def _exit_code(text):
    m = re.search(r"exit code (\d+)", text)
    return int(m.group(1)) if m else 1


_ENDED_BY_OTHER = "Slurm ended the step when the task could not start on "
_LAUNCH_REFUSED = "srun could not start the task: "
_RAN_NONE = "srun ran no task there: "


def _last(lines, rc):
    errs = [l for l in lines if "error" in l]
    from gpudoctor.slurm import credential_hint

    return (errs[-1] if errs else "srun exited %s" % rc)[:300] + _env_said(errs[-1] if errs else "") + credential_hint(
        " ".join(errs[-3:]))


_INVALID_OPT = re.compile(r"Invalid --([a-z][a-z-]{1,40}) specification")


def _env_said(line, environ=None):
    """Where srun refused an option gpudoctor never passes ("Invalid --exclusive specification"), the
    variable it read it from (srun(1), INPUT ENVIRONMENT VARIABLES: SLURM_EXCLUSIVE for --exclusive):
    with SLURM_EXCLUSIVE=1 or SLURM_NO_KILL=1 exported every node read only srun's words (the 4-node
    bed). "" where no such variable is set."""
    env = os.environ if environ is None else environ
    m = _INVALID_OPT.search(line)
    if m:
        name = "SLURM_" + m.group(1).upper().replace("-", "_")
    elif _INVALID_GRES in line:
        # slurm26: SLURM_GPUS=2 exported (sbatch --gpus exports it), `check --via srun --nodes sn[1-4]` outside a job:
        # srun's 'Failed to validate job spec, --gpus < -N' then this line on every node, and no word of the variable
        name = next((n for n in _GRES_VARS if env.get(n) is not None), None)
        if name is None:
            return ""
    else:
        return ""
    value = env.get(name)
    if value is None:
        return ""
    shown = "".join(c if c.isprintable() else "?" for c in value[:60])
    return " (srun read it from %s=%s in the environment: unset it for gpudoctor)" % (name, shown)


# slurm_strerror(ESLURM_INVALID_GRES) (src/common/slurm_errno.c), and the srun input variables that ask for GPUs
# (srun(1), INPUT ENVIRONMENT VARIABLES: --gpus, --gres, --gpus-per-node, --gpus-per-task), each seen giving it on
# the 4-node bed (slurm23, slurm26)
_INVALID_GRES = "Invalid generic resource (gres) specification"
_GRES_VARS = ("SLURM_GPUS", "SLURM_GRES", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK")
