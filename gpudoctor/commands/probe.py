"""`gpudoctor probe`: measure the fabric the job will use (docs/probe.md).

Over the same transports as `check`, start workers on every node with the job's interpreter:
NCCL all_reduce/all_gather over the job's torch (``--mode nccl``), or a stdlib TCP throughput
probe between node pairs (``--mode tcp``); ``auto`` picks NCCL where every node has torch and
GPUs. Findings carry ``probe.*`` ids; ``--budget`` bounds the whole run, cleanup included."""

import math
import os
import sys
import time

from gpudoctor.errors import InputError, sigterm_as_interrupt

MODES = ("auto", "tcp", "nccl")
DTYPES = ("bf16", "fp16", "fp32", "fp8")
FACT_SECTIONS = ["host", "network", "rdma", "limits", "nccl", "gpu"]


def add_parser(sub):
    p = sub.add_parser("probe", help="measure the fabric: NCCL bandwidth and transport, TCP between node pairs, "
                                     "the slow node or link")
    add_node_options(p)
    add_probe_options(p)
    p.add_argument("--json", action="store_true", help="print the gpudoctor.probe/1 document")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE instead of stdout")
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    p.set_defaults(func=run)
    return p


def add_node_options(p):
    g = p.add_argument_group("nodes (default: this machine)")
    g.add_argument("--hosts", metavar="FILE", help="hostfile: DeepSpeed/pdsh (host slots=8), MPI (host:8), plain list")
    g.add_argument("--nodes", metavar="NODESET", help="node set, e.g. 'gpu[01-16]' (default inside a Slurm "
                                                      "allocation: $SLURM_JOB_NODELIST)")
    g.add_argument("--local", action="store_true", help="probe only this machine, even inside a Slurm allocation")
    g.add_argument("--python", metavar="PATH", help="the job's interpreter on the nodes (its torch and NCCL are "
                                                  "what the probe measures); default: python3 on PATH")
    g.add_argument("--ssh-config", metavar="FILE", help="ssh config to honour (default ~/.ssh/config)")
    g.add_argument("--host-key-policy", choices=("accept-new", "strict", "ignore"), default=None,
                   help="unknown host keys: accept-new (default, like OpenSSH), strict, ignore")
    g.add_argument("--via", choices=("ssh", "srun"), default=None,
                   help="how workers start: srun steps (the default inside a Slurm allocation holding every "
                        "node) or ssh")
    from gpudoctor.commands.common import add_slurm

    add_slurm(g)


def add_probe_options(p, prefix=""):
    p.set_defaults(probe_prefix=prefix)  # what a refusal calls the flag: --budget, or check's --probe-budget
    g = p.add_argument_group("probe")
    g.add_argument("--%sbudget" % prefix, dest="budget", type=float, default=120.0, metavar="SECONDS",
                   help="the whole probe ends within this many seconds, cleanup included (default 120)")
    g.add_argument("--%smode" % prefix, dest="mode", choices=MODES, default="auto",
                   help="nccl: torch.distributed over the job's NCCL; tcp: stdlib TCP between node pairs; "
                        "auto (default): nccl where every node has torch and GPUs")
    g.add_argument("--%sports" % prefix, dest="ports", default="29500-29599", metavar="LOW-HIGH",
                   help="the job's port range: the TCP probe listens there and NCCL's rendezvous takes a free "
                        "port of it (default 29500-29599: torchrun's MASTER_PORT is 29500)")
    g.add_argument("--params", metavar="N", help="model parameters (7e9, 7B, 350M): print the all-reduce time "
                                                 "per step, one node vs all nodes")
    g.add_argument("--grad-dtype", choices=DTYPES, default="bf16", help="gradient dtype for --params (default bf16)")
    g.add_argument("--tcp-seconds", type=float, default=2.0, metavar="S",
                   help="TCP probe: seconds per direction per pair (default 2)")
    g.add_argument("--slow-ratio", type=float, default=0.5, metavar="R",
                   help="a pair below R x the cluster's reference rate is a suspect, and slow when the second pass "
                        "agrees (default 0.5; lower it on shared or noisy links)")
    g.add_argument("--max-size", default="1G", metavar="BYTES", help="NCCL sweep: largest size (default 1G; "
                                                                      "sizes double from 1M)")


def add_check_options(c):
    """`check --probe`: the probe after the checks, over the nodes the check reached."""
    c.add_argument("--probe", action="store_true", help="after the checks, run `gpudoctor probe` over the nodes "
                                                        "reached (docs/probe.md)")
    add_probe_options(c, prefix="probe-")


