"""`gpudoctor facts`: this node's (or every node's) raw facts as JSON."""

import os
import sys

from gpudoctor.commands.common import add_inventory, config_from, gather_nodes, interrupted_line, write_json
from gpudoctor.errors import EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_OK, sigterm_as_interrupt


def add_parser(sub):
    f = sub.add_parser("facts", help="print this node's (or every node's) raw facts as JSON")
    add_inventory(f)
    f.add_argument("-o", "--output", metavar="PATH", help="write to FILE (one node) or DIR (with --hosts/--nodes)")
    f.add_argument("--deep", action="store_true", help="also import torch in a child process (see check --deep)")
    f.set_defaults(func=run)
    return f


def run(args):
    from gpudoctor import gather

    cfg = config_from(args)
    if args.output and (args.hosts or args.nodes):  # a folder then: refused before the nodes are gathered
        gather.check_save_target(args.output)
    interrupted = False  # else 130 (Ctrl-C) or 143 (SIGTERM)
    try:
        with sigterm_as_interrupt():
            nodes = gather_nodes(args, cfg)
    except KeyboardInterrupt as exc:  # Ctrl-C: the fan-out hands back what it finished, kept as check keeps it
        nodes = getattr(exc, "partial_nodes", None)
        if nodes is None or not (args.hosts or args.nodes or len(nodes) > 1):
            raise
        interrupted = getattr(exc, "exit_code", EXIT_INTERRUPTED)
    # several nodes (--hosts, --nodes, or a Slurm allocation's node list): one document per node
    if args.hosts or args.nodes or len(nodes) > 1:
        bad = [n for n in nodes if not n.reachable]
        if args.output:
            others = gather.save(nodes, args.output)
            print("gpudoctor: saved facts of %d node%s to %s/ (one file per node; %d unreachable)" % (
                len(nodes), "" if len(nodes) == 1 else "s", args.output.rstrip("/"), len(bad)), file=sys.stderr)
            if others:
                print(gather.others_line(others, args.output, "gpudoctor check --facts"), file=sys.stderr)
        else:
            write_json({n.host: n.facts if n.reachable else {"error": n.error, "error_kind": n.error_kind}
                        for n in nodes}, None)
        if interrupted:
            print(interrupted_line(nodes, interrupted), file=sys.stderr)
            sys.stdout.flush()
            os._exit(interrupted)  # do not wait for SSH sessions still in flight
        return EXIT_FINDINGS if bad else EXIT_OK
    node = nodes[0]
    if not node.reachable:  # this machine past --timeout: say so, never write "null" as its facts
        print("gpudoctor: %s could not be checked (%s): %s" % (node.host, node.error_kind or "error", node.error),
              file=sys.stderr)
        return EXIT_FINDINGS
    write_json(node.facts, args.output)
    return EXIT_OK
