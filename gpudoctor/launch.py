"""The launch plan: what accelerate, DeepSpeed, torchrun, python -m torch.distributed.launch,
mpirun/horovodrun or the deepspeed launcher will ask of the cluster (node and process
counts, the master address and port, precision, batch arithmetic, forwarded environment,
the files every node must hold). Parsed here, on the controller; the launch.* checks judge
it against the nodes' facts (checks/launch.py). Malformed input is an InputError (exit 2).

Seeds: 002 (accelerate + DeepSpeed + pdsh: default_config.yaml, deepspeed.json, hostfile),
004 (mpirun -np 16 -H gpu1:8,gpu2:8 -x NCCL_... python3 train.py), 000 (torch.distributed.launch).
"""

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from gpudoctor.errors import InputError, read_input

ACCELERATE_DEFAULT = "~/.cache/huggingface/accelerate/default_config.yaml"
# variables a distributed job depends on; a launcher that does not carry them leaves the
# remote ranks with whatever the non-interactive shell there sets (Open MPI's mpirun forwards them only with -x NAME: mpirun(1))
JOB_ENV = re.compile(r"^(NCCL_\w+|UCX_\w+|LD_LIBRARY_PATH|PYTHONPATH|CUDA_VISIBLE_DEVICES|OMP_NUM_THREADS)$")


@dataclass
class Plan:
    sources: List[str] = field(default_factory=list)  # "accelerate config ./default_config.yaml", ...
    launcher: Optional[str] = None  # accelerate | deepspeed | torchrun | torch.distributed.launch | mpirun
    num_machines: Optional[int] = None  # nodes the plan expects
    num_processes: Optional[int] = None  # world size the plan expects
    nproc_per_node: Optional[int] = None
    slots: Dict[str, int] = field(default_factory=dict)  # mpirun -H / deepspeed hostfile: host -> slots
    slots_source: Optional[str] = None
    master_addr: Optional[str] = None
    master_port: Optional[int] = None
    machine_rank: Optional[int] = None
    mixed_precision: Optional[str] = None  # accelerate: no | fp16 | bf16 | fp8
    ds_bf16: Optional[bool] = None
    ds_fp16: Optional[bool] = None
    ds_config: Optional[str] = None
    train_batch_size: object = None  # int or "auto"
    micro_batch: object = None
    grad_accum: object = None
    forwarded_env: Optional[List[str]] = None  # mpirun -x NAMES; None: the launcher forwards nothing by flag
    launch_env: Dict[str, str] = field(default_factory=dict)  # job variables in the launching shell
    files: List[str] = field(default_factory=list)  # absolute paths every node must hold, the same
    script: Optional[str] = None

    def world_size(self):
        if self.num_processes:
            return self.num_processes
        if self.num_machines and self.nproc_per_node:
            return self.num_machines * self.nproc_per_node
        if self.slots:
            return sum(self.slots.values())
        return None

    def add_file(self, path, base=None):
        if not path:
            return
        p = os.path.expanduser(path)
        if not os.path.isabs(p):
            # pdsh runners (DeepSpeed, accelerate) `cd` to the launching directory on every node
            p = os.path.normpath(os.path.join(base or os.getcwd(), p))
        if p not in self.files:
            self.files.append(p)


# ---------------------------------------------------------------- YAML (accelerate's subset)

def _scalar(text):
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    low = t.lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    if low in ("null", "~", ""):
        return None
    if t == "[]":
        return []
    if t == "{}":
        return {}
    if re.match(r"^-?\d+$", t):
        return int(t)
    if re.match(r"^-?\d+\.\d*$", t):
        return float(t)
    return t


