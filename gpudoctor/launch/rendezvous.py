"""The rendezvous probe (phase 2 of a check with a launch plan): the master node listens on
the plan's port while every other reachable node connects to the master address. It runs
through whatever gather function the caller passes (gpudoctor/commands/common.py hands in
the chosen transport's), never a transport of its own."""


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
