"""Drift in time: what changed in one node's facts between two runs.

Facts are flattened into ``path -> value`` (``limits.memlock.soft``, ``nccl.env.NCCL_SOCKET_IFNAME``,
``python.torch.libs.libs[libcublas.so.13].version``), values that change on every run are left
out (the time, /dev/shm's and /tmp's free bytes, GPU memory in use), and the two flat views are
compared. The result is a list of ``Change`` records, each with a label a person reads
(``driver 550.90.07 -> 550.107.02``). Nodes with the same change are folded into one node
set by the drift engine's grouping (gpudoctor/drift.py), as drift between nodes is.

Which check a change belongs to: the checks whose verdict differs between the two facts
(``verdicts``) get the changes in the facts sections they read (``Check.reads``: its needs and
``also_reads``); a check that names no section gets every change. Pure functions of facts: no I/O here.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from gpudoctor.util import human_bytes

MAX_ENTRIES = 20000  # flattened values per document: a facts document has ~500
MAX_SHOWN = 200  # characters of one value in a message

# Paths (fnmatch-like: * is one segment) whose value changes on every run or says nothing
# about the node's state. A segment ``[...]`` is a list item, ``[*]`` any item.
VOLATILE = (
    "schema", "node", "collected_at", "collector.*", "collector",
    "shm.free_bytes", "python.deep.seconds",
    "tmp.free_bytes", "tmp.free_inodes",  # (as /dev/shm's: a live disk between two runs; userwalk27 saw every diff
    # list 'tmp.free_bytes 39.2 GiB -> 39.2 GiB' and 'tmp.free_inodes 15029210 -> 15029191' on every node)
    "gpu.gpus[*].memory_used_mib", "gpu.gpus[*].processes", "gpu.gpus[*].temperature_c",
    "gpu.gpus[*].utilization_gpu", "gpu.gpus[*].utilization_memory", "gpu.gpus[*].power_draw_w",
    "gpu.gpus[*].clocks_sm_mhz", "gpu.gpus[*].clocks_mem_mhz",
    "gpu.kernel_log", "gpu.kernel_log.*", "gpu.xids",  # a kernel log rotates: events, not state
    "resolve.*", "mesh.*", "rendezvous.*", "resolve", "mesh", "rendezvous",
)
# Environment variables that differ on every login or job by design (as checks/parity.py
# leaves them out of env.parity): never a change. Two runs of one machine from two shells differ
# in what the login and the terminal set per session, which says nothing about the node:
#   the shell: PWD, OLDPWD, SHLVL, _ (bash(1) "Shell Variables",
#     https://www.gnu.org/software/bash/manual/html_node/Bash-Variables.html)
#   sshd: SSH_CONNECTION, SSH_CLIENT, SSH_TTY, SSH_AUTH_SOCK, MAIL, LOGNAME, USER (sshd(8) ENVIRONMENT,
#     https://man.openbsd.org/sshd#LOGIN_PROCESS); login sessions: XDG_SESSION_ID, XDG_RUNTIME_DIR, XDG_SEAT,
#     XDG_VTNR (pam_systemd(8), https://www.freedesktop.org/software/systemd/man/latest/pam_systemd.html),
#     DBUS_SESSION_BUS_ADDRESS, DISPLAY, WAYLAND_DISPLAY
#   terminals and multiplexers: TERM, COLORTERM, WINDOWID (xterm(1)), TMUX, TMUX_PANE (tmux(1) ENVIRONMENT,
#     https://man.openbsd.org/tmux#ENVIRONMENT), STY, WINDOW (screen(1)), TERM_PROGRAM*, TERM_SESSION_ID, VTE_VERSION,
#     VSCODE_* (VS Code's integrated terminal), COLUMNS, LINES
# PATH, LD_LIBRARY_PATH and the NCCL_ / CUDA_ / TORCH_ variables are what the job runs with: still changes.
PER_RUN_ENV = ("SSH_", "XDG_", "SLURM_", "OMPI_", "PMIX_", "TORCHELASTIC_", "TMUX", "TERM_", "VSCODE_")
PER_RUN_ENV_NAMES = {"HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_", "MAIL", "MOTD_SHOWN", "TERM", "LOGNAME", "USER",
                     "RANK", "LOCAL_RANK", "NODE_RANK", "GPUDOCTOR_NODE", "LS_COLORS", "SSH_TTY",
                     "GPUDOCTOR_DEEP", "COLORTERM", "WINDOWID", "STY", "WINDOW", "VTE_VERSION", "DISPLAY",
                     "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "COLUMNS", "LINES"}

# A list of records is keyed by the first of these fields that is text and unique among its
# items: network.interfaces[eth0], gpu.gpus[00000000:00:06.0], ofed.kernels[3.10.0-...].
# A GPU is its bus id (one H100 alone has a unique name, two do not: the key must not change
# with the count).
LIST_KEYS = ("bus_id", "uuid", "name", "path", "release", "device", "dir", "address", "lib", "index")

_SEG = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def _join(path, seg):
    if isinstance(seg, list):  # a list item
        return "%s[%s]" % (path, seg[0])
    seg = str(seg)
    if _SEG.match(seg):
        return seg if not path else "%s.%s" % (path, seg)
    return "%s[%s]" % (path, seg)


def _volatile_re():
    out = []
    for pat in VOLATILE:
        rx = re.escape(pat).replace(r"\[\*\]", r"\[[^\]]*\]").replace(r"\*", r"[^.\[]+")
        out.append(rx)
    return re.compile("^(?:%s)$" % "|".join(out))


_VOLATILE = _volatile_re()


def _env_name(path):
    m = re.match(r"^(?:env\.(?:values|hashed)|nccl\.env|nccl\.effective)[.\[]([^.\]]+)", path)
    return m.group(1) if m else None


def _skip(path):
    if _VOLATILE.match(path):
        return True
    name = _env_name(path)
    return bool(name) and (name.startswith(PER_RUN_ENV) or name in PER_RUN_ENV_NAMES)


def _list_key(items):
    if not items or not all(isinstance(x, dict) for x in items):
        return None
    for k in LIST_KEYS:
        vals = [x.get(k) for x in items]
        if all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in vals) and len(set(vals)) == len(vals):
            return k
    return None


def _scalar_list(items):
    return all(x is None or isinstance(x, (str, int, float, bool)) for x in items)


def flatten(doc) -> Dict[str, Any]:
    """facts -> {path: value}; lists of scalars are one value (a sorted tuple: a set of
    loaded modules, not an order). Bounded by MAX_ENTRIES; iterative (no recursion)."""
    out: Dict[str, Any] = {}
    stack = [("", doc)]
    while stack and len(out) < MAX_ENTRIES:
        path, x = stack.pop()
        if path and _skip(path):
            continue
        if isinstance(x, dict):
            for k in sorted(x, key=str, reverse=True):
                stack.append((_join(path, k), x[k]))
        elif isinstance(x, list):
            if _scalar_list(x):
                out[path] = tuple(sorted(set(x), key=lambda v: (str(type(v)), str(v))))
                continue
            key = _list_key(x)
            for i, item in reversed(list(enumerate(x))):
                seg = item.get(key) if key else i
                if key:  # a record that comes or goes is one change, not one per field
                    out[_join(path, [seg])] = PRESENT
                stack.append((_join(path, [seg]), item))
        else:
            out[path] = x
    return out


PRESENT = "(present)"


@dataclass
class Change:
    path: str  # the flattened path of the first fact that shows it
    label: str  # what a person calls it: "driver (NVML library)", "NCCL_SOCKET_IFNAME", "memlock soft"
    before: Any
    after: Any
    section: str  # the facts section it is in (a check's `needs` name it)
    hint: Optional[str] = None
    also: tuple = ()  # other sections that show the same change (the kernel release: host and ofed)

    @property
    def sections(self):
        return (self.section,) + tuple(self.also)

    @property
    def text(self):
        label = _word(str(self.label))  # (an env variable's name is the node's too)
        if PRESENT in (self.before, self.after):
            t = "%s %s" % (label, "added" if self.after == PRESENT else "removed")
        else:
            t = "%s %s -> %s" % (label, show(self.before, self.label), show(self.after, self.label))
        return t + ("; " + self.hint if self.hint else "")

    def key(self):
        return (self.label, repr(self.before), repr(self.after))


ABSENT = "(absent)"


def show(value, label=""):
    if value is ABSENT or value is None:
        return "(none)" if value is None else ABSENT
    if value == "":
        return "''"  # set and empty (NCCL_IB_HCA=), which is not unset: the shell's empty word, not nothing
    if isinstance(value, tuple):
        return "[%s]" % ", ".join(_word(str(v)) for v in value)[:MAX_SHOWN]
    # the limits in bytes (collector/system.py _LIMIT_KEYS: /proc/self/limits' 'bytes' rows)
    if isinstance(value, int) and not isinstance(value, bool) and ("memlock" in label or "bytes" in label
                                                                    or label.startswith(("stack", "/dev/shm", "fsize ",
                                                                                         "as ", "data ", "core "))):
        return human_bytes(value)
    return _word(str(value))


def _word(text):
    """A value as a description shows it: one sh() word where a shell or a terminal acts on it (fixline.hostile, as
    check's descriptions: docs/security.md 27., 41.), cut at MAX_SHOWN characters."""
    from gpudoctor.fixline import hostile, shown_word

    cut = text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN]
    cut = shown_word(cut) if hostile(cut) else cut
    return cut if len(text) <= MAX_SHOWN else cut + "..."