def parse_simple_yaml(text, where="config"):
    """The block-mapping YAML `accelerate config` writes: `key: value` and nested mappings by
    indentation, comments, quoted scalars, [] and {}. Anything else is an InputError."""
    root = {}
    stack = [(-1, root)]  # (indent, dict)
    pending = None  # (indent, parent, key): a key whose value is a nested mapping to come
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip() or line.strip() == "---":
            continue
        if "\t" in line[:len(line) - len(line.lstrip())]:
            raise InputError("%s:%d: tabs are not allowed in YAML indentation" % (where, no))
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        m = re.match(r"^([A-Za-z0-9_.\-]+)\s*:(?:\s+(.*)|\s*)$", body)
        if not m:
            raise InputError("%s:%d: expected 'key: value', got %r" % (where, no, body[:60]))
        if pending is not None:
            p_indent, parent, key = pending
            if indent > p_indent:
                child = {}
                parent[key] = child
                stack.append((indent, child))
            else:
                parent[key] = None
            pending = None
        while stack and indent < stack[-1][0]:
            stack.pop()
        if not stack or indent != stack[-1][0] and stack[-1][0] != -1:
            raise InputError("%s:%d: indentation does not match any enclosing key" % (where, no))
        if stack[-1][0] == -1 and indent != 0:
            raise InputError("%s:%d: unexpected indentation" % (where, no))
        cur = stack[-1][1]
        key, value = m.group(1), m.group(2)
        if value is None or value.strip() == "":
            pending = (indent, cur, key)
        else:
            if value.strip().startswith(("- ", "[", "{", "|", ">", "&", "*", "!")) and value.strip() not in ("[]", "{}"):
                raise InputError("%s:%d: %s: only plain values are understood here, got %r"
                                 % (where, no, key, value.strip()[:40]))
            cur[key] = _scalar(value)
    if pending is not None:
        pending[1][pending[2]] = None
    return root


def load_yaml(path):
    text = read_input(path, "accelerate config").decode("utf-8", "replace")
    try:
        import yaml  # PyYAML when the environment already has it (accelerate depends on it)
    except ImportError:
        yaml = None
    if yaml is not None:
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InputError("accelerate config %s is not valid YAML: %s" % (path, str(exc).replace("\n", " ")))
    else:
        doc = parse_simple_yaml(text, where=path)
    if not isinstance(doc, dict):
        raise InputError("accelerate config %s: expected a mapping of keys, got %s" % (path, type(doc).__name__))
    return doc


# ---------------------------------------------------------------- helpers

def _int(value, what, where):
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InputError("%s: %s=%r is not a whole number" % (where, what, value))
    try:
        return int(str(value).strip())
    except ValueError:
        raise InputError("%s: %s=%r is not a whole number" % (where, what, value))


def _count_or_auto(value, what, where):
    if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
        return value
    return _int(value, what, where)


def parse_slots(text, where):
    """host slots=N (DeepSpeed/pdsh), host:N (MPI): the inventory's hostfile parser, plus
    DeepSpeed's rule that every host names its slots."""
    from gpudoctor.inventory import parse_hostfile

    hosts = parse_hostfile(text, where)
    if not hosts:
        raise InputError("%s: names no host" % where)
    for h in hosts:
        if h.slots is None:
            raise InputError("%s: no slots= for %s (DeepSpeed needs 'host slots=N')" % (h.source, h.name))
    return {h.name: h.slots for h in hosts}


def _read_hostfile(path, plan):
    p = os.path.expanduser(path)
    text = read_input(p, "DeepSpeed hostfile", shown=path).decode("utf-8", "replace")
    plan.slots = parse_slots(text, path)
    plan.slots_source = "hostfile %s" % path
    plan.add_file(p)


# ---------------------------------------------------------------- accelerate / DeepSpeed

