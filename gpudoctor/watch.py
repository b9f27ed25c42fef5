"""Why a running job is slow: diagnoses as pure functions of the samples the ``watch``
collector section took on each node (gpudoctor/collector/watch.py). No I/O here.

The signatures (measured on an H100, fixtures/watch/):
- a GPU "utilization" of 100% only says a kernel was resident during the sample period
  (NVML's nvmlDeviceGetUtilizationRates); power against the enforced limit says whether it
  computed. A kernel that spins (NCCL's kernels while they wait for data) reads 100% at
  about 16% of the limit; bf16 matrix products read 99% at about 99%.
- NCCL's IB/RoCE transport moves data through the HCAs, which the sysfs port counters
  count (port_xmit_data/port_rcv_data); its socket transport moves it through the kernel's
  TCP stack, which /proc/net/dev counts on the interface.

The checks live in their own registry (``WATCH``), so `gpudoctor check` never runs them.
Thresholds are fractions of each GPU's own enforced power limit, never per-SKU watts.
"""

import re
import statistics

from gpudoctor.fixline import cmd, hostile, shown_word
from gpudoctor.nodes import fold
from gpudoctor.registry import NA, Finding, Pass, Registry, Skip, check

WATCH = Registry()

# An account name as `watch --user` takes it: useradd(8)'s default NAME_REGEX, widened to the upper case, digits and
# dots that LDAP/sssd directories hand out (https://man7.org/linux/man-pages/man8/useradd.8.html "CAVEATS"), or a uid
USER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}[$]?\Z")

IDLE_UTIL = 10.0  # % utilization under which a GPU runs nothing
BUSY_UTIL = 80.0  # % utilization over which a kernel is resident almost all the time
WAIT_POWER = 0.40  # fraction of the power limit under which a busy GPU is waiting, not computing
COMPUTE_POWER = 0.55  # fraction of the power limit over which a GPU computes
UNEVEN = 30.0  # utilization points between samples (or GPUs) that make it "uneven"
SOCKET_MIN = 1e6  # bytes/s on an interface that count as the job's traffic
RDMA_MIN = 1e6  # bytes/s through the HCAs that count as traffic
SLOW_LINK = 0.5  # a node whose link carries under half of the others' median is a straggler
# GPU memory (NVML's used, nvmlDeviceGetMemoryInfo; PyTorch's caching allocator counts there what it reserved,
# https://pytorch.org/docs/stable/notes/cuda.html#memory-management): a GPU whose peak leaves under 5% of the card
# free has no room for a longer sequence, an eval step or fragmentation (vLLM takes 90% by its gpu_memory_utilization
# default, JAX 75% by XLA_PYTHON_CLIENT_MEM_FRACTION: both stay under it). A pool an allocator takes at start is not
# judged for room (preallocated()): TensorFlow maps all but 1.5-1.8 GiB of a GPU unless TF_FORCE_GPU_ALLOW_GROWTH=true
# (https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth; gpu_device.cc's MinSystemMemory: 99% of an H200),
# JAX the fraction its variables name (https://docs.jax.dev/en/latest/gpu_memory_allocation.html), vLLM its
# gpu_memory_utilization for weights and KV cache (https://docs.vllm.ai/en/v0.8.5/serving/engine_args.html: 0.9 by
# default; 0.95 and 0.97 are common). One of the job's GPUs holding over 1.5x the median of the others and 4 GiB more
# is uneven: data parallel ranks hold the same.
MEM_FULL = 0.95
MEM_UNEVEN = 1.5
MEM_UNEVEN_MIB = 4096

# https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html
NCCL_ENV_DOC = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"
NCCL_ACS_DOC = ("https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"
                "#pci-access-control-services-acs")


def _num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _pct(x):
    """A percentage from a node, or None: NVML's utilization is 0-100."""
    x = _num(x)
    return x if x is not None and 0 <= x <= 100 else None


def _pos(x):
    """A reading that cannot be negative (watts, MHz, bytes/s), or None."""
    x = _num(x)
    return x if x is not None and x >= 0 else None


def _mean(xs):
    xs = [x for x in xs if _num(x) is not None]
    return sum(xs) / len(xs) if xs else None


def _list(x):
    return x if isinstance(x, list) else []


def _dict(x):
    return x if isinstance(x, dict) else {}


def span(lo, hi, show):
    """'18%' or '18-25%': a range shown once when both ends read the same."""
    a, b = show(lo), show(hi)
    return a if a == b else "%s-%s" % (a, b)


def human_rate(bps):
    if bps is None:
        return "n/a"
    for unit, div in (("GB/s", 1e9), ("MB/s", 1e6), ("KB/s", 1e3)):
        if bps >= div:
            return "%.1f %s" % (bps / div, unit)
    return "%d B/s" % bps


# ---------------------------------------------------------------- reading the samples

def gpu_stats(w):
    """[{index, name, util, util_min, util_max, power_w, limit_w, frac, clock, state}] per GPU."""
    out = []
    for g in _list(_dict(w.get("gpu")).get("gpus")):
        if not isinstance(g, dict):
            continue
        samples = [s for s in _list(g.get("samples")) if isinstance(s, dict)]
        utils = [_pct(s.get("util_pct")) for s in samples if _pct(s.get("util_pct")) is not None]
        power = _mean([_pos(s.get("power_w")) for s in samples])
        limit = _pos(g.get("power_limit_w"))
        util = _mean(utils)
        frac = power / limit if power is not None and limit else None
        used = [_pos(s.get("mem_used_mib")) for s in samples if _pos(s.get("mem_used_mib")) is not None]
        out.append({"index": g.get("index"), "name": g.get("name"), "util": util,
                    "mem_used_mib": max(used) if used else None, "mem_total_mib": _pos(g.get("memory_total_mib")),
                    "util_min": min(utils) if utils else None, "util_max": max(utils) if utils else None,
                    "power_w": power, "limit_w": limit, "frac": frac,
                    "clock": _mean([_pos(s.get("sm_clock_mhz")) for s in samples]),
                    "pcie_kb_s": _mean([_num(s.get("pcie_tx_kb_s")) + (_num(s.get("pcie_rx_kb_s")) or 0)
                                        for s in samples if _num(s.get("pcie_tx_kb_s")) is not None]),
                    "nvlink_bytes_s": _num(g.get("nvlink_tx_bytes_s")) + (_num(g.get("nvlink_rx_bytes_s")) or 0)
                    if _num(g.get("nvlink_tx_bytes_s")) is not None else None,
                    "samples": len(samples), "state": state(util, frac)})
    return out


def state(util, frac):
    """idle | waiting (busy at low power) | computing | partial | unknown."""
    if util is None:
        return "unknown"
    if util < IDLE_UTIL:
        return "idle"
    if frac is None:
        return "unknown"
    if frac >= COMPUTE_POWER:
        return "computing"
    if util >= BUSY_UTIL and frac < WAIT_POWER:
        return "waiting"
    return "partial"


def traffic(w):
    """{rdma_bytes_s, ports, counted_ports, iface, iface_bytes_s}. ``iface`` is the job's
    interface: among non-loopback interfaces, those of the job's own network namespace when it
    has one, then those its NCCL_SOCKET_IFNAME selects (NCCL's syntax, as for NCCL_IB_HCA),
    then the busiest; the node's busiest interface when nothing narrows it."""
    ports = [p for p in _list(_dict(w.get("rdma")).get("ports")) if isinstance(p, dict)]
    rdma = sum((_pos(p.get("xmit_bytes_s")) or 0) + (_pos(p.get("rcv_bytes_s")) or 0) for p in ports)
    counted = [p for p in ports if p.get("counters")]
    ifaces = []
    for n in _list(w.get("net")):
        if not isinstance(n, dict) or n.get("kind") == "loopback" or n.get("name") == "lo":
            continue
        ifaces.append(((_pos(n.get("rx_bytes_s")) or 0) + (_pos(n.get("tx_bytes_s")) or 0), n))
    ifaces.sort(key=lambda x: -x[0])
    pick = [x for x in ifaces if x[1].get("netns")] or ifaces
    for spec in job_env(w).get("NCCL_SOCKET_IFNAME", [])[:1]:
        names = _hca_matches(spec, [str(x[1].get("name")) for x in pick])
        pick = [x for x in pick if str(x[1].get("name")) in names] or pick
    top = pick[0] if pick else (0, None)
    return {"rdma_bytes_s": rdma if counted else None, "ports": ports, "counted_ports": counted,
            "iface": top[1], "iface_bytes_s": top[0]}


def processes(w):
    return [p for p in _list(_dict(w.get("processes")).get("list")) if isinstance(p, dict)]


def job_env(w):
    """{name: sorted set of values} over the job's readable processes."""
    out = {}
    for p in processes(w):
        for k, v in _dict(p.get("env")).items():
            if isinstance(k, str) and isinstance(v, str):
                out.setdefault(k, set()).add(v)
    return dict((k, sorted(v)) for k, v in out.items())


def on_sockets(t):
    """The job's bytes go through an interface and the HCAs are idle."""
    rdma = t["rdma_bytes_s"] or 0
    return t["iface_bytes_s"] >= SOCKET_MIN and rdma < max(RDMA_MIN, 0.1 * t["iface_bytes_s"])


def on_hcas(t):
    rdma = t["rdma_bytes_s"] or 0
    return rdma >= RDMA_MIN and rdma >= 0.1 * t["iface_bytes_s"]


def _iface_text(t):
    n = t["iface"]
    if not n:
        return "no interface"
    if n.get("netns"):
        return "%s (in the job's network namespace, pid %s) %s" % (n.get("name"), n.get("pid"),
                                                                   human_rate(t["iface_bytes_s"]))
    kind = n.get("kind") or n.get("link_type") or "?"
    return "%s (%s) %s" % (n.get("name"), kind, human_rate(t["iface_bytes_s"]))