# path pattern -> label; the first that matches names the change. Paths that show the same
# thing (the kernel release in host and in ofed, an NCCL variable in env and in nccl) share
# a label, and one change is listed once.
LABELS = (
    (r"^gpu\.driver_version$", "kernel module"),
    (r"^gpu\.nvml\.driver_version$", "driver (NVML library)"),
    (r"^gpu\.nvml_libs\[.*$", None),  # folded into "driver libraries" below
    (r"^gpu\.nvml\.cuda_driver_version$", "CUDA driver API"),
    (r"^gpu\.kernel_module$", "kernel module flavour"),
    (r"^gpu\.proc_version$", None),  # the kernel module's banner: the version above says it
    (r"^(host\.kernel|ofed\.running_kernel)$", "kernel release"),
    (r"^ofed\.kernels\[[^\]]+\]\.running$", None),  # the kernel release says which one runs
    (r"^host\.os_pretty$", "OS"),
    (r"^limits\.(\w+)\.(soft|hard)$", r"\1 \2"),
    (r"^shm\.total_bytes$", "/dev/shm size bytes"),
    (r"^python\.(packages\.torch|torch\.version)$", "torch"),
    (r"^python\.torch\.cuda$", "torch CUDA build"),
    (r"^python\.nccl\.(loaded_version|version)$", "NCCL"),
    (r"^python\.nccl\.wheel_version$", "NCCL wheel"),
    (r"^python\.packages\.([^.]+)$", r"\1"),
    (r"^python\.version$", "Python"),
    (r"^python\.executable$", "python3"),
    (r"^python\.torch\.libs\.libs\[([^\]]+)\]\.(version|realpath|path)$", r"\1 \2"),
    (r"^cuda\.nvcc_version$", "CUDA toolkit (nvcc)"),
    (r"^ofed\.ofed_info\.raw$", "OFED"),
    (r"^ofed\.ofed_info\.(version|flavor)$", None),
    (r"^ofed\.module_versions\.(\w+)$", r"\1 module"),
    (r"^(env\.(values|hashed)|nccl\.env)\.(\w+)$", r"\3"),
    (r"^nccl\.effective\.(\w+)\.value$", r"\1"),
    (r"^nccl\.effective\.(\w+)\.source$", r"\1 set in"),
)
_LABELS = [(re.compile(p), lab) for p, lab in LABELS]