def load_accelerate(path, plan):
    path = os.path.expanduser(path or ACCELERATE_DEFAULT)
    doc = load_yaml(path)
    where = path
    plan.sources.append("accelerate config %s" % path)
    plan.launcher = plan.launcher or "accelerate"
    plan.num_machines = _int(doc.get("num_machines"), "num_machines", where)
    plan.num_processes = _int(doc.get("num_processes"), "num_processes", where)
    plan.machine_rank = _int(doc.get("machine_rank"), "machine_rank", where)
    if doc.get("main_process_ip") not in (None, ""):
        plan.master_addr = str(doc["main_process_ip"])
    plan.master_port = _int(doc.get("main_process_port"), "main_process_port", where) or plan.master_port
    mp = doc.get("mixed_precision")
    if mp is not None:
        mp = str(mp).lower() if mp is not False else "no"
        if mp not in ("no", "fp16", "bf16", "fp8"):
            raise InputError("%s: mixed_precision=%r is not one of no, fp16, bf16, fp8" % (where, mp))
        plan.mixed_precision = mp
    plan.add_file(path)
    ds = doc.get("deepspeed_config") or {}
    if not isinstance(ds, dict):
        raise InputError("%s: deepspeed_config must be a mapping" % where)
    base = os.path.dirname(os.path.abspath(path))
    if ds.get("deepspeed_config_file"):
        # accelerate opens it relative to the directory it is launched from
        load_deepspeed(ds["deepspeed_config_file"], plan)
    if ds.get("deepspeed_hostfile"):
        hf = ds["deepspeed_hostfile"]
        if os.path.exists(os.path.expanduser(hf)) or not os.path.exists(os.path.join(base, hf)):
            _read_hostfile(hf, plan)
        else:
            _read_hostfile(os.path.join(base, hf), plan)
    for key in ("gradient_accumulation_steps",):
        if ds.get(key) is not None and plan.grad_accum is None:
            plan.grad_accum = _count_or_auto(ds[key], key, where)
    return plan


def load_deepspeed(path, plan):
    p = os.path.expanduser(path)
    text = read_input(p, "DeepSpeed config", shown=path).decode("utf-8", "replace")
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError("DeepSpeed config %s is not valid JSON: %s" % (path, exc))
    if not isinstance(doc, dict):
        raise InputError("DeepSpeed config %s: expected a JSON object" % path)
    plan.sources.append("DeepSpeed config %s" % path)
    plan.ds_config = path
    plan.add_file(p)
    for key in ("bf16", "fp16"):
        sec = doc.get(key)
        if sec is None:
            continue
        if not isinstance(sec, dict):
            raise InputError("DeepSpeed config %s: %s must be an object like {\"enabled\": true}" % (path, key))
        en = sec.get("enabled", False)
        if isinstance(en, str) and en.lower() == "auto":
            en = None  # the HF Trainer fills it from --bf16/--fp16
        elif not isinstance(en, bool):
            raise InputError("DeepSpeed config %s: %s.enabled=%r must be true, false or \"auto\"" % (path, key, en))
        setattr(plan, "ds_" + key, en)
    plan.train_batch_size = _count_or_auto(doc.get("train_batch_size"), "train_batch_size", path)
    plan.micro_batch = _count_or_auto(doc.get("train_micro_batch_size_per_gpu"), "train_micro_batch_size_per_gpu",
                                      path)
    ga = _count_or_auto(doc.get("gradient_accumulation_steps"), "gradient_accumulation_steps", path)
    if ga is not None:
        plan.grad_accum = ga
    return plan


# ---------------------------------------------------------------- launch lines

def _opts(args, flags_with_value):
    """Split launcher options from the training script: {flag: value}, script, its args."""
    opts, i = {}, 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-"):
            return opts, a, args[i + 1:]
        name, eq, val = a.partition("=")
        key = name.lstrip("-").replace("-", "_")
        if eq:
            opts.setdefault(key, []).append(val)
        elif key in ("mca", "gmca") and i + 2 < len(args):  # Open MPI: -mca NAME VALUE
            opts.setdefault(key, []).append(args[i + 1] + "=" + args[i + 2])
            i += 2
        elif key in flags_with_value and i + 1 < len(args):
            opts.setdefault(key, []).append(args[i + 1])
            i += 1
        else:
            opts.setdefault(key, []).append(True)
        i += 1
    return opts, None, []


def _last(opts, key):
    v = opts.get(key)
    return v[-1] if v else None


