"""MLNX_OFED / DOCA-OFED and the kernels it was built for (the ofed_info script MLNX_OFED's mlnxofedinstall writes; DOCA-OFED: https://docs.nvidia.com/doca/sdk/mlnx_ofed-to-doca-ofed-transition-guide/index.html).

- user space: /usr/bin/ofed_info is a bash script that echoes its own version; read it as
  text instead of running it (`ofed_info -s` -> `MLNX_OFED_LINUX-5.8-1.1.2.1:`, DOCA-OFED
  keeps `OFED-internal-25.10-1.7.1:`).
- kernel space: OFED's mlx5_core has MODULE_VERSION (`/sys/module/mlx5_core/version`);
  the inbox driver has none.
- per installed kernel: OFED modules live in /lib/modules/<release>/extra/mlnx-ofa_kernel
  (RHEL-likes, KMP; weak-updates links them into errata kernels), updates (SLES) or
  updates/dkms (Ubuntu).
- grub menu entries, so a check can print the exact `grub2-set-default '<title>'` line.
"""

import os

from .base import Pattern, re, section  # re and patterns imported on first use (base.py)
from .rdma import loaded_modules

OFED_INFO_PATHS = ("/usr/bin/ofed_info", "/usr/local/bin/ofed_info")
OFED_MODULE_DIRS = ("extra/mlnx-ofa_kernel", "weak-updates/mlnx-ofa_kernel", "updates/dkms", "updates")
# files whose presence marks an OFED build (mlx_compat is OFED's backport layer, never inbox)
OFED_MARKERS = ("mlx_compat.ko", "mlx5_core.ko", "mlx5_ib.ko")
ERDMA_PATHS = ("extra/erdma", "updates/dkms", "updates", "kernel/drivers/infiniband/hw/erdma")

_OFED_RE = Pattern(r"\b(MLNX_OFED_LINUX|OFED-internal)-(\d+\.\d+-\d+(?:\.\d+)*)")
_MENU_RE = Pattern(r"^\s*menuentry\s+(['\"])(.*?)\1")
_LINUX_RE = Pattern(r"^\s*linux(?:16|efi)?\s+\S*vmlinuz-(\S+)")


def parse_ofed_info(text):
    """ofed_info's own text (the script, or its output) -> {flavor, version, raw} or None.
    The script's `-s` branch reads: if [ "X$1" == "X-s" ]; then echo MLNX_OFED_LINUX-5.8-1.1.2.1:; exit 0; fi"""
    lines = (text or "").splitlines()
    for line in [l for l in lines if "X-s" in l] + lines:
        m = _OFED_RE.search(line)
        if m:
            return {"flavor": m.group(1), "version": m.group(2), "raw": "%s-%s" % (m.group(1), m.group(2))}
    return None


def versions_match(ofed_version, module_version):
    """OFED '5.8-1.1.2.1' vs mlx5_core '5.8-1.1.2': the module carries the first components
    (weka/tools compares the first 9 characters; DOCA: '25.10-1.7.1' on both sides)."""
    a = re.split(r"[-.]", ofed_version or "")
    b = re.split(r"[-.]", module_version or "")
    if not a or not b or not module_version:
        return None
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def parse_grub_cfg(text):
    """grub.cfg -> [{title, kernel, submenu}] for every menuentry with a linux line."""
    entries, current, submenu = [], None, None
    for line in (text or "").splitlines():
        s = line.strip()
        if s.startswith("submenu "):
            m = re.match(r"submenu\s+(['\"])(.*?)\1", s)
            submenu = m.group(2) if m else None
            continue
        m = _MENU_RE.match(line)
        if m:
            current = {"title": m.group(2), "kernel": None, "submenu": submenu}
            entries.append(current)
            continue
        m = _LINUX_RE.match(line)
        if m and current is not None and current["kernel"] is None:
            current["kernel"] = m.group(1)
    return [e for e in entries if e["kernel"]]


