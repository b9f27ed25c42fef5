"""Which transport NCCL chose, read from its own ``NCCL_DEBUG=INFO`` lines
(``NCCL_DEBUG_SUBSYS=INIT,NET``). Pure functions of text.

Each line is read by gpudoctor/nccl_infolog.py (the reader explain uses too; its docstring cites
the NCCL source of every format); this module folds a worker's lines into the probe's summary:
the network, the HCAs or socket interfaces, GPU Direct RDMA per HCA, and one connection per
(src rank, dst rank, via) with the hosts of both ranks.
"""

from gpudoctor import nccl_infolog as infolog
from gpudoctor.collector.system import env_value

kind_of = infolog.kind_of  # the transport family of one ``via ...`` string


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
        got = infolog.split(line)
        if got is None:  # torch prints the NCCL it bundles without NCCL's prefix
            v = infolog.version(line) if "NCCL" in line else None
            if v and out["version"] is None:
                out["version"] = v[0]
            continue
        host, _, msg = got
        msg = msg.strip()
        if msg.startswith("NCCL version"):
            v = infolog.version(msg)
            if v:
                out["version"] = out["version"] or v[0]
                continue
        c = infolog.channel(msg)
        if c and c["dst"] is not None:  # a CollNet line names one rank: no rank-to-rank connection
            key = (c["src"], c["dst"], c["via"])
            if key not in seen:
                seen.add(key)
                out["connections"].append({"src": key[0], "dst": key[1], "via": key[2], "kind": c["kind"],
                                           "gdr": c["gdr"], "logged_on": host})
            continue
        r = infolog.comm_rank(msg)
        if r:
            out["ranks"][r["rank"]] = {"host": host, "cuda_dev": r["cuda_dev"], "nranks": r["nranks"],
                                       "bus_id": r["bus_id"]}
            continue
        net = infolog.network(msg)
        if net:
            out["network"] = net
            continue
        using = infolog.net_using(msg)
        if using == "IB":
            ib = infolog.ib_using(msg)
            if ib["devices"]:
                out["ib_devices"] = ib["devices"]
            if ib["oob"]:
                out["oob_if"] = ib["oob"]
            continue
        if using == "Socket":
            ifs = infolog.socket_ifs(msg)
            if ifs:
                out["socket_ifs"] = ifs
            continue
        g = infolog.gdr(msg)
        if g:
            out["gdr"][g["device"]] = g["enabled"]
            continue
        e = infolog.env(msg)
        if e:
            # the same rule as the facts' env section: a secret-looking name keeps a hash
            out["env"][e[0]] = env_value(e[0], e[1])
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
