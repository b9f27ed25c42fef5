"""``probe.*`` findings from a probe document and (when given) the nodes' facts. Pure: no I/O.

Thresholds are relative (a fraction of the cluster median or of the link's own line rate as
sysfs reports it), never per-SKU constants, so the same rule holds on 25 GbE and 8x400 Gb/s IB.
"""

import re
import statistics

from gpudoctor.registry import Finding, cmd
from gpudoctor.util import container_of

RATIO = 0.5  # "far below": under half the median / the line rate

PROBE_HINTS = {
    "hang": "the worker started but never answered: a hung interpreter, a stuck filesystem (NFS home?) or a "
            "swapping node; log in and run `python3 -c 1` there",
    "init-hang": "NCCL init did not complete: the ranks cannot reach each other (NCCL_SOCKET_IFNAME, a firewall "
                 "between nodes, a bad IB fabric); rerun with NCCL_DEBUG=INFO and read the last NET lines",
    "init-failed": "torch.distributed / NCCL init raised: see the error, then `gpudoctor explain` on it",
    "died": "a rank exited mid-probe: look at the node's kernel log (Xid, OOM killer) and nvidia-smi",
    "no-torch": "torch does not import with this interpreter: pass --python /path/to/the/job/env/bin/python",
    "no-gpu": "no GPU visible to the probe on the node: check nvidia-smi and CUDA_VISIBLE_DEVICES",
    "port-in-use": "every port of the probe's range is taken on the node: pick another range with --ports",
    "python-missing": "no interpreter at that path on the node: pass --python with the job's interpreter",
    "python-old": "the node's python is older than 3.6: pass --python with a newer interpreter",
    "worker": "the probe worker failed on the node (see the error)",
    # (slurm26: a flood through srun, where no login banner exists: the interpreter's own wrapper printed it)
    "garbage": "the node answered with something that is not the probe's JSON: something the interpreter or the "
               "shell there prints first (a login banner or ~/.bashrc over ssh; a wrapper script, a module or "
               "sitecustomize.py); run the interpreter there by hand (python3 -c 1) and see what it prints",
    "no-peer": "no peer reached this node's probe port",
    "stopped": "stopped because another node of the same job failed (see that node)",
    "not-local": "the address peers use for the node (ssh_config HostName, else the name) is not one of its own: "
                 "set HostName to the node's address on the job's network",
    "resolve": "a name does not resolve on the node: check /etc/hosts or DNS there",
    # (the SSH handshake did not finish: transport.HINTS' own text names check's --timeout, which probe has not)
    "timeout": "no answer in time: the node is down, a firewall drops the traffic, or sshd hangs there; `ssh NODE "
               "true` shows which (raise --budget only if the node is just slow)",
}
# srun's words for a node whose slurmd it could not reach at a worker's task launch (Slurm's slurm_strerror
# SLURM_COMMUNICATIONS_CONNECTION_ERROR, https://github.com/SchedMD/slurm/blob/master/src/common/slurm_errno.c;
# seen on 22.05 for a node whose slurmd was killed and whose link went down mid-probe)
_UNREACHED = re.compile(r"Task launch for \S+ failed on node \S+: (?:Communication connection failure|Connection refused|"
                        r"Connection timed out|No route to host|Socket timed out on send/recv operation)")
# Pair failures that blame no node: the port ones are probe.port.blocked; a stopped node was
# only waiting for a failed peer; an interrupted run is the user's doing.
NOT_NODE_FAULTS = ("port-blocked", "port-refused", "stopped", "interrupted")


def _hint(kind):
    if kind in PROBE_HINTS:
        return PROBE_HINTS[kind]
    try:
        from gpudoctor.transport.ssh import HINTS
    except Exception:  # the transport module moves: the hint is a nicety
        HINTS = {}
    return HINTS.get(kind, "see the error")


