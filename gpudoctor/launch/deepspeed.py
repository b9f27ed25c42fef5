"""The `deepspeed` launcher, read as deepspeed/launcher/runner.py (0.19) reads it: its argparse
flags (flags/deepspeed.json), its hostfile (hostfiles.deepspeed), and main()'s resource
selection: CUDA_VISIBLE_DEVICES as an implicit --include when there is no hostfile and no
filter; --num_nodes/--num_gpus refused together with --include/--exclude; --include and
--exclude mutually exclusive (parse_resource_filter); NAME[:SLOT[,SLOT]]@... specs whose
hosts and slots must exist; then --num_nodes keeps the first N hosts and --num_gpus sets
every host to GPUs [0, N)."""

import collections
import os
import re

from gpudoctor.errors import excerpt, read_input
from gpudoctor.launch import hostfiles
from gpudoctor.launch.common import parse, refuse
from gpudoctor.launch.plan import Node, redact

DLTS_HOSTFILE = "/job/hostfile"


def _node_specs(spec):
    """parse_node_config_list: NAME[:SLOT[,SLOT...]]@... -> {host: sorted unique slots}."""
    out = collections.OrderedDict()
    for item in spec.split("@"):
        if ":" in item:
            parts = item.split(":")
            if len(parts) != 2:  # `hostname, slots = node_config.split(':')` raises ValueError
                refuse("deepspeed", "ValueError: too many ':' in %r" % item[:40])
            host, slots = parts
            try:
                got = [int(x) for x in slots.split(",")]
            except ValueError:
                refuse("deepspeed", "ValueError: invalid literal for int() in %r" % item[:40])
        else:
            host, got = item, []
        out.setdefault(host, [])
        out[host] += got
    return {h: sorted(set(v)) for h, v in out.items()}


def resource_filter(host_info, include="", exclude=""):
    """parse_resource_filter: host -> [slot ids], filtered, in host_info's order."""
    if include and exclude:
        refuse("deepspeed", "include_str and exclude_str are mutually exclusive.")
    if not include and not exclude:
        return host_info
    filtered = {} if include else {h: list(v) for h, v in host_info.items()}
    for host, slots in _node_specs(include or exclude).items():
        if host not in host_info:
            refuse("deepspeed", "Hostname '%s' not found in hostfile" % host[:60])
        if slots:
            for s in slots:
                if s not in host_info[host]:
                    refuse("deepspeed", "No slot '%d' specified on host '%s'" % (s, host[:60]))
            if include:
                filtered[host] = slots
            else:
                for s in slots:
                    filtered[host].remove(s)
        else:
            filtered[host] = host_info[host] if include else []
    out = collections.OrderedDict()
    for host in host_info:
        if host in filtered:
            kept = []
            for s in filtered[host]:
                if s not in kept:
                    kept.append(s)
            if kept:
                out[host] = kept
    return out


def select(pool, include, exclude, num_nodes, num_gpus):
    """runner.main's selection over a resource pool {host: slots} (None: no hostfile)."""
    multi = True
    if num_nodes >= 0 or num_gpus >= 0:
        if include or exclude:
            refuse("deepspeed", "Cannot specify num_nodes/gpus with include/exclude")
    if not pool:
        pool = collections.OrderedDict([("localhost", None)])
        multi = False
    if not multi and num_nodes > 1:
        refuse("deepspeed", "Num nodes is >1 but no extra nodes available via hostfile")
    # 0.19.8 parse_inclusion_exclusion: filter against what the machines have (0.19.6
    # seeded it from the include string, so `-i worker-0` selected nothing)
    if any(v is None for v in pool.values()):  # this machine, its GPU count read at launch
        if include and exclude:
            refuse("deepspeed", "include_str and exclude_str are mutually exclusive.")
        for host in (_node_specs(include or exclude) if include or exclude else ()):
            # parse_resource_filter checks each named host against the pool whatever the GPU count: with no
            # hostfile the pool is {'localhost': N}, so `--include jeff` is refused there too (userwalk22: the plan
            # ran it on localhost, 'procs ?')
            if host not in pool:
                refuse("deepspeed", "Hostname '%s' not found in hostfile" % host[:60])
        specs = _node_specs(include) if include else {}
        known = collections.OrderedDict((h, list(range(v)) if v is not None else
                                         (specs.get(h) or None)) for h, v in pool.items())
        if all(v is not None for v in known.values()) and (include or exclude):
            active = resource_filter(known, include, exclude)
        else:
            active = known
    else:
        active = resource_filter(collections.OrderedDict((h, list(range(v))) for h, v in pool.items()),
                                 include, exclude)
    if num_nodes > 0:
        active = collections.OrderedDict(list(active.items())[:num_nodes])
    if num_gpus > 0:
        active = collections.OrderedDict((h, list(range(num_gpus))) for h in active)
    return active, multi


