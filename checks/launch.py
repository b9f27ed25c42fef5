"""The launch plan (gpudoctor/launch/: read as the launcher reads it) judged against the
nodes' facts before the job starts: counts, the master, precision, DeepSpeed's batch
arithmetic, the environment mpirun forwards, the files every node needs, and the rendezvous
port (the failures users report: accelerate + DeepSpeed over pdsh, mpirun -x). With no plan
every check is n/a, never a pass; a pass names what was judged ("world size 16 = 2 nodes x 8")."""

import re

from gpudoctor.drift import describe, group
from gpudoctor.fixline import home_path
from gpudoctor.nodes import fold
from gpudoctor.registry import NA, Finding, Literal, Pass, Skip, Verdict, check, cmd, sh


def _sources(plan):
    """The plan's files, each one quoted word (they come from the command line and configs)."""
    return Literal("; ".join(sh(x) for x in plan.sources))


JOB_ENV = re.compile(r"^(NCCL_\w+|UCX_\w+|LD_LIBRARY_PATH|PYTHONPATH)$")


def _plan(config):
    return getattr(config, "launch", None)


def _no_plan(config, why="no launch plan given"):
    if getattr(config, "launch_refused", None):
        return "the launcher would refuse the launch line (launch.accepted)"
    return why


def _each_node_judged(found, nodes):
    """What a cluster check's body yields, then, where its findings name some nodes only, a verdict for each node
    none of them named: the body's return value, ``rest(host)``, gives it (a Pass with what held there, or a Skip
    with why it was not judged). Such a node read 'skipped: the check reported neither a problem nor its evidence
    (a bug in the check)' beside the nodes that failed (userwalk22: the master of a rendezvous whose peers could not
    resolve it)."""
    named, every, rest = set(), False, None
    while True:
        try:
            item = next(found)
        except StopIteration as stop:
            rest = stop.value
            break
        if item.hosts:
            named.update(item.hosts)
        else:
            every = True
        yield item
    if rest is not None and not every:
        for h in sorted(nodes):
            if h not in named:
                v = rest(h)
                if v is not None:
                    yield Verdict(v.status, v.text, (h,))  # this node's alone


@check("launch.accepted", title="the launcher accepts the launch line and its configs (flags, counts, hostfile)")
def launch_accepted(facts, config):
    """`check --launch` with a line the launcher would refuse: the launcher's own message as
    a finding, beside every other check (gpudoctor/commands/check.py launch_plan)."""
    refused = getattr(config, "launch_refused", None)
    if refused:
        yield Finding.error(refused, observed="the launcher refuses the line",
                            expected="a line the launcher starts",
                            fix="correct the line as the message says; gpudoctor plan -- <the line> prints how the "
                                "launcher reads it (docs/launch.md)")
        return
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config, "no launch plan given (--launch, --accelerate-config)"))
        return
    for text in getattr(plan, "script_findings", None) or ():
        # what the launch script does wrong although the launcher accepts the line
        # (gpudoctor/launch/script.py: a rank expanded once by the batch shell, ...)
        yield Finding.error(text, fix="see docs/launch.md (Launch scripts); gpudoctor plan <the script> shows "
                                      "how each value is expanded")
    ws = plan.world_size()
    counted = _counted_here(plan)
    if ws is None and counted:
        gpus = _gpus(facts)
        if gpus is not None:
            # the launcher counts this node's devices when it starts (DeepSpeed without a
            # hostfile: runner.py's local resources; torchrun --nproc-per-node gpu; accelerate
            # without --num_processes: torch.cuda.device_count())
            yield Finding.info("%s: %d GPU%s here, so %d process%s per node" % (
                counted, len(gpus), "" if len(gpus) == 1 else "s", len(gpus), "" if len(gpus) == 1 else "es"))
            if plan.nnodes_max == 1 or (plan.nnodes_max is None and len(plan.nodes) == 1):
                ws = "%d (this node's GPUs)" % len(gpus)
    if not getattr(plan, "script_findings", None):
        yield Pass("%s reads %s: world size %s" % (plan.launcher or "the launcher",
                                                  " and ".join(plan.sources) or "the plan",
                                                  ws if ws is not None else "known at run time"))