def _ports(text, flag="--ports"):
    try:
        lo, _, hi = text.partition("-")
        lo, hi = int(lo), int(hi or lo)
    except ValueError:
        raise InputError("%s %r: expected LOW-HIGH, e.g. 29500-29599" % (flag, text[:40]))
    if not (1 <= lo <= hi <= 65535):
        raise InputError("%s %d-%d: ports are 1-65535, low <= high" % (flag, lo, hi))
    return lo, hi


def _size(text):
    t = text.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        f = float(t[:-1]) * mult[t[-1]] if t and t[-1] in mult else float(int(t))
        if not math.isfinite(f):  # 'infG', 'nanM': float() takes them
            raise ValueError(text)
        n = int(f)
    except (ValueError, KeyError, OverflowError):
        raise InputError("--max-size %r: expected e.g. 256M or 1G" % text[:40])
    if not (1 << 20) <= n <= (16 << 30):
        raise InputError("--max-size must be between 1M and 16G")
    return n


def options(args):
    """Validated probe settings from the arguments (InputError on a bad value)."""
    from gpudoctor.probe import metrics

    flag = "--" + getattr(args, "probe_prefix", "")
    if not (0 < args.budget <= 86400):  # a NaN fails this too
        raise InputError("%sbudget %s: must be more than 0 and at most 86400 seconds" % (flag, args.budget))
    if not (0.05 <= args.tcp_seconds <= 60):
        raise InputError("--tcp-seconds must be between 0.05 and 60")
    if not (0.01 <= args.slow_ratio <= 0.95):
        raise InputError("--slow-ratio must be between 0.01 and 0.95")
    params = None
    if args.params is not None:
        try:
            params = metrics.parse_count(args.params)
        except ValueError:
            params = None
        if not params or not math.isfinite(params) or params <= 0 or params > 1e15:
            raise InputError("--params %r: expected a count like 7e9, 7B or 350M" % str(args.params)[:40])
    top = _size(args.max_size)
    sizes, s = [], 1 << 20
    while s <= top:
        sizes.append(s)
        s <<= 1
    return {"budget": args.budget, "mode": args.mode, "ports": _ports(args.ports, flag + "ports"), "params": params,
            "grad_dtype": args.grad_dtype, "tcp_seconds": args.tcp_seconds, "sizes": sizes,
            "ratio": args.slow_ratio}


def _progress(msg):
    if sys.stderr.isatty():
        print("gpudoctor probe: %s" % msg, file=sys.stderr)


def probe_nodes(args, opts, hosts=None, facts=None):
    """Run the probe; (document, findings, step estimate). ``hosts`` (inventory Hosts) and
    ``facts`` ({host: facts}) come from `check --probe`; otherwise they are resolved here."""
    from gpudoctor.probe import findings as F
    from gpudoctor.probe import launch, report, run

    t0 = time.time()
    unreached = {}  # nodes the facts round could not reach for Slurm's reasons (_gather_facts)
    if hosts is None:
        from gpudoctor import inventory
        from gpudoctor.commands.common import apply_slurm, local_or_nodes

        local_or_nodes(args)
        apply_slurm(args)  # --slurm: through srun, the partition's nodes outside a job
        hosts = None if getattr(args, "local", False) else inventory.resolve(hosts_file=args.hosts,
                                                                            nodeset=args.nodes)
        if hosts:  # DeepSpeed's single-node `localhost slots=8`: probed here, as check runs it (7d831c6)
            from gpudoctor.commands.common import this_machine_only

            via = getattr(args, "via", None)
            hosts = this_machine_only(hosts, via if via in ("ssh", "srun") else None, "probed") or None
    if hosts:
        from gpudoctor.transport import choose

        names = [h.name for h in hosts]
        _fits_open_files(len(names))
        via = getattr(args, "via", None)  # check --probe shares check's --via (local means nothing here)
        if choose(via if via in ("ssh", "srun") else None, hosts) == "srun":  # workers as job steps
            from gpudoctor.transport.srun_workers import SrunWorkers

            _python_for_steps(args)
            transport = SrunWorkers(names, python=args.python or "python3")
        else:
            transport = launch.SshTransport(names, python=args.python or "python3", ssh_config=args.ssh_config,
                                            host_key_policy=args.host_key_policy,
                                            connect_timeout=min(10.0, max(2.0, opts["budget"] / 4)))
        if facts is None:
            try:
                facts, unreached = _gather_facts(hosts, args, opts)
            except KeyboardInterrupt as exc:  # Ctrl-C / SIGTERM while a hung node holds the facts round
                doc = _interrupted_before_start(names, transport, exc, opts, t0)
                if doc is None:
                    raise
                return doc, F.evaluate(doc, {}), None
    else:
        import shutil

        if args.python and not shutil.which(args.python):
            from gpudoctor.gather import interpreter_missing

            raise InputError(interpreter_missing(args.python))
        import socket  # here: check's flags come from this module, and the prolog tier has no socket otherwise

        names = [socket.gethostname() or "localhost"]
        transport = launch.LocalTransport(python=args.python or None)
        if facts is None:
            facts = _local_facts(names[0], args)
    left = opts["budget"] - (time.time() - t0)
    if left < 1:
        raise InputError("--budget %gs was spent gathering facts; give the probe more time" % opts["budget"])
    doc = run.probe(names, transport, mode=opts["mode"], budget=left, ports=opts["ports"],
                    tcp_seconds=opts["tcp_seconds"], sizes=opts["sizes"], ratio=opts["ratio"], log=_progress,
                    unreached=unreached)
    doc["budget_s"] = opts["budget"]
    doc["elapsed_s"] = round(time.time() - t0, 2)
    found = F.evaluate(doc, facts or {})
    step = report.estimate(doc, opts["params"], opts["grad_dtype"]) if opts["params"] else None
    if opts["params"] and step is None:  # --params asked for and nothing to base it on: said, not silently dropped
        doc["step_skipped"] = ("no NCCL all_reduce was measured (it needs torch and GPUs on the nodes: --mode nccl, "
                               "or auto where every node has them)")
    return doc, found, step