def parse_bls_entry(text):
    """/boot/loader/entries/*.conf (BootLoaderSpec, RHEL 8+) -> {title, kernel}."""
    title = kernel = None
    for line in (text or "").splitlines():
        key, _, value = line.strip().partition(" ")
        if key == "title":
            title = value.strip()
        elif key == "linux":
            m = re.search(r"vmlinuz-(\S+)", value)
            kernel = m.group(1) if m else None
    return {"title": title, "kernel": kernel, "submenu": None} if kernel else None


def parse_grubenv(text):
    out = {}
    for line in (text or "").splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _find_markers(ctx, top, max_files=4000):
    """OFED marker modules under one directory (bounded walk; dkms trees are small)."""
    found, seen = [], 0
    for dirpath, _dirs, files in os.walk(ctx.path(top)):
        for f in files:
            seen += 1
            if f.split(".ko")[0] + ".ko" in OFED_MARKERS:
                found.append(f)
        if seen > max_files:
            break
    return sorted(set(found))


def kernel_ofed_dirs(ctx, release):
    out = []
    for sub in OFED_MODULE_DIRS:
        top = "/lib/modules/%s/%s" % (release, sub)
        if not ctx.isdir(top):
            continue
        markers = _find_markers(ctx, top)
        if markers or sub.endswith("mlnx-ofa_kernel"):
            out.append({"dir": sub, "markers": markers})
        if markers and sub == "updates/dkms":
            break  # updates/ would find the same files again
    return out


def _has_erdma(ctx, release):
    for sub in ERDMA_PATHS:
        for f in ctx.listdir("/lib/modules/%s/%s" % (release, sub)):
            if f.startswith("erdma.ko"):
                return True
    return False


@section("ofed")
def ofed(ctx):
    running = (ctx.read("/proc/sys/kernel/osrelease") or "").strip() or (os.uname()[2] if ctx.live else "")
    info, info_path = None, None
    for p in OFED_INFO_PATHS:
        text = ctx.read(p, limit=1 << 18)
        if text is not None:
            info, info_path = parse_ofed_info(text), p
            break
    kernels = []
    for release in ctx.listdir("/lib/modules"):
        if not ctx.isdir("/lib/modules/%s/kernel" % release) and not ctx.isdir("/lib/modules/%s/extra" % release) \
                and not ctx.isdir("/lib/modules/%s/updates" % release):
            continue  # leftovers of removed kernels (only modules.* files)
        kernels.append({"release": release, "running": release == running,
                        "ofed_dirs": kernel_ofed_dirs(ctx, release), "erdma_module": _has_erdma(ctx, release)})
    grub, grub_path = [], None
    for p in ("/boot/grub2/grub.cfg", "/boot/efi/EFI/centos/grub.cfg", "/boot/efi/EFI/redhat/grub.cfg",
              "/boot/grub/grub.cfg"):
        text = ctx.read(p)
        if text is not None:
            grub, grub_path = parse_grub_cfg(text), p
            break
    bls = []
    for f in ctx.listdir("/boot/loader/entries"):
        if f.endswith(".conf"):
            e = parse_bls_entry(ctx.read("/boot/loader/entries/" + f))
            if e:
                bls.append(e)
    env = parse_grubenv(ctx.read("/boot/grub2/grubenv") or ctx.read("/boot/grub/grubenv"))
    modules, modules_source = loaded_modules(ctx, once=True)
    versions = {}
    for mod in ("mlx5_core", "mlx5_ib", "ib_core", "erdma", "nvidia_peermem", "nv_peer_mem"):
        v = ctx.read("/sys/module/%s/version" % mod)
        if v is not None:
            versions[mod] = v.strip()
    return {
        "running_kernel": running,
        "ofed_info": info, "ofed_info_path": info_path,
        "module_versions": versions,
        "modules_loaded": modules, "modules_source": modules_source,
        "kernels": kernels,
        "grub_cfg": grub_path, "grub_entries": grub, "bls_entries": bls,
        "grub_default": env.get("saved_entry"),
        "erdma_loaded": "erdma" in modules or ctx.isdir("/sys/module/erdma"),
    }