def _counted_here(plan):
    """Why the processes per node are the node's own device count, or None."""
    if plan.launcher == "deepspeed" and plan.nodes and all(n.host == "localhost" and n.procs is None
                                                           for n in plan.nodes):
        return "DeepSpeed without a hostfile runs on the local GPUs (unless /job/hostfile exists where it is " \
               "launched)"
    if plan.launcher in ("torchrun", "torch.distributed.launch") and plan.nproc_per_node is None and any(
            "counts the devices on each node" in n for n in plan.notes):
        return "torchrun --nproc-per-node counts the devices on each node"
    if plan.launcher == "accelerate" and any("accelerate uses this machine's GPU count" in n for n in plan.notes):
        return "accelerate without --num_processes starts one process per GPU of the machine"
    return None


def _gpus(f):
    g = f.get("gpu") or {}
    if g.get("status") != "ok":
        return None
    gpus = g.get("gpus") if g.get("gpus") is not None else (g.get("gpus_proc") or [])
    return gpus


def _cc(cc):
    m = re.match(r"^(\d+)\.(\d+)$", str(cc or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def _loopback(addr):
    return addr in ("localhost", "::1", "ip6-localhost") or addr.startswith("127.")


@check("launch.counts", title="the plan's node, process and slot counts match the nodes and their GPUs",
       scope="cluster")
def launch_counts(nodes, config):
    return _each_node_judged(_launch_counts(nodes, config), nodes)


def _launch_counts(nodes, config):
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config, "no launch plan given (--launch, --accelerate-config)"))
        return
    n = len(nodes)
    gpus = {h: len(g) for h, g in ((h, _gpus(f)) for h, f in nodes.items()) if g is not None}
    total = sum(gpus.values()) if len(gpus) == n else None
    bad = False
    lo, hi = plan.nnodes_min, plan.nnodes_max
    if lo is not None and not lo <= n <= (hi if hi is not None else lo):
        key = {"accelerate": "num_machines", "deepspeed": "the hostfile and --num_nodes"}.get(
            plan.launcher, "the host list" if plan.nodes else "--nnodes")
        want = str(lo) if lo == hi else "%s to %s" % (lo, hi)
        bad = True
        yield Finding.error("%s asks for %s nodes; %d are being checked (%s)" % (key, want, n, fold(sorted(nodes))),
                            observed="%d nodes" % n, expected="%s nodes" % want,
                            fix=cmd("set {key} to {n} in {src}, or check the same nodes the job runs on (--hosts)",
                                    key=Literal(key), n=n, src=_sources(plan)))
    for node in plan.nodes:
        have = gpus.get(node.host)
        if have is None:
            continue
        procs = node.procs if node.procs is not None else node.slots
        if procs is not None and procs > have:
            bad = True
            yield Finding.error("%s starts %d processes on %s but it has %d GPUs" % (
                plan.nodes_source or plan.launcher, procs, node.host, have), hosts=[node.host],
                fix=cmd("give {host} {n} slots, or repair its missing GPUs (nvidia-smi)", host=node.host, n=have))
    idle = [(nd.host, nd.slots - (nd.procs or 0)) for nd in plan.nodes
            if nd.slots is not None and nd.procs is not None and nd.procs < nd.slots]
    if idle and plan.launcher in ("mpirun", "mpiexec", "mpiexec.hydra", "horovodrun"):
        # Open MPI's own man page runs -np 6 over 12 slots: fewer processes than slots is a
        # choice, not an error; the GPUs behind the spare slots sit idle
        yield Finding.warning("%s: %d slot%s left without a process (%s): those GPUs sit idle" % (
            plan.nodes_source, sum(c for _h, c in idle), "" if sum(c for _h, c in idle) == 1 else "s",
            ", ".join("%s: %d" % x for x in idle)), hosts=[h for h, _c in idle if h in nodes],
            fix=cmd("raise -np to {n} to use every slot, or give the hosts fewer slots", n=sum(
                nd.slots for nd in plan.nodes if nd.slots is not None)))
    missing = sorted(nd.host for nd in plan.nodes if nd.procs != 0 and nd.host not in nodes
                     and nd.host not in ("localhost", "127.0.0.1"))
    if missing:
        yield Finding.warning("%s names %s, which %s not among the checked nodes (%s)"
                              % (plan.nodes_source, fold(missing), "is" if len(missing) == 1 else "are",
                                 fold(sorted(nodes))),
                              fix="check the nodes the job will use: gpudoctor check --hosts <the same hostfile>")
    if plan.nproc_per_node is not None and gpus and not plan.nodes:
        few = sorted(h for h, c in gpus.items() if c < plan.nproc_per_node)
        if few:
            bad = True
            yield Finding.error("%s processes per node but %s %s fewer GPUs (%s)" % (
                plan.nproc_per_node, fold(few), "has" if len(few) == 1 else "have",
                ", ".join("%s: %d" % (h, gpus[h]) for h in few)), hosts=few,
                fix=cmd("lower --nproc_per_node/--num_gpus to {n}, or leave those nodes out",
                        n=min(gpus[h] for h in few)))
    ws = plan.world_size()
    if plan.launcher == "accelerate" and ws is not None and not plan.nodes:
        if plan.nnodes_min and ws % plan.nnodes_min:
            bad = True
            yield Finding.error("num_processes=%d is not a multiple of num_machines=%d" % (ws, plan.nnodes_min),
                                fix="num_processes is the total over all machines: set it to num_machines x GPUs "
                                    "per machine")
        if total is not None and ws > total:
            bad = True
            yield Finding.error("num_processes=%d but the %d nodes have %d GPUs in all" % (ws, n, total),
                                observed="%d GPUs" % total, expected="%d GPUs" % ws,
                                fix=cmd("set num_processes: {n} in {src} (num_processes counts every machine's GPUs)",
                                        n=total, src=_sources(plan)))
        elif total is not None and ws < total:
            yield Finding.warning("num_processes=%d leaves %d of the %d GPUs idle" % (ws, total - ws, total),
                                  fix=cmd("set num_processes: {n} in {src} to use every GPU", n=total,
                                          src=_sources(plan)))
    if not bad:
        per = plan.nproc_per_node
        if ws is not None and plan.nnodes_min and per:
            ev = "world size %d = %d node%s x %d" % (ws, plan.nnodes_min, "" if plan.nnodes_min == 1 else "s", per)
        elif ws is not None:
            ev = "world size %d (%s)" % (ws, ", ".join("%s: %s" % (nd.host, nd.procs) for nd in plan.nodes
                                                       if nd.procs) or plan.launcher)
        else:
            ev = "%s nodes planned" % (lo if lo == hi else "%s to %s" % (lo, hi))
        yield Pass("%s; %d node%s checked%s" % (ev, n, "" if n == 1 else "s",
                                                ", %d GPUs" % total if total is not None else ""))
    planned = dict((nd.host, nd.procs if nd.procs is not None else nd.slots) for nd in plan.nodes)

    def rest(h):  # a node no finding named (another node has too few GPUs)
        if gpus.get(h) is None:
            return Skip("no GPU facts from this node: its processes not judged against its GPUs")
        procs = planned.get(h) if plan.nodes else plan.nproc_per_node
        if procs is None:
            # nothing to judge: a pass here said the node's processes fit when the plan says nothing of them
            return NA("the plan names no process count for this node (%d GPUs)" % gpus[h])
        return Pass("%d processes planned on its %d GPUs" % (procs, gpus[h]))
    return rest