TORCHRUN_VALUE = {"nnodes", "nproc_per_node", "node_rank", "master_addr", "master_port", "rdzv_endpoint",
                  "rdzv_backend", "rdzv_id", "rdzv_conf", "max_restarts", "monitor_interval", "start_method",
                  "role", "log_dir", "redirects", "tee", "local_addr", "logs_specs", "local_ranks_filter"}
DEEPSPEED_VALUE = {"hostfile", "H", "include", "i", "exclude", "e", "num_nodes", "num_gpus", "num_accelerators",
                   "master_port", "master_addr", "launcher", "launcher_args", "module", "elastic_training",
                   "min_elastic_nodes", "max_elastic_nodes", "ssh_port", "node_rank", "C", "comment"}
MPI_VALUE = {"np", "n", "c", "H", "host", "hostfile", "machinefile", "x", "mca", "bind_to", "map_by", "rank_by",
             "npernode", "N", "wdir", "prefix", "report_bindings_file", "tag_output_file", "output_filename",
             "gmca", "rf", "rankfile", "display_map_file", "use_hwthread_cpus_file"}


def _script_args(script, rest, plan):
    if script in ("python", "python3") or (script and re.match(r"^python3?(\.\d+)?$", os.path.basename(script))):
        # mpirun ... python3 train.py --flags
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            if rest[i] == "-m" and i + 1 < len(rest):
                plan.script = "-m " + rest[i + 1]
                return
            i += 1
        script = rest[i] if i < len(rest) else None
        rest = rest[i + 1:]
    if script:
        plan.script = script
        if script.endswith(".py"):
            plan.add_file(script)
    for j, a in enumerate(rest):  # the HF Trainer's --deepspeed ds.json
        if a in ("--deepspeed", "--deepspeed_config") and j + 1 < len(rest) and rest[j + 1].endswith(".json"):
            if plan.ds_config is None:
                load_deepspeed(rest[j + 1], plan)
        if a == "--bf16" and plan.mixed_precision is None:
            plan.mixed_precision = "bf16"
        if a == "--fp16" and plan.mixed_precision is None:
            plan.mixed_precision = "fp16"


def _nnodes(value, where):
    if value is None:
        return None
    mx = str(value).split(":")[-1]  # elastic MIN:MAX
    return _int(mx, "--nnodes", where)


