"""Network interfaces: /sys/class/net (state, MTU, speed, physical or virtual) and their
addresses, for NCCL_SOCKET_IFNAME, the hostname check and (later) cross-node exports.

Many GPU nodes have no `ip` command (a real H100 cloud node, fixtures/nodes/h100-*), so IPv4
addresses come from the SIOCGIFADDR ioctl on a live node, from `ip -j addr` when a
recorded reply is given, and from /proc/net/fib_trie + /proc/net/route otherwise
(recorded trees). IPv6 comes from /proc/net/if_inet6, which names the interface.
"""

from .base import loads, section
from .system import socket  # _socket where there is one (system.py says why)

try:
    import _struct as struct  # what struct.py re-exports (pack, unpack, error), without its lookup on sys.path
except ImportError:
    import struct

SIOCGIFADDR = 0x8915
SIOCGIFNETMASK = 0x891B
ARPHRD = {1: "ether", 32: "infiniband", 772: "loopback", 65534: "none", 776: "sit", 768: "ipip"}
# names of interfaces that containers, VMs and CNIs create (NCCL's own default skips docker, lo, virbr)
VIRTUAL_PREFIXES = ("docker", "veth", "br-", "virbr", "cni", "flannel", "cali", "tunl", "vxlan", "weave",
                    "kube-", "tap", "tun", "ifb", "dummy", "lxcbr", "vnet", "cilium", "genev", "nodelocaldns")


def _int(text):
    try:
        return int((text or "").strip())
    except ValueError:
        return None


def parse_port_range(text):
    """/proc/sys/net/ipv4/ip_local_port_range: "32768\t60999" -> [32768, 60999], the ports
    the kernel hands out for outgoing connections (Documentation/networking/ip-sysctl.rst)."""
    parts = (text or "").split()
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 5 for p in parts):
        return None
    lo, hi = int(parts[0]), int(parts[1])
    return [lo, hi] if 0 < lo <= hi < 65536 else None


def parse_fib_trie_local(text):
    """/proc/net/fib_trie -> the local IPv4 addresses ('/32 host LOCAL' leaves)."""
    out, last = [], None
    for line in (text or "").splitlines():
        s = line.strip()
        if s.startswith("|--"):
            last = s[3:].strip()
        elif s.startswith("/32 host LOCAL") and last:
            if last not in out:
                out.append(last)
    return out


def parse_proc_route(text):
    """/proc/net/route -> [{iface, destination, mask, gateway, prefixlen, default}] (hex is little-endian)."""
    routes = []
    lines = (text or "").splitlines()
    for line in lines[1:]:
        f = line.split()
        if len(f) < 8:
            continue
        try:
            dest, gw, mask = [socket.inet_ntoa(struct.pack("<I", int(x, 16))) for x in (f[1], f[2], f[7])]
        except (ValueError, struct.error):
            continue
        prefix = bin(struct.unpack("!I", socket.inet_aton(mask))[0]).count("1")
        routes.append({"iface": f[0], "destination": dest, "mask": mask, "gateway": gw, "prefixlen": prefix,
                       "default": dest == "0.0.0.0" and prefix == 0})
    return routes