def _iface_addrs(facts):
    """The node's interface addresses: the collector records ipv4 as [{"address": ...}] (node
    output: records of any other shape are left out)."""
    out = set()
    net = facts.get("network") or {}
    for i in net.get("interfaces") or () if isinstance(net.get("interfaces"), list) else ():
        for a in (i.get("ipv4") or ()) if isinstance(i, dict) and isinstance(i.get("ipv4"), list) else ():
            addr = a.get("address") if isinstance(a, dict) else a
            if isinstance(addr, str):
                out.add(addr)
    return out


@check("launch.master", title="the master address is one of the nodes, not loopback, and resolves the same on "
                              "every node", scope="cluster")
def launch_master(nodes, config):
    return _each_node_judged(_launch_master(nodes, config), nodes)


def _launch_master(nodes, config):
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config))
        return
    if not plan.master_addr:
        yield NA("the %s plan names no master address (it is chosen at run time)" % plan.launcher)
        return
    name = plan.master_addr
    found = []
    if _loopback(name):
        yield Finding.error("the master address is %s (loopback): ranks on other nodes cannot reach it" % name,
                            fix="set main_process_ip / --master_addr / MASTER_ADDR to the master node's real address "
                                "(ip -4 addr on it), e.g. " + cmd("{h}", h=sorted(nodes)[0]))
        return
    res = {h: (f.get("resolve") or {}).get("names", {}).get(name) for h, f in nodes.items()
           if (f.get("resolve") or {}).get("status") == "ok"}
    res = {h: v for h, v in res.items() if v is not None}
    if res:
        bad = sorted(h for h, v in res.items() if not v)
        if bad:
            yield Finding.error("the master %s does not resolve on %s" % (name, fold(bad)), hosts=bad,
                                fix=cmd("add {line} to /etc/hosts on {bad}, or use the master's IP address",
                                        line="<master-ip> %s" % name, bad=fold(bad)))
        found.extend(bad)
        loop = sorted(h for h, v in res.items() if any(_loopback(a) for a in v))
        found.extend(loop)
        if loop:
            yield Finding.error("the master %s resolves to loopback on %s: the rendezvous binds or connects to "
                                "127.x there" % (name, fold(loop)), hosts=loop,
                                fix=cmd("in /etc/hosts on {loop}, map {name} to its real address, not "
                                        "127.0.0.1/127.0.1.1", loop=fold(loop), name=name))
        groups = group({h: ",".join(v) for h, v in res.items() if v and h not in loop})
        if len(groups) > 1:
            odd = [h for g in groups[1:] for h in g.hosts]
            found.extend(odd)
            yield Finding.error(describe("the master %s" % name, groups), hosts=odd,
                                fix=cmd("make /etc/hosts or DNS agree: {name} is {addr} on {hosts}", name=name,
                                        addr=groups[0].value, hosts=fold(groups[0].hosts)))
    # one of the nodes: by name, by the address a node name resolves to, or by an interface address
    addrs = {name} | {a for v in res.values() for a in v}
    known = set(nodes)
    for f in nodes.values():
        for host, v in ((f.get("resolve") or {}).get("names") or {}).items():
            if host in nodes:  # what the nodes' own names resolve to
                known.update(v or [])
    owners = [h for h, f in nodes.items() if _iface_addrs(f) & addrs]
    if name not in known and not (addrs & known) and not owners:
        found.append(name)
        yield Finding.error("the master %s is not one of the checked nodes (%s)" % (name, fold(sorted(nodes))),
                            fix="set the master to the node that runs rank 0 (machine_rank: 0), e.g. "
                                "main_process_ip: " + cmd("<address of {h}>", h=sorted(nodes)[0]))
    if not found:
        yield Pass("master %s:%s is %s, resolves the same on %d node%s" % (
            name, plan.master_port, (owners or [h for h in sorted(nodes) if h == name] or ["one of the nodes"])[0],
            len(res), "" if len(res) == 1 else "s"))

    def rest(h):  # a node no finding named (the master resolves wrong on another)
        if not res.get(h):
            return Skip("the master's name was not resolved on this node (no resolve facts)")
        return Pass("the master %s resolves to %s here" % (name, ",".join(res[h])))
    return rest


