"""The launch plan (accelerate / DeepSpeed / torchrun / mpirun, gpudoctor/launch.py) judged
against the nodes' facts before the job starts: counts, the master, precision, DeepSpeed's
batch arithmetic, the environment mpirun forwards, the files every node needs, and the
rendezvous port (the failures users report: accelerate + DeepSpeed over pdsh, mpirun -x). Every check passes silently when no plan was given."""

import re

from gpudoctor.drift import describe, group
from gpudoctor.nodes import fold
from gpudoctor.registry import Finding, check

JOB_ENV = re.compile(r"^(NCCL_\w+|UCX_\w+|LD_LIBRARY_PATH|PYTHONPATH)$")


def _plan(config):
    return getattr(config, "launch", None)


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
    plan = _plan(config)
    if plan is None:
        return
    n = len(nodes)
    gpus = {h: len(g) for h, g in ((h, _gpus(f)) for h, f in nodes.items()) if g is not None}
    total = sum(gpus.values()) if len(gpus) == n else None
    src = "; ".join(plan.sources)
    if plan.num_machines is not None and plan.num_machines != n:
        key = {"accelerate": "num_machines", "mpirun": "the -H host list", "horovodrun": "the -H host list",
               "deepspeed": "--num_nodes"}.get(plan.launcher, "--nnodes")
        yield Finding.error("%s asks for %d nodes; %d are being checked (%s)" % (key, plan.num_machines, n,
                                                                                fold(sorted(nodes))),
                            observed="%d nodes" % n, expected="%d nodes" % plan.num_machines,
                            fix="set %s to %d in %s, or check the same nodes the job runs on (--hosts)"
                                % (key, n, src))
    if plan.num_processes is not None and plan.slots and plan.launcher in ("mpirun", "horovodrun"):
        want = sum(plan.slots.values())
        if plan.num_processes != want:
            yield Finding.error("mpirun -np %d but %s gives %d slots (-np must match -H)"
                                % (plan.num_processes, plan.slots_source, want),
                                observed="-np %d" % plan.num_processes, expected="-np %d" % want,
                                fix="mpirun -np %d -H %s ..." % (want, ",".join("%s:%d" % kv
                                                                                  for kv in plan.slots.items())))
    for host, slots in sorted((plan.slots or {}).items()):
        if host in gpus and slots > gpus[host]:
            yield Finding.error("%s gives %s %d slots but it has %d GPUs" % (plan.slots_source, host, slots,
                                                                              gpus[host]), hosts=[host],
                                fix="give %s %d slots (%s), or repair its missing GPUs (nvidia-smi)"
                                    % (host, gpus[host], "%s:%d" % (host, gpus[host])
                                       if plan.slots_source.startswith("-H") else "%s slots=%d" % (host, gpus[host])))
    missing = sorted(h for h in (plan.slots or {}) if h not in nodes)
    if missing:
        yield Finding.warning("%s names %s, which %s not among the checked nodes (%s)"
                              % (plan.slots_source, fold(missing), "is" if len(missing) == 1 else "are",
                                 fold(sorted(nodes))),
                              fix="check the nodes the job will use: gpudoctor check --hosts <the same hostfile>")
    if plan.nproc_per_node is not None and gpus:
        few = sorted(h for h, c in gpus.items() if c < plan.nproc_per_node)
        if few:
            yield Finding.error("%s processes per node but %s %s fewer GPUs (%s)" % (
                plan.nproc_per_node, fold(few), "has" if len(few) == 1 else "have",
                ", ".join("%s: %d" % (h, gpus[h]) for h in few)), hosts=few,
                fix="lower --nproc_per_node/--num_gpus to %d, or leave those nodes out" % min(gpus[h] for h in few))
    if plan.launcher == "accelerate" and plan.num_processes is not None:
        if plan.num_machines and plan.num_processes % plan.num_machines:
            yield Finding.error("num_processes=%d is not a multiple of num_machines=%d"
                                % (plan.num_processes, plan.num_machines),
                                fix="num_processes is the total over all machines: set it to num_machines x GPUs "
                                    "per machine")
        if total is not None and plan.num_processes > total:
            yield Finding.error("num_processes=%d but the %d nodes have %d GPUs in all" % (plan.num_processes, n,
                                                                                          total),
                                observed="%d GPUs" % total, expected="%d GPUs" % plan.num_processes,
                                fix="set num_processes: %d in %s (num_processes counts every machine's GPUs)"
                                    % (total, src))
        elif total is not None and plan.num_processes < total:
            yield Finding.warning("num_processes=%d leaves %d of the %d GPUs idle" % (
                plan.num_processes, total - plan.num_processes, total),
                fix="set num_processes: %d in %s to use every GPU" % (total, src))


@check("launch.master", title="the master address is one of the nodes, not loopback, and resolves the same on "
                              "every node", scope="cluster")
