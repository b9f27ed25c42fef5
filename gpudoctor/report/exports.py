"""Remediation exports: a sourceable shell snippet computed from every node's facts, each
line with a comment saying why. `eval "$(gpudoctor exports --hosts FILE)"` works in bash.

Only what the facts support is exported; where the nodes disagree so much that no one
value fits all (no interface name common to every node), a comment says so instead.
"""

import re

from gpudoctor.fixline import sh
from gpudoctor.nodes import fold

# Interfaces NCCL must never bootstrap over (docker bridges, veth pairs, libvirt, loopback).
NOT_FOR_NCCL = ("lo", "docker", "veth", "virbr", "br-", "cni", "flannel", "cali", "tun", "tap", "kube")


def _ok(facts, name):
    s = facts.get(name) if isinstance(facts, dict) else None
    return s if isinstance(s, dict) and s.get("status") == "ok" else None


def _items(value):
    """The dicts of a list that facts say is a list of records; anything else is skipped.
    One node's odd facts (an interface without a name, a port that is a string) must cost
    that node's entry, never the cluster's snippet."""
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def valid_ifname(name):
    """Linux's rule for an interface name (net/core/dev.c, dev_valid_name): 1-15 bytes
    (IFNAMSIZ 16 with the NUL), not '.' or '..', no '/', ':' or whitespace. Stricter here:
    printable ASCII only, since the name lands in a shell snippet."""
    return (isinstance(name, str) and 0 < len(name) < 16 and name not in (".", "..")
            and all(33 <= ord(c) < 127 and c not in "/:" for c in name))


def _valid_rdma(name):
    # IB_DEVICE_NAME_MAX is 64 (include/rdma/ib_verbs.h); names are like mlx5_0, rxe0
    return isinstance(name, str) and 0 < len(name) < 64 and all(c.isascii() and (c.isalnum() or c in "_-.")
                                                               for c in name)


def usable_interfaces(facts):
    """Names of interfaces that are up, carry an IPv4 address, and are not virtual plumbing."""
    net = _ok(facts, "network")
    if not net:
        return None
    out = []
    for i in _items(net.get("interfaces")):
        name = i.get("name")
        if not valid_ifname(name) or name.startswith(NOT_FOR_NCCL) or i.get("kind") in ("loopback", "veth", "bridge"):
            continue
        if i.get("state") not in ("up", "unknown") or not i.get("ipv4"):
            continue
        out.append(name)
    return out


def active_ports(facts):
    """[(device, port, link_layer, gids)] of ACTIVE RDMA ports; None when unknown."""
    r = _ok(facts, "rdma")
    if r is None:
        return None
    out = []
    for d in _items(r.get("devices")):
        for p in _items(d.get("ports")):
            port = p.get("port")
            if p.get("state") != "ACTIVE" or not _valid_rdma(d.get("name")):
                continue
            if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 256:  # u8 port_num
                continue
            out.append((d["name"], port, p.get("link_layer"), _items(p.get("gids"))))
    return out


def _roce_v2_ipv4_index(gids):
    idx = [g["index"] for g in gids if g.get("type") == "RoCE v2" and g.get("ipv4")
           and isinstance(g.get("index"), int) and not isinstance(g.get("index"), bool) and 0 <= g["index"] < 65536]
    return min(idx) if idx else None