def parse_launch(line, plan=None, environ=None):
    """One launch command line (shell syntax), as the user would type it."""
    plan = plan or Plan()
    environ = os.environ if environ is None else environ
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise InputError("--launch %r: %s" % (line[:60], exc))
    while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):  # MASTER_ADDR=... torchrun ...
        k, _, v = argv.pop(0).partition("=")
        plan.launch_env[k] = v
        if k == "MASTER_ADDR":
            plan.master_addr = v
        elif k == "MASTER_PORT":
            plan.master_port = _int(v, "MASTER_PORT", "--launch")
    if not argv:
        raise InputError("--launch is empty")
    where = "--launch %s" % argv[0]
    prog = os.path.basename(argv[0])
    args = argv[1:]
    if re.match(r"^python3?(\.\d+)?$", prog) and args[:2] in (["-m", "torch.distributed.launch"],
                                                             ["-m", "torch.distributed.run"]):
        prog, args = "torch.distributed.launch" if args[1].endswith("launch") else "torchrun", args[2:]
    plan.sources.append("launch line: %s" % line.strip())
    for k in list(environ):
        if JOB_ENV.match(k):
            plan.launch_env.setdefault(k, environ[k])
    if prog in ("torchrun", "torch.distributed.launch"):
        plan.launcher = prog
        opts, script, rest = _opts(args, TORCHRUN_VALUE)
        plan.num_machines = _nnodes(_last(opts, "nnodes"), where)
        npn = _last(opts, "nproc_per_node")
        if npn is not None and str(npn) not in ("gpu", "auto", "cpu", "xpu"):
            plan.nproc_per_node = _int(npn, "--nproc_per_node", where)
        plan.master_addr = _last(opts, "master_addr") or plan.master_addr
        plan.master_port = _int(_last(opts, "master_port"), "--master_port", where) or plan.master_port
        ep = _last(opts, "rdzv_endpoint")
        if ep:
            host, _, port = ep.rpartition(":") if ":" in ep else (ep, "", "")
            plan.master_addr = host or ep
            plan.master_port = _int(port, "--rdzv_endpoint port", where) if port else plan.master_port or 29400
        if plan.master_port is None and (plan.num_machines or 1) > 1:
            plan.master_port = 29500  # torch's default
        _script_args(script, rest, plan)
    elif prog == "deepspeed":
        plan.launcher = "deepspeed"
        opts, script, rest = _opts(args, DEEPSPEED_VALUE)
        hf = _last(opts, "hostfile") or _last(opts, "H")
        if hf:
            _read_hostfile(hf, plan)
        ng = _last(opts, "num_gpus") or _last(opts, "num_accelerators")
        plan.nproc_per_node = _int(ng, "--num_gpus", where) if ng is not None else None
        plan.num_machines = _int(_last(opts, "num_nodes"), "--num_nodes", where)
        plan.master_addr = _last(opts, "master_addr") or plan.master_addr
        plan.master_port = _int(_last(opts, "master_port"), "--master_port", where) or plan.master_port or 29500
        _script_args(script, rest, plan)
    elif prog == "accelerate":
        if not args or args[0] != "launch":
            raise InputError("%s: only 'accelerate launch ...' is understood" % where)
        opts, script, rest = _opts(args[1:], {"config_file", "num_machines", "num_processes", "main_process_ip",
                                              "main_process_port", "machine_rank", "mixed_precision",
                                              "deepspeed_config_file", "deepspeed_hostfile", "gpu_ids"})
        if _last(opts, "config_file"):
            load_accelerate(_last(opts, "config_file"), plan)
        plan.launcher = "accelerate"
        for key, attr in (("num_machines", "num_machines"), ("num_processes", "num_processes"),
                          ("machine_rank", "machine_rank"), ("main_process_port", "master_port")):
            if _last(opts, key) is not None:
                setattr(plan, attr, _int(_last(opts, key), "--" + key, where))
        plan.master_addr = _last(opts, "main_process_ip") or plan.master_addr
        if _last(opts, "mixed_precision"):
            plan.mixed_precision = _last(opts, "mixed_precision")
        if _last(opts, "deepspeed_config_file"):
            load_deepspeed(_last(opts, "deepspeed_config_file"), plan)
        _script_args(script, rest, plan)
    elif prog in ("mpirun", "mpiexec", "horovodrun", "orterun"):
        plan.launcher = "horovodrun" if prog == "horovodrun" else "mpirun"
        # Open MPI accepts single-dash long options (-np, -x, -mca, -bind-to)
        opts, script, rest = _opts(args, MPI_VALUE | {"p"})
        np_ = _last(opts, "np") or _last(opts, "n") or _last(opts, "c") or _last(opts, "p")
        plan.num_processes = _int(np_, "-np", where)
        hosts = ",".join(str(h) for h in (opts.get("H") or []) + (opts.get("host") or []) if h is not True)
        if hosts:
            slots = {}
            for item in hosts.split(","):
                if not item:
                    continue
                h, _, n = item.partition(":")
                slots[h] = slots.get(h, 0) + (_int(n, "-H %s" % item, where) if n else 1)
            plan.slots = slots
            plan.slots_source = "-H %s" % hosts
            plan.num_machines = len(slots)
        hf = _last(opts, "hostfile") or _last(opts, "machinefile")
        if hf and not hosts:
            _read_hostfile(hf, plan)
        fwd = []
        for x in opts.get("x") or []:
            name, eq, val = str(x).partition("=")
            fwd.append(name)
            if eq:
                plan.launch_env[name] = val
            if name == "MASTER_ADDR" and eq:
                plan.master_addr = val
        plan.forwarded_env = fwd
        _script_args(script, rest, plan)
    else:
        raise InputError("%s: not a launcher gpudoctor understands (torchrun, python -m torch.distributed.launch, "
                         "deepspeed, accelerate launch, mpirun, horovodrun)" % where)
    return plan


