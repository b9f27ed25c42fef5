"""`gpudoctor explain`: from an error message or a whole log to its cause and fix."""


def add_parser(sub):
    ex = sub.add_parser("explain", help="from an error message or a whole log to its cause and fix",
                        epilog="exit codes: 0 a known error explained, or no error in the text; 1 an error that "
                               "nothing in gpudoctor's knowledge explains; 2 bad input. See docs/explain.md.")
    ex.add_argument("text", nargs="?", help="the error text; '-' reads standard input")
    ex.add_argument("--file", metavar="LOG", help="a log file to read")
    ex.add_argument("--json", action="store_true", help="the answer as JSON (schema gpudoctor.explain/2)")
    ex.add_argument("--check", action="store_true",
                    help="run the confirming checks on this machine now, and compute fixes from its facts")
    ex.add_argument("--facts", metavar="PATH",
                    help="compute fixes from saved facts (what `gpudoctor facts -o` writes: a node's file, or a "
                         "folder of nodes) instead of this machine")
    ex.set_defaults(func=run)
    return ex


def run(args):
    from gpudoctor import explain

    return explain.main(args)
