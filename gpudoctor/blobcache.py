"""The collector's loader and blob (collector/bundle.py build_parts) kept between runs, read
back without importing the collector package.

A run through srun needs the collector only as the bytes it sends: importing
gpudoctor.collector.bundle runs the package's __init__, which imports every section module
(8 ms of the controller's CPU a run, Python 3.11; gpudoctor/early.py keeps its child from the
same cost), and nothing of it is used when the blob is in the cache. So the cache's key, its
file and the list of optional modules live here, and bundle.py builds (and writes) through
them; only a run that must build imports the collector.

What is read back runs on every node: docs/security.md and privcache.py say what is trusted
(a private folder and file of this user, under a name that is the SHA-256 of everything the
blob was built from: every collector source, bundle.py included, the interpreter's version and
bytecode magic, the modules left out)."""

import os
import sys

from gpudoctor import privcache

# "2": the loader's text is kept in front of the blob ("LENGTH\n" + loader + blob)
FORMAT = b"gpudoctor-collector-blob 2"
LIMIT = 4 << 20
FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collector")
# Modules whose one section answers "unsupported" unless the run asks for it (bundle.py's
# placeholders): (module, the option that asks for it)
OPTIONAL = (("watch", "watch"), ("rendezvous", "rendezvous"))

_read = {}  # leave_out -> (loader, blob), this process's


# The bytecode's location tables, for bundle.build_parts (the collector's modules) and
# transport/srun.py (the stub and loader it compiles for the nodes)
def _varint(n, out):
    while n >= 64:
        out.append(64 | (n & 63))
        n >>= 6
    out.append(n)


def by_offset(code):
    return [line for start, end, line in code.co_lines() for _ in range(start, end, 2)]


def lines_only(code):
    """``code`` (and the code in its constants) with a location table of line numbers only.
    CPython 3.11+ keeps each instruction's columns too (PEP 657, for the carets of a traceback),
    a third of the marshalled collector; the nodes never show a traceback. The table is
    written in the format of CPython's Objects/locations.md (one entry per run of at most 8 code
    units: code 13, "no column info", a signed varint of the line's delta; code 15, no
    location) and used only where it gives back exactly the same lines (co_lines and each
    instruction's line, offset by offset), else the code keeps its own."""
    if not hasattr(code, "replace"):  # before 3.8 (the controller needs 3.9+)
        return code
    consts = tuple(lines_only(c) if isinstance(c, type(code)) else c for c in code.co_consts)
    try:
        lines = [p[0] for p in code.co_positions()]
        table, last, i = bytearray(), code.co_firstlineno, 0
        while i < len(lines):
            n = 1
            while n < 8 and i + n < len(lines) and lines[i + n] == lines[i]:
                n += 1
            if lines[i] is None:
                table.append(0x80 | (15 << 3) | (n - 1))
            else:
                delta = lines[i] - last
                table.append(0x80 | (13 << 3) | (n - 1))
                _varint((-delta << 1) | 1 if delta < 0 else delta << 1, table)
                last = lines[i]
            i += n
        new = code.replace(co_consts=consts, co_linetable=bytes(table))
        if by_offset(new) == by_offset(code) and [p[0] for p in new.co_positions()] == lines:
            return new
    except (AttributeError, TypeError, ValueError):  # before 3.11: no co_positions
        pass
    return code.replace(co_consts=consts)


def left_out(options=None, per_host=None):
    """The optional modules no node of this run needs (sorted)."""
    asked = set(k for k, v in (options or {}).items() if v)
    for o in (per_host or {}).values():
        asked.update(k for k, v in (o or {}).items() if v)
    return tuple(m for m, key in OPTIONAL if key not in asked)


def magic():
    """This interpreter's bytecode magic, hexlified: the import machinery's own, which
    importlib.util re-exports (without importing importlib.util: 3-4 ms with what it imports)."""
    return sys.modules["_frozen_importlib_external"].MAGIC_NUMBER.hex()


def _sha256():
    try:  # the built-in SHA-256: hashlib would load OpenSSL (5 ms of a run); see collector/system.py
        from _sha256 import sha256
    except ImportError:
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256


def key(leave_out=()):
    """The hex SHA-256 the cached blob's name and first line carry."""
    h = _sha256()(FORMAT + b"\0" + sys.version.encode() + b"\0" + magic().encode() + b"\0"
                  + ",".join(sorted(leave_out)).encode())
    for name in sorted(f for f in os.listdir(FOLDER) if f.endswith(".py")):
        with open(os.path.join(FOLDER, name), "rb") as f:
            data = f.read()
        h.update(b"\0%s\0%d\0" % (name.encode(), len(data)) + data)
    return h.hexdigest()


def path_of(digest):
    return os.path.join(privcache.cache_dir(), "collector-%s.blob" % digest[:40])


def read(path, digest):
    """(loader, blob) kept at ``path`` under ``digest``, else None."""
    body = privcache.read(path, FORMAT + b" " + digest.encode(), LIMIT)
    if not body:
        return None
    line, nl, rest = body.partition(b"\n")
    if not (nl and line.isdigit() and int(line) <= len(rest)):
        return None
    try:
        loader = rest[:int(line)].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return loader, rest[int(line):]


def write(path, digest, loader, blob):
    text = loader.encode("utf-8")
    privcache.write(path, FORMAT + b" " + digest.encode(), b"%d\n" % len(text) + text + blob, "collector-", ".blob")


def cached(leave_out=()):
    """(loader, blob) where this process or the cache has them, else None: nothing is built
    (early_srun.py: a build, 45-55 ms of CPU, would hold back the step it starts)."""
    k = tuple(sorted(leave_out))
    if k not in _read:
        try:
            digest = key(k)
            got = read(path_of(digest), digest)
        except OSError:
            return None
        if got is None:
            return None
        _read[k] = got
    return _read[k]


def parts(leave_out=()):
    """(loader, blob) for srun: from the cache when it has them (the collector not imported),
    else built (and kept) by bundle.build_parts."""
    got = cached(leave_out)
    if got is None:
        from gpudoctor.collector.bundle import build_parts

        k = tuple(sorted(leave_out))
        got = _read[k] = build_parts(k)
    return got