# NCCL's socket transport moves every byte through its proxy and helper threads on the host's CPUs
# (src/transport/net_socket.cc: NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD sockets served by threads), so
# over NET/Socket a node whose CPUs are taken is slow with every peer as a bad link is. Seen on a 4x H100
# host: one "node" pinned to a core shared with three busy loops measured 0.31-0.40 GB/s busbw with each
# peer against 3.2-3.8 for the others (fixtures/probe/h100x4-slow.json).
_CPU_BOUND = ("over sockets also its CPUs (NCCL's socket threads are CPU-bound): processes competing with the "
              "job (top -H), the job's CPU affinity and cgroup limit (taskset -cp <pid>, cpu.max); ")


def _on_sockets(pair):
    return str(pair.get("transport") or "").startswith("NET/Socket")


def _f(severity, check, message, **kw):
    f = getattr(Finding, {"error": "error", "warning": "warning", "info": "info"}[severity])(message, **kw)
    f.check = check
    return f


def _fmt(x, unit):
    return "%.3g %s" % (x, unit) if x is not None else "n/a"


# ---------------------------------------------------------------- facts helpers

def active_rdma(facts):
    """[(device, port dict)] of ACTIVE RDMA ports on one node."""
    rdma = (facts or {}).get("rdma") or {}
    if rdma.get("status") != "ok":
        return []
    return [(d["name"], p) for d in rdma.get("devices") or [] for p in d.get("ports") or []
            if p.get("state") == "ACTIVE"]


def _iface_speed(facts, names):
    """Gbit/s of the named interfaces, as sysfs reports it (None when unknown)."""
    net = (facts or {}).get("network") or {}
    total, known = 0.0, False
    for i in net.get("interfaces") or []:
        if i.get("name") in names and i.get("speed_mbps") and i.get("kind") in ("physical", "bond", "vlan", "ipoib"):
            total += i["speed_mbps"] / 1000.0
            known = True
    return total if known else None


def _iface_of(facts, addr):
    net = (facts or {}).get("network") or {}
    for i in net.get("interfaces") or []:
        if any(a.get("address") == addr for a in i.get("ipv4") or []):
            return i
    return None


def _ib_rate(facts, devices):
    """Gbit/s of the named RDMA devices' ACTIVE ports (sysfs `rate`)."""
    rates = [p.get("rate_gbps") for d, p in active_rdma(facts) if d in devices and p.get("rate_gbps")]
    return sum(rates) if rates else None


def rdma_fix(facts_list):
    """The NCCL settings that put NCCL on the RDMA ports these nodes have, from their facts."""
    common = None
    roce_gid, container, no_uverbs, memlock_low = None, False, False, False
    for facts in facts_list:
        act = active_rdma(facts)
        names = set(d for d, _ in act)
        common = names if common is None else common & names
        for d, p in act:
            if (p.get("link_layer") or "").lower() == "ethernet" and roce_gid is None:
                v2 = [g for g in p.get("gids") or [] if "v2" in (g.get("type") or "").lower() and g.get("ipv4")]
                if v2:
                    roce_gid = v2[0]["index"]
        rdma = facts.get("rdma") or {}
        uverbs = set(x for x in rdma.get("dev_infiniband") or [] if x.startswith("uverbs"))
        if act and not uverbs:
            no_uverbs = True
        if container_of(facts):
            container = True
        ml = ((facts.get("limits") or {}).get("memlock") or {}).get("soft")
        if ml not in (None, "unlimited") and isinstance(ml, int) and ml < (1 << 30):
            memlock_low = True
    exports = {"NCCL_NET": "IB"}
    if common:
        exports["NCCL_IB_HCA"] = ",".join(sorted(common))
    if roce_gid is not None:
        exports["NCCL_IB_GID_INDEX"] = str(roce_gid)
    # device names and the GID index come from the nodes' facts: each one quoted word (gpudoctor/fixline.py)
    lines = [cmd("export {k}={v}", k=k, v=v) for k, v in sorted(exports.items())]
    lines.append("unset NCCL_IB_DISABLE   # if it is set to 1 anywhere in the job's environment")
    if container or no_uverbs:
        lines.append("docker run ... --device=/dev/infiniband --ulimit memlock=-1 ...   "
                     "# the container must see the uverbs devices and pin memory")
    elif memlock_low:
        lines.append("ulimit -l unlimited   # RDMA pins memory (limits.conf: * - memlock unlimited)")
    return exports, "\n".join(lines)


