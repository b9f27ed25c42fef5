"""`gpudoctor watch`: sample a running job on every node for a few seconds, through the
same transports as `check`, and say why it is slow (gpudoctor/watch.py): communication-bound
(NCCL on sockets, and the variables that put it there), a straggler node, input-bound, or
computing. Exit 0 healthy (or nothing to watch), 1 findings."""

import json
import socket
import sys

from gpudoctor.commands.common import add_inventory, config_from, interrupted_line, _run
from gpudoctor.errors import InputError

MAX_SECONDS = 600.0


def _seconds(value):
    import argparse
    import math

    try:
        x = float(value)
    except ValueError:
        x = float("nan")
    if not (math.isfinite(x) and 0.5 <= x <= MAX_SECONDS):
        raise argparse.ArgumentTypeError("expected seconds from 0.5 to %g, got %r" % (MAX_SECONDS, value[:40]))
    return x


def _interval(value):
    import argparse
    import math

    try:
        x = float(value)
    except ValueError:
        x = float("nan")
    if not (math.isfinite(x) and 0.1 <= x <= 60):
        raise argparse.ArgumentTypeError("expected seconds from 0.1 to 60, got %r" % value[:40])
    return x


def _user(value):
    import argparse

    from gpudoctor.watch import USER_NAME  # (imported here: every command's parser is built at start-up)

    if not USER_NAME.match(value) or (value.isdigit() and len(value) > 10):
        raise argparse.ArgumentTypeError("expected an account name or a uid, got %r" % value[:40])
    return value


def add_parser(sub):
    c = sub.add_parser("watch", help="sample a running job's GPUs, links and processes for a few seconds: "
                                     "why is it slow?")
    add_inventory(c)
    import argparse

    for action in c._actions:  # check's file parity and ssh mesh: not watch's (refused if given)
        if action.dest in ("same", "mesh"):
            action.help = argparse.SUPPRESS
        elif action.dest == "timeout":
            action.help = "seconds per node beyond --seconds (default 30)"
    c.add_argument("--seconds", type=_seconds, default=5.0, metavar="N", help="how long to sample (default 5)")
    c.add_argument("--interval", type=_interval, default=0.5, metavar="S", help="seconds between GPU samples "
                                                                                "(default 0.5)")
    c.add_argument("--user", type=_user, metavar="USER", help="watch only USER's processes (a name, resolved on each "
                                                               "node, or a uid): one job where several users' run")
    c.add_argument("--facts", metavar="PATH", help="diagnose samples saved with --save instead of live nodes")
    c.add_argument("--save", metavar="DIR", help="also write each node's samples to DIR/<node>.json")
    c.add_argument("--config", metavar="FILE", help="gpudoctor.toml (as for check)")
    c.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    c.add_argument("--json", action="store_true", help="print the report as JSON (same as --format json)")
    c.add_argument("--format", choices=("text", "json", "prometheus", "junit"), default=None, help="report format")
    c.add_argument("-v", "--verbose", action="store_true", help="also list the diagnoses that were n/a or skipped")
    c.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    c.set_defaults(func=run)
    return c


def gather(args, cfg):
    """Every node's facts with the watch section (and nothing else), through the transport
    `check` would use; the deadline per node is the sampling time plus --timeout."""
    from gpudoctor import gather as saved, inventory, transport

    if args.facts:
        if args.user:
            raise InputError("--user chooses whose processes a live window samples; samples saved with --save were "
                             "taken already (watch them with --user again, live)")
        nodes = saved.from_facts(args.facts)
        reached = [n for n in nodes if n.reachable]
        if reached and not any(((n.facts or {}).get("watch") or {}).get("status") == "ok" for n in reached):
            # `gpudoctor facts` / check's facts carry no samples: every diagnosis read "n/a: no sampling asked for"
            # (userwalk22), as if the samples had been looked at
            raise InputError("%s holds no watch samples (what `gpudoctor facts` saves has none): save them with "
                             "gpudoctor watch --save DIR, then gpudoctor watch --facts DIR" % args.facts)
        return nodes
    from gpudoctor.commands.common import apply_slurm, local_or_nodes

    local_or_nodes(args)
    apply_slurm(args)  # --slurm: through srun, the partition's nodes outside a job
    hosts = [] if args.local else inventory.resolve(hosts_file=args.hosts, nodeset=args.nodes,
                                                    max_nodes=args.max_nodes)
    from gpudoctor.commands.common import this_machine_only

    hosts = this_machine_only(hosts, args.via)
    via = transport.choose(args.via, hosts)
    import secrets

    # env_key: one HMAC key per run for the environment values that are not shown (the
    # env section's rule); kept nowhere once the run is over
    options = {"only": ["watch"], "watch": {"seconds": args.seconds, "interval": args.interval},
               "env_key": secrets.token_hex(32)}
    if args.user:
        options["watch"]["user"] = args.user
    timeout = args.seconds + cfg.timeout
    if via == "local":
        options["node"] = socket.gethostname()
        payload = transport.Payload(python=None, options=options)
        return _run(transport.get_transport("local", timeout=timeout), [], payload)
    settings = {"jobs": args.jobs, "timeout": timeout, "progress": True, "ssh_config": args.ssh_config,
                "host_key_policy": args.host_key_policy,
                "fallback": getattr(args, "fallback", None) or getattr(cfg, "fallback", None)}  # srun only
    payload = transport.Payload(python=cfg.python or "python3", options=options)
    return _run(transport.get_transport(via, **settings), hosts, payload)


