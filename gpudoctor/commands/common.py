"""What the commands share: the node options, config from arguments, gathering nodes,
writing a report or a JSON document."""

import os
import sys

from gpudoctor.config import flag
from gpudoctor.errors import InputError, excerpt

timeout_flag = flag("timeout", "seconds")  # the config file's rule: > 0, finite, at most a day


def _positive_int(value):
    import argparse

    if not value.isdigit() or len(value) > 9 or int(value) < 1:
        raise argparse.ArgumentTypeError("expected a whole number from 1 to 999999999, got %r" % value[:40])
    return int(value)


def csv(value):
    return [v for v in value.split(",") if v]


def add_inventory(p):
    g = p.add_argument_group("nodes (default: this machine)")
    g.add_argument("--hosts", metavar="FILE", help="hostfile: DeepSpeed/pdsh (host slots=8), MPI (host:8), plain list")
    g.add_argument("--nodes", metavar="NODESET", help="node set, e.g. 'gpu[01-16],login2' "
                                                      "(default inside a Slurm allocation: $SLURM_JOB_NODELIST)")
    g.add_argument("--local", action="store_true", help="check only this machine, even inside a Slurm allocation")
    g.add_argument("--python", metavar="PATH", help="the job's interpreter to probe (conda env, venv); "
                                                  "default: $VIRTUAL_ENV's or $CONDA_PREFIX's python, "
                                                  "else python3 on PATH")
    g.add_argument("-j", "--jobs", type=_positive_int, default=None, help="nodes gathered at once (default 64)")
    g.add_argument("--timeout", type=timeout_flag, default=None, help="seconds per node (default 30); on this machine alone "
                                                               "it bounds the whole run: past it the node is reported "
                                                               "not checked (timeout) and the exit code is 1")
    g.add_argument("--ssh-config", metavar="FILE", help="ssh config to honour (default ~/.ssh/config)")
    g.add_argument("--host-key-policy", choices=("accept-new", "strict", "ignore"), default=None,
                   help="unknown host keys: accept-new (default, like OpenSSH), strict, ignore")
    g.add_argument("--same", nargs="+", metavar="PATH", default=[],
                   help="files or folders that must be identical on every node (code, configs, model)")
    g.add_argument("--mesh", action="store_true", help="also test that every node can ssh to every other node")
    g.add_argument("--via", choices=("local", "ssh", "srun"), default=None,
                   help="how the collector reaches the nodes (default: srun inside a Slurm allocation that holds them, "
                        "else ssh; local for this machine alone)")
    g.add_argument("--fallback", choices=("ssh", "none"), default=None,
                   help="srun only: retry over ssh the nodes srun could not reach (node down, drained or not in "
                        "the allocation, slurmd dead or hung); the report says which transport reached each node "
                        "(default: none; config key fallback)")
    g.add_argument("--max-nodes", type=_positive_int, default=None, metavar="N",
                   help="refuse node lists longer than N (default 10000)")
    add_slurm(g)


def add_slurm(g):
    g.add_argument("--slurm", action="store_true",
                   help="through Slurm (--via srun); with no --hosts/--nodes outside a job: the nodes of the "
                        "partition a job goes to ($SLURM_PARTITION, else the default partition)")


def local_or_nodes(args):
    """--local with --hosts/--nodes: one says this machine only, the other names nodes. The nodes were silently
    not gathered (`check --local --hosts hf` checked this machine alone, exit by its verdict: userwalk23)."""
    if getattr(args, "local", False):
        named = [f for f, on in (("--hosts", getattr(args, "hosts", None)),
                                 ("--nodes", getattr(args, "nodes", None) is not None)) if on]
        if named:
            raise InputError("--local checks this machine only; %s names other nodes: give one or the other"
                             % "/".join(named))


