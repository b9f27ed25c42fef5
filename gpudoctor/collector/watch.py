"""What a running job does right now, sampled for a few seconds (`gpudoctor watch`).

Only when the controller asks (option ``watch``: {"seconds": N, "interval": s}); every
other fan-out gets ``unsupported``. Per GPU, NVML (pynvml when it imports, else
nvidia-smi's --query-gpu): utilization, power draw and the enforced power limit, the SM
clock, PCIe throughput and the NVLink data counters. Per RDMA port: the sysfs port
counters. Per interface: /proc/net/dev. The CPU and disks: /proc/stat, /proc/diskstats.
The job's processes (NVML's compute processes; without GPUs, readable processes with
NCCL_* in their environment): their NCCL_* / UCX_* / OMPI_* environment, values through
the env section's rule (secret-looking names as keyed hashes), their parent pid, and whether
they hold /dev/infiniband devices open. Counters are read at the start and the end of the window;
rates are the deltas over the elapsed time. Nothing here judges: checks do
(gpudoctor/watch.py).
"""

import os
import stat
import time

from .base import Unsupported, section
from .nccl_env import parse_nccl_conf
from .network import ARPHRD, interface_kind
from .rdma import GDR_MODULES, loaded_modules
from .system import env_value, parse_os_release

MAX_SECONDS = 600.0
# the job's communication variables, and the ones that set how a framework's allocator takes GPU memory
# (watch.memory: a pool taken at start is not what the tensors need): JAX/XLA's
# (https://docs.jax.dev/en/latest/gpu_memory_allocation.html) and TensorFlow's allow-growth switch
# (https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth)
JOB_ENV_PREFIXES = ("NCCL_", "UCX_", "OMPI_", "XLA_PYTHON_CLIENT_", "XLA_CLIENT_MEM_FRACTION",
                    "TF_FORCE_GPU_ALLOW_GROWTH")
# a job process's framework, from the shared objects /proc/PID/maps lists (proc(5)): only these names are kept,
# never a path. TensorFlow maps nearly all of a GPU at start unless allow-growth is on (gpu_device.cc's
# MinSystemMemory leaves 1.5 GiB on compute capability 8.x, 1.8 GiB from 9.0); vLLM takes its
# gpu_memory_utilization (0.9 by default) for weights and KV cache (its compiled vllm/_C.abi3.so).
FRAMEWORK_LIBS = (("/libtensorflow_framework.so", "tensorflow"), ("/jaxlib/", "jax"), ("/torch/lib/libtorch", "torch"),
                  ("/vllm/_C", "vllm"))
MAX_MAPS_BYTES = 4 << 20
SHELLS = ("bash", "sh", "dash", "zsh", "ksh", "fish", "tcsh", "csh", "sshd", "sudo", "su", "tmux", "screen",
          "srun", "salloc", "sbatch", "slurmstepd", "login", "sshd-session")
# NVIDIA's CUDA images set NCCL_VERSION (the libnccl2 package version, `ENV NCCL_VERSION=2.16.2-1`:
# https://gitlab.com/nvidia/container-images/cuda/-/raw/master/dist/12.0.0/ubuntu2204/runtime/Dockerfile) for every
# process of a container; NCCL reads no such variable (its version is the NCCL_VERSION_CODE macro of nccl.h). It
# marks no job: a real 2x H200 run named the `tail` of a shell pipeline the job (fixtures/recorded/h200x2-2026-11-28f)
IMAGE_NCCL_VERSION = b"NCCL_VERSION="
MAX_PIDS_SCANNED = 32768  # /proc entries read when looking for the job by its environment
MAX_JOB_PROCS = 64
MAX_ENV_BYTES = 256 << 10
MAX_ENV_VARS = 200
MAX_FDS = 20000
# Linux Documentation/admin-guide/iostats.rst: /proc/diskstats counts 512-byte sectors
# whatever the device's own sector size.
SECTOR_BYTES = 512
# Linux Documentation/ABI/stable/sysfs-class-infiniband, counters/port_xmit_data and
# port_rcv_data: "Total number of data octets, divided by 4 (lanes), transmitted/received
# on all VLs" (the IBTA PortXmitData/PortRcvData counters count 32-bit words).
IB_DATA_UNIT = 4


# ---------------------------------------------------------------- parsers (pure)

def parse_proc_net_dev(text):
    """/proc/net/dev -> {iface: {rx_bytes, rx_packets, tx_bytes, tx_packets}}. Format: Linux
    net/core/net-procfs.c dev_seq_printf_stats(): the name, a colon, then 8 receive and 8
    transmit counters (bytes first in each group). Names never hold ':' (dev_valid_name)."""
    out = {}
    for line in (text or "").splitlines():
        if ":" not in line:
            continue
        name, _, rest = line.partition(":")
        name, f = name.strip(), rest.split()
        if not name or len(f) < 16 or "|" in name:
            continue
        try:
            nums = [int(x) for x in f[:16]]
        except ValueError:
            continue
        out[name] = {"rx_bytes": nums[0], "rx_packets": nums[1], "tx_bytes": nums[8], "tx_packets": nums[9]}
    return out


CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def parse_proc_stat(text):
    """The aggregate 'cpu' line of /proc/stat (Linux Documentation/filesystems/proc.rst, 1.7)
    -> {user, nice, system, idle, iowait, irq, softirq, steal} in USER_HZ ticks, and the
    number of 'cpuN' lines."""
    out, ncpu = None, 0
    for line in (text or "").splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "cpu" and out is None:
            try:
                vals = [int(x) for x in f[1:1 + len(CPU_FIELDS)]]
            except ValueError:
                continue
            vals += [0] * (len(CPU_FIELDS) - len(vals))
            out = dict(zip(CPU_FIELDS, vals))
        elif f[0].startswith("cpu") and f[0][3:].isdigit():
            ncpu += 1
    if out is not None:
        out["cpus"] = ncpu
    return out


def parse_diskstats(text, whole=None):
    """/proc/diskstats -> {device: {read_bytes, write_bytes}} (fields 6 and 10 are sectors
    read and written: Documentation/admin-guide/iostats.rst). ``whole``: the names in
    /sys/block (whole disks), so partitions are not counted twice."""
    out = {}
    for line in (text or "").splitlines():
        f = line.split()
        if len(f) < 14:
            continue
        name = f[2]
        if whole is not None and name not in whole:
            continue
        if name.startswith(("loop", "ram", "zram")):
            continue
        try:
            out[name] = {"read_bytes": int(f[5]) * SECTOR_BYTES, "write_bytes": int(f[9]) * SECTOR_BYTES}
        except ValueError:
            continue
    return out


def parse_pid_stat(text):
    """utime + stime ticks from /proc/PID/stat (proc(5): fields 14 and 15, counted after the
    ')' that ends comm, since comm may hold spaces and parentheses)."""
    if not text or ")" not in text:
        return None
    f = text.rsplit(")", 1)[1].split()
    try:
        return int(f[11]) + int(f[12])
    except (IndexError, ValueError):
        return None


def _status_number(text, key):
    """The first number after ``key`` ("PPid:", "Uid:") in /proc/PID/status, or None (proc(5),
    https://man7.org/linux/man-pages/man5/proc_pid_status.5.html)."""
    for line in (text or "").splitlines():
        if line.startswith(key):
            f = line.split()
            return int(f[1]) if len(f) > 1 and f[1].isdigit() else None
    return None


def parse_ppid(text):
    """The parent pid from /proc/PID/status ("PPid:\t1504"), or None."""
    return _status_number(text, "PPid:")


def parse_uid(text):
    """The real uid from /proc/PID/status ("Uid:\t1000\t1000\t1000\t1000": real, effective, saved set and
    filesystem uid), or None."""
    return _status_number(text, "Uid:")


def user_name(uid):
    """The account name of ``uid`` on this node (pwd: /etc/passwd, or NSS's LDAP/sssd), or None."""
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name[:64]
    except (KeyError, OverflowError, TypeError, ValueError):
        return None


def wanted_user(spec):
    """(uid, name) of `watch --user SPEC` on this node: a name resolved here (an account's uid may differ between
    nodes), or a number taken as it is; Unsupported when no such account exists here."""
    import pwd

    if spec is None:
        return None
    spec = str(spec)
    if spec.isdigit() and len(spec) <= 10:
        return int(spec), user_name(int(spec))
    try:
        return pwd.getpwnam(spec).pw_uid, spec
    except (KeyError, ValueError):
        raise Unsupported("no user %s on this node (getpwnam): nothing of theirs to watch" % spec[:64])


def parse_environ(data, key=None):
    """/proc/PID/environ bytes -> {name: shown value or keyed hash}, only the job's
    communication variables (NCCL_*, UCX_*, OMPI_*) and its allocator's (XLA_PYTHON_CLIENT_*,
    XLA_CLIENT_MEM_FRACTION, TF_FORCE_GPU_ALLOW_GROWTH), by the env section's one rule."""
    out = {}
    for item in (data or b"").split(b"\0"):
        if b"=" not in item:
            continue
        k, _, v = item.partition(b"=")
        name = k.decode("utf-8", "replace")
        if not name.startswith(JOB_ENV_PREFIXES):
            continue
        value = v.decode("utf-8", "replace")[:512]
        out[name[:128]] = env_value(name, value, key)
        if len(out) >= MAX_ENV_VARS:
            break
    return out


def parse_maps_frameworks(data):
    """/proc/PID/maps bytes -> sorted framework names (FRAMEWORK_LIBS) whose shared objects are mapped."""
    found = set()
    for line in (data or b"").split(b"\n"):
        path = line.split(None, 5)[5:] if b"/" in line else None
        if not path:
            continue
        text = path[0].decode("utf-8", "replace")
        for part, name in FRAMEWORK_LIBS:
            if part in text:
                found.add(name)
    return sorted(found)


def _rate(delta, seconds):
    return round(delta / seconds, 1) if seconds > 0 and delta is not None else None


def _delta(a, b):
    """b - a for counters; None when either is missing or the counter went back (a reset)."""
    if a is None or b is None or b < a:
        return None
    return b - a


# ---------------------------------------------------------------- readers (through ctx)

def read_net(ctx):
    return parse_proc_net_dev(ctx.read("/proc/net/dev"))