@check("launch.precision", title="bf16 is asked for only on GPUs of compute capability 8.0 or newer, and never "
                                 "together with fp16", needs=("gpu",))
def launch_precision(facts, config):
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config))
        return
    bad = False
    if plan.ds_bf16 and plan.ds_fp16:
        bad = True
        yield Finding.error("the DeepSpeed config %s enables both bf16 and fp16" % plan.ds_config,
                            fix="enable one: \"bf16\": {\"enabled\": true} and \"fp16\": {\"enabled\": false} "
                                "(bf16 needs compute capability >= 8.0)")
    elif (plan.mixed_precision == "fp16" and plan.ds_bf16) or (plan.mixed_precision == "bf16" and plan.ds_fp16):
        bad = True
        yield Finding.error("accelerate mixed_precision=%s but the DeepSpeed config %s enables %s" % (
            plan.mixed_precision, plan.ds_config, "bf16" if plan.ds_bf16 else "fp16"),
            fix="make them agree: mixed_precision and the DeepSpeed bf16/fp16 \"enabled\" flags")
    wants = []
    if plan.mixed_precision == "bf16":
        wants.append("mixed_precision: bf16")
    if plan.ds_bf16:
        wants.append("DeepSpeed bf16.enabled")
    if plan.precision == "bf16" and not wants:
        wants.append("--bf16")
    if not wants:
        if not bad:
            if plan.precision in (None,):
                yield NA("the plan does not say its precision")
            else:
                yield Pass("the plan trains in %s: no bf16 asked for" % plan.precision)
        return
    old = [g for g in (_gpus(facts) or []) if _cc(g.get("compute_capability")) and
           _cc(g.get("compute_capability")) < (8, 0)]
    if old:
        names = sorted({"%s (cc %s)" % (g.get("name"), g.get("compute_capability")) for g in old})
        yield Finding.error("%s asks for bf16 but %d GPU%s here %s below compute capability 8.0: %s"
                            % (" and ".join(wants), len(old), "" if len(old) == 1 else "s",
                               "is" if len(old) == 1 else "are", ", ".join(names)),
                            observed=", ".join(names), expected="compute capability >= 8.0 (A100, H100, L40, RTX 30xx)",
                            fix="train in fp16 on these GPUs: mixed_precision: fp16 and \"fp16\": {\"enabled\": true}, "
                                "\"bf16\": {\"enabled\": false}; or leave the pre-Ampere nodes out")
    elif not bad:
        gpus = _gpus(facts) or []
        unread = [g for g in gpus if not _cc(g.get("compute_capability"))]
        ccs = sorted({str(g.get("compute_capability")) for g in gpus if g not in unread})
        if unread:  # a GPU listed from /proc, or a value that is not X.Y: never passed unjudged
            yield Skip("%s, but the compute capability of %d GPU%s here could not be read" % (
                " and ".join(wants), len(unread), "" if len(unread) == 1 else "s"))
        elif ccs:
            yield Pass("%s; GPUs here have compute capability %s >= 8.0" % (" and ".join(wants), ", ".join(ccs)))
        else:
            yield NA("%s, but no GPU here to judge" % " and ".join(wants))


