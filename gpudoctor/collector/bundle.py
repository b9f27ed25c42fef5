"""Build one self-contained Python script from the collector package, to run on a node
(``python3 -`` with the script on stdin) or in another interpreter. Nothing is installed
or left behind on the node."""

import os

def _modules():
    from . import MODULES  # the one list of section modules (collector/__init__.py)

    return ("base",) + MODULES

_LOADER = r'''# -*- coding: utf-8 -*-
import sys
# `python3 -` and `python3 -c` put the current folder first on sys.path (''): a socket.py or zlib.py
# there (a cloned repository, a shared job folder, srun's working folder on every node) ran before
# the interpreter's own module (docs/security.md 47.). Nothing is imported before this line.
if sys.path and sys.path[0] == "":
    del sys.path[0]
if sys.version_info < (3, 6):  # parses on Python 2 too, so an old node says why
    sys.stderr.write("gpudoctor: python too old: %%s (needs 3.6+)\n" %% sys.version.split()[0])
    sys.exit(3)
# A short-lived process that makes few cycles: no collection passes while modules load.
import gc
gc.disable()
# The import machinery's own frozen modules, always loaded: importlib.util would import
# contextlib, functools and collections first (4 ms of the collector's CPU on a node, Python
# 3.11), and base64 would import re. _bootstrap.spec_from_loader and
# _bootstrap_external.MAGIC_NUMBER are what importlib.util re-exports (CPython
# Lib/importlib/util.py, 3.6-3.13).
import binascii, zlib
_boot = sys.modules["_frozen_importlib"]
_MAGIC_HERE = binascii.hexlify(sys.modules["_frozen_importlib_external"].MAGIC_NUMBER).decode("ascii")
_SOURCES = %s  # base64(zlib(source)): a third of the text for the interpreter to parse first
# The same modules compiled by the controller's interpreter (marshal, zlib, base64), used only
# by an interpreter with the same bytecode magic: compiling the sources took 58 of the 109 ms
# the collector spent on a node (Python 3.11). Any other interpreter compiles the sources.
_MAGIC = %r
_CODE = %s


class _BundleFinder(object):
    # serves gpudoctor.collector.* from the sources above (PEP 451; Python 3.4+)
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name == "gpudoctor" or name in _SOURCES:
            is_pkg = name in ("gpudoctor", "gpudoctor.collector")
            return _boot.spec_from_loader(name, cls, is_package=is_pkg)
        return None

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        code = None
        if _CODE.get(module.__name__) and _MAGIC_HERE == _MAGIC:
            try:
                import marshal
                code = marshal.loads(zlib.decompress(binascii.a2b_base64(_CODE[module.__name__])))
            except Exception:
                code = None
        if code is None:
            packed = _SOURCES.get(module.__name__)
            src = zlib.decompress(binascii.a2b_base64(packed)).decode("utf-8") if packed else ""
            code = compile(src, "<gpudoctor:%%s>" %% module.__name__, "exec")
        exec(code, module.__dict__)


sys.meta_path.insert(0, _BundleFinder)
sys.dont_write_bytecode = True
import gpudoctor.collector
sys.exit(gpudoctor.collector.main(sys.argv[1:], preset=_PRESET))
'''

_cache = None


def sources():
    here = os.path.dirname(os.path.abspath(__file__))
    out = {}
    with open(os.path.join(here, "__init__.py")) as f:
        out["gpudoctor.collector"] = f.read()
    for name in _modules():
        with open(os.path.join(here, name + ".py")) as f:
            out["gpudoctor.collector." + name] = f.read()
    out["gpudoctor.collector.bundle"] = "def build_script():\n    raise RuntimeError('no nested probes')\n"
    return out


def _literal(d):
    """A {name: base64 text} dict as Python source in lines of at most ~80 characters: read
    from stdin (``python3 -``), CPython 3.11's tokenizer took 100 ms of CPU more for the
    same script written as one 150,000-character line."""
    out = ["{"]
    for k in sorted(d):
        v = d[k]
        out.append("    %r: (" % k)
        out += ["        %r" % v[i:i + 76] for i in range(0, len(v), 76)] or ["        ''"]
        out.append("    ),")
    out.append("}")
    return "\n".join(out)


