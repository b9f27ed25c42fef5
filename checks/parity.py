"""Drift between nodes (users' rule for multi-node training: "PyTorch, CUDA and NCCL must be the
same on every node; set the same environment variables on all nodes"). Cluster checks: each receives every
node's facts, groups nodes by value and names the odd ones against the majority."""

import re

from gpudoctor.drift import MISSING, describe, group
from gpudoctor.nodes import fold
from gpudoctor.fixline import bounded, home_path
from gpudoctor.registry import NA, Finding, Pass, Skip, check, cmd, Literal
from gpudoctor.versions import vtuple


class _Absent(dict):
    """An unsupported section (the thing is absent on that node): every value reads as MISSING,
    so drift checks compare it instead of dropping the node."""


def _sec(facts, name):
    s = facts.get(name) or {}
    if not isinstance(s, dict):  # untrusted node output: a section that is not a table is not judged
        return None
    if s.get("status") == "unsupported":
        return _Absent()
    return s if s.get("status") == "ok" else None


def _pkg(name):
    def get(f):
        py = _sec(f, "python")
        if py is None:
            return None
        packages = py.get("packages")
        return _text((packages if isinstance(packages, dict) else {}).get(name)) or MISSING
    return get


def _text(v):
    """A version as text; anything else a node sent is shown, bounded, and compared as text."""
    if v is None or isinstance(v, str):
        return v
    return bounded(v, 80)  # (docs/security.md 90.: a cut repr is not the value the report's guard looks for)


def _torch_cuda(f):
    py = _sec(f, "python")
    if py is None:
        return None
    torch = py.get("torch")
    return _text(torch.get("cuda") if isinstance(torch, dict) else None) or MISSING


def _nccl(f):
    py = _sec(f, "python")
    if py is None:
        return None
    n = py.get("nccl") if isinstance(py.get("nccl"), dict) else {}
    return _text(n.get("loaded_version") or n.get("version") or n.get("wheel_version")) or MISSING


def _get(section, *keys):
    def get(f):
        s = _sec(f, section)
        if s is None:
            return None
        if isinstance(s, _Absent):
            return MISSING
        for k in keys:
            s = (s or {}).get(k) if isinstance(s, dict) else None
        return _text(s) if s not in (None, "") else MISSING
    return get


def _ofed(f):
    s = _sec(f, "ofed")
    if s is None:
        return None
    info = s.get("ofed_info") if isinstance(s.get("ofed_info"), dict) else {}
    return _text(info.get("raw") or info.get("version")) or MISSING


# label, getter, significant: how many version components must match before it is an error
# (None: any difference is a warning). torch 2.1 vs 2.0 is an error, 2.1.1 vs 2.1.2 a warning;
# NCCL minor releases change the wire protocol; a CUDA major changes the ABI.
VERSIONS = (
    ("torch", _pkg("torch"), 2),
    ("torch CUDA build", _torch_cuda, 1),
    ("NCCL (the library that loads)", _nccl, 2),
    ("Python", _get("python", "version"), 2),
    ("deepspeed", _pkg("deepspeed"), None),
    ("accelerate", _pkg("accelerate"), None),
    ("transformers", _pkg("transformers"), None),
    ("horovod", _pkg("horovod"), 2),
    # the packages a job's kernels and extensions come from, collected in python.packages (collector/python_env.py
    # PACKAGES); one node's pip install changes one node (slurm27: sn2's numpy 2.4.6 -> 2.3.1 read "the same on
    # every node"). numpy: an extension built against 1.x does not import under 2.x ("A module that was compiled
    # using NumPy 1.x cannot be run in NumPy 2.x", https://numpy.org/doc/stable/numpy_2_0_migration_guide.html);
    # triton: each torch release pins one triton (torch's setup.py / requirements: triton==X.Y.Z), and inductor's
    # generated kernels follow it
    ("numpy", _pkg("numpy"), 1),
    ("triton", _pkg("triton"), 2),
    ("flash-attn", _pkg("flash-attn"), None),
    ("xformers", _pkg("xformers"), None),
    ("vllm", _pkg("vllm"), None),
    ("apex", _pkg("apex"), None),
    ("megatron-core", _pkg("megatron-core"), None),
    ("NVIDIA driver", _get("gpu", "driver_version"), None),
    ("CUDA toolkit (nvcc)", _get("cuda", "nvcc_version"), None),
    ("kernel", _get("host", "kernel"), None),
    ("OFED", _ofed, None),
    ("OS", _get("host", "os_pretty"), None),
)


