"""Command line: builds the parser from the command modules (gpudoctor/commands/) and maps
errors to the exit-code contract (gpudoctor/errors.py): 0 healthy, 1 findings (or a node
that could not be checked; --strict: warnings too), 2 usage or input error (one line on
stderr, never a traceback), 3 gpudoctor's own failure, 130 interrupted."""

import sys

from gpudoctor import __version__
from gpudoctor.commands import NAMES
from gpudoctor.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, InputError, internal_error

# argparse (and gettext beneath it) is imported by build_parser, after main has started the
# prolog tier's children (gpudoctor/early.py): they need none of it, and start sooner
_PARSER = []  # the parser class, made once


def _parser_class():
    if not _PARSER:
        import argparse

        class _Parser(argparse.ArgumentParser):
            def error(self, message):  # one clear line, exit 2 (argparse prints usage + error)
                raise InputError("%s (see: %s --help)" % (message, self.prog))

            def parse_args(self, args=None, namespace=None):
                # argparse hands a command's unknown flags back to the top parser, whose error would
                # name `gpudoctor --help`: they are the command's, so its own help is named
                args, extra = self.parse_known_args(args, namespace)
                if extra:
                    prog = self.prog
                    for action in self._subparsers._group_actions if self._subparsers else ():
                        chosen = (action.choices or {}).get(getattr(args, action.dest, None) or "")
                        prog = chosen.prog if chosen is not None else prog
                    raise InputError("unrecognized arguments: %s (see: %s --help)" % (" ".join(extra), prog))
                return args

        _PARSER.append(_Parser)
    return _PARSER[0]


def one_line(text, limit=2000):
    """A message that stays one line on any terminal and in any log: a control character from
    the input (a newline, a form feed, an escape sequence, a lone surrogate from an argv that
    is not UTF-8) is shown escaped, never acted on."""
    shown = "".join(c if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF else ascii(c)[1:-1] for c in text[:limit])
    return shown + ("..." if len(text) > limit else "")


def build_parser(argv=None):
    """The parser. ``argv``: when its first word names a command, only that command's module
    is imported and its parser built (the others' imports cost the prolog tier 10-40 ms and
    cannot change how that command's line parses: argparse hands everything after the
    command's name to its subparser); otherwise (--help, --version, no command, a typo) every
    command, so the help lists them all and a wrong name is told the choices."""
    import importlib

    parser_class = _parser_class()
    p = parser_class(prog="gpudoctor", description="Preflight doctor for multi-node GPU training clusters.")
    p.add_argument("--version", action="version", version="gpudoctor %s" % __version__)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    first = argv[0] if argv else None
    only = [m for m in NAMES if first in _command_names(m)]
    for name in only or NAMES:
        importlib.import_module("gpudoctor.commands." + name).add_parser(sub)
    return p


def _command_names(module):
    """The words a command module registers (listing registers `list`, slurm_health
    `slurm-health`): the module's name with _ as -, or _ALIASES where it differs."""
    return _ALIASES.get(module, (module.replace("_", "-"),))


_ALIASES = {"listing": ("list",)}

# the commands that reach every node of the job by default inside an allocation
_CLUSTER = ("check", "facts", "probe", "watch")


def _other_task(args):
    """Whether this run is a task other than the first of a job step (`srun gpudoctor check` in
    a job) and reaches nodes beyond this one: then it does nothing (exit 0, no output), and the
    first task's run reaches every node for the step (transport.step_task says why); a replay
    of saved facts (--facts) is the same in every task, so it too runs once. With --local (or
    --via local) each task runs on its own node, as asked. The first task says so in one line
    on stderr."""
    if getattr(args, "local", False) or getattr(args, "via", None) == "local":
        return False
    from gpudoctor.transport import step_task

    task = step_task()
    if task is None or task[1] < 2:
        return False
    if task[0] == 0:
        print("gpudoctor: step %s has %d tasks: task 0 reaches the nodes for all of them, the others exit 0 "
              "with no output (--local: each task checks its own node)" % (task[2], task[1]), file=sys.stderr)
    return task[0] != 0


def main(argv=None):
    """The program (``argv`` None: sys.argv, as `gpudoctor` and `python -m gpudoctor` run it)
    or one command line in this process (tests)."""
    program = argv is None
    try:
        return _main(argv)
    finally:
        if program:
            # the interpreter's exit walks every object the cyclic collector tracks (the parser,
            # the registry, the facts, the report: about 200 modules' worth) for garbage that
            # exit frees anyway; frozen (https://docs.python.org/3/library/gc.html#gc.freeze),
            # they are skipped: 5-13 ms less of the prolog tier's wall time on the development
            # VM (docs/benchmarks.md). atexit handlers and the flush of stdout still run.
            import gc

            gc.freeze()


class _Stdout(object):
    """Standard output, marking an OSError of its own writes (`> /dev/full`, a full disk, an I/O error): that is
    the output's failure, told in one line (exit 2, as for an -o FILE that cannot be written), not a gpudoctor bug."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as exc:
            exc.gpudoctor_stdout = True
            raise

    def flush(self):
        try:
            return self._stream.flush()
        except OSError as exc:
            exc.gpudoctor_stdout = True
            raise

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _main(argv):
    args = None
    if sys.stdout is None:  # started with standard output closed (`>&-`): what is printed goes nowhere, as asked
        import os

        sys.stdout = open(os.devnull, "w")
    stdout = sys.stdout = _Stdout(sys.stdout)
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        from gpudoctor import early

        early.start(argv)  # the prolog tier's NVML read, in a child, while the imports below run
        from gpudoctor import early_srun

        early_srun.start(argv)  # in an allocation: the nodes' srun step, launched while the imports run
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):  # the help on stdout, and the usage error's one line on stderr
            parser.print_help()
            sys.stdout.flush()
            print("gpudoctor: error: give a command, e.g. gpudoctor check (see: gpudoctor --help)", file=sys.stderr)
            return EXIT_USAGE
        if args.command in _CLUSTER and _other_task(args):
            return EXIT_OK
        rc = args.func(args)
        sys.stdout.flush()  # a write that fails at exit's flush (`> /dev/full`) is told here, not ignored there
        return rc
    except InputError as exc:
        print("gpudoctor: error: %s" % one_line(str(exc)), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # Ctrl-C; `probe` turns SIGTERM into one too (exit 143)
        print("gpudoctor: interrupted", file=sys.stderr)
        return getattr(exc, "exit_code", EXIT_INTERRUPTED)
    except BrokenPipeError:  # `gpudoctor facts | head`
        try:
            sys.stdout = None
        finally:
            return EXIT_OK
    except Exception as exc:  # gpudoctor's own failure: exit 3, never 1 ("findings") or a traceback
        if getattr(exc, "gpudoctor_stdout", False):  # `> /dev/full`, a full disk: the output's fault, not a bug
            import os

            print("gpudoctor: error: cannot write to standard output: %s" % (exc.strerror or exc), file=sys.stderr)
            sys.stdout = open(os.devnull, "w")  # what is still buffered for it is dropped, not failed again at exit
            return EXIT_USAGE
        return internal_error("gpudoctor %s" % (getattr(args, "command", None) or "startup"), exc)
    finally:
        if sys.stdout is stdout:  # this call's own wrapper goes (main() may be called again, as the tests do)
            sys.stdout = stdout._stream
        from gpudoctor import early_srun

        early_srun.discard()  # a step started early that the run did not take (early_srun.py)
