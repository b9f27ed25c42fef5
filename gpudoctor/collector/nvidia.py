"""The NVIDIA driver and its GPUs: /proc/driver/nvidia first (cheap, works when NVML is
wedged), NVML through pynvml when it imports, nvidia-smi when it does not."""

from .base import Pattern, Unsupported, re, section  # re and patterns imported on first use (base.py)

# Line 1 of /proc/driver/nvidia/version; matches both "Kernel Module  535.129.03" and the
# open module's "Open Kernel Module for x86_64  580.159.04" (NVIDIA/open-gpu-kernel-modules kernel-open/nvidia/nv-procfs.c, nv_procfs_read_version).
_DRIVER_RE = Pattern(r"\b(\d{3,4}\.\d{1,3}(?:\.\d{1,3})?)\b")

# Where distributions put libnvidia-ml.so.<driver version> (the user-space half of the driver).
LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/lib/aarch64-linux-gnu",
            "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib")


def parse_driver_version(text):
    first = (text or "").splitlines()[0] if text else ""
    m = _DRIVER_RE.search(first.split("Module", 1)[-1]) or _DRIVER_RE.search(first)
    return m.group(1) if m else None


def parse_gpu_information(text):
    """/proc/driver/nvidia/gpus/<bus>/information -> dict (split on the first colon)."""
    out = {}
    for line in (text or "").splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return {
        "name": out.get("Model"),
        "uuid": out.get("GPU UUID"),
        "bus_id": out.get("Bus Location"),
        "minor": int(out["Device Minor"]) if out.get("Device Minor", "").isdigit() else None,
        "vbios": out.get("Video BIOS"),
        "excluded": (out.get("GPU Excluded") or out.get("Blacklisted")) == "Yes",
    }


def find_nvml_libs(ctx):
    """Versions of libnvidia-ml.so.<x.y.z> files on the library path (user-space driver)."""
    found = {}
    dirs = list(LIB_DIRS) + [d for d in ctx.env.get("LD_LIBRARY_PATH", "").split(":") if d]
    for d in dirs:
        for name in ctx.listdir(d):  # thousands of names in a distribution's lib folder: the prefix first
            m = name.startswith("libnvidia-ml.so.") and re.match(r"libnvidia-ml\.so\.(\d+\.\d+(?:\.\d+)?)$", name)
            if m:
                found.setdefault(m.group(1), []).append(d + "/" + name)
    return found


