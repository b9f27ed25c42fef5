"""Which transport NCCL chose, read from its own ``NCCL_DEBUG=INFO`` lines
(``NCCL_DEBUG_SUBSYS=INIT,NET``). Pure functions of text.

The formats follow NCCL's source (github.com/NVIDIA/nccl, v2.30 tree, and the same lines in
2.18-2.29):
- src/transport/p2p.cc: ``Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/%s%s%s`` (CUMEM or
  MNNVL, ``/read``, ``/CE``), ``via P2P/IPC%s%s``, ``via P2P/direct pointer%s``,
  ``via P2P/indirect/%d[%d]%s``;
- src/transport/shm.cc: ``Channel %02d : %d[%d] -> %d[%d] via SHM/direct`` (older releases
  print ``SHM/direct/direct``);
- src/transport/net.cc: ``Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s``
  (net name, device index, ``/GDRDMA``, ``(PCI)``, ``/Shared``; ``NET/%s/%d(%d)`` with a
  proxy rank under PXN);
- src/transport/net_ib/init.cc: ``NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>``;
- src/transport/net_socket.cc: ``NET/Socket : Using [0]eth0:10.0.0.1<0>``;
- src/graph/topo.cc: ``NET/IB : GPU Direct RDMA Enabled|Disabled for HCA %d '%s'``;
- src/init.cc: ``Using network %s``, ``comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx ...``.
Every INFO line starts with ``host:pid:tid [cudaDev] NCCL INFO`` (src/debug.cc).
"""

import re

from gpudoctor.collector.system import env_value

# `host:pid:tid [dev] NCCL INFO msg` (src/debug.cc); pasted logs may carry other prefixes
# (timestamps, rank tags, line numbers) or lose the host part, so the INFO marker anchors it.
_PREFIX = re.compile(r"(?:(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+)\s+)?(?:\[(?P<dev>[^\]]*)\]\s+)?"
                     r"NCCL INFO (?P<msg>.*)$")
# NCCL before 2.7 said `Ring 00 : ...` where later releases say `Channel 00/0 : ...`
_CHANNEL = re.compile(
    r"^(?:Channel|Ring) (?P<ch>\d+)(?:/(?P<idx>\d+))? : (?P<src>\d+)\[(?P<srcdev>[0-9a-fA-F]+)\] -> "
    r"(?P<dst>\d+)\[(?P<dstdev>[0-9a-fA-F]+)\](?: \[(?P<dir>send|receive)\])? via (?P<via>\S+(?: pointer\S*)?)")
_COMM = re.compile(r"^comm 0x[0-9a-fA-F]+ rank (?P<rank>\d+) nranks (?P<nranks>\d+) cudaDev (?P<cuda>\d+)"
                   r"(?: nvmlDev (?P<nvml>\d+))?(?: busId (?P<bus>[0-9a-fA-F]+))?")
_IB_USING = re.compile(r"^NET/IB ?: Using(?P<devs>(?: \[\d+\][^\s;]+)*)(?P<ro> \[RO\])?\s*;?\s*(?:OOB (?P<oob>[^:\s]+):(?P<oobaddr>\S+))?")
_IB_DEV = re.compile(r"\[(?P<i>\d+)\](?P<dev>[^:\s]+):(?P<port>\d+)(?::[^/\s]*)?/(?P<link>\w+)")
_SOCK_USING = re.compile(r"^NET/Socket ?: Using(?P<ifs>(?: \[\d+\][^\s]+)*)")
_SOCK_IF = re.compile(r"\[(?P<i>\d+)\](?P<name>[^:\s]+):(?P<addr>\S+)")
_GDR = re.compile(r"^NET/(?P<net>\w+) ?: GPU Direct RDMA (?P<state>Enabled|Disabled) for HCA (?P<i>\d+) '(?P<dev>[^']+)'")
_NETWORK = re.compile(r"^Using network (?P<net>\S+)")
_VERSION = re.compile(r"NCCL version (?P<v>[0-9][0-9.]*[^\s]*)")
_ENVSET = re.compile(r"^(?P<name>NCCL_[A-Z0-9_]+) set by environment to (?P<value>[^\s]*?)\.?$")


def kind_of(via):
    """The transport family of one ``via ...`` string, and whether GPUDirect RDMA is used.

    ``P2P/CUMEM/read`` -> ("P2P/CUMEM", False); ``NET/IB/0/GDRDMA`` -> ("NET/IB", True);
    ``NET/Socket/1`` -> ("NET/Socket", False); ``SHM/direct/direct`` -> ("SHM", False).
    """
    parts = via.split("/")
    head = parts[0]
    if head == "NET" and len(parts) > 1:
        return "NET/" + parts[1], any(p.startswith("GDRDMA") for p in parts)
    if head == "P2P" and len(parts) > 1:
        sub = parts[1].split()[0]  # "direct pointer"
        if sub == "MNNVL":
            return "P2P/MNNVL", False
        return "P2P/" + sub.upper() if sub in ("CUMEM", "IPC") else "P2P/" + sub, False
    if head == "SHM":
        return "SHM", False
    return head, False


