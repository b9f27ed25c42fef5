"""srun as the launcher: `srun python train.py` inside an allocation starts one copy of the
program per Slurm task, and the program reads its rank from SLURM_PROCID (Lightning's
SLURMEnvironment, torch's env:// with MASTER_ADDR set by the script, Megatron, NeMo).

The world is srun's task count, from its own options (srun(1): -n/--ntasks, -N/--nodes,
--ntasks-per-node; -N alone starts one task per node) or, when it names none, from the
allocation it runs in (srun(1) INPUT ENVIRONMENT VARIABLES: SLURM_NTASKS / SLURM_NPROCS
are -n, SLURM_NTASKS_PER_NODE is --ntasks-per-node; the step spans the allocation's
SLURM_JOB_NUM_NODES / SLURM_NNODES nodes)."""

import os
import re
import shlex

from gpudoctor.launch.common import count, is_python, refuse


# programs that are launchers themselves (they start the worker processes), not read by
# gpudoctor: MosaicML Composer's `composer` (-n/--nproc per node, --world_size), PyTorch
# Lightning's `lightning run model` / Fabric's `fabric run`, torchtune's `tune run`
OWN_LAUNCHERS = frozenset({"composer", "lightning", "fabric", "tune"})


def _opts(opts):
    """{-N, -n, --ntasks-per-node} from srun's own options, both spellings."""
    out = {}
    alias = {"-N": "nodes", "--nodes": "nodes", "-n": "ntasks", "--ntasks": "ntasks",
             "--ntasks-per-node": "ntasks_per_node", "-w": "nodelist", "--nodelist": "nodelist",
             "--het-group": "het_group", "--pack-group": "het_group"}
    i = 0
    while i < len(opts):
        o = opts[i]
        name, eq, val = o.partition("=")
        if not eq and re.match(r"^-[Nnw].", o):
            name, val, eq = o[:2], o[2:], "="
        if name in alias:
            if not eq:
                i += 1
                val = opts[i] if i < len(opts) else ""
            out[alias[name]] = val
        i += 1
    return out


def _shell_script(prog, rest):
    """The script of `bash X.sh ARGS` / `sh X.sh` / `X.sh ARGS` as srun's program, else None."""
    if prog in ("bash", "sh", "zsh", "dash"):
        i = 0
        while i < len(rest) and re.match(r"^-[A-Za-z]+$", rest[i]) and "c" not in rest[i]:
            i += 1  # bash -x X.sh; bash -c STRING is read as the task's shell (script.py)
        if i < len(rest) and not rest[i].startswith("-"):
            return rest[i]
        return None
    return prog if re.search(r"\.(sh|bash)$", prog) else None


# a key no environment holds (a NUL): script.py's mark that srun's shell script was read here and starts no launcher
TASK_SCRIPT_READ = "\0task-script-read"