def net_kinds(ctx, names):
    out = {}
    for name in names:
        d = "/sys/class/net/" + name
        try:
            arphrd = int((ctx.read(d + "/type") or "").strip())
        except ValueError:
            arphrd = None
        kind = interface_kind(name, arphrd, ctx.isdir(d + "/bridge"), ctx.exists(d + "/device"),
                              ctx.isdir(d + "/bonding"))
        out[name] = {"kind": kind, "link_type": ARPHRD.get(arphrd, arphrd)}
    return out


def read_rdma(ctx):
    """[{device, port, state, link_layer, netdev, rate, xmit_words, rcv_words}] from
    /sys/class/infiniband/*/ports/*/counters (Linux drivers/infiniband/core/sysfs.c)."""
    base = "/sys/class/infiniband"
    out = []
    for dev in ctx.listdir(base):
        if dev.startswith("."):
            continue
        netdevs = [n for n in ctx.listdir(base + "/" + dev + "/device/net") if not n.startswith(".")]
        for port in ctx.listdir(base + "/" + dev + "/ports"):
            p = "%s/%s/ports/%s" % (base, dev, port)

            def num(name):
                try:
                    return int((ctx.read(p + "/counters/" + name) or "").strip())
                except ValueError:
                    return None

            state = (ctx.read(p + "/state") or "").strip()
            ndevs = sorted(set((ctx.read(p + "/gid_attrs/ndevs/" + i) or "").strip()
                               for i in ctx.listdir(p + "/gid_attrs/ndevs")[:4]) - {""})
            out.append({"device": dev, "port": int(port) if port.isdigit() else port,
                        "state": state.partition(":")[2].strip() or state or None,
                        "link_layer": (ctx.read(p + "/link_layer") or "").strip() or None,
                        "rate": (ctx.read(p + "/rate") or "").strip() or None,
                        "netdev": ndevs[0] if ndevs else (netdevs[0] if len(netdevs) == 1 else None),
                        "xmit_words": num("port_xmit_data"), "rcv_words": num("port_rcv_data")})
    return out


def read_disks(ctx):
    whole = set(n for n in ctx.listdir("/sys/block") if not n.startswith("."))
    return parse_diskstats(ctx.read("/proc/diskstats"), whole or None)


def _ancestors(ctx):
    """This process and its parents: never the job (the collector may inherit NCCL_*)."""
    mine, pid = set(), os.getpid() if ctx.live else None
    while pid and pid not in mine and len(mine) < 64:
        mine.add(pid)
        status = ctx.read("/proc/%d/status" % pid) or ""
        pid = parse_ppid(status)
    return mine


def _read_bytes(ctx, p, limit):
    try:
        with open(ctx.path(p), "rb") as f:
            return f.read(limit), None
    except (OSError, IOError) as exc:
        return None, exc.strerror or str(exc)


def describe_process(ctx, pid, key):
    """One job process: its command name, communication env and /dev/infiniband fds, each
    with why it could not be read (another user's process without root: EACCES)."""
    comm = (ctx.read("/proc/%d/comm" % pid) or "").strip()[:64] or None
    proc = {"pid": pid, "comm": comm}
    data, why = _read_bytes(ctx, "/proc/%d/environ" % pid, MAX_ENV_BYTES)
    proc["environ_readable"] = data is not None
    proc["env"] = parse_environ(data, key) if data is not None else None
    if data is None:
        proc["environ_error"] = why
    try:
        fds = os.listdir(ctx.path("/proc/%d/fd" % pid))[:MAX_FDS]
        proc["fds_readable"] = True
    except (OSError, IOError) as exc:
        fds, proc["fds_readable"], proc["fds_error"] = [], False, exc.strerror or str(exc)
    ib = set()
    for fd in fds:
        target = ctx.readlink("/proc/%d/fd/%s" % (pid, fd))
        if target and target.startswith("/dev/infiniband/"):
            ib.add(target)
    proc["infiniband_fds"] = sorted(ib)[:16] if proc["fds_readable"] else None
    proc["net_ns"] = ctx.readlink("/proc/%d/ns/net" % pid)
    # which framework's allocator holds its GPU memory (None: maps not readable, another user's process)
    maps, _ = _read_bytes(ctx, "/proc/%d/maps" % pid, MAX_MAPS_BYTES)
    proc["frameworks"] = parse_maps_frameworks(maps) if maps is not None else None
    # the parent: a launcher's ranks (torchrun, mpirun's orted, slurmstepd) share one; another
    # process on a job's GPU has its own (proc(5), /proc/PID/status "PPid:")
    status = ctx.read("/proc/%d/status" % pid)
    proc["ppid"] = parse_ppid(status)
    # whose it is: root's watch reads every user's environment, and two users' jobs on one node are two jobs
    proc["uid"] = parse_uid(status)
    proc["user"] = user_name(proc["uid"]) if proc["uid"] is not None else None
    return proc


