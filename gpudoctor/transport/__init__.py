"""How the collector reaches nodes: one interface, three transports.

A transport takes hosts and a collector payload (the script and its options) and gives
back one ``Node`` per host, in the order given: its facts, or why it could not be
checked with a classified ``error_kind`` (HINTS below). pytest-testinfra's backends are
the model (https://github.com/pytest-dev/pytest-testinfra/tree/main/testinfra/backend):
the code that gathers facts does not know how it reached the node.

    local   this machine, in process, under a wall-clock deadline (local.py)
    ssh     every node over SSH (fabric/paramiko), one session per node (ssh.py)
    srun    one task per node through Slurm's own tree fan-out (srun.py)

The transport is chosen here and nowhere else (``choose``); callers that need another
round over the same nodes (the rendezvous probe of launch plans) call ``run``.

What every transport guarantees (docs/architecture.md, "Transports"):
- the deadline is wall-clock per node: output that keeps coming does not extend it;
- at most ``MAX_OUTPUT`` bytes are kept from a node: more is ``garbage``;
- a node that times out, or that is still running when the run is interrupted, has its
  remote process group ended (nothing is left running there);
- Ctrl-C raises KeyboardInterrupt carrying ``partial_nodes``: every host, the ones not
  finished marked ``interrupted``;
- the controller's own failures (out of file descriptors) are never reported as a node's.
"""

import json
import os
import resource
import shutil

from gpudoctor.record import NEW, Record

try:  # the lead moves Node to its own module; either place works
    from gpudoctor.node import Node
except ImportError:  # pragma: no cover
    from gpudoctor.runner import Node

FACTS_SCHEMA = "gpudoctor.facts/1"
TRANSPORTS = ("local", "ssh", "srun")
DEFAULT_JOBS = 64
DEFAULT_TIMEOUT = 30.0
MAX_OUTPUT = 4 << 20  # bytes kept from one node's stdout; real facts are 30-150 KB
MAX_TOTAL = 1 << 30  # bytes kept from all nodes at once (srun: every node answers at the same time)
MAX_STDERR = 64 << 10  # the tail of a node's stderr that is kept (for the error line)
TOO_OLD_MARK = "gpudoctor: python too old:"
NOT_FOUND_MARK = "gpudoctor: python not found:"  # written by the ssh remote command (ssh.py)
# How a node's interpreter runs the script it gets on stdin: `python3 -c READ_STDIN`, not
# `python3 -`. CPython 3.11 parsing a 200 KB script from stdin spent about 100 ms of CPU more
# than compile() of the same bytes (measured per node: 170-180 ms against 68-78 ms, the bare
# interpreter 36 ms), once per node of every run. Python 2 syntax too (no .buffer there), so
# that an old interpreter still reaches the bundle's "too old" message.
# The current folder that `-c` puts first on sys.path ('') is taken out before anything is imported: a socket.py or
# zlib.py in the folder gpudoctor runs from (srun's working folder on every node) ran (docs/security.md 47.).
READ_STDIN = ('import sys;sys.path[:1]==[""]and sys.path.pop(0);'
              'exec(compile(getattr(sys.stdin,"buffer",sys.stdin).read(),"<stdin>","exec"),{"__name__":"__main__"})')
FDS_PER_NODE = 2  # a socket and slack (a ProxyCommand child holds more: its pipes)
FD_RESERVE = 8  # beyond those open now: the report, its -o file, a known_hosts write