def _het_env(env, groups, own, plan):
    """The job's counts as a step of the heterogeneous job's components `groups` (--het-group=1, 0,1, 0-1) sees them:
    srun without --het-group runs in component 0, whose counts the batch script's SLURM_* are; with it, in each
    component named, the step spanning them all (the real Slurm 22.05 here, tests/test_launch29_slurm.py: `-N 1 -n 2`
    hetjob `-N 2 --ntasks-per-node=1`: `srun --het-group=1 hostname` ran 2 tasks on 2 nodes, `--het-group=0,1` 4 on 3;
    https://slurm.schedmd.com/heterogeneous_jobs.html#job_steps)."""
    size = int(env["SLURM_HET_SIZE"])
    picked = set()
    for part in groups.split(","):
        m = re.match(r"^(\d{1,3})(?:-(\d{1,3}))?$", part.strip())
        if not m:
            refuse("srun", "invalid --het-group %r" % groups[:20])
        picked.update(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    out = {k: v for k, v in env.items() if k not in ("SLURM_JOB_NUM_NODES", "SLURM_NNODES", "SLURM_NTASKS",
                                                      "SLURM_NPROCS", "SLURM_NTASKS_PER_NODE")}
    if max(picked) >= size:
        refuse("srun", "--het-group=%s names a component the job does not have (it has %d: 0 to %d)" % (
            groups[:20], size, size - 1))
    nodes = [env.get("SLURM_JOB_NUM_NODES_HET_GROUP_%d" % k) for k in sorted(picked)]
    tasks = [env.get("SLURM_NTASKS_HET_GROUP_%d" % k) or n for k, n in zip(sorted(picked), nodes)]
    if len(picked) == 1:
        k = next(iter(picked))
        for key, var in (("SLURM_JOB_NUM_NODES", "SLURM_JOB_NUM_NODES_HET_GROUP_%d"),
                         ("SLURM_NTASKS", "SLURM_NTASKS_HET_GROUP_%d"),
                         ("SLURM_NTASKS_PER_NODE", "SLURM_NTASKS_PER_NODE_HET_GROUP_%d")):
            if env.get(var % k):
                out[key] = env[var % k]
        plan.note("heterogeneous job: the step runs in component %d, its counts" % k)
    elif not own and all((x or "").isdigit() for x in nodes + tasks):
        out["SLURM_JOB_NUM_NODES"] = str(sum(int(x) for x in nodes))
        out["SLURM_NTASKS"] = str(sum(int(x) for x in tasks))
        plan.note("heterogeneous job: the step spans components %s, their nodes and tasks together" % (
            ", ".join(map(str, sorted(picked)))))
    else:
        plan.note("heterogeneous job: the step spans components %s; its counts are not read here" % (
            ", ".join(map(str, sorted(picked)))))
    return out


def read(plan, opts, argv, env):
    o = _opts(opts)
    if "het_group" in o and (env.get("SLURM_HET_SIZE") or "").isdigit():
        env = _het_env(env, o["het_group"], any(k in o for k in ("nodes", "ntasks", "ntasks_per_node")), plan)
    plan.launcher = "srun"
    plan.wrapper = None
    where = "srun"
    nodes = None
    if "nodes" in o:
        m = re.match(r"^(\d+)(?:-(\d+))?$", o["nodes"])
        if not m:
            refuse("srun", "invalid node count %r" % o["nodes"][:20])
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if not 0 < lo <= hi:
            refuse("srun", "invalid node count %r" % o["nodes"][:20])
        plan.nnodes_min, plan.nnodes_max = lo, hi
        nodes = lo if lo == hi else None
    else:
        for k in ("SLURM_JOB_NUM_NODES", "SLURM_NNODES"):
            if (env.get(k) or "").isdigit():
                nodes = count(env[k], k, where, 1)
                plan.nnodes_min = plan.nnodes_max = nodes
                plan.note("nodes: the allocation's %d (%s)" % (nodes, k))
                break
    ntasks = None
    if "ntasks" in o and "ntasks_per_node" in o and nodes is None and "nodes" not in o:
        # -n N --ntasks-per-node=T and no -N, outside an allocation: srun(1) makes T a maximum per node, and Slurm
        # allocates the fewest nodes that hold N (https://slurm.schedmd.com/srun.html#OPT_ntasks-per-node). The real
        # Slurm 22.05 here (tests/test_launch27.py, 4 nodes of 2 CPUs): -n 4 / -n 3 --ntasks-per-node=2 -> 2 nodes,
        # -n 2 --ntasks-per-node=2 -> 1, and a T the nodes cannot hold is refused, not spread. The mmdetection-style
        # `srun --ntasks=${GPUS} --ntasks-per-node=${GPUS_PER_NODE}` (Deformable-DETR, InternImage, VideoMAEv2)
        # said nnodes unknown (launch27)
        n = count(o["ntasks"], "--ntasks", where, 1)
        tpn = count(o["ntasks_per_node"], "--ntasks-per-node", where, 1)
        nodes = -(-n // tpn)
        plan.nnodes_min = plan.nnodes_max = nodes
        plan.note("nodes: %d, the fewest that hold %d task%s at most %d a node (no -N: Slurm allocates that many)"
                  % (nodes, n, "" if n == 1 else "s", tpn))
    asked = next((k for k in ("SLURM_NTASKS", "SLURM_NPROCS") if (env.get(k) or "").isdigit()), None)
    if "ntasks" in o:
        ntasks = count(o["ntasks"], "--ntasks", where, 1)
    elif asked and ("ntasks_per_node" in o or "nodes" in o):
        # inside an allocation whose task count was asked (sbatch -n / --ntasks-per-node export SLURM_NTASKS), srun
        # takes it as -n (srun(1) INPUT ENVIRONMENT VARIABLES); a --ntasks-per-node that does not give it is
        # dropped. The real Slurm 22.05 here (tests/test_launch28_slurm.py): in `sbatch -N 2 --ntasks-per-node=2`,
        # `srun --ntasks-per-node=1` and `srun --nodes=2 --ntasks-per-node=1` run 4 tasks, with "srun: Warning:
        # can't honor --ntasks-per-node set to 1 which doesn't match the requested tasks 4 with the number of
        # requested nodes 2. Ignoring --ntasks-per-node."
        ntasks = count(env[asked], asked, where, 1)
        per = o.get("ntasks_per_node")
        if per is not None and nodes and per.isdigit() and int(per) * nodes != ntasks:
            plan.note("tasks: the allocation's %d (%s), which srun takes as its -n: it ignores --ntasks-per-node=%s "
                      "(Slurm: \"can't honor --ntasks-per-node set to %s which doesn't match the requested tasks %d "
                      "with the number of requested nodes %d\"); give -n/--ntasks to srun to change it" % (
                          ntasks, asked, per, per, ntasks, nodes))
        else:
            plan.note("tasks: the allocation's %d (%s), which srun takes as its -n" % (ntasks, asked))
    elif "ntasks_per_node" in o and nodes:
        ntasks = nodes * count(o["ntasks_per_node"], "--ntasks-per-node", where, 1)
    elif "nodes" in o and nodes:
        ntasks = nodes  # -N alone: one task per node
    else:
        if (env.get("SLURM_NTASKS") or env.get("SLURM_NPROCS") or "").isdigit():
            key = "SLURM_NTASKS" if env.get("SLURM_NTASKS") else "SLURM_NPROCS"
            ntasks = count(env[key], key, where, 1)
            plan.note("tasks: the allocation's %d (%s)" % (ntasks, key))
        elif (env.get("SLURM_NTASKS_PER_NODE") or "").isdigit() and nodes:
            ntasks = nodes * count(env["SLURM_NTASKS_PER_NODE"], "SLURM_NTASKS_PER_NODE", where, 1)
        elif nodes:
            ntasks = nodes
    if ntasks is not None:
        if nodes and ntasks < nodes:  # srun warns and uses fewer nodes
            plan.note("srun: can't run %d processes on %d nodes, setting nnodes to %d" % (ntasks, nodes, ntasks))
            nodes = plan.nnodes_min = plan.nnodes_max = ntasks
        plan.world_min = plan.world_max = ntasks
        if nodes and ntasks % nodes == 0:
            plan.nproc_per_node = ntasks // nodes
    else:
        plan.note("srun names no task count and none comes from an allocation here (SLURM_NTASKS): the world "
                  "is the allocation's task count at run time")
    for k, attr in (("MASTER_ADDR", "master_addr"), ("MASTER_PORT", "master_port")):
        v = env.get(k) if k in plan.env_set else None
        if v:
            setattr(plan, attr, int(v) if attr == "master_port" and v.isdigit() and len(v) < 6 else
                    (v if attr == "master_addr" else None))
    prog = os.path.basename(argv[0])
    rest = argv[1:]
    if prog in OWN_LAUNCHERS and plan.world_max is not None:
        # srun starts a launcher gpudoctor does not read, once per task, and it starts the
        # workers itself: srun's task count is not the world (awsome-distributed-training's
        # mosaicml-composer 2.train-mpt-manual-distributed.sbatch: srun --ntasks=1 composer
        # --world_size 16 --nproc 8 ... per node)
        plan.note("%s starts its own worker processes (a launcher gpudoctor does not read): srun's %d task%s "
                  "%s not the world" % (prog, plan.world_max, "" if plan.world_max == 1 else "s",
                                        "is" if plan.world_max == 1 else "are"))
        plan.world_min = plan.world_max = None
        plan.nproc_per_node = None
    shell_script = _shell_script(prog, rest)
    if shell_script and plan.world_max is not None and env.get(TASK_SCRIPT_READ):
        plan.note("%s runs %s, read here: it starts no launcher, so the world is srun's task count" % (
            "srun's one task" if plan.world_max == 1 else "each of srun's %d tasks" % plan.world_max, shell_script))
    elif shell_script and plan.world_max is not None:
        # a shell script gpudoctor did not read (it is not on this machine, or it was not found
        # beside the script): each task runs it, and what it starts is not known here, one
        # process or a launcher's workers (InternVideo2's `srun -n2 ... bash torchrun.sh
        # --nnodes=2 --nproc_per_node=8 ...`, whose torchrun.sh runs `torchrun $@`: 16 workers,
        # not 2; launch24)
        plan.note("%s runs %s, which is not read here: what it starts (one process, or a launcher's workers) is "
                  "not known, so neither is the world; plan it where the script is, or `gpudoctor plan %s ARGS`" % (
                      "srun's one task" if plan.world_max == 1 else "each of srun's %d tasks" % plan.world_max,
                      shell_script, shlex.quote(shell_script)))
        plan.world_min = plan.world_max = None
        plan.nproc_per_node = None
    if is_python(prog):
        i = 0
        while i < len(rest) and rest[i].startswith("-") and rest[i] not in ("-m", "-c"):
            i += 1
        if rest[i:i + 1] == ["-m"] and len(rest) > i + 1:
            plan.script, plan.script_args = "-m " + rest[i + 1], list(rest[i + 2:])
        elif i < len(rest) and rest[i] != "-c":
            plan.script, plan.script_args = rest[i], list(rest[i + 1:])
            plan.add_file(rest[i])
    else:
        plan.script, plan.script_args = argv[0], list(rest)
    return plan