# ---------------------------------------------------------------- the findings

def evaluate(doc, facts=None, ratio=RATIO):
    """Findings for a probe document; ``facts`` maps host -> facts (may be empty)."""
    facts = facts or {}
    out = []
    out += _nodes(doc)
    out += _pairs(doc, facts, ratio)
    out += _nccl(doc, facts, ratio)
    out += _housekeeping(doc)
    shown = shown_of(doc, facts)
    for f in out:
        f.message, f.observed, f.expected = shown(f.message), shown(f.observed), shown(f.expected)
    return out


def shown_of(doc, facts):
    """fixline.Shown for the findings and the report: every hostile value the nodes gave as a name (their facts; the
    interfaces and devices NCCL said it used) made one shell word where a message, observed, expected or a job's
    transport line names it, as check's descriptions show a node's values (docs/security.md 27.): an RDMA device or
    interface name `mlx5_0;touch x;#` stood bare in probe.nccl.socket_with_rdma's message and in the job's
    `NET/Socket over ...` line (docs/security.md 64.). A node's error text is quoted as said (escaped by the text
    report, 63.), as explain quotes a log's lines (21.)."""
    from gpudoctor.fixline import Shown, leaf_strings

    values = [v for f in (facts or {}).values() if isinstance(f, dict) for v in leaf_strings(f)]
    for job in doc.get("jobs") or []:
        nccl = job.get("nccl") if isinstance(job, dict) else None
        if isinstance(nccl, dict):
            values += leaf_strings([nccl.get(k) for k in ("socket_ifs", "ib_devices", "oob_if")])
    return Shown(values, inert=True)


def _nodes(doc):
    """probe.node.failed: nodes whose worker could not start or finish, at hello or in a job
    (nodes[].error_kind), and nodes a pair's failure points at (pairs[].blame: a port taken,
    a worker hung mid-measurement, NCCL init failed); probe.port.in_use: the first port of the
    range held on a node."""
    # one finding per node: a node that died mid-probe fails every pair it was in, each in its own words
    # (a 4-node Slurm, sn4's slurmd killed and its link down 6 s in: "hang" in sn3<->sn4, then "died" with
    # srun's Communication connection failure in sn4<->sn2, slurm24: two probe.node.failed for sn4 with two
    # fixes). The node's kind is its own error's, else its first pair's that says more than "hang"
    # (a worker that did not answer in time says nothing of why); its pairs' words are all kept.
    said = {}  # {host: [(kind, text)]}, in the order met
    own = set()
    for n in doc.get("nodes") or []:
        if n.get("error_kind") and n["error_kind"] not in NOT_NODE_FAULTS:
            said.setdefault(n["host"], []).append((n["error_kind"], n.get("error")))
            own.add(n["host"])
    for p in doc.get("pairs") or []:
        kind, host = p.get("error_kind"), p.get("blame")
        if not p.get("error") or not kind or kind in NOT_NODE_FAULTS or not host or host in own:
            continue
        mine = said.setdefault(host, [])
        if kind not in [k for k, _ in mine]:
            mine.append((kind, "in the pair %s<->%s: %s" % (p["a"], p["b"], p.get("error") or kind)))
    by_kind = {}
    for host, errs in said.items():
        kind = min(errs, key=lambda e: e[0] == "hang")[0]
        by_kind.setdefault(kind, []).append((host, "; ".join(err or k for k, err in errs[:3])))
    out = []
    for kind, nodes in sorted(by_kind.items()):
        hosts = [h for h, _ in nodes]
        msg = "; ".join("%s: %s" % (h, err or kind) for h, err in nodes[:5])
        fix = _hint(kind)
        if kind in ("died", "hang") and _UNREACHED.search(msg):
            # srun's own words for a node whose slurmd it could not reach at the task launch: not a rank
            # that exited (the node, its slurmd or its network is gone), whatever the worker's exit said
            fix = _hint("slurmd")
        out.append(_f("error", "probe.node.failed", "the probe could not run on %s (%s): %s" % (
            ",".join(hosts), kind, msg), observed=kind, fix=fix, hosts=hosts))
    taken = [n["host"] for n in doc.get("nodes") or [] if n.get("first_port_taken")]
    if taken:
        port = (doc.get("ports") or [29500])[0]
        out.append(_f("warning", "probe.port.in_use",
                      "port %d, the first of the job's range (torchrun's default MASTER_PORT is 29500), is already "
                      "in use on %s: a job whose rendezvous is there fails with 'address already in use'" % (
                          port, ",".join(taken)),
                      observed="port %d in use" % port, expected="port %d free for the rendezvous" % port,
                      fix="ss -ltnp 'sport = :%d' on %s shows who holds it; end it, or give the job another "
                          "--master_port (and the probe another --ports)" % (port, ",".join(taken)), hosts=taken))
    return out