def build_plan(accelerate=None, accelerate_given=False, deepspeed=None, launch=None, environ=None):
    """The plan from the check command's flags; None when no flag names one."""
    if not (accelerate_given or deepspeed or launch):
        return None
    plan = Plan()
    if accelerate_given:
        load_accelerate(accelerate, plan)
    if deepspeed:
        load_deepspeed(deepspeed, plan)
    if launch:
        parse_launch(launch, plan, environ=environ)
    if plan.master_port is not None and not 0 < plan.master_port < 65536:
        raise InputError("master port %d is not a TCP port (1-65535)" % plan.master_port)
    return plan


def is_loopback(addr):
    return addr in ("localhost", "::1", "ip6-localhost") or addr.startswith("127.")


# ---------------------------------------------------------------- the fan-out's part

def add_options(plan, options):
    """Ask the collector for what the launch checks read: the master's name resolved on
    every node, and checksums of the plan's files."""
    if plan.master_addr and plan.master_addr not in options.setdefault("resolve", []):
        options["resolve"] = list(options["resolve"]) + [plan.master_addr]
    if plan.files:
        same = list(options.get("same_files") or [])
        options["same_files"] = same + [p for p in plan.files if p not in same]
    return options


def _ssh_hostnames(hosts, ssh_config=None):
    """host alias -> the address ssh connects to (HostName in ~/.ssh/config), resolved here."""
    out = {}
    try:
        from fabric import Connection

        from gpudoctor.transport.ssh import make_config

        cfg = make_config(ssh_config)
        for h in hosts:
            out[h.name] = Connection(h.name, config=cfg).host
    except Exception:  # the name itself is the best we have
        out = {h.name: h.name for h in hosts}
    return out


def _addrs(name):
    import socket

    try:
        return {a[4][0] for a in socket.getaddrinfo(name, None, socket.AF_INET)}
    except (OSError, UnicodeError):
        return set()


def master_host(plan, hosts, nodes, ssh_config=None):
    """The node the plan's master address names: by host name, by its ssh HostName, or by
    what the nodes resolve the master to; None when it is none of them."""
    names = [h.name for h in hosts]
    m = plan.master_addr
    if not m:
        return None
    if m in names:
        return m
    want = {m} | _addrs(m)
    for n in nodes:
        if n.reachable:
            want.update(((n.facts.get("resolve") or {}).get("names") or {}).get(m) or [])
    for name, target in _ssh_hostnames(hosts, ssh_config).items():
        if target in want or _addrs(target) & want:
            return name
    return None


def probe_rendezvous(plan, hosts, nodes, gather, seconds=5.0, **kw):
    """Phase 2: the master node listens on the plan's port while every other reachable node
    connects to the master address; each node's `rendezvous` section joins its facts."""
    if not plan.master_addr or not plan.master_port:  # a loopback master is launch.master's finding
        return nodes
    live = [n.host for n in nodes if n.reachable]
    master = master_host(plan, hosts, nodes, kw.get("ssh_config"))
    if master is None or master not in live or len(live) < 2:
        return nodes
    import uuid

    token = "gpudoctor-rendezvous-" + uuid.uuid4().hex[:12]
    base = {"addr": plan.master_addr, "port": plan.master_port, "seconds": seconds, "token": token}
    per = {}
    for h in live:
        opt = dict(base, role="master" if h == master else "peer")
        if h == master:
            opt["peers"] = len(live) - 1
        per[h] = {"rendezvous": opt}
    probe_hosts = [h for h in hosts if h.name in live]
    kw = dict(kw, jobs=len(probe_hosts), progress=False)
    kw["timeout"] = (kw.get("timeout") or 30.0) + seconds
    second = gather(probe_hosts, options={"only": ["rendezvous"]}, per_host_options=per, **kw)
    by_host = {n.host: n for n in second}
    for n in nodes:
        got = by_host.get(n.host)
        if got is not None and got.reachable and "rendezvous" in got.facts:
            n.facts["rendezvous"] = got.facts["rendezvous"]
    return nodes
