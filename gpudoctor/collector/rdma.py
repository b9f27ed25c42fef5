"""RDMA devices and ports from /sys/class/infiniband (formats: compat.md §5, kernel
drivers/infiniband/core/sysfs.c)."""

import os

from .base import section


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


@section("rdma")
def rdma(ctx):
    base = "/sys/class/infiniband"
    devices = []
    for dev in ctx.listdir(base):
        d = base + "/" + dev
        driver = ctx.readlink(d + "/device/driver")
        ports = []
        for port in ctx.listdir(d + "/ports"):
            p = d + "/ports/" + port
            _, state = parse_state(ctx.read(p + "/state"))
            _, phys = parse_state(ctx.read(p + "/phys_state"))
            ports.append({"port": int(port) if port.isdigit() else port, "state": state, "phys_state": phys,
                          "link_layer": (ctx.read(p + "/link_layer") or "").strip() or None,
                          "rate": (ctx.read(p + "/rate") or "").strip() or None})
        devices.append({"name": dev, "driver": os.path.basename(driver) if driver else None,
                        "node_type": (ctx.read(d + "/node_type") or "").strip() or None,
                        "fw_ver": (ctx.read(d + "/fw_ver") or "").strip() or None, "ports": ports})
    return {"devices": devices, "dev_infiniband": ctx.listdir("/dev/infiniband")}