def _nvml(ctx):
    """GPU facts through NVML. Returns (gpus, nvml_info); raises ImportError without pynvml."""
    import pynvml  # nvidia-ml-py

    info = {"source": "nvml"}
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        info["init_error"] = str(exc)
        return None, info

    def s(x):
        return x.decode() if isinstance(x, bytes) else x

    def opt(fn, *a):
        try:
            return fn(*a)
        except Exception:  # NVMLError_NotSupported and friends: the field is just absent
            return None

    try:
        info["driver_version"] = s(pynvml.nvmlSystemGetDriverVersion())
        info["nvml_version"] = s(opt(pynvml.nvmlSystemGetNVMLVersion))
        cuda = opt(pynvml.nvmlSystemGetCudaDriverVersion_v2) or opt(pynvml.nvmlSystemGetCudaDriverVersion)
        info["cuda_driver_version"] = "%d.%d" % (cuda // 1000, (cuda % 1000) // 10) if cuda else None
        gpus = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            mem = opt(pynvml.nvmlDeviceGetMemoryInfo, h)
            cc = opt(pynvml.nvmlDeviceGetCudaComputeCapability, h)
            pci = opt(pynvml.nvmlDeviceGetPciInfo, h)
            ecc = opt(pynvml.nvmlDeviceGetTotalEccErrors, h, pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                      pynvml.NVML_VOLATILE_ECC)
            ecc_mode = opt(pynvml.nvmlDeviceGetEccMode, h)
            remap = opt(pynvml.nvmlDeviceGetRemappedRows, h)  # (corr, uncorr, pending, failure)
            procs = opt(pynvml.nvmlDeviceGetComputeRunningProcesses, h) or []
            gpus.append({
                "index": i,
                "name": s(pynvml.nvmlDeviceGetName(h)),
                "uuid": s(opt(pynvml.nvmlDeviceGetUUID, h)),
                "bus_id": s(pci.busId).lower() if pci else None,
                "memory_total_mib": mem.total // (1 << 20) if mem else None,
                "memory_used_mib": mem.used // (1 << 20) if mem else None,
                "compute_capability": "%d.%d" % cc if cc else None,
                "persistence_mode": bool(opt(pynvml.nvmlDeviceGetPersistenceMode, h)),
                "ecc_enabled": bool(ecc_mode[0]) if ecc_mode else None,
                "ecc_uncorrected_volatile": ecc,
                "remapped_rows_pending": bool(remap[2]) if remap else None,
                "remapped_rows_failure": bool(remap[3]) if remap else None,
                "processes": [{"pid": p.pid, "used_mib": (p.usedGpuMemory or 0) // (1 << 20)} for p in procs],
            })
        _links(pynvml, gpus, opt)
        return gpus, info
    finally:
        opt(pynvml.nvmlShutdown)


# nvml.h (https://docs.nvidia.com/deploy/nvml-api/): nvmlGpuP2PCapsIndex_t READ 0, WRITE 1, NVLINK 2 (written
# as literals: nvidia-ml-py 13.580's NVML_P2P_CAPS_INDEX_READ is the tuple (0,), which ctypes refuses, as seen on a
# real 4x H200); nvmlIntNvLinkDeviceType_t SWITCH 2; nvmlGpuP2PStatus_t OK 0.
_P2P_CAPS = (("read", 0), ("write", 1), ("nvlink", 2))
_NVLINK_SWITCH = 2


def _links(pynvml, gpus, opt):
    """The GPUs' links, into each GPU's record: ``nvlink`` {"read": links NVML answered for, "active": links up,
    "switch": active links whose far end is an NVSwitch, "peers": bus ids of GPUs at the far end of active links}
    (None: NVML reads no NVLink on this GPU: a PCIe card), and ``p2p`` {peer index: {"read", "write", "nvlink":
    nvmlDeviceGetP2PStatus's answer (0 = OK), "ancestor": nvmlDeviceGetTopologyCommonAncestor (0 internal, 10 one
    PCIe switch, 20 several, 30 host bridge, 40 NUMA node, 50 system)}} for the peers of higher index. Read-only."""
    def fn(name):  # an nvidia-ml-py without the call reads nothing for it (the key stays absent: not read)
        f = getattr(pynvml, name, None)
        return (lambda *a: opt(f, *a)) if callable(f) else None

    state_of, kind_of, far_pci = fn("nvmlDeviceGetNvLinkState"), fn("nvmlDeviceGetNvLinkRemoteDeviceType"), \
        fn("nvmlDeviceGetNvLinkRemotePciInfo")
    p2p_of, ancestor_of, handle_of = fn("nvmlDeviceGetP2PStatus"), fn("nvmlDeviceGetTopologyCommonAncestor"), \
        fn("nvmlDeviceGetHandleByIndex")
    if handle_of is None:
        return
    handles = [handle_of(g["index"]) for g in gpus]
    most = getattr(pynvml, "NVML_NVLINK_MAX_LINKS", 18)
    most = most if isinstance(most, int) and 0 < most <= 64 else 18
    for g, h in zip(gpus, handles):
        if h is None:
            continue
        if state_of is not None:
            read = active = switch = 0
            peers = set()
            for link in range(most):
                state = state_of(h, link)
                if state is None:
                    continue
                read += 1
                if state != 1:  # NVML_FEATURE_ENABLED
                    continue
                active += 1
                if kind_of is not None and kind_of(h, link) == _NVLINK_SWITCH:
                    switch += 1
                elif far_pci is not None:
                    bus = getattr(far_pci(h, link), "busId", None)
                    if bus:
                        peers.add((bus.decode() if isinstance(bus, bytes) else str(bus)).lower())
            g["nvlink"] = {"read": read, "active": active, "switch": switch, "peers": sorted(peers)} if read else None
        if p2p_of is not None:
            g["p2p"] = {}
    for i, (g, h) in enumerate(zip(gpus, handles)):
        for j in range(i + 1, len(gpus)):
            h2 = handles[j]
            if h is None or h2 is None or p2p_of is None:
                continue
            pair = dict((name, p2p_of(h, h2, idx)) for name, idx in _P2P_CAPS)
            pair["ancestor"] = ancestor_of(h, h2) if ancestor_of is not None else None
            g["p2p"][str(gpus[j]["index"])] = pair


_SMI_FIELDS = ("index", "name", "uuid", "pci.bus_id", "memory.total", "memory.used", "compute_cap",
               "persistence_mode", "ecc.mode.current", "ecc.errors.uncorrected.volatile.total")


def parse_nvidia_smi_csv(text):
    gpus = []
    for line in (text or "").splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) != len(_SMI_FIELDS) or not f[0].isdigit():
            continue

        def num(x):
            return int(x) if x.isdigit() else None

        gpus.append({
            "index": int(f[0]), "name": f[1], "uuid": f[2], "bus_id": f[3].lower(),
            "memory_total_mib": num(f[4]), "memory_used_mib": num(f[5]),
            "compute_capability": f[6] if re.match(r"^\d+\.\d+$", f[6]) else None,
            "persistence_mode": f[7] == "Enabled", "ecc_enabled": {"Enabled": True, "Disabled": False}.get(f[8]),
            "ecc_uncorrected_volatile": num(f[9]), "processes": None,
        })
    return gpus


# "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, ..."; old drivers print "(0000:03:00)" (NVIDIA's Xid catalog, Step 1: https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html)
_XID_RE = Pattern(r"NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.\d)?)\): (\d+)(.*)")


def parse_xids(text, limit=100):
    """Kernel log text -> [{'bus_id', 'xid', 'detail'}], the newest `limit` lines."""
    out = []
    for line in (text or "").splitlines():
        m = _XID_RE.search(line)
        if m:
            out.append({"bus_id": m.group(1).lower(), "xid": int(m.group(2)),
                        "detail": m.group(3).lstrip(", ").strip()[:200]})
    return out[-limit:]


def read_kernel_log(ctx):
    """(source, text) of the kernel log; (None, reason) when it cannot be read (dmesg_restrict
    needs CAP_SYSLOG; containers often hide it)."""
    rc, out = ctx.run(["dmesg"], timeout=5)
    if rc == 0 and out.strip():
        return "dmesg", out
    for p in ("/var/log/kern.log", "/var/log/messages", "/var/log/syslog"):
        st = ctx.stat(p)
        if st is None:
            continue
        try:
            with open(ctx.path(p), "rb") as f:  # the tail: Xids of this boot are at the end
                f.seek(max(0, st.st_size - (4 << 20)))
                return p, f.read().decode("utf-8", "replace")
        except (OSError, IOError):
            continue
    return None, ("dmesg failed (rc=%s: %s)" % (rc, out.strip()[:120])) if rc is not None else "no dmesg"


def parse_remapped_rows_csv(text):
    """nvidia-smi --query-remapped-rows=gpu_bus_id,remapped_rows.uncorrectable,remapped_rows.pending,
    remapped_rows.failure --format=csv,noheader -> {bus_id: {...}}."""
    out = {}
    for line in (text or "").splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) != 4 or not re.match(r"^[0-9a-fA-F]+:", f[0]):
            continue
        out[f[0].lower()] = {"remapped_rows_uncorrectable": int(f[1]) if f[1].isdigit() else None,
                             "remapped_rows_pending": {"Yes": True, "No": False}.get(f[2]),
                             "remapped_rows_failure": {"Yes": True, "No": False}.get(f[3])}
    return out


def parse_compute_apps_csv(text):
    """nvidia-smi --query-compute-apps=gpu_bus_id,pid,used_memory --format=csv,noheader,nounits."""
    out = {}
    for line in (text or "").splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) != 3 or not f[1].isdigit():
            continue
        out.setdefault(f[0].lower(), []).append({"pid": int(f[1]), "used_mib": int(f[2]) if f[2].isdigit() else None})
    return out