def _python_for_steps(args):
    """With SLURM_EXPORT_ENV=NONE (sbatch --export=NONE exports it to the job's steps) srun's steps get no PATH, and
    `python3` there was the system's: on the 4-node bed the workers ran Python 3.11.2, not the caller's 3.11.7, so
    `--mode auto` would never see the torch of the caller's environment and chose TCP (slurm23, slurm26, slurm27).
    Without --python, the facts round and the workers then run the python3 of this PATH, by its path (the same
    file on the nodes where the environment is on a shared file system), and stderr says so."""
    from gpudoctor.transport.srun_workers import exports_path

    mode = os.environ.get("SLURM_EXPORT_ENV")
    if args.python or exports_path(mode):
        return
    import shutil

    found = shutil.which("python3")
    if found:
        args.python = found
        shown = "".join(c if c.isprintable() else "?" for c in mode[:60])
        print("gpudoctor: probe: SLURM_EXPORT_ENV=%s gives srun's steps no PATH; the nodes run %s (python3 on this "
              "PATH; --python names another)" % (shown, found), file=sys.stderr)


def _interrupted_before_start(names, transport, exc, opts, t0):
    """The gpudoctor.probe/1 document of a run interrupted in its facts round, before any worker started (a node
    whose sshd hangs holds that round up to 15 s): each node as that round left it (its own error, e.g. refused,
    or interrupted), nothing measured and nothing to clean up. None where the transport gave no partial nodes.
    Before, Ctrl-C there printed only 'gpudoctor: interrupted': the nodes already known to be refused went unsaid."""
    from gpudoctor.probe import SCHEMA

    partial = dict((n.host, n) for n in getattr(exc, "partial_nodes", None) or [])
    if not partial:
        return None
    nodes = []
    for h in names:
        n = partial.get(h)
        if n is not None and not n.reachable and n.error_kind not in (None, "interrupted"):
            nodes.append({"host": h, "reachable": False, "error_kind": n.error_kind, "error": n.error})
        else:
            nodes.append({"host": h, "reachable": False, "error_kind": "interrupted",
                          "error": "the run was interrupted before the probe started a worker here" if n is not None
                          and n.reachable else "the run was interrupted before the node answered"})
    return {"schema": SCHEMA, "mode": None, "budget_s": opts["budget"], "nodes": nodes, "collectives": [],
            "pairs": [], "jobs": [], "isolation": None, "cleanup": {}, "elapsed_s": round(time.time() - t0, 2),
            "ports": list(opts["ports"]), "addresses": {h: transport.address(h) for h in names},
            "transport": transport.name, "run_id": None, "interrupted": getattr(exc, "signal_name", "SIGINT")}


FDS_PER_PROBE_NODE = 4  # hello on every node at once (an SSH socket each), a round's two workers per pair, slack


def _fits_open_files(n):
    """Refuse, before anything starts, a node count this machine cannot hold connections to at
    once (hello reaches every node together): the soft open-file limit is raised to the hard one
    first, as `check`'s fan-out does (transport.usable_jobs)."""
    from gpudoctor.transport import FDS_PER_NODE, ControllerError, usable_jobs

    try:
        room = usable_jobs(1 << 30, 1 << 30) * FDS_PER_NODE
    except ControllerError:
        room = 0
    if n * FDS_PER_PROBE_NODE > room:
        raise InputError("probing %d nodes needs about %d open files at once; this process may open %d more: "
                         "raise the limit (ulimit -n 65536) or probe fewer nodes" % (n, n * FDS_PER_PROBE_NODE, room))


