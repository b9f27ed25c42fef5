"""`gpudoctor plan`: the launch plan resolved and printed, as the launcher would read the
line and its configs (docs/launch.md, schema gpudoctor.plan/1). Nothing is started and no
node is contacted; what the launcher itself would refuse is refused (exit 2); a script whose plan holds a
finding exits 1, as `check` does on the same finding."""

import json
import os
import sys

from gpudoctor.commands.check import add_launch_tail, launch_line
from gpudoctor.errors import InputError, missing


def add_parser(sub):
    c = sub.add_parser("plan", usage="gpudoctor plan [options] [--] LAUNCHER ARGS...\n"
                                     "       gpudoctor plan [options] [bash] SCRIPT [ARGS...]\n"
                                     "       gpudoctor plan [options] --launch 'LAUNCHER ARGS...'",
                       help="print what a launch line, a launch script or configs will run: nodes, processes, "
                            "master, rendezvous, batch (nothing is started)")
    c.add_argument("--launch", metavar="CMD", help="the launch line, quoted: 'torchrun ...', 'mpirun -np 16 -H ...', "
                                                   "'deepspeed --hostfile hf ...', 'accelerate launch ...'")
    c.add_argument("--accelerate-config", nargs="?", const="", default=None, metavar="FILE",
                   help="accelerate's config (default: accelerate's own, $HF_HOME/accelerate/default_config.yaml; "
                        "HF_HOME defaults to ~/.cache/huggingface)")
    c.add_argument("--deepspeed-config", metavar="FILE", help="DeepSpeed JSON config (ds.json)")
    c.add_argument("--hosts", metavar="FILE", help="the hosts a torchrun/accelerate line runs on (a hostfile)")
    c.add_argument("--json", action="store_true", help="print the plan as JSON (schema gpudoctor.plan/1)")
    add_launch_tail(c)
    c.set_defaults(func=run)
    return c


def run(args):
    from gpudoctor.launch import build_plan, render_text
    from gpudoctor.launch.plan import hide_secret_args

    from gpudoctor.commands.check import script_argv
    from gpudoctor.launch.script import read_script, render_script

    script = script_argv(args)
    if script is not None:  # gpudoctor plan train.sh 2 0: read, never run
        res = read_script(script[0], script[1], sbatch_options=script[2])
        hide_secret_args(res)  # (a credential's flag's value: docs/security.md 98.)
        if args.json:
            sys.stdout.write(json.dumps(res.to_json(), indent=2) + "\n")
        else:
            sys.stdout.write(render_script(res))
        if res.allocation.get("refused"):
            raise InputError(res.allocation["refused"])
        refused = [la for la in res.launches if la.refused]
        if refused:
            from gpudoctor.launch.script import WINDOWS_ENDINGS

            crlf = [n for n in res.notes if n.startswith(WINDOWS_ENDINGS)]
            from gpudoctor.launch.script import plan_prose

            # (the refusal quotes the script's words: written as the plan's text writes it, docs/security.md 78.)
            raise InputError("line %d: %s%s" % (refused[0].line, plan_prose(refused[0].refused), " (%s)" % crlf[0]
                                                if crlf else ""))
        # a `finding` row (a rank the batch shell expands once, a loopback master on several nodes, more processes
        # per node than the allocation's GPUs, ...) is an error the job meets at run time: `check` reports the same
        # rows as launch.accepted errors and exits 1; so does `plan` (README "Exit codes": 1 = at least one
        # error-level finding; it exited 0, launch27)
        if any(la.findings for la in res.launches):
            return 1
        return 0
    launch = launch_line(args)
    if launch is None and args.accelerate_config is None and not args.deepspeed_config:
        raise InputError("plan: give the launch line (gpudoctor plan [options] [--] torchrun ..., or --launch CMD) "
                         "and/or --accelerate-config / --deepspeed-config")
    if args.accelerate_config and not os.path.lexists(os.path.expanduser(args.accelerate_config)):
        # the file the user named here (a config a launch line names may be on the launching machine only)
        raise InputError("--accelerate-config %s: %s" % (args.accelerate_config, missing(args.accelerate_config)))
    plan = build_plan(accelerate=args.accelerate_config or None, accelerate_given=args.accelerate_config is not None,
                      deepspeed=args.deepspeed_config, launch=launch, hosts=args.hosts,
                      given=args.launch is not None)
    hide_secret_args(plan)  # (a credential's shape or flag's value typed on the line: docs/security.md 98.)
    if args.json:
        sys.stdout.write(json.dumps(plan.to_json(), indent=2) + "\n")
    else:
        from gpudoctor.fixline import input_windows

        # (the line's own blank-followed separators in a note are spanned inert, as a script's: docs/security.md 78.)
        sys.stdout.write(render_text(plan, input_windows(plan.notes, [launch or ""])))
    if plan.batch.ok is False:
        # DeepSpeed refuses this batch configuration at start-up (its config.py asserts):
        # a refused line, as the launchers' refusals are (exit 2, its message on stderr)
        raise InputError("DeepSpeed would refuse this: %s" % plan.batch.error)
    return 0