def _severity(values, significant):
    if significant is None:
        return "warning"
    if MISSING in values:
        return "error"
    heads = {vtuple(v)[:significant] if vtuple(v) else v for v in values}
    return "error" if len(heads) > 1 else "warning"


@check("versions.parity", title="torch, CUDA, NCCL, Python, driver, kernel and OFED are the same on every node",
       scope="cluster")
def versions_parity(nodes, config):
    same = []
    skipped = {}  # the nodes one section left unknown -> the labels it hides: one line, not one per package
    for label, get, significant in VERSIONS:
        values = {h: get(f) for h, f in nodes.items()}
        unknown = [h for h, v in values.items() if v is None]
        values = {h: v for h, v in values.items() if v is not None}
        if unknown and values:  # never drop a node silently: say which could not be compared
            skipped.setdefault(tuple(unknown), []).append(label)
        groups = group(values)
        if len(groups) == 1 and groups[0].value != MISSING and len(values) > 1:
            same.append("%s %s" % (label, groups[0].value))
        if len(groups) < 2 or (len(groups) == 1 and groups[0].value == MISSING):
            continue
        base = groups[0]
        odd = [h for g in groups[1:] for h in g.hosts]
        sev = _severity([g.value for g in groups], significant)
        # (review27) the other way round is a change of the baseline nodes, not an 'upgrade' (numpy 1.26.4 against
        # 2.5.2 is older) and none where the other nodes have no such version at all ('(not installed)')
        other = groups[1].value
        if base.value == MISSING:  # most nodes have none: the odd ones have it
            fix = cmd("{odd} {has} {label} {other} and {base} none: install it on {base} too, or remove it from {odd}",
                      odd=fold(odd), has=Literal("has" if len(odd) == 1 else "have"), label=Literal(label),
                      other=other, base=fold(base.hosts))
        else:
            fix = cmd("make {odd} match {base}: install {label} {want} there", odd=fold(odd), base=fold(base.hosts),
                      label=Literal(label), want=base.value) + ("" if other == MISSING else cmd(
                          " (or put {other} on the baseline nodes instead, if that is the one you want)", other=other))
        yield Finding(severity=sev, message=describe(label, groups), observed="; ".join(g.show() for g in groups[1:]),
                      expected=str(base.value), fix=fix, hosts=odd)
    for unknown, labels in skipped.items():
        yield Skip("%s not compared: %s facts section failed or is unsupported"
                   % (", ".join(labels), "its" if len(labels) == 1 else "their"), hosts=list(unknown))
    if same:
        yield Pass("the same on every node: " + ", ".join(same))
    else:
        yield NA("no version known on two nodes or more")