def apply_slurm(args, environ=None):
    """--slurm: the run goes through srun (args.via = "srun"); outside an allocation with no
    --hosts/--nodes, args.nodes becomes the node set of the partition(s) srun's job goes to
    ($SLURM_PARTITION, which srun reads as -p: srun(1) INPUT ENVIRONMENT VARIABLES; else the
    partition marked Default=YES), read with `scontrol --all show partition -o`, and one line on
    stderr says so. Nodes Slurm cannot run a task on (down, drained, busy) are then named per
    node by the transport's preflight. Nothing to do without --slurm."""
    if not getattr(args, "slurm", False):
        return
    if getattr(args, "local", False):
        raise InputError("--slurm reaches nodes through srun; --local checks this machine only: give one of them")
    if getattr(args, "via", None) not in (None, "srun"):
        raise InputError("--slurm is --via srun; --via %s names another way: give one of them" % args.via)
    args.via = "srun"
    env = os.environ if environ is None else environ
    from gpudoctor.transport import in_allocation

    if getattr(args, "hosts", None) or getattr(args, "nodes", None) is not None or in_allocation(env):
        return
    args.nodes, names = partition_nodes(env)
    print("gpudoctor: --slurm: the nodes of partition %s: %s" % (names, args.nodes), file=sys.stderr)


def partition_nodes(environ=None):
    """(node set, partition names) of the partitions $SLURM_PARTITION names, else of the default
    partition; InputError where Slurm does not say (no scontrol, no such partition, no nodes)."""
    import shutil
    import subprocess

    from gpudoctor.slurm import partition_rows, wanted_partitions

    env = os.environ if environ is None else environ
    scontrol = shutil.which("scontrol")
    if not scontrol:
        raise InputError("--slurm outside a job reads the partition's nodes with scontrol, which is not on PATH: "
                         "name the nodes (--nodes NODESET)")
    try:
        # --all: a hidden partition too (a user who is not root sees none without it: slurm22)
        p = subprocess.run([scontrol, "--all", "show", "partition", "-o"], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=10, env=dict(env))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError("--slurm: scontrol show partition failed (%s): name the nodes (--nodes NODESET)" % exc)
    rows = partition_rows(p.stdout[:1 << 22].decode("utf-8", "replace"))
    parts = dict((r["PartitionName"], r.get("Nodes") if r.get("Nodes") not in (None, "", "(null)") else None)
                 for r in rows)
    if p.returncode != 0 or not parts:
        err = p.stderr[:300].decode("utf-8", "replace").strip()
        raise InputError("--slurm: scontrol show partition gave no partition (%s): name the nodes (--nodes NODESET)"
                         % (err or "exit %d" % p.returncode))
    wanted = wanted_partitions(rows, env)
    if not wanted:
        raise InputError("--slurm: this cluster has no default partition: set SLURM_PARTITION=NAME (one of %s)"
                         % ", ".join(sorted(parts)[:20]))
    missing = [w for w in wanted if w not in parts]
    if missing:
        raise InputError("--slurm: SLURM_PARTITION names %s, which Slurm does not list (partitions: %s)"
                         % (excerpt(missing[0], 60), ", ".join(sorted(parts)[:20])))
    empty = [w for w in wanted if not parts[w]]
    if empty:
        raise InputError("--slurm: partition %s has no nodes" % excerpt(empty[0], 60))
    return ",".join(parts[w] for w in wanted), ",".join(wanted)


LOOPBACK_NAMES = ("localhost",)  # DeepSpeed's single-node hostfile; an address (127.0.0.1) stays a node to ssh to


def this_machine_only(hosts, via=None, done="checked"):
    """A hostfile that names only this machine (DeepSpeed's single-node `localhost slots=8`): [] (checked here,
    in process, as `check` alone does), said on stderr; DeepSpeed runs such a hostfile on this machine without ssh
    (runner.py main: one host -> no multi-node exec). It was gathered over ssh to localhost, 'refused' where no sshd
    listens (userwalk22). --via ssh/srun keeps the hosts."""
    if hosts and via is None and all(h.name in LOOPBACK_NAMES and h.source != "$SLURM_JOB_NODELIST" for h in hosts):
        print("gpudoctor: %s names only this machine: %s here, without ssh (as DeepSpeed runs it)"
              % (",".join(sorted({h.name for h in hosts})), done), file=sys.stderr)
        return []
    return hosts