@section("gpu")
def gpu(ctx):
    version_text = ctx.read("/proc/driver/nvidia/version")
    proc_gpus = []
    for bus in ctx.listdir("/proc/driver/nvidia/gpus"):
        g = parse_gpu_information(ctx.read("/proc/driver/nvidia/gpus/%s/information" % bus))
        g["bus_id"] = g["bus_id"] or bus
        proc_gpus.append(g)
    if version_text is None:
        raise Unsupported("no NVIDIA driver loaded (/proc/driver/nvidia/version is missing)")
    out = {
        "driver_version": parse_driver_version(version_text),
        "kernel_module": "open" if "Open Kernel Module" in version_text else "proprietary",
        "proc_version": version_text.splitlines()[0].strip() if version_text.strip() else "",
        "nvml_libs": find_nvml_libs(ctx),
        "gpus_proc": proc_gpus,
        "gpus": None,
        "nvml": None,
    }
    # the kernel log first: the prolog tier's collecting child reads it while NVML's read is
    # still under way in its sibling (gpudoctor/early.py), not after it (a dmesg process:
    # 3-8 ms); the facts are the same either way
    source, log = read_kernel_log(ctx)
    gpus = None
    if ctx.live:
        try:
            early = getattr(ctx, "prefetched", None)  # the same read, made in a thread (gpudoctor/early.py)
            read = early("nvml", ctx) if early is not None else None
            gpus, out["nvml"] = read if read is not None else _nvml(ctx)
        except ImportError:
            out["nvml"] = {"source": "none", "init_error": "pynvml is not importable"}
    if gpus is None and ctx.options.get("nvidia_smi", True):
        q = ["nvidia-smi", "--query-gpu=" + ",".join(_SMI_FIELDS), "--format=csv,noheader,nounits"]
        rc, text = ctx.run(q, timeout=15)
        if rc == 0:
            gpus = parse_nvidia_smi_csv(text)
            out["gpus_source"] = "nvidia-smi"
            rc2, text2 = ctx.run(["nvidia-smi", "--query-remapped-rows=gpu_bus_id,remapped_rows.uncorrectable,"
                                  "remapped_rows.pending,remapped_rows.failure", "--format=csv,noheader"], timeout=15)
            remap = parse_remapped_rows_csv(text2) if rc2 == 0 else {}
            rc3, text3 = ctx.run(["nvidia-smi", "--query-compute-apps=gpu_bus_id,pid,used_memory",
                                  "--format=csv,noheader,nounits"], timeout=15)
            apps = parse_compute_apps_csv(text3) if rc3 == 0 else None
            for g in gpus:
                g.update(remap.get(g["bus_id"], {}))
                if apps is not None:
                    g["processes"] = apps.get(g["bus_id"], [])
        elif rc is not None:
            out["nvidia_smi_error"] = text.strip()[:500]
    out["gpus"] = gpus
    out.setdefault("gpus_source", "nvml" if gpus is not None else "proc")
    out["kernel_log"] = {"source": source, "readable": source is not None,
                         "reason": None if source else log}
    out["xids"] = parse_xids(log) if source else None
    return out
