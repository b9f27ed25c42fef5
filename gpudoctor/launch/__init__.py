"""Launch plans: what a launch line and its configs will ask of the cluster, read exactly as
the launcher reads them. One module per launcher family (torchrun.py, deepspeed.py,
accelerate.py, mpi.py: Open MPI, MPICH/Intel MPI Hydra, horovodrun), their flag tables as
data (flags/*.json, made from the launchers' own parsers by flags/generate.py), hostfile
dialects by the launcher that reads them (hostfiles.py), DeepSpeed's batch arithmetic
(configs.py), the plan model (plan.py) and the rendezvous probe (rendezvous.py).
What the launcher would refuse is an InputError naming its rule (exit 2). docs/launch.md."""

import os
import re
import shlex

from gpudoctor.errors import InputError, excerpt
from gpudoctor.launch.common import Refused, count, is_python, refuse  # noqa: F401
from gpudoctor.launch.plan import SCHEMA, Plan, redact, render_text  # noqa: F401
from gpudoctor.launch.rendezvous import add_options, is_loopback, master_host, probe_rendezvous  # noqa: F401

__all__ = ["Plan", "Refused", "SCHEMA", "add_options", "build_plan", "count", "is_loopback", "is_python",
           "master_host", "parse_launch", "probe_rendezvous", "redact", "refuse", "render_text"]

MAX_LINE = 64 << 10
LAUNCHERS = "torchrun, python -m torch.distributed.run|launch, deepspeed, accelerate launch, mpirun/mpiexec " \
            "(Open MPI), mpiexec.hydra (MPICH, Intel MPI), horovodrun, colossalai run, tune run, and srun in front " \
            "of any of them"

# srun options that take a value: every `--opt=value` line of `srun --help` (slurm-wlm 22.05,
# flags/srun.json, made by flags/generate.py gen_srun), plus the ones srun(1) documents that
# this build's --help leaves out or prints without `=value` (--cpu-bind, --mem-bind, --hint,
# --network, --container, --label-format) and pyxis's container options
# (https://github.com/NVIDIA/pyxis: --container-image/-mounts/-name/-workdir). Only needed
# to find where the launched program starts.
def _srun_value_flags():
    from gpudoctor.launch.common import table

    flags = {f for o in table("srun")["options"] if o["nargs"] == 1 for f in o["flags"]}
    return frozenset(flags | {"--cpu-bind", "--mem-bind", "--hint", "--network", "--container", "--label-format",
                              "--container-image", "--container-mounts", "--container-name", "--container-workdir"})


SRUN_VALUE = _srun_value_flags()


def _split(line, given=True):
    if len(line) > MAX_LINE:
        raise InputError("%s is longer than %d characters" % ("--launch" if given else "the launch line", MAX_LINE))
    if not line.strip():
        raise InputError("--launch is empty: give the launch line, quoted")
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise InputError("%s%s: %s" % ("--launch " if given else "", excerpt(line, 40), exc))


