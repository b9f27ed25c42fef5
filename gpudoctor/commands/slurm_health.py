"""`gpudoctor slurm-health`: the Slurm Prolog / HealthCheckProgram command (the drain and
resume logic and its exit codes are in gpudoctor/slurm.py)."""

import sys

from gpudoctor.commands.common import config_from, csv, emit, gather_nodes, timeout_flag
from gpudoctor.slurm import (CLOCK_FIX, EXIT_INTERNAL, EXIT_SCONTROL, REASON_PREFIX, ScontrolError, apply, clock_verdict,
                             controller_clock_offset, controller_refused, decide, node_name, read_node, short_reason,
                             short_reason_with)


def add_parser(sub):
    p = sub.add_parser("slurm-health", help="Slurm Prolog/HealthCheckProgram: check this node, drain it when it "
                                            "fails, resume it when it passes and the drain was gpudoctor's own")
    p.add_argument("--node", metavar="NAME", help="Slurm node name (default: $SLURMD_NODENAME, else the short "
                                                  "hostname)")
    p.add_argument("--dry-run", action="store_true", help="print what would be drained or resumed; change nothing")
    p.add_argument("--timeout", type=timeout_flag, default=None, help="seconds for the whole local run (default 30); "
                                                               "past it the node counts as failing (timeout)")
    p.add_argument("--fast", action="store_true", help="the prolog tier: in-process reads only (no probe of another "
                                                       "interpreter, no nvidia-smi fallback)")
    p.add_argument("--python", metavar="PATH", help="the job's interpreter to probe")
    p.add_argument("--config", metavar="FILE", help="gpudoctor.toml (default: $GPUDOCTOR_CONFIG, else "
                                                    "/etc/gpudoctor/gpudoctor.toml; never one in the current folder)")
    p.add_argument("--select", type=csv, default=[], metavar="IDS", help="only these check ids or id prefixes")
    p.add_argument("--ignore", type=csv, default=[], metavar="IDS", help="skip these check ids or id prefixes")
    p.add_argument("--strict", action="store_true", help="warnings fail (and drain) too")
    p.add_argument("--format", choices=("text", "json", "prometheus", "junit"), default=None,
                   help="report format (default text)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    from gpudoctor.history import add_flags

    add_flags(p, default_on=True)
    p.set_defaults(func=run, hosts=None, nodes=None, facts=None, json=False, local=True)
    return p


def run(args):
    from gpudoctor.errors import InputError

    try:
        return _slurm_health(args)
    except (InputError, KeyboardInterrupt):
        raise
    except Exception as exc:  # a gpudoctor bug or a broken install must not read as "node unhealthy" (exit 1)
        from gpudoctor.errors import internal_error

        internal_error("gpudoctor slurm-health", exc, note="; node state not changed (not drained)")
        return EXIT_INTERNAL  # slurm.py's code for a crash: the prolog lets the job run and logs


def _slurm_health(args):
    from gpudoctor.errors import InputError
    from gpudoctor.registry import load_checks, select
    from gpudoctor.runner import run_checks

    cfg = config_from(args, hook=True)  # root: never a config from the folder slurmd or a user left it in
    checks = select(load_checks(), cfg.select, cfg.ignore)
    from gpudoctor.registry import unmatched_lines

    for line in unmatched_lines(list(load_checks()), cfg):  # a typo never drains, nor stops the hook: said, once
        print("gpudoctor: warning: %s" % line, file=sys.stderr)
    if cfg.select and not checks:
        raise InputError("--select %s matches no check (see: gpudoctor list)" % ",".join(cfg.select))
    name = node_name(args.node)
    store = _history(args, cfg)
    nodes = gather_nodes(args, cfg, progress=False)
    report = run_checks(nodes, checks, cfg)
    _keep_history(report, store, checks, record=not args.dry_run)
    if args.output or (args.format or "text") != "text":
        emit(report, args.format or "text", args.output)
    else:
        from gpudoctor.report import text

        text.render(report, sys.stdout, color=False)
    healthy = report.exit_code == 0
    # the decision line joins a text report; a JSON, Prometheus or JUnit report on stdout stays
    # only that document (the hooks' scripts log both streams: contrib/slurm/*.sh 2>&1)
    say = sys.stdout if args.output or (args.format or "text") == "text" else sys.stderr
    if getattr(report, "crashed", None):  # a crashed check says nothing about the node: never drain for it
        from gpudoctor.errors import crashed_checks

        crashed_checks(report, "slurm-health")
        failing = any(not n.reachable for n in report.nodes) or any(
            f.severity == "error" or (report.strict and f.severity == "warning") for f in report.findings)
        if not failing:  # drain only for what the other checks found
            print("gpudoctor: slurm: %s: a check crashed (a gpudoctor bug); node state not changed" % name,
                  file=sys.stderr)
            return EXIT_INTERNAL
        healthy = False
    reason = short_reason(report)
    try:
        state = read_node(name)
    except ScontrolError as exc:
        print("gpudoctor: slurm: cannot read node %s: %s" % (name, exc), file=sys.stderr)
        for line in controller_refused(exc):  # a refused MUNGE credential: say which of the two and the fix
            print("gpudoctor: slurm: %s: %s" % (name, line), file=sys.stderr)
        print("gpudoctor: slurm: %s %s; node state unknown, nothing changed" % (
            name, "healthy" if healthy else "UNHEALTHY (%s)" % reason), file=say)
        return EXIT_SCONTROL if healthy else 1
    # this node's clock against slurmctld's (one more RPC): not in the prolog's --fast tier, unless the node carries
    # gpudoctor's own clock drain, which a pass must not resume without measuring again
    clock = None
    if not args.fast or (state.ours and "clock.offset:" in (state.reason or "")):
        clock = clock_verdict(controller_clock_offset())
    if clock:
        print("gpudoctor: slurm: %s: %s: %s; fix: %s" % (name, clock[0], clock[1], CLOCK_FIX),
              file=sys.stderr if clock[0] == "warning" else say)
    if clock and clock[0] == "error":  # drained until the clock is back (a pass then resumes gpudoctor's drain)
        reason = short_reason_with(reason, "clock.offset: %s" % clock[1]) if not healthy else \
            "%s clock.offset: %s" % (REASON_PREFIX, clock[1])
        healthy = False
    action = decide(state, healthy, reason)
    verb = {"drain": "drain", "resume": "resume", "none": "leave"}[action.kind]
    detail = " reason=%r" % reason if action.kind == "drain" else ""
    if args.dry_run:
        print("gpudoctor: slurm: dry run: would %s %s (state %s)%s: %s" % (verb, name, state.state, detail, action.why),
              file=say)
    else:
        try:
            apply(action, name, reason)
        except ScontrolError as exc:
            print("gpudoctor: slurm: could not %s %s: %s" % (verb, name, exc), file=sys.stderr)
            return EXIT_SCONTROL if healthy else 1
        done = {"drain": "drained", "resume": "resumed", "none": "left"}[action.kind]
        print("gpudoctor: slurm: %s %s (was %s)%s: %s" % (done, name, state.state, detail, action.why), file=say)
    return 0 if healthy else 1


def _hook_warn(msg):
    print("gpudoctor: slurm: warning: %s" % msg, file=sys.stderr)


def _history(args, cfg):
    """On by default in the hooks; a state directory that cannot be used is a warning, never a
    reason to drain (or not drain) the node."""
    from gpudoctor import history

    try:
        return history.for_command(args, cfg, True, _hook_warn, strict=False)
    except Exception as exc:  # history is an aid: its failure must not fail the hook
        _hook_warn("history off this run: %s: %s" % (type(exc).__name__, exc))
        return None


def _keep_history(report, store, checks, record=True):
    """What changed since the node last passed, in the report; then this run is recorded
    (not in a dry run, which changes nothing)."""
    from gpudoctor import history

    try:
        if store is not None and not record:
            history.annotate(report, store, registry=checks, warn=_hook_warn)
        else:
            history.after_run(report, store, checks, _hook_warn)
    except Exception as exc:
        _hook_warn("history not kept this run: %s: %s" % (type(exc).__name__, exc))