def report_dict(report, nodes):
    from gpudoctor.watch import node_rows

    doc = report.to_dict()
    doc["samples"] = dict((n.host, node_rows(n.facts or {})) for n in nodes if n.reachable)
    return doc


def run(args):
    from gpudoctor.runner import run_checks
    from gpudoctor.watch import WATCH, table_lines

    if args.same or args.mesh:
        raise InputError("--same and --mesh belong to gpudoctor check, not watch")
    if args.facts and (args.hosts or args.nodes or args.local):
        raise InputError("--facts reads saved samples: drop --hosts/--nodes/--local")
    cfg = config_from(args)
    if args.save and not args.facts:
        from gpudoctor.gather import check_save_target

        check_save_target(args.save)  # before the window, not after it
    interrupted = False  # else 130 (Ctrl-C) or 143 (SIGTERM)
    try:
        from gpudoctor.errors import EXIT_INTERRUPTED, sigterm_as_interrupt

        with sigterm_as_interrupt():
            nodes = gather(args, cfg)
    except KeyboardInterrupt as exc:  # the fan-out hands back what it finished, as for check
        nodes = getattr(exc, "partial_nodes", None)
        if nodes is None:
            raise
        interrupted = getattr(exc, "exit_code", EXIT_INTERRUPTED)
    if args.facts and not any(n.reachable and "watch" in (n.facts or {}) for n in nodes):
        raise InputError("%s holds no watch samples (gpudoctor watch --save DIR writes them; these are check "
                         "facts)" % args.facts)
    if args.save and not args.facts:
        from gpudoctor.gather import others_line, save

        others = save(nodes, args.save)
        if others:
            print(others_line(others, args.save, "gpudoctor watch --facts"), file=sys.stderr)
    from gpudoctor.registry import select

    # the config's ignore list skips watch's checks too, as its severity table already changes them (docs/config.md)
    report = run_checks(nodes, select(list(WATCH), (), cfg.ignore or ()), cfg)
    report.interrupted = interrupted  # its summary says exit 130 (143), as the process exits
    fmt = "json" if args.json else (args.format or "text")
    import io

    stream = io.StringIO() if args.output else sys.stdout
    if fmt == "json":
        json.dump(report_dict(report, nodes), stream, indent=2, default=list)
        stream.write("\n")
    elif fmt == "prometheus":
        from gpudoctor.report import prometheus
        from gpudoctor.watch import prometheus_lines

        prometheus.render(report, stream)
        stream.write("\n".join(prometheus_lines(nodes)) + "\n")
    elif fmt == "junit":
        from gpudoctor.report import junit

        junit.render(report, stream)
    else:
        from gpudoctor.report import text

        header = table_lines(nodes)
        for r in report.results:  # why there is nothing to watch, without --verbose
            if r.id == "watch.target" and r.status == "na":
                header.append(r.summary[:1].upper() + r.summary[1:])
        text.render(report, stream, color=None if not args.output else False, verbose=args.verbose,
                    header=header, command="watch")
    if args.output:
        from gpudoctor.report.atomic import write_atomic

        write_atomic(args.output, stream.getvalue())
    if interrupted:
        import os

        print(interrupted_line(nodes, interrupted, sampled=True), file=sys.stderr)
        sys.stdout.flush()
        os._exit(interrupted)  # do not wait for SSH sessions still in flight
    if report.crashed:
        from gpudoctor.errors import EXIT_INTERNAL, crashed_checks

        crashed_checks(report, "watch")
        return EXIT_INTERNAL
    return report.exit_code