def _pairs(doc, facts, ratio):
    out = []
    pairs = doc.get("pairs") or []
    if not pairs:
        return out
    unit = "GB/s busbw" if doc.get("mode") == "nccl" else "Gbit/s"
    blocked = {}
    failed = [p for p in pairs if p.get("error_kind") in ("port-blocked", "port-refused")]
    # a listener that a peer reached on the job's port in another pair does not drop that
    # port: the failure is its peer's side (a connect that timed out once, or the peer's own
    # stateless firewall dropping the replies), so it moves to the peer when the peer failed
    # as a listener too, and is left out otherwise, never pinned on a node that was reached
    reached = {p["a"] for p in pairs if not p.get("error") and p.get("gbps") is not None}
    refusing = {p["a"] for p in failed if p["a"] not in reached}
    for p in failed:
        host = p["blame"]
        if host in reached:
            other = p["b"] if host == p["a"] else p["a"]
            if other not in refusing:
                continue
            host = other
        blocked.setdefault(host, []).append(p)
    for host, ps in sorted(blocked.items()):
        peers = sorted(set(p["b"] if p["a"] == host else p["a"] for p in ps))
        port = ps[0].get("port")
        out.append(_f("error", "probe.port.blocked",
                      "%s refuses the job's port %s: %s could not connect (%s)" % (
                          host, port, ",".join(peers), ps[0].get("error")),
                      observed=ps[0].get("error"), expected="peers connect to the job's port range",
                      fix="open the job's ports on %s, e.g. firewall-cmd --permanent --add-port=%d-%d/tcp && "
                          "firewall-cmd --reload (or the matching iptables/nftables rule); the rendezvous and "
                          "NCCL's bootstrap use them" % ((host,) + tuple(doc.get("ports") or (29500, 29599))),
                      hosts=[host]))
    iso = doc.get("isolation") or {}
    med = iso.get("median_gbps")
    for h in iso.get("slow_nodes") or []:
        mine = [p for p in pairs if h in (p["a"], p["b"]) and p.get("gbps") is not None]
        # one number per peer, its best pass: a pair measured again in pass 2 was listed twice ("sn3 0.095,
        # sn1 0.095, sn3 0.096": a 4-node Slurm with sn2's link shaped to 100 Mbit/s, slurm23)
        best = {}
        for p in mine:
            peer = p["b"] if p["a"] == h else p["a"]
            best[peer] = max(best.get(peer, p["gbps"]), p["gbps"])
        meas = ", ".join("%s %.3g" % (peer, g) for peer, g in best.items())
        out.append(_f("error", "probe.node.slow",
                      "%s is slow with every peer: %s (%s; a healthy pair here: %s, the median of the nodes' "
                      "best pairs)" % (h, meas, unit, _fmt(med, unit)),
                      observed="%s with every peer" % _fmt(min(p["gbps"] for p in mine), unit) if mine else None,
                      expected=">= %g x the median (%s)" % (ratio, _fmt(med, unit)),
                      fix="check %s's link: ethtool <iface> (speed, errors), ip -s link, tc qdisc show, "
                          "ibstat/ibv_devinfo for RDMA ports; %sdrain it from the job until fixed" % (
                              h, _CPU_BOUND if any(_on_sockets(p) for p in mine) else ""), hosts=[h]))
    for a, b in iso.get("slow_links") or []:
        mine = [p for p in pairs if {p["a"], p["b"]} == {a, b} and p.get("gbps") is not None]
        g = min(p["gbps"] for p in mine) if mine else None
        out.append(_f("warning", "probe.link.slow",
                      "the link %s<->%s is slow: %s while both nodes are fast with other peers (median %s)" % (
                          a, b, _fmt(g, unit), _fmt(med, unit)),
                      observed=_fmt(g, unit), expected=">= %g x the median (%s)" % (ratio, _fmt(med, unit)),
                      fix="look at the path between %s and %s: the switch ports, cables, a congested uplink "
                          "(ibnetdiscover / the switch's counters)" % (a, b), hosts=[a, b]))
    for a, b in iso.get("unconfirmed_links") or []:
        out.append(_f("info", "probe.link.slow", "one reading of %s<->%s was slow; the budget left no time to "
                      "measure it again" % (a, b), fix="a larger --budget lets the second pass confirm it",
                      hosts=[a, b]))
    if doc.get("mode") == "tcp":
        below = []
        explained = set(iso.get("slow_nodes") or [])  # their pairs are already a finding
        for p in pairs:
            if p.get("gbps") is None or explained & {p["a"], p["b"]}:
                continue
            fa, fb = facts.get(p["a"]), facts.get(p["b"])
            speeds = []
            for h, f in ((p["a"], fa), (p["b"], fb)):
                addr = (doc.get("addresses") or {}).get(h)
                i = _iface_of(f, addr) if f and addr else None
                # a veth, bridge or tun reports a nominal speed (veth: 10000), not a line rate
                if i and i.get("speed_mbps") and i.get("kind") in ("physical", "bond", "vlan", "ipoib"):
                    speeds.append(i["speed_mbps"] / 1000.0)
            if len(speeds) == 2 and p["gbps"] < ratio * min(speeds):
                below.append((p, min(speeds)))
        if below:
            shown = "; ".join("%s<->%s %s of %s" % (p["a"], p["b"], _fmt(p["gbps"], "Gbit/s"), _fmt(line, "Gbit/s"))
                              for p, line in below[:5]) + (" (and %d more)" % (len(below) - 5) if len(below) > 5 else "")
            hosts = sorted(set(h for p, _ in below for h in (p["a"], p["b"])))
            out.append(_f("warning", "probe.bandwidth.line_rate",
                          "TCP throughput under %g x the line rate (sysfs speed of the interfaces that carry the "
                          "nodes' addresses): %s" % (ratio, shown),
                          observed=_fmt(below[0][0]["gbps"], "Gbit/s"), expected=">= %s" % _fmt(ratio * below[0][1],
                                                                                               "Gbit/s"),
                          fix="ethtool -S <iface> (drops, pause frames), the MTU on both ends and the switch port; "
                              "a single TCP flow rarely fills 100 Gb/s+, NCCL's probe (--mode nccl) is the judge there",
                          hosts=hosts))
    return out


