"""Facts that only make sense across nodes, asked for by the controller through options:
name resolution of the other nodes, checksums of files that must be the same everywhere,
and SSH reachability of the other nodes (the mesh pdsh, deepspeed and mpirun need)."""

import os
import time

from .base import Pattern, Unsupported, section
from .system import host_arg, socket  # _socket where there is one (system.py says why)


def _is_ip(name):
    try:
        socket.inet_aton(name)
        return name.count(".") == 3
    except (socket.error, OSError):
        return False


RESOLVE_WORKERS = 1  # one thread beside the collector's: 4 took 0.4-0.6 ms more CPU at 64 names (GIL hand-offs)
SPREAD_AFTER = 0.05  # seconds between looks at the worker's progress
# A thread's scheduler statistics (Linux, CONFIG_SCHED_INFO): ns on the CPU, ns waiting on a
# runqueue, timeslices (https://docs.kernel.org/scheduler/sched-stats.html, "/proc/<pid>/schedstat").
# The wait is added when the thread gets the CPU (kernel/sched/stats.h sched_info_arrive), so a
# thread that waits right now shows it only later: its state in .../stat does ("R": running or
# runnable; proc_pid_stat(5), https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html).
SCHEDSTAT = "/proc/self/task/%d/schedstat"
TASKSTAT = "/proc/self/task/%d/stat"


def _read(path, n=1024):
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except (OSError, IOError):
        return None


def _schedstat(tid):
    """(ns on the CPU, ns runnable but waiting, state letter) of the thread tid, or None where
    Linux gives no such files."""
    stat, task = _read(SCHEDSTAT % tid), _read(TASKSTAT % tid)
    try:
        run, wait = stat.split()[:2]
        state = task.rpartition(b")")[2].split()[0]  # "tid (comm) S ...": comm may hold ")"
        return int(run), int(wait), state.decode("ascii", "replace")
    except (AttributeError, ValueError, IndexError):
        return None


HOSTS = "/etc/hosts"
NSSWITCH = "/etc/nsswitch.conf"


def _dotted_quad(a):
    """a as glibc's inet_pton(AF_INET) takes it (resolv/inet_pton.c inet_pton4: four decimal
    parts of at most 255, no leading zero), which is also how getaddrinfo prints it back.
    ASCII text only (hosts_answers checks it first): str.isdigit takes other scripts' digits."""
    parts = a.split(".")
    return len(parts) == 4 and all(
        p.isdigit() and len(p) <= 3 and int(p) <= 255 and (p == "0" or p[0] != "0") for p in parts)


# bytes an /etc/hosts hosts_answers reads may not hold: controls but tab and newline, DEL, non-ASCII
_NOT_HOSTS_TEXT = bytes(bytearray(c for c in range(256) if c > 126 or (c < 32 and c not in (9, 10))))


