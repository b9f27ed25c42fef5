"""Open MPI's TCP transport: which interface to leave out (or keep), read from the log's own lines when no
facts say which NIC is routable (fixes.py, computed = "btl_tcp_if").

Open MPI's TCP BTL offers every up interface of a node to its peers (opal/mca/btl/tcp/btl_tcp_component.c,
mca_btl_tcp_component_create_instances; btl_tcp_if_include / btl_tcp_if_exclude choose among them, default
exclude "127.0.0.1/8,sppp"), and its lines name the peer address it tried:

- btl_tcp_endpoint.c: '[host][[job,vpid],rank][btl_tcp_endpoint.c:N:mca_btl_tcp_endpoint_complete_connect]
  connect() to <addr> failed: <strerror> (<errno>)' and 'Unable to connect to the peer <addr> on port <port>:
  <strerror>' (BTL_ERROR / BTL_PEER_ERROR formats, generated/ompi_messages.json);
- help-mpi-btl-tcp.txt [client connect fail]: '  Message:    connect() to <addr>:<port> failed'.

The address says what kind of interface carried it: IPv6 link-local (fe80::/10, RFC 4291 2.5.6: never routed,
valid on one link only), IPv4 link-local (169.254.0.0/16, RFC 3927: an interface that got no DHCP lease), the
default address ranges of Docker's bridge (172.17.0.0/16, docker0) and libvirt's (192.168.122.0/24, virbr0),
which every node carries alike. A bridge or overlay interface named in the log is the one to exclude.
Only the log's own text is read, and only addresses and interface names come out of it (bounded patterns).
"""

import ipaddress
import re

# the peer address of the TCP BTL's connect lines (bounded: an address is at most 45 characters; IPv6 may be
# bracketed or carry a %zone)
_ADDR = re.compile(r"(?:connect\(\) to|Unable to connect to the peer|Connection to|connect to) \[?"
                   r"([0-9A-Fa-f:.]{2,45})(?:%[\w.-]{1,16})?\]?(?::\d{1,5})?(?=[\s,;)]|$)")
# interfaces every node has alike, or that never route between nodes (Docker, libvirt, CNI, Kubernetes, VPNs)
_BRIDGE = re.compile(r"\b(docker0|virbr\d{1,3}|br-[0-9a-f]{12}|cni0|flannel\.\d{1,3}|cilium_host|"
                     r"kube-ipvs0|lxdbr0|tailscale0|zt[0-9a-z]{8,12})\b")


def _addresses(texts):
    out = []
    for t in texts:
        for m in _ADDR.finditer(t):
            addr = m.group(1)
            if "." in addr and addr.count(":") == 1:  # IPv4 with its port ('169.254.140.13:1026')
                addr = addr.split(":")[0]
            try:
                a = ipaddress.ip_address(addr)
            except ValueError:
                continue
            if a not in out:
                out.append(a)
    return out


def _exclude(names, why):
    ifs = ",".join(["lo"] + names)
    return ("mpirun --mca btl_tcp_if_exclude %s --mca oob_tcp_if_exclude %s ...   (%s)" % (ifs, ifs, why))


def from_log(texts):
    """The fix line for Open MPI's TCP interface choice, with the reason read from the log's lines, or None when
    they name no address or interface that says which."""
    bridges = []
    for t in texts:
        for m in _BRIDGE.finditer(t):
            if m.group(1) not in bridges:
                bridges.append(m.group(1))
    for a in _addresses(texts):
        if a.version == 6 and a.is_link_local:
            # btl_tcp_component.c registers 'disable_family' (4 or 6); ORTE's oob_tcp_component.c (Open MPI 4.x)
            # 'disable_ipv6_family'
            return ("mpirun --mca btl_tcp_disable_family 6 --mca oob_tcp_disable_ipv6_family 1 ...   (the peer "
                    "address %s is IPv6 link-local, valid on one link only: keep Open MPI on IPv4, or name the "
                    "nodes' NIC with --mca btl_tcp_if_include <NIC>)" % a)
        if a.version == 4 and a.is_link_local:
            return ("mpirun --mca btl_tcp_if_exclude lo,<the interface with %s: ip -br addr | grep 169.254> "
                    "--mca oob_tcp_if_exclude <same> ...   (%s is an IPv4 link-local address: an interface that got "
                    "no DHCP lease, not routed between the nodes; or name the nodes' network: --mca "
                    "btl_tcp_if_include <CIDR>)" % (a, a))
        if a.version == 4 and a in ipaddress.ip_network("172.17.0.0/16"):
            return _exclude(bridges or ["docker0"], "the peer address %s is in Docker's default bridge network "
                                                    "(docker0), which every node carries alike" % a)
        if a.version == 4 and a in ipaddress.ip_network("192.168.122.0/24"):
            return _exclude(bridges or ["virbr0"], "the peer address %s is in libvirt's default network (virbr0), "
                                                   "which every node carries alike" % a)
    if bridges:
        return _exclude(bridges, "the log names %s: a bridge or overlay interface that does not route between "
                                 "the nodes" % ", ".join(bridges))
    return None
