"""What every collector module shares: the Context (root prefix + command runner) and
the section registry.

This package runs ON the node, shipped over SSH into whatever python3 is there, so it
is stdlib-only and Python 3.6 compatible (tests/test_collector_py36.py enforces it with
vermin). Every file read goes through ``ctx.path()`` and every command through
``ctx.run()``, so tests replay recorded /proc and /sys trees and command outputs.
"""

import os
import time

# What every node runs through srun is kept to the modules its sections use (docs/benchmarks.md,
# "Where the time goes"): on Python 3.11 `json` imports re, enum, functools and collections;
# `subprocess` imports signal, selectors, threading, contextlib and locale; `socket` enum and
# selectors; together 12-14 ms of a node's collector against a 10 ms bare interpreter.
# subprocess is imported by run_command, on the first command a section runs; re by the first
# pattern used (re and Pattern below); JSON written and read through the C accelerator module
# `_json` that json itself uses (dumps, loads).


class _LazyModule(object):
    """A module imported on first attribute access: ``re = _LazyModule("re")`` and then
    ``re.match(...)`` as with the module itself."""

    def __init__(self, name):
        self.__name = name

    def __getattr__(self, attr):
        module = __import__(self.__name)
        return getattr(module, attr)


re = _LazyModule("re")


# A URL whose path is its credential: anyone who holds it can post (red team 2026-11-28e, docs/security.md 81.).
# Slack's incoming webhook https://hooks.slack.com/services/T../B../SECRET (https://api.slack.com/messaging/webhooks);
# Discord's https://discord.com/api/webhooks/ID/TOKEN (https://discord.com/developers/docs/resources/webhook), which
# discord.py prints with the API version (discord/http.py Route.BASE 'https://discord.com/api/v10'); Microsoft
# Teams' https://X.webhook.office.com/webhookb2/... (https://learn.microsoft.com/microsoftteams/platform/
# webhooks-and-connectors/how-to/add-incoming-webhook) and its legacy Office 365 connector
# https://outlook.office.com/webhook/...; a Telegram bot's https://api.telegram.org/bot<token>/METHOD and its file
# download https://api.telegram.org/file/bot<token>/PATH (https://core.telegram.org/bots/api); a Feishu / Lark
# bot's https://open.feishu.cn/open-apis/bot/v2/hook/<token> (https://open.feishu.cn/document/client-docs/bot-v3/
# add-custom-bot); Mattermost's https://HOST/hooks/<26-character id> (https://developers.mattermost.com/integrate/
# webhooks/incoming/; a /hooks/ path of another length, /hooks/build, is kept). Group 1 is the part kept. The collector's CREDENTIAL_RE (system.py) and wrapper-output cutting (python_env.py) read it from here;
# explain/redact.py _PATH_SECRET holds the same text (explain imports no collector module; tests/test_review26.py).
WEBHOOK_PATH_RE = (r"(hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/"
                   r"(?:v\d{1,2}/)?webhooks/|\.webhook\.office\.com/webhook(?:b2)?/"
                   r"|outlook\.office(?:365)?\.com/webhook/|api\.telegram\.org/(?:file/)?bot"
                   r"|open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/"
                   r"|/hooks/(?=[a-z0-9]{26}(?:[^a-z0-9]|$)))[^\s'\"`<>\\]{4,1024}")
WEBHOOK_NEEDLES = ("hooks.slack", "webhook", "telegram.org/", "/hook/", "/hooks/")


class Pattern(object):
    """``re.compile(pattern, flags)``, compiled on first use (a section that never matches
    anything never imports re): every attribute of the compiled pattern (match, search,
    finditer, sub...)."""

    def __init__(self, pattern, flags=0):
        self._args = (pattern, flags)
        self._compiled = None

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("_args", "_compiled"):
            raise AttributeError(attr)
        if self._compiled is None:
            import re as _re

            self._compiled = _re.compile(*self._args)
        return getattr(self._compiled, attr)


def _encoder():
    """json.dumps(obj, sort_keys=True)'s own encoder, without importing json: JSONEncoder.iterencode
    calls _json.make_encoder with these nine arguments when indent is None (CPython
    Lib/json/encoder.py, the same call in 3.6 through 3.13), and the C encoder does the rest (key
    order, float repr, ensure_ascii escapes). None where _json is missing or takes other
    arguments: json.dumps then."""
    try:
        from _json import encode_basestring_ascii, make_encoder

        def default(o):  # JSONEncoder.default
            raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)

        enc = make_encoder({}, default, encode_basestring_ascii, None, ": ", ", ", True, False, True)
        enc({}, 0)
        return enc
    except Exception:
        return None


def dumps(obj):
    """json.dumps(obj, sort_keys=True), the same text (tests/test_collector_lean.py compares them)."""
    enc = _encoder()
    if enc is None:
        import json

        return json.dumps(obj, sort_keys=True)
    return "".join(enc(obj, 0))


_JSON_WS = " \t\n\r"  # json.decoder.WHITESPACE: [ \t\n\r]*


class _ScanContext(object):
    # what _json.make_scanner reads from a JSONDecoder (Modules/_json.c scanner_new; 3.6-3.13)
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__
    memo = {}


def loads(text):
    """json.loads(text) of a str, without importing json: JSONDecoder.decode around the C
    scanner that json uses (CPython Lib/json/decoder.py: skip whitespace, scan one value, only
    whitespace after it). A document json would refuse raises ValueError here too (its
    JSONDecodeError, a ValueError, where the C scanner raises it)."""
    if not isinstance(text, str):
        if not isinstance(text, (bytes, bytearray)):  # json.loads(None) raises the same TypeError
            raise TypeError("the JSON object must be str, bytes or bytearray, not %s" % type(text).__name__)
        import json

        return json.loads(text)
    try:
        from _json import make_scanner
    except ImportError:
        import json

        return json.loads(text)
    if text.startswith("\ufeff"):
        raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
    start = len(text) - len(text.lstrip(_JSON_WS))
    try:
        obj, end = make_scanner(_ScanContext)(text, start)
    except StopIteration:
        raise ValueError("Expecting value: char %d" % start)
    finally:
        _ScanContext.memo.clear()
    rest = text[end:].lstrip(_JSON_WS)
    if rest:  # where the extra data starts, after the blanks (json.decoder.JSONDecoder.decode)
        raise ValueError("Extra data: char %d" % (len(text) - len(rest)))
    return obj


class Unsupported(Exception):
    """Raise from a section when the thing does not exist here (not an error):
    ``raise Unsupported("no NVIDIA driver loaded")``."""


SECTIONS = []  # [(name, func)], in collection order


def section(name):
    def deco(func):
        SECTIONS.append((name, func))
        return func

    return deco


# the file name a recorded tree holds a folder's statvfs numbers in ("total free ..."; Context.recorded)
RECORDED_STATVFS = ".statvfs"


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
        if self.root in ("/", "") and p.rsplit("/", 1)[-1] == RECORDED_STATVFS:
            return default  # a recorded tree's statvfs numbers, never a live file (see recorded())
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

    def recorded(self, p):
        """A file only a recorded tree carries in place of a system call's answer (``RECORDED_STATVFS``: the
        statvfs numbers of /dev/shm, /tmp), read only under a recorded tree's root; None on the live file system,
        where /dev/shm and /tmp are anyone's to write: a user's /dev/shm/.statvfs saying "1 0" made root's
        slurm-health drain the node for a 1-byte /dev/shm (or hid a small one), and a FIFO there hung the collector
        until its timeout (docs/security.md 87.)."""
        if self.root in ("/", ""):
            return None
        return self.read(p)

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
    import subprocess

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