def _in_net(addr, net, prefix):
    a = struct.unpack("!I", socket.inet_aton(addr))[0]
    n = struct.unpack("!I", socket.inet_aton(net))[0]
    m = (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF if prefix else 0
    return (a & m) == (n & m)


def ipv4_from_fib(fib_text, route_text):
    """{iface: [{address, prefixlen}]}: each local address goes to the interface whose connected
    route (gateway 0.0.0.0) holds it; 127.x goes to lo (its routes live in the local table)."""
    routes = [r for r in parse_proc_route(route_text) if r["gateway"] == "0.0.0.0" and not r["default"]]
    routes.sort(key=lambda r: -r["prefixlen"])
    out = {}
    for addr in parse_fib_trie_local(fib_text):
        if addr.startswith("127."):
            out.setdefault("lo", []).append({"address": addr, "prefixlen": 8})
            continue
        for r in routes:
            if _in_net(addr, r["destination"], r["prefixlen"]):
                out.setdefault(r["iface"], []).append({"address": addr, "prefixlen": r["prefixlen"]})
                break
    return out


def parse_ip_json(text):
    """`ip -j addr` -> {iface: {"ipv4": [...], "ipv6": [...]}}."""
    out = {}
    try:
        doc = loads(text or "[]")  # json.loads
    except ValueError:
        return out
    for link in doc if isinstance(doc, list) else []:
        name = link.get("ifname")
        if not name:
            continue
        entry = out.setdefault(name, {"ipv4": [], "ipv6": []})
        for a in link.get("addr_info") or []:
            fam = {"inet": "ipv4", "inet6": "ipv6"}.get(a.get("family"))
            if fam and a.get("local"):
                entry[fam].append({"address": a["local"], "prefixlen": a.get("prefixlen")})
    return out


def parse_if_inet6(text):
    """/proc/net/if_inet6 -> {iface: [{address, prefixlen, scope}]}."""
    out = {}
    for line in (text or "").splitlines():
        f = line.split()
        if len(f) < 6 or len(f[0]) != 32:
            continue
        raw = f[0]
        addr = ":".join(raw[i:i + 4] for i in range(0, 32, 4))
        try:
            addr = socket.inet_ntop(socket.AF_INET6, socket.inet_pton(socket.AF_INET6, addr))
        except (OSError, ValueError, AttributeError):
            pass
        scope = {"00": "global", "20": "link", "10": "host"}.get(f[3], f[3])
        out.setdefault(f[5], []).append({"address": addr, "prefixlen": int(f[2], 16), "scope": scope})
    return out


def _ioctl_ipv4(names):
    """Live only: each interface's primary IPv4 address and netmask, no subprocess."""
    import fcntl

    out = {}
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for name in names:
            req = struct.pack("256s", name.encode()[:15])
            try:
                addr = socket.inet_ntoa(fcntl.ioctl(s.fileno(), SIOCGIFADDR, req)[20:24])
                mask = socket.inet_ntoa(fcntl.ioctl(s.fileno(), SIOCGIFNETMASK, req)[20:24])
            except (OSError, IOError):
                continue
            prefix = bin(struct.unpack("!I", socket.inet_aton(mask))[0]).count("1")
            out[name] = [{"address": addr, "prefixlen": prefix}]
    finally:
        s.close()
    return out


def interface_kind(name, arphrd, is_bridge, has_device, is_bond=False):
    if name == "lo" or arphrd == 772:
        return "loopback"
    if is_bridge:
        return "bridge"
    if is_bond:
        return "bond"
    if arphrd == 32:
        return "ipoib"
    if name.startswith("veth"):
        return "veth"
    if name.startswith(VIRTUAL_PREFIXES):
        return "virtual"
    if "." in name and not has_device:
        return "vlan"
    return "physical" if has_device else "virtual"


@section("network")
def network(ctx):
    base = "/sys/class/net"
    names = [n for n in ctx.listdir(base) if not n.startswith(".")]
    ipv4, source = {}, None
    if ctx.live:
        try:
            ipv4, source = _ioctl_ipv4(names), "ioctl"
        except (OSError, IOError, ImportError):
            ipv4 = {}
    if not source and ctx.commands is not None:
        rc, out = ctx.run(["ip", "-j", "addr"])
        if rc == 0:
            parsed = parse_ip_json(out)
            ipv4, source = dict((k, v["ipv4"]) for k, v in parsed.items()), "ip -j addr"
    if not source:
        fib = ctx.read("/proc/net/fib_trie")
        if fib is not None:
            ipv4, source = ipv4_from_fib(fib, ctx.read("/proc/net/route")), "/proc/net/fib_trie"
    ipv6 = parse_if_inet6(ctx.read("/proc/net/if_inet6"))
    routes = parse_proc_route(ctx.read("/proc/net/route"))
    default = [r for r in routes if r["default"]]
    interfaces = []
    for name in names:
        d = base + "/" + name
        arphrd = _int(ctx.read(d + "/type"))
        speed = _int(ctx.read(d + "/speed"))  # EINVAL (None) or -1 when the link is down or virtual
        has_device = ctx.exists(d + "/device")
        is_bridge = ctx.isdir(d + "/bridge")
        kind = interface_kind(name, arphrd, is_bridge, has_device, ctx.isdir(d + "/bonding"))
        master = ctx.readlink(d + "/master")
        interfaces.append({
            "name": name, "kind": kind, "virtual": kind not in ("physical", "ipoib", "bond", "vlan"),
            "link_type": ARPHRD.get(arphrd, arphrd), "state": (ctx.read(d + "/operstate") or "").strip() or None,
            "carrier": _int(ctx.read(d + "/carrier")), "mtu": _int(ctx.read(d + "/mtu")),
            "speed_mbps": speed if speed and speed > 0 else None,
            "mac": (ctx.read(d + "/address") or "").strip() or None,
            "master": master.rsplit("/", 1)[-1] if master else None,
            "ipv4": ipv4.get(name, []), "ipv6": ipv6.get(name, []),
        })
    # the master port: one in the ephemeral range can be taken by any outgoing connection
    # first; below ip_unprivileged_port_start (1024 unless lowered; Linux 4.11+) binding
    # needs root or CAP_NET_BIND_SERVICE (checks/launch.py launch.port)
    unpriv = _int(ctx.read("/proc/sys/net/ipv4/ip_unprivileged_port_start"))
    return {"interfaces": interfaces, "ipv4_source": source,
            "ip_local_port_range": parse_port_range(ctx.read("/proc/sys/net/ipv4/ip_local_port_range")),
            "ip_unprivileged_port_start": unpriv if unpriv is not None and 0 <= unpriv < 65536 else None,
            "default_route": ({"interface": default[0]["iface"], "gateway": default[0]["gateway"]}
                              if default else None)}