def launch_master(nodes, config):
    plan = _plan(config)
    if plan is None or not plan.master_addr:
        return
    name = plan.master_addr
    if _loopback(name):
        yield Finding.error("the master address is %s (loopback): ranks on other nodes cannot reach it" % name,
                            fix="set main_process_ip / --master_addr / MASTER_ADDR to the master node's real address "
                                "(ip -4 addr on it), e.g. %s" % sorted(nodes)[0])
        return
    res = {h: (f.get("resolve") or {}).get("names", {}).get(name) for h, f in nodes.items()
           if (f.get("resolve") or {}).get("status") == "ok"}
    res = {h: v for h, v in res.items() if v is not None}
    if res:
        bad = sorted(h for h, v in res.items() if not v)
        if bad:
            yield Finding.error("the master %s does not resolve on %s" % (name, fold(bad)), hosts=bad,
                                fix="add '<master-ip> %s' to /etc/hosts on %s, or use the master's IP address"
                                    % (name, fold(bad)))
        loop = sorted(h for h, v in res.items() if any(_loopback(a) for a in v))
        if loop:
            yield Finding.error("the master %s resolves to loopback on %s: the rendezvous binds or connects to "
                                "127.x there" % (name, fold(loop)), hosts=loop,
                                fix="in /etc/hosts on %s, map %s to its real address, not 127.0.0.1/127.0.1.1"
                                    % (fold(loop), name))
        groups = group({h: ",".join(v) for h, v in res.items() if v and h not in loop})
        if len(groups) > 1:
            odd = [h for g in groups[1:] for h in g.hosts]
            yield Finding.error(describe("the master %s" % name, groups), hosts=odd,
                                fix="make /etc/hosts or DNS agree: %s is %s on %s" % (name, groups[0].value,
                                                                                      fold(groups[0].hosts)))
    # one of the nodes: by name, by the address a node name resolves to, or by an interface address
    addrs = {name} | {a for v in res.values() for a in v}
    known = set(nodes)
    for f in nodes.values():
        for host, v in ((f.get("resolve") or {}).get("names") or {}).items():
            if host in nodes:  # what the nodes' own names resolve to
                known.update(v or [])
    owners = [h for h, f in nodes.items()
              if any(set(i.get("ipv4") or []) & addrs for i in ((f.get("network") or {}).get("interfaces") or []))]
    if name not in known and not (addrs & known) and not owners:
        yield Finding.error("the master %s is not one of the checked nodes (%s)" % (name, fold(sorted(nodes))),
                            fix="set the master to the node that runs rank 0 (machine_rank: 0), e.g. "
                                "main_process_ip: <address of %s>" % sorted(nodes)[0])


@check("launch.precision", title="bf16 is asked for only on GPUs of compute capability 8.0 or newer, and never "
                                 "together with fp16", needs=("gpu",))
def launch_precision(facts, config):
    plan = _plan(config)
    if plan is None:
        return
    if plan.ds_bf16 and plan.ds_fp16:
        yield Finding.error("the DeepSpeed config %s enables both bf16 and fp16" % plan.ds_config,
                            fix="enable one: \"bf16\": {\"enabled\": true} and \"fp16\": {\"enabled\": false} "
                                "(bf16 needs compute capability >= 8.0)")
    elif (plan.mixed_precision == "fp16" and plan.ds_bf16) or (plan.mixed_precision == "bf16" and plan.ds_fp16):
        yield Finding.error("accelerate mixed_precision=%s but the DeepSpeed config %s enables %s" % (
            plan.mixed_precision, plan.ds_config, "bf16" if plan.ds_bf16 else "fp16"),
            fix="make them agree: mixed_precision and the DeepSpeed bf16/fp16 \"enabled\" flags")
    wants = []
    if plan.mixed_precision == "bf16":
        wants.append("mixed_precision: bf16")
    if plan.ds_bf16:
        wants.append("DeepSpeed bf16.enabled")
    if not wants:
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


@check("launch.batch", title="DeepSpeed train_batch_size = micro batch x gradient accumulation x world size")
def launch_batch(facts, config):
    plan = _plan(config)
    if plan is None or plan.ds_config is None:
        return
    vals = (plan.train_batch_size, plan.micro_batch, plan.grad_accum)
    ws = plan.world_size()
    if any(isinstance(v, str) for v in vals) or plan.train_batch_size is None or plan.micro_batch is None or not ws:
        return  # "auto" is filled in by the HF Trainer; without a world size there is nothing to compare
    ga = plan.grad_accum or 1
    want = plan.micro_batch * ga * ws
    if plan.train_batch_size != want:
        yield Finding.error("%s: train_batch_size=%d but train_micro_batch_size_per_gpu=%d x "
                            "gradient_accumulation_steps=%d x world size %d = %d (DeepSpeed refuses to start)"
                            % (plan.ds_config, plan.train_batch_size, plan.micro_batch, ga, ws, want),
                            observed="train_batch_size %d" % plan.train_batch_size, expected="%d" % want,
                            fix="set \"train_batch_size\": %d in %s (or \"auto\" under the HF Trainer)"
                                % (want, plan.ds_config))