def _strip_srun(argv, plan):
    """`srun [opts] LAUNCHER ...`: srun starts the launcher once per task."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("-"):
            break
        name = a.split("=", 1)[0]
        if "=" not in a and name in SRUN_VALUE:
            i += 2
        else:
            i += 1
    plan.wrapper = "srun"
    plan.note("srun starts the launcher once per Slurm task: each task runs the launcher after srun's options (use "
              "--ntasks-per-node=1 for torchrun/deepspeed/accelerate: one launcher per node)")
    return argv[i:]


def _mpich_machinefile(args):
    """True when the line's -machinefile/-hostfile/-f names a file here whose host lines are
    MPICH's (`host` or `host:N`), one at least `host:N`: Open MPI 4.1.4 takes `h2:1` as a node
    name and refuses it ("the regex parser has detected the presence of an illegal character in
    the following node name: h2:1"), where MPICH 4.0.2's Hydra gives h2 1 slot and a plain `h3`
    1 slot (both measured here, launch24: a file mixing the two forms was read as Open MPI's)."""
    from gpudoctor.launch import hostfiles

    for i, a in enumerate(args[:-1]):
        if a in ("-machinefile", "--machinefile", "-hostfile", "--hostfile", "-f"):
            path = os.path.expanduser(args[i + 1])
            if not os.path.isfile(path):
                return False
            try:
                text = hostfiles.read(path, "machinefile")
            except InputError:
                return False
            lines = [l.split("#", 1)[0].strip() for l in text.splitlines()]
            lines = [l for l in lines if l]
            return bool(lines) and all(re.match(r"^[^\s:]+(:[0-9]{1,6})?(\s+ifhn=\S+)?$", l) for l in lines) and \
                any(re.match(r"^[^\s:]+:[0-9]{1,6}(\s|$)", l) for l in lines)
        if a == ":":
            break
    return False


def _is_launcher(argv):
    """Whether argv starts with a launcher gpudoctor reads (else srun itself is the launcher)."""
    prog = os.path.basename(argv[0])
    if prog in ("torchrun", "deepspeed", "accelerate-launch", "orterun", "mpirun", "mpiexec", "mpirun.openmpi",
                "mpiexec.openmpi", "mpiexec.hydra", "mpirun.mpich", "mpiexec.mpich", "mpiexec.intel", "horovodrun"):
        return True
    if prog == "accelerate":
        return argv[1:2] == ["launch"]
    if prog in ("colossalai", "tune"):
        return argv[1:2] == ["run"]
    if prog == "env" or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):
        return True  # read as before: env NAME=V launcher ...
    if is_python(prog):
        i = 1
        while i < len(argv) and argv[i].startswith("-") and argv[i] != "-m":
            i += 1
        return argv[i:i + 1] == ["-m"] and argv[i + 1:i + 2] in (
            ["torch.distributed.run"], ["torch.distributed.launch"], ["deepspeed.launcher.runner"],
            ["accelerate.commands.launch"])
    return False


def _peel(argv, env, plan):
    """The launcher under NAME=VALUE words and the wrappers a launch script's line is read through (script.WRAPPERS:
    env, nice, numactl, taskset, timeout, nsys profile|launch, ...), as bash and each wrapper run it. (userwalk28)
    `--launch "nsys profile -o out torchrun ..."` and `srun ... env FOO=1 torchrun ...` were refused ('not a
    launcher gpudoctor reads: nsys', '... env'), though `plan SCRIPT` reads the same line in a script."""
    from gpudoctor.launch.script import WRAPPERS, _nsys_app

    name = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
    while argv:
        while argv and name.match(argv[0]):  # NAME=VALUE LAUNCHER ...
            k, _, v = argv.pop(0).partition("=")
            env[k] = v
            plan.env_set[k] = redact(k, v)
        wrapper = os.path.basename(argv[0]) if argv else None
        if wrapper not in WRAPPERS:
            return argv
        rest = argv[1:]
        if wrapper == "nsys":
            app = _nsys_app(rest)
            if app is None:  # nsys stats/export/...: no application started
                return argv
            plan.note("nsys runs the command after its options under the profiler: planned as that command")
            argv = app
            continue
        takes, operands = WRAPPERS[wrapper]
        if wrapper == "taskset" and rest[:1] and rest[0] in ("-p", "--pid"):
            return argv  # taskset -p PID: no command started
        while rest and rest[0].startswith("-") and rest[0] != "-":
            if rest[0] == "--":
                rest = rest[1:]
                break
            if rest[0] in takes and len(rest) > 1:
                rest = rest[1:]  # an option that takes the next word
            rest = rest[1:]
        argv = rest[operands:] if wrapper != "env" else rest  # timeout's DURATION, taskset's MASK, chrt's PRIORITY
    return argv


def parse_launch(line, plan=None, environ=None, given=True):
    """One launch command line in shell syntax, as the user would type it. ``given``: it came in
    --launch (its messages name the flag); False: typed after the command's options (`gpudoctor
    plan torchrun ...`), where the messages name the word the user typed, never a flag not used."""
    plan = plan if plan is not None else Plan()
    try:
        return _parse_launch(line, plan, environ, given)
    except Refused as exc:
        raise Refused(_refusal_shown(str(exc), line, given, plan)) from exc


def _refusal_shown(text, line, given, plan):
    """A launcher's refusal as printed (stderr under --launch, the `refused` row of a script's line): each value of
    the line that a shell acts on, a flag's `--x=V` value and the cuts the readers quote (V[:20] ... V[:60]) too,
    is one inert word (fixline.Shown, inert). Readers wrote the value bare ("Unsupported nproc_per_node value:
    x;touch${IFS}M;#") or in repr's double quotes ('invalid node count "x'$(touch M)'"'), and the clause after ': '
    ran when pasted (red team 2026-11-29, docs/security.md 111.; 83.'s `said` reads argparse's messages alone)."""
    from gpudoctor.fixline import Shown

    try:
        words = _split(line, given)
    except InputError:
        words = []
    values = []
    for w in words[:2000]:
        values.append(w)
        if w.startswith("-") and "=" in w:
            values.append(w.split("=", 1)[1])
        elif w.startswith("-") and not w.startswith("--") and len(w) > 2:
            values.append(w[2:])  # a short option's glued value, `-N4`
    values += [v[:n] for v in list(values) for n in (20, 24, 30, 40, 60) if len(v) > n]
    return Shown(values + list(plan.config_values), inert=True)(text)


def _parse_launch(line, plan, environ, given):
    from gpudoctor.launch import accelerate, colossalai, deepspeed, mpi, torchrun

    env = dict(os.environ if environ is None else environ)
    argv = _split(line, given)
    plan.add_config_values(argv)  # (a note that names one of the line's words shows it as one word, 83.)
    flag = "--launch " if given else ""
    argv = _peel(argv, env, plan)
    srun_opts = None
    if argv and os.path.basename(argv[0]) == "srun":
        rest = _strip_srun(argv[1:], plan)
        srun_opts, argv = argv[1:len(argv) - len(rest)], rest
        argv = _peel(argv, env, plan)
        if argv and not _is_launcher(argv):
            from gpudoctor.launch import srun

            srun.read(plan, srun_opts, argv, env)
            plan.notes = [n for n in plan.notes if not n.startswith("srun starts the launcher once per Slurm task")]
            plan.sources.append("launch line")
            _trainer_args(plan)
            return plan
    if not argv and srun_opts is not None:
        # Slurm 22.05's srun: "srun: fatal: No command given to execute." (exit 1; launch26)
        raise InputError("%s names no launcher: srun with no command after its options, which srun refuses (No "
                         "command given to execute); put the launcher after srun's options" % (
                             "--launch" if given else "the launch line"))
    if not argv:
        raise InputError("%s names no launcher (%s)" % ("--launch" if given else "the launch line", LAUNCHERS))
    prog = os.path.basename(argv[0])
    args = argv[1:]
    if is_python(prog):
        i = 0
        while i < len(args) and args[i].startswith("-") and args[i] != "-m":
            i += 1
        if args[i:i + 1] == ["-m"] and len(args) > i + 1:
            mod = args[i + 1]
            if mod in ("torch.distributed.run", "torch.distributed.launch", "deepspeed.launcher.runner"):
                prog = {"torch.distributed.run": "torchrun", "deepspeed.launcher.runner": "deepspeed"}.get(
                    mod, "torch.distributed.launch")
                args = args[i + 2:]
            elif mod == "accelerate.commands.launch":
                prog, args = "accelerate", ["launch"] + args[i + 2:]
    plan.sources.append("launch line")
    if "MASTER_ADDR" in plan.env_set or "MASTER_PORT" in plan.env_set:
        if prog in ("torchrun", "torch.distributed.launch", "deepspeed", "accelerate"):
            plan.note("MASTER_ADDR/MASTER_PORT in the launching shell are not read by %s: it sets them for its "
                      "workers from its own flags" % prog)
    if prog in ("torchrun", "torch.distributed.launch"):
        torchrun.read(plan, prog, args, env)
    elif prog == "deepspeed":
        deepspeed.read(plan, args, env)
    elif prog in ("accelerate", "accelerate-launch"):
        if prog == "accelerate":
            if not args or args[0] != "launch":
                raise InputError("%s%s: only 'accelerate launch ...' starts a job" % (flag, excerpt(argv[0], 30)))
            args = args[1:]
        accelerate.read(plan, args, env)
    elif prog in ("orterun", "mpirun.openmpi", "mpiexec.openmpi"):
        mpi.read_openmpi(plan, args, env)
    elif prog in ("mpirun", "mpiexec"):
        # the same name for Open MPI and MPICH/Intel MPI: Open MPI's reading, unless Open MPI
        # does not know a flag that Hydra knows (-f, -hosts, -ppn, -genv, -launcher)
        if _mpich_machinefile(args):
            # `host:N` lines are MPICH's machinefile dialect (Open MPI would take `aa:2` as a
            # host named "aa:2", with one slot): the line is meant for Hydra's mpiexec
            try:
                mpi.read_hydra(Plan(), args, env, launcher=prog)
            except InputError:
                pass
            else:
                mpi.read_hydra(plan, args, env, launcher=prog)
                plan.note("read as MPICH/Intel MPI Hydra's %s: its machinefile has MPICH's host:N lines" % prog)
                _trainer_args(plan)
                return plan
        try:
            mpi.read_openmpi(plan, args, env)
        except Refused as first:
            if "unknown option" not in str(first):
                raise
            try:
                mpi.read_hydra(Plan(), args, env, launcher=prog)
            except Refused:
                raise first
            except InputError as second:
                # Hydra reads the flags Open MPI does not know, then fails on a file they name (a
                # machinefile that cannot be read): that is the line's problem, not the flags
                raise second from first
            plan.__init__(sources=plan.sources, env_set=plan.env_set, wrapper=plan.wrapper, notes=plan.notes)
            mpi.read_hydra(plan, args, env, launcher=prog)
            plan.note("read as MPICH/Intel MPI Hydra's %s: Open MPI's would refuse it (%s)" % (prog, first))
    elif prog in ("mpiexec.hydra", "mpirun.mpich", "mpiexec.mpich", "mpiexec.intel"):
        mpi.read_hydra(plan, args, env, launcher=prog)
    elif prog == "horovodrun":
        mpi.read_horovod(plan, args, env)
    elif prog == "colossalai":
        if not args or args[0] != "run":
            raise InputError("%s%s: only 'colossalai run ...' starts a job" % (flag, excerpt(argv[0], 30)))
        colossalai.read(plan, args[1:], env)
    elif prog == "tune" and args[:1] == ["run"]:
        from gpudoctor.launch import torchtune

        torchtune.read(plan, args[1:], env)
    else:
        # typed after the options, the word may be meant as a script too (`gpudoctor plan train 2 0`): say
        # that there is none by that name either
        raise InputError("%s%s: %snot a launcher gpudoctor reads (%s)" % (
            flag, excerpt(argv[0], 30), "" if given else "a folder, not a script (name one of its scripts), and "
            if os.path.isdir(argv[0]) else "" if os.path.lexists(argv[0]) else "no such script, and ", LAUNCHERS))
    _trainer_args(plan)
    return plan


def _trainer_args(plan):
    """The HF Trainer's / Megatron's own flags after the script: --deepspeed ds.json, --bf16."""
    from gpudoctor.launch.deepspeed_config import read_ds_config

    args = plan.script_args
    for j, a in enumerate(args):
        name, eq, val = a.partition("=")
        if name in ("--deepspeed", "--deepspeed_config") and plan.ds_config is None:
            target = val if eq else (args[j + 1] if j + 1 < len(args) else "")
            if target.endswith(".json") and os.path.isfile(os.path.expanduser(target)):
                read_ds_config(plan, target)
            elif target.endswith(".json"):
                plan.note("%s %s is not on this machine: batch and precision not read" % (name, target))
        if a == "--bf16" and plan.precision in (None, "no"):
            plan.precision = "bf16"
        if a == "--fp16" and plan.precision in (None, "no"):
            plan.precision = "fp16"


def build_plan(accelerate=None, accelerate_given=False, deepspeed=None, launch=None, environ=None, hosts=None,
               given=True):
    """The plan from `check` / `plan` flags; None when no flag names one. ``given``: parse_launch's."""
    from gpudoctor.launch import accelerate as acc
    from gpudoctor.launch.deepspeed_config import finish, read_ds_config

    if launch is not None and not launch.strip():
        raise InputError("--launch is empty: give the launch line, quoted")
    if not (accelerate_given or deepspeed or launch):
        return None
    env = dict(os.environ if environ is None else environ)
    plan = Plan()
    if launch:
        if accelerate_given and accelerate and "accelerate" in launch and "--config_file" not in launch:
            launch = launch.replace("accelerate launch", "accelerate launch --config_file %s" % shlex.quote(
                accelerate), 1)
        parse_launch(launch, plan, environ=env, given=given)
    elif accelerate_given:
        if not accelerate and not os.path.isfile(acc.default_config_file(env)):
            # a bare --accelerate-config names accelerate's default file; with none there, accelerate itself would
            # launch on its defaults, so "accelerate would refuse this: The passed configuration file ... does not
            # exist" (as said before) was not what accelerate does (userwalk22)
            raise InputError("--accelerate-config: no accelerate config at its default place %s (`accelerate config` "
                             "writes it there; $HF_HOME moves it): give the file, --accelerate-config FILE"
                             % acc.default_config_file(env))
        acc.read(plan, None, env, config_path=accelerate or acc.default_config_file(env))
    if deepspeed:
        read_ds_config(plan, deepspeed)
    if hosts:
        _with_hosts(plan, hosts)
    if plan.master_port == 0:  # deepspeed --master_port 0, mpirun -x MASTER_PORT=0: picked at run time
        plan.master_port, plan.port_asked = None, 0
    if plan.master_port is not None and not 0 < plan.master_port < 65536:
        raise InputError("master port %d is not a TCP port (1-65535)" % plan.master_port)
    from gpudoctor.launch.ports import port_problems

    for _sev, text, _fix in port_problems(plan):
        plan.note(text)
    if plan.master_addr is not None:
        # every launcher's and config's master address (accelerate's main_process_ip,
        # --master_addr, MASTER_ADDR=, a hostfile's first host) passes the one host-name rule
        # (a bare number is accepted: accelerate's own template ships `main_process_ip: 1234`,
        # and inet_aton reads it as an address, as torch's store will)
        from gpudoctor.inventory import validate_host

        if not str(plan.master_addr).isdigit():
            validate_host(str(plan.master_addr), "master address (%s)" % (plan.launcher or "config"))
    return finish(plan)


def _with_hosts(plan, path):
    """--hosts for `plan`: the nodes a torchrun/accelerate line will run on (they name no
    hosts themselves): nproc_per_node each, in file order."""
    from gpudoctor.inventory import resolve
    from gpudoctor.launch.plan import Node

    if plan.nodes:
        return
    hosts = resolve(hosts_file=path)
    if plan.launcher is None and hosts and all(h.slots is not None for h in hosts):
        # configs only (--deepspeed-config): one process per slot, as every launcher defaults
        plan.set_nodes([Node(h.name, h.slots, h.slots) for h in hosts], "--hosts %s (a process per slot)" % path)
        return
    per = plan.nproc_per_node
    plan.nodes = [Node(h.name, h.slots, per) for h in hosts]
    plan.nodes_source = "--hosts %s" % path
    lo, hi = plan.nnodes_min, plan.nnodes_max
    if lo is not None and not lo <= len(hosts) <= (hi if hi is not None else lo):
        plan.note("%s asks for %s nodes; --hosts lists %d" % (plan.launcher, lo if lo == hi else "%s to %s" % (lo, hi),
                                                             len(hosts)))