def _magic():
    from gpudoctor import blobcache

    return blobcache.magic()  # what the loader compares: importlib.util.MAGIC_NUMBER, hexlified


def compiled(src):
    """{module: base64(zlib(marshal(code)))}, compiled here with the node's file names."""
    import base64
    import marshal
    import zlib

    return dict((name, base64.b64encode(zlib.compress(marshal.dumps(compile(text, "<gpudoctor:%s>" % name, "exec")),
                                                      9)).decode("ascii"))
                for name, text in src.items())


def build_script(preset=None):
    """The collector as one script; cached, since every node gets the same bytes. ``preset``
    options are written into the script (stdin), never onto the node's command line."""
    import base64
    import zlib

    global _cache
    if _cache is None:
        src = sources()
        packed = dict((k, base64.b64encode(zlib.compress(v.encode("utf-8"), 9)).decode("ascii")) for k, v in src.items())
        _cache = _LOADER % (_literal(packed), _magic(), _literal(compiled(src)))
    return _cache.replace("preset=_PRESET)", "preset=%r)" % (dict(preset or {}),), 1)


# --- The collector in two parts, for a transport that can send bytes (srun's stdin) ---------
#
# A small loader (Python source) and a binary blob after it: the modules' bytecode (marshal,
# the controller's interpreter) and their sources, each zlib'd as one stream, not as a base64
# text in the script. The 243 KB text script was 110 KB of bytes this way (zlib of all modules
# together, no base64; 71 KB with the bytecode's line tables without columns and no
# docstrings, and watch/rendezvous left out), and a node no longer compiles a 243 KB source of
# string literals twice (the stub's, then the bundle's: 4-7 ms of CPU a node). srun writes
# stdin to every node's slurmstepd: each KB cost about 0.09 ms of CPU per node (64 nodes,
# docs/benchmarks.md), so every byte saved is saved N times.
#
# Modules whose one section answers "unsupported" unless the run asks for it are left out of
# a run that does not ask for it, and a placeholder registers the same section with the same
# answer (the module's own NOT_ASKED): the facts are the same, with less to send and to load.
_PLACEHOLDER = '''from .base import Unsupported, section


@section(%r)
def _left_out(ctx):
    raise Unsupported(%r)
'''

# Runs as `exec(loader, {"__name__": "__main__", "_gd_blob": BLOB, "_gd_opts": OPTIONS,
# "_gd_more": READ})`: READ(n) gives the n bytes of the sources where BLOB stops before them.
# Python 2 syntax too: an old interpreter says why it cannot run the collector.
LOADER = r'''# -*- coding: utf-8 -*-
import sys
if sys.path and sys.path[0] == "":  # the current folder (docs/security.md 47.; READ_BLOB took it out first)
    del sys.path[0]
if sys.version_info < (3, 6):
    sys.stderr.write("gpudoctor: python too old: %s (needs 3.6+)\n" % sys.version.split()[0])
    sys.exit(3)
import gc
gc.disable()  # a short-lived process that makes few cycles
import binascii, zlib
_boot = sys.modules["_frozen_importlib"]
_head, _, _rest = _gd_blob.partition(b"\n")
_magic, _ncode, _nsrc, _names = _head.decode("ascii").split(" ")
_ncode, _nsrc, _NAMES = int(_ncode), int(_nsrc), set(_names.split(","))
_CODE, _SRC = {}, None
# bytecode only for an interpreter with the same magic (the controller's): any other compiles
# the sources (the import machinery's own MAGIC_NUMBER, as importlib.util re-exports it)
if binascii.unhexlify(_magic) == sys.modules["_frozen_importlib_external"].MAGIC_NUMBER:
    try:
        import marshal
        _CODE = marshal.loads(zlib.decompress(_rest[:_ncode]))
    except Exception:
        _CODE = {}


def _source(name):
    global _SRC
    if _SRC is None:
        _SRC = {}
        packed = _rest[_ncode:_ncode + _nsrc]
        if len(packed) < _nsrc:  # srun sends the sources to the nodes that ask (transport/srun.py)
            packed = _gd_more(_nsrc)
        for part in zlib.decompress(packed).decode("utf-8").split("\0"):
            n, _, text = part.partition("\n")
            _SRC[n] = text
    return _SRC.get(name, "")


class _BundleFinder(object):
    # serves gpudoctor.collector.* from the blob (PEP 451; Python 3.4+)
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name == "gpudoctor" or name in _NAMES:
            return _boot.spec_from_loader(name, cls, is_package=name in ("gpudoctor", "gpudoctor.collector"))
        return None

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        code = _CODE.get(module.__name__)
        if code is None:
            code = compile(_source(module.__name__), "<gpudoctor:%s>" % module.__name__, "exec")
        exec(code, module.__dict__)


sys.meta_path.insert(0, _BundleFinder)
sys.dont_write_bytecode = True
import gpudoctor.collector
sys.exit(gpudoctor.collector.main([], preset=_gd_opts))
'''

