"""The check registry: what a check is, how it registers, and how checks are found.

A check is a pure function of facts. Per node it ends in one outcome:

- ``pass``: it yields ``Pass(evidence)``, the value it judged against what
  (``"/dev/shm 256 GiB >= 1 GiB"``); a pass without evidence does not exist;
- ``warn`` / ``fail``: it yields ``Finding.warning(...)`` / ``Finding.error(...)``;
- ``na``: it yields ``NA(reason)``: nothing to judge here (no OFED installed, no launch plan);
- ``skipped``: it yields ``Skip(reason)``: it could not judge (the runner also skips a check
  whose ``needs`` sections are unsupported or failed, with the section's reason).

A finding's ``fix`` is commands a person pastes: a check builds it with ``cmd(template, **values)``
(gpudoctor/fixline.py), which shell-quotes every value from facts, never with ``%`` or ``+``.

``Finding.info`` is a note that rides along with any outcome. A check that yields neither a
verdict nor a problem is reported ``skipped`` ("gave no evidence"): silence is never a pass.
Built-in checks live in the ``gpudoctor.checks`` package (the top-level ``checks/``
folder of the source tree); third-party checks register through the entry-point
group ``gpudoctor.checks``, whose value is a module to import.
"""

import importlib
import os
import re

# the one quoting rule for fix commands (checks import it from here with Finding)
from gpudoctor.fixline import Literal, cmd, sh  # noqa: F401
from gpudoctor.record import NEW, FrozenRecord, Record

SEVERITIES = ("error", "warning", "info")
SCOPES = ("node", "cluster")
ENTRY_POINT_GROUP = "gpudoctor.checks"

_ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")


class RegistryError(Exception):
    """A check's metadata is wrong (a bug in a check module, reported at load time)."""


class Finding(Record):
    """One thing a check found wrong (or worth knowing) on one node or across nodes."""

    _fields = ("severity", "message", "observed", "expected", "fix", "exports", "hosts", "check")

    def __init__(self, severity, message, observed=None, expected=None, fix=None, exports=NEW, hosts=NEW,
                 check=""):
        self.severity = severity  # str
        self.message = message  # str
        self.observed = observed  # str or None
        self.expected = expected  # str or None
        self.fix = fix  # str or None
        self.exports = {} if exports is NEW else exports  # {name: value}
        self.hosts = [] if hosts is NEW else hosts  # cluster checks name the odd nodes
        self.check = check  # filled in by the runner

    @classmethod
    def error(cls, message=None, **kw):
        return cls._make("error", message, kw)

    @classmethod
    def warning(cls, message=None, **kw):
        return cls._make("warning", message, kw)

    @classmethod
    def info(cls, message=None, **kw):
        return cls._make("info", message, kw)

    @classmethod
    def _make(cls, severity, message, kw):
        if message is None:
            observed, expected = kw.get("observed"), kw.get("expected")
            message = observed if not expected else "%s (expected %s)" % (observed, expected)
        return cls(severity=severity, message=message, **kw)


OUTCOMES = ("pass", "warn", "fail", "na", "skipped")


class Verdict(FrozenRecord):
    """A check's end on a node when nothing is wrong: pass (with evidence), na or skipped."""

    _fields = ("status", "text", "hosts")

    def __init__(self, status, text, hosts=()):
        # status: pass | na | skipped; text: the evidence (pass) or the reason (na, skipped);
        # hosts: cluster checks: the nodes it applies to (default: all in scope)
        put = object.__setattr__  # frozen: as @dataclass(frozen=True) sets its fields (one per outcome)
        put(self, "status", status)
        put(self, "text", text)
        put(self, "hosts", hosts)


def Pass(evidence, hosts=()):  # noqa: N802 (reads as a verdict in a check: yield Pass("..."))
    if not evidence or not str(evidence).strip():
        raise ValueError("a pass needs its evidence: what was judged against what")
    return Verdict("pass", str(evidence), tuple(hosts))


def NA(reason, hosts=()):  # noqa: N802
    return Verdict("na", str(reason), tuple(hosts))


def Skip(reason, hosts=()):  # noqa: N802
    return Verdict("skipped", str(reason), tuple(hosts))