def label_of(path):
    """The label for a path, "" to leave it out (shown by another path), or the path itself."""
    for rx, lab in _LABELS:
        m = rx.match(path)
        if m:
            return m.expand(lab) if lab is not None else ""
    return path


def _driver_libs(flat):
    return tuple(sorted(k[len("gpu.nvml_libs["):-1] for k in flat if k.startswith("gpu.nvml_libs[")))


class _Folded(Change):
    """Several changes as one line: its label is the whole text."""

    @property
    def text(self):
        return self.label + ("; " + self.hint if self.hint else "")


HASHED_FOLD = 5  # more changed variables kept only as hashes than this: one line that names them


def _fold_hashed(changes):
    """Variables kept only as keyed hashes (not NCCL_*, CUDA_*, PATH, ...: collector/system.py env_shown) say
    only that they were set, unset or changed: two shells of one machine differ in dozens (a profile's
    CA-bundle variables, LANG): more than HASHED_FOLD of them are one change that names them."""
    hashed = [c for c in changes if c.path.startswith("env.hashed")]
    if len(hashed) <= HASHED_FOLD:
        return changes
    # each name as Change.text shows a label: the node's (or the job's) variable names are anyone's text
    # (docs/security.md 91.: `A;touch M;#` stood bare in the folded line)
    names = [_word(n) for n in sorted(_env_name(c.path) or c.label for c in hashed)]
    gone = sum(1 for c in hashed if c.after is ABSENT)
    new = sum(1 for c in hashed if c.before is ABSENT)
    what = ", ".join("%d %s" % (n, w) for n, w in ((gone, "unset"), (new, "set"), (len(hashed) - gone - new,
                                                                                "changed")) if n)
    folded = _Folded(path="env.hashed", label="%d other environment variables differ: %s" % (len(hashed), what),
                     before="(%d variables)" % len(hashed), after=what, section="env",
                     hint="%s%s (values kept only as hashes)" % (", ".join(names[:8]), " and %d more" % (
                         len(names) - 8) if len(names) > 8 else ""))
    i = changes.index(hashed[0])
    return changes[:i] + [folded] + [c for c in changes[i:] if c not in hashed]