def _ports_text(t):
    """'HCAs mlx5_0/1, mlx5_1/1 (ACTIVE) move 0 B/s': the ports, their state once, their rate."""
    if not t["ports"]:
        return "this node has no RDMA port"
    shown = t["counted_ports"] or t["ports"]
    names = ["%s/%s" % (p.get("device"), p.get("port")) for p in shown[:4]]
    if len(shown) > 4:
        names.append("+%d more" % (len(shown) - 4))
    states = sorted(set(str(p.get("state") or "?") for p in shown))
    if not t["counted_ports"]:
        return "RDMA ports %s (%s) without data counters" % (", ".join(names), "/".join(states))
    return "HCAs %s (%s) move %s" % (", ".join(names), "/".join(states), human_rate(t["rdma_bytes_s"]))


# ---------------------------------------------------------------- why NCCL is on sockets

def _hca_matches(spec, devices):
    """NCCL_IB_HCA: '^' excludes, '=' matches names exactly, else a name is a prefix;
    entries 'dev[:port]' separated by commas (NCCL's parseStringList/matchIfList, src/misc/utils.cc).
    Ports are not compared: a device named at all counts as selected."""
    spec = spec.strip()
    exclude = spec.startswith("^")
    spec = spec.lstrip("^")
    exact = spec.startswith("=")
    names = [e.split(":")[0].strip() for e in spec.lstrip("=").split(",") if e.strip()]

    def hit(dev):
        return any(dev == n if exact else dev.startswith(n) for n in names)

    return [d for d in devices if (not hit(d)) == exclude]


_STRTOLL = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def _nccl_int(text):
    """An integer variable as NCCL reads it: ncclLoadParam (src/misc/param.cc) calls
    strtoll(value, nullptr, 0), so '0x1' is 1, '010' is 8, '1abc' is 1 and 'true' is 0."""
    m = _STRTOLL.match(text)
    if not m:
        return 0
    digits = m.group(2)
    if digits[:2].lower() == "0x":
        n = int(digits, 16)
    elif digits.startswith("0"):
        n = int(digits, 8)
    else:
        n = int(digits)
    return -n if m.group(1) == "-" else n


def socket_causes(w):
    """(causes, exports, notes): what in the job's environment or on the node keeps NCCL off
    the HCAs, the exports that move it to IB, and what else is worth knowing."""
    env = job_env(w)
    rd = _dict(w.get("rdma"))
    ports = [p for p in _list(rd.get("ports")) if isinstance(p, dict)]
    active = sorted(set(str(p.get("device")) for p in ports if p.get("state") == "ACTIVE"))
    devices = sorted(set(str(p.get("device")) for p in ports))
    causes, exports, notes = [], {}, []
    # NCCL_NET picks a net plugin by name, case-insensitively (strcasecmp in ncclNetInit,
    # NVIDIA/nccl src/plugin/net.cc): the internal ones are "IB" and "Socket". With NCCL_NET=IB
    # and IB unusable, init fails ("Failed to initialize any NET plugin") instead of falling back.
    for v in env.get("NCCL_NET", []):
        if v.strip().lower() == "socket":
            causes.append("NCCL_NET=%s forces NCCL's socket transport" % v)
            exports["NCCL_NET"] = "IB"
    for v in env.get("NCCL_IB_DISABLE", []):
        if _nccl_int(v):
            causes.append("NCCL_IB_DISABLE=%s turns NCCL's IB/RoCE transport off" % v)
            exports["NCCL_IB_DISABLE"] = "0"
    for v in env.get("NCCL_IB_HCA", []):
        if devices and not _hca_matches(v, active or devices):
            causes.append("NCCL_IB_HCA=%s selects no HCA of this node (it has %s)" % (v, ", ".join(active or devices)))
            up = sorted(set("%s:%s" % (p.get("device"), p.get("port")) for p in ports
                            if p.get("state") == "ACTIVE")) or ["%s:1" % d for d in devices]
            exports["NCCL_IB_HCA"] = "=" + ",".join(up)
    if not ports:
        causes.append("no RDMA device on this node (/sys/class/infiniband lists none): sockets are NCCL's only "
                      "transport here")
    elif ports and not active:
        causes.append("no RDMA port is ACTIVE (%s)" % ", ".join(
            "%s/%s %s" % (p.get("device"), p.get("port"), p.get("state") or "?") for p in ports[:4]))
    elif ports and not any(str(n).startswith("uverbs") for n in _list(rd.get("dev_infiniband"))):
        # verbs opens /dev/infiniband/uverbsN (rdma-core libibverbs); rdma_cm alone is not enough
        causes.append("/dev/infiniband has no uverbs device here (a container without the devices): NCCL cannot "
                      "open the HCAs; docker run --device=/dev/infiniband (or the RDMA device plugin on Kubernetes)")
    procs = processes(w)
    readable = [p for p in procs if p.get("fds_readable")]
    if readable and not any(_list(p.get("infiniband_fds")) for p in readable):
        notes.append("the job holds no /dev/infiniband device open (pid %s)" % ", ".join(
            str(p.get("pid")) for p in readable[:4]))
    for v in env.get("NCCL_SOCKET_IFNAME", []):
        notes.append("NCCL_SOCKET_IFNAME=%s picks the interface for bootstrap and the socket transport; it does not "
                     "move data to IB" % v)
    if ports and not _list(rd.get("peer_memory_modules")):
        notes.append("no peer-memory module (nvidia_peermem) is loaded: on IB, GPUDirect RDMA stays off "
                     "(modprobe nvidia_peermem)")
    if procs and not any(p.get("environ_readable") for p in procs):
        notes.append("the job's environment could not be read (%s): run gpudoctor watch as the job's user or root"
                     % (procs[0].get("environ_error") or "permission denied"))
    if active and not exports.get("NCCL_NET"):
        exports["NCCL_NET"] = "IB"  # NCCL then fails at init if IB is unusable, instead of falling back
    return causes, exports, notes


def _socket_fix(causes, exports, notes, has_hca=True):
    lines = []
    if any(c.startswith("NCCL_NET=") for c in causes):
        lines.append("unset NCCL_NET%s" % ("   # or export NCCL_NET=IB below" if has_hca else ""))
    if not has_hca:
        lines.append("# no HCA here: NCCL can only use sockets; train across nodes with IB/RoCE HCAs (and "
                     "/dev/infiniband in the container)")
        lines.append("# meanwhile, more TCP streams help: export NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=4")
    elif not exports:
        lines.append("# rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: the 'NET/' lines say which transport "
                     "NCCL chose and why")
    else:
        lines.append("# with NCCL_NET=IB, NCCL fails at init if IB is unusable instead of falling back to sockets")
    lines.append("# %s" % NCCL_ENV_DOC)
    return "\n".join(lines)


# ---------------------------------------------------------------- inside one node

def loopback(w):
    """Bytes/s through the loopback (the job's own namespace's lo when it has one, else the
    node's), or None when not sampled. Every byte sent on lo is received on lo: rx alone counts."""
    rows = [n for n in _list(w.get("net")) if isinstance(n, dict) and n.get("name") == "lo"]
    rows.sort(key=lambda n: not n.get("netns"))
    for n in rows:
        rx = _pos(n.get("rx_bytes_s"))
        if rx is not None:
            return rx
    return None