def hosts_answers(hosts=HOSTS, nsswitch=NSSWITCH):
    """{name: address} for the names that glibc's getaddrinfo(name, AF_INET) answers from
    /etc/hosts alone, or {} where that is not sure. Each getaddrinfo reads and parses the whole
    file again (nss/nss_files/files-hosts.c), so 256 names of a 256-line file cost a node 7-8 ms
    of CPU against under 1 ms for one read here. Only where the answer is the resolver's own:
    - glibc (musl matches names case-sensitively and reads no nsswitch.conf), whose
      nsswitch.conf has one hosts line that asks "files" first with no [action] after it
      (SUCCESS=return by default, nsswitch.conf(5));
    - an /etc/hosts of printable ASCII, tabs and newlines (glibc fields split on spaces and
      tabs; strcasecmp folds by the locale, the same as ASCII for ASCII letters but for the
      Turkish I, which only finds fewer matches);
    - a name spelled as the file spells it, on exactly one line (case folded) with an IPv4
      address: a name on several lines depends on host.conf's "multi" (host.conf(5)).
    Any other name goes to getaddrinfo, as before."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc "):
            return {}
    except (AttributeError, ValueError, OSError):
        return {}
    conf = _read(nsswitch, 1 << 16)
    if conf is None:
        return {}  # glibc's default without the file: dns before files
    lines = [line.split("#", 1)[0].split() for line in conf.decode("utf-8", "replace").splitlines()]
    lines = [t[1:] for t in lines if t and t[0] == "hosts:"]
    if len(lines) != 1 or not lines[0] or lines[0][0] != "files" or (len(lines[0]) > 1 and lines[0][1][:1] == "["):
        return {}
    text = _read(hosts, 1 << 22)
    if text is None or len(text) == 1 << 22 or len(text.translate(None, _NOT_HOSTS_TEXT)) != len(text):
        return {}
    lines_of, exact = {}, {}
    for line in text.decode("ascii").split("\n"):
        fields = (line.split("#", 1)[0] if "#" in line else line).split()
        if len(fields) < 2:
            continue
        addr = fields[0] if _dotted_quad(fields[0]) else None
        if len(fields) == 2:  # one name (a cluster's usual line): no sets
            exact[fields[1]] = addr
            folded = fields[1].lower()
            lines_of[folded] = lines_of.get(folded, 0) + 1
            continue
        for name in set(fields[1:]):
            exact[name] = addr
        for folded in set(n.lower() for n in fields[1:]):
            lines_of[folded] = lines_of.get(folded, 0) + 1
    return dict((n, a) for n, a in exact.items() if a and lines_of[n.lower()] == 1)


@section("resolve")
def resolve(ctx):
    names = ctx.options.get("resolve")
    if not names:
        raise Unsupported("no node names to resolve (single-node run)")
    # In parallel, with one deadline: a name the resolver cannot answer for (DNS down,
    # unknown name) costs seconds each, and a node lists every other node.
    out = {}
    known = hosts_answers() if len(names) > 1 else {}
    # Addresses and the names the hosts table answers need no thread: only the others go to the
    # worker below (at 256 nodes of the test Slurm, every name is in /etc/hosts, and the worker's
    # start, its hand-offs and the looks at its progress were all the section did besides them).
    todo = []
    for name in names:
        if _is_ip(name):
            out[name] = [name]
        elif name in known:
            out[name] = [known[name]]
        else:
            todo.append(name)
    if not todo:
        return {"names": dict((n, out[n]) for n in names), "timed_out": []}
    first = len(out)

    def one(name):
        try:
            out[name] = sorted(set(a[4][0] for a in socket.getaddrinfo(host_arg(name), None, socket.AF_INET)))
        except (socket.error, OSError, UnicodeError):
            out[name] = []

    # One worker first: names in /etc/hosts (or a warm cache) answer in microseconds, and
    # a thread per name cost 2-4x the lookups' own CPU (256 names: 26-43 ms against 10 ms
    # sequential, per node, O(N) on every node). The names still queued get a thread each,
    # so a slow resolver still costs one deadline, when the worker answered no name in the
    # last SPREAD_AFTER (stuck on one: DNS) or when, at the pace it keeps, the rest would
    # take more than half the time left. Not after SPREAD_AFTER whatever the pace: on a
    # busy machine (every node of a 64-node test Slurm on two cores) 56 of 64 nodes spread
    # their /etc/hosts names that way, 6-7 ms of CPU each against 0.8 sequential.
    #
    # A worker that answered nothing for SPREAD_AFTER is either blocked in the resolver (DNS:
    # threads help) or starved of CPU (every node of a 256-node test Slurm on two cores, load
    # 1,100-2,200: threads add their starts' CPU to a queue that is already too long). Linux
    # tells them apart: a worker running or runnable now, or for half the interval or more
    # since the last look, is not blocked and is left alone for the first half of the time.
    # Without the files (not Linux) or _thread.get_native_id (Python < 3.8): the rules above.
    #
    # Threads of _thread, the module threading is built on: threading imports functools,
    # collections and their imports (2 ms of a node's collector, Python 3.11). Each thread
    # releases its own lock when it ends: acquiring it with a timeout is Thread.join(timeout).
    # Like threading's daemon threads, they do not keep the interpreter alive at exit.
    import _thread

    queue = list(reversed(todo))
    lock = _thread.allocate_lock()

    def take():
        with lock:
            return queue.pop() if queue else None

    native_id = getattr(_thread, "get_native_id", None)
    tids = []

    def work():
        if native_id:
            tids.append(native_id())
        name = take()
        while name is not None:
            one(name)
            name = take()

    def start(target, *args):
        ended = _thread.allocate_lock()
        ended.acquire()

        def run():
            try:
                target(*args)
            finally:
                ended.release()

        _thread.start_new_thread(run, ())
        return ended

    def join(ended, timeout):
        if ended.acquire(True, max(0.0, timeout)):
            ended.release()
            return True
        return False

    began = time.time()
    deadline = began + float(ctx.options.get("resolve_timeout", 3))
    threads = [start(work) for _ in range(min(RESOLVE_WORKERS, len(todo)))]
    seen, looked, active = 0, began, (0, 0)  # a new thread's schedstat starts at 0
    while not join(threads[0], SPREAD_AFTER):
        done, now = len(out) - first, time.time()
        if now >= deadline:
            break
        if done == seen or (len(todo) - done) * (now - began) / done > (deadline - now) / 2:
            # Starved or blocked? Only in the first half of the time: past it, the names still
            # queued are spread whatever the reason, so that none is reported late for want of a CPU.
            if not native_id or now - began > (deadline - began) / 2:
                break
            stat = _schedstat(tids[0] if tids else native_id())
            if stat is None:
                break  # no /proc/.../schedstat: today's rule
            if tids:  # a worker not started yet has not reached the resolver: it waits for a CPU
                busy = (stat[0] - active[0] + stat[1] - active[1]) / 1e9
                active = stat
                if stat[2] != "R" and busy < (now - looked) / 2:
                    break  # neither running nor runnable most of the time, nor now: blocked in the resolver
            looked = now
        seen = done
    with lock:
        rest, queue[:] = list(reversed(queue)), []
    if time.time() < deadline:
        threads += [start(one, n) for n in rest]
    for t in threads:
        join(t, deadline - time.time())
    slow = sorted(n for n in names if n not in out)
    return {"names": dict((n, out.get(n, [])) for n in names), "timed_out": slow}


class NotRegular(OSError):
    """A --same path (or a file of its folder) that is no regular file: a FIFO, a device, a socket."""


def _open_regular(path):
    """A descriptor open for reading on the regular file at ``path``, else NotRegular. The path is resolved once with
    O_PATH, which opens no device and waits on no FIFO, judged by that descriptor's fstat, and opened through
    /proc/self/fd/N (the same inode): open() of a FIFO someone planted in a shared folder blocked the collector until
    its deadline, a link to /dev/zero read until then, and a device's open can act (/dev/watchdog);
    docs/security.md 38."""
    import stat

    o_path = getattr(os, "O_PATH", None)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if o_path is None:  # (not Linux: no device's open is kept from acting here, but no FIFO is waited on)
        fd = os.open(path, flags)
        first = None
    else:
        first = os.open(path, o_path | getattr(os, "O_CLOEXEC", 0))
        fd = None
    try:
        st = os.fstat(first if first is not None else fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(0, "not a regular file (%s)" % (
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or
                stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "a folder"
                if stat.S_ISDIR(st.st_mode) else "not a file"))
        if fd is None:
            fd = os.open("/proc/self/fd/%d" % first, flags)
            again = os.fstat(fd)
            if (again.st_dev, again.st_ino) != (st.st_dev, st.st_ino):
                raise NotRegular(0, "not the file it was a moment ago")
        got, fd = fd, None
        return got
    finally:
        for x in (first, fd):
            if x is not None:
                os.close(x)


def sha256_file(path, limit=None):
    import hashlib  # only with --same: OpenSSL's load is 2 ms of every node's collector

    h = hashlib.sha256()
    size = 0
    with os.fdopen(_open_regular(path), "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


@section("files")
def files(ctx):
    paths = ctx.options.get("same_files")
    if not paths:
        raise Unsupported("no --same paths given")
    out = {}
    for p in paths:
        full = ctx.path(os.path.expanduser(p) if p.startswith("~") else p)
        try:
            if os.path.isdir(full):
                import hashlib

                h = hashlib.sha256()
                size = 0
                for root, dirs, names in os.walk(full):
                    dirs.sort()
                    for n in sorted(names):
                        fp = os.path.join(root, n)
                        try:
                            digest, sz = sha256_file(fp)
                        except NotRegular as exc:  # (hashed as its kind: the folders still compare)
                            digest, sz = exc.strerror, 0
                        h.update(("%s %s\n" % (os.path.relpath(fp, full), digest)).encode())
                        size += sz
                out[p] = {"sha256": h.hexdigest(), "size": size, "kind": "dir"}
            else:
                digest, size = sha256_file(full)
                out[p] = {"sha256": digest, "size": size, "kind": "file"}
        except (OSError, IOError) as exc:
            out[p] = {"error": exc.strerror or str(exc)}
    return {"files": out}


# The controller validates every name (gpudoctor/inventory.py valid_host); the node checks
# again, since the options it received are input too. A name must never become an ssh
# option ("-oProxyCommand=..." ran a command on every node): `--` ends ssh's options.
_SAFE_NAME = Pattern(r"^[A-Za-z0-9_\[][A-Za-z0-9_.:%@\[\]\-]{0,299}\Z")


def _ssh_probe(name, timeout, results):
    import subprocess

    if not _SAFE_NAME.match(name):
        results[name] = {"ok": False, "error": "not probed: not a host name"}
        return
    cmd = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=%d" % timeout, "-o", "StrictHostKeyChecking=accept-new",
           "--", name, "true"]
    try:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, err = p.communicate(timeout=timeout + 5)
        results[name] = {"ok": p.returncode == 0, "error": None if p.returncode == 0 else
                         (err.decode("utf-8", "replace").strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    except (OSError, IOError) as exc:
        results[name] = {"ok": False, "error": "cannot run ssh: %s" % exc}
    except subprocess.TimeoutExpired:
        p.kill()
        results[name] = {"ok": False, "error": "timed out"}


@section("mesh")
def mesh(ctx):
    names = ctx.options.get("mesh")
    if not names or not ctx.live:
        raise Unsupported("no --mesh requested")
    import threading

    me = ctx.options.get("node")
    results = {}
    threads = [threading.Thread(target=_ssh_probe, args=(n, int(ctx.options.get("mesh_timeout", 5)), results))
               for n in names if n != me]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"peers": results}
