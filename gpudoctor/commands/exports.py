"""`gpudoctor exports`: a sourceable snippet (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, ...) from every node's facts."""

import sys

from gpudoctor.commands.common import add_inventory, config_from, gather_nodes
from gpudoctor.errors import EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_OK, sigterm_as_interrupt


def add_parser(sub):
    e = sub.add_parser("exports", help="print a sourceable snippet of exports (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, ...) "
                                       "computed from every node's facts")
    add_inventory(e)
    import argparse

    for action in e._actions:  # check's file parity and ssh mesh: refused here (run), so not offered in --help
        if action.dest in ("same", "mesh"):
            action.help = argparse.SUPPRESS
    e.add_argument("--facts", metavar="PATH", help="compute from saved facts (a file or a folder)")
    e.set_defaults(func=run, select=[], ignore=[])
    return e


def snippet(nodes, report):
    from gpudoctor.report import exports

    facts = {n.host: n.facts for n in nodes if n.reachable}
    return exports.render(exports.compute(facts), extra=exports.from_findings(report.findings))


def run(args):
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import run_checks

    if getattr(args, "same", None) or getattr(args, "mesh", False):  # as watch refuses them: nothing here uses them
        from gpudoctor.errors import InputError

        raise InputError("--same and --mesh belong to gpudoctor check: no export comes from them (they would only "
                         "cost the nodes' time here)")
    cfg = config_from(args)
    interrupted = False  # else 130 (Ctrl-C) or 143 (SIGTERM)
    try:
        # as check and facts: Ctrl-C, or SIGTERM from `timeout` / scancel, while a node hangs gives the exports of the
        # nodes gathered before it, the interrupted line and 130 / 143. SIGTERM killed exports with no word on
        # stderr and nothing on stdout; Ctrl-C printed 'gpudoctor: interrupted' alone (userwalk27)
        with sigterm_as_interrupt():
            nodes = gather_nodes(args, cfg)
    except KeyboardInterrupt as exc:
        nodes = getattr(exc, "partial_nodes", None)
        if nodes is None:
            raise
        interrupted = getattr(exc, "exit_code", EXIT_INTERRUPTED)
    report = run_checks(nodes, list(load_checks()), cfg)
    sys.stdout.write(snippet(nodes, report))
    if interrupted:
        import os

        from gpudoctor.commands.common import interrupted_line

        print(interrupted_line(nodes, interrupted) + "; the exports cover the nodes gathered", file=sys.stderr)
        sys.stdout.flush()
        os._exit(interrupted)  # do not wait for SSH sessions still in flight
    if getattr(report, "crashed", None):  # its exports may be missing: not "healthy"
        from gpudoctor.errors import EXIT_INTERNAL, crashed_checks

        crashed_checks(report, "exports")
        return EXIT_INTERNAL
    bad = [n.host for n in nodes if not n.reachable]
    if bad:
        from gpudoctor.nodes import fold

        print("gpudoctor: %s could not be checked; %s" % (
            fold(bad), "the exports cover the others" if len(bad) < len(nodes) else "no node was reached: nothing to export"),
            file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK
