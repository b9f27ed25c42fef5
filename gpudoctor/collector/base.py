"""What every collector module shares: the Context (root prefix + command runner) and
the section registry.

This package runs ON the node, shipped over SSH into whatever python3 is there, so it
is stdlib-only and Python 3.6 compatible (tests/test_collector_py36.py enforces it with
vermin). Every file read goes through ``ctx.path()`` and every command through
``ctx.run()``, so tests replay recorded /proc and /sys trees and command outputs.
"""

import os
import subprocess
import time


class Unsupported(Exception):
    """Raise from a section when the thing does not exist here (not an error):
    ``raise Unsupported("no NVIDIA driver loaded")``."""


SECTIONS = []  # [(name, func)], in collection order


def section(name):
    def deco(func):
        SECTIONS.append((name, func))
        return func

    return deco


class Context(object):
    """Where facts come from. ``root`` prefixes every path (a recorded tree in tests);
    ``commands`` maps a command line (joined by spaces) to recorded (rc, stdout) replies,
    and when it is given no real command ever runs."""

    def __init__(self, root="/", env=None, commands=None, home=None, uid=None, live=None,
                 python=None, options=None, prefetched=None):
        self.root = root
        self.env = dict(os.environ if env is None else env)
        self.commands = commands
        self.home = home or self.env.get("HOME") or os.path.expanduser("~")
        self.uid = os.getuid() if uid is None else uid
        # live: the process's own state (rlimits, NVML, imports) describes the node.
        self.live = (root == "/" and commands is None) if live is None else live
        self.python = python  # interpreter to probe; None = the one we run in
        self.options = options or {}
        # reads made for this live node elsewhere (the prolog tier's child and its NVML thread,
        # gpudoctor/early.py): prefetched(what, ctx) gives "section:NAME"'s (data, seconds) or
        # "nvml"'s (gpus, info), or None (read it here); never shipped to a node
        self.prefetched = prefetched

    def path(self, p):
        if self.root in ("/", ""):
            return p
        return os.path.join(self.root, p.lstrip("/"))

    def read(self, p, default=None, limit=1 << 20):
        try:
            with open(self.path(p), "rb") as f:
                # 64 KiB first: BufferedReader.read(n) allocates n bytes up front, and a block of
                # 1 MiB is an mmap and munmap of its own each time (glibc's M_MMAP_THRESHOLD, 128
                # KiB until a larger block is freed, mallopt(3)): the ~450 small sysfs/proc files
                # of a node cost 4-6 ms more that way (strace: 444 mmap calls against 40)
                data = f.read(min(limit, 1 << 16))
                if len(data) == 1 << 16 and limit > len(data):
                    data += f.read(limit - len(data))
                return data.decode("utf-8", "replace")
        except (OSError, IOError):
            return default

    def readlines(self, p):
        text = self.read(p)
        return [] if text is None else text.splitlines()

    def exists(self, p):
        return os.path.exists(self.path(p))

    def isdir(self, p):
        return os.path.isdir(self.path(p))

    def listdir(self, p):
        try:
            return sorted(os.listdir(self.path(p)))
        except (OSError, IOError):
            return []

    def readlink(self, p):
        try:
            return os.readlink(self.path(p))
        except (OSError, IOError):
            return None

    def stat(self, p):
        try:
            return os.stat(self.path(p))
        except (OSError, IOError):
            return None

    def which(self, name):
        for d in self.env.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(":"):
            if d and os.access(self.path(os.path.join(d, name)), os.X_OK):
                return os.path.join(d, name)
        return None

    def run(self, argv, timeout=10.0, env=None):
        """Run a command; returns (rc, stdout). rc is None when it could not start
        (missing) and -9 on timeout."""
        if self.commands is not None:
            reply = self.commands.get(" ".join(argv))
            if reply is None:
                return None, ""
            return reply[0], reply[1]
        return run_command(argv, env=env or self.env, timeout=timeout)


def run_command(argv, env=None, timeout=10.0):
    """(rc, stdout+stderr); rc None when the command cannot start, -9 on timeout."""
    try:
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env)
    except (OSError, IOError):
        return None, ""
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return -9, ""
    return p.returncode, out.decode("utf-8", "replace")


def collect_sections(ctx, only=None, last=()):
    """Run every registered section; each gets a status of ok, unsupported or error.
    ``last``: sections run after the others (the result keeps the registered order): the
    prolog tier's child runs gpu last while a thread reads NVML (gpudoctor/early.py).
    A section another process already read for this node (ctx.prefetched) is taken as read."""
    out = {}
    timings = {}
    early = getattr(ctx, "prefetched", None)
    todo = [(n, f) for n, f in SECTIONS if not only or n in only]
    for name, func in [s for s in todo if s[0] not in last] + [s for s in todo if s[0] in last]:
        got = early("section:" + name, ctx) if early is not None else None
        if got is not None:
            out[name], timings[name] = got
            continue
        t0 = time.time()
        try:
            data = func(ctx) or {}
            data = dict(data)
            data["status"] = "ok"
        except Unsupported as exc:
            data = {"status": "unsupported", "reason": str(exc)}
        except Exception as exc:  # a broken collector must not lose the other sections
            data = {"status": "error", "reason": "%s: %s" % (type(exc).__name__, exc)}
        timings[name] = round(time.time() - t0, 4)
        out[name] = data
    if last:
        order = [n for n, _ in todo]
        out, timings = dict((n, out[n]) for n in order), dict((n, timings[n]) for n in order)
    return out, timings