BACKENDS = ("pdsh", "openmpi", "mpich", "impi", "mvapich", "slurm")


def _slurm_filter(active):
    """multinode_runner.py SlurmRunner.validate_active_resources (0.19.8): srun places tasks
    by count, so kept slots must be 0..N-1 and the same count on every host."""
    counts = set()
    for host, slots in active.items():
        if slots is None:
            continue
        if list(slots) != list(range(len(slots))):
            refuse("deepspeed", "slurm backend cannot select specific device ids, got %s on %s" % (list(slots)[:8],
                                                                                               host))
        counts.add(len(slots))
    if len(counts) > 1:
        refuse("deepspeed", "slurm backend needs the same slot count on every host")


def _backend(backend, a, pool, active):
    """runner.main's multi-node branch: the backend named by --launcher, its validate_args()
    and get_cmd() refusals, and the processes it starts (multinode_runner.py, 0.19.8)."""
    if backend not in BACKENDS:
        refuse("deepspeed", "Unknown launcher %s" % backend[:30])
    if backend in ("openmpi", "mpich", "impi", "mvapich"):
        if a.include or a.exclude:
            refuse("deepspeed", "%s backend does not support worker include/exclusion" % backend)
        if a.num_nodes != -1 or a.num_gpus != -1:
            refuse("deepspeed", "%s backend does not support limiting num nodes/gpus" % backend)
        if backend != "openmpi" and len(set(pool.values())) > 1:
            refuse("deepspeed", "%s requires same number of devices per node" % {
                "mpich": "MPICH", "impi": "Intel MPI", "mvapich": "mvapich"}[backend])
        # these backends start sum(resource_pool) processes over the whole hostfile
        return collections.OrderedDict((h, list(range(n))) for h, n in pool.items())
    return active


def _carried(backend, a):
    """What of the launching environment reaches the remote ranks (deepspeed/launcher/runner.py:
    EXPORT_ENVS plus the CUDA accelerator's export_envs(), and the KEY=VALUE lines of
    ~/.deepspeed_env and ./.deepspeed_env; multinode_runner.py: pdsh `export`, openmpi -x, mvapich
    -env, mpich/impi -genv, slurm `srun --export=ALL,...`)."""
    if backend == "slurm":
        return "environment of the remote ranks: srun --export=ALL carries the whole launching environment"
    text = ("environment of the remote ranks: only NCCL*, PYTHON*, MLFLOW*, MV2* and UCX* variables and the KEY=VALUE lines of ~/.deepspeed_env "
            "and ./.deepspeed_env (DS_ENV_FILE) reach them; PATH, LD_LIBRARY_PATH, CUDA_HOME and a venv "
            "activation do not")
    if backend == "pdsh":
        text += " (--venv_script sources one first)"
    if backend == "openmpi" and "btl_tcp_if_include" not in (getattr(a, "launcher_args", "") or ""):
        text += "; it adds --mca btl_tcp_if_include eth0 (give --launcher_args \"--mca btl_tcp_if_include <iface>\" " \
                "when the nodes' interface is not eth0)"
    return text


