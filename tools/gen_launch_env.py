#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/launch_env.json: which environment variables each launcher SETS in the
processes it starts and which it READS, each with the source line, read from the launchers' own sources at pinned
versions (never executed):

- torchrun (torch.distributed.run and its elastic agent: the worker_env of local_elastic_agent.py, run.py's reads,
  argparse_util.py's PET_<OPTION> defaults), torch read by range requests from its PyPI wheel (gen_torch_api);
- torchx (its dist.ddp component, which runs torchrun, and the schedulers' rank-0 host variable), from its wheel;
- MosaicML Composer's launcher (composer/cli/launcher.py, the `composer` command), from the mosaicml wheel;
- accelerate's launch (accelerate/commands/launch.py, accelerate/utils/launch.py), from its wheel;
- Ray Train's torch backend (ray/train/torch/config.py), from the ray wheel;
- DeepSpeed's launcher (deepspeed/launcher/{launch,runner,multinode_runner,constants}.py), from deepspeedai/DeepSpeed
  at a tag;
- Kubeflow training-operator's PyTorchJob and MPIJob controllers (pkg/controller.v1/{pytorch,mpi}/*.go: each
  corev1.EnvVar{Name: ...}, a constant's name resolved to its string), from kubeflow/training-operator at a tag;
- Slurm's srun (src/common/env.c: each setenvf / env_array_overwrite* of a task's environment, SLURM_PROCID,
  SLURM_LOCALID, SLURM_NTASKS, SLURM_NODEID ...), from SchedMD/slurm at a tag.

Python: a variable is SET by `X["NAME"] = ...` / `X.setdefault("NAME", ...)` / `X.update({"NAME": ...})` where X is
os.environ or a name holding 'env', a dict literal assigned to such a name, and the keyword arguments of a call whose
function's name holds 'env' (Composer's `_patch_env(RANK=...)`); READ by `os.environ["NAME"]`,
`os.environ.get("NAME")`, `os.getenv("NAME")` and `"NAME" in os.environ`. A key that is a module constant (DeepSpeed's
CROSS_RANK) is resolved to its string. Only names of the form [A-Z][A-Z0-9_]+ count.
What a person decides stays in the tables below: how each launcher is recognised in a log (DETECT), the flag or field
that gives each variable its value (FLAGS), the launcher each one hands its workers to (DELEGATES) and the names the
launchers give one meaning (MEANINGS: a node's rank is GROUP_RANK under torchrun, NODE_RANK under Composer and Ray
Train, CROSS_RANK under DeepSpeed, PET_NODE_RANK for a PyTorchJob's torchrun); the generator checks each named
variable against what the source sets.

Usage:
    pip download --no-deps torchx mosaicml accelerate ray  (wheels)
    python tools/gen_launch_env.py --torch 2.15.0 --torchx torchx-0.7.0-py3-none-any.whl \\
        --composer mosaicml-0.32.1-py3-none-any.whl --accelerate accelerate-1.15.0-py3-none-any.whl \\
        --ray ray-2.60.0-cp311-cp311-manylinux2014_x86_64.whl --deepspeed <deepspeedai/DeepSpeed.git> \\
        --deepspeed-rev v0.19.5 --kubeflow <kubeflow/training-operator.git> --kubeflow-rev v1.9.0 \\
        --slurm <SchedMD/slurm.git> --slurm-rev slurm-26-05-3-1 [-o OUT]
        [--record tools/data/launch_env_slice.txt]
    python tools/gen_launch_env.py --slice tools/data/launch_env_slice.txt -o OUT   (the test)

Sources: torch (https://pypi.org/project/torch/), torchx (https://pypi.org/project/torchx/), mosaicml
(https://pypi.org/project/mosaicml/), accelerate (https://pypi.org/project/accelerate/), ray
(https://pypi.org/project/ray/), deepspeedai/DeepSpeed (https://github.com/deepspeedai/DeepSpeed),
kubeflow/training-operator (https://github.com/kubeflow/training-operator), SchedMD/slurm
(https://github.com/SchedMD/slurm). The variables torchrun sets are documented
at https://pytorch.org/docs/stable/elastic/run.html#environment-variables, Composer's at
https://docs.mosaicml.com/projects/composer/en/stable/notes/distributed_training.html, a PyTorchJob's at
https://www.kubeflow.org/docs/components/trainer/legacy-v1/user-guides/pytorch/.
"""

import ast
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_launch_env.py"
VAR = re.compile(r"^[A-Z][A-Z0-9_]{1,60}$")

# launcher -> (package / repository, files read)
FILES = {
    "torchrun": ("torch", ["torch/distributed/elastic/agent/server/local_elastic_agent.py", "torch/distributed/run.py",
                           "torch/distributed/argparse_util.py", "torch/distributed/rendezvous.py"]),
    "torchx": ("torchx", ["torchx/components/dist.py", "torchx/schedulers/local_scheduler.py",
                          "torchx/schedulers/kubernetes_scheduler.py", "torchx/schedulers/slurm_scheduler.py"]),
    "composer": ("mosaicml", ["composer/cli/launcher.py", "composer/utils/dist.py"]),
    "accelerate": ("accelerate", ["accelerate/commands/launch.py", "accelerate/utils/launch.py"]),
    "ray_train": ("ray", ["ray/train/torch/config.py"]),
    "deepspeed": ("deepspeed", ["deepspeed/launcher/launch.py", "deepspeed/launcher/runner.py",
                                "deepspeed/launcher/multinode_runner.py", "deepspeed/launcher/constants.py",
                                "deepspeed/constants.py"]),
    "pytorchjob": ("training-operator", ["pkg/controller.v1/pytorch/envvar.go", "pkg/controller.v1/pytorch/master.go",
                                         "pkg/controller.v1/pytorch/elastic.go"]),
    "mpijob": ("training-operator", ["pkg/controller.v1/mpi/mpijob.go", "pkg/controller.v1/mpi/mpijob_controller.go"]),
    # srun's task environment (setup_env() and the env_array_* of a step and a batch job)
    "srun": ("slurm", ["src/common/env.c"]),
}

TITLES = {"torchrun": "torchrun (python -m torch.distributed.run)", "torchx": "TorchX (torchx run dist.ddp)",
          "composer": "the composer launcher (MosaicML Composer's composer -n N train.py)",
          "accelerate": "accelerate launch",
          "ray_train": "Ray Train (TorchTrainer's torch backend)", "deepspeed": "the deepspeed launcher",
          "pytorchjob": "a Kubeflow PyTorchJob (training-operator)", "mpijob": "a Kubeflow MPIJob (training-operator)",
          "srun": "Slurm's srun (its task environment)"}

# How a log shows each launcher: its traceback frames and modules, its banner or log lines, its resource kind. Bounded,
# each with a literal of 6+ characters (explain/launchctx.py FACTS 'lenv_who').
DETECT = {
    # (torch/distributed/run.py config_from_args and the older launch.py print the OMP_NUM_THREADS banner)
    "torchrun": [r"torch/distributed/(?:run|launch)\.py", r"torch/distributed/elastic/", r"torch\.distributed\.elastic",
                 r"torch\.distributed\.(?:run|launch)\b", r"\btorchrun\b",
                 r"Setting OMP_NUM_THREADS environment variable for each process"],
    # (torchx/runner/api.py logs 'Launched app: <scheduler>://...')
    "torchx": [r"torchx/(?:components|schedulers|runner|specs)/", r"\btorchx run\b", r"torchx\.(?:components|schedulers)",
               r"Launched app: [a-z_]{2,30}://"],
    # composer/cli/launcher.py: its error report of a rank's process, and the frames of the launcher itself
    "composer": [r"composer/cli/launcher\.py", r"composer\.cli\.launcher", r"\bcomposer -n ?\d", r"\bcomposer --nproc\b",
                 r"----------Begin global rank \d{1,6} (?:STDERR|logs)----------",
                 r"Global rank \d{1,6} \(PID \d{1,9}\) exited with code"],
    "accelerate": [r"accelerate/commands/launch\.py", r"accelerate\.commands\.launch", r"\baccelerate launch\b"],
    # (Ray prefixes a Train worker's lines with its actor's name: '(RayTrainWorker pid=123, ip=...)')
    "ray_train": [r"ray/train/(?:torch|_internal|v2)/", r"ray\.train\.torch", r"TorchTrainer\b", r"\(RayTrainWorker pid=\d"],
    "deepspeed": [r"deepspeed/launcher/(?:runner|launch)\.py", r"deepspeed\.launcher\.(?:runner|launch)",
                  r"\[launch\.py:\d{1,5}:main\]"],
    "pytorchjob": [r"\bPyTorchJob\b", r"\bpytorchjobs?\b", r"kubeflow\.org/v1"],
    "mpijob": [r"\bMPIJob\b", r"\bmpijobs?\b"],
    # (srun's and slurmstepd's own error prefixes, a batch script's directives, an srun command with an option)
    "srun": [r"\bsrun: error:", r"\bslurmstepd: error:", r"#SBATCH --?[a-z]", r"\bsrun --?[A-Za-z]"],
}

# The flag or field that gives a variable its value: launcher -> {variable: how}
FLAGS = {
    "torchrun": {"WORLD_SIZE": "--nnodes x --nproc-per-node", "LOCAL_WORLD_SIZE": "--nproc-per-node",
                 "GROUP_RANK": "--node-rank (static rendezvous) or the rendezvous' order", "MASTER_ADDR":
                 "--master-addr (static) or the host of --rdzv-endpoint", "MASTER_PORT": "--master-port",
                 "RANK": "computed: GROUP_RANK x --nproc-per-node + LOCAL_RANK", "LOCAL_RANK": "computed per worker"},
    "torchx": {"TORCHX_RANK0_HOST": "set by the local and Kubernetes schedulers; torchrun's --rdzv-endpoint reads it",
               "WORLD_SIZE": "-j NxM: torchrun --nnodes N --nproc-per-node M"},
    "composer": {"LOCAL_WORLD_SIZE": "-n / --nproc", "WORLD_SIZE": "--world_size (default: nproc)",
                 "NODE_RANK": "--node_rank", "RANK": "--base_rank + the local rank", "MASTER_ADDR": "--master_addr",
                 "MASTER_PORT": "--master_port"},
    "accelerate": {"MASTER_ADDR": "--main_process_ip", "MASTER_PORT": "--main_process_port",
                   "WORLD_SIZE": "--num_processes (torchrun's --nnodes x --nproc-per-node)",
                   "GROUP_RANK": "--machine_rank (torchrun's --node-rank)"},
    "ray_train": {"WORLD_SIZE": "ScalingConfig(num_workers=...)", "LOCAL_WORLD_SIZE": "the workers placed on the node",
                  "NODE_RANK": "the node's index among the worker nodes", "MASTER_ADDR": "the rank-0 worker's address",
                  "MASTER_PORT": "a free port on the rank-0 worker"},
    "deepspeed": {"WORLD_SIZE": "--num_nodes x --num_gpus (or the hostfile's slots)", "LOCAL_SIZE": "--num_gpus",
                  "CROSS_RANK": "--node_rank", "CROSS_SIZE": "--num_nodes", "MASTER_ADDR": "--master_addr",
                  "MASTER_PORT": "--master_port"},
    "pytorchjob": {"WORLD_SIZE": "the replicas of Master + Worker (pytorchReplicaSpecs.*.replicas)",
                   "RANK": "the pod's index (Master 0, Worker i+1)", "PET_NPROC_PER_NODE": "spec.nprocPerNode",
                   "PET_NNODES": "the replicas (elasticPolicy: minReplicas:maxReplicas)", "PET_NODE_RANK":
                   "the pod's index", "MASTER_ADDR": "the Master pod's service", "MASTER_PORT":
                   "the Master container's port named pytorchjob-port (default 23456)"},
    "srun": {"SLURM_NTASKS": "-n / --ntasks (or --nodes x --ntasks-per-node)", "SLURM_PROCID": "the task's index",
             "SLURM_LOCALID": "the task's index on its node", "SLURM_NODEID": "the node's index in the step"},
}

# How a script is started through each launcher so that its processes get the variables (the launchers' docs)
USAGE = {
    "torchrun": "torchrun --nnodes <nodes> --nproc-per-node <GPUs per node> --node-rank <this node> --master-addr "
                "<node 0> --master-port 29500 train.py (https://pytorch.org/docs/stable/elastic/run.html)",
    "torchx": "torchx run dist.ddp -j <nodes>x<GPUs per node> --script train.py (the scheduler sets the rank-0 host)",
    "composer": "composer -n <GPUs per node> --world_size <all GPUs> --node_rank <this node> --master_addr <node 0> "
                "--master_port <port> train.py",
    "accelerate": "accelerate launch --num_processes <all GPUs> --num_machines <nodes> --machine_rank <this node> "
                  "--main_process_ip <node 0> --main_process_port <port> train.py",
    "ray_train": "read them inside train_loop_per_worker (TorchTrainer(train_loop_per_worker, scaling_config="
                 "ScalingConfig(num_workers=<GPUs>, use_gpu=True))), or use ray.train.get_context().get_world_rank() / "
                 "get_local_rank() / get_node_rank(); the driver script itself is no worker",
    "deepspeed": "deepspeed --num_nodes <nodes> --num_gpus <GPUs per node> --master_addr <node 0> --master_port <port> "
                 "--hostfile <hostfile> train.py",
    "pytorchjob": "the PyTorchJob's Master and Worker replicas (one pod each) with the container's command `torchrun "
                  "...` and spec.nprocPerNode for several processes per pod (PET_* are torchrun's options)",
    "mpijob": "mpirun in the launcher pod; ranks come from Open MPI (OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK)",
    "srun": "one torchrun per node: srun --ntasks-per-node=1 torchrun --nnodes $SLURM_NNODES --nproc-per-node <GPUs> "
            "--rdzv-backend c10d --rdzv-endpoint $(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1):29500 "
            "train.py; or one task per GPU with RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS "
            "MASTER_ADDR / MASTER_PORT exported in each task (srun bash -c '...')",
}

# A library whose own reader of the rank variables expects its own launcher, and the error it raises when one is missing:
# launcher -> (regex of the error line with the variable as (?P<v>...), the file that raises it)
READERS = {
    # composer/utils/dist.py _get_distributed_config_var: MissingEnvironmentError('Torch distributed is initialized but
    # environment variable {env_var} is not set.')
    "composer": (r"Torch distributed is initialized but environment variable (?P<v>[A-Z][A-Z0-9_]{1,60}) is not set",
                 "composer/utils/dist.py"),
}

# The launcher that starts the workers of another (the variables of the workers are its): launcher -> (who, how)
DELEGATES = {
    "torchx": ("torchrun", "dist.ddp runs torchrun in each replica: `torchrun --nnodes N --nproc-per-node M "
                           "--rdzv-endpoint $${TORCHX_RANK0_HOST}:29500 ...` (torchx/components/dist.py)"),
    "accelerate": ("torchrun", "multi-GPU / multi-node runs go through torch.distributed.run's elastic launch "
                               "(accelerate/commands/launch.py multi_gpu_launcher)"),
    "pytorchjob": ("torchrun", "with nprocPerNode or an elasticPolicy the container's command is torchrun, which reads "
                               "PET_NNODES / PET_NPROC_PER_NODE / PET_NODE_RANK / PET_RDZV_* as its options' defaults"),
}

# One meaning, each launcher's name for it. The generator checks each name against the variables that launcher sets.
MEANINGS = {
    "the node's rank": {"torchrun": "GROUP_RANK", "composer": "NODE_RANK", "ray_train": "NODE_RANK",
                        "deepspeed": "CROSS_RANK", "pytorchjob": "PET_NODE_RANK", "srun": "SLURM_NODEID"},
    "the processes on this node": {"torchrun": "LOCAL_WORLD_SIZE", "composer": "LOCAL_WORLD_SIZE",
                                   "ray_train": "LOCAL_WORLD_SIZE", "deepspeed": "LOCAL_SIZE",
                                   "pytorchjob": "PET_NPROC_PER_NODE"},
    "the number of nodes": {"torchrun": "GROUP_WORLD_SIZE", "deepspeed": "CROSS_SIZE", "pytorchjob": "PET_NNODES"},
    "the local rank": {"torchrun": "LOCAL_RANK", "composer": "LOCAL_RANK", "ray_train": "LOCAL_RANK",
                       "deepspeed": "LOCAL_RANK", "srun": "SLURM_LOCALID"},
    "the global rank": {"torchrun": "RANK", "composer": "RANK", "ray_train": "RANK", "deepspeed": "RANK",
                        "pytorchjob": "RANK", "srun": "SLURM_PROCID"},
    "the world size": {"torchrun": "WORLD_SIZE", "composer": "WORLD_SIZE", "ray_train": "WORLD_SIZE",
                       "deepspeed": "WORLD_SIZE", "pytorchjob": "WORLD_SIZE", "srun": "SLURM_NTASKS"},
    "the rendezvous host": {"torchrun": "MASTER_ADDR", "composer": "MASTER_ADDR", "ray_train": "MASTER_ADDR",
                            "deepspeed": "MASTER_ADDR", "pytorchjob": "MASTER_ADDR", "accelerate": "MASTER_ADDR"},
    "the rendezvous port": {"torchrun": "MASTER_PORT", "composer": "MASTER_PORT", "ray_train": "MASTER_PORT",
                            "deepspeed": "MASTER_PORT", "pytorchjob": "MASTER_PORT", "accelerate": "MASTER_PORT"},
}


# ------------------------------------------------------------------ Python sources

def _constants(trees):
    """{NAME: "STRING"} of the module-level string constants of a launcher's files (DeepSpeed's CROSS_RANK)."""
    out = {}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                out[node.targets[0].id] = node.value.value
    return out


def _key(node, consts):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    return None


def _is_environ(node):
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) and \
        node.value.id == "os"


def _envish(node):
    """os.environ, or a name / attribute whose name holds 'env' (current_env, worker_env, replica_role.env)."""
    if _is_environ(node):
        return True
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return "env" in name.lower()


def py_env(path, src, consts):
    """(kind, NAME, line) of the variables a Python source sets ('set') or reads ('read')."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(t, ast.Subscript) and _envish(t.value):
                    k = _key(t.slice, consts)
                    if k:
                        yield "set", k, node.lineno
                if isinstance(t, ast.Name) and "env" in t.id.lower() and isinstance(node.value, ast.Dict):
                    for k in node.value.keys:
                        k = _key(k, consts) if k is not None else None
                        if k:
                            yield "set", k, node.lineno
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and _envish(f.value) and f.attr in ("setdefault", "update") and node.args:
                if f.attr == "setdefault":
                    k = _key(node.args[0], consts)
                    if k:
                        yield "set", k, node.lineno
                elif isinstance(node.args[0], ast.Dict):
                    for k in node.args[0].keys:
                        k = _key(k, consts) if k is not None else None
                        if k:
                            yield "set", k, node.lineno
            if isinstance(f, ast.Attribute) and _is_environ(f.value) and f.attr == "get" and node.args:
                k = _key(node.args[0], consts)
                if k:
                    yield "read", k, node.lineno
            if isinstance(f, ast.Attribute) and f.attr == "getenv" and isinstance(f.value, ast.Name) and \
                    f.value.id == "os" and node.args:
                k = _key(node.args[0], consts)
                if k:
                    yield "read", k, node.lineno
            for kw in node.keywords:  # composer/utils/dist.py: _get_distributed_config_var(env_var='NODE_RANK', ...)
                if kw.arg == "env_var":
                    k = _key(kw.value, consts)
                    if k:
                        yield "read", k, node.lineno
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if "env" in name.lower() and not name.lower().startswith("get"):  # Composer's _patch_env(RANK=...)
                for kw in node.keywords:
                    if kw.arg:
                        yield "set", kw.arg, node.lineno
        elif isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.ctx, ast.Load):
            k = _key(node.slice, consts)
            if k:
                yield "read", k, node.lineno
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In) and \
                _is_environ(node.comparators[0]):
            k = _key(node.left, consts)
            if k:
                yield "read", k, node.lineno


# ------------------------------------------------------------------ Go sources (training-operator)

_GO_CONST = re.compile(r"^\s*(\w{2,80})\s*=\s*\"([A-Z][A-Z0-9_]{1,60})\"", re.M)
_GO_NAME = re.compile(r"\bName:\s{0,8}(?:\"([A-Z][A-Z0-9_]{1,60})\"|(\w{2,80}))\s*,")
_GO_READ = re.compile(r"os\.(?:Getenv|LookupEnv)\(\s*(?:\"([A-Z][A-Z0-9_]{1,60})\"|(\w{2,80}))\s*\)")


def go_env(path, src, consts):
    """(kind, NAME, line) of a Go source: each `Name: ...` of an EnvVar literal (set) and os.Getenv (read)."""
    for i, line in enumerate(src.splitlines(), 1):
        if "EnvVar" in line or re.match(r"^\s*Name:", line):
            for m in _GO_NAME.finditer(line):
                k = m.group(1) or consts.get(m.group(2))
                if k:
                    yield "set", k, i
        for m in _GO_READ.finditer(line):
            k = m.group(1) or consts.get(m.group(2))
            if k:
                yield "read", k, i


# ------------------------------------------------------------------ C sources (Slurm)

_C_SET = re.compile(r"\b(?:setenvf|env_array_overwrite(?:_het)?(?:_fmt)?|env_array_append(?:_fmt)?|setenv)\(\s{0,8}&?"
                    r"[\w>.-]{1,80},\s{0,8}\"([A-Z][A-Z0-9_]{1,60})\"")
_C_READ = re.compile(r"\b(?:getenv|getenvp)\(\s{0,8}(?:[\w>.-]{1,80},\s{0,8})?\"([A-Z][A-Z0-9_]{1,60})\"")


def c_env(path, src, consts):
    """(kind, NAME, line) of a C source: setenvf / env_array_overwrite* / setenv (set), getenv / getenvp (read)."""
    for i, line in enumerate(src.splitlines(), 1):
        for m in _C_SET.finditer(line):
            yield "set", m.group(1), i
        for m in _C_READ.finditer(line):
            yield "read", m.group(1), i


# ------------------------------------------------------------------ build

def build(sources, version):
    """``sources``: {launcher: (version, [(path, text)])}."""
    launchers = {}
    for name in FILES:
        if name not in sources:
            continue
        ver, files = sources[name]
        py = [(p, t) for p, t in files if p.endswith(".py")]
        trees = []
        for _p, t in py:
            try:
                trees.append(ast.parse(t))
            except SyntaxError:
                pass
        consts = _constants(trees)
        for _p, t in files:
            if _p.endswith(".go"):
                consts.update(dict(_GO_CONST.findall(t)))
        sets, reads = {}, {}
        for path, text in files:
            found = go_env(path, text, consts) if path.endswith(".go") else c_env(path, text, consts) \
                if path.endswith(".c") else py_env(path, text, consts)
            for kind, var, line in found:
                if not VAR.match(var):
                    continue
                where = "%s:%d" % (path, line)
                d = sets if kind == "set" else reads
                if where not in d.setdefault(var, []):
                    d[var].append(where)
        def _order(d):  # each variable's lines in file order, then line order (ast.walk's order is not the file's)
            return {v: sorted(ws, key=lambda w: (w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])))
                    for v, ws in sorted(d.items())}

        entry = {"title": TITLES[name], "version": ver, "sets": _order(sets), "reads": _order(reads), "detect": DETECT.get(name, []), "flags": FLAGS.get(name, {})}
        entry["usage"] = USAGE[name]
        if name in READERS:
            rx, path = READERS[name]
            if not any(p == path and re.search(rx.split("(?P")[0][:40], t) for p, t in files):
                raise SystemExit("READERS: %s's error is not in %s" % (name, path))
            entry["reader"] = {"error": rx, "file": path}
        if name in DELEGATES:
            entry["delegates"] = {"to": DELEGATES[name][0], "how": DELEGATES[name][1]}
        launchers[name] = entry
    meanings = {}
    for meaning, names in MEANINGS.items():
        kept = {}
        for who, var in names.items():
            if who in launchers and var not in launchers[who]["sets"]:
                raise SystemExit("MEANINGS: %s does not set %s (%s)" % (who, var, meaning))
            if who in launchers:
                kept[who] = var
        meanings[meaning] = kept
    for who, flags in FLAGS.items():
        for var in flags:
            if who in launchers and var not in launchers[who]["sets"] and \
                    not (who in DELEGATES and var in launchers.get(DELEGATES[who][0], {}).get("sets", {})):
                raise SystemExit("FLAGS: %s sets no %s" % (who, var))
    doc = {"header": knowgen.header("the launchers' sources: torch, torchx, mosaicml, accelerate, ray (PyPI), "
                                    "deepspeedai/DeepSpeed, kubeflow/training-operator, SchedMD/slurm", version, GENERATOR,
                                    "the environment variables each launcher sets in the processes it starts and those "
                                    "it reads, with their source lines; DETECT, FLAGS, DELEGATES and MEANINGS are the "
                                    "generator's hand-written tables"),
           "launchers": launchers, "meanings": meanings, "sites": []}
    return doc


# ------------------------------------------------------------------ reading the sources

def _wheel_files(path, want):
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        dist = os.path.basename(path).split("-")[0]
        # the wheel's own METADATA (ray's wheel also holds vendored packages' dist-info folders, deeper down)
        meta = next(n for n in names if re.match(r"^%s-[^/]+\.dist-info/METADATA$" % re.escape(dist), n, re.I))
        ver = re.search(r"^Version:\s*(\S+)", z.read(meta).decode(), re.M).group(1)
        files = [(p, z.read(p).decode("utf-8", "replace")) for p in want if p in names]
    missing = [p for p in want if p not in dict(files)]
    if missing:
        raise SystemExit("%s: missing %s" % (path, ", ".join(missing)))
    return "%s %s (%s)" % (dist, ver, os.path.basename(path)), files


def _git_files(repo, rev, want):
    git = knowgen.git_reader(repo)
    return knowgen.revision(git, rev, describe=False), [(p, git("show", "%s:%s" % (rev, p))) for p in want]


def _torch_files(release, want):
    import json

    import gen_torch_api as api
    import gen_torch_core_messages as core

    meta = json.loads(api._get("https://pypi.org/pypi/torch/json"))
    w = core._wheel(meta, release)
    got = api.zip_members(api._file_url(w["url"]), w["size"], lambda n: n in set(want))
    return "torch %s (%s)" % (release, w["filename"]), [(p, got[p].decode("utf-8", "replace")) for p in want]


def _statements(path, text, lines):
    """The statements of ``text`` that hold ``lines`` (a Python file's, outermost simple statements; a Go file's lines),
    as slice blocks `=== path @N`; the module constants of a Python file are kept too."""
    out = []
    if not path.endswith(".py"):
        src = text.splitlines(True)
        keep = set(lines) | {i for i, ln in enumerate(src, 1) if path.endswith(".go") and _GO_CONST.match(ln)}
        for i in sorted(keep):
            out.append((i, src[i - 1]))
        return ["=== %s @%d\n%s" % (path, i, t if t.endswith("\n") else t + "\n") for i, t in out]
    import textwrap

    tree = ast.parse(text)
    src = text.splitlines(True)
    blocks, heads = {}, {}
    compound = (ast.If, ast.For, ast.While, ast.With)
    for node in ast.walk(tree):
        if isinstance(node, compound):
            # the header only (a read in an if's test, Composer's `with _patch_env(RANK=...):`), its body a `pass`
            end = node.body[0].lineno - 1
            if any(node.lineno <= ln <= end for ln in lines):
                heads[node.lineno] = end
        elif isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef,
                                                                  ast.Try)):
            if any(node.lineno <= ln <= node.end_lineno for ln in lines) or (
                    node in tree.body and isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)):
                if not any(a <= node.lineno and node.end_lineno <= b for a, b in blocks.items()):
                    blocks = {a: b for a, b in blocks.items() if not (node.lineno <= a and b <= node.end_lineno)}
                    blocks[node.lineno] = node.end_lineno
    out = [(a, textwrap.dedent("".join(src[a - 1:b]))) for a, b in blocks.items()]
    for a, b in heads.items():
        head = textwrap.dedent("".join(src[a - 1:b]))
        if head.startswith("elif"):
            head = "if  " + head[4:]  # (same length: the lines keep their numbers)
        out.append((a, head + "    pass\n"))
    return ["=== %s @%d\n%s" % (path, a, t) for a, t in sorted(out)]