class Check(FrozenRecord):
    _fields = ("id", "title", "func", "needs", "severity", "scope", "module", "also_reads")

    def __init__(self, id, title, func, needs=(), severity="error", scope="node", module="", also_reads=()):  # noqa: A002
        # severity: the worst severity this check reports; `gpudoctor list` shows it.
        # also_reads: facts sections the check reads beyond ``needs`` (a section it judges
        # itself when absent: shm.size fails where /dev/shm does not exist, so ``shm`` cannot
        # be a need). History says what changed in ``reads`` when the check's verdict changes
        # (gpudoctor/history.py).
        self._set(id=id, title=title, func=func, needs=needs, severity=severity, scope=scope, module=module,
                  also_reads=also_reads)

    @property
    def reads(self):
        return tuple(self.needs) + tuple(s for s in self.also_reads if s not in self.needs)

    @property
    def doc(self):
        return (self.func.__doc__ or "").strip()


class Registry:
    def __init__(self):
        self._checks = {}  # id -> Check

    def add(self, chk):
        if not _ID.match(chk.id):
            raise RegistryError("check id %r must be a dotted lowercase slug like 'shm.size'" % chk.id)
        if chk.id in self._checks:
            other = self._checks[chk.id].module
            raise RegistryError("check id %r is registered twice (%s and %s)" % (chk.id, other, chk.module))
        if chk.severity not in SEVERITIES:
            raise RegistryError("check %s: severity %r is not one of %s" % (chk.id, chk.severity, SEVERITIES))
        if chk.scope not in SCOPES:
            raise RegistryError("check %s: scope %r is not one of %s" % (chk.id, chk.scope, SCOPES))
        if not chk.title:
            raise RegistryError("check %s has no title" % chk.id)
        if isinstance(chk.needs, str):
            raise RegistryError("check %s: needs must be a tuple of section names" % chk.id)
        self._checks[chk.id] = chk
        return chk

    def __iter__(self):
        return iter(sorted(self._checks.values(), key=lambda c: c.id))

    def __len__(self):
        return len(self._checks)

    def get(self, check_id):
        return self._checks.get(check_id)

    def ids(self):
        return sorted(self._checks)


REGISTRY = Registry()


def check(check_id, title, needs=(), severity="error", scope="node", registry=None, also_reads=()):
    """Register a check function. ``needs`` names the facts sections it reads: when one
    of them is unsupported or failed on a node, the runner skips the check with that reason.
    ``also_reads``: the other sections it reads (it judges their absence itself)."""

    def deco(func):
        # `registry or REGISTRY` would be REGISTRY for an empty Registry (it has __len__)
        (REGISTRY if registry is None else registry).add(
            Check(id=check_id, title=title, func=func, needs=tuple(needs), severity=severity,
                  scope=scope, module=func.__module__, also_reads=tuple(also_reads))
        )
        return func

    return deco


def match(check_id, patterns):
    """True when a pattern is the id itself or a dotted prefix of it (`ssh` matches `ssh.config`)."""
    return any(check_id == p or check_id.startswith(p.rstrip(".") + ".") for p in patterns)


def unmatched_lines(checks, cfg):
    """Warnings for ignore / severity entries that match no check (a typo: `"limits.memlok" = "off"` turns
    nothing off, and nothing said so). --select matching nothing at all is an input error elsewhere."""
    out = []
    # the same config's ignore list and severity table also change `gpudoctor watch`'s checks (commands/watch.py)
    from gpudoctor.watch import WATCH

    known = list(checks) + [c for c in WATCH if c not in checks]
    for what, ids in (("ignore", list(cfg.ignore or ())), ("severity", list(cfg.severity or ()))):
        bad = [i for i in ids if not any(match(c.id, [i]) for c in known)]
        if bad:
            more = " and %d more" % (len(bad) - 8) if len(bad) > 8 else ""
            out.append("%s %s matches no check (see: gpudoctor list): it changes nothing" % (
                what, ", ".join(repr(str(b)) for b in bad[:8]) + more))
    # a select list whose other entries match: the typo's check was silently not run (`--select shm,memlok` ran
    # shm alone, exit 0: userwalk23); a list of which none matches is the input error above
    sel = list(cfg.select or ())
    bad = [i for i in sel if not any(match(c.id, [i]) for c in known)]
    if bad and len(bad) < len(sel):
        more = " and %d more" % (len(bad) - 8) if len(bad) > 8 else ""
        out.append("select %s matches no check (see: gpudoctor list): no check runs for it" % (
            ", ".join(repr(str(b)) for b in bad[:8]) + more))
    return out