# Variables whose values differ per node by design; never compared.
PER_NODE = ("SSH_", "XDG_", "SLURM_", "SLURMD_", "SBATCH_", "SALLOC_", "OMPI_", "PMIX_", "PMI_", "TORCHELASTIC_")
# What Slurm sets in a task's environment that is not SLURM_*: "OUTPUT ENVIRONMENT
# VARIABLES" of srun(1) and sbatch(1) (https://slurm.schedmd.com/srun.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES,
# https://slurm.schedmd.com/sbatch.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES; Debian's 22.05
# man pages list the same). SLURMD_NODENAME is per node by design (a false drift warning on
# every allocation of more than one node); SLURM_NODEID, SLURM_PROCID, SLURM_LOCALID,
# SLURM_TOPOLOGY_ADDR, SLURM_STEP_*, SLURM_TASK_PID, SLURM_GTIDS, SLURM_LAUNCH_NODE_IPADDR
# and the rest of SLURM_* are covered by the prefix.
SLURM_OUTPUT_NAMES = {"SLURMD_NODENAME", "SRUN_DEBUG", "SBATCH_MEM_BIND", "SBATCH_MEM_BIND_LIST",
                      "SBATCH_MEM_BIND_PREFER", "SBATCH_MEM_BIND_TYPE", "SBATCH_MEM_BIND_VERBOSE"}
PER_NODE_NAMES = {"HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_", "MAIL", "MOTD_SHOWN", "TERM", "LOGNAME", "USER", "HOME",
                  "RANK", "LOCAL_RANK", "NODE_RANK", "GPUDOCTOR_NODE", "LS_COLORS", "SSH_TTY"} | SLURM_OUTPUT_NAMES
JOB_SHAPING = ("NCCL_", "CUDA_", "LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH", "UCX_", "FI_", "TORCH_")


def _table(section, key):
    v = section.get(key)
    return v if isinstance(v, dict) else {}


@check("env.parity", title="the job's environment (NCCL_*, CUDA_*, LD_LIBRARY_PATH, PYTHONPATH, python3) "
                           "is the same on every node", needs=("env",), scope="cluster")
def env_parity(nodes, config):
    compared = []
    identity = []  # per node by design: a distinct value on every node (see below)
    differ = False
    odd_all = set()
    names = set()
    for f in nodes.values():
        names |= {n for n in list(_table(f["env"], "values")) + list(_table(f["env"], "hashed")) if isinstance(n, str)}
    for name in sorted(names):
        if name.startswith(PER_NODE) or name in PER_NODE_NAMES:
            continue
        shown = any(name in _table(f["env"], "values") for f in nodes.values())
        values = {}
        for h, f in nodes.items():
            env = f["env"]
            v = _table(env, "values").get(name, _table(env, "hashed").get(name))
            if v is not None and not isinstance(v, str):  # untrusted node output: compare what it sent, as text
                v = bounded(v, 200)
            values[h] = "(unset)" if v is None else (v if shown else "value#" + v.split(":")[-1][:8])
        groups = group(values)
        if _identity(name, groups, values):
            identity.append(name)
            continue
        compared.append(name)
        if len(groups) < 2:
            continue
        differ = True
        base = groups[0]
        odd = [h for g in groups[1:] for h in g.hosts]
        odd_all.update(odd)
        sev = "error" if name.startswith("NCCL_") else "warning"
        exports = {}
        if shown and base.value != "(unset)":
            exports[name] = base.value
            fix = cmd("set it as on {base}, on {odd} (or in the launcher's environment file: .deepspeed_env, "
                      "mpirun -x {name})", base=fold(base.hosts), odd=fold(odd), name=name)
        elif shown:
            fix = cmd("unset {name} on {odd}, as on {base}", name=name, odd=fold(odd), base=fold(base.hosts))
        else:
            fix = cmd("{name} is not shown (not on the allow-list; compared by hash): make it the same on {odd}",
                      name=name, odd=fold(odd))
        yield Finding(severity=sev if name.startswith(JOB_SHAPING) or not shown else "warning",
                      message=describe(name, groups), observed="; ".join(g.show() for g in groups[1:]),
                      expected=str(base.value), fix=fix, exports=exports, hosts=odd)
    pys = {h: _text(f["python"].get("executable")) if isinstance(f.get("python"), dict)
           and f["python"].get("status") == "ok" else None for h, f in nodes.items()}
    pys = {h: v for h, v in pys.items() if v}
    groups = group(pys)
    if not differ and len(groups) <= 1:
        shaping = [n for n in compared if n.startswith(JOB_SHAPING)]
        # no job-shaping variable set anywhere: no empty "(0 job-shaping: )" (seen on the 4-node test Slurm)
        yield Pass("%d variables the same on every node (%s)%s%s" % (
            len(compared), "%d job-shaping: %s" % (len(shaping), ", ".join(shaping[:6]) + (
                ", ..." if len(shaping) > 6 else "")) if shaping else "none of them job-shaping",
            "; python3 is %s everywhere" % groups[0].value if groups else "", _identity_note(identity, nodes)))
    if len(groups) > 1:
        odd = [h for g in groups[1:] for h in g.hosts]
        odd_all.update(odd)
        yield Finding.warning(describe("the resolved python3", groups), hosts=odd,
                              fix="activate the same environment on every node (conda activate / source venv) "
                                  "or pass --python with the job's interpreter")
    if odd_all and [h for h in nodes if h not in odd_all]:
        yield Pass("%d variables compared; this node holds the majority's values%s" % (
            len(compared), _identity_note(identity, nodes)), hosts=[h for h in nodes if h not in odd_all])