# Error kinds (the JSON report's nodes[].error_kind), each with the fix a person needs.
HINTS = {
    # (the ssh config read is --ssh-config FILE where given, else ~/.ssh/config: a hint naming only the default sent
    # users of --ssh-config to a file the run did not read; userwalk22)
    "resolve": "the name does not resolve from this machine: check /etc/hosts or DNS, or the Host alias in the ssh "
               "config (--ssh-config FILE, else ~/.ssh/config)",
    "refused": "nothing listens on the SSH port: is sshd running there, and is the Port right (the ssh config: "
               "--ssh-config FILE, else ~/.ssh/config)?",
    "timeout": "no answer in time: the node is down, a firewall drops the traffic, sshd hangs, or the collector "
               "hung there (raise --timeout only if the node is just slow)",
    "unreachable": "no route to the node: check the network and the address",
    "auth": "public-key authentication failed: ssh-copy-id the key to the node, and check ~/.ssh modes there "
            "(700 for ~/.ssh, 600 for authorized_keys)",
    "hostkey": "the node's host key changed since it was recorded in known_hosts: if the node was reinstalled, "
               "remove the old key with ssh-keygen -R HOST; otherwise this may be an attack",
    "hostkey-unknown": "the node's host key is not in known_hosts and --host-key-policy=strict: ssh to it once, "
                       "or use --host-key-policy accept-new",
    "python-missing": "no python3 on the node's PATH: install python3 (3.6+) or pass --python /path/to/python",
    "python-old": "the node's python is older than 3.6: pass --python with a newer interpreter",
    "collector": "the collector failed on the node (see the error)",
    "garbage": "the node answered with something that is not facts JSON (or more than 4 MiB of it): a login "
               "banner or a python3 wrapper printing to stdout?",
    "ssh": "the SSH session failed",
    "slurm": "srun could not run the collector to its end on the node: where Slurm ended the step (the error says "
             "so: scancel, the allocation revoked, the time limit), run it again in a live allocation; otherwise "
             "see `scontrol show node NODE` and slurmd's log",
    "node-down": "Slurm lists the node as down or not responding: is slurmd running there (systemctl status "
                 "slurmd), and does it reach slurmctld? `scontrol show node NODE` gives the reason. A slurmd that "
                 "runs but stays NOT_RESPONDING is most often refused by slurmctld's MUNGE ('Munge decode failed' in "
                 "its log): another munge.key there, a clock more than 300 s off, or munged stopped; `gpudoctor "
                 "slurm-health --dry-run` on the node tries its MUNGE and prints its clock",
    "slurmd": "slurmd does not serve the node, though slurmctld has not noticed yet: not running (its port refused "
              "the connection), alive but starting no task (stopped, stuck in the kernel), or out of reach (the node "
              "or its network down: srun's Communication connection failure): systemctl status slurmd there, and its "
              "log",
    "node-busy": "running jobs hold the node's CPUs or memory (or a reservation holds the node, or a limit keeps a "
                 "new job queued: `scontrol show reservation`), and a job "
                 "gpudoctor starts outside an allocation would "
                 "wait for them: run gpudoctor inside the job that holds it (`squeue -w NODE` names it; srun "
                 "--jobid=JOBID --overlap gpudoctor check, or watch: one run over that job's nodes), or over ssh "
                 "(--via ssh, or --fallback ssh)",
    "node-drained": "Slurm drained the node, so no new job starts there: `sinfo -R` gives the reason; "
                    "`scontrol update nodename=NODE state=resume` once it is fixed",
    "not-allocated": "the node is not one of this Slurm job's nodes, and a job step runs only on those: check it "
                     "from outside the job (--via ssh), in a job that holds it, or allow --fallback ssh",
    "not-in-partition": "the node is in none of the partitions the job gpudoctor starts goes to ($SLURM_PARTITION, "
                        "else the default partition), so srun would refuse the whole job: set SLURM_PARTITION to one "
                        "of the node's partitions (`scontrol show node NODE`: Partitions=), run inside a job that "
                        "holds it, or allow --fallback ssh",
    "not-eligible": "the job gpudoctor starts outside an allocation asks for features or GPUs (SLURM_CONSTRAINT, "
                    "SLURM_GPUS, SLURM_GPUS_PER_NODE, SLURM_GPUS_PER_TASK, SLURM_GRES in your environment) this node "
                    "lacks, so srun would refuse the whole job: check such nodes with those variables unset, run "
                    "inside a job that holds them, or allow --fallback ssh",
    "partition-down": "an administrator set the partition DOWN (maintenance?): Slurm queues new jobs there and starts "
                      "none; `scontrol show partition NAME` (State=), then SLURM_PARTITION=<another of the node's "
                      "partitions>, `scontrol update partitionname=NAME state=up` once it may run jobs again, or "
                      "--fallback ssh",
    "interrupted": "gathering was interrupted before this node answered",
}


class ControllerError(Exception):
    """This machine failed (out of file descriptors, srun missing), not a node: the CLI
    reports it once and exits 3, and no node is blamed."""


class Payload(Record):
    """What runs on each node: the collector script, the interpreter that runs it (the
    job's python), options for every node and per node, and the prolog tier flag
    (``fast``: read in this process only; the local transport's concern)."""

    _fields = ("python", "options", "per_host_options", "script", "fast")

    def __init__(self, python=None, options=NEW, per_host_options=NEW, script=None, fast=False):
        self.python = python
        self.options = {} if options is NEW else options
        self.per_host_options = {} if per_host_options is NEW else per_host_options  # host -> options
        self.script = script
        self.fast = fast

    # Options that ride inside the script on stdin, never on the node's command line (which
    # every user of the node can read in ps): the per-run HMAC key for environment values.
    SECRET = ("env_key",)

    def get_script(self):
        if self.script is None:
            from gpudoctor.collector.bundle import build_script

            self.script = build_script({k: v for k, v in (self.options or {}).items() if k in self.SECRET})
        return self.script

    def options_for(self, host):
        opts = dict((k, v) for k, v in (self.options or {}).items() if k not in self.SECRET)
        opts.update((self.per_host_options or {}).get(host, {}))
        opts["node"] = host
        return opts


