"""RDMA devices and ports from /sys/class/infiniband (formats: Linux
drivers/infiniband/core/sysfs.c and core/cache.c), the per-port GID table, the netdev
behind each port, the uverbs character devices and what a container can see of them.

Nothing here runs a command: ibv_devinfo needs rdma-core in the image, sysfs does not.
"""

import os

from .base import section

# kernel modules that mean "this node is meant to do RDMA" (sysfs name: hyphens become _)
RDMA_MODULES = ("ib_core", "ib_uverbs", "rdma_ucm", "rdma_cm", "mlx5_core", "mlx5_ib", "mlx4_ib", "erdma",
                "irdma", "bnxt_re", "efa", "rdma_rxe", "siw")
GDR_MODULES = ("nvidia_peermem", "nv_peer_mem")
ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000"


def parse_state(text):
    """'4: ACTIVE' -> (4, 'ACTIVE')."""
    text = (text or "").strip()
    if ":" in text:
        num, name = text.split(":", 1)
        try:
            return int(num), name.strip()
        except ValueError:
            pass
    return None, text or None


def parse_rate(text):
    """'200 Gb/sec (4X HDR)' -> (200.0, '4X HDR'); '2.5 Gb/sec (1X SDR)' -> (2.5, '1X SDR')."""
    text = (text or "").strip()
    if not text:
        return None, None
    head, _, tail = text.partition("(")
    gbps = None
    try:
        gbps = float(head.split()[0])
        gbps = gbps if gbps - gbps == 0 else None  # 'inf'/'nan' parse as floats: not a rate, not JSON
    except (ValueError, IndexError):
        pass
    return gbps, tail.rstrip(")").strip() or None


def gid_ipv4(gid):
    """The IPv4 address inside an IPv4-mapped GID ('...:0000:ffff:c0a8:6401' -> '192.168.100.1')."""
    parts = (gid or "").split(":")
    if len(parts) != 8 or [p.lower() for p in parts[:6]] != ["0000"] * 5 + ["ffff"]:
        return None
    try:
        hi, lo = int(parts[6], 16), int(parts[7], 16)
    except ValueError:
        return None
    return "%d.%d.%d.%d" % (hi >> 8, hi & 255, lo >> 8, lo & 255)


def parse_proc_modules(text):
    """/proc/modules -> {name: {"size": int, "refcount": int, "state": "Live"}} (taint flags ignored)."""
    out = {}
    for line in (text or "").splitlines():
        f = line.split()
        if len(f) >= 5:
            try:
                out[f[0]] = {"size": int(f[1]), "refcount": int(f[2]) if f[2].isdigit() else None, "state": f[4]}
            except ValueError:
                continue
    return out


def loaded_modules(ctx, once=False):
    """Names of loaded kernel modules: /proc/modules, else the /sys/module entries that have an
    initstate (only loadable modules do; built-ins with parameters appear there without one).
    ``once``: the answer read for this Context before, if any (rdma and ofed both ask; a kernel
    without /proc/modules, as on this project's test VM, has 78 /sys/module entries to look
    at); watch reads it again at the end of its window."""
    cached = getattr(ctx, "_loaded_modules", None) if once else None
    if cached is not None:
        return list(cached[0]), cached[1]
    text = ctx.read("/proc/modules")
    if text is not None:
        got = sorted(parse_proc_modules(text)), "/proc/modules"
    else:
        got = sorted(m for m in ctx.listdir("/sys/module") if ctx.exists("/sys/module/%s/initstate" % m)), "/sys/module"
    ctx._loaded_modules = got
    return list(got[0]), got[1]


def read_gids(ctx, port_dir):
    """The populated GID table of one port: [{index, gid, type, ndev, ipv4}]. Unpopulated
    indexes read as all zeros (older kernels) or fail with EINVAL (newer ones)."""
    gids = []
    names = [n for n in ctx.listdir(port_dir + "/gids") if n.isdigit()]
    for idx in sorted(names, key=int):
        gid = (ctx.read(port_dir + "/gids/" + idx) or "").strip()
        if not gid or gid == ZERO_GID:
            continue
        gtype = (ctx.read(port_dir + "/gid_attrs/types/" + idx) or "").strip() or None
        ndev = (ctx.read(port_dir + "/gid_attrs/ndevs/" + idx) or "").strip() or None
        gids.append({"index": int(idx), "gid": gid, "type": gtype, "ndev": ndev, "ipv4": gid_ipv4(gid)})
    return gids


def _uverbs_map(ctx):
    """{ibdev: 'uverbsN'} from /sys/class/infiniband_verbs/uverbsN/ibdev."""
    out = {}
    for uv in ctx.listdir("/sys/class/infiniband_verbs"):
        ibdev = (ctx.read("/sys/class/infiniband_verbs/%s/ibdev" % uv) or "").strip()
        if ibdev:
            out[ibdev] = uv
    return out


@section("rdma")
def rdma(ctx):
    base = "/sys/class/infiniband"
    uverbs = _uverbs_map(ctx)
    devices = []
    for dev in ctx.listdir(base):
        if dev.startswith("."):
            continue
        d = base + "/" + dev
        driver = ctx.readlink(d + "/device/driver")
        netdevs = [n for n in ctx.listdir(d + "/device/net") if not n.startswith(".")]
        ports = []
        for port in ctx.listdir(d + "/ports"):
            p = d + "/ports/" + port
            state_num, state = parse_state(ctx.read(p + "/state"))
            _, phys = parse_state(ctx.read(p + "/phys_state"))
            rate = (ctx.read(p + "/rate") or "").strip() or None
            gbps, width = parse_rate(rate)
            gids = read_gids(ctx, p)
            # the port's netdev: what its GIDs point at (RoCE), else the PCI function's netdev
            ndevs = sorted(set(g["ndev"] for g in gids if g["ndev"]))
            ports.append({
                "port": int(port) if port.isdigit() else port, "state": state, "state_num": state_num,
                "phys_state": phys, "link_layer": (ctx.read(p + "/link_layer") or "").strip() or None,
                "rate": rate, "rate_gbps": gbps, "width": width,
                "lid": (ctx.read(p + "/lid") or "").strip() or None,
                "sm_lid": (ctx.read(p + "/sm_lid") or "").strip() or None,
                "gids": gids, "netdev": ndevs[0] if ndevs else (netdevs[0] if len(netdevs) == 1 else None)})
        devices.append({"name": dev, "driver": os.path.basename(driver) if driver else None,
                        "node_type": (ctx.read(d + "/node_type") or "").strip() or None,
                        "node_guid": (ctx.read(d + "/node_guid") or "").strip() or None,
                        "fw_ver": (ctx.read(d + "/fw_ver") or "").strip() or None,
                        "netdevs": netdevs, "uverbs": uverbs.get(dev), "ports": ports})
    modules, modules_source = loaded_modules(ctx, once=True)
    return {
        "devices": devices,
        "class_infiniband_exists": ctx.isdir(base),
        "dev_infiniband": [n for n in ctx.listdir("/dev/infiniband") if not n.startswith(".")],
        "modules_loaded": [m for m in modules if m in RDMA_MODULES],
        # built into the kernel: /sys/module/<name> without an initstate (the real GPU node's
        # 6.18 kernel has mlx5_core, mlx5_ib and ib_core built in; /proc/modules lists only nvidia)
        "modules_builtin": [m for m in RDMA_MODULES if m not in modules and ctx.isdir("/sys/module/" + m)
                            and not ctx.exists("/sys/module/%s/initstate" % m)],
        "gdr_modules_loaded": [m for m in modules if m in GDR_MODULES],
        "modules_source": modules_source,
    }