def _identity(name, groups, values):
    """Whether a variable is a node's identity, not drift: a different value on every node of 3 or more, set on
    each (NODE_NAME=n1..n4 from sshd's SetEnv, a scheduler's or an image's own per-node name, as SLURMD_NODENAME
    is in PER_NODE_NAMES above). Against such a variable every node is the odd one, and the warning named one of
    them as an arbitrary "baseline". One node of many that differs stays drift (the others agree), and so does a
    job-shaping variable (NCCL_*, CUDA_*, ...: its value shapes the job on each node; nccl.env judges each node's)."""
    return len(values) >= 3 and len(groups) == len(values) and not name.startswith(JOB_SHAPING) and \
        all(v != "(unset)" for v in values.values())


def _identity_note(identity, nodes):
    if not identity:
        return ""
    return "; %s: a different value on each of the %d nodes, a per-node identity (as SLURMD_NODENAME), not " \
           "compared" % (", ".join(identity[:6]) + (", ..." if len(identity) > 6 else ""), len(nodes))


def _gpus(f):
    g = _sec(f, "gpu")
    if g is None:
        return None
    if isinstance(g, _Absent):
        return "0 GPUs (%s)" % ((f.get("gpu") or {}).get("reason") or "no NVIDIA driver"), 0
    gpus = g.get("gpus") if g.get("gpus") is not None else g.get("gpus_proc") or []
    if not isinstance(gpus, list) or not all(isinstance(x, dict) for x in gpus):
        return None  # untrusted node output: not GPU records
    names = sorted({_text(x.get("name")) or "?" for x in gpus})
    return "%d x %s" % (len(gpus), "+".join(names)) if gpus else "0 GPUs", len(gpus)


@check("gpu.parity", title="every node has the same GPU models and count, and as many GPUs as its slots",
       scope="cluster")
def gpu_parity(nodes, config):
    seen = {h: _gpus(f) for h, f in nodes.items()}
    failed = [h for h, v in seen.items() if v is None]
    if failed:  # the gpu section failed there: say so, never drop the node
        yield Skip("gpu facts failed on this node", hosts=failed)
    seen = {h: v for h, v in seen.items() if v is not None}
    if seen and not any(count for _, count in seen.values()) and all(
            (nodes[h].get("gpu") or {}).get("status") == "unsupported" for h in seen):
        yield NA("no node has an NVIDIA driver loaded: no GPUs to compare", hosts=list(seen))
        return
    groups = group({h: v[0] for h, v in seen.items()})
    bad = len(groups) > 1
    if bad:
        odd = [h for g in groups[1:] for h in g.hosts]
        yield Finding.error(describe("GPUs", groups), hosts=odd,
                            fix="check the odd nodes with nvidia-smi (a GPU fallen off the bus: Xid 79; a wrong "
                                "CUDA_VISIBLE_DEVICES), or list them with their real slots= in the hostfile")
    slots = getattr(config, "slots", None) or {}
    for h, (label, count) in sorted(seen.items()):
        want = slots.get(h)
        if want is not None and count < want:
            bad = True
            yield Finding.error("%s has %s but the hostfile gives it slots=%d" % (h, label, want), hosts=[h],
                                observed=label, expected="%d GPUs" % want,
                                fix=cmd("set {line} in the hostfile, or repair the node's missing GPUs",
                                        line="%s slots=%d" % (h, count)))
    if not bad and groups:
        yield Pass("%s on every node%s" % (groups[0].value, " (as many as their slots=)" if slots else ""))
    elif groups:  # the baseline nodes passed: say what they have
        yield Pass("%s, as the majority" % groups[0].value, hosts=groups[0].hosts)