def _hashed(v):
    """An environment value the collector kept only as its keyed hash (collector/system.py env_hash)."""
    return isinstance(v, str) and v.startswith("hmac:")


def compare(before, after, key_ids=(None, None)) -> List[Change]:
    """The changes from facts ``before`` to facts ``after`` (one node), in path order.
    Environment values kept only as keyed hashes are compared when both documents were
    hashed under the same key (``key_ids``, from the history's records); otherwise a
    difference of hash says nothing and they are left out."""
    a, b = flatten(before), flatten(after)
    comparable_hashes = key_ids[0] is not None and key_ids[0] == key_ids[1]
    out, seen = [], {}
    gone = []  # records added or removed whole: their fields are not listed one by one
    ports = {}  # bridge ports that came or went: one line with their count (_fold_ports)
    uncollected = {}  # a section one run's collector did not collect (an older gpudoctor, --fast): named once
    for doc, other, way, run in ((after, before, "added", "earlier"), (before, after, "removed", "later")):
        took = other.get("collector") if isinstance(other, dict) else None
        took = took.get("section_seconds") if isinstance(took, dict) else None
        if isinstance(doc, dict) and isinstance(took, dict):
            for sec in doc:
                if sec not in other and sec not in took and sec not in ("schema", "node", "collected_at", "collector"):
                    uncollected[str(sec)] = (way, run)
    for path in sorted(set(a) | set(b)):
        if _bridge_port(path, a) != _bridge_port(path, b):
            ports[path] = "removed" if _bridge_port(path, a) else "added"
            gone.append(path)
    for path in sorted(set(a) | set(b)):
        if path.split(".")[0].split("[")[0] in uncollected:
            continue
        if path in ports or any(path.startswith(g) and path[len(g):len(g) + 1] in (".", "[") for g in gone):
            continue
        va, vb = a.get(path, ABSENT), b.get(path, ABSENT)
        if PRESENT in (va, vb) and ABSENT in (va, vb):
            gone.append(path)
        if va == vb or (type(va) is not type(vb) and va is not ABSENT and vb is not ABSENT and repr(va) == repr(vb)):
            continue
        if path.startswith("env.hashed") and not comparable_hashes:
            continue
        if _hashed(va) and _hashed(vb) and not comparable_hashes:
            # the same rule for every hashed copy of a variable (nccl.effective, nccl.files, a job's
            # environ): two runs' keys differ, so different hashes say nothing (seen on a real 2x H100:
            # NVSHMEM_DISABLE_NVLS=1 in ~/.nccl.conf listed as changed between two `gpudoctor facts` runs)
            continue
        if path.startswith("nccl.effective.") and path.endswith(".source") and ABSENT in (va, vb):
            continue  # a variable set or unset: its value's change says it
        if path.endswith(".status") or path.endswith(".reason"):
            # a section's status speaks only when it flips (ok -> unsupported: the driver is gone)
            if not path.count(".") == 1:
                continue
        lab = label_of(path)
        if lab == "":
            continue
        # a hash is shown as value#<8 hex> (docs/history.md), wherever the collector kept one
        va = "value#" + va.split(":")[-1][:8] if _hashed(va) else va
        vb = "value#" + vb.split(":")[-1][:8] if _hashed(vb) else vb
        c = Change(path=path, label=lab, before=va, after=vb, section=path.split(".")[0].split("[")[0])
        if c.key() in seen:
            first = seen[c.key()]
            if c.section not in first.sections:
                first.also = tuple(first.also) + (c.section,)
            continue
        seen[c.key()] = c
        out.append(c)
    out = _fold_hashed(out)
    if ports:
        added = sum(1 for v in ports.values() if v == "added")
        out.append(Change(path="network.interfaces", label="bridge ports with no IPv4 address",
                          before=sum(1 for p in a if _bridge_port(p, a)), after=sum(1 for p in b if _bridge_port(p, b)),
                          section="network", hint="%d added, %d removed (containers' veths: NCCL binds no interface "
                          "without an address; not listed one by one)" % (added, len(ports) - added)))
    for sec, (way, run) in sorted(uncollected.items()):
        out.append(Change(path=sec, label="%s section" % sec, before=PRESENT if way == "removed" else ABSENT,
                          after=PRESENT if way == "added" else ABSENT, section=sec,
                          hint="the %s run did not collect it (an older gpudoctor, or a run that skipped it): its "
                          "values are not compared" % run))
    libs_a, libs_b = _driver_libs(a), _driver_libs(b)
    if libs_a != libs_b:
        out.append(Change(path="gpu.nvml_libs", label="driver libraries (libnvidia-ml.so)", before=libs_a,
                          after=libs_b, section="gpu"))
    _hints(out, a, b)
    # what explains most first: a change with its meaning, then named facts, then raw paths
    out.sort(key=lambda c: (c.hint is None, c.label == c.path))
    return out