def parse(lines):
    """A summary of NCCL's INFO lines (any iterable of text lines; other lines are ignored).

    Returns {"version", "network", "ib_devices", "socket_ifs", "oob_if", "gdr", "ranks",
    "connections", "env"}; ``connections`` holds one entry per distinct
    (src rank, dst rank, via), with the hosts of both ranks when the ``comm ... rank``
    lines named them.
    """
    out = {"version": None, "network": None, "ib_devices": [], "socket_ifs": [], "oob_if": None, "gdr": {},
           "ranks": {}, "connections": [], "env": {}}
    seen = set()
    for raw in lines:
        line = raw.rstrip("\r\n")
        m = _PREFIX.search(line.strip())
        if not m:
            v = _VERSION.search(line)
            if v and "NCCL" in line and out["version"] is None:
                out["version"] = v.group("v")
            continue
        host, msg = m.group("host"), m.group("msg").strip()
        v = _VERSION.search(msg)
        if v and msg.startswith("NCCL version"):
            out["version"] = out["version"] or v.group("v")
            continue
        c = _CHANNEL.match(msg)
        if c:
            key = (int(c.group("src")), int(c.group("dst")), c.group("via"))
            if key not in seen:
                seen.add(key)
                kind, gdr = kind_of(c.group("via"))
                out["connections"].append({"src": key[0], "dst": key[1], "via": key[2], "kind": kind, "gdr": gdr,
                                           "logged_on": host})
            continue
        c = _COMM.match(msg)
        if c:
            out["ranks"][int(c.group("rank"))] = {"host": host, "cuda_dev": int(c.group("cuda")),
                                                  "nranks": int(c.group("nranks")), "bus_id": c.group("bus")}
            continue
        c = _NETWORK.match(msg)
        if c:
            out["network"] = c.group("net")
            continue
        c = _IB_USING.match(msg)
        if c and msg.startswith("NET/IB"):
            devs = [{"index": int(d.group("i")), "device": d.group("dev"), "port": int(d.group("port")),
                     "link": d.group("link")} for d in _IB_DEV.finditer(c.group("devs") or "")]
            if devs:
                out["ib_devices"] = devs
            if c.group("oob"):
                out["oob_if"] = c.group("oob")
            continue
        c = _SOCK_USING.match(msg)
        if c:
            ifs = [{"index": int(d.group("i")), "name": d.group("name"), "addr": d.group("addr")}
                   for d in _SOCK_IF.finditer(c.group("ifs") or "")]
            if ifs:
                out["socket_ifs"] = ifs
            continue
        c = _GDR.match(msg)
        if c:
            out["gdr"][c.group("dev")] = c.group("state") == "Enabled"
            continue
        c = _ENVSET.match(msg)
        if c:
            # the same rule as the facts' env section: a secret-looking name keeps a hash
            out["env"][c.group("name")] = env_value(c.group("name"), c.group("value"))
    for conn in out["connections"]:
        a, b = out["ranks"].get(conn["src"]), out["ranks"].get(conn["dst"])
        conn["src_host"] = a["host"] if a else None
        conn["dst_host"] = b["host"] if b else None
    return out


def transports(summary, rank_nodes=None):
    """{"inter": [...], "intra": [...]}: the distinct transport families NCCL used between
    ranks on different nodes and inside a node. ``rank_nodes`` maps rank -> node name (the
    probe knows it; otherwise the hosts NCCL printed are used)."""
    inter, intra = set(), set()
    for c in summary["connections"]:
        if rank_nodes is not None:
            a, b = rank_nodes.get(c["src"]), rank_nodes.get(c["dst"])
        else:
            a, b = c.get("src_host"), c.get("dst_host")
        label = c["kind"] + ("+GDRDMA" if c["gdr"] else "")
        if a is None or b is None:
            # NET is only ever used across nodes (or with P2P and SHM disabled); the rest is local
            (inter if c["kind"].startswith("NET/") else intra).add(label)
        elif a == b:
            intra.add(label)
        else:
            inter.add(label)
    return {"inter": sorted(inter), "intra": sorted(intra)}


def links(summary, rank_nodes=None):
    """Connections folded by (node, node, transport): [{src_node, dst_node, src_host, dst_host,
    kind, gdr, count}]. ``*_host`` are the host names NCCL printed (the same name means the
    same machine, whatever the probe called its nodes)."""
    agg = {}
    for c in summary["connections"]:
        a = rank_nodes.get(c["src"]) if rank_nodes else c.get("src_host")
        b = rank_nodes.get(c["dst"]) if rank_nodes else c.get("dst_host")
        key = (a, b, c.get("src_host"), c.get("dst_host"), c["kind"], c["gdr"])
        agg[key] = agg.get(key, 0) + 1
    return [{"src_node": k[0], "dst_node": k[1], "src_host": k[2], "dst_host": k[3], "kind": k[4], "gdr": k[5],
             "count": n} for k, n in sorted(agg.items(), key=lambda kv: tuple(str(x) for x in kv[0]))]


def describe(summary, rank_nodes=None):
    """One short line: ``NET/IB+GDRDMA over mlx5_0,mlx5_1`` or ``NET/Socket over eth0``."""
    t = transports(summary, rank_nodes)
    parts = []
    if t["inter"]:
        what = ",".join(t["inter"])
        if any(x.startswith("NET/IB") for x in t["inter"]):
            nics = [d["device"] for d in summary["ib_devices"]]
        elif any(x.startswith("NET/") for x in t["inter"]):
            nics = [i["name"] for i in summary["socket_ifs"]]
        else:  # SHM or P2P between "nodes": they share a machine, no NIC is involved
            nics = []
        parts.append(what + (" over " + ",".join(nics) if nics else ""))
    if t["intra"]:
        parts.append("in-node " + ",".join(t["intra"]))
    return "; ".join(parts) or None