def _is_loopback(addr):
    return addr.startswith("127.") or addr == "::1"


@check("hosts.resolution", title="every node resolves every node's name to the same, non-loopback address",
       needs=("resolve",), scope="cluster")
def hosts_resolution(nodes, config):
    names = sorted({n for f in nodes.values() for n in f["resolve"].get("names", {})})
    if not names:
        yield NA("no node names were resolved on the nodes")
        return
    bad_hosts = []
    unresolved = {}  # frozenset(hosts where it fails) -> [names]
    for name in names:
        values = {h: tuple((f["resolve"].get("names") or {}).get(name) or ()) for h, f in nodes.items()}
        loop = sorted(h for h, addrs in values.items() if any(_is_loopback(a) for a in addrs))
        missing = [h for h, addrs in values.items() if not addrs]
        if loop:
            bad_hosts.extend(loop)
            yield Finding.error("%s resolves to loopback (%s) on %s: rendezvous with MASTER_ADDR=%s will fail" % (
                name, ",".join(sorted({a for h in loop for a in values[h]})), fold(loop), name), hosts=loop,
                fix=cmd("in /etc/hosts on {loop}, map {name} to its real address (remove it from the "
                        "127.0.0.1/127.0.1.1 line), e.g.: <node-ip> {name}", loop=fold(loop), name=name))
        if missing:
            unresolved.setdefault(tuple(missing), []).append(name)
        good = {h: ",".join(v) for h, v in values.items() if v and h not in loop}
        groups = group(good)
        if len(groups) > 1:
            odd = [h for g in groups[1:] for h in g.hosts]
            bad_hosts.extend(odd)
            yield Finding.error(describe("the address of %s" % name, groups), hosts=odd,
                                fix=cmd("make /etc/hosts (or DNS) agree on every node: {name} is {addr} on {hosts}",
                                        name=name, addr=groups[0].value, hosts=fold(groups[0].hosts)))
    flagged = set(h for hs in unresolved for h in hs) | set(bad_hosts)
    rest = [h for h in nodes if h not in flagged]
    if rest:
        yield Pass("%d node names resolve to the same non-loopback addresses as on the other nodes" % len(names),
                   hosts=rest)
    for where, unnamed in unresolved.items():
        yield Finding.warning("%s do%s not resolve on %s" % (fold(unnamed), "es" if len(unnamed) == 1 else "",
                                                              fold(where)), hosts=list(where),
                              fix=cmd("add '<ip> <name>' lines for {names} to /etc/hosts on {where} (every node "
                                      "lists every node), or use IP addresses in the hostfile and MASTER_ADDR",
                                      names=fold(unnamed), where=fold(where)))


# a path in a home folder: /root/... or /home/USER/... (what a shell makes of ~/x typed on this machine)
_HOME_PATH = re.compile(r"(/root|/home/[^/]+)/(.+)\Z")


