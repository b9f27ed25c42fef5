"""The hostname must be unique and resolve to an address other nodes can reach.

A default name (localhost, localhost.localdomain, as cloud images leave it) or a name that /etc/hosts maps
to a loopback address (Debian/Ubuntu's `127.0.1.1 <name>`, or `127.0.0.1 vm` on the
development machines and a real H100 node) makes torch's
rendezvous and NCCL's bootstrap advertise 127.x: the other nodes connect to themselves
and the job hangs or fails with "Connection refused".
"""

import re

from gpudoctor.fixline import bounded
from gpudoctor.registry import Finding, Pass, Skip, check, cmd
from gpudoctor.util import container_of

DEFAULT_NAMES = ("localhost", "localhost.localdomain", "localhost6", "localhost6.localdomain6", "")
# A host name (RFC 1123 section 2.1: letters, digits, '-', labels joined by '.'; '_' too, as /etc/hosts and ssh
# aliases take it), never starting with '-': the kernel takes any bytes as the hostname (sethostname(2); only
# hostname(1) refuses), and one like '-oProxyCommand=x' or 'gpu1,gpu3' is an option to ssh, a list to Slurm's
# nodelists and nothing a resolver can look up (slurm22: a node of a real Slurm whose hostname was that).
VALID_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,252}\Z")


def _as_root(facts):
    """How the fix runs a command that writes /etc: bare for root or a node whose uid is unknown, through sudo for
    another user (a user's shell opens `>> /etc/hosts` before any sudo could help, so the append goes through
    `sudo tee -a`: sudo(8), tee(1))."""
    uid = (facts.get("host") or {}).get("uid")
    return isinstance(uid, int) and not isinstance(uid, bool) and uid != 0


def _append_hosts(root, comment=""):
    line = "echo {line} | sudo tee -a /etc/hosts >/dev/null" if root else "echo {line} >> /etc/hosts"
    return line + ("   # " + comment if comment else "")


def is_loopback(addr):
    return isinstance(addr, str) and (addr.startswith("127.") or addr == "::1")


def primary_ipv4(facts):
    """(interface, address) other nodes most likely reach: the default route's interface,
    else the first up, non-virtual interface with an IPv4 address."""
    net = facts.get("network") or {}
    if net.get("status") != "ok":
        return None, None
    # node output is untrusted: only well-formed interface records count
    ifaces = [i for i in net.get("interfaces") or [] if isinstance(i, dict) and isinstance(i.get("name"), str)] \
        if isinstance(net.get("interfaces"), list) else []
    by_name = dict((i["name"], i) for i in ifaces)
    route = net.get("default_route")
    dr = route.get("interface") if isinstance(route, dict) else None
    dr = dr if isinstance(dr, str) else None
    order = ([by_name[dr]] if dr in by_name else []) + [i for i in ifaces if not i.get("virtual")]
    for i in order:
        for a in i.get("ipv4") if isinstance(i.get("ipv4"), list) else []:
            if isinstance(a, dict) and isinstance(a.get("address"), str) and not is_loopback(a["address"]):
                return i["name"], a["address"]
    return None, None


@check("host.name", title="the hostname is unique and resolves to a non-loopback address", needs=("host",))
def host_name(facts, config):
    host = facts["host"]
    name = host.get("hostname") or ""
    addrs = host.get("hostname_addresses") or []
    if not isinstance(name, str) or not isinstance(addrs, list) or not all(isinstance(a, str) for a in addrs):
        yield Skip("hostname or its addresses in the facts are not text")  # untrusted node output
        return
    iface, ip = primary_ipv4(facts)
    ip_text = ip or "<this-node-IP>"
    root = _as_root(facts)
    sudo = "sudo " if root else ""
    if name in DEFAULT_NAMES:
        yield Finding.error(
            "hostname is %r, the default every fresh machine has: nodes cannot tell each other apart" % name,
            observed="hostname %r" % name, expected="a unique name such as gpu01",
            fix=cmd(sudo + "hostnamectl set-hostname gpu01   # a unique name per node\n"
                    + _append_hosts(root, "on every node: each node's IP and name"), line="%s gpu01" % ip_text))
        return
    if not VALID_NAME.match(name):
        # (a long name cut at 100 characters is not the value the report's guard looks for: bounded() writes it
        # inert itself, docs/security.md 90.; a plain one as repr() quotes it, as before)
        shown = bounded(name, 100) if len(name) > 100 else repr(name)
        yield Finding.error(
            "hostname %s is not a host name (letters, digits, '-', '.', '_', never starting with '-'): ssh reads a "
            "leading '-' as an option, Slurm and pdsh read ',' and '[' as lists, and no resolver looks it up; "
            "MASTER_ADDR=$(hostname) fails" % shown,
            observed="hostname %s" % shown, expected="a plain, unique name such as gpu01",
            fix=cmd(sudo + "hostnamectl set-hostname gpu01   # a unique name per node (or /etc/hostname, then reboot)\n"
                    + _append_hosts(root, "on every node: each node's IP and name"), line="%s gpu01" % ip_text))
        return
    if not addrs:
        yield Finding.error(
            "hostname %s does not resolve: rendezvous (MASTER_ADDR=%s) and ssh by name fail" % (name, name),
            observed="%s resolves to nothing" % name, expected="%s -> %s" % (name, ip_text),
            fix=cmd(_append_hosts(root), line="%s %s" % (ip_text, name)))
        return
    loop = [a for a in addrs if is_loopback(a)]
    if loop and len(loop) == len(addrs):
        # sed's ERE (POSIX regex(7)): the name's special characters escaped, then the whole
        # expression is one quoted word
        expr = "/^(127\\.|::1)/s/[[:space:]]%s([[:space:]]|$)/\\1/" % re.sub(r"([\\^$.|?*+()\[\]{}/])", r"\\\1", name)
        fix = cmd(sudo + "sed -i -E {expr} /etc/hosts   # drop {name} from the loopback lines\n" + _append_hosts(root),
                  expr=expr, name=name, line="%s %s" % (ip_text, name))
        if container_of(facts):
            fix += cmd("\n(in a container: docker run --add-host {pair}, or --network=host)",
                       pair="%s:%s" % (name, ip_text))
        yield Finding.error(
            "hostname %s resolves to %s (loopback): torch rendezvous and NCCL bootstrap would advertise an "
            "address other nodes cannot reach" % (name, ", ".join(addrs)),
            observed="%s -> %s" % (name, ", ".join(addrs)),
            expected="%s -> %s%s" % (name, ip_text, " (%s)" % iface if iface else ""), fix=fix)
    elif loop:
        yield Finding.warning(
            "hostname %s resolves to both %s and loopback %s: which one a program picks depends on order"
            % (name, ", ".join(a for a in addrs if a not in loop), ", ".join(loop)),
            observed="%s -> %s" % (name, ", ".join(addrs)), expected="%s -> %s only" % (name, ip_text),
            fix=cmd("remove {name} from the 127.x lines of /etc/hosts", name=name))
    else:
        yield Pass("hostname %s resolves to %s (not loopback)" % (name, ", ".join(addrs)))