def _read_conf(path, allowed, limit=64 << 10):
    """The first ``limit`` bytes of the regular file at ``path`` that ``allowed(stat, real)`` admits (``real``: the
    path the descriptor resolved to), else None. The
    path (a job's NCCL_CONF_FILE: its user owns the link it names) is resolved once, with O_PATH, which opens no
    device and waits on no FIFO; the file is judged by that descriptor's fstat and read through it
    (/proc/self/fd/N reopens the same inode). A stat then an open of the path read whatever the link named by the
    time of the open: a root-only file, a FIFO, or a device whose open acts (/dev/watchdog); docs/security.md 33."""
    o_path = getattr(os, "O_PATH", None)
    if o_path is None:
        return None
    try:
        fd = os.open(path, o_path | getattr(os, "O_CLOEXEC", 0))
    except (OSError, IOError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not allowed(st, os.readlink("/proc/self/fd/%d" % fd)):
            return None
        rfd = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
        try:
            again = os.fstat(rfd)
            if (again.st_dev, again.st_ino) != (st.st_dev, st.st_ino):
                return None
            chunks, left = [], limit
            while left > 0:
                b = os.read(rfd, min(left, 1 << 16))
                if not b:
                    break
                chunks.append(b)
                left -= len(b)
            return b"".join(chunks)
        finally:
            os.close(rfd)
    except (OSError, IOError, ValueError):
        return None
    finally:
        os.close(fd)


def _anyone_through(real, root="/"):
    """Whether every folder above ``real`` (below ``root``, the node's /) lets anyone through (o+x): a world-readable
    file in another user's 0700 folder is no file anyone may read, and root reading it for the job's user showed its
    NCCL_* values (docs/security.md 69.). The path is the one the open descriptor resolved to (links followed)."""
    top = os.path.realpath(root or "/")
    d = os.path.dirname(real)
    while d and d != top and d != os.path.dirname(d):
        try:
            if not os.stat(d).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        d = os.path.dirname(d)
    return True


def read_nccl_conf(ctx, procs, key=None):
    """NCCL's config files as the job reads them for what its environment does not set
    (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html: /etc/nccl.conf, and a
    user's file, NCCL_CONF_FILE when set): the file each job process's NCCL_CONF_FILE names (an
    absolute path, at most 4), then /etc/nccl.conf. ~/.nccl.conf of the job's user is not read
    (whose home it is would be a guess). Values pass the env section's rule."""
    named = []
    for p in procs:
        v = (p.get("env") or {}).get("NCCL_CONF_FILE")
        if isinstance(v, str) and v.startswith("/") and v not in named and len(named) < 4:
            named.append(v)
    out = []
    for path in named + ["/etc/nccl.conf"]:
        # a regular file only (a FIFO another user's job names would block the read); as root, a file
        # a job named only when anyone may read it (the job's variable is no reason to read a private one)
        data = _read_conf(ctx.path(path), lambda st, real, path=path: path == "/etc/nccl.conf" or bool(
            st.st_mode & stat.S_IROTH) and _anyone_through(real, ctx.root) or not hasattr(os, "geteuid") or
            os.geteuid() != 0)
        values = parse_nccl_conf(data.decode("utf-8", "replace")) if data is not None else {}
        values = dict((k[:128], env_value(k, v[:512], key)) for k, v in sorted(values.items())
                      if k.startswith("NCCL_"))
        out.append({"path": path, "readable": data is not None, "values": dict(list(values.items())[:MAX_ENV_VARS])})
    return out


def in_this_pid_namespace(ctx, pids):
    """(kept, dropped): NVML reports the host's pids; inside a container without the host's
    pid namespace such a number is absent from /proc, or names another process here (one that
    holds no /dev/nvidia* device open); /proc mounted hidepid=2 hides other users' processes.
    Those are dropped, never described as the job."""
    kept, dropped = {}, 0
    for pid, gpus in pids.items():
        if not ctx.isdir("/proc/%d" % pid):
            dropped += 1
            continue
        try:
            fds = os.listdir(ctx.path("/proc/%d/fd" % pid))[:MAX_FDS]
        except (OSError, IOError):
            kept[pid] = gpus  # not ours to read: keep NVML's word for it
            continue
        if any((ctx.readlink("/proc/%d/fd/%s" % (pid, fd)) or "").startswith("/dev/nvidia") for fd in fds):
            kept[pid] = gpus
        else:
            dropped += 1
    return kept, dropped


# The end of the line every gpudoctor collector runs under on a node: `python3 -c READ_STDIN` over ssh (and
# srun_workers), srun's READ_BLOB (gpudoctor/transport/__init__.py, srun.py; a test holds them to it). Another
# node's collector on the same machine (nodes that share one host: containers, a test bed) inherits the
# NCCL_* its session sets, and was listed as a "job process".
COLLECTOR_MARK = b'"<stdin>","exec"),{"__name__":"__main__"'


def gpudoctor_itself(ctx, pid):
    """Whether a process is gpudoctor's own, never the job: a collector (COLLECTOR_MARK in its command line, or
    `timeout ... python3 -c ...` around one) or the gpudoctor command (`gpudoctor ...`, `python3 -m gpudoctor`,
    `python3 /usr/bin/gpudoctor`)."""
    data, _ = _read_bytes(ctx, "/proc/%d/cmdline" % pid, 64 << 10)
    if not data:
        return False
    if COLLECTOR_MARK in data:
        return True
    return any(os.path.basename(a) == b"gpudoctor" for a in data.split(b"\0")[:3])


def of_user(ctx, pid, uid):
    """Whether process ``pid`` runs as ``uid`` (None: anyone's)."""
    return uid is None or parse_uid(ctx.read("/proc/%d/status" % pid)) == uid


def scan_env_jobs(ctx, exclude, uid=None):
    """Readable processes with NCCL_* in their environment that are not shells, launchers or
    gpudoctor itself: the job on a node whose GPUs NVML cannot list (or that has none); only
    ``uid``'s where one is given (`watch --user`)."""
    pids = sorted(int(n) for n in ctx.listdir("/proc") if n.isdigit())[:MAX_PIDS_SCANNED]
    found = []
    for pid in pids:
        if pid in exclude:
            continue
        data, _ = _read_bytes(ctx, "/proc/%d/environ" % pid, 64 << 10)  # many of them: bounded reads
        if not data or b"NCCL_" not in data:
            continue
        if not any(item.startswith(b"NCCL_") and not item.startswith(IMAGE_NCCL_VERSION) for item in data.split(b"\0")):
            continue
        comm = (ctx.read("/proc/%d/comm" % pid) or "").strip()
        if comm in SHELLS or gpudoctor_itself(ctx, pid) or not of_user(ctx, pid, uid):
            continue
        found.append(pid)
        if len(found) >= MAX_JOB_PROCS:
            break
    return found


# ---------------------------------------------------------------- GPUs

class NvmlSampler(object):
    """NVML through pynvml (nvidia-ml-py): nvmlDeviceGetUtilizationRates, GetPowerUsage (mW),
    GetEnforcedPowerLimit (mW), GetClockInfo(NVML_CLOCK_SM), GetPcieThroughput (KB/s over
    20 ms) and the field values NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX (KiB counters,
    scopeId UINT_MAX: all links) (https://docs.nvidia.com/deploy/nvml-api/)."""

    source = "nvml"

    def __init__(self):
        import pynvml

        self.n = pynvml
        pynvml.nvmlInit()
        self.handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())]

    @staticmethod
    def _s(x):
        return x.decode() if isinstance(x, bytes) else x

    def _opt(self, fn, *a):
        try:
            return fn(*a)
        except Exception:  # NVMLError_NotSupported and friends: the value is absent
            return None

    def info(self):
        n = self.n
        out = {"driver_version": self._s(self._opt(n.nvmlSystemGetDriverVersion)), "gpus": []}
        for i, h in enumerate(self.handles):
            pci = self._opt(n.nvmlDeviceGetPciInfo, h)
            limit = self._opt(n.nvmlDeviceGetEnforcedPowerLimit, h)
            mem = self._opt(n.nvmlDeviceGetMemoryInfo, h)
            out["gpus"].append({"index": i, "name": self._s(self._opt(n.nvmlDeviceGetName, h)),
                                "uuid": self._s(self._opt(n.nvmlDeviceGetUUID, h)),
                                "bus_id": self._s(pci.busId).lower() if pci else None,
                                "power_limit_w": round(limit / 1000.0, 1) if limit else None,
                                "memory_total_mib": int(mem.total) >> 20 if mem is not None else None})
        return out

    def nvlink(self):
        """[(tx_kib, rx_kib)] per GPU, or None where the counters are not supported."""
        n, out = self.n, []
        fields = [(getattr(n, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX", 138), 0xFFFFFFFF),
                  (getattr(n, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX", 139), 0xFFFFFFFF)]
        for h in self.handles:
            vals = self._opt(n.nvmlDeviceGetFieldValues, h, fields)
            if not vals or any(v.nvmlReturn != 0 for v in vals):
                out.append(None)
            else:
                out.append((vals[0].value.ullVal, vals[1].value.ullVal))
        return out

    def sample(self):
        n, out = self.n, []
        for h in self.handles:
            util = self._opt(n.nvmlDeviceGetUtilizationRates, h)
            power = self._opt(n.nvmlDeviceGetPowerUsage, h)
            tx = self._opt(n.nvmlDeviceGetPcieThroughput, h, n.NVML_PCIE_UTIL_TX_BYTES)
            rx = self._opt(n.nvmlDeviceGetPcieThroughput, h, n.NVML_PCIE_UTIL_RX_BYTES)
            # memory held (nvmlDeviceGetMemoryInfo's used), beside mem_util_pct, which is the memory
            # controller's busy time (https://docs.nvidia.com/deploy/nvml-api/structnvmlUtilization__t.html)
            mem = self._opt(n.nvmlDeviceGetMemoryInfo, h)
            out.append({"util_pct": util.gpu if util else None, "mem_util_pct": util.memory if util else None,
                        "mem_used_mib": int(mem.used) >> 20 if mem is not None else None,
                        "power_w": round(power / 1000.0, 1) if power is not None else None,
                        "sm_clock_mhz": self._opt(n.nvmlDeviceGetClockInfo, h, n.NVML_CLOCK_SM),
                        "pcie_tx_kb_s": tx, "pcie_rx_kb_s": rx})
        return out

    def pids(self):
        out = {}
        for i, h in enumerate(self.handles):
            for p in self._opt(self.n.nvmlDeviceGetComputeRunningProcesses, h) or []:
                out.setdefault(int(p.pid), []).append(i)
        return out

    def close(self):
        self._opt(self.n.nvmlShutdown)


SMI_FIELDS = ("index", "name", "uuid", "pci.bus_id", "utilization.gpu", "utilization.memory", "power.draw",
              "enforced.power.limit", "clocks.sm", "memory.used", "memory.total")


def _smi_num(x):
    try:
        v = float(x)
    except ValueError:  # "[N/A]", "[Not Supported]"
        return None
    return v if v - v == 0 else None  # 'inf'/'nan' parse as floats: no reading, and not JSON


def parse_smi_sample(text):
    """nvidia-smi --query-gpu=<SMI_FIELDS> --format=csv,noheader,nounits -> (info, sample)."""
    gpus, sample = [], []
    for line in (text or "").splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) not in (9, len(SMI_FIELDS)) or not f[0].isdigit():  # 9: recorded before memory.used/total
            continue
        util, mem, power, limit, clock = [_smi_num(x) for x in f[4:9]]
        used, total = [_smi_num(x) for x in f[9:11]] if len(f) == len(SMI_FIELDS) else (None, None)
        gpus.append({"index": int(f[0]), "name": f[1], "uuid": f[2], "bus_id": f[3].lower(),
                     "power_limit_w": limit, "memory_total_mib": int(total) if total is not None else None})
        sample.append({"util_pct": util, "mem_util_pct": mem, "power_w": power,
                       "mem_used_mib": int(used) if used is not None else None,
                       "sm_clock_mhz": int(clock) if clock is not None else None,
                       "pcie_tx_kb_s": None, "pcie_rx_kb_s": None})
    return gpus, sample


class SmiSampler(object):
    """nvidia-smi when pynvml does not import: the same NVML values, one process per sample
    (no PCIe or NVLink throughput in --query-gpu)."""

    source = "nvidia-smi"

    def __init__(self, ctx):
        self.ctx = ctx
        rc, out = ctx.run(["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader,nounits"])
        if rc != 0:
            raise RuntimeError("nvidia-smi failed (rc=%s): %s" % (rc, out.strip()[:200]))
        self.gpus, self.first = parse_smi_sample(out)
        rc, out = ctx.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
        self.driver = out.strip().splitlines()[0] if rc == 0 and out.strip() else None

    def info(self):
        return {"driver_version": self.driver, "gpus": self.gpus}

    def nvlink(self):
        return [None] * len(self.gpus)

    def sample(self):
        if self.first is not None:
            s, self.first = self.first, None
            return s
        rc, out = self.ctx.run(["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader,nounits"])
        return parse_smi_sample(out)[1] if rc == 0 else [{} for _ in self.gpus]

    def pids(self):
        rc, out = self.ctx.run(["nvidia-smi", "--query-compute-apps=gpu_bus_id,pid", "--format=csv,noheader"])
        index = dict((g["bus_id"], g["index"]) for g in self.gpus)
        found = {}
        for line in (out or "").splitlines() if rc == 0 else []:
            f = [x.strip() for x in line.split(",")]
            if len(f) == 2 and f[1].isdigit():
                found.setdefault(int(f[1]), []).append(index.get(f[0].lower()))
        return found

    def close(self):
        pass


def gpu_sampler(ctx):
    """(sampler, None) or (None, why there is no GPU to sample)."""
    if ctx.read("/proc/driver/nvidia/version") is None:
        return None, "no NVIDIA driver loaded (/proc/driver/nvidia/version is missing): no GPU to watch"
    why = "pynvml is not importable"
    if ctx.live:
        try:
            s = NvmlSampler()
            if s.handles:
                return s, None
            s.close()
            return None, "NVML lists no GPU"
        except ImportError:
            pass
        except Exception as exc:  # NVMLError: driver/library mismatch, no permission
            why = "NVML failed: %s" % str(exc)[:200]
    try:
        s = SmiSampler(ctx)
    except RuntimeError as exc:
        return None, "%s; %s" % (why, exc)
    if not s.gpus:
        return None, "nvidia-smi lists no GPU"
    return s, None


# ---------------------------------------------------------------- the window

def _counters(ctx, ns_pids=None):
    """Every counter the window compares; ``ns_pids``: {net namespace: a job pid in it} for
    jobs in another network namespace (a container's own), whose interfaces only
    /proc/PID/net/dev shows (proc(5): /proc/[pid]/net is that process's namespace view)."""
    stat = parse_proc_stat(ctx.read("/proc/stat"))
    job_net = dict((ns, parse_proc_net_dev(ctx.read("/proc/%d/net/dev" % pid))) for ns, pid in (ns_pids or {}).items())
    return {"net": read_net(ctx), "rdma": read_rdma(ctx), "cpu": stat, "disks": read_disks(ctx), "job_net": job_net}


def _pid_ticks(ctx, pids):
    return dict((p, parse_pid_stat(ctx.read("/proc/%d/stat" % p))) for p in pids)


def summarize(start, end, elapsed):
    """Counters at the start and the end of the window -> deltas and rates."""
    net = []
    views = [(None, start["net"], end["net"])] + [
        (ns, start.get("job_net", {}).get(ns, {}), b) for ns, b in sorted(end.get("job_net", {}).items())]
    for ns, before_net, after_net in views:
        for name, b in sorted(after_net.items()):
            a = before_net.get(name)
            if a is None:
                continue
            rx, tx = _delta(a["rx_bytes"], b["rx_bytes"]), _delta(a["tx_bytes"], b["tx_bytes"])
            row = {"name": name, "rx_bytes": rx, "tx_bytes": tx, "rx_bytes_s": _rate(rx, elapsed),
                   "tx_bytes_s": _rate(tx, elapsed)}
            if ns is not None:  # the job's own namespace: its interface names are what NCCL_SOCKET_IFNAME names
                row.update(netns=ns, kind="loopback" if name == "lo" else "job-netns")
            net.append(row)
    ports = []
    before = dict(((p["device"], p["port"]), p) for p in start["rdma"])
    for p in end["rdma"]:
        a = before.get((p["device"], p["port"]), {})
        row = dict((k, p[k]) for k in ("device", "port", "state", "link_layer", "rate", "netdev"))
        words_tx, words_rx = _delta(a.get("xmit_words"), p["xmit_words"]), _delta(a.get("rcv_words"), p["rcv_words"])
        row["counters"] = p["xmit_words"] is not None and p["rcv_words"] is not None
        row["xmit_bytes"] = words_tx * IB_DATA_UNIT if words_tx is not None else None
        row["rcv_bytes"] = words_rx * IB_DATA_UNIT if words_rx is not None else None
        row["xmit_bytes_s"], row["rcv_bytes_s"] = _rate(row["xmit_bytes"], elapsed), _rate(row["rcv_bytes"], elapsed)
        ports.append(row)
    cpu = None
    if start["cpu"] and end["cpu"]:
        d = dict((k, end["cpu"][k] - start["cpu"][k]) for k in CPU_FIELDS)
        total = sum(d.values())
        if total > 0:
            cpu = {"busy_pct": round(100.0 * (total - d["idle"] - d["iowait"]) / total, 1),
                   "iowait_pct": round(100.0 * d["iowait"] / total, 1), "cpus": end["cpu"].get("cpus")}
    read = sum(_delta(start["disks"].get(n, {}).get("read_bytes"), v["read_bytes"]) or 0
               for n, v in end["disks"].items())
    written = sum(_delta(start["disks"].get(n, {}).get("write_bytes"), v["write_bytes"]) or 0
                  for n, v in end["disks"].items())
    disks = {"devices": sorted(end["disks"]), "read_bytes_s": _rate(read, elapsed),
             "write_bytes_s": _rate(written, elapsed)}
    return net, ports, cpu, disks


# Ctrl-C during `gpudoctor watch`: the window ends early and what was sampled so far is kept (the counters read
# at that moment, the rates over the time elapsed), marked "interrupted". This machine's collector runs in a thread
# of the controller, which calls request_stop(); a node's collector (over ssh) is sent SIGINT by the controller,
# whose handler only sets the flag. SIGINT, since the remote command runs the collector under coreutils' timeout(1)
# where the node has it, and timeout passes SIGINT (HUP, QUIT, TERM) on to its command and dies of any other
# (https://github.com/coreutils/coreutils/blob/master/src/timeout.c, cleanup()); srun passes a Ctrl-C on as SIGINT. A second interrupt, or no answer in time, and the node reads 'interrupted' as
# before (transport/ssh.py, local.py). Plain flags (no threading.Event, no signal import unless watching): every
# node's payload stays lean (tests/test_collector_lean.py).
STOP_SIGNAL = "SIGINT"
_STOP = [False]
PAUSE_SLICE = 0.1  # the longest a stop waits to be seen


def request_stop():
    _STOP[0] = True


def reset_stop():
    """Before this process samples again (the local transport, before each run: a stop asked for during the last
    one must not end the next)."""
    _STOP[0] = False


def _on_stop_signal(signum, frame):
    _STOP[0] = True


def catch_stop_signal():
    """STOP_SIGNAL ends the window where this collector runs in its process's main thread (a node's `python3 -c`):
    the handler it replaced (to restore), or None (another thread: signal.signal refuses)."""
    import signal

    number = getattr(signal, STOP_SIGNAL, None)
    if number is None:
        return None
    try:
        return signal.signal(number, _on_stop_signal)
    except (ValueError, OSError):
        return None


def _stopped():
    return _STOP[0]


def _pause(seconds):
    """Sleep up to ``seconds``; True when a stop was asked for meanwhile."""
    end = time.monotonic() + seconds
    while not _stopped():
        left = end - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(left, PAUSE_SLICE))
    return True


# the section's answer when the run asks for no sampling (bundle.py's placeholder says the same)
NOT_ASKED = "no sampling asked for (gpudoctor watch samples a running job)"


@section("watch")
def watch(ctx):
    opt = ctx.options.get("watch")
    if not isinstance(opt, dict):
        raise Unsupported(NOT_ASKED)
    if not ctx.live:
        raise Unsupported("sampling needs the live node (a recorded tree has no time)")
    seconds = min(max(float(opt.get("seconds", 5)), 0.5), MAX_SECONDS)
    interval = min(max(float(opt.get("interval", 0.5)), 0.1), seconds)
    key = ctx.options.get("env_key")
    user = wanted_user(opt.get("user"))  # before any sampling: an unknown account is this node's answer
    uid = user[0] if user else None
    previous = catch_stop_signal()  # (a node's collector caught it from its start: collector.main)
    sampler, gpu_why = gpu_sampler(ctx)
    gpus, gpu_info = [], None
    pids = {}
    if sampler is not None:
        gpu_info = sampler.info()
        gpus = [dict(g, samples=[]) for g in gpu_info["gpus"]]
        pids = sampler.pids()
    procs_source = "gpu" if sampler is not None else None
    exclude = _ancestors(ctx)
    pids, elsewhere = in_this_pid_namespace(ctx, dict((p, g) for p, g in pids.items() if p not in exclude))
    pids = dict((p, g) for p, g in pids.items() if of_user(ctx, p, uid))
    if not pids:
        pids = dict((p, []) for p in scan_env_jobs(ctx, exclude, uid))
        procs_source = "environ" if pids else procs_source
    nvl0 = sampler.nvlink() if sampler else []
    ticks0 = _pid_ticks(ctx, pids)
    own_ns, ns_pids = ctx.readlink("/proc/self/ns/net"), {}
    for pid in sorted(pids):
        ns = ctx.readlink("/proc/%d/ns/net" % pid)
        if ns and own_ns and ns != own_ns and len(ns_pids) < 16:
            ns_pids.setdefault(ns, pid)
    t0 = time.monotonic()
    start = _counters(ctx, ns_pids)
    stopped = False
    try:
        tick = 0
        while True:
            now = time.monotonic() - t0
            if sampler is not None:
                for g, s in zip(gpus, sampler.sample()):
                    s["t"] = round(now, 3)
                    g["samples"].append(s)
            left = seconds - (time.monotonic() - t0)
            if left <= 0:
                break
            # on a fixed grid: a sample's own cost (nvmlDeviceGetPcieThroughput waits 20 ms per
            # call, nvidia-smi is a process per sample) does not stretch the interval
            tick += 1
            while tick * interval <= time.monotonic() - t0:
                tick += 1
            if _pause(max(0.0, min(tick * interval - (time.monotonic() - t0), left))):
                stopped = True  # Ctrl-C: the window ends here, what it sampled is kept
                break
        end = _counters(ctx, ns_pids)
        elapsed = time.monotonic() - t0
        nvl1 = sampler.nvlink() if sampler else []
        ticks1 = _pid_ticks(ctx, pids)
        if sampler is not None and procs_source == "gpu":  # processes that started during the window
            late, _ = in_this_pid_namespace(ctx, dict((p, g) for p, g in sampler.pids().items()
                                                      if p not in exclude and p not in pids))
            pids.update((p, g) for p, g in late.items() if of_user(ctx, p, uid))
    finally:
        if sampler is not None:
            sampler.close()
        if previous is not None:
            import signal

            try:
                signal.signal(getattr(signal, STOP_SIGNAL), previous)
            except (ValueError, OSError):
                pass
    for g, a, b in zip(gpus, nvl0, nvl1):
        ok = a is not None and b is not None
        g["nvlink_tx_bytes_s"] = _rate(_delta(a[0], b[0]) * 1024, elapsed) if ok and _delta(a[0], b[0]) is not None else None
        g["nvlink_rx_bytes_s"] = _rate(_delta(a[1], b[1]) * 1024, elapsed) if ok and _delta(a[1], b[1]) is not None else None
    net, ports, cpu, disks = summarize(start, end, elapsed)
    kinds = net_kinds(ctx, [n["name"] for n in net if "netns" not in n])
    for n in net:
        if "netns" in n:
            n["pid"] = ns_pids.get(n["netns"])
        else:
            n.update(kinds.get(n["name"], {}))
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    procs = []
    for pid in sorted(pids)[:MAX_JOB_PROCS]:
        p = describe_process(ctx, pid, key)
        p["gpus"] = sorted(i for i in pids[pid] if i is not None)
        d = _delta(ticks0.get(pid), ticks1.get(pid))
        p["cpu_pct"] = round(100.0 * d / hz / elapsed, 1) if d is not None and elapsed > 0 else None
        procs.append(p)
    modules, _src = loaded_modules(ctx)
    return {
        "seconds": seconds, "interval_s": interval, "elapsed_s": round(elapsed, 3), "interrupted": stopped,
        "gpu": {"source": sampler.source if sampler else None, "reason": gpu_why,
                "driver_version": gpu_info["driver_version"] if gpu_info else None, "gpus": gpus},
        "net": net, "rdma": {"ports": ports, "class_infiniband": ctx.isdir("/sys/class/infiniband"),
                             "dev_infiniband": [n for n in ctx.listdir("/dev/infiniband") if not n.startswith(".")],
                             "peer_memory_modules": [m for m in modules if m in GDR_MODULES]},
        "cpu": cpu, "disks": disks,
        "processes": {"source": procs_source, "list": procs, "gpu_pids_elsewhere": elsewhere,
                      "user": {"uid": user[0], "name": user[1]} if user else None},
        "nccl_conf": read_nccl_conf(ctx, procs, key),
        "own_net_ns": ctx.readlink("/proc/self/ns/net"),
        # the node's kernel and OS for the report's profile (watch gathers no host section: its getaddrinfo of the
        # hostname could wait on a resolver); the same two files system.host reads
        "system": {"kernel": (ctx.read("/proc/sys/kernel/osrelease") or "").strip()[:120] or None,
                   "os_pretty": parse_os_release(ctx.read("/etc/os-release")).get("PRETTY_NAME")},
    }
