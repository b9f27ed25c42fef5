"""Build one self-contained Python script from the collector package, to run on a node
(``python3 -`` with the script on stdin) or in another interpreter. Nothing is installed
or left behind on the node."""

import os

def _modules():
    from . import MODULES  # the one list of section modules (collector/__init__.py)

    return ("base",) + MODULES

_LOADER = r'''# -*- coding: utf-8 -*-
import sys
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
    import importlib.util

    return importlib.util.MAGIC_NUMBER.hex()  # what the loader compares: the same bytes, hexlified


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