def compute(nodes):
    """[(name, value or None, why)] for every node's facts {host: facts}."""
    lines = []
    nodes = {h: f for h, f in nodes.items() if isinstance(f, dict)}
    ifaces = {h: usable_interfaces(f) for h, f in nodes.items()}
    known = {h: v for h, v in ifaces.items() if v is not None}
    if known:
        common = set.intersection(*(set(v) for v in known.values())) if known else set()
        empty = sorted(h for h, v in known.items() if not v)
        if common:
            pick = sorted(common, key=_iface_rank)
            lines.append(("NCCL_SOCKET_IFNAME", "=" + pick[0],
                          "%s is up with an IPv4 address on %s (%s); never lo or docker ('=' asks NCCL for "
                          "exactly this name)" % (
                              pick[0], "all %d nodes" % len(known) if len(known) > 1 else "the node", fold(known))))
        elif not empty:
            prefixes = sorted({_prefix(n) for v in known.values() for n in v})
            lines.append(("NCCL_SOCKET_IFNAME", ",".join(prefixes),
                          "no interface name is common to all nodes; these prefixes cover one usable interface "
                          "on each (%s)" % "; ".join("%s: %s" % (h, ",".join(v)) for h, v in sorted(known.items()))))
        else:
            lines.append(("NCCL_SOCKET_IFNAME", None, "no usable interface (up, with IPv4, not lo/docker) on %s"
                          % fold(empty)))
    ports = {h: active_ports(f) for h, f in nodes.items()}
    pk = {h: v for h, v in ports.items() if v is not None}
    if pk:
        without = sorted(h for h, v in pk.items() if not v)
        has_devices = any(((_ok(f, "rdma") or {}).get("devices")) for f in nodes.values())
        if without and has_devices:
            lines.append(("NCCL_IB_DISABLE", "1", "no ACTIVE RDMA port on %s: NCCL over IB would fail there; "
                          "sockets everywhere until it is fixed" % fold(without)))
        elif not without:
            common = set.intersection(*({"%s:%s" % (d, p) for d, p, _, _ in v} for v in pk.values()))
            if common:
                lines.append(("NCCL_IB_HCA", "=" + ",".join(sorted(common)),
                              "ACTIVE on every node (%s)" % fold(pk)))
            roce = [[_roce_v2_ipv4_index(g) for d, p, ll, g in v if ll == "Ethernet"] for v in pk.values()]
            if all(roce) and all(r and r[0] is not None for r in roce):
                idx = {r[0] for r in roce}
                if len(idx) == 1:
                    lines.append(("NCCL_IB_GID_INDEX", str(idx.pop()), "the RoCE v2 GID with an IPv4 address, "
                                  "the same index on every node"))
                else:
                    lines.append(("NCCL_IB_GID_INDEX", None, "the RoCE v2 IPv4 GID index differs between nodes "
                                  "(%s); set it per node" % ", ".join(sorted(map(str, idx)))))
    return lines


def _iface_rank(name):
    for i, p in enumerate(("bond", "ib", "ens", "enp", "eth", "eno")):
        if name.startswith(p):
            return (i, name)
    return (9, name)


def _prefix(name):
    return name.rstrip("0123456789") or name


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}\Z")  # a POSIX shell variable name


def _comment(text):
    """One comment line: a newline (or any control character) in a value that came from a
    node would end the comment and make the rest a command under eval."""
    text = "".join(c if c.isprintable() else "?" for c in str(text))
    return text[:400] + ("..." if len(text) > 400 else "")


def from_findings(findings):
    """Exports that checks attached to their findings (cuda.libs' LD_LIBRARY_PATH, ...)."""
    out = {}
    for f in findings:
        exports = f.exports if isinstance(getattr(f, "exports", None), dict) else {}
        for name, value in exports.items():
            if not isinstance(name, str) or not _NAME.match(name) or not isinstance(value, str):
                continue
            out.setdefault(name, (value, "%s: %s" % (f.check, str(f.message)[:160])))
    return out


def render(lines, extra=None):
    """The snippet. `extra` adds exports found by checks (e.g. cuda.libs' LD_LIBRARY_PATH)."""
    out = ["# gpudoctor exports: computed from the nodes' facts; eval \"$(gpudoctor exports ...)\""]
    for name, value, why in lines:
        out.append("# %s" % _comment(why))
        out.append(("export %s=%s" % (name, sh(value))) if value is not None else "# (%s: no value fits)" % name)
    computed = {name for name, _, _ in lines}
    for name, (value, why) in sorted((extra or {}).items()):
        if name in computed:
            continue
        out.append("# %s" % _comment(why))
        # sh(): a value that holds a control or bidi character (a node's LD_LIBRARY_PATH entry) is one $'...' word,
        # not shlex.quote's '...' with the raw bytes, which a terminal acts on when the snippet is printed
        # (OSC 52 sets the clipboard; docs/security.md 84.)
        out.append("export %s=%s" % (name, sh(value)))
    return "\n".join(out) + "\n"