@check("launch.batch", title="DeepSpeed train_batch_size = micro batch x gradient accumulation x world size")
def launch_batch(facts, config):
    """Judged as DeepSpeedConfig does (gpudoctor/launch/configs.py ds_batch): missing values
    derived, then train == micro x accumulation x world size and all > 0."""
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config))
        return
    if plan.ds_config is None:
        yield NA("no DeepSpeed config in the launch plan")
        return
    b = plan.batch
    if b.ok is None:
        yield NA("not judged: %s" % ("a value is \"auto\" (the HF Trainer fills it in)"
                                     if any("auto" in n for n in plan.notes) else "the world size is not known"))
        return
    ws = plan.world_size()
    if not b.ok:
        yield Finding.error("%s at world size %d: %s (DeepSpeed refuses to start)" % (plan.ds_config, ws, b.error),
                            fix=cmd("make train_batch_size = train_micro_batch_size_per_gpu x "
                                    "gradient_accumulation_steps x {ws} in {path}, or leave one of them out and "
                                    "DeepSpeed derives it", ws=ws, path=plan.ds_config))
        return
    yield Pass("train_batch_size %s = micro %s x accumulation %s x world size %d" % (
        b.train_batch_size, b.micro_batch_per_gpu, b.gradient_accumulation_steps, ws))


@check("launch.env", title="the job's NCCL_*, LD_LIBRARY_PATH, PATH and PYTHONPATH reach every rank (mpirun -x, "
                            "DeepSpeed's pdsh exports)",
       needs=("env",), scope="cluster")
def launch_env(nodes, config):
    return _each_node_judged(_launch_env(nodes, config), nodes)