class Transport(object):
    """The interface. ``run`` returns one Node per host, in the order given."""

    name = "?"

    def __init__(self, jobs=None, timeout=None, progress=False, **settings):
        self.jobs = jobs
        self.timeout = float(timeout or DEFAULT_TIMEOUT)
        self.progress = progress
        self.settings = settings

    def run(self, hosts, payload):  # pragma: no cover - each transport implements it
        raise NotImplementedError


def get_transport(name, **settings):
    """The transport called `name` (local, ssh, srun), configured with `settings`
    (jobs, timeout, progress, ssh_config, host_key_policy)."""
    if name == "local":
        from gpudoctor.transport.local import LocalTransport as cls
    elif name == "ssh":
        from gpudoctor.transport.ssh import SSHTransport as cls
    elif name == "srun":
        from gpudoctor.transport.srun import SrunTransport as cls
    else:
        from gpudoctor.errors import InputError

        raise InputError("--via %s: expected one of %s" % (name, ", ".join(TRANSPORTS)))
    return cls(**settings)


def in_allocation(environ=None):
    """Inside salloc/sbatch (a job's nodes, a heterogeneous job's too), not inside a prolog/epilog."""
    env = os.environ if environ is None else environ
    return bool(env.get("SLURM_JOB_ID") and job_nodelist(env)[0] and not env.get("SLURM_SCRIPT_CONTEXT"))


MAX_HET_GROUPS = 128  # components of one heterogeneous job read from the environment (Slurm's own limit is 128)


def het_groups(environ=None):
    """[(component, [node, ...]), ...] of the heterogeneous job this process runs in, else [].

    A heterogeneous job (`salloc -N1 : -N2`, `#SBATCH hetjob`) has SLURM_HET_SIZE and
    SLURM_JOB_NODELIST_HET_GROUP_0..N-1 (seen on Slurm 22.05: SLURM_JOB_NODELIST_HET_GROUP_0=sn1,
    SLURM_JOB_NODELIST_HET_GROUP_1=sn[2-3]); salloc's shell has no SLURM_JOB_NODELIST, a batch
    script that of component 0 only (sn1): gpudoctor checked this machine, or sn1 alone. A
    step runs in component 0 only unless srun names others: `srun -w sn[1-3]` there failed
    with "Only allocated 1 nodes asked for 3"; `srun --het-group=0 ... : --het-group=1 ...`
    ran in both (https://slurm.schedmd.com/heterogeneous_jobs.html, "Launching
    Applications"). A malformed variable gives [] (the job is then read as not heterogeneous)."""
    env = os.environ if environ is None else environ
    try:
        n = int(env.get("SLURM_HET_SIZE") or 0)
    except ValueError:
        return []
    if n < 2 or n > MAX_HET_GROUPS:
        return []
    from gpudoctor.nodes import expand

    out = []
    for i in range(n):
        value = env.get("SLURM_JOB_NODELIST_HET_GROUP_%d" % i)
        if not value or len(value) > 100000:
            return []
        try:
            out.append((i, expand(value)))
        except Exception:
            return []
    return out


def het_group(name, environ=None):
    """The component of this heterogeneous job that holds node ``name`` (the first one), else None."""
    for i, names in het_groups(environ):
        if name in names:
            return i
    return None


def job_nodelist(environ=None):
    """(the allocation's node set, the variable it came from), or (None, None) outside one: in a
    heterogeneous job its components' node sets together, else $SLURM_JOB_NODELIST. A
    heterogeneous job's batch script has SLURM_JOB_NODELIST of component 0 only, salloc's shell
    none, a step the step's nodes (Slurm 22.05, the 4-node bed)."""
    env = os.environ if environ is None else environ
    try:
        n = int(env.get("SLURM_HET_SIZE") or 0)
    except ValueError:
        n = 0
    parts = [env.get("SLURM_JOB_NODELIST_HET_GROUP_%d" % i) for i in range(min(max(n, 0), MAX_HET_GROUPS))]
    if 2 <= n <= MAX_HET_GROUPS and all(parts):
        return ",".join(parts), "$SLURM_JOB_NODELIST_HET_GROUP_0..%d" % (n - 1)
    if env.get("SLURM_JOB_NODELIST"):
        return env["SLURM_JOB_NODELIST"], "$SLURM_JOB_NODELIST"
    return None, None