def _best(job, op="all_reduce"):
    rows = [c for c in job.get("collectives") or [] if c["op"] == op]
    return max(rows, key=lambda c: c["bytes"]) if rows else None


def _nccl(doc, facts, ratio):
    out = []
    jobs = doc.get("jobs") or []
    node_jobs = [j for j in jobs if j["scope"] == "node" and _best(j)]
    if len(node_jobs) >= 2:
        vals = [_best(j)["busbw_gbps"] for j in node_jobs]
        med = statistics.median(vals)
        for j in node_jobs:
            v = _best(j)["busbw_gbps"]
            if v < ratio * med:
                out.append(_f("warning", "probe.bandwidth.outlier",
                              "%s: in-node all_reduce busbw %s, under %g x the median of the nodes (%s)" % (
                                  j["hosts"][0], _fmt(v, "GB/s"), ratio, _fmt(med, "GB/s")),
                              observed=_fmt(v, "GB/s"), expected=">= %s" % _fmt(ratio * med, "GB/s"),
                              fix="nvidia-smi topo -m and nvidia-smi nvlink -s on %s (a down NVLink, a GPU on a "
                                  "slower PCIe link), and its transport line in this report" % j["hosts"][0],
                              hosts=j["hosts"]))
    for j in jobs:
        if j.get("correct") is False:
            out.append(_f("error", "probe.nccl.wrong_result", "%s: all_reduce returned a wrong sum" % ",".join(
                j["hosts"]), fix="a GPU or link corrupts data: run each node alone (gpudoctor probe --hosts one) "
                                 "and dcgmi diag -r 3", hosts=j["hosts"]))
        n = j.get("nccl") or {}
        t = n.get("transports") or {}
        inter = t.get("inter") or []
        hosts = j["hosts"]
        fl = [facts[h] for h in hosts if h in facts]
        if any(x.startswith("NET/Socket") for x in inter):
            rdma_hosts = [h for h in hosts if active_rdma(facts.get(h))]
            if rdma_hosts and len(rdma_hosts) == len(hosts):
                exports, fix = rdma_fix(fl)
                out.append(_f("error", "probe.nccl.socket_with_rdma",
                              "NCCL moved data between %s over TCP sockets (NET/Socket) although every node has "
                              "ACTIVE RDMA ports (%s)" % (",".join(hosts), ",".join(
                                  sorted(set(d for h in hosts for d, _ in active_rdma(facts[h]))))),
                              observed="NET/Socket" + (" over " + ",".join(i["name"] for i in n.get("socket_ifs") or [])
                                                       if n.get("socket_ifs") else ""),
                              expected="NET/IB", fix=fix, exports=exports, hosts=hosts))
        # line rate: the NICs NCCL itself says it used, their rate from sysfs
        best = _best(j)
        if best and inter and fl:
            if any(x.startswith("NET/IB") for x in inter):
                devs = set(d["device"] for d in n.get("ib_devices") or [])
                rates = [_ib_rate(f, devs) for f in fl]
                what = "IB/RoCE rate of %s" % ",".join(sorted(devs))
            elif any(x.startswith("NET/Socket") for x in inter):
                names = set(i["name"] for i in n.get("socket_ifs") or [])
                rates = [_iface_speed(f, names) for f in fl]
                what = "Ethernet speed of %s" % ",".join(sorted(names))
            else:
                rates = []
            rates = [r for r in rates if r]
            if rates:
                line_gbs = min(rates) / 8.0  # Gbit/s -> GB/s, per node: its NICs together
                if best["busbw_gbps"] < ratio * line_gbs:
                    out.append(_f("warning", "probe.bandwidth.line_rate",
                                  "%s: all_reduce busbw %s at %d MiB, under %g x the line rate (%s: %s)" % (
                                      ",".join(hosts), _fmt(best["busbw_gbps"], "GB/s"), best["bytes"] >> 20, ratio,
                                      what, _fmt(line_gbs, "GB/s")),
                                  observed=_fmt(best["busbw_gbps"], "GB/s"),
                                  expected=">= %s" % _fmt(ratio * line_gbs, "GB/s"),
                                  fix="compare with ib_write_bw between two nodes; check GPUDirect RDMA, PCIe "
                                      "topology (nvidia-smi topo -m) and NCCL_IB_HCA / NCCL_SOCKET_IFNAME",
                                  hosts=hosts))
        if any(x == "NET/IB" for x in inter):  # IB without +GDRDMA
            peermem = [h for h in hosts if h in facts and ((facts[h].get("rdma") or {}).get("gdr_modules_loaded"))]
            if len(peermem) < len([h for h in hosts if h in facts]) or not fl:
                fix = ("sudo modprobe nvidia_peermem   # MLNX_OFED peer-memory client "
                       "(https://docs.nvidia.com/cuda/gpudirect-rdma/); or DMA-BUF with the open kernel module")
                msg = "NCCL uses NET/IB without GPUDirect RDMA between %s: data is staged through host memory" % (
                    ",".join(hosts))
            else:
                fix = ("nvidia_peermem is loaded yet NCCL reports GDR disabled: check its load messages (dmesg) and "
                       "the OFED/kernel pairing (https://github.com/NVIDIA/nccl/issues/1537)")
                msg = "NCCL uses NET/IB without GPUDirect RDMA between %s although nvidia_peermem is loaded" % (
                    ",".join(hosts))
            out.append(_f("warning", "probe.nccl.gdr_unused", msg, observed="NET/IB (no /GDRDMA)",
                          expected="NET/IB/GDRDMA", fix=fix, hosts=hosts))
        # P2P disabled inside one host: NCCL's own host names say the ranks share a machine
        same_host = [c for c in _conns(j) if c.get("src_host") and c.get("src_host") == c.get("dst_host")]
        kinds = set(c["kind"] for c in same_host)
        if same_host and not any(k.startswith("P2P") for k in kinds):
            env = n.get("env") or {}
            job_env = {}
            for h in hosts:
                job_env.update((doc.get("node_env") or {}).get(h) or {})
            disabled = env.get("NCCL_P2P_DISABLE") or job_env.get("NCCL_P2P_DISABLE")
            fix = ("unset NCCL_P2P_DISABLE" if disabled not in (None, "0") else
                   "nvidia-smi topo -p2p r (P2P read support); ACS on PCIe switches blocks P2P "
                   "(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs)")
            out.append(_f("warning", "probe.nccl.p2p_disabled",
                          "GPUs of one host talk over %s instead of P2P (NVLink / PCIe)%s" % (
                              ",".join(sorted(kinds)), " (NCCL_P2P_DISABLE=%s)" % disabled if disabled else ""),
                          observed=",".join(sorted(kinds)), expected="P2P/CUMEM or P2P/IPC", fix=fix, hosts=hosts))
    return out