# What deepspeed/launcher/runner.py (0.19.8, https://github.com/deepspeedai/DeepSpeed/blob/master/
# deepspeed/launcher/runner.py) main() exports to the remote ranks of a multi-node run: every
# variable of the launching environment whose name starts with EXPORT_ENVS or the CUDA
# accelerator's export_envs() (accelerator/cuda_accelerator.py: ['NCCL']), less EXCLUDE_ENVS'
# names when its key is set, then every `KEY=VALUE` line of DEEPSPEED_ENVIRONMENT_NAME
# (DS_ENV_FILE, default .deepspeed_env) in DEEPSPEED_ENVIRONMENT_PATHS (~ then '.'). PYTHONPATH is
# always among them: main() sets it to the launching directory (before the old value) first.
EXPORT_PREFIXES = ("MLFLOW", "PYTHON", "MV2", "UCX", "NCCL")
EXCLUDE_ENVS = {"AISC_JOB_NAME": ("NCCL_IB_HCA", "UCX_NET_DEVICES")}
ENV_FILE_MAX = 256 << 10
# The launching environment's variables that a rank reads, among those gpudoctor shows
# (collector/system.py env_shown: never a secret-looking name). Not judged: what
# deepspeed.launcher.launch sets for each rank itself (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK,
# LOCAL_RANK, CUDA_VISIBLE_DEVICES: launch.py main()), the node's own (HOME, USER, SHELL,
# HOSTNAME, SLURM_*, the container runtime's NVIDIA_* and CUDA_VERSION), other launchers'
# (TORCHELASTIC_*, OMPI_MCA_*, PMIX_*, HOROVOD_*) and gpudoctor's own.
RANK_PREFIXES = ("NCCL_", "UCX_", "CUDA_", "TORCH_", "FI_")
RANK_NAMES = ("PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "PYTHONHOME", "OMP_NUM_THREADS",
              "PYTORCH_CUDA_ALLOC_CONF", "HF_HOME", "TRANSFORMERS_CACHE", "DS_ACCELERATOR", "GLOO_SOCKET_IFNAME",
              "TP_SOCKET_IFNAME")
NOT_RANK = ("CUDA_VISIBLE_DEVICES", "CUDA_VERSION")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def matters(name):
    from gpudoctor.collector.system import env_shown

    return (name in RANK_NAMES or name.startswith(RANK_PREFIXES)) and name not in NOT_RANK and env_shown(name)


def env_files(environ):
    """[(path, shown)] that runner.py reads, in its order; the home one only when HOME is known
    (os.path.expanduser("~") reads HOME first)."""
    name = environ.get("DS_ENV_FILE", ".deepspeed_env")
    out = []
    home = environ.get("HOME")
    if home:
        out.append((os.path.join(home, name), os.path.join("~", name) if not os.path.isabs(name) else name))
    out.append((os.path.join(".", name), os.path.join(".", name) if not os.path.isabs(name) else name))
    return out


def read_env_file(path, shown):
    """The names a .deepspeed_env file exports, [(line number, name)], read as runner.py reads it:
    `for var in fd.readlines(): key, val = var.split('=', maxsplit=1)` (a line without '=', a
    blank one included, raises ValueError there), add_export() strips the key. The values are
    never kept (a token may be among them)."""
    text = read_input(path, "DeepSpeed environment file", shown=shown, limit=ENV_FILE_MAX).decode("utf-8", "replace")
    out = []
    for n, line in enumerate(text.splitlines(True), 1):
        if "=" not in line:
            refuse("deepspeed", "%s line %d has no '=': runner.py's `key, val = var.split('=', maxsplit=1)` raises "
                                "ValueError (one KEY=VALUE a line, no blank or comment lines)" % (shown, n))
        out.append((n, line.split("=", 1)[0].strip()))
    return out