# Slurm's step ids above these are its own steps, not srun's: the batch script's, the extern step, the
# interactive step (slurm/slurm.h: SLURM_BATCH_SCRIPT 0xfffffffb, SLURM_EXTERN_CONT 0xfffffffc, ...)
MAX_SRUN_STEP = 0xfffffff0


def default_nodelist(environ=None):
    """(the node set a run inside an allocation checks when no --nodes/--hosts name one, its variable). A task of a
    step that srun started on part of the job (`srun -N3 gpudoctor check` in a 4-node job) gets its step's nodes,
    $SLURM_STEP_NODELIST: every task of that step sees SLURM_JOB_NODELIST=sn[1-4] and SLURM_STEP_NODELIST=sn[1-3]
    (Slurm 22.05, the 4-node bed; srun(1), OUTPUT ENVIRONMENT VARIABLES,
    https://slurm.schedmd.com/srun.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES), and the run checked all four
    (slurm26). A batch script (no SLURM_STEP_ID) and a heterogeneous job keep job_nodelist's."""
    env = os.environ if environ is None else environ
    nodes, source = job_nodelist(env)
    step, sid = env.get("SLURM_STEP_NODELIST"), env.get("SLURM_STEP_ID") or ""
    if nodes and step and sid.isdigit() and len(sid) <= 10 and int(sid) < MAX_SRUN_STEP and \
            not env.get("SLURM_HET_SIZE"):
        return step, "$SLURM_STEP_NODELIST"
    return nodes, source


def step_task(environ=None):
    """(this task's number, the step's number of tasks, "JOB.STEP") when this process is a task
    of a job step that srun started inside an allocation, else None.

    srun gives every task of a step SLURM_STEP_ID, SLURM_PROCID (0 to n-1) and
    SLURM_STEP_NUM_TASKS (srun(1), OUTPUT ENVIRONMENT VARIABLES,
    https://slurm.schedmd.com/srun.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES); a batch script
    has SLURM_PROCID=0 and no SLURM_STEP_ID (seen on slurmd 22.05). `srun gpudoctor check` in a
    4-node job ran the whole run once per task: four steps of its own into every node at once,
    four reports on one stdout (with --json, four documents: not one JSON), and
    `srun gpudoctor probe` measured four probes sharing each link (1.5 Gbit/s a pair where one
    probe alone measured 6)."""
    env = os.environ if environ is None else environ
    step, procid = env.get("SLURM_STEP_ID"), env.get("SLURM_PROCID")
    if not in_allocation(env) or not step or procid is None:
        return None
    try:
        task, tasks = int(procid), int(env.get("SLURM_STEP_NUM_TASKS") or 1)
    except ValueError:
        return None
    return task, tasks, "%s.%s" % (env["SLURM_JOB_ID"], step)


def choose(via, hosts, environ=None):
    """The one place a transport is picked. An explicit --via wins; with no remote hosts
    it is local; inside a Slurm allocation whose nodes include every host, and where srun
    exists, srun (no SSH between nodes needed); otherwise ssh."""
    from gpudoctor.errors import InputError

    if via:
        if via not in TRANSPORTS:
            raise InputError("--via %s: expected one of %s" % (via, ", ".join(TRANSPORTS)))
        if via == "local" and hosts:
            raise InputError("--via local checks this machine only: drop --hosts/--nodes, or use --via ssh or srun")
        if via != "local" and not hosts:
            raise InputError("--via %s needs nodes: --hosts FILE, --nodes NODESET, or a Slurm allocation" % via)
        return via
    if not hosts:
        return "local"
    env = os.environ if environ is None else environ
    if in_allocation(env) and shutil.which("srun"):
        from gpudoctor.nodes import expand

        try:
            allocated = set(expand(job_nodelist(env)[0]))
        except Exception:  # a malformed variable: ssh still works
            allocated = set()
        if all(h.name in allocated for h in hosts):
            return "srun"
    return "ssh"


def run(hosts, payload, via=None, **settings):
    """Facts of every host through the chosen transport (see ``choose``). For callers
    outside the CLI, e.g. the rendezvous phase of a launch plan: settings are jobs,
    timeout, progress, ssh_config, host_key_policy."""
    return get_transport(choose(via, hosts), **settings).run(hosts, payload)