_WATCH_ONLY = frozenset(("schema", "node", "collector", "collected_at", "watch"))  # a watch --save file's keys


def note_found_config(cfg):
    """One line on stderr, where the run goes on (after every input error: 2.'s one line stays one), naming the
    settings of a config read without being named: a cloned repository's pyproject.toml changes what is judged, and
    the report said nothing of it (`ignore = ["host.name"]` turned check's exit 1 into a clean exit 0: red team
    2026-11-28b, docs/security.md 56.)."""
    keys = getattr(cfg, "found_keys", None)
    if keys:
        print("gpudoctor: note: settings from ./%s in this folder (not named by --config): %s" % (
            cfg.found_here, "; ".join(_setting(cfg, k) for k in keys[:12])), file=sys.stderr)


def _setting(cfg, key):
    """``key = value`` of a config key as a note shows it: bounded, control characters escaped."""
    from gpudoctor.config import KEYS
    from gpudoctor.errors import excerpt

    value = getattr(cfg, KEYS[key][0], None) if key in KEYS else None
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    return "%s = %s" % (key, excerpt(str(value), 60))


def config_from(args, hook=False):
    """``hook``: a root hook (slurm-health, prologs) reads config only from --config,
    $GPUDOCTOR_CONFIG and /etc, never from the folder it runs in."""
    from gpudoctor.config import load_config

    cfg = load_config(getattr(args, "config", None), hook=hook)
    for name in ("select", "ignore"):
        if getattr(args, name, None):
            setattr(cfg, name, getattr(args, name))
    if getattr(args, "strict", False):
        cfg.strict = True
    if getattr(args, "expected_gpus", None) is not None:
        cfg.expected_gpus = args.expected_gpus
    if getattr(args, "bf16", None):
        cfg.bf16 = True
    from gpudoctor.interpreter import choose

    # --python, the config key, the caller's $VIRTUAL_ENV / $CONDA_PREFIX, then python3 on PATH
    cfg.python, cfg.python_source = choose(getattr(args, "python", None), cfg.python)
    if getattr(args, "timeout", None) is not None:
        cfg.timeout = args.timeout
    return cfg