def _absent(e):
    """The value shown for a --same path a node could not hash: unreadable when the login user may not read it
    (EACCES's strerror: the file may well be there), else missing."""
    err = e.get("error")
    if err is None:  # (hashed nothing: no sha256)
        return "missing (no checksum)"
    return ("unreadable (%s)" if err == "Permission denied" else "missing (%s)") % err


def _is_absent(value):
    return value.startswith(("missing", "unreadable"))


def _other_home(p, nodes):
    """'~/rest' when ``p`` lies in a home folder that is no node's login home (facts ssh.home): a ~ the shell
    expanded on this machine (/root/train.py for root's ~/train.py) names this machine's home, not the nodes'."""
    m = _HOME_PATH.match(p)
    if not m:
        return None
    homes = {str((f.get("ssh") or {}).get("home") or "").rstrip("/") for f in nodes.values()}
    if "" in homes or m.group(1) in homes:  # a node's own home (or one not known): no other home to point at
        return None
    return "~/" + m.group(2)


@check("files.parity", title="the files named with --same are identical on every node", needs=("files",),
       scope="cluster")
def files_parity(nodes, config):
    paths = sorted({p for f in nodes.values() for p in f["files"].get("files", {})})
    if not paths:
        yield NA("no --same files were named")
        return
    same = []
    odd_hosts = set()
    for p in paths:
        values = {}
        for h, f in nodes.items():
            e = f["files"]["files"].get(p) or {"error": "not collected on this node"}
            values[h] = _absent(e) if "error" in e or "sha256" not in e else \
                "sha256 %s, %s bytes" % (str(e["sha256"])[:12], e.get("size"))
        groups = group(values)
        if len(groups) == 1 and _is_absent(groups[0].value):
            # the same absence everywhere is no evidence that the job's file is identical: the job
            # cannot read it on any node (a relative path is read in each node's login folder)
            odd_hosts.update(groups[0].hosts)
            other = _other_home(p, {h: nodes[h] for h in groups[0].hosts})
            if other:  # `--same ~/train.py` typed in bash as root: every node was asked for /root/train.py
                fix = cmd("{p} is in a home folder that is none of the nodes' login homes ({homes}): a ~ your shell "
                          "expanded names this machine's home; quote it, --same {q}, and each node reads its own",
                          p=p, q=other, homes=fold(sorted({str(nodes[h]["ssh"]["home"]) for h in groups[0].hosts})))
            elif groups[0].value.startswith("unreadable"):
                fix = cmd("the nodes' login user cannot read {p}: give it read access (its folders need x), or name "
                          "a copy that user can read", p=p)
            else:
                fix = cmd("copy {p} to every node" if p.startswith("/") else
                          "copy {p} to every node, or name it by its absolute path (a relative path is read from "
                          "the login folder, $HOME, of each node)", p=p)
            yield Finding.error("%s is %s on every node (%s)" % (p, groups[0].value, fold(groups[0].hosts)),
                                hosts=groups[0].hosts, fix=fix)
            continue
        if len(groups) == 1:
            same.append("%s (%s)" % (p, groups[0].value))
        if len(groups) > 1:
            odd = [h for g in groups[1:] for h in g.hosts]
            odd_hosts.update(odd)
            yield Finding.error(describe(p, groups), hosts=odd,
                                fix=cmd("copy it from a baseline node: pdcp -w {odd} -- {p} {p}  "
                                        "(or rsync -a -- {src} {p})", odd=fold(odd), p=home_path(p),
                                        src="%s:%s" % (groups[0].hosts[0], p))
                                if not _is_absent(groups[0].value)
                                else cmd("the baseline nodes lack it: copy {p} to every node", p=p))
    if same and len(same) == len(paths):
        yield Pass("identical on every node: " + "; ".join(same))
    elif odd_hosts and any(h not in odd_hosts for h in nodes):  # hosts=[] would read as every node
        yield Pass("all %d file%s as on the majority of nodes" % (len(paths), "" if len(paths) == 1 else "s"),
                   hosts=[h for h in nodes if h not in odd_hosts])