def record(sources, doc, path):
    """Write the slice: each launcher's version, then the statements of its sets and reads at their lines."""
    out = ["# Recorded by tools/gen_launch_env.py --record from the launchers' sources (see its docstring): the\n",
           "# statements that set or read an environment variable, at their line numbers, and the module constants.\n"]
    for name, (ver, files) in sources.items():
        out.append("#! launcher %s %s\n" % (name, ver))
        e = doc["launchers"][name]
        for p, text in files:
            lines = {int(w.rsplit(":", 1)[1]) for d in (e["sets"], e["reads"]) for ws in d.values() for w in ws
                     if w.rsplit(":", 1)[0] == p}
            if e.get("reader", {}).get("file") == p:  # the reader's error, which build() checks is there
                head = e["reader"]["error"].split("(?P")[0][:40]
                lines |= {i for i, ln in enumerate(text.splitlines(), 1) if head in ln}
            lines = sorted(lines)
            out.extend("=== %s:%s" % (name, b[4:]) for b in _statements(p, text, lines))
    with open(path, "w") as f:
        f.write("".join(out))


def read_slice(path):
    """{launcher: (version, [(path, text)])} of a recorded slice."""
    versions, blocks = {}, []
    with open(path) as f:
        for line in f:
            m = re.match(r"^#! launcher (\S+) (.+)$", line)
            if m:
                versions[m.group(1)] = m.group(2).strip()
    files, version = knowgen.read_slice(path)
    sources = {}
    for p, text in files:
        who, _, rest = p.partition(":")
        sources.setdefault(who, (versions.get(who, "?"), []))[1].append((rest, text))
    return sources