def _gather_facts(hosts, args, opts):
    """The facts the findings read (RDMA ports, interface speeds, limits): one short fan-out
    through the transport interface (ssh, or srun inside an allocation). Returns them with the
    nodes srun could not reach for Slurm's reasons, and those whose python never answered within the round's
    bound ("hang"), {host: (error_kind, error)}: the probe starts no worker there (run.probe ``unreached``)."""
    from gpudoctor import transport
    from gpudoctor.transport.srun import FALLBACK_KINDS

    payload = transport.Payload(python=args.python or "python3", options={"only": FACT_SECTIONS})
    via = getattr(args, "via", None)
    bound = min(15.0, max(2.0, opts["budget"] / 5))
    nodes = transport.run(hosts, payload, via=via if via in ("ssh", "srun") else None, timeout=bound,
                          ssh_config=args.ssh_config, host_key_policy=args.host_key_policy, progress=False)
    unreached = {}
    for n in nodes:
        if n.reachable:
            continue
        if n.error_kind in FALLBACK_KINDS:
            unreached[n.host] = (n.error_kind, n.error)
        elif (n.error_kind == "timeout" and (n.error or "").endswith(transport.COLLECTOR_STOPPED)
              and bound >= max(3.0, min(15.0, opts["budget"] * 0.1))):  # at least the hello's own bound (run.py)
            # the interpreter the workers use started there and gave nothing within this round's bound: the hello
            # would wait its own bound on it again (a 4-node Slurm, one node's python hung: 15 s here, then
            # 10.5 s more in the hello, 44 s of a 120 s run; slurm27). One bound: it is the hang, no worker there.
            unreached[n.host] = ("hang", "the node's python gave no answer within %gs (the probe's facts round, with "
                                 "the interpreter the workers use): a hung interpreter or node; no worker was started "
                                 "there" % bound)
    return {n.host: n.facts for n in nodes if n.reachable}, unreached


def _local_facts(name, args):
    from gpudoctor.collector import Context, collect

    doc = collect(Context(python=None), only=set(FACT_SECTIONS))
    return {name: doc}


def _interrupted_exit(doc, code):
    """After the partial report: exit 130 (SIGINT) or 143 (SIGTERM) at once, without waiting for
    the threads of pairs that were still running when the signal came (their workers are ended)."""
    print("gpudoctor: interrupted (%s): the report covers what was measured before it" % doc["interrupted"],
          file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def interrupt_code(doc):
    from gpudoctor.errors import EXIT_INTERRUPTED

    return 143 if doc.get("interrupted") == "SIGTERM" else EXIT_INTERRUPTED


def emit(doc, found, step, args):
    import io
    import json

    from gpudoctor.probe import report

    stream = io.StringIO()
    if args.json:
        json.dump(report.to_json(doc, found, step), stream, indent=1, sort_keys=False)
        stream.write("\n")
    else:
        report.render_text(doc, found, stream, step)
    if getattr(args, "output", None):
        from gpudoctor.report.atomic import write_atomic

        write_atomic(args.output, stream.getvalue())
    else:
        sys.stdout.write(stream.getvalue())
        sys.stdout.flush()
    if doc.get("interrupted"):
        _interrupted_exit(doc, interrupt_code(doc))
    return report.exit_code(found, strict=getattr(args, "strict", False))


def run(args):
    opts = options(args)
    # SIGTERM ends the run as Ctrl-C does (workers ended, the partial report printed); by default it
    # killed the controller at once and left the workers to their watchdogs
    with sigterm_as_interrupt():
        doc, found, step = probe_nodes(args, opts)
    return emit(doc, found, step, args)


def after_check(args, nodes, stream=None):
    """`check --probe`: the probe over the nodes the check reached, with their facts."""
    from gpudoctor import inventory

    opts = options(args)
    reached = [n for n in nodes if n.reachable]
    if not reached:
        return 0
    local = getattr(args, "local", False) or not (args.hosts or args.nodes or inventory.resolve(
        hosts_file=None, nodeset=None))
    hosts = None if local else [inventory.Host(name=n.host) for n in reached]
    facts = {n.host: n.facts for n in reached}
    if local:
        args.local = True
    with sigterm_as_interrupt():
        doc, found, step = probe_nodes(args, opts, hosts=hosts, facts=facts if not local else None)
    from gpudoctor.probe import report

    text_out = not args.json and (getattr(args, "format", None) or "text") == "text" and not args.output
    out = stream or (sys.stdout if text_out else sys.stderr)  # never inside a JSON/JUnit document
    out.write("\n")
    report.render_text(doc, found, out, step)
    if doc.get("interrupted") and stream is None:
        _interrupted_exit(doc, interrupt_code(doc))
    return report.exit_code(found, strict=getattr(args, "strict", False))
