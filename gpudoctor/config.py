"""Thresholds and expectations, from gpudoctor.toml / [tool.gpudoctor] and flags.

Every key is documented in docs/config.md; an unknown key is an input error (a typo
must not silently turn a check off). Each key's type and range are checked by one table,
``KEYS``: the same rule judges the file and the flag (``--timeout``, ``--expected-gpus``).
A config is written by whoever can write /etc/gpudoctor or the job's folder, and gpudoctor
runs as root in prologs, so a value outside its range is refused (exit 2), never clamped.
"""

import math
import os
import re
import stat

from gpudoctor.errors import InputError, excerpt, read_input
from gpudoctor.record import NEW, Record

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}

MAX_SIZE = 1 << 60  # 1 EiB: no /dev/shm is larger; bounds a 400-digit shm_min before any arithmetic
MAX_GPUS = 1024  # GPUs per node; the largest nodes sold have 8-16 (NVL72 racks expose 4 per node)
MAX_TIMEOUT = 86400.0  # seconds; a day. inf/nan would turn the per-node deadline off
MAX_CONFIG_BYTES = 1 << 20  # a config is a few hundred bytes; 1 MiB bounds the TOML parser's work
ETC_CONFIG = "/etc/gpudoctor/gpudoctor.toml"
MAX_LIST = 1000  # select/ignore/severity entries
MAX_ID = 200  # characters of one check id or prefix


def parse_size(value):
    """'1GiB', '512m', 1073741824 -> bytes (binary units: what df -h and docker use).
    At most MAX_SIZE, never negative."""
    if isinstance(value, bool):
        raise InputError("is not a size (examples: 1GiB, 512MiB, 8g)")
    if isinstance(value, int):
        n = value
    else:
        # digits bounded before int()/float(): a 400-digit value is refused by its length,
        # not by an OverflowError (float) or Python's 4300-digit int limit
        m = re.match(r"^\s*(\d{1,20}(?:\.\d{1,20})?)\s*([a-zA-Z]{0,3})\s*$", str(value)[:100])
        if not isinstance(value, str) or not m or m.group(2).lower() not in _UNITS:
            raise InputError("is not a size (examples: 1GiB, 512MiB, 8g; at most 20 digits)")
        n = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if not 0 <= n <= MAX_SIZE:
        raise InputError("is out of range (0 to 1EiB)")
    return n


def _integer(lo, hi):
    def conv(value):
        # bool is an int subclass in Python: `expected_gpus = true` must not become 1;
        # a float (8.7) must not be truncated to 8
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("must be a whole number")
        if not lo <= value <= hi:
            raise ValueError("must be between %d and %d" % (lo, hi))
        return value
    conv.__name__ = "whole number from %d to %d" % (lo, hi)
    return conv