def _conns(job):
    return (job.get("nccl") or {}).get("connections") or []


def _housekeeping(doc):
    out = []
    left = {h: c for h, c in (doc.get("cleanup") or {}).items() if c.get("left") or c.get("error")}
    if left:
        out.append(_f("error", "probe.cleanup", "probe processes may be left on %s: %s" % (
            ",".join(sorted(left)), "; ".join("%s: %s" % (h, "the cleanup could not run there: %s" % c["error"] if c.get("error") else
                                                       "%d left" % c["left"])
                                             for h, c in sorted(left.items()))),
            fix="ps -eo pid,pgid,cmd | grep -v grep | grep 'python3 -' on those nodes, and kill the probe's groups",
            hosts=sorted(left)))
    iso = doc.get("isolation") or {}
    if iso.get("rounds_skipped"):
        out.append(_f("info", "probe.budget", "the budget allowed %d of %d pair rounds" % (
            iso["rounds_total"] - iso["rounds_skipped"], iso["rounds_total"]),
            fix="a larger --budget measures every pair"))
    trunc = [j for j in doc.get("jobs") or [] if j.get("truncated")]
    if trunc:
        out.append(_f("info", "probe.budget", "the budget stopped the size sweep early in %d job(s) (%s)" % (
            len(trunc), ", ".join(j["scope"] for j in trunc)), fix="a larger --budget reaches 1 GiB"))
    return out