def gather_nodes(args, cfg, progress=True):
    """Facts for every node the arguments name: saved facts, a cluster, or this machine,
    through the transport gpudoctor.transport.choose picks (--via overrides it)."""
    from gpudoctor import gather

    if getattr(args, "facts", None):
        live = [f for f, on in (("--hosts", getattr(args, "hosts", None)), ("--nodes", getattr(args, "nodes", None)),
                                ("--local", getattr(args, "local", False)), ("--slurm", getattr(args, "slurm", False)))
                if on]
        if live:  # saved facts are the nodes: a live node list beside them was silently not gathered
            raise InputError("--facts reads saved facts; %s names live nodes: give one or the other" % "/".join(live))
        nodes = gather.from_facts(args.facts)
        reached = [n for n in nodes if n.reachable and isinstance(n.facts, dict)]
        if reached and all("watch" in n.facts and set(n.facts) <= _WATCH_ONLY for n in reached):
            # `gpudoctor watch --save DIR` writes samples only: every check read "skipped: not collected" and the
            # run exited 0 (userwalk22)
            raise InputError("%s holds watch samples (gpudoctor watch --save), not a node's facts: read them with "
                             "gpudoctor watch --facts %s; gpudoctor facts -o DIR saves what check reads"
                             % (args.facts, args.facts))
        return nodes
    if getattr(args, "deep", False):  # read by the collector here and in the probed interpreter
        os.environ["GPUDOCTOR_DEEP"] = "1"
    local_or_nodes(args)
    apply_slurm(args)
    from gpudoctor import inventory, transport

    hosts = [] if getattr(args, "local", False) else inventory.resolve(
        hosts_file=getattr(args, "hosts", None), nodeset=getattr(args, "nodes", None),
        max_nodes=getattr(args, "max_nodes", None))
    hosts = this_machine_only(hosts, getattr(args, "via", None))
    via = transport.choose(getattr(args, "via", None), hosts)
    settings = {"jobs": getattr(args, "jobs", None), "timeout": cfg.timeout, "progress": progress,
                "ssh_config": getattr(args, "ssh_config", None), "host_key_policy": getattr(args, "host_key_policy", None),
                "fallback": getattr(args, "fallback", None) or getattr(cfg, "fallback", None)}
    if via == "local":
        key = getattr(cfg, "env_key", None)  # the history's key (gpudoctor/history.py): hashes compare across runs
        payload = transport.Payload(python=cfg.python, fast=getattr(args, "fast", False),
                                    options={"env_key": key} if key else {})
        return _run(transport.get_transport("local", timeout=cfg.timeout), [], payload)
    cfg.slots = {h.name: h.slots for h in hosts if h.slots is not None}
    # env_key: one HMAC key per run, so env.parity compares non-allow-listed values across
    # nodes by a hash nobody can reverse once the run is over (the key is kept nowhere).
    # os.urandom(32).hex() is secrets.token_hex(32) (CPython Lib/secrets.py: token_bytes is
    # os.urandom), without `secrets`, whose import of hmac loads OpenSSL (5 ms of every run).
    # Where the srun step started first carries the nodes' first part, the key in it (made the same
    # way, in this process: early_srun.py)
    from gpudoctor import early_srun

    options = {"resolve": [h.name for h in hosts],
               "env_key": getattr(cfg, "env_key", None) or early_srun.key() or os.urandom(32).hex()}
    if getattr(args, "same", None):
        # srun runs every task in this process's folder (srun(1) --chdir: by default "the current
        # working directory of the srun process"), not in the login folder ssh gives: a relative
        # path is read there, so it is sent, reported and put in the fix as that absolute path
        # (the fix's `pdcp ... train.py train.py` copied into the node's login folder)
        options["same_files"] = [os.path.abspath(p) if via == "srun" and not p.startswith("~") else p
                                 for p in args.same]
    if getattr(args, "mesh", False):
        options["mesh"] = [h.name for h in hosts]
    plan = getattr(cfg, "launch", None)
    if plan is not None:
        from gpudoctor import launch

        launch.add_options(plan, options)
    payload = transport.Payload(python=cfg.python or "python3", options=options)
    nodes = _run(transport.get_transport(via, **settings), hosts, payload)
    if plan is not None:  # phase 2: the master listens on the rendezvous port, the others connect
        def regather(probe_hosts, options=None, per_host_options=None, timeout=None, **_ssh_only):
            again = transport.Payload(python=payload.python, options=dict(options or {}),
                                      per_host_options=dict(per_host_options or {}))
            return _run(transport.get_transport(via, **dict(settings, jobs=len(probe_hosts), progress=False,
                                                            timeout=timeout or cfg.timeout)), probe_hosts, again)

        nodes = launch.probe_rendezvous(plan, hosts, nodes, regather, python=payload.python, timeout=cfg.timeout,
                                        ssh_config=settings["ssh_config"], host_key_policy=settings["host_key_policy"])
    return nodes