def _remote_env(plan, environ):
    """What of the launching environment reaches the ranks that DeepSpeed's pdsh runner starts
    (PDSHRunner.get_cmd: `export K="V"; ...` before launch.py, over ssh), into plan.carried
    (name -> how) and plan.env_launching (the names a rank reads -> their values)."""
    excluded = set()
    for key, names in EXCLUDE_ENVS.items():
        if key in environ:
            excluded.update(names)
    carried = collections.OrderedDict()
    for name in sorted(set(environ) | {"PYTHONPATH"}):
        prefix = next((p for p in EXPORT_PREFIXES if name.startswith(p)), None)
        if prefix and name not in excluded:
            carried[name] = "its name starts with %s (runner.py EXPORT_ENVS)" % prefix
    carried["PYTHONPATH"] = "runner.py sets it to the launching directory%s" % (
        " before the old value" if environ.get("PYTHONPATH") else "")
    files = []
    for path, shown in env_files(environ):
        if os.path.isfile(path):
            files.append(shown)
            for n, name in read_env_file(path, shown):
                if _NAME.match(name):
                    carried[name] = "%s line %d" % (shown, n)
    plan.carried = dict(carried)
    plan.env_files = files
    plan.env_launching = {k: redact(k, v) for k, v in environ.items() if matters(k)}
    missing = sorted(k for k in plan.env_launching if k not in carried)
    if missing:
        plan.note("set here but not exported to the ranks by DeepSpeed's pdsh runner: %s (add NAME=value lines to "
                  "%s; gpudoctor check judges them against the nodes)" % (", ".join(missing),
                                                                         files[-1] if files else env_files(environ)[0][1]))


