"""`gpudoctor check`: gather facts, run the checks, print the report and the fixes."""

import os
import sys

from gpudoctor.config import flag
from gpudoctor.commands.common import add_inventory, config_from, csv, emit, gather_nodes, interrupted_line
from gpudoctor.errors import EXIT_INTERRUPTED, InputError, sigterm_as_interrupt


def add_parser(sub):
    c = sub.add_parser("check", help="gather facts, run every check, print findings and fixes")
    add_inventory(c)
    c.add_argument("--facts", metavar="PATH", help="check saved facts (a file or a folder) instead of live nodes")
    c.add_argument("--select", type=csv, default=[], metavar="IDS", help="only these check ids or id prefixes")
    c.add_argument("--ignore", type=csv, default=[], metavar="IDS", help="skip these check ids or id prefixes")
    c.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    c.add_argument("--config", metavar="FILE", help="gpudoctor.toml (default, the first found: "
                                                   "$GPUDOCTOR_CONFIG, ./gpudoctor.toml, "
                                                   "/etc/gpudoctor/gpudoctor.toml, [tool.gpudoctor] in "
                                                   "./pyproject.toml)")
    c.add_argument("--json", action="store_true", help="print the report as JSON (same as --format json)")
    c.add_argument("--format", choices=("text", "json", "prometheus", "junit"), default=None,
                   help="report format (default text); prometheus: a node-exporter textfile; junit: for CI")
    c.add_argument("-v", "--verbose", action="store_true", help="also list the checks that were n/a or skipped")
    c.add_argument("--fast", action="store_true", help="the prolog tier: in-process reads only (no probe of another "
                                                       "interpreter, no nvidia-smi fallback)")
    c.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    c.add_argument("--expected-gpus", type=flag("expected_gpus", "count"), metavar="N", help="GPUs every node must have")
    c.add_argument("--bf16", action="store_true", default=None, help="the job trains in bf16")
    c.add_argument("--exports", action="store_true", help="after the report, print the exports that fix it")
    c.add_argument("--deep", action="store_true", help="also import torch in a child process (seconds): "
                                                       "cuda.is_available(), device count, NCCL; and ldd")
    add_launch_options(c)
    from gpudoctor.history import add_flags

    add_flags(c, default_on=False)
    from gpudoctor.commands.probe import add_check_options

    add_check_options(c)
    c.set_defaults(func=run)
    return c


LAUNCH_TAIL = "launch_argv"


class _TailParser:
    """A command that takes a command after its own options, as time, strace and mpirun
    itself do: `gpudoctor plan [options] [--] LAUNCHER ARGS...`. The line is split before
    argparse sees it: gpudoctor's options end at the first word that is neither an option
    nor an option's value, or at `--`; everything after is the launcher's, untouched (an
    argparse REMAINDER alone would still look for abbreviations of gpudoctor's own options
    inside the launcher's flags: `--deepspeed` is a prefix of `--deepspeed-config`)."""

    def parse_known_args(self, args=None, namespace=None):
        import sys

        argv = list(sys.argv[1:] if args is None else args)
        head, tail = split_tail(self, argv)
        ns, extras = super().parse_known_args(head, namespace)
        if tail is not None:
            setattr(ns, LAUNCH_TAIL, tail)
        return ns, extras


def split_tail(parser, argv):
    """(gpudoctor's options, the launch command or None)."""
    longs = sorted(o for o in parser._option_string_actions if o.startswith("--"))
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return argv[:i], argv[i + 1:]
        if not a.startswith("-") or a == "-":
            return argv[:i], argv[i:]
        name, eq, _v = a.partition("=")
        action = parser._option_string_actions.get(name)
        if action is None and name.startswith("--") and parser.allow_abbrev:
            hits = [o for o in longs if o.startswith(name)]
            action = parser._option_string_actions[hits[0]] if len({id(parser._option_string_actions[h])
                                                                      for h in hits}) == 1 else None
        if action is None and not name.startswith("--") and len(a) > 2:
            action = parser._option_string_actions.get(a[:2])
            if action is not None and action.nargs != 0:  # -j4: the value is attached
                i += 1
                continue
        i += 1
        if action is None or eq or action.nargs == 0:
            continue
        if action.nargs is None:
            i += 1
        elif action.nargs == "?":
            nxt = argv[i:i + 2]
            # `--accelerate-config accelerate launch ...`: the word is the launcher, not the file
            if nxt and not nxt[0].startswith("-") and nxt != ["accelerate", "launch"]:
                i += 1
        elif action.nargs in ("+", "*"):
            while i < len(argv) and not argv[i].startswith("-"):
                i += 1
        elif isinstance(action.nargs, int):
            i += action.nargs
    return argv, None