_IFACE = re.compile(r"^network\.interfaces\[[^\]]+\]$")


def _bridge_port(path, flat):
    """Whether ``path`` is an interface of ``flat`` that is a virtual port enslaved to a bridge (master set) with no
    IPv4 address: a container's veth on docker0/cni0/a test bed's bridge, which comes and goes with the container.
    NCCL's socket transport binds an interface by its address (NCCL_SOCKET_IFNAME, env.html#nccl-socket-ifname:
    https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html), so such a port is never one it uses; a diff
    listed each by name on every run (userwalk28/29: 10 lines on the development VM, 0 verdicts changed)."""
    if flat.get(path) is not PRESENT or not _IFACE.match(path):
        return False
    return (flat.get(path + ".virtual") is True and flat.get(path + ".master") not in (None, ABSENT, "")
            and flat.get(path + ".ipv4") == ())


def _hints(changes, a, b):
    """What a change means when another fact did not follow it: a driver upgraded without a
    reboot leaves the old kernel module loaded (NVML: "Driver/library version mismatch");
    a new kernel release without OFED modules built for it (checks/kernel_ofed.py)."""
    module = b.get("gpu.driver_version")
    # the libraries' versions are what a driver package installs; NVML's own answer next
    driver_changed = sorted((c for c in changes if c.path in ("gpu.nvml.driver_version", "gpu.nvml_libs")),
                            key=lambda c: c.path != "gpu.nvml_libs")
    if driver_changed and module is not None and module == a.get("gpu.driver_version"):
        driver_changed[0].hint = "kernel module still %s: reboot" % module
    kernel = [c for c in changes if c.label == "kernel release"]
    if kernel and b.get("ofed.status") == "ok":
        running, before = b.get("ofed.running_kernel"), a.get("ofed.running_kernel")

        def has(flat, release):
            return any(k.startswith("ofed.kernels[%s].ofed_dirs[" % release) for k in flat)

        if has(a, before) and not has(b, running):
            kernel[0].hint = "no OFED modules for %s (OFED was built for %s)" % (running, a.get("ofed.running_kernel"))