def read(plan, argv, environ):
    plan.launcher = "deepspeed"
    a = parse("deepspeed", "deepspeed", argv, environ)
    if getattr(a, "elastic_training", False) and a.master_addr == "":
        refuse("deepspeed", "Master Addr is required when elastic training is enabled")
    path = a.hostfile
    p = os.path.expanduser(path)
    pool = None
    if hostfiles.written(path) is not None:
        pool = collections.OrderedDict(hostfiles.deepspeed(hostfiles.read(path, "DeepSpeed hostfile"), path))
        plan.note("hostfile %s: as the script writes it before this line" % excerpt(path, 60))
        src = "hostfile %s (written by the script)" % path
    elif os.path.isfile(p):
        pool = collections.OrderedDict(hostfiles.deepspeed(hostfiles.read(p, "DeepSpeed hostfile"), path))
        plan.add_file(p)
        src = "hostfile %s" % path
    elif path != DLTS_HOSTFILE and a.num_nodes > 1 and not (a.include or a.exclude):
        # `--hostfile hf --num_nodes 2 --num_gpus 8` planned away from the machine that holds
        # hf: DeepSpeed there takes the first 2 hosts, 8 GPUs each; only the names are unknown
        # (here DeepSpeed would say "Num nodes is >1 but no extra nodes available via hostfile")
        plan.note("hostfile %s is not on this machine: DeepSpeed reads it where the job is launched; the flags "
                  "give --num_nodes %d%s" % (excerpt(path, 60), a.num_nodes,
                                             " x --num_gpus %d" % a.num_gpus if a.num_gpus > 0 else ""))
        plan.nnodes_min = plan.nnodes_max = a.num_nodes
        if a.num_gpus > 0:
            plan.nproc_per_node = a.num_gpus
            plan.world_min = plan.world_max = a.num_nodes * a.num_gpus
        plan.master_addr = a.master_addr or None
        plan.master_port = a.master_port
        plan.rdzv_backend = "static"
        plan.rdzv_endpoint = "%s:%s" % (plan.master_addr, plan.master_port) if plan.master_addr else None
        plan.script = ("-m " + a.user_script) if a.module else a.user_script
        if not a.module and not a.no_python:
            plan.add_file(a.user_script)
        plan.script_args = list(a.user_args or [])
        return plan
    else:
        if path == DLTS_HOSTFILE:
            plan.note("no --hostfile: DeepSpeed reads %s when it exists on the machine the job is launched from "
                      "(not here), else it runs on that machine's own GPUs only" % DLTS_HOSTFILE)
        else:
            plan.note("DeepSpeed: \"Unable to find hostfile, will proceed with training with local resources "
                      "only\" (%s)" % path)
        src = "this machine (no hostfile)"
    include, exclude = a.include, a.exclude
    visible = (environ or {}).get("CUDA_VISIBLE_DEVICES", "")
    if not pool and visible:
        if include or exclude or a.num_nodes > 1 or a.num_gpus > 0:
            plan.note("DeepSpeed ignores CUDA_VISIBLE_DEVICES=%s because --include/--exclude/--num_gpus/"
                      "--num_nodes are given" % visible[:40])
        else:
            include = "localhost:%s" % visible
    active, multi = select(pool, include, exclude, a.num_nodes, a.num_gpus)
    if not active:
        refuse("deepspeed", "no resources left after --include/--exclude (IndexError in runner.main)")
    backend = a.launcher.lower()
    if backend == "slurm":
        _slurm_filter(active)  # SlurmRunner.validate_active_resources, before local vs multi-node
    if a.no_ssh and not 0 <= a.node_rank < len(active):
        refuse("deepspeed", "Launching training without ssh, but --node_rank is not set correctly.")
    multi_exec = (a.force_multi or len(active) > 1) and not a.no_ssh
    if multi_exec:
        active = _backend(backend, a, pool or {}, active)
    if getattr(a, "elastic_training", False) and a.no_local_rank:
        refuse("deepspeed", "--no_local_rank argument is not supported in Elastic training")
    nodes = []
    for host, slots in active.items():
        n = None if slots is None else len(slots)
        granted = (pool or {}).get(host)
        nodes.append(Node(host=host, slots=granted, procs=n))
    spec = []
    if include:
        spec.append("--include %s" % include)
    if exclude:
        spec.append("--exclude %s" % exclude)
    if a.num_nodes > 0:
        spec.append("--num_nodes %d" % a.num_nodes)
    if a.num_gpus > 0:
        spec.append("--num_gpus %d" % a.num_gpus)
    plan.set_nodes(nodes, src + (" " + " ".join(spec) if spec else ""))
    if not multi:
        plan.master_addr = "127.0.0.1"
    elif a.master_addr:
        plan.master_addr = a.master_addr
    else:
        first = next(iter(active))
        if "[" in first:
            # runner.py runs `ssh <first host> hostname -I` on the name as written: ssh does
            # not expand pdsh's brackets, so the address is not found there
            plan.note("master address: DeepSpeed runs `ssh %s hostname -I`, and ssh does not expand the "
                      "brackets (pdsh does): give --master_addr" % first)
        else:
            plan.master_addr = first  # DeepSpeed takes the first address of `hostname -I` on it
            plan.note("master address: the first address `hostname -I` prints on %s (DeepSpeed's default)" % first)
    plan.master_port = a.master_port
    plan.rdzv_backend = "static"
    plan.rdzv_endpoint = "%s:%s" % (plan.master_addr, plan.master_port) if plan.master_addr else None
    plan.machine_rank = a.node_rank if a.no_ssh else None
    if multi_exec:
        plan.note("DeepSpeed starts the remote ranks through its --launcher %s" % backend)
        plan.note(_carried(backend, a))
        if backend == "pdsh":
            _remote_env(plan, environ or {})
    plan.script = ("-m " + a.user_script) if a.module else a.user_script
    if not a.module and not a.no_python:
        plan.add_file(a.user_script)
    plan.script_args = list(a.user_args or [])
    return plan
