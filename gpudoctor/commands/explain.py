"""`gpudoctor explain`: from an error message or a whole log to its cause and fix."""


def add_parser(sub):
    ex = sub.add_parser("explain", help="from an error message or a whole log to its cause and fix")
    ex.add_argument("text", nargs="?", help="the error text; '-' reads standard input")
    ex.add_argument("--file", metavar="LOG", help="a log file to read")
    ex.add_argument("--json", action="store_true")
    ex.add_argument("--check", action="store_true",
                    help="run the confirming checks on this machine now, and compute fixes from its facts")
    ex.add_argument("--facts", metavar="FILE",
                    help="compute fixes from a saved node's facts (what `gpudoctor facts -o` writes) instead of "
                         "this machine")
    ex.set_defaults(func=run)
    return ex


def run(args):
    from gpudoctor import explain

    return explain.main(args)