def usable_jobs(jobs, n_hosts):
    """Concurrency that fits the open-file limit. The soft RLIMIT_NOFILE is raised to the
    hard one first (what the kernel allows without privilege); then each node in flight
    is counted FDS_PER_NODE descriptors. 256 nodes under `ulimit -n 1024` with the old
    unbounded pool made 104 nodes "unreachable: Too many open files"."""
    want = max(1, min(jobs or DEFAULT_JOBS, n_hosts or 1))
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
            except (ValueError, OSError):
                pass
        try:
            in_use = len(os.listdir("/proc/self/fd"))
        except OSError:
            in_use = 16
        room = (soft - in_use - FD_RESERVE) // FDS_PER_NODE
    except (ValueError, OSError):
        return want
    if room < 1:
        raise ControllerError("the open-file limit here (ulimit -n %d) leaves no room to reach a node: raise it "
                              "(ulimit -n 4096)" % soft)
    return min(want, room)


def is_fd_exhaustion(exc):
    import errno

    return isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE)


def stamp(doc, via, sent=None, received=None):
    """Set ``collector.gathered`` in a node's facts: how this machine reached it and the window ([sent, received],
    this machine's clock) within which the node read its own clock (collector.clock_s; checks/clock.py compares
    them). Only the gatherer writes it: one a node sent of its own is replaced."""
    meta = doc.get("collector") if isinstance(doc, dict) else None
    if not isinstance(meta, dict):
        return doc
    g = {"via": via}
    if sent and received:  # both known (0 or None: not kept)
        g.update(sent_s=round(sent, 3), received_s=round(received, 3))
    meta["gathered"] = g
    return doc


def interpret(host, rc, out, err, python, truncated=False, window=None):
    """A node's answer (exit status, stdout bytes/text, stderr text) as a Node.
    ``window``: (via, sent, received) of the answer on this machine's clock (stamp).

    Exit status 127 alone does not mean python is missing (the collector's own child can
    exit 127, or the login shell can fail a command): only the remote command's own mark
    on stderr does."""
    python = python or "python3"
    if isinstance(out, bytes):
        out = out.decode("utf-8", "replace")
    err = err or ""
    lines = [l for l in err.strip().splitlines() if not l.startswith("gpudoctor-pgid ")]
    err_tail = lines[-1][:300] if lines else ""
    if truncated:
        return Node(host=host, error="more than %d MiB of output: not facts" % (MAX_OUTPUT >> 20), error_kind="garbage")
    if NOT_FOUND_MARK in err:
        return Node(host=host, error="%s not found on the node" % python, error_kind="python-missing")
    if TOO_OLD_MARK in err:
        return Node(host=host, error=err_tail, error_kind="python-old")
    if rc != 0:
        return Node(host=host, error="collector exited %s: %s" % (rc, err_tail or "(no message on stderr)"),
                    error_kind="collector")
    doc = parse_facts(out)
    if doc is None:
        shown = out.strip()[:80].replace("\n", " ")
        return Node(host=host, error="not facts JSON: %r" % shown, error_kind="garbage")
    doc["node"] = host  # the controller's name for the node, never the one the node claims
    meta = doc.get("collector")
    if isinstance(meta, dict):
        meta.pop("gathered", None)  # never the node's own word for the window
        if window is not None:
            stamp(doc, *window)
    return Node(host=host, facts=doc)


def parse_facts(text):
    """The facts document in a node's stdout (its last line), or None. A crafted document
    (nested 100,000 deep, or not a dict) is None, never an exception."""
    text = text.strip()
    if not text:
        return None
    try:
        doc = json.loads(text.splitlines()[-1])
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("schema") != FACTS_SCHEMA:
        return None
    return doc


def interrupted_node(host, started=True):
    return Node(host=host, error="interrupted while this node was being gathered" if started else
                "interrupted before this node was reached", error_kind="interrupted")


COLLECTOR_STOPPED = "the remote collector was stopped"  # the end of a timeout_node's error: it started, never answered


def timeout_node(host, seconds, what="no facts"):
    return Node(host=host, error="%s within %gs (--timeout); %s" % (what, seconds, COLLECTOR_STOPPED),
                error_kind="timeout")


class Progress(object):
    """A rich progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, total):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress as _P, TextColumn, TimeElapsedColumn

        self.p = _P(TextColumn("gathering facts"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                    console=Console(stderr=True), transient=True)
        self.task = self.p.add_task("nodes", total=total, failed=0)
        self.failed = 0
        self.p.start()

    def advance(self, node):
        if not node.reachable:
            self.failed += 1
        self.p.update(self.task, advance=1, failed=self.failed)

    def stop(self):
        self.p.stop()


def progress_bar(enabled, total):
    import sys

    return Progress(total) if enabled and sys.stderr.isatty() else None


__all__ = ["Node", "Payload", "Transport", "HINTS", "get_transport", "choose", "run", "ControllerError"]