# OpenSSH's client messages (openssh-portable ssh.c: "Could not resolve hostname %s: %s";
# sshconnect.c: "connect to host %s port %s: %s" with strerror's Connection refused / timed out /
# No route to host): a peer that does not resolve or answer is not fixed by installing keys
_MESH_RESOLVE = "could not resolve hostname"
_MESH_NETWORK = ("connection refused", "connection timed out", "no route to host", "network is unreachable")
_MESH_KEYS_FIX = ("on each failing source node: ssh-keygen -t ed25519 (if no key), then ssh-copy-id <peer> for each "
                  "failing peer; check ~/.ssh modes on the peers (gpudoctor check --select ssh)")


def _mesh_fix(errors):
    low = [str(e).lower() for e in errors]
    fixes = []
    if any(_MESH_RESOLVE in e for e in low):
        fixes.append("the peers' names do not resolve on the source nodes: add every node to /etc/hosts on every "
                     "node (or DNS), as the hostfile names them (gpudoctor check --select hosts.resolution)")
    if any(any(n in e for n in _MESH_NETWORK) for e in low):
        fixes.append("sshd does not answer on the peers from the source nodes: start it (systemctl enable --now "
                     "ssh) and open port 22 between the nodes")
    if any(not (_MESH_RESOLVE in e or any(n in e for n in _MESH_NETWORK)) for e in low):
        fixes.append(_MESH_KEYS_FIX)
    return "; ".join(fixes)


@check("ssh.mesh", title="every node reaches every other node over SSH without a password (pdsh, deepspeed, mpirun)",
       needs=("mesh",), scope="cluster")
def ssh_mesh(nodes, config):
    failing = []
    for h, f in sorted(nodes.items()):
        for peer, r in sorted(f["mesh"].get("peers", {}).items()):
            if not r.get("ok"):
                failing.append((h, peer, r.get("error") or "failed"))
    tried = [h for h, f in nodes.items() if f["mesh"].get("peers")]
    if not tried:
        yield NA("no node-to-node ssh was tried")
        return
    untried = [h for h in nodes if h not in tried]
    if untried:  # nothing was tried from these: never a pass for them
        yield Skip("no ssh to the other nodes was tried from this node", hosts=untried)
    if not failing:
        pairs_ok = sum(1 for h in tried for r in nodes[h]["mesh"]["peers"].values() if r.get("ok"))
        yield Pass("%d node pairs ssh to each other non-interactively" % pairs_ok, hosts=tried)
    if failing:
        # pairs that fail for the same reason are listed once under it (the peer's own name in the reason read as
        # <peer>): 12 pairs of 4 nodes whose names do not resolve were 12 copies of "ssh: Could not resolve hostname
        # gpu02: Name or service not known" (userwalk22)
        reasons = {}
        for a, b, e in failing:
            key = re.sub(r"(?<![\w.-])%s(?![\w.-])" % re.escape(b), "<peer>", str(e)) if b else str(e)
            reasons.setdefault(key, []).append("%s->%s" % (a, b))
        parts, shown = [], 0
        for key, pairs in reasons.items():  # (in the order of their first pair)
            take = pairs[:max(0, 20 - shown)]
            if not take:
                break
            shown += len(take)
            parts.append("%s (%s)" % (", ".join(take), key))
        more = " and %d more" % (len(failing) - shown) if len(failing) > shown else ""
        total = sum(len(nodes[h]["mesh"]["peers"]) for h in tried)
        sources = sorted({a for a, _, _ in failing})
        yield Finding.error("%d of %d node pairs cannot ssh non-interactively: %s%s" % (
            len(failing), total, "; ".join(parts), more), hosts=sources, fix=_mesh_fix([e for _, _, e in failing]))
        ok_sources = [h for h in tried if h not in sources]
        if ok_sources:
            yield Pass("reaches every peer over ssh", hosts=ok_sources)