def _seconds(value):
    """A timeout: a finite number of seconds, > 0 and at most a day. `nan` compares false
    with everything and `inf` overflows time_t: both would switch the deadline off."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("must be a number of seconds")
    if isinstance(value, int) and abs(value) > 10 ** 9:
        raise ValueError("must be between 0 and %g" % MAX_TIMEOUT)
    value = float(value)
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        raise ValueError("must be more than 0 and at most %g seconds" % MAX_TIMEOUT)
    return value


def _boolean(value):
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _ids(value):
    if not isinstance(value, list) or len(value) > MAX_LIST:
        raise ValueError("must be a list of check ids or id prefixes")
    for v in value:
        if not isinstance(v, str) or not v or len(v) > MAX_ID or not v.isprintable():
            raise ValueError("must be a list of check ids or id prefixes (strings)")
    return list(value)


def _severity(value):
    if not isinstance(value, dict) or len(value) > MAX_LIST:
        raise ValueError("must be a table: check id = \"error\", \"warning\", \"info\" or \"off\"")
    for k, v in value.items():
        if len(k) > MAX_ID or not k.isprintable() or v not in ("error", "warning", "info", "off"):
            # (the report's own marks are WARN and FAIL: "warn" is the likely slip, so the entry is named whole)
            raise ValueError("%s = %s: must be error, warning, info or off" % (excerpt(k), excerpt(v)))
    return dict(value)


def _path(value):
    if not isinstance(value, str) or not value or len(value) > 4096 or "\0" in value or not value.isprintable():
        raise ValueError("must be a path (a non-empty string of at most 4096 printable characters)")
    return value


def _size(value):
    try:
        return parse_size(value)
    except InputError as exc:
        raise ValueError(str(exc))


_size.__name__ = "size"


def _fallback(value):
    if value not in ("ssh", "none"):
        raise ValueError('must be "ssh" or "none"')
    return value


class Config(Record):
    _fields = ("min_shm_bytes", "expected_gpus", "bf16", "select", "ignore", "strict", "severity", "python",
               "python_source", "timeout", "source", "slots", "launch", "history", "state_dir", "history_runs",
               "history_states", "history_bytes", "fallback")

    def __init__(self, min_shm_bytes=1 << 30, expected_gpus=None, bf16=False, select=NEW, ignore=NEW, strict=False,
                 severity=NEW, python=None, python_source=None, timeout=30.0, source=None, slots=NEW, launch=None,
                 history=None, state_dir=None, history_runs=None, history_states=None, history_bytes=None,
                 fallback=None):
        self.min_shm_bytes = min_shm_bytes  # key shm_min; NCCL + DataLoader workers; Docker gives 64 MB
        self.expected_gpus = expected_gpus  # key expected_gpus; later also the hostfile's slots=
        self.bf16 = bf16  # key bf16: the job trains in bf16 (needs compute capability >= 8.0)
        self.select = [] if select is NEW else select
        self.ignore = [] if ignore is NEW else ignore
        self.strict = strict
        self.severity = {} if severity is NEW else severity  # per-check severity overrides
        self.python = python  # interpreter of the job (conda env / venv) to probe
        self.python_source = python_source  # how it was chosen (gpudoctor/interpreter.py); not a TOML key
        self.timeout = timeout  # per node, seconds
        self.source = source  # where this config was read from
        self.slots = {} if slots is NEW else slots  # from the hostfile's slots= (not a TOML key)
        self.launch = launch  # the launch plan (gpudoctor/launch.py), from check flags (not a TOML key)
        self.history = history  # key history: keep each node's history (docs/history.md); None: the command's default
        self.state_dir = state_dir  # key state_dir: where history lives (default: gpudoctor/history.py)
        self.history_runs = history_runs  # key history_runs: runs kept per node (default 100)
        self.history_states = history_states  # key history_states: distinct facts kept per node (default 8)
        self.history_bytes = history_bytes  # key history_bytes: bytes kept per node (default 2 MiB)
        self.fallback = fallback  # key fallback: "ssh" retries over ssh the nodes srun could not reach


# key -> (Config attribute, validator). A validator returns the value to store or raises
# ValueError saying what the value must be; nothing is coerced (no int(8.7), no bool(5)).
KEYS = {
    "shm_min": ("min_shm_bytes", _size),
    "expected_gpus": ("expected_gpus", _integer(0, MAX_GPUS)),
    "bf16": ("bf16", _boolean),
    "select": ("select", _ids),
    "ignore": ("ignore", _ids),
    "strict": ("strict", _boolean),
    "severity": ("severity", _severity),
    "python": ("python", _path),
    "timeout": ("timeout", _seconds),
    "history": ("history", _boolean),
    "state_dir": ("state_dir", _path),
    "history_runs": ("history_runs", _integer(1, 10000)),
    "history_states": ("history_states", _integer(1, 1000)),
    "history_bytes": ("history_bytes", _size),
    "fallback": ("fallback", _fallback),
}
_KEYS = KEYS  # the name other modules used


def check_value(key, value, where="config"):
    """The value to store for `key`, or an InputError naming the key and a bounded excerpt."""
    attr, conv = KEYS[key]
    try:
        return conv(value)
    except (TypeError, ValueError, OverflowError) as exc:
        if isinstance(value, dict):  # a table's bad entry names itself ('a table' said nothing of which)
            raise InputError("%s: %s: %s" % (where, key, exc))
        raise InputError("%s: %s = %s: %s" % (where, key, excerpt(value), exc))


def flag(key, name):
    """An argparse `type=` for a flag that sets a config key: the file's rule for the flag.
    argparse turns the ValueError into 'argument --timeout: ...' (exit 2 through cli)."""
    import argparse

    def conv(text):
        if key == "timeout":
            m = re.match(r"^\s*[0-9]{1,12}(\.[0-9]{0,12})?\s*$", text)  # no nan, inf, -1, 1e999
            if not m:
                raise argparse.ArgumentTypeError("%s must be a number of seconds, more than 0 and at most %g"
                                                 % (excerpt(text), MAX_TIMEOUT))
            value = float(text)
        else:
            if not re.match(r"^\s*[0-9]{1,6}\s*$", text):
                raise argparse.ArgumentTypeError("%s is not a whole number" % excerpt(text))
            value = int(text)
        try:
            return KEYS[key][1](value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError("%s %s" % (excerpt(text), exc))
    conv.__name__ = name
    return conv


def _load_toml(path):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    data = read_input(path, "config", limit=MAX_CONFIG_BYTES)
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("config %s is not text (UTF-8)" % path)
    except tomllib.TOMLDecodeError as exc:
        raise InputError("config %s is not valid TOML: %s" % (path, excerpt(exc, 200)))
    except RecursionError:  # `a = [[[[...` 100,000 deep: tomllib recurses per level
        raise InputError("config %s is nested too deeply" % path)
    except ValueError as exc:  # a 5,000-digit integer: Python's int-from-string limit (CVE-2020-10735)
        raise InputError("config %s: a value is too large: %s" % (path, excerpt(exc, 120)))


def _ours(path):
    """A config found in the current folder (not named by --config or $GPUDOCTOR_CONFIG):
    whoever can write that folder (a job's folder, a shared checkout) chooses it, so it must
    be a file of our own. The lstat result, or None when there is none."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise InputError("./%s is a symlink: a config found in the current folder must be a file of your own "
                         "(name it with --config to use it)" % path)
    if st.st_uid != os.geteuid():
        raise InputError("./%s is owned by uid %d, not by you (uid %d): a config found in the current folder must "
                         "be your own (name it with --config to use it)" % (path, st.st_uid, os.geteuid()))
    return st


