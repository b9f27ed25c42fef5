"""`gpudoctor explain`: from an error message or a whole log to its cause and fix."""


def add_parser(sub):
    ex = sub.add_parser("explain", help="from an error message or a whole log to its cause and fix",
                        epilog="exit codes: 0 a known error explained (a root cause, or a likely cause the text does not "
                               "prove), or no error in the text; 1 an error that "
                               "nothing in gpudoctor's knowledge explains; 2 bad input. See docs/explain.md.")
    ex.add_argument("text", nargs="*", metavar="TEXT|LOG|DIR",
                    help="the error text; '-' reads standard input; or log files / folders of one job (per-node "
                         "logs, slurm-*.out, PyTorch Flight Recorder dumps), answered once for the job")
    ex.add_argument("--file", metavar="LOG", action="append", help="a log file or folder to read (repeatable)")
    ex.add_argument("--timeout", type=float, metavar="SECONDS",
                    help="stop reading after this long and answer with what was found, saying so "
                         "(default 300; 0: no limit)")
    ex.add_argument("--json", action="store_true", help="the answer as JSON (schema gpudoctor.explain/4)")
    ex.add_argument("--check", action="store_true",
                    help="run the confirming checks on this machine now, and compute fixes from its facts")
    ex.add_argument("--facts", metavar="PATH",
                    help="compute fixes from saved facts (what `gpudoctor facts -o` writes: a node's file, or a "
                         "folder of nodes) instead of this machine")
    ex.add_argument("--since", metavar="WHEN", help="with --facts or --check: name the change since the node's "
                                                   "last passing run (last-good, the default) or a UTC date that "
                                                   "matches the error (history: docs/history.md)")
    ex.add_argument("--state-dir", metavar="DIR", help="with --facts or --check: the history to read (as check "
                                                            "--history)")
    ex.set_defaults(func=run)
    return ex


def run(args):
    from gpudoctor import explain

    if not (getattr(args, "since", None) or getattr(args, "state_dir", None)):
        return explain.main(args)
    return _with_history(args, explain.main)


def _with_history(args, main):
    """The answer, then the changes since the node's record that match it (gpudoctor/history.py
    explain_changes): added beside the engine's output, which stays as it is."""
    import io
    import json
    import sys

    from gpudoctor import history
    from gpudoctor.errors import InputError

    if getattr(args, "facts", None):
        from gpudoctor.explain.fixes import load_facts

        nodes = load_facts(args.facts)
        history.parse_since(args.since or "last-good")  # a bad --since is exit 2 before any output
    elif getattr(args, "check", False):
        # --check: this machine, gathered now, as `gpudoctor diff --since` gathers it (with the history's key, so
        # hashed environment values compare); it was refused ("need --facts"), which made the user on the failing
        # node save a facts file first (userwalk25)
        from gpudoctor import gather

        history.parse_since(args.since or "last-good")
        store = history.open_for(args.state_dir, None, strict=True)
        try:
            key = store.key
        except (history.HistoryError, OSError) as exc:
            raise InputError("history: %s" % exc)
        nodes = [n.facts for n in gather.local(options={"env_key": key}) if isinstance(n.facts, dict)]
    else:
        raise InputError("--since/--state-dir need --facts FILE (a node's saved facts) or --check (this machine now) "
                         "to compare with the history")
    want_json = args.json
    real, sys.stdout = sys.stdout, io.StringIO()
    try:  # one run of the engine, as JSON: its findings name the checks that confirm them
        args.json = True
        code = main(args)
        result = json.loads(sys.stdout.getvalue())
    finally:
        sys.stdout, args.json = real, want_json
    hist = history.explain_changes(result, nodes, args.since, args.state_dir)
    if want_json:
        result["history"] = hist
        sys.stdout.write(json.dumps(result, indent=1) + "\n")
    else:
        from gpudoctor.explain import render_text

        render_text(result, sys.stdout, color=False)
        sys.stdout.write("\n".join(history.explain_lines(hist)) + "\n")
    return code