def select(checks, selected=(), ignored=()):
    out = [c for c in checks if (not selected or match(c.id, selected)) and not match(c.id, ignored)]
    return out


_loaded = False


def load_checks():
    """Import the built-in check modules and every plugin module, once."""
    global _loaded
    if _loaded:
        return REGISTRY
    _loaded = True
    import gpudoctor.checks as builtin

    for name in _module_names(builtin.__path__):
        if not name.startswith("_"):
            importlib.import_module("gpudoctor.checks." + name)
    for ep in _entry_points():
        before = set(REGISTRY._checks)
        try:
            ep.load()
        except Exception as exc:  # a broken plugin (import error, duplicate id, bad metadata) is skipped whole
            for cid in set(REGISTRY._checks) - before:
                del REGISTRY._checks[cid]
            _plugin_errors.append("plugin %s (%s) skipped: %s: %s" % (ep.name, ep.value, type(exc).__name__, exc))
    return REGISTRY


_plugin_errors = []


def _module_names(paths):
    """The names pkgutil.iter_modules(paths) gives for a package's folders, sorted: modules
    (a file with an import suffix: .py, .pyc, an extension) and packages (a folder with an
    __init__ module), each name once (Lib/pkgutil.py, _iter_file_finder_modules, and
    inspect.getmodulename). Without pkgutil, which imports ``inspect`` there and ``typing``
    beneath functools.singledispatch: 3-6 ms of the prolog tier's start."""
    from importlib.machinery import all_suffixes

    suffixes = sorted(all_suffixes(), key=len, reverse=True)  # the longest first, as getmodulename

    def modname(fn):
        for suffix in suffixes:
            if fn.endswith(suffix):
                return fn[:-len(suffix)]
        return None

    found = set()
    for path in paths:
        try:
            names = os.listdir(path)
        except OSError:
            continue
        for fn in names:
            name = modname(fn)
            if name == "__init__":
                continue
            if not name and "." not in fn and os.path.isdir(os.path.join(path, fn)):
                try:
                    inside = os.listdir(os.path.join(path, fn))
                except OSError:
                    continue
                if not any(modname(f) == "__init__" for f in inside):
                    continue  # not a package
                name = fn
            if name and "." not in name:
                found.add(name)
    return sorted(found)


def plugin_errors():
    return list(_plugin_errors)


def _may_have_plugins(paths=None, meta_path=None):
    """False only when no installed distribution can declare a ``gpudoctor.checks`` entry
    point, found the way importlib.metadata's own finder finds them (MetadataPathFinder /
    FastPath, Lib/importlib/metadata/__init__.py: each sys.path folder's ``*.dist-info`` and
    ``*.egg-info`` folders, names compared lowercased, their ``entry_points.txt``) without
    importing it: importlib.metadata and the email package beneath it are 9-15 ms of the
    prolog tier, paid on every node for the usual answer, no plugin. Whatever this scan cannot
    vouch for (a zip or an .egg on sys.path, a meta-path finder with its own
    find_distributions, an unreadable file) answers True, and importlib.metadata decides."""
    import sys
    from importlib.machinery import PathFinder

    for finder in sys.meta_path if meta_path is None else meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return True
    for entry in sys.path if paths is None else paths:
        if not isinstance(entry, str):
            return True
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except NotADirectoryError:  # a zip on sys.path
            return True
        except OSError:  # missing (python3XX.zip usually is) or unreadable: nothing found there
            if os.path.exists(folder):
                return True
            continue
        if folder.lower().endswith(".egg"):
            return True
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                ep = os.path.join(folder, name, "entry_points.txt")
                try:
                    with open(ep, "rb") as f:
                        if ENTRY_POINT_GROUP.encode() in f.read():
                            return True
                except (FileNotFoundError, NotADirectoryError):  # no entry points; a PKG-INFO-style egg-info file
                    continue
                except OSError:
                    return True
    return False


def _entry_points():
    if not _may_have_plugins():
        return []
    from importlib.metadata import entry_points

    eps = entry_points()
    if hasattr(eps, "select"):
        return list(eps.select(group=ENTRY_POINT_GROUP))
    return list(eps.get(ENTRY_POINT_GROUP, ()))  # Python 3.9
