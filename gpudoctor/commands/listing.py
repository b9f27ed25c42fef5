"""`gpudoctor list`: every registered check."""

import sys

from gpudoctor.commands.common import write_json
from gpudoctor.errors import EXIT_OK


def add_parser(sub):
    ls = sub.add_parser("list", help="list every check: id, severity, title")
    ls.add_argument("--json", action="store_true",
                    help="a JSON list: each check's id, severity, scope (node or cluster), title, the facts "
                         "sections it needs, and the module that defines it")
    ls.set_defaults(func=run)
    return ls


def run(args):
    from gpudoctor.registry import load_checks, plugin_errors

    checks = list(load_checks())
    if args.json:
        write_json([{"id": c.id, "severity": c.severity, "scope": c.scope, "title": c.title, "needs": list(c.needs),
                     "module": c.module} for c in checks], None)
    else:
        from gpudoctor.report.text import wrap

        w = max(len(c.id) for c in checks)
        for c in checks:
            # a title is prose: wrapped at 100 columns, continued under the title's column
            line = "%-*s  %-7s  %s%s" % (w, c.id, c.severity, c.title, "  (cluster)" if c.scope == "cluster" else "")
            for _, part in wrap(None, line, w + 2 + max(7, len(c.severity)) + 2):
                print(part)
    for err in plugin_errors():
        print("gpudoctor: warning: %s" % err, file=sys.stderr)
    return EXIT_OK