def add_launch_tail(c):
    """`[--] LAUNCHER ARGS...` after the command's options (see _TailParser)."""
    c.__class__ = type(type(c).__name__, (_TailParser, type(c)), {})
    c.add_argument(LAUNCH_TAIL, nargs="*", default=None, metavar="LAUNCHER ARGS",
                   help="the launch line itself, after the options or after --: torchrun --nnodes 2 ... "
                        "(the same as --launch 'torchrun --nnodes 2 ...')")


def script_argv(args):
    """The command after the options, or --launch split as the shell would, when it runs a
    launch script (`bash train.sh 2 0`, `job.sbatch`): (path, args, sbatch options) or None."""
    import shlex

    tail = getattr(args, LAUNCH_TAIL, None)
    if not tail and args.launch and args.launch.strip() and len(args.launch) < 65536:
        try:
            tail = shlex.split(args.launch)
        except ValueError:
            return None  # build_plan names the quoting error
    elif tail and args.launch is not None:
        return None  # given twice: launch_line says so
    if not tail:
        return None
    # imported only for a launch line: 35-44 ms of the prolog tier's start on the H100 node
    # (importlib.resources, tempfile, zipfile beneath it), where check has none
    from gpudoctor.launch.script import script_command

    return script_command(tail)


def launch_line(args):
    """--launch, or the command after the options (as one shell line), or None."""
    import shlex

    tail = getattr(args, LAUNCH_TAIL, None) or None
    if tail is not None and args.launch is not None:
        raise InputError("give the launch line once: after the options or in --launch, not both")
    if tail is not None:
        return shlex.join(tail)
    return args.launch


def add_launch_options(c):
    add_launch_tail(c)
    lg = c.add_argument_group("launch plan (docs/launch.md)")
    lg.add_argument("--accelerate-config", nargs="?", const="", default=None, metavar="FILE",
                    help="accelerate's config (default: accelerate's own, $HF_HOME/accelerate/default_config.yaml; "
                         "HF_HOME defaults to ~/.cache/huggingface)")
    lg.add_argument("--deepspeed-config", metavar="FILE", help="DeepSpeed JSON config (ds.json)")
    lg.add_argument("--launch", metavar="CMD", help="the launch line, quoted: 'torchrun ...', 'mpirun -np 16 -H ...', "
                                                    "'deepspeed --hostfile hf ...', 'python -m torch.distributed.launch ...'")


def launch_plan(args, cfg=None):
    """The launch plan the arguments describe, or None (a refused one: None, and the
    launcher's refusal in cfg.launch_refused)."""
    script = script_argv(args)
    if script is not None:
        from gpudoctor.launch.script import read_script

        # gpudoctor check --hosts hf bash train.sh 2 0: read, never run
        res = read_script(script[0], script[1], sbatch_options=script[2])
        if not res.launches:
            raise InputError("%s: no launch line found (gpudoctor plan %s says what was read)"
                             % (script[0], script[0]))
        # the training line: the first that starts a program, not a `python -c '...'`
        # helper run before it (awsome-distributed-training's composer sbatch cleans shared
        # memory with `srun python -c ...` first, and check judged that)
        la = next((x for x in res.launches if x.refused or x.plan.script is not None), res.launches[0])
        if la.refused:
            if cfg is not None:
                cfg.launch_refused = "%s line %d: %s" % (script[0], la.line, la.refused)
            return None
        plan = la.plan
        if len(res.launches) > 1:
            plan.note("%s has %d launch lines: judged the %s (line %d)" % (
                script[0], len(res.launches), "first" if la is res.launches[0] else
                "first that starts a training program", la.line))
        if "master" in la.varies:
            # known only at run time ("the first node of the allocation"): nothing to
            # resolve or probe here, never a name to judge
            plan.master_addr, plan.rdzv_endpoint = None, None
        if "nodes" in la.varies:
            plan.nodes = []
        return plan
    # --launch "" is an error (build_plan says so), never "no plan"
    launch = launch_line(args)
    if args.accelerate_config is None and not args.deepspeed_config and launch is None:
        return None
    # imported only when there is a launch to read: the launch package is 9-20 ms of the
    # prolog tier's start, which has none
    from gpudoctor.launch import build_plan
    from gpudoctor.launch.common import Refused

    try:
        return build_plan(accelerate=args.accelerate_config or None,
                          accelerate_given=args.accelerate_config is not None, deepspeed=args.deepspeed_config,
                          launch=launch, given=args.launch is not None)
    except Refused as exc:
        # what the launcher would refuse (a flag, a count, a hostfile, a config) is one more
        # finding in `check` (launch.accepted), never the end of the report: the nodes'
        # facts and every other check still matter (in `plan` the refusal is the answer);
        # input gpudoctor cannot read (no launcher, malformed YAML) stays a usage error
        if cfg is not None:
            cfg.launch_refused = str(exc)
        return None