def related(changes: List[Change], needs) -> List[Change]:
    """The changes in the sections a check reads (all of them for a check that names none)."""
    needs = tuple(needs or ())
    if not needs:
        return list(changes)
    return [c for c in changes if set(c.sections) & set(needs)]


def summary(changes: List[Change], limit=4):
    shown = [c.text for c in changes[:limit]]
    if len(changes) > limit:
        shown.append("(+%d more)" % (len(changes) - limit))
    return "; ".join(shown)


# -- diff of two sets of nodes (gpudoctor diff) ------------------------------------------

@dataclass
class VerdictChange:
    check: str
    hosts: List[str]
    before: tuple  # (status, text) or None: not run before
    after: tuple
    changes: List[str]  # the texts of the related changes


@dataclass
class Diff:
    before_source: str
    after_source: str
    times: Dict[str, tuple]  # host -> (before collected_at, after collected_at)
    changes: List[tuple]  # (Change, [hosts]) folded: one entry per identical change
    verdicts: List[VerdictChange]
    added: List[str]
    removed: List[str]
    unreachable: List[str]
    hashes_compared: bool
    records: Optional[Dict[str, dict]] = None  # --since: host -> the history record compared with
    # why hashed environment values were not compared, for the text ("" when they were, or neither side of a node
    # has one): "key" where the runs' keys are known and differ, "unknown" where a side records no key (facts -o)
    hashes_not_compared: str = ""

    @property
    def exit_code(self):
        return 1 if self.verdicts else 0


_HASH_SHOWN = re.compile(r"value#[0-9a-f]{8}")  # how checks/parity.py shows a hashed value


def _verdict_changed(before, after, hashes_comparable=True):
    """Another status, or the same fail/warn with another message. Where the two sides hashed
    environment values under different keys (two `gpudoctor facts` runs, or facts against the
    history's key), the `value#...` a message shows differs whatever the values: not a change."""
    if before is None:
        return after is not None and after[0] in ("fail", "warn")
    if after is None:
        return False
    if before[0] != after[0]:
        return True
    if after[0] not in ("fail", "warn"):
        return False
    if hashes_comparable:
        return before[1] != after[1]
    return _HASH_SHOWN.sub("value#", str(before[1])) != _HASH_SHOWN.sub("value#", str(after[1]))


