"""`gpudoctor facts`: this node's (or every node's) raw facts as JSON."""

import sys

from gpudoctor.commands.common import add_inventory, config_from, gather_nodes, write_json
from gpudoctor.errors import EXIT_FINDINGS, EXIT_OK


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
    nodes = gather_nodes(args, cfg)
    # several nodes (--hosts, --nodes, or a Slurm allocation's node list): one document per node
    if args.hosts or args.nodes or len(nodes) > 1:
        if args.output:
            gather.save(nodes, args.output)
            bad = [n for n in nodes if not n.reachable]
            print("gpudoctor: saved facts of %d nodes to %s (%d unreachable)" % (len(nodes), args.output, len(bad)),
                  file=sys.stderr)
            return EXIT_FINDINGS if bad else EXIT_OK
        docs = {n.host: n.facts if n.reachable else {"error": n.error, "error_kind": n.error_kind} for n in nodes}
        write_json(docs, None)
        return EXIT_FINDINGS if any(not n.reachable for n in nodes) else EXIT_OK
    node = nodes[0]
    if not node.reachable:  # this machine past --timeout: say so, never write "null" as its facts
        print("gpudoctor: %s could not be checked (%s): %s" % (node.host, node.error_kind or "error", node.error),
              file=sys.stderr)
        return EXIT_FINDINGS
    write_json(node.facts, args.output)
    return EXIT_OK