@check("launch.env", title="the job's NCCL_*, LD_LIBRARY_PATH and PYTHONPATH reach every rank (mpirun -x)",
       needs=("env",), scope="cluster")
def launch_env(nodes, config):
    plan = _plan(config)
    if plan is None or plan.forwarded_env is None:
        return
    fwd = set(plan.forwarded_env)
    names = set()
    for f in nodes.values():
        env = f["env"]
        names.update(k for k in list((env.get("values") or {})) + list((env.get("hashed") or {})) if JOB_ENV.match(k))
    names.update(k for k in plan.launch_env if JOB_ENV.match(k))
    for name in sorted(names - fwd):
        local = plan.launch_env.get(name)
        values = {h: (f["env"].get("values") or {}).get(name, (f["env"].get("hashed") or {}).get(name))
                  for h, f in nodes.items()}
        unset = sorted(h for h, v in values.items() if v is None)
        differs = sorted(h for h, v in values.items() if v is not None and local is not None and v != local)
        if local is not None and (unset or differs):
            odd = unset + differs
            yield Finding.warning("%s=%s is set where you launch but mpirun does not forward it: the ranks on %s "
                                  "see %s" % (name, local, fold(odd), "it unset" if not differs else "another value"),
                                  hosts=odd, fix="add -x %s to the mpirun line" % name)
        elif local is None and unset and len(unset) < len(values):
            odd = unset
            yield Finding.warning("%s is set on %s but not on %s, and mpirun does not forward it" % (
                name, fold(sorted(set(values) - set(unset))), fold(odd)), hosts=odd,
                fix="export %s where you launch and add -x %s to the mpirun line" % (name, name))


@check("launch.files", title="the plan's configs and training script exist on every node, identical",
       needs=("files",), scope="cluster")
def launch_files(nodes, config):
    plan = _plan(config)
    if plan is None:
        return
    for p in plan.files:
        values = {}
        for h, f in nodes.items():
            e = (f["files"].get("files") or {}).get(p)
            if e is None:
                continue
            values[h] = "missing" if "error" in e else "sha256 %s" % e["sha256"][:12]
        if not values:
            continue
        missing = sorted(h for h, v in values.items() if v == "missing")
        if missing:
            have = sorted(h for h, v in values.items() if v != "missing")
            yield Finding.error("%s, named by the launch plan, is missing on %s" % (p, fold(missing)), hosts=missing,
                                fix=("copy it there: pdcp -w %s %s %s (or rsync -a %s:%s %s); code, configs and "
                                     "data are not synced by the launcher" % (fold(missing), p, p, have[0], p, p))
                                if have else "create %s on every node (the launch plan names it)" % p)
        groups = group({h: v for h, v in values.items() if v != "missing"})
        if len(groups) > 1:
            odd = [h for g in groups[1:] for h in g.hosts]
            yield Finding.error(describe(p, groups), hosts=odd,
                                fix="copy the baseline: pdcp -w %s %s %s" % (fold(odd), p, p))


@check("launch.rendezvous", title="the master port is free on the master node and reachable from every other node",
       needs=("rendezvous",), scope="cluster")
def launch_rendezvous(nodes, config):
    plan = _plan(config)
    if plan is None:
        return
    masters = {h: f["rendezvous"] for h, f in nodes.items() if f["rendezvous"].get("role") == "master"}
    if not masters:
        return
    (master, m), = sorted(masters.items())[:1]
    port = m.get("port")
    if not m.get("bind", {}).get("ok"):
        yield Finding.error("port %s on the master %s is not free: %s" % (port, master, m["bind"].get("error")),
                            hosts=[master],
                            fix="pick a free port (main_process_port / --master_port / MASTER_PORT), or stop what "
                                "holds it: ss -ltnp 'sport = :%s' on %s" % (port, master))
        return
    bad = []
    for h, f in sorted(nodes.items()):
        r = f["rendezvous"]
        if r.get("role") == "peer" and not (r.get("connect") or {}).get("ok"):
            bad.append((h, (r.get("connect") or {}).get("error") or "failed"))
    if bad:
        yield Finding.error("%s cannot reach the master %s:%s: %s" % (
            fold([h for h, _ in bad]), m.get("addr"), port, "; ".join("%s: %s" % x for x in bad)),
            hosts=[h for h, _ in bad],
            fix="open TCP %s on %s (firewall-cmd --add-port=%s/tcp, or iptables -I INPUT -p tcp --dport %s -j "
                "ACCEPT), and make sure %s is the address of an interface the other nodes route to"
                % (port, master, port, port, m.get("addr")))