def _version(sources):
    return "; ".join("%s: %s" % (k, v[0]) for k, v in sources.items())


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=None, extra=[
        ("--torch", {}), ("--torchx", {}), ("--composer", {}), ("--accelerate", {}), ("--ray", {}),
        ("--deepspeed", {}), ("--deepspeed-rev", {"default": "v0.19.5"}), ("--kubeflow", {}),
        ("--kubeflow-rev", {"default": "v1.9.0"}), ("--slurm", {}), ("--slurm-rev", {"default": "slurm-26-05-3-1"}),
        ("--record", {})])
    if a.slice:
        sources = read_slice(a.slice)
    else:
        if not all((a.torch, a.torchx, a.composer, a.accelerate, a.ray, a.deepspeed, a.kubeflow, a.slurm)):
            a.error("give every source (--torch --torchx --composer --accelerate --ray --deepspeed --kubeflow --slurm), "
                    "or --slice")
        sources = {
            "torchrun": _torch_files(a.torch, FILES["torchrun"][1]),
            "torchx": _wheel_files(a.torchx, FILES["torchx"][1]),
            "composer": _wheel_files(a.composer, FILES["composer"][1]),
            "accelerate": _wheel_files(a.accelerate, FILES["accelerate"][1]),
            "ray_train": _wheel_files(a.ray, FILES["ray_train"][1]),
            "deepspeed": _git_files(a.deepspeed, a.deepspeed_rev, FILES["deepspeed"][1]),
            "pytorchjob": _git_files(a.kubeflow, a.kubeflow_rev, FILES["pytorchjob"][1]),
            "mpijob": _git_files(a.kubeflow, a.kubeflow_rev, FILES["mpijob"][1]),
            "srun": _git_files(a.slurm, a.slurm_rev, FILES["srun"][1]),
        }
    doc = build(sources, _version(sources))
    if a.record:
        record(sources, doc, a.record)
    path = knowgen.write("launch_env", doc, a.out)
    print("%s: %d launchers, %d variables set" % (path, len(doc["launchers"]),
                                                  sum(len(e["sets"]) for e in doc["launchers"].values())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
