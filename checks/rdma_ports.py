"""Every RDMA port NCCL may use must be ACTIVE, and a container must see the uverbs devices.

NCCL picks RDMA devices from /sys/class/infiniband; a DOWN port (a reported Alibaba Cloud node: the
second eRDMA NIC eth1 without an address until `dhclient eth1`) or a missing
/dev/infiniband/uverbsN inside a container (a container started with `docker run --device=...`) makes it
fail or fall back to TCP sockets ("NET/IB : No device found", "NET/Socket").
"""

from gpudoctor.registry import NA, Finding, Pass, Skip, check, cmd
from gpudoctor.util import container_of

VENDOR_MODULES = ("mlx5_core", "mlx5_ib", "mlx4_ib", "erdma", "irdma", "bnxt_re", "efa")


def _port_label(dev, port):
    return "%s port %s" % (dev["name"], port["port"])


def _netdev(facts, name):
    net = facts.get("network") or {}
    for i in net.get("interfaces") or []:
        if i["name"] == name:
            return i
    return None


def _port_fix(facts, dev, port):
    nd = port.get("netdev")
    if port.get("link_layer") == "InfiniBand":
        if port.get("state") == "INIT":
            return cmd("INIT means no subnet manager answered: start one on the fabric "
                       "(systemctl start opensm on one node, or enable the switch's SM)\nibstat {dev}", dev=dev["name"])
        return cmd("check the cable and the switch port; then: ibstat {dev}", dev=dev["name"])
    if nd:
        iface = _netdev(facts, nd)
        lines = []
        if iface is not None and iface.get("state") not in ("up", "unknown"):
            lines.append(cmd("ip link set dev {nd} up", nd=nd))
        if iface is None or not iface.get("ipv4"):
            lines.append(cmd("dhclient -v {nd}   # the port stays DOWN until {nd} has an address", nd=nd))
        lines.append(cmd("ibv_devinfo -d {dev}   # state must read PORT_ACTIVE", dev=dev["name"]))
        return "\n".join(lines)
    return cmd("ibv_devinfo -d {dev}   # state must read PORT_ACTIVE", dev=dev["name"])


@check("rdma.ports", title="RDMA ports are ACTIVE and visible where the job runs", needs=("rdma",),
       also_reads=("host",))
def rdma_ports(facts, config):
    rdma = facts["rdma"]
    devices = rdma.get("devices") or []
    if not isinstance(devices, list) or not all(
            isinstance(d, dict) and isinstance(d.get("name"), str) and isinstance(d.get("ports") or [], list)
            and all(isinstance(p, dict) for p in d.get("ports") or []) for d in devices):
        yield Skip("RDMA devices in the facts are malformed (untrusted node output)")
        return
    modules = [m for m in rdma.get("modules_loaded") or [] if isinstance(m, str) and m in VENDOR_MODULES]
    if not devices:
        if modules:
            yield Finding.warning(
                "no RDMA device, though %s %s loaded: NCCL will use TCP sockets" % (
                    ", ".join(modules), "is" if len(modules) == 1 else "are"),
                observed="/sys/class/infiniband %s; modules %s" % (
                    "is empty" if rdma.get("class_infiniband_exists") else "does not exist", ", ".join(modules)),
                expected="an RDMA device per RDMA NIC (or unload the modules when the node has none)",
                fix="lspci | grep -i -e mellanox -e infiniband -e 1ded   # is the NIC (or its VF) passed through?\n"
                    "dmesg | grep -i -e mlx5 -e erdma | tail\n"
                    "if this node has no RDMA NIC: export NCCL_IB_DISABLE=1")
        else:
            builtin = [m for m in rdma.get("modules_builtin") or [] if m in VENDOR_MODULES]
            yield NA("no RDMA device%s: NCCL will use TCP sockets" % (
                " (%s built into the kernel, no device)" % ", ".join(builtin) if builtin else ""))
        return
    ports = [(d, p) for d in devices for p in d.get("ports") or []]
    active = [(d, p) for d, p in ports if p.get("state") == "ACTIVE"]
    if not active:
        yield Finding.error(
            "RDMA devices exist but no port is ACTIVE: %s" % ", ".join(
                "%s (%s, %s)" % (_port_label(d, p), p.get("state"), p.get("phys_state")) for d, p in ports),
            observed="0 of %d ports ACTIVE" % len(ports), expected="at least one ACTIVE port",
            fix="\n".join(_port_fix(facts, d, p) for d, p in ports))
    else:
        for d, p in ports:
            if p.get("state") != "ACTIVE":
                yield Finding.warning(
                    "%s (%s, driver %s) is %s / %s" % (_port_label(d, p), p.get("netdev") or p.get("link_layer"),
                                                       d.get("driver"), p.get("state"), p.get("phys_state")),
                    observed="%s %s" % (_port_label(d, p), p.get("state")), expected="ACTIVE",
                    fix=_port_fix(facts, d, p))
    # what the job's processes can open: uverbsN per device, rdma_cm for the connection manager
    present = set(rdma.get("dev_infiniband") or [])
    need = ["rdma_cm"] + [d["uverbs"] for d in devices if d.get("uverbs")]
    missing = [n for n in need if n not in present]
    container = container_of(facts)
    if missing and container:
        yield Finding.error(
            "inside a %s container the RDMA devices are visible in /sys but /dev/infiniband lacks %s"
            % (container, ", ".join(missing)),
            observed="/dev/infiniband: %s" % (", ".join(sorted(present)) or "missing"),
            expected=", ".join(need),
            fix="restart the container with:\n  " + " \\\n  ".join(
                ["docker run --net=host --ulimit memlock=-1 --shm-size=8g"] +
                [cmd("--device={d}", d="/dev/infiniband/%s" % n) for n in need]) + " ...\n"
                "(or --privileged; Kubernetes: an RDMA device plugin resource, e.g. rdma/hca)")
    elif missing:
        yield Finding.error(
            "/dev/infiniband lacks %s: verbs cannot open the devices" % ", ".join(missing),
            observed="/dev/infiniband: %s" % (", ".join(sorted(present)) or "missing"), expected=", ".join(need),
            fix="modprobe ib_uverbs rdma_ucm")
    if active and not missing:
        yield Pass("%d of %d ports ACTIVE (%s); /dev/infiniband has %s" % (
            len(active), len(ports), ", ".join(" ".join(x for x in (_port_label(d, p), p.get("rate")) if x)
                                               for d, p in active[:4]), ", ".join(need)))