def _run(tr, hosts, payload):
    """tr.run, with this machine's own failures (out of file descriptors) reported once as
    gpudoctor's (exit 3), never as a node's."""
    from gpudoctor.errors import EXIT_INTERNAL
    from gpudoctor.transport import ControllerError

    try:
        nodes = tr.run(hosts, payload)
    except ControllerError as exc:
        print("gpudoctor: error on this machine, not on a node: %s" % exc, file=sys.stderr)
        raise SystemExit(EXIT_INTERNAL)
    except KeyboardInterrupt as exc:  # the nodes that answered before it pass the same rule (a partial report)
        if getattr(exc, "partial_nodes", None) is not None:
            exc.partial_nodes = _marked(tr, exc.partial_nodes)
        raise
    return _marked(tr, nodes)


def _marked(tr, nodes):
    if tr.name != "local":
        for n in nodes:
            n.via = getattr(n, "via", None) or tr.name
    return [_checked(n) for n in nodes]


def _checked(node):
    """Facts a node sent pass the rule facts files pass (gather.facts_problem: every section a
    table with a status, 32 levels deep at most, text that is Unicode, a host-name node
    name): a node that sent something else is `garbage`, not a crash in the checks."""
    from gpudoctor.gather import facts_problem

    if not node.reachable or node.facts is None:
        return node
    why = facts_problem(node.facts)
    if why is None:
        return node
    from gpudoctor.runner import Node

    return Node(host=node.host, error="the facts it sent are malformed: %s" % why, error_kind="garbage",
                via=getattr(node, "via", None))


def interrupted_line(nodes, code=130, sampled=False):
    """stderr's line after Ctrl-C (or SIGTERM, ``code`` 143): how many nodes the partial report (or saved facts)
    covers. ``sampled`` (watch): how many nodes' samples it keeps and how many of those windows it cut short (the
    line said '2 of 2 nodes gathered before it; 0 marked interrupted' beside a report whose every node read
    'interrupted': userwalk25)."""
    cut = sum(1 for n in nodes if n.error_kind == "interrupted")
    # a node refused or unreachable before the interrupt has nothing gathered either: it was counted as kept
    # ('samples kept for 4 of 4 nodes' beside a report of '4 nodes, 1 unreachable': userwalk29)
    lost = sum(1 for n in nodes if n.error_kind != "interrupted" and (not n.reachable or n.facts is None))
    sig = " (SIGTERM)" if code == 143 else ""
    plural = "" if len(nodes) == 1 else "s"
    kept = len(nodes) - cut - lost
    if sampled:
        short = sum(1 for n in nodes if n.error_kind != "interrupted" and isinstance(n.facts, dict)
                    and isinstance(n.facts.get("watch"), dict) and n.facts["watch"].get("interrupted") is True)
        return ("gpudoctor: interrupted%s: samples kept for %d of %d node%s (%d window%s cut short: the rates are "
                "over the time sampled); %d with no samples%s" % (
                    sig, kept, len(nodes), plural, short, "" if short == 1 else "s", cut + lost,
                    " (%d interrupted, %d unreachable)" % (cut, lost) if lost else ""))
    return "gpudoctor: interrupted%s: %d of %d node%s gathered before it; %d marked interrupted%s" % (
        sig, kept, len(nodes), plural, cut, "; %d unreachable" % lost if lost else "")


def emit(report, fmt, output, verbose=False):
    import io

    stream = io.StringIO() if output else sys.stdout
    if fmt in ("json", "prometheus", "junit"):
        import importlib

        importlib.import_module("gpudoctor.report." + fmt).render(report, stream)
    else:
        from gpudoctor.report import text

        text.render(report, stream, color=None if not output else False, verbose=verbose)
    if output:
        from gpudoctor.report.atomic import write_atomic

        write_atomic(output, stream.getvalue())


def write_json(doc, path):
    from gpudoctor.jsonout import dumps_facts

    text = dumps_facts(doc) + "\n"  # json.dumps(doc, indent=1, sort_keys=True)'s text, faster
    if path:  # atomically: a full disk leaves the old file, never a truncated one
        from gpudoctor.report.atomic import write_atomic

        write_atomic(path, text)
    else:
        sys.stdout.write(text)