def _launch_env(nodes, config):
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config))
        return
    if plan.launcher == "deepspeed":
        rest = yield from _deepspeed_env(nodes, plan)
        return rest
    if plan.launcher not in ("mpirun", "mpiexec", "mpiexec.hydra", "horovodrun") or plan.forwarded is None:
        yield NA("%s carries the launching environment itself (no -x list to judge)" % plan.launcher)
        return
    fwd = set(plan.forwarded)
    found = False
    names = set()
    for f in nodes.values():
        env = f["env"]
        names.update(k for k in list((env.get("values") or {})) + list((env.get("hashed") or {})) if JOB_ENV.match(k))
    launch_env = {k: v for k, v in plan.env_set.items() if v != "<redacted>"}
    names.update(k for k in launch_env if JOB_ENV.match(k))
    for name in sorted(names - fwd):
        local = launch_env.get(name)
        values = {h: (f["env"].get("values") or {}).get(name, (f["env"].get("hashed") or {}).get(name))
                  for h, f in nodes.items()}
        unset = sorted(h for h, v in values.items() if v is None)
        differs = sorted(h for h, v in values.items() if v is not None and local is not None and v != local)
        if local is not None and (unset or differs):
            odd = unset + differs
            found = True
            yield Finding.warning("%s=%s is set where you launch but mpirun does not forward it: the ranks on %s "
                                  "see %s" % (name, local, fold(odd), "it unset" if not differs else "another value"),
                                  hosts=odd, fix=cmd("add -x {name} to the mpirun line", name=name))
        elif local is None and unset and len(unset) < len(values):
            odd = unset
            found = True
            yield Finding.warning("%s is set on %s but not on %s, and mpirun does not forward it" % (
                name, fold(sorted(set(values) - set(unset))), fold(odd)), hosts=odd,
                fix=cmd("export {name} where you launch and add -x {name} to the mpirun line", name=name))
    if not found:
        yield Pass("every job variable set on the nodes or the line is forwarded or the same everywhere (-x %s)"
                   % (",".join(sorted(fwd)) or "none"))
    return lambda h: Pass("the job variables reach the ranks here: %swith the launching value"
                          % ("forwarded (-x %s) or " % ",".join(sorted(fwd)) if fwd else ""))


def _deepspeed_env(nodes, plan):
    """DeepSpeed's pdsh runner starts every rank over ssh with only what it exports
    (gpudoctor/launch/deepspeed.py _remote_env, from runner.py main() and PDSHRunner.get_cmd):
    a variable the ranks read that is set where you launch, not exported, and unset or
    different in a node's own non-interactive shell (its facts) is one the ranks there miss."""
    if plan.carried is None:
        backend = next((n.rsplit(" ", 1)[-1] for n in plan.notes
                        if n.startswith("DeepSpeed starts the remote ranks through its --launcher ")), None)
        if backend is None:
            yield NA("DeepSpeed runs on this machine only: its ranks inherit the launching environment")
        else:
            yield NA("DeepSpeed's --launcher %s: only the pdsh runner's exports are judged" % backend)
        return
    found, same = False, []
    for name in sorted(n for n in plan.env_launching if n not in plan.carried):
        local = plan.env_launching[name]
        values = {h: (f["env"].get("values") or {}).get(name) for h, f in nodes.items()}
        unset = sorted(h for h, v in values.items() if v is None)
        differs = sorted(h for h, v in values.items() if v is not None and v != local)
        if not unset and not differs:
            same.append(name)
            continue
        found = True
        odd = unset + differs
        seen = sorted({values[h] for h in differs})
        where = "; ".join(x for x in (
            "on %s see it unset" % fold(unset) if unset else "",
            "on %s see %s" % (fold(differs), "%s=%s" % (name, sh(seen[0])) if len(seen) == 1 else "other values")
            if differs else "") if x)
        target = plan.env_files[-1] if plan.env_files else "~/.deepspeed_env"
        if "\n" in local or "\r" in local:
            fix = "a .deepspeed_env line cannot hold this value (a line break): set it in a script and give " \
                  "deepspeed --venv_script <script> (sourced on every node first)"
        else:
            # runner.py reads `NAME=value` and PDSHRunner writes `export NAME="value";`: the remote
            # shell expands $, ` and \ inside the double quotes
            fix = cmd("printf '%s\\n' {line} >> {file}", line="%s=%s" % (name, local),
                      file=Literal("~/" + sh(target[2:])) if target.startswith("~/") else target)
            if any(c in local for c in '"$`\\'):
                fix += "   (the remote shell reads the value inside double quotes: escape $ ` \" \\ in the line)"
        yield Finding.warning("%s=%s is set where you launch, but DeepSpeed's pdsh runner does not export it "
                              "(only NCCL*, PYTHON*, UCX*, MLFLOW*, MV2* and the lines of .deepspeed_env): the ranks "
                              "%s" % (name, sh(local), where), hosts=[h for h in odd if h in nodes], fix=fix)
    if not found:
        how = ", ".join("%s (%s)" % (n, plan.carried[n]) for n in sorted(plan.env_launching) if n in plan.carried)
        yield Pass("DeepSpeed's pdsh runner exports %s%s" % (
            how or "PYTHONPATH (runner.py sets it to the launching directory)",
            "; not exported but the same on every node: %s" % ", ".join(same) if same else ""))
    return lambda h: Pass("the variables set where you launch reach the ranks here: exported by DeepSpeed's pdsh "
                          "runner or with the launching value")