def find_config(explicit=None, hook=False):
    """--config, else $GPUDOCTOR_CONFIG, else ./gpudoctor.toml, /etc/gpudoctor/gpudoctor.toml,
    a ./pyproject.toml that mentions gpudoctor. ``hook``: a root hook (slurm-health, a prolog)
    runs in whatever folder slurmd or a user left it in, so it reads only --config,
    $GPUDOCTOR_CONFIG and /etc. A ./gpudoctor.toml or ./pyproject.toml that is a symlink or
    another user's file is refused (InputError), never read."""
    if explicit:
        return explicit
    env = os.environ.get("GPUDOCTOR_CONFIG")
    if env:
        return env
    if not hook and _ours("gpudoctor.toml") is not None:
        return "gpudoctor.toml"
    if os.path.lexists(ETC_CONFIG):
        return ETC_CONFIG
    if hook:
        return None
    try:
        present = os.path.lexists("pyproject.toml")
    except OSError:
        present = False
    if present:
        # a pyproject.toml is somebody's project file, not necessarily a gpudoctor config:
        # one that is not our own is not opened at all (and not refused)
        try:
            _ours("pyproject.toml")
        except InputError:
            return None
        try:
            head = read_input("pyproject.toml", "config", limit=MAX_CONFIG_BYTES)
        except InputError:
            return None
        # any mention, not only a "[tool.gpudoctor]" header: `[tool] gpudoctor = "x"` and
        # `tool.gpudoctor.strict = true` are the same table to TOML (and a bad one must be
        # reported, not silently skipped); a pyproject without the table reads as no settings
        if b"gpudoctor" in head:
            return "pyproject.toml"
    return None


def _table(doc, path):
    """The gpudoctor table of a parsed file: [tool.gpudoctor] in pyproject.toml, else
    [gpudoctor] or the top level. Whatever is there must be a table."""
    if path.endswith("pyproject.toml"):
        tool = doc.get("tool", {})
        if not isinstance(tool, dict):
            raise InputError("%s: tool must be a table" % path)
        table = tool.get("gpudoctor", {})
        name = "[tool.gpudoctor]"
    else:
        table = doc.get("gpudoctor", doc)
        name = "gpudoctor"
    if not isinstance(table, dict):
        raise InputError("%s: %s must be a table, not %s" % (path, name, excerpt(table)))
    return table


def load_config(path=None, hook=False):
    found_here = not path and not os.environ.get("GPUDOCTOR_CONFIG")
    path = find_config(path, hook=hook)
    cfg = Config()
    if not path:
        return cfg
    doc = _load_toml(path)
    table = _table(doc, path)
    apply(cfg, table, where=path)
    if found_here and path in ("gpudoctor.toml", "pyproject.toml"):
        if cfg.python:
            _no_program_from_here(cfg.python, path)
        cfg.found_here = path  # its state_dir is judged where it is used (history.state_dir_for: no_state_here)
        cfg.found_keys = sorted(table)  # said on stderr (commands/common.py config_from: docs/security.md 56.)
    cfg.source = path
    return cfg