_parts = {}


def _lines_only(code):
    """blobcache.lines_only: ``code`` with a location table of line numbers only."""
    from gpudoctor import blobcache

    return blobcache.lines_only(code)


def lean_source(text):
    """A module's source as another interpreter compiles it on a node: the same statements
    without docstrings and comments (ast.unparse, Python 3.9+ here; the output is plain syntax
    that 3.6 compiles, tests/test_collector_lean.py runs it there), as optimize=2 leaves the
    bytecode. 34 -> 22 KB of every node's stdin after zlib. Its line numbers are not the
    file's; the collector reports an error by its message, never by a traceback."""
    import ast

    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or ([] if isinstance(node, ast.Module) else [ast.Pass()])
    return ast.unparse(tree) + "\n"  # novermin (the controller, 3.9+; the nodes get this text, not this code)


def left_out(options=None, per_host=None):
    """The optional modules no node of this run needs (sorted): blobcache.left_out."""
    from gpudoctor import blobcache

    return blobcache.left_out(options, per_host)


# The built blob is also kept on disk, for the next run: building it is 45-55 ms of CPU here
# (importing the collector, compiling, zlib), a tenth of `gpudoctor facts` at 8 nodes through
# srun. gpudoctor/blobcache.py keeps it (with this loader) and reads it back, for srun without
# importing this package; it says what is trusted there.


def cache_dir():
    from gpudoctor import privcache  # the controller's only (never on a node)

    return privcache.cache_dir()


def cache_key(leave_out=()):
    from gpudoctor import blobcache

    return blobcache.key(leave_out)


def build_parts(leave_out=(), cache=True):
    """(loader source, blob bytes) of the collector without the modules in ``leave_out``
    (placeholders in their place). Built once per process and set of modules: every node of a
    run gets the same bytes, and the options travel in front of the loader (the transport's).
    ``cache``: read and keep the blob in cache_dir() (see above)."""
    from gpudoctor import blobcache

    key = tuple(sorted(leave_out))
    if key not in _parts and cache:
        try:
            digest = cache_key(key)
        except OSError:
            digest = None
        path = digest and blobcache.path_of(digest)
        got = blobcache.read(path, digest) if path else None
        if got is not None and got[0] == LOADER:
            _parts[key] = got
        else:
            built = build_parts(key, cache=False)
            if path:
                blobcache.write(path, digest, built[0], built[1])
            return built
    if key not in _parts:
        import importlib
        import marshal
        import zlib

        src = sources()
        # the top package too (empty): without its bytecode the loader compiled it from the
        # sources, and decompressed all of them for that (0.5 ms of every node's collector)
        src["gpudoctor"] = ""
        for m in key:
            mod = importlib.import_module("gpudoctor.collector." + m)
            src["gpudoctor.collector." + m] = _PLACEHOLDER % (dict(blobcache.OPTIONAL)[m], mod.NOT_ASKED)
        names = sorted(src)
        assert not any("\0" in t for t in src.values())
        # level 6: 1% more bytes than 9, and 10 ms of CPU here instead of 68
        # optimize=2: no docstrings (the collector has no assert and reads no __doc__)
        code = zlib.compress(marshal.dumps(dict((n, _lines_only(compile(src[n], "<gpudoctor:%s>" % n, "exec", optimize=2)))
                                                for n in names)), 6)
        text = zlib.compress("\0".join(n + "\n" + lean_source(src[n]) for n in names).encode("utf-8"), 6)
        head = "%s %d %d %s\n" % (_magic(), len(code), len(text), ",".join(names))
        _parts[key] = (LOADER, head.encode("ascii") + code + text)
    return _parts[key]