def _int(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _gpu_ids(p):
    """The GPU indexes NVML listed a process on (integers only: the values come from a node)."""
    return sorted(set(i for i in _list(p.get("gpus")) if _int(i) is not None))


def job_gpus(w):
    """{GPU index: [the job's processes on it]} from NVML's compute processes."""
    out = {}
    for p in processes(w):
        for i in _gpu_ids(p):
            out.setdefault(i, []).append(p)
    return out


def _p2p_level_off(value):
    """NCCL_P2P_LEVEL that never uses P2P: LOC, or the legacy integer 0 (NCCL's env docs;
    NCCL reads a value that starts with a digit with strtol, src/graph/paths.cc ncclGetLevel)."""
    v = value.strip()
    return v == "LOC" or (v[:1].isdigit() and _nccl_int(v) == 0)


def nccl_settings(w):
    """{name: [(value, source)]}: the job's NCCL_* variables (source None), then for a name its
    environment does not set, the first of NCCL's config files the sampler read that sets it
    (NCCL_CONF_FILE's, then /etc/nccl.conf: the environment wins over the files, and the user's
    file over /etc/nccl.conf; NCCL_ENV_DOC)."""
    out = dict((k, [(v, None) for v in vs]) for k, vs in job_env(w).items())
    for f in _list(w.get("nccl_conf")):
        if not isinstance(f, dict) or not isinstance(f.get("path"), str):
            continue
        for k, v in sorted(_dict(f.get("values")).items()):
            if isinstance(k, str) and isinstance(v, str) and k not in out:
                out[k] = [(v, f["path"])]
    return out


def intranode_causes(w):
    """(p2p_off, shm_off): the job's settings, each as it was set, [(name, value, source)], that
    turn NCCL's P2P transport (NVLink/PCIe between the GPUs of one node) and its shared-memory
    transport off (NCCL_P2P_DISABLE=1, NCCL_P2P_LEVEL=LOC or 0; NCCL_SHM_DISABLE=1).
    NCCL_ENV_DOC: SHM is used "when peer-to-peer cannot happen", through host memory; with SHM
    disabled NCCL uses the network (InfiniBand or IP sockets). NCCL compares both *_DISABLE
    values with 1."""
    env = nccl_settings(w)
    p2p = [("NCCL_P2P_DISABLE", v, src) for v, src in env.get("NCCL_P2P_DISABLE", []) if _nccl_int(v) == 1]
    p2p += [("NCCL_P2P_LEVEL", v, src) for v, src in env.get("NCCL_P2P_LEVEL", []) if _p2p_level_off(v)]
    shm = [("NCCL_SHM_DISABLE", v, src) for v, src in env.get("NCCL_SHM_DISABLE", []) if _nccl_int(v) == 1]
    return p2p, shm


def _set_text(settings):
    return " and ".join("%s=%s%s" % (k, v, " (in %s)" % src if src else "") for k, v, src in settings)


def _intranode_fix(settings):
    """unset for what the environment set; for what a config file set, an override in the
    environment (it wins over the files) and the file to edit."""
    lines = []
    names = sorted(set(k for k, _v, src in settings if src is None))
    if names:
        lines.append(cmd("unset {names}", names=names) + "   # where the job is launched (its script, the "
                     "scheduler's --export, a container's ENV)")
    for path in sorted(set(src for _k, _v, src in settings if src)):
        names = sorted(set(k for k, _v, src in settings if src == path))
        lines.append(cmd("# delete {names} from {path}", names=names, path=path))
        off = [k for k in names if k.endswith("_DISABLE")]
        if off:
            lines.append(cmd("export {sets}   # meanwhile: the environment wins over NCCL's config files",
                             sets=["%s=0" % k for k in off]))
    lines.append("# then NCCL_DEBUG=INFO shows the channels between this node's GPUs 'via P2P'")
    if any(k == "NCCL_P2P_DISABLE" or k == "NCCL_P2P_LEVEL" for k, _v, _src in settings):
        # NCCL's maintainers give NCCL_P2P_DISABLE=1 as the stopgap where PCIe P2P hangs or crawls
        # (https://github.com/NVIDIA/nccl/issues/199: ACS on a PCIe switch, VT-d/IOMMU)
        lines.append("# if P2P was turned off because it hung or crawled here (PCIe ACS or IOMMU redirect P2P through "
                     "the CPU), fix that first or the hang comes back: %s" % NCCL_ACS_DOC)
    lines.append("# %s" % NCCL_ENV_DOC)
    return "\n".join(lines)


def _holders(w, settings):
    """The GPUs whose processes run with one of these settings: a process's own environment, or a config
    file the sampler read (every GPU of the job). Two single-GPU jobs sharing a node, one of them run with
    NCCL_P2P_DISABLE=1, are no job kept off P2P between its GPUs."""
    if any(src for _k, _v, src in settings):
        return set(job_gpus(w))
    pairs = set((k, v) for k, v, _src in settings)
    return set(i for p in processes(w) if any((k, v) in pairs for k, v in _dict(p.get("env")).items())
               for i in _gpu_ids(p))


def intranode(w, gs, t):
    """(text, fix) when the job's GPUs on this node are kept off NVLink/PCIe P2P by its
    variables and NVLink moves nothing; None otherwise (one GPU of the job here, NVLink busy,
    nothing set)."""
    mine = sorted(i for i in job_gpus(w))
    if len(mine) < 2:
        return None
    nvl = [g["nvlink_bytes_s"] for g in gs if g["index"] in mine and g["nvlink_bytes_s"] is not None]
    if nvl and sum(nvl) >= RDMA_MIN:  # P2P moves the bytes after all
        return None
    p2p, shm = intranode_causes(w)
    if not p2p or len(_holders(w, p2p)) < 2:
        return None
    lo = loopback(w)
    idx = ",".join(str(i) for i in mine)
    pcie = [g["pcie_kb_s"] for g in gs if g["index"] in mine and g["pcie_kb_s"] is not None]
    pcie_text = "PCIe %s per GPU" % human_rate(1000 * sum(pcie) / len(pcie)) if pcie else "PCIe not sampled"
    nvl_text = ", NVLink %s" % human_rate(sum(nvl)) if nvl else ""
    if shm:
        if lo is not None and lo >= SOCKET_MIN:
            route = "talk over sockets through the loopback (lo %s, %s%s)" % (human_rate(lo), pcie_text, nvl_text)
        elif on_hcas(t):
            route = "talk through the HCAs (%s%s)" % (_ports_text(t), nvl_text)
        else:
            route = "talk over NCCL's network transport (lo %s, %s%s)" % (
                human_rate(lo) if lo is not None else "not sampled", _iface_text(t), nvl_text)
        why = "%s turn%s NCCL's P2P transport off and %s its shared-memory transport, so NCCL sends between " \
              "the GPUs of one node over the network" % (_set_text(p2p), "s" if len(p2p) == 1 else "", _set_text(shm))
    else:
        route = "talk through host memory (NCCL's shared-memory transport; %s%s)" % (pcie_text, nvl_text)
        why = "%s turn%s NCCL's P2P transport off, so NCCL copies through host memory" % (
            _set_text(p2p), "s" if len(p2p) == 1 else "")
    text = "the job's GPUs on this node (GPU %s) %s instead of NVLink/PCIe P2P: %s" % (idx, route, why)
    return text, _intranode_fix(p2p + shm)


# A GPU of the job that computes while the job's other GPUs on the node draw clearly less
HOT_BAND = 0.15  # of the limit: GPUs within this of the hottest one count with it
INNER_GAP = 0.30  # of the limit: the others' median under the hottest by this much
SAMPLE_GAP = 0.10  # in most samples the hot GPUs' lowest draw is over the others' highest by this much
SAMPLE_SHARE = 0.8


def _sample_fracs(w):
    """{GPU index: [power / limit per sample]} (None where a sample has no power)."""
    out = {}
    for g in _list(_dict(w.get("gpu")).get("gpus")):
        if not isinstance(g, dict) or not isinstance(g.get("index"), int):
            continue
        limit = _pos(g.get("power_limit_w"))
        out[g.get("index")] = [(_pos(s.get("power_w")) / limit) if limit and _pos(s.get("power_w")) is not None
                               else None for s in _list(g.get("samples")) if isinstance(s, dict)]
    return out


def _most_samples(series, first, second, holds):
    """``holds(first's values, second's values)`` in SAMPLE_SHARE of the samples where every GPU of both has one
    (series: {GPU index: [value per sample]}; first, second: GPU rows)."""
    rows = [series.get(g["index"]) or [] for g in first + second]
    n = min(len(r) for r in rows) if rows else 0
    ok = total = 0
    for i in range(n):
        a = [series[g["index"]][i] for g in first]
        b = [series[g["index"]][i] for g in second]
        if None in a or None in b:
            continue
        total += 1
        ok += bool(holds(a, b))
    return total > 0 and ok >= SAMPLE_SHARE * total


def _steady(w, hot, cold):
    """The hot GPUs out-draw the others sample by sample, not only on average."""
    return _most_samples(_sample_fracs(w), hot, cold, lambda h, c: min(h) - max(c) >= SAMPLE_GAP)


def launcher_ranks(w):
    """The job's ranks on this node: the GPU processes that share one parent (torchrun's agent,
    mpirun's daemon, slurmstepd), when two or more do and no other parent has as many; [] when
    the samples have no parent pids or the processes have no parent in common."""
    parents = {}
    for p in processes(w):
        if _int(p.get("ppid")) is not None and _gpu_ids(p):
            parents.setdefault(p["ppid"], []).append(p)
    sizes = sorted((len(v) for v in parents.values()), reverse=True)
    if not sizes or sizes[0] < 2 or (len(sizes) > 1 and sizes[1] == sizes[0]):
        return []
    return max(parents.values(), key=len)


def foreign(w, on):
    """(strangers, ranks, how) for the processes on the GPUs ``on``: the job's ranks share one
    parent (the launcher), so a process there whose parent differs is not a rank. Without
    parent pids (samples from before the sampler read them): (the processes of a GPU that
    carries more of them than every other GPU of the job, [], "count")."""
    per_gpu = job_gpus(w)
    procs = processes(w)
    ranks = launcher_ranks(w)
    if ranks:
        launcher = ranks[0]["ppid"]
        mine = set(_int(p.get("pid")) for p in ranks) - set([None])
        # a process a rank started (its parent is a rank) is the job's too
        strangers = [p for p in procs if _int(p.get("ppid")) not in mine | set([launcher, None])
                     and set(_gpu_ids(p)) & set(on)]
        return strangers, ranks, "parent"
    others = [len(v) for i, v in per_gpu.items() if i not in on]
    crowded = [p for i in on for p in per_gpu.get(i, []) if others and len(per_gpu[i]) > max(others)]
    return crowded, [], "count"


def _two_launchers(w, hot, cold):
    """Two parents of two or more GPU processes each, one's all on the hot GPUs and the other's all
    on the cold ones: two jobs side by side (launcher_ranks finds no launcher when they tie)."""
    hot_i, cold_i = set(g["index"] for g in hot), set(g["index"] for g in cold)
    parents = {}
    for p in processes(w):
        if _int(p.get("ppid")) is not None and _gpu_ids(p):
            parents.setdefault(p["ppid"], set()).update(_gpu_ids(p))
    groups = [on for pid, on in parents.items()
              if sum(1 for p in processes(w) if p.get("ppid") == pid and _gpu_ids(p)) >= 2]
    return any(on <= hot_i for on in groups) and any(on <= cold_i for on in groups)


def one_job(w, hot, cold):
    """The hot and the cold GPUs are one job's, not several jobs' sharing the node: the ranks'
    common parent (launcher_ranks) has ranks on both; where no launcher is found, NVLink moves
    bytes on a hot GPU and on a cold one (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_*, per GPU: a node
    total is also one job's NVLink traffic beside another job's GPU) and no two launchers split
    them. A launcher whose ranks are all on the cold GPUs (another job on the hot one) is no
    straggler of its job."""
    hot_i, cold_i = set(g["index"] for g in hot), set(g["index"] for g in cold)
    ranks = launcher_ranks(w)
    if ranks:
        spans = set(i for p in ranks for i in _gpu_ids(p))
        return bool(spans & hot_i and spans & cold_i)
    def moves(gs):
        return any((g["nvlink_bytes_s"] or 0) >= RDMA_MIN for g in gs)
    return moves(hot) and moves(cold) and not _two_launchers(w, hot, cold)


def inner_straggler(w, gs):
    """The finding for one GPU (or a few) of the job computing while the job's other GPUs on the
    node draw clearly less, sample after sample: they wait for it. An error when a process that is
    not one of the job's ranks computes on it; a warning otherwise (ranks given unequal work, such
    as pipeline stages, look the same). None when the node's GPUs keep pace."""
    mine = set(job_gpus(w)) or set(g["index"] for g in gs if isinstance(g["index"], int))
    busy = [g for g in gs if isinstance(g["index"], int) and g["index"] in mine
            and g["state"] not in ("idle", "unknown") and g["frac"] is not None]
    if len(busy) < 2:
        return None
    top = max(g["frac"] for g in busy)
    hot = [g for g in busy if g["frac"] >= top - HOT_BAND]
    cold = [g for g in busy if g not in hot]
    if top < COMPUTE_POWER or not cold or len(hot) > len(cold):
        return None
    if statistics.median([g["frac"] for g in cold]) > top - INNER_GAP or not _steady(w, hot, cold):
        return None
    if not one_job(w, hot, cold):
        return None
    on = [g["index"] for g in hot]
    hot_text = "GPU %s compute%s at %s of %s power limit (%s utilization, SM clock %s)" % (
        ",".join(str(i) for i in on), "s" if len(hot) == 1 else "",
        span(min(g["frac"] for g in hot), max(g["frac"] for g in hot), lambda x: "%.0f%%" % (100 * x)),
        "its" if len(hot) == 1 else "their",
        span(min(g["util"] for g in hot), max(g["util"] for g in hot), lambda x: "%.0f%%" % x),
        span(min(g["clock"] or 0 for g in hot), max(g["clock"] or 0 for g in hot), lambda x: "%.0f MHz" % x))
    cold_text = "the job's GPU %s draw %s (%s utilization)" % (
        ",".join(str(g["index"]) for g in cold),
        span(min(g["frac"] for g in cold), max(g["frac"] for g in cold), lambda x: "%.0f%%" % (100 * x)),
        span(min(g["util"] for g in cold), max(g["util"] for g in cold), lambda x: "%.0f%%" % x))
    msg = "straggler inside the node: %s while %s: they wait for %s" % (
        hot_text, cold_text, "it" if len(hot) == 1 else "them")
    strangers, ranks, how = foreign(w, on)

    def who(ps):
        return ", ".join("%s (%s)" % (p.get("pid"), p.get("comm") or "?") for p in ps[:4])

    if strangers and how == "parent":
        beside = [p for p in ranks if set(_gpu_ids(p)) & set(on)]
        msg += "; pid %s on GPU %s %s not one of the job's ranks (parent %s; the ranks' is %s)%s" % (
            who(strangers), ",".join(str(i) for i in sorted(set(i for p in strangers for i in _gpu_ids(p)))),
            "is" if len(strangers) == 1 else "are", ", ".join(str(p.get("ppid")) for p in strangers[:4]),
            ranks[0].get("ppid"), ", beside rank pid %s" % who(beside) if beside else "")
        pids = [p.get("pid") for p in strangers[:4]]
    elif strangers:
        most = max(len(v) for i, v in job_gpus(w).items() if i not in on)
        unread = not any(_int(p.get("ppid")) is not None for p in processes(w))
        msg += "; GPU %s is shared: pids %s compute on it while the job's other GPUs carry %s: one of them is " \
               "not a rank of the job (%s)" % (
                   ",".join(str(i) for i in on), who(strangers),
                   "one process each" if most == 1 else "%d processes at most" % most,
                   "these samples have no parent pids to tell which: the job's ranks share their launcher as parent"
                   if unread else "their parent pids do not tell which: no launcher is the parent of most of them")
        pids = [p.get("pid") for p in strangers[:4]]
    else:
        msg += "; unless the ranks are meant to do unequal work (pipeline stages), GPU %s is slower for the same " \
               "work or holds more of it" % ",".join(str(i) for i in on)
        return Finding.warning(msg, fix=cmd("nvidia-smi -q -d PERFORMANCE,CLOCK -i {gpus}   # throttle reasons and "
                                            "clocks of the GPU the others wait for",
                                            gpus=",".join(str(i) for i in on)))
    fix = cmd("ps -o pid,ppid,user,etime,args -p {pids}   # the process whose parent is not the job's launcher",
              pids=",".join(str(p) for p in pids if p is not None))
    fix += "\n# stop it, or run it on a GPU the job does not use; 'nvidia-smi -i %s -c EXCLUSIVE_PROCESS' (root) lets " \
           "one process at a time on a GPU" % ",".join(str(i) for i in on)
    return Finding.error(msg, fix=fix)


# One rank of the node's job off its GPU while the job's other GPUs wait busy in NCCL for it
LAG_UTIL = 50.0  # % mean utilization under which a job GPU beside waiting ones is off its work most of the time
LAG_GAP = 40.0  # utilization points under the waiting GPUs' lowest mean
LAG_CPU_BUSY = 80.0  # % of one core: the lagging process computes on its CPU (Python work in its loop)
LAG_CPU_IDLE = 30.0  # % of one core: the lagging process waits off the CPU too (data, I/O, a lock, a sleep)
PY_SPY = "https://github.com/benfred/py-spy"


def _util_samples(w):
    """{GPU index: [utilization per sample]} (None where a sample has none)."""
    out = {}
    for g in _list(_dict(w.get("gpu")).get("gpus")):
        if isinstance(g, dict) and isinstance(g.get("index"), int):
            out[g["index"]] = [_pct(s.get("util_pct")) for s in _list(g.get("samples")) if isinstance(s, dict)]
    return out


def _lags_steadily(w, waiting, lag):
    """Sample by sample (most of them), the lagging GPUs stay under LAG_UTIL while the waiting ones stay busy."""
    return _most_samples(_util_samples(w), waiting, lag, lambda wv, lv: min(wv) >= BUSY_UTIL and max(lv) < LAG_UTIL)


def lagging_rank(w, gs):
    """The finding for a rank of the node's job that keeps its GPU idle much of the time while the job's other GPUs
    on the node stay busy the whole time, its share of the step and then NCCL's kernels waiting for it: the job runs
    at that rank's pace, and what holds it is off the GPU. The busy GPUs either wait at low power (the rank is far
    behind) or compute part of the time at any power, and then NVLink must move bytes on both sides (they exchange
    data: one job's collective, not two runs of one launcher). Its process's CPU says which kind: at ~100% of a
    core, work on its CPU (Python, augmentation, tokenisation on the main thread); near 0%, it waits (a data loader
    that does not keep up, storage, a lock, a sleep). None unless the busy and the idle GPUs are one job's
    (launcher_ranks / one_job). Measured on a real 2x H200 DDP job (fixtures/recorded/h200x2-2026-11-28f/): one rank
    spinning or sleeping 0.3 s a step left its GPU at 0-19% utilization and the other at 99-100% and 25-26% of its
    power limit; 0.03 s a step (steps of 0.050 s against 0.022 s) left it at 35-44% and the other at 98-99% and 65%,
    NVLink 10.8 GB/s each."""
    mine = set(job_gpus(w))
    if len(mine) < 2:
        return None
    job = [g for g in gs if isinstance(g["index"], int) and g["index"] in mine and g["util"] is not None]
    busy = [g for g in job if g["util"] >= BUSY_UTIL and g["state"] in ("waiting", "computing", "partial")]
    if not busy:
        return None
    floor = min(g["util"] for g in busy)
    lag = [g for g in job if g["util"] < LAG_UTIL and g["util"] <= floor - LAG_GAP]
    if not lag or len(lag) > len(busy) or not _lags_steadily(w, busy, lag):
        return None
    waits = all(g["state"] == "waiting" for g in busy)
    moves = all((g["nvlink_bytes_s"] or 0) >= RDMA_MIN for g in busy + lag)
    # NVLink not read at all (the nvidia-smi sampler; PCIe GPUs, whose NVML has no NVLink counters): the ranks' one
    # launcher says they are one job, not that they exchange data each step (a launcher's independent runs look the
    # same): named as a warning. Seen on a real 4x H200 (fixtures/recorded/h200x4-2026-11-28g/call2/): a rank
    # sleeping 0.03 s a step, GPU 2 at 38% beside 99%, passed as "computing ... at 83% utilization" through nvidia-smi
    unread = not (waits or moves) and all(g["nvlink_bytes_s"] is None for g in busy + lag) and \
        set(g["index"] for g in busy + lag) <= set(i for p in launcher_ranks(w) for i in _gpu_ids(p))
    if not (waits or moves or unread) or not one_job(w, busy, lag):
        return None
    on = set(g["index"] for g in lag)
    slow = [p for p in processes(w) if set(_gpu_ids(p)) & on]
    if not slow:
        return None
    lag_text = "GPU %s idles at %s utilization (%s over the samples)" % (
        ",".join(str(g["index"]) for g in lag),
        span(min(g["util"] for g in lag), max(g["util"] for g in lag), lambda x: "%.0f%%" % x),
        span(min(g["util_min"] or 0 for g in lag), max(g["util_max"] or 0 for g in lag), lambda x: "%.0f%%" % x))
    who = ", ".join("%s (%s)" % (p.get("pid"), p.get("comm") or "?") for p in slow[:4])
    limit = _mean([g["limit_w"] for g in busy])
    util_text = span(min(g["util"] for g in busy), max(g["util"] for g in busy), lambda x: "%.0f%%" % x)
    frac_text = span(min(g["frac"] or 0 for g in busy), max(g["frac"] or 0 for g in busy), lambda x: "%.0f%%" % (100 * x))
    idx = ",".join(str(g["index"]) for g in busy)
    one = len(busy) == 1
    if waits:
        busy_text = "the job's GPU %s wait%s for it at %s utilization and %s of %s %.0f W power limit (NCCL's " \
                    "kernels resident, not computing)" % (idx, "s" if one else "", util_text, frac_text,
                                                          "its" if one else "their", limit or 0)
    elif unread:
        busy_text = "the job's GPU %s stay%s busy at %s utilization and %s of %s %.0f W power limit; they and it are " \
                    "one launcher's ranks (parent %s), and if they exchange data each step (DDP, FSDP) they wait for " \
                    "it (NVLink not read by %s: whether they exchange data is not seen)" % (
                        idx, "s" if one else "", util_text, frac_text, "its" if one else "their", limit or 0,
                        launcher_ranks(w)[0].get("ppid"), _dict(w.get("gpu")).get("source") or "the sampler")
    else:
        busy_text = "the job's GPU %s stay%s busy at %s utilization and %s of %s %.0f W power limit: %s share of " \
                    "each step, then NCCL's kernels waiting for it (NVLink %s a GPU, in and out)" % (
                        idx, "s" if one else "", util_text, frac_text, "its" if one else "their", limit or 0,
                        "its" if one else "their", human_rate(_mean([g["nvlink_bytes_s"] or 0 for g in busy + lag])))
    msg = "a rank on this node %s the job: %s while %s; pid %s on GPU %s spends its steps off the GPU" % (
        "may hold" if unread else "holds", lag_text, busy_text, who, ",".join(str(i) for i in sorted(on)))
    cpu = [_num(p.get("cpu_pct")) for p in slow if _num(p.get("cpu_pct")) is not None]
    pids = ",".join(str(p.get("pid")) for p in slow[:4] if _int(p.get("pid")) is not None)
    fix = cmd("py-spy dump --pid {pid}   # where the process spends its time (pip install py-spy; root or its user)",
              pid=pids.split(",")[0]) if pids else ""
    fix += "\n# %s" % PY_SPY
    on_cpu = "\n# move that work into DataLoader workers (num_workers) or onto the GPU; a rank that does more than " \
             "the others (rank 0 logging, evaluating, saving) holds every rank"
    waiting_fix = "\n# DataLoader(num_workers=8, pin_memory=True, persistent_workers=True, prefetch_factor=4); data " \
                  "on local disk; py-spy shows the call it waits in"
    cpu_text = span(min(cpu), max(cpu), lambda x: "%.0f%%" % x) if cpu else None
    if cpu and min(cpu) >= LAG_CPU_BUSY:
        msg += ", at %s of a CPU core: work on its CPU between the steps (Python in the training loop, " \
               "augmentation or tokenisation on the main thread, a metric or a log computed on the CPU)" % cpu_text
        fix += on_cpu
    elif cpu and max(cpu) <= LAG_CPU_IDLE:
        sysc = _dict(w.get("cpu"))
        io = " (node iowait %.0f%%)" % sysc["iowait_pct"] if _num(sysc.get("iowait_pct")) is not None else ""
        msg += ", at %s of a CPU core: it waits off the CPU too%s: for its next batch (a DataLoader with too few " \
               "workers, slow or remote storage), a lock, a file, a sleep" % (cpu_text, io)
        fix += waiting_fix
    elif cpu:
        msg += ", at %s of a CPU core: part of that time on its CPU, part waiting (for its data, a lock, a file, a " \
               "sleep)" % cpu_text
        fix += on_cpu + waiting_fix
    else:
        msg += " (its CPU time was not read)"
    return (Finding.warning if unread else Finding.error)(msg, fix=fix.lstrip("\n"))


# ---------------------------------------------------------------- the checks

def _gpus_text(gs):
    idx = ",".join(str(g["index"]) for g in gs)
    util = _mean([g["util"] for g in gs])
    frac = _mean([g["frac"] for g in gs])
    limit = _mean([g["limit_w"] for g in gs])
    clock = _mean([g["clock"] for g in gs])
    return "GPU %s at %.0f%% utilization draw%s %.0f%% of %s %.0f W power limit%s" % (
        idx, util or 0, "s" if len(gs) == 1 else "", 100 * (frac or 0), "its" if len(gs) == 1 else "their", limit or 0,
        " (SM clock %.0f MHz)" % clock if clock else "")


def _pids_text(ps):
    return ", ".join("%s %s" % (p.get("pid"), p.get("comm") or "?") for p in ps[:4]) + (
        " +%d more" % (len(ps) - 4) if len(ps) > 4 else "")


@check("watch.target", title="a running job is there to watch", needs=("watch",), severity="info", registry=WATCH)
def watch_target(facts, config):
    """What was sampled: the GPUs and the job's processes; n/a, with the reason, when there is
    nothing to watch (no GPU, no job)."""
    w = facts["watch"]
    g = _dict(w.get("gpu"))
    gs = gpu_stats(w)
    procs = processes(w)
    src = _dict(w.get("processes")).get("source")
    took = "%d samples over %.1f s" % (max([x["samples"] for x in gs] or [0]), _num(w.get("elapsed_s")) or 0)
    if not gs and not procs:
        yield NA("nothing to watch: %s; and no job process (no readable process with NCCL_* in its environment)"
                 % (g.get("reason") or "no GPU"))
        return
    if gs and all(x["state"] == "idle" for x in gs) and not any(_gpu_ids(p) for p in procs):
        # processes found only by their environment beside idle GPUs hold no GPU: a job still starting (its
        # imports, its data, before the first CUDA call), or a process that shares the shell's NCCL_* (a `tail`
        # of the job's log, the launcher's wrapper): nothing computes to be watched (a real 2x H200 run named a
        # pipeline's `tail` the job: fixtures/recorded/h200x2-2026-11-28f)
        why = "%d GPU%s idle (%s) and no compute process on them" % (len(gs), "" if len(gs) == 1 else "s", took)
        loads = [p for p in procs if _list(p.get("frameworks"))]
        rest = [p for p in procs if p not in loads]
        if loads:
            why += "; %d process%s with NCCL_* in %s environment load%s %s and hold%s no GPU yet (%s): a job " \
                   "still starting (imports, data loading before its first CUDA call); watch again once it " \
                   "computes" % (len(loads), "" if len(loads) == 1 else "es", "its" if len(loads) == 1 else "their",
                                 "s" if len(loads) == 1 else "",
                                 "/".join(sorted(set(str(f) for p in loads for f in _list(p.get("frameworks"))))),
                                 "s" if len(loads) == 1 else "", _pids_text(loads))
        if rest:
            why += "; %d %sprocess%s with NCCL_* in %s environment (%s), %s" % (
                len(rest), "other " if loads else "", "" if len(rest) == 1 else "es",
                "its" if len(rest) == 1 else "their", _pids_text(rest),
                "no framework loaded: not a GPU job" if all("frameworks" in p for p in rest) else "on no GPU")
        yield NA("nothing to watch: " + why)
        return
    what = []
    if gs:
        what.append("%d GPU%s via %s (%s)" % (len(gs), "" if len(gs) == 1 else "s", g.get("source"), took))
    else:
        what.append("no GPU (%s)" % (g.get("reason") or "none"))
    if procs:
        what.append("job process%s %s%s (found by %s)" % ("" if len(procs) == 1 else "es", ", ".join(
            "%s %s" % (p.get("pid"), p.get("comm") or "?") for p in procs[:4]),
            " +%d more" % (len(procs) - 4) if len(procs) > 4 else "", src or "?"))
    else:
        what.append("no job process found")
    chosen = _dict(_dict(w.get("processes")).get("user"))
    if chosen:
        what.append("only the processes of user %s" % _user_text(chosen.get("name"), chosen.get("uid")))
    elsewhere = _num(_dict(w.get("processes")).get("gpu_pids_elsewhere"))
    if elsewhere:
        what.append("%d GPU process%s NVML lists %s not visible here (another pid namespace: a container without "
                    "the host's pids, or /proc mounted hidepid; run watch on the host or as root)" % (
                        elsewhere, "" if elsewhere == 1 else "es", "is" if elsewhere == 1 else "are"))
    users = job_users(procs)
    if len(users) > 1 and not chosen:
        # root reads every user's environment (and NVML lists every user's GPU processes): two users' jobs on one
        # node were one "job" whose ranks, traffic and stragglers the other diagnoses compared
        counts = ", ".join("%s: %d process%s" % (_user_text(name, uid), n, "" if n == 1 else "es")
                           for (uid, name), n in sorted(users.items(), key=lambda x: (-x[1], str(x[0][0]))))
        top = sorted(users.items(), key=lambda x: (-x[1], str(x[0][0])))[0][0]
        yield Finding.warning(
            "the processes watched belong to %d users (%s): several jobs read as one; the diagnoses below mix them"
            % (len(users), counts), observed="; ".join(what),
            expected="one job's processes (one user's)",
            fix=cmd("gpudoctor watch --user {} ...   # one user's job at a time", _user_arg(*top)))
        return
    yield Pass("; ".join(what))


def _user_text(name, uid):
    if isinstance(name, str) and name:
        return "%s (uid %s)" % (shown_word(name) if hostile(name) else name, uid if isinstance(uid, int) else "?")
    return "uid %s" % (uid if isinstance(uid, int) else "?")


def _user_arg(uid, name):
    """What `--user` is given for a user the node named: the name when --user takes it (USER_NAME: useradd's rule),
    else the uid (a name starting with '-' or holding a blank would be refused, or read as an
    option)."""
    return name if isinstance(name, str) and USER_NAME.match(name) and not name.isdigit() else str(uid)


def job_users(procs):
    """{(uid, name): number of processes} over the job processes whose owner was read."""
    out = {}
    for p in procs:
        uid = p.get("uid")
        if isinstance(uid, int) and not isinstance(uid, bool):
            name = p.get("user") if isinstance(p.get("user"), str) else None
            out[(uid, name)] = out.get((uid, name), 0) + 1
    return out


@check("watch.bound", title="the GPUs compute (power near the limit), not wait", needs=("watch",), registry=WATCH)
def watch_bound(facts, config):
    """communication-bound (busy at low power), input-bound (low, uneven utilization) or
    computing, from each GPU's utilization and power against its enforced limit."""
    w = facts["watch"]
    gs = gpu_stats(w)
    if not gs:
        yield NA("no GPU to judge: %s" % (_dict(w.get("gpu")).get("reason") or "none listed"))
        return
    busy = [g for g in gs if g["state"] != "idle"]
    if not busy:
        yield NA("every GPU idle (%s): no job computes here" % ", ".join(
            "GPU %s %.0f%%" % (g["index"], g["util"] or 0) for g in gs[:8]))
        return
    if any(g["state"] == "unknown" for g in busy):
        yield Skip("no power reading (or power limit) for GPU %s: cannot tell computing from waiting" % ",".join(
            str(g["index"]) for g in busy if g["state"] == "unknown"))
        return
    waiting = [g for g in busy if g["state"] == "waiting"]
    computing = [g for g in busy if g["state"] == "computing"]
    inner = inner_straggler(w, gs)  # before communication-bound: the others may wait busy at low power for it
    if inner is not None:
        yield inner
        return
    lagging = lagging_rank(w, gs)  # a rank of the node's job idles its GPU while the others wait for it
    if lagging is not None:
        yield lagging
        return
    if waiting and len(waiting) >= len(busy) / 2.0:
        t = traffic(w)
        msg = "communication-bound: %s: %s kernels are resident but not computing (NCCL kernels waiting " \
              "for data)" % (_gpus_text(waiting), "its" if len(waiting) == 1 else "their")
        local = intranode(w, gs, t)
        if on_sockets(t):
            causes, _exports, _notes = socket_causes(w)
            msg += "; the job's bytes go over %s while %s: NCCL is on sockets" % (_iface_text(t), _ports_text(t))
            if causes:
                msg += " (%s)" % "; ".join(causes)
            if local:
                msg += "; and %s" % local[0]
            yield Finding.error(msg, fix="# why, and the exports that move it to IB: watch.transport" + (
                "\n" + local[1] if local else ""))
        elif local and not on_hcas(t):
            yield Finding.error(msg + "; " + local[0], fix=local[1])
        elif on_hcas(t):
            yield Finding.error(msg + "; the traffic is on the HCAs (%s): the fabric is the bottleneck or a peer "
                                      "is late%s" % (_ports_text(t), "; and %s" % local[0] if local else ""),
                                fix="gpudoctor probe --hosts HOSTFILE   # each pair's bus bandwidth against the "
                                    "others'\ngpudoctor watch --hosts HOSTFILE   # every node: a straggler shows" + (
                                        "\n" + local[1] if local else ""))
        else:
            nvlink = sum(g["nvlink_bytes_s"] or 0 for g in gs)
            if nvlink >= RDMA_MIN:  # NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_*: the GPUs of this node talk
                msg += "; NVLink carries %s between this node's GPUs" % human_rate(nvlink)
            lo = loopback(w)
            lo_text = ""
            if lo is not None and lo >= SOCKET_MIN and len(job_gpus(w)) >= 2:
                # NCCL's variables unread (another user's job), or set in a config file the sampler did not read
                unread = ["the job's environment (unreadable)"] if any(
                    not p.get("environ_readable") for p in processes(w)) else []
                unread += ([] if "nccl_conf" in w else ["/etc/nccl.conf"]) + ["~/.nccl.conf"]
                lo_text = "; the loopback carries %s: the job's GPUs on this node may talk over sockets (NCCL_P2P_" \
                          "DISABLE=1 with NCCL_SHM_DISABLE=1, or NCCL_P2P_LEVEL=LOC, set where watch did not read " \
                          "it: %s)" % (human_rate(lo), ", ".join(unread))
            yield Finding.error(msg + "; no network traffic here (%s, %s)%s: they wait for a peer on another node "
                                      "or for the host, or the kernels are too small to load the GPU" % (
                                          _iface_text(t), _ports_text(t), lo_text),
                                fix="gpudoctor watch --hosts HOSTFILE   # every node of the job: the straggler "
                                    "computes while the others wait")
        return
    util = _mean([g["util"] for g in busy])
    frac = _mean([g["frac"] for g in busy])
    spread_t = max((g["util_max"] or 0) - (g["util_min"] or 0) for g in busy)
    # between the job's GPUs only: a single-GPU job beside the node's idle GPUs is not uneven (a real H200 JAX run on
    # GPU 0 read "51 points between GPUs" against the GPU 1 it never used: fixtures/recorded/h200x2-2026-11-28f)
    mine = set(job_gpus(w))
    among = [g for g in gs if isinstance(g["index"], int) and g["index"] in mine] or gs
    spread_g = max(g["util"] or 0 for g in among) - min(g["util"] or 0 for g in among)
    # power is no test here: a GPU that idles and computes by turns averages anywhere between
    # (the recorded input-starved loop read 54% of the limit at 34% utilization)
    if util is not None and util < BUSY_UTIL - 10 and max(spread_t, spread_g) >= UNEVEN:
        cpu, disks = _dict(w.get("cpu")), _dict(w.get("disks"))
        procs = processes(w)
        pcpu = [p.get("cpu_pct") for p in procs if _num(p.get("cpu_pct")) is not None]
        evidence = "CPU %s busy%s, iowait %s, disks read %s" % (
            "%.0f%%" % cpu["busy_pct"] if _num(cpu.get("busy_pct")) is not None else "n/a",
            " (%s cores)" % cpu["cpus"] if _num(cpu.get("cpus")) else "",
            "%.0f%%" % cpu["iowait_pct"] if _num(cpu.get("iowait_pct")) is not None else "n/a",
            human_rate(_num(disks.get("read_bytes_s"))))
        if pcpu:
            evidence += ", job processes at %s CPU" % ", ".join("%.0f%%" % x for x in pcpu[:8])
        yield Finding.error(
            "input-bound: GPU utilization low and uneven (mean %.0f%%, %.0f-%.0f%% over the samples, %s) at %.0f%% "
            "of the power limit; %s: the GPUs wait for data" % (
                util, min(g["util_min"] or 0 for g in busy), max(g["util_max"] or 0 for g in busy),
                "%.0f points between GPUs" % spread_g if len(among) > 1 else "the job's one GPU here",
                100 * frac, evidence),
            fix="more loader processes: DataLoader(num_workers=8, pin_memory=True, persistent_workers=True, "
                "prefetch_factor=4)\n# high iowait: stage the data on local NVMe; CPU at 100%: decode/augment on the "
                "GPU (DALI) or pre-process offline")
        return
    if computing and len(computing) >= len(busy) / 2.0:
        local = intranode(w, gs, traffic(w))
        if local:  # computing, yet every collective between this node's GPUs takes the slow road
            yield Finding.warning("computing: %s; but %s: every collective between them is slower than over P2P "
                                  "(on a 2x H200, all_reduce bus bandwidth 27 GB/s through host memory against 328 "
                                  "GB/s over NVLink, and a DDP step 41%% longer)" % (_gpus_text(computing), local[0]),
                                  fix=local[1])
            return
        yield Pass("computing: %s" % _gpus_text(computing))
        return
    yield Skip("no clear signature: mean utilization %.0f%% at %.0f%% of the power limit (computing is >= %.0f%%, "
               "waiting is >= %.0f%% utilization under %.0f%%)" % (util or 0, 100 * (frac or 0), 100 * COMPUTE_POWER,
                                                                     BUSY_UTIL, 100 * WAIT_POWER))


@check("watch.transport", title="the job's traffic between nodes goes through the HCAs", needs=("watch",),
       registry=WATCH)
def watch_transport(facts, config):
    """Bytes on an Ethernet/IPoIB interface with the HCAs' port counters still is NCCL on
    sockets; the job's NCCL_* variables (and what the node lacks) say why."""
    w = facts["watch"]
    procs = processes(w)
    if not procs:
        yield NA("no job process found (no GPU compute process, and no readable process with NCCL_* in its "
                 "environment)")
        return
    t = traffic(w)
    if on_hcas(t):
        holds = [p for p in procs if _list(p.get("infiniband_fds"))]
        yield Pass("the job's bytes are on the HCAs: %s; the job's interface %s%s" % (
            _ports_text(t), _iface_text(t), "; pid %s holds %s open" % (
                holds[0].get("pid"), ", ".join(_list(holds[0].get("infiniband_fds"))[:3])) if holds else ""))
        return
    if not on_sockets(t):
        yield NA("no traffic between nodes in the window (the job's interface %s; %s)" % (_iface_text(t), _ports_text(t)))
        return
    causes, exports, notes = socket_causes(w)
    msg = "NCCL on sockets: the job's bytes go over %s while %s" % (_iface_text(t), _ports_text(t))
    if causes:
        msg += ": %s" % "; ".join(causes)
    has_hca = any(p.get("state") == "ACTIVE" for p in t["ports"])
    make = Finding.error if has_hca else Finding.warning
    yield make(msg, fix=_socket_fix(causes, exports, notes, has_hca), exports=exports if has_hca else {})
    for n in notes:
        yield Finding.info(n)


def _gib(mib):
    return "%.1f" % (mib / 1024.0)


# the fix for a rank holding a context on another rank's GPU (watch.memory's uneven and stray findings)
SET_DEVICE_FIX = ("torch.cuda.set_device(int(os.environ['LOCAL_RANK']))   # first thing in each rank, before any CUDA "
                  "call (dist.barrier(device_ids=[local_rank]), torch.load(..., map_location='cpu'))")


def _stray_text(stray):
    return "; ".join("pid %s on GPU %s" % (p, ",".join(str(i) for i in ids)) for p, ids in stray)


def stray_contexts(w):
    """[(pid, [its GPUs])] of the job's processes that hold a context on a GPU another job process also holds,
    beside a GPU of their own: a rank that touched cuda:0 before torch.cuda.set_device(local_rank) (a barrier,
    torch.cuda.synchronize(), an object loaded with map_location left out) keeps a context of several hundred MiB
    there (https://pytorch.org/docs/stable/generated/torch.cuda.set_device.html). One process alone on several
    GPUs (DataParallel, device_map="auto") is not one."""
    on = job_gpus(w)
    out = []
    for p in processes(w):
        ids = _gpu_ids(p)
        if len(ids) >= 2 and any(len(on.get(i, ())) >= 2 for i in ids):
            out.append((p.get("pid"), ids))
    return out


def _fraction(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if 0 < v <= 1 else None


def preallocated(procs):
    """Why the memory a GPU's processes hold is an allocator's pool taken at start, not what the job needs (so a
    full GPU says nothing of its room), or None: JAX/XLA preallocating a fraction of 95% or more (its variables set
    it; the 75% default stays under MEM_FULL and a pool that grew past it grew for the arrays), a process that
    loads TensorFlow with allow-growth off, or one that loads vLLM. Values from the node are parsed, never shown raw."""
    for p in procs:
        env, fw = _dict(p.get("env")), _list(p.get("frameworks"))
        name = next((n for n in ("XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_MEM_FRACTION") if n in env), None)
        frac = _fraction(env.get(name)) if name else None
        if frac is not None and frac >= MEM_FULL and str(env.get("XLA_PYTHON_CLIENT_PREALLOCATE", "")).strip().lower() \
                not in ("false", "0") and str(env.get("XLA_PYTHON_CLIENT_ALLOCATOR", "")).strip().lower() != "platform":
            return "pid %s: %s=%.2f makes JAX preallocate %.0f%% of the GPU at its first operation (its pool, not " \
                   "what its arrays need; XLA_PYTHON_CLIENT_PREALLOCATE=false shows the need)" % (
                       _int(p.get("pid")), name, frac, 100 * frac)
        if "tensorflow" in fw and str(env.get("TF_FORCE_GPU_ALLOW_GROWTH", "")).strip().lower() != "true":
            return "pid %s loads TensorFlow, which maps nearly all of a GPU at start (TF_FORCE_GPU_ALLOW_GROWTH=true " \
                   "shows what it needs)" % _int(p.get("pid"))
        if "vllm" in fw:
            return "pid %s loads vLLM, which takes --gpu-memory-utilization of the GPU (0.9 by default) for its " \
                   "weights and KV cache at start (its log's KV cache size says the room)" % _int(p.get("pid"))
    return None


@check("watch.memory", title="the job's GPU memory has room and is held evenly", needs=("watch",), severity="warning",
       registry=WATCH)
def watch_memory(facts, config):
    """Each GPU's peak memory held in the window (NVML's used) against its total, and the job's GPUs against each
    other: a GPU near full, one holding far more than the others, or ranks holding contexts on another's GPU."""
    w = facts["watch"]
    gs = gpu_stats(w)
    if not gs:
        yield NA("no GPU to judge: %s" % (_dict(w.get("gpu")).get("reason") or "none listed"))
        return
    on = job_gpus(w)
    # untrusted node output: a GPU's index is judged only where it is an integer
    mine = [g for g in gs if _int(g["index"]) is not None and g["index"] in on] or [
        g for g in gs if g["state"] != "idle"]
    if not mine:
        yield NA("no GPU runs the job here (every GPU idle, no compute process on one)")
        return
    unread = [g for g in mine if g["mem_used_mib"] is None or not g["mem_total_mib"]]
    if unread:
        yield Skip("no memory reading for GPU %s (%s did not report used/total memory)" % (
            ",".join(str(g["index"]) for g in unread), _dict(w.get("gpu")).get("source") or "the sampler"))
        return
    found = False
    full = [g for g in mine if g["mem_used_mib"] >= MEM_FULL * g["mem_total_mib"]]
    pooled = [(g, preallocated(on.get(g["index"], ()) if _int(g["index"]) is not None else ())) for g in full]
    pooled = [(g, why) for g, why in pooled if why]
    full = [g for g in full if all(g is not x for x, _w in pooled)]
    pool_text = "; ".join("GPU %s not judged for room (%s of %s GiB held): %s" % (
        g["index"], _gib(g["mem_used_mib"]), _gib(g["mem_total_mib"]), why) for g, why in pooled)
    if full:
        found = True
        yield Finding.warning(
            "GPU memory near full: %s: %s GiB free at the peak: a longer sequence, a larger batch, an eval step "
            "or fragmentation fails with CUDA out of memory" % ("; ".join(
                "GPU %s holds %s of %s GiB (%.0f%%)" % (g["index"], _gib(g["mem_used_mib"]), _gib(g["mem_total_mib"]),
                                                       100.0 * g["mem_used_mib"] / g["mem_total_mib"]) for g in full),
                span(min(g["mem_total_mib"] - g["mem_used_mib"] for g in full),
                     max(g["mem_total_mib"] - g["mem_used_mib"] for g in full), _gib)),
            observed=", ".join("GPU %s %s/%s GiB" % (g["index"], _gib(g["mem_used_mib"]), _gib(g["mem_total_mib"]))
                               for g in full),
            expected="under %.0f%% of each GPU's memory" % (100 * MEM_FULL),
            fix="print(torch.cuda.max_memory_allocated() >> 20, torch.cuda.memory_reserved() >> 20)   # in the job, "
                "MiB: what the tensors needed against what the allocator reserved\n# less per GPU: a smaller "
                "micro-batch with gradient accumulation, activation checkpointing, or FSDP/ZeRO sharding")
    stray = stray_contexts(w)
    if len(mine) >= 2:
        top = max(mine, key=lambda g: g["mem_used_mib"])
        rest = [g["mem_used_mib"] for g in mine if g is not top]
        med = statistics.median(rest)
        if top["mem_used_mib"] >= MEM_UNEVEN * med and top["mem_used_mib"] - med >= MEM_UNEVEN_MIB:
            found = True
            who = [p.get("pid") for p in on.get(top["index"], ())] if _int(top["index"]) is not None else []
            msg = "uneven GPU memory: GPU %s holds %s GiB, the job's other GPUs %s GiB (median %s)" % (
                top["index"], _gib(top["mem_used_mib"]), span(min(rest), max(rest), _gib), _gib(med))
            if stray:
                msg += "; %s also hold%s a context on another rank's GPU (%s): ranks that touched a GPU before " \
                       "torch.cuda.set_device(local_rank)" % (
                           "pid " + ", ".join(str(p) for p, _i in stray), "s" if len(stray) == 1 else "",
                           _stray_text(stray))
            else:
                msg += ": data parallel ranks hold the same; the one above them gathers more (a full state dict, " \
                       "eval outputs or metrics on rank 0) or runs another stage (pipeline stages differ by design)"
            gather = ("nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory --format=csv   # which process holds "
                      "it\n# rank 0 only: gather to CPU (FSDP StateDictOptions(cpu_offload=True)), free eval outputs")
            yield Finding.warning(
                msg, observed=", ".join("GPU %s %s GiB" % (g["index"], _gib(g["mem_used_mib"])) for g in mine) + (
                    "; processes on GPU %s: %s" % (top["index"], ", ".join(str(x) for x in who)) if who else ""),
                expected="within %.1fx of the others' median" % MEM_UNEVEN,
                fix=SET_DEVICE_FIX if stray else gather)
            stray = []  # said above
    if stray:
        found = True
        yield Finding.warning(
            "%d of the job's processes hold a context on another rank's GPU beside their own (%s): a rank that "
            "touched a GPU before torch.cuda.set_device(local_rank) keeps several hundred MiB there" % (
                len(stray), _stray_text(stray)), fix=SET_DEVICE_FIX)
    if found:
        if pool_text:
            yield Finding.info(pool_text)
        return
    used = [g["mem_used_mib"] for g in mine]
    frac = [float(g["mem_used_mib"]) / g["mem_total_mib"] for g in mine]
    yield Pass("GPU %s hold%s %s GiB of %s GiB at the peak (%s); %s" % (
        ",".join(str(g["index"]) for g in mine), "s" if len(mine) == 1 else "", span(min(used), max(used), _gib),
        span(min(g["mem_total_mib"] for g in mine), max(g["mem_total_mib"] for g in mine), lambda x: "%.0f" % (
            x / 1024.0)), span(min(frac), max(frac), lambda x: "%.0f%%" % (100 * x)),
        "even across the job's GPUs" if len(mine) >= 2 else "one GPU") + ("; " + pool_text if pool_text else ""))


def _node_summary(facts):
    w = _dict(facts.get("watch"))
    gs = gpu_stats(w)
    t = traffic(w)
    link = t["rdma_bytes_s"] if on_hcas(t) else (t["iface_bytes_s"] if on_sockets(t) else None)
    busy = [g for g in gs if g["state"] not in ("idle", "unknown")]  # GPUs the job does not use are no pace
    return {"gpus": gs, "frac": _mean([g["frac"] for g in busy]), "util": _mean([g["util"] for g in busy]),
            "clock": _mean([g["clock"] for g in busy]), "link": link, "traffic": t}


@check("watch.straggler", title="every node keeps pace (no node computes while the others wait)", needs=("watch",),
       scope="cluster", registry=WATCH)
def watch_straggler(nodes, config):
    """One node whose GPUs compute at full power while the others' wait at low power, or whose
    link carries far less than the others', holds the whole job back."""
    s = dict((h, _node_summary(f)) for h, f in nodes.items())
    with_gpu = dict((h, x) for h, x in s.items() if x["frac"] is not None and x["util"] is not None)
    found, flagged = False, set()
    if len(with_gpu) >= 2:
        computing = sorted(h for h, x in with_gpu.items() if x["frac"] >= COMPUTE_POWER)
        waiting = sorted(h for h, x in with_gpu.items() if x["util"] >= BUSY_UTIL and x["frac"] < WAIT_POWER)
        if computing and waiting and len(computing) < len(waiting):
            c = with_gpu[computing[0]]
            wf = [with_gpu[h]["frac"] for h in waiting]
            yield Finding.error(
                "straggler: %s's GPUs compute at %.0f%% of their power limit (%.0f%% utilization, SM clock %.0f MHz) "
                "while %s wait at %s (%.0f%% utilization): the others wait for %s" % (
                    fold(computing), 100 * c["frac"], c["util"], c["clock"] or 0, fold(waiting),
                    span(min(wf), max(wf), lambda x: "%.0f%%" % (100 * x)),
                    _mean([with_gpu[h]["util"] for h in waiting]), fold(computing)),
                hosts=computing,
                fix="find what makes %s slower: gpudoctor check --hosts HOSTFILE (clocks, Xid, driver drift); "
                    "nvidia-smi -q -d PERFORMANCE on it (throttle reasons); its data shard or batch size" % fold(computing))
            found = True
            flagged.update(computing)
    links = dict((h, x["link"]) for h, x in s.items() if x["link"] is not None)
    if len(links) >= 2:
        for h, rate in sorted(links.items()):
            others = [r for o, r in links.items() if o != h]
            med = statistics.median(others)
            if med >= SOCKET_MIN and rate < SLOW_LINK * med:
                ports = s[h]["traffic"]["counted_ports"]
                rates = ", ".join("%s/%s %s" % (p.get("device"), p.get("port"), p.get("rate") or "?") for p in ports[:4])
                yield Finding.error(
                    "straggler link: %s moves %s, the other nodes %s (median %s)%s" % (
                        h, human_rate(rate), span(min(others), max(others), human_rate),
                        human_rate(med), "; its ports: %s" % rates if rates else ""),
                    hosts=[h],
                    fix="gpudoctor probe --hosts HOSTFILE   # the pairs with %s against the others'\n"
                        "# on %s: ibstat (rate and width), cat /sys/class/infiniband/*/ports/*/counters/"
                        "symbol_error (a bad cable)" % (h, h))
                found = True
                flagged.add(h)
    if found:
        if flagged:
            others = sorted(h for h in s if h not in flagged)
            if others:
                yield Pass("keeps pace (not the straggler: %s)" % fold(sorted(flagged)), hosts=others)
        return
    judged = sorted(set(with_gpu) | set(links))
    if len(judged) < 2:
        yield NA("fewer than two nodes with busy GPUs or traffic to compare")
        return
    parts = []
    if len(with_gpu) >= 2:
        fr = [x["frac"] for x in with_gpu.values()]
        parts.append("power %s of the limit on %d nodes" % (
            span(min(fr), max(fr), lambda x: "%.0f%%" % (100 * x)), len(with_gpu)))
    if len(links) >= 2:
        parts.append("links %s" % span(min(links.values()), max(links.values()), human_rate))
    yield Pass("; ".join(parts), hosts=judged)


# ---------------------------------------------------------------- the sample table

def node_rows(facts):
    """{gpus: [...], iface, iface_bytes_s, rdma_bytes_s, processes: [...], cpu, disks} for the
    report: what the diagnoses read, in numbers."""
    w = _dict(facts.get("watch"))
    if w.get("status") != "ok":
        return {"status": w.get("status"), "reason": w.get("reason")}
    t = traffic(w)
    gs = gpu_stats(w)
    return {
        "status": "ok", "elapsed_s": w.get("elapsed_s"), "seconds": w.get("seconds"),
        "interrupted": w.get("interrupted") is True, "gpu_source": _dict(w.get("gpu")).get("source"),
        "gpu_reason": _dict(w.get("gpu")).get("reason"),
        "driver_version": _dict(w.get("gpu")).get("driver_version"),
        "gpus": [dict((k, round(v, 3) if isinstance(v, float) else v) for k, v in g.items()) for g in gs],
        "job_interface": t["iface"].get("name") if t["iface"] else None,
        "job_interface_bytes_s": t["iface_bytes_s"], "rdma_bytes_s": t["rdma_bytes_s"],
        "loopback_bytes_s": loopback(w),
        "processes": [{"pid": p.get("pid"), "ppid": p.get("ppid"), "comm": p.get("comm"), "gpus": p.get("gpus"),
                       "uid": p.get("uid"), "user": p.get("user"), "env": p.get("env"),
                       "infiniband_fds": p.get("infiniband_fds"), "cpu_pct": p.get("cpu_pct")} for p in processes(w)],
        "cpu": w.get("cpu"), "disks": w.get("disks"),
    }


DETAILED_NODES = 4  # more nodes than this: one line per node


def _node_line(host, r):
    gs = r["gpus"]
    states = {}
    for g in gs:
        states[g["state"]] = states.get(g["state"], 0) + 1
    gpus = "no GPU" if not gs else "%d GPU%s util %.0f%% power %.0f%% of limit (%s)" % (
        len(gs), "" if len(gs) == 1 else "s", _mean([g["util"] for g in gs]) or 0,
        100 * (_mean([g["frac"] for g in gs]) or 0), ", ".join("%s %d" % kv for kv in sorted(states.items())))
    return "  %-12s %s; %s %s; RDMA %s; %d job process%s%s" % (
        host, gpus, _word(r["job_interface"] or "-"), human_rate(r["job_interface_bytes_s"]),
        human_rate(r["rdma_bytes_s"]) if r["rdma_bytes_s"] is not None else "-", len(r["processes"]),
        "" if len(r["processes"]) == 1 else "es",
        "; interrupted at %.1f s" % (_num(r.get("elapsed_s")) or 0) if r.get("interrupted") else "")


def _word(value):
    """A job's value in a table line: one sh() word where a shell or a terminal acts on it (fixline.hostile)."""
    value = str(value)
    return shown_word(value) if hostile(value) else value


def table_lines(nodes):
    """Text lines: per node, per GPU utilization/power/clock, the job's interface and the
    HCAs; one line per node when there are more than DETAILED_NODES."""
    out = ["Samples"]
    live = [n for n in nodes if n.reachable]
    for n in live:
        r = node_rows(n.facts or {})
        if r.get("status") != "ok":
            out.append("  %s: not sampled (%s)" % (n.host, _word(r.get("reason") or r.get("status"))))
            continue
        if len(live) > DETAILED_NODES:
            out.append(_node_line(n.host, r))
            continue
        head = "  %s (%.1f s)" % (n.host, _num(r.get("elapsed_s")) or 0)
        if r.get("interrupted") and _num(r.get("seconds")) is not None:  # Ctrl-C ended the window early
            head = "  %s (%.1f s of %g s: interrupted, the rates are over the time sampled)" % (
                n.host, _num(r.get("elapsed_s")) or 0, _num(r["seconds"]))
        out.append(head)
        if not r["gpus"]:
            out.append("    GPUs  none: %s" % _word(r.get("gpu_reason") or "-"))
        for g in r["gpus"]:
            mem = ""
            if g.get("mem_used_mib") is not None:  # the most held in the window (NVML's used memory)
                mem = "  mem %.1f%s GiB" % (g["mem_used_mib"] / 1024.0, "/%.0f" % (g["mem_total_mib"] / 1024.0)
                                            if g.get("mem_total_mib") else "")
            # a GPU's index and a process's pid are the node's: integers from NVML and /proc on a real one, any
            # text from a hostile one, shown as one shell word as the job's other values are (docs/security.md 84.)
            out.append("    GPU %-3s util %3.0f%% (%3.0f-%3.0f)  power %5.0f/%-4.0f W (%3.0f%%)  SM %4.0f MHz%s  %s" % (
                _word(g["index"]), g["util"] or 0, g["util_min"] or 0, g["util_max"] or 0, g["power_w"] or 0,
                g["limit_w"] or 0, 100 * (g["frac"] or 0), g["clock"] or 0, mem, g["state"]))
        lo = r.get("loopback_bytes_s")
        out.append("    net   %s %s; RDMA %s%s" % (
            _word(r["job_interface"] or "-"), human_rate(r["job_interface_bytes_s"]),
            human_rate(r["rdma_bytes_s"]) if r["rdma_bytes_s"] is not None else "no port counters",
            "; lo %s" % human_rate(lo) if lo is not None and lo >= SOCKET_MIN else ""))
        cpu = _dict(r.get("cpu"))
        if cpu:
            out.append("    cpu   %.0f%% busy, iowait %.0f%%" % (_num(cpu.get("busy_pct")) or 0,
                                                            _num(cpu.get("iowait_pct")) or 0))
        for p in r["processes"][:8]:
            # the job's NCCL_*=value pairs read as assignments to copy: a value of the job's (its user sets any) is
            # one shell word where a shell acts on it, as check's descriptions show a node's (docs/security.md 48.)
            env = " ".join("%s=%s" % (_word(k), _word(v)) for k, v in sorted(_dict(p.get("env")).items())[:6])
            gpus = _gpu_ids(p)
            where = "".join((" GPU %s" % ",".join(str(i) for i in gpus) if gpus else "",
                             " parent %s" % p["ppid"] if _num(p.get("ppid")) is not None else ""))
            out.append("    pid   %s %s%s%s" % (_word(p.get("pid")), _word(p.get("comm") or "?"), where,
                                                ("  " + env) if env else ""))
    return out


def prometheus_lines(nodes):
    """The samples as gauges, after the report's own series (`--format prometheus`): per GPU
    its mean utilization and power over its limit, per node the job's interface and the HCAs."""
    from gpudoctor.report.prometheus import _series

    gauges = (("gpudoctor_watch_gpu_utilization_percent", "mean GPU utilization over the window (NVML)"),
              ("gpudoctor_watch_gpu_power_fraction", "mean power draw over the enforced power limit"),
              ("gpudoctor_watch_interface_bytes_per_second", "bytes/s on the job's interface (rx+tx)"),
              ("gpudoctor_watch_rdma_bytes_per_second", "bytes/s through the node's RDMA ports (xmit+rcv)"))
    rows = dict((name, []) for name, _ in gauges)
    for n in nodes:
        if not n.reachable:
            continue
        r = node_rows(n.facts or {})
        if r.get("status") != "ok":
            continue
        for g in r["gpus"]:
            labels = [("host", n.host), ("gpu", g["index"])]
            if g["util"] is not None:
                rows["gpudoctor_watch_gpu_utilization_percent"].append(_series(
                    "gpudoctor_watch_gpu_utilization_percent", labels, "%.1f" % g["util"]))
            if g["frac"] is not None:
                rows["gpudoctor_watch_gpu_power_fraction"].append(_series(
                    "gpudoctor_watch_gpu_power_fraction", labels, "%.3f" % g["frac"]))
        if r["job_interface"]:
            rows["gpudoctor_watch_interface_bytes_per_second"].append(_series(
                "gpudoctor_watch_interface_bytes_per_second", [("host", n.host), ("interface", r["job_interface"])],
                "%.1f" % r["job_interface_bytes_s"]))
        if r["rdma_bytes_s"] is not None:
            rows["gpudoctor_watch_rdma_bytes_per_second"].append(_series(
                "gpudoctor_watch_rdma_bytes_per_second", [("host", n.host)], "%.1f" % r["rdma_bytes_s"]))
    out = []
    for name, help_text in gauges:
        out += ["# HELP %s %s" % (name, help_text), "# TYPE %s gauge" % name] + rows[name]
    return out