def _warn(msg):
    print("gpudoctor: warning: %s" % msg, file=sys.stderr)


def run(args):
    from gpudoctor.registry import load_checks, plugin_errors, select
    from gpudoctor.runner import run_checks

    if getattr(args, "json", False) and getattr(args, "format", None) not in (None, "json"):
        # refused before any node is gathered: which of the two was meant is not ours to guess
        raise InputError("--json and --format %s ask for two formats: give one" % args.format)
    fmt = "json" if getattr(args, "json", False) else (getattr(args, "format", None) or "text")
    if getattr(args, "exports", False) and fmt != "text" and not getattr(args, "output", None):
        # the exports are shell lines written after the report on stdout: after a JSON (JUnit, Prometheus) document
        # they made it unreadable, `check --json --exports > r.json` an invalid file (userwalk23)
        raise InputError("--exports prints shell lines after the report on standard output, which --%s holds: "
                         "write the report with -o FILE, or run gpudoctor exports" % (
                             "json" if getattr(args, "json", False) else "format " + fmt))
    if getattr(args, "probe", False) and args.facts:  # it was silently not run: the probe measures live nodes
        raise InputError("--probe measures live nodes; --facts reads saved ones: drop one of them")
    if getattr(args, "probe", False) and not args.facts:  # a bad --probe-* value is refused before any node is gathered
        from gpudoctor.commands.probe import options as probe_options

        probe_options(args)
    cfg = config_from(args)
    cfg.launch = launch_plan(args, cfg)
    registry = load_checks()
    for err in plugin_errors():
        print("gpudoctor: warning: %s" % err, file=sys.stderr)
    from gpudoctor.registry import unmatched_lines

    for line in unmatched_lines(list(registry), cfg):
        _warn(line)
    checks = select(registry, cfg.select, cfg.ignore)
    if cfg.select and not checks:
        raise InputError("--select %s matches no check (see: gpudoctor list)" % ",".join(cfg.select))
    from gpudoctor import history

    store = history.for_command(args, cfg, False, _warn, strict=True)
    from gpudoctor.commands.common import note_found_config

    note_found_config(cfg)
    interrupted = False  # else the exit code of the signal that ended the gathering: 130 Ctrl-C, 143 SIGTERM
    try:
        with sigterm_as_interrupt():  # `timeout`, scancel, Kubernetes: the partial report, as for Ctrl-C
            nodes = gather_nodes(args, cfg)
    except KeyboardInterrupt as exc:  # the fan-out hands back what it finished
        nodes = getattr(exc, "partial_nodes", None)
        if nodes is None:
            raise
        interrupted = getattr(exc, "exit_code", EXIT_INTERRUPTED)
    if getattr(args, "same", None) and len(nodes) <= 1 and any(c.id == "files.parity" for c in checks):
        # files.parity is a cluster check: with one node it has nothing to compare and is not listed
        _warn("--same compares files across nodes; with one node (%s) nothing is compared (give --hosts or --nodes)"
              % (nodes[0].host if nodes else "none"))
    report = run_checks(nodes, checks, cfg)
    report.interrupted = interrupted  # its summary says exit 130 (143), as the process exits
    if not interrupted:  # what changed since each node last passed, then this run joins its history
        history.after_run(report, store, checks, _warn)
    fmt = "json" if args.json else (args.format or "text")
    emit(report, fmt, args.output, verbose=getattr(args, "verbose", False))
    if getattr(args, "exports", False):
        from gpudoctor.commands.exports import snippet

        sys.stdout.write("\n" + snippet(nodes, report))
    if interrupted:
        print(interrupted_line(nodes, interrupted), file=sys.stderr)
        sys.stdout.flush()
        os._exit(interrupted)  # do not wait for SSH sessions still in flight
    if getattr(report, "crashed", None):  # the report says which; stderr says where the details are
        from gpudoctor.errors import EXIT_INTERNAL, crashed_checks

        crashed_checks(report, "check")
        return EXIT_INTERNAL
    if getattr(args, "probe", False) and not args.facts:  # the fabric, measured after the checks
        from gpudoctor.commands.probe import after_check

        return max(report.exit_code, after_check(args, nodes))
    return report.exit_code