@check("launch.files", title="the plan's configs and training script exist on every node, identical",
       needs=("files",), scope="cluster")
def launch_files(nodes, config):
    return _each_node_judged(_launch_files(nodes, config), nodes)


def _launch_files(nodes, config):
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config))
        return
    judged, found = 0, False
    reported = set()
    for p in plan.files:
        values = {}
        for h, f in nodes.items():
            e = (f["files"].get("files") or {}).get(p)
            if e is None:
                continue
            values[h] = "missing" if "error" in e else "sha256 %s" % e["sha256"][:12]
            reported.add(h)
        if not values:
            continue
        judged += 1
        missing = sorted(h for h, v in values.items() if v == "missing")
        if missing:
            found = True
            have = sorted(h for h, v in values.items() if v != "missing")
            yield Finding.error("%s, named by the launch plan, is missing on %s" % (p, fold(missing)), hosts=missing,
                                fix=cmd("copy it there: pdcp -w {hosts} -- {p} {p} (or rsync -a -- {src} {p}); code, "
                                        "configs and data are not synced by the launcher", hosts=fold(missing),
                                        p=home_path(p),
                                        src="%s:%s" % (have[0], p))
                                if have else cmd("create {p} on every node (the launch plan names it)", p=p))
        groups = group({h: v for h, v in values.items() if v != "missing"})
        if len(groups) > 1:
            found = True
            odd = [h for g in groups[1:] for h in g.hosts]
            yield Finding.error(describe(p, groups), hosts=odd,
                                # (userwalk22: pdcp copies from the machine it runs on, which need not hold the
                                # baseline copy; the rsync form names a baseline node, as files.parity's fix does)
                                fix=cmd("copy it from a baseline node: pdcp -w {hosts} -- {p} {p}  (or rsync -a -- "
                                        "{src} {p})", hosts=fold(odd), p=home_path(p),
                                        src="%s:%s" % (groups[0].hosts[0], p)))
    if not judged:
        yield NA("the nodes reported none of the plan's %d file%s" % (len(plan.files), "" if len(plan.files) == 1
                                                                         else "s"))
    elif not found:
        yield Pass("%d file%s of the plan identical on %d nodes" % (judged, "" if judged == 1 else "s", len(nodes)))

    def rest(h):  # a node no finding named (the file is missing or differs on another)
        if h not in reported:
            return Skip("this node reported none of the plan's files")
        return Pass("the plan's files are here, the same as on the baseline nodes")
    return rest


@check("launch.port", title="the master port is fixed, not sshd's, unprivileged and outside the kernel's ephemeral "
                            "range")
def launch_port(facts, config):
    """gpudoctor/launch/ports.py with this node's values: the uid the collector ran as (the
    job's user), its ip_unprivileged_port_start and ip_local_port_range."""
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config))
        return
    # after the plan: without one (the prolog tier), the launch package's imports are not paid
    from gpudoctor.launch.ports import DEFAULT_EPHEMERAL, port_problems

    if plan.master_port is None and plan.port_asked is None:
        yield NA("the %s plan names no master port" % (plan.launcher or "configs-only"))
        return
    host = facts.get("host") if isinstance(facts.get("host"), dict) else {}
    net = facts.get("network") if isinstance(facts.get("network"), dict) else {}
    uid = host.get("uid") if isinstance(host.get("uid"), int) and not isinstance(host.get("uid"), bool) else None
    rng = net.get("ip_local_port_range")
    rng = tuple(rng) if (isinstance(rng, list) and len(rng) == 2 and all(isinstance(x, int) for x in rng)
                         and 0 < rng[0] <= rng[1] < 65536) else None
    unpriv = net.get("ip_unprivileged_port_start")
    unpriv = unpriv if isinstance(unpriv, int) and not isinstance(unpriv, bool) and 0 <= unpriv < 65536 else None
    found = port_problems(plan, uid=uid, unprivileged=unpriv, ephemeral=rng, where=" here")
    for sev, text, fix in found:
        yield (Finding.error if sev == "error" else Finding.warning)(text, fix=fix)
    if not found and plan.master_port is None:
        yield Pass("master port 0: picked at run time on the one node of the plan")
    elif not found:
        lo, _hi = rng or DEFAULT_EPHEMERAL
        yield Pass("master port %s: fixed, not sshd's 22, %s, below the ephemeral range starting at %d%s" % (
            plan.master_port, "uid 0 may bind any port" if uid == 0 else "unprivileged",
            lo, " here" if rng else " (Linux's default)"))