def _no_program_from_here(python, path):
    """A config read without being named, from the current folder (./gpudoctor.toml, ./pyproject.toml: a cloned
    repository's, a shared job folder's), does not choose a program inside that folder to run: its `python` is run
    here and on every node, so [tool.gpudoctor] python = "./tools/python" in a repository ran its script when
    `gpudoctor check` was typed there (docs/security.md 40.). --python or --config still name one; an interpreter
    elsewhere (/opt/env/bin/python, ~/envs/x/bin/python run from another folder) is used as before."""
    here = os.path.realpath(os.getcwd())
    if here == os.path.realpath(os.path.expanduser("~")):
        return  # (your home folder is yours: ~/gpudoctor.toml naming ~/envs/x/bin/python)
    full = os.path.realpath(os.path.expanduser(python))
    if full == here or full.startswith(here.rstrip(os.sep) + os.sep):
        raise InputError("./%s: python = %s is a program inside the current folder, and a config found in the "
                         "current folder does not choose one to run (give it with --python, or name this file with "
                         "--config)" % (path, excerpt(python, 80)))
    # Nor one that someone else can put there: the program elsewhere, or a folder above it, belonging to another
    # user (a repository's `python = "/shared/scratch/someone/bin/python"`, or "/tmp/py" planted by another user of
    # the login node), or a folder anyone can write without the sticky bit, ran that user's program as you, here and
    # on every node (red team 2026-11-28h, docs/security.md 95.; the rule OpenSSH's StrictModes and history's
    # state directory apply to their paths, docs/security.md 53.)
    # The path as written too (lstat, no link followed): a link in another user's folder, or one they own in /tmp,
    # whose target is root's (/home/them/bin/python -> /usr/bin/python3) is theirs to point elsewhere (review29)
    who = _program_owner_problem(full) or _program_owner_problem(os.path.abspath(os.path.expanduser(python)),
                                                                 follow=False)
    if who:
        raise InputError("./%s: python = %s: %s, and a config found in the current folder does not choose a program "
                         "another user can change (give it with --python, or name this file with --config)"
                         % (path, excerpt(python, 80), who))


def _program_owner_problem(full, follow=True):
    """Why the program at ``full`` (a resolved path) could be another user's to change, or None: it, or a folder
    above it, belongs to neither root nor this user; it is writable by everyone; a folder above it is writable by
    everyone without the sticky bit, or at all where the program is not there yet (anyone could make it)."""
    import stat

    me = os.geteuid()
    missing = not os.path.exists(full)
    d = full
    while True:
        try:
            st = os.stat(d) if follow else os.lstat(d)
        except OSError:
            st = None
        if st is not None:
            if st.st_uid not in (0, me):
                return "%s belongs to uid %d" % (excerpt(d, 80), st.st_uid)
            if st.st_mode & 0o002 and not stat.S_ISLNK(st.st_mode):  # a link's own mode is always 0777
                if d == full:
                    return "%s is writable by everyone" % excerpt(d, 80)
                if not st.st_mode & stat.S_ISVTX:
                    return "%s, above it, is writable by everyone" % excerpt(d, 80)
                if missing:
                    return "%s, above it, is writable by everyone and the program is not there" % excerpt(d, 80)
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up


def no_state_here(state_dir, path):
    """A config read without being named, from the current folder, does not choose where gpudoctor keeps its state
    (docs/security.md 46.): `state_dir` holds the history and its HMAC key (history.py), so a cloned repository's
    [tool.gpudoctor] state_dir = ".gpudoctor" wrote that key into the repository (one `git add` from being published,
    after which the keyed hashes of environment values fall to a dictionary), and a key the repository carried there
    was read and used. Such a value must be absolute (a relative one is relative to wherever gpudoctor is run, as
    $GPUDOCTOR_STATE_DIR's rule says) and outside the current folder, as written and after links are resolved
    (/proc/self/cwd/x is the folder too). --state-dir, $GPUDOCTOR_STATE_DIR or --config still name one; the home
    folder's own ~/gpudoctor.toml is not held to it (40.)."""
    here = os.path.realpath(os.getcwd())
    if here == os.path.realpath(os.path.expanduser("~")):
        return
    inside = here.rstrip(os.sep) + os.sep
    if os.path.isabs(state_dir):
        full = [os.path.abspath(state_dir), os.path.realpath(state_dir)]  # abspath: what history.Store.open makes
        if not any(f == here or f.startswith(inside) for f in full):
            return
    raise InputError("./%s: state_dir = %s is %s, and a config found in the current folder does not keep "
                     "gpudoctor's history and key there (give it with --state-dir, or name this file with --config)"
                     % (path, excerpt(state_dir, 80), "inside the current folder" if os.path.isabs(state_dir)
                        else "a relative path (from the current folder)"))


def apply(cfg, table, where="config"):
    if not isinstance(table, dict):
        raise InputError("%s: the gpudoctor settings must be a table" % where)
    for key, value in table.items():
        if key not in KEYS:
            raise InputError("%s: unknown key %s (known: %s)" % (where, excerpt(key), ", ".join(sorted(KEYS))))
        setattr(cfg, KEYS[key][0], check_value(key, value, where))
    return cfg


CONFIG_FIELDS = list(Config._fields)