def diff_nodes(before_nodes, after_nodes, checks, config, before_source="before", after_source="after",
               key_ids=None):
    """Compare two runs of the same nodes: the facts changes of each node, folded into node
    sets, and the checks whose verdict changed on a node, each with the changes in what it
    reads. ``key_ids``: host -> (before key id, after key id) for environment hashes."""
    from gpudoctor.runner import run_checks

    key_ids = key_ids or {}
    b = {n.host: n for n in before_nodes}
    a = {n.host: n for n in after_nodes}
    common = [h for h in a if h in b and a[h].reachable and b[h].reachable]
    # a node unreachable on the side it alone is on was not compared either: not "new" (facts -o saves an unreachable
    # node's error; its history has no run of it: 'only after (new): gpu05' for a node that was down, userwalk27)
    unreachable = [h for h in a if h in b and not (a[h].reachable and b[h].reachable)
                   or h not in b and not a[h].reachable] + [h for h in b if h not in a and not b[h].reachable]
    per_node = {h: compare(b[h].facts, a[h].facts, key_ids.get(h, (None, None))) for h in common}
    # the drift engine's rule (gpudoctor/drift.py): nodes with an identical value are one
    # group, folded into a node set, the largest group first, ties in the nodes' order
    values = {}
    for h, changes in per_node.items():
        for c in changes:
            values.setdefault(c.key(), (c, {}))[1][h] = True
    folded = []
    for key, (c, hosts) in values.items():
        folded.append((c, [h for h in common if h in hosts]))
    folded.sort(key=lambda x: (-len(x[1]), x[0].path))
    rb = run_checks([b[h] for h in b], checks, config)
    ra = run_checks([a[h] for h in a], checks, config)
    needs = {c.id: getattr(c, "reads", c.needs) for c in checks}
    scope = {c.id: getattr(c, "scope", "node") for c in checks}
    before_out = {r.id: r.outcomes for r in rb.results}
    groups = {}
    for r in ra.results:
        for h in common:
            now = r.outcomes.get(h)
            then = before_out.get(r.id, {}).get(h)
            then = tuple(then) if then else None
            now = tuple(now) if now else None
            ids = key_ids.get(h, (None, None))
            if not _verdict_changed(then, now, ids[0] is not None and ids[0] == ids[1]):
                continue
            mine = [c.text for c in related(per_node[h], needs.get(r.id, ()))]
            if not mine and scope.get(r.id) == "cluster":
                # a cluster check judges a node against the others: its verdict here moves when another node's
                # value does (env.parity on gpu04 after gpu02's NCCL_SOCKET_IFNAME changed); that change is named,
                # not "nothing this check reads changed" (userwalk22)
                mine = ["on %s: %s" % (o, c.text) for o in common if o != h
                        for c in related(per_node[o], needs.get(r.id, ()))]
            key = (r.id, repr(then), repr(now), tuple(mine))
            groups.setdefault(key, VerdictChange(check=r.id, hosts=[], before=then, after=now,
                                                 changes=mine)).hosts.append(h)
    verdicts = list(groups.values())
    why = ""
    for h in common:
        ids = key_ids.get(h, (None, None))
        if ids[0] is not None and ids[0] == ids[1]:
            continue
        if all(((n.facts or {}).get("env") or {}).get("hashed") for n in (b[h], a[h])):
            why = "key" if why == "key" or None not in ids else "unknown"
    return Diff(hashes_not_compared=why, before_source=before_source, after_source=after_source,
                times={h: ((b[h].facts or {}).get("collected_at"), (a[h].facts or {}).get("collected_at"))
                       for h in common},
                changes=folded, verdicts=verdicts, added=[h for h in a if h not in b and a[h].reachable],
                removed=[h for h in b if h not in a and b[h].reachable], unreachable=unreachable,
                hashes_compared=all(k[0] is not None and k[0] == k[1] for k in
                                    (key_ids.get(h, (None, None)) for h in common)) and bool(common))