@check("launch.rendezvous", title="the master port is free on the master node and reachable from every other node",
       needs=("rendezvous",), scope="cluster")
def launch_rendezvous(nodes, config):
    plan = _plan(config)
    if plan is None:
        yield NA(_no_plan(config))
        return
    masters = {h: f["rendezvous"] for h, f in nodes.items() if f["rendezvous"].get("role") == "master"}
    if not masters:
        yield NA("no node was probed as the master (the master is not among the reachable nodes)")
        return
    (master, m), = sorted(masters.items())[:1]
    port = m.get("port")
    if not m.get("bind", {}).get("ok"):
        yield Finding.error("port %s on the master %s is not free: %s" % (
            port, master, m["bind"].get("error") or "the bind failed (no reason recorded)"), hosts=[master],
                            fix="pick a free port (main_process_port / --master_port / MASTER_PORT), or stop what "
                                "holds it: " + cmd("ss -ltnp {f} on {master}", f="sport = :%s" % port, master=master))
        others = sorted(h for h in nodes if h != master)
        if others:  # (they read 'skipped: ... a bug in the check')
            yield Skip("not judged: the master's port %s is not free, so no peer could connect to it" % port,
                       hosts=others)
        return
    bad = []
    for h, f in sorted(nodes.items()):
        r = f["rendezvous"]
        if r.get("role") == "peer" and not (r.get("connect") or {}).get("ok"):
            bad.append((h, (r.get("connect") or {}).get("error") or "failed"))
    if bad:
        # a peer where the master's name does not resolve (rendezvous.connect's gaierror) is not helped by a
        # firewall rule: it needs the name (userwalk22: four test-bed nodes were told to open TCP 29400)
        unresolved = [h for h, e in bad if str(e).endswith(" does not resolve")]
        fixes = []
        if unresolved:
            fixes.append(cmd("add {line} to /etc/hosts on {hosts}, or use the master's IP address",
                             line="<master-ip> %s" % m.get("addr"), hosts=fold(unresolved)))
        if len(unresolved) < len(bad):
            fixes.append(cmd("open TCP {port} on {master} (firewall-cmd --add-port={pt}, or iptables -I INPUT -p tcp "
                             "--dport {port} -j ACCEPT), and make sure {addr} is the address of an interface the "
                             "other nodes route to", port=port, master=master, pt="%s/tcp" % port, addr=m.get("addr")))
        yield Finding.error("%s cannot reach the master %s:%s: %s" % (
            fold([h for h, _ in bad]), m.get("addr"), port, "; ".join("%s: %s" % x for x in bad)),
            hosts=[h for h, _ in bad], fix="\n".join(fixes))
        # what was judged and held: the master's port is free, the other peers connected (each node gets its
        # verdict; the master was 'skipped: the check reported neither a problem nor its evidence')
        reached = sorted(h for h, f in nodes.items() if f["rendezvous"].get("role") == "peer"
                         and h not in [b for b, _ in bad])
        yield Pass("port %s free on the master %s%s" % (port, master, "; reached from %s" % fold(reached)
                                                         if reached else ""), hosts=[master] + reached)
    else:
        peers = sorted(h for h, f in nodes.items() if f["rendezvous"].get("role") == "peer")
        yield Pass("port %s free on the master %s and reached from %s" % (port, master, fold(peers) or "no peer"))
