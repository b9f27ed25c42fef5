#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/torch_api.json: which public names, modules and keyword arguments of torch.distributed exist in which torch release.

A training script written for one torch fails on another with `AttributeError: module
'torch.distributed' has no attribute 'X'`, `ImportError: cannot import name 'X' from
'torch.distributed...'`, `ModuleNotFoundError: No module named 'torch.distributed.X'` or
`TypeError: init_process_group() got an unexpected keyword argument 'device_id'`. This table says
in which release each name, module and keyword argument arrived (and in which it was removed), so
explain answers "X arrived in torch V" and compares with the torch version the log prints
(gpudoctor/explain/torchapi.py).

Usage:
    python tools/gen_torch_api.py --pypi [--record tools/data/torch_api_slice.txt] [-o OUT]
    python tools/gen_torch_api.py --slice tools/data/torch_api_slice.txt -o OUT   (the test)

Source: the torch wheels on PyPI (https://pypi.org/project/torch/), the first release of each minor
line (X.Y.0) from 1.9.0 on, one Linux x86_64 wheel each (the .py sources are the same in every
wheel of a release). The wheel list comes from one look-up of PyPI's JSON API
(https://pypi.org/pypi/torch/json, https://docs.pypi.org/api/json/); each wheel (500-900 MB) is
read with HTTP range requests (a zip's central directory is at its end: PKWARE APPNOTE.TXT 4.3.16,
4.3.12, zip64 4.3.14-15), only the few files below are fetched and inflated, never imported:
`ast` reads them. `--record` writes what was read (each wheel's name and PyPI sha256, then its
modules, names and parameters) as the slice the test regenerates from; the committed slice is that
record, whole.

What is read from each release:
- modules: every torch/distributed/**.py (and torch/nn/parallel/**.py) as a dotted module name,
  tests and private helpers below a public package left out (MODULE_SKIP);
- names: the public names (no leading '_') bound at module level of NAME_MODULES (def, class,
  assignment, import, `from .x import *` resolved through that module's __all__), including those
  bound only under `if is_available():` (absent on a build without distributed);
- params: the parameters (positional, keyword-only, and whether **kwargs is taken) of CALLABLES;
- members: every member of the wrapper CLASSES (DistributedDataParallel, DataParallel, FSDP): methods, class
  attributes and self.X set in its methods, private ones too.
"""

import ast
import json
import os
import re
import struct
import sys
import urllib.request
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_torch_api.py"
SOURCE = ("torch wheels on PyPI (https://pypi.org/project/torch/), the X.Y.0 release of each minor line, "
          "torch/distributed/**.py and torch/nn/parallel/**.py read with ast")
FIRST = (1, 9)
PKG_DIRS = ("torch/distributed/", "torch/nn/parallel/",
            # the non-distributed APIs training scripts most often meet on another torch: torch.compile / autocast
            # (torch/__init__.py), scaled_dot_product_attention (nn/functional.py), torch.amp and its GradScaler,
            # checkpoint(use_reentrant=...), torch.load(weights_only=...), DistributedSampler(drop_last=...)
            "torch/__init__.py", "torch/nn/functional.py", "torch/amp/", "torch/cuda/amp/", "torch/utils/checkpoint.py",
            "torch/serialization.py", "torch/utils/data/distributed.py")
# torch/__init__.py binds most of its names from torch._C (not Python), so only these, which it binds itself,
# are recorded for the module `torch` (explain answers for no other name of it)
TOP_NAMES = ["compile", "autocast", "inference_mode", "set_float32_matmul_precision", "use_deterministic_algorithms",
             "vmap", "func", "export", "amp", "cond", "library", "set_default_device", "get_default_device",
             "is_deterministic_algorithms_warn_only_enabled", "accelerator", "distributed", "compiler", "nested",
             "sparse", "mps", "xpu", "mtia"]
# below a public package: tests, benchmarks, examples (not importable by users in practice)
# and private modules below the first level (torch.distributed._tensor is kept, as users import it;
# torch.distributed.fsdp._runtime_utils is not)
MODULE_SKIP = re.compile(r"(?:^|\.)(?:_?tests?|testing|benchmarks?|examples?)(?:\.|$)|^[^.]+\.[^.]+\.(?:[^.]+\.)*_")
NAME_MODULES = [
    "torch.distributed", "torch.distributed.distributed_c10d", "torch.distributed.device_mesh",
    "torch.distributed.fsdp", "torch.distributed.fsdp.fully_sharded_data_parallel", "torch.distributed.fsdp.api",
    "torch.distributed.tensor", "torch.distributed.tensor.parallel",
    "torch.distributed._tensor", "torch.distributed.checkpoint", "torch.distributed.elastic.multiprocessing.errors",
    "torch.distributed.algorithms.ddp_comm_hooks", "torch.distributed.optim", "torch.distributed.pipelining",
    "torch.distributed.fsdp.wrap", "torch.distributed.run", "torch.distributed._composable",
    "torch.distributed._composable.fsdp", "torch.nn.parallel",
    "torch", "torch.nn.functional", "torch.amp", "torch.cuda.amp", "torch.utils.checkpoint",
]
# (module, qualified name in it, the name users write); the method of a class is Class.__init__
CALLABLES = [
    ("torch.utils.checkpoint", "checkpoint", "checkpoint"),
    ("torch.serialization", "load", "load"),
    ("torch.utils.data.distributed", "DistributedSampler.__init__", "DistributedSampler"),
    ("torch.amp.grad_scaler", "GradScaler.__init__", "GradScaler"),
    ("torch.cuda.amp.grad_scaler", "GradScaler.__init__", "GradScaler"),
    ("torch.distributed.distributed_c10d", "init_process_group", "init_process_group"),
    ("torch.distributed.distributed_c10d", "new_group", "new_group"),
    ("torch.distributed.distributed_c10d", "new_subgroups", "new_subgroups"),
    ("torch.distributed.distributed_c10d", "barrier", "barrier"),
    ("torch.distributed.distributed_c10d", "monitored_barrier", "monitored_barrier"),
    ("torch.distributed.distributed_c10d", "destroy_process_group", "destroy_process_group"),
    ("torch.distributed.distributed_c10d", "all_reduce", "all_reduce"),
    ("torch.distributed.distributed_c10d", "broadcast", "broadcast"),
    ("torch.distributed.distributed_c10d", "all_gather", "all_gather"),
    ("torch.distributed.distributed_c10d", "all_gather_into_tensor", "all_gather_into_tensor"),
    ("torch.distributed.distributed_c10d", "reduce_scatter_tensor", "reduce_scatter_tensor"),
    ("torch.distributed.distributed_c10d", "all_gather_object", "all_gather_object"),
    ("torch.distributed.distributed_c10d", "broadcast_object_list", "broadcast_object_list"),
    ("torch.nn.parallel.distributed", "DistributedDataParallel.__init__", "DistributedDataParallel"),
    ("torch.distributed.fsdp.fully_sharded_data_parallel", "FullyShardedDataParallel.__init__",
     "FullyShardedDataParallel"),
    ("torch.distributed.fsdp.fully_sharded_data_parallel", "FullyShardedDataParallel.state_dict_type",
     "FullyShardedDataParallel.state_dict_type"),
    ("torch.distributed.device_mesh", "init_device_mesh", "init_device_mesh"),
    ("torch.distributed._tensor.device_mesh", "init_device_mesh", "init_device_mesh"),
    ("torch.distributed.device_mesh", "DeviceMesh.__init__", "DeviceMesh"),
    ("torch.distributed._tensor.device_mesh", "DeviceMesh.__init__", "DeviceMesh"),
    ("torch.distributed.fsdp._fully_shard._fully_shard", "fully_shard", "fully_shard"),
    ("torch.distributed._composable.fsdp.fully_shard", "fully_shard", "fully_shard"),
    ("torch.distributed.tensor.parallel.api", "parallelize_module", "parallelize_module"),
]


# the wrappers whose attribute errors users see ('DistributedDataParallel' object has no attribute 'X'):
# every member a release gives the class (methods, class attributes, self.X set in its methods)
CLASSES = [
    ("torch.nn.parallel.distributed", "DistributedDataParallel"),
    ("torch.nn.parallel.data_parallel", "DataParallel"),
    ("torch.distributed.fsdp.fully_sharded_data_parallel", "FullyShardedDataParallel"),
]


# --------------------------------------------------------------------------- reading Python sources (ast)

def module_of(path):
    """'torch/distributed/fsdp/__init__.py' -> 'torch.distributed.fsdp'; None for a non-.py file."""
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(mod, is_pkg, level, name):
    """The absolute module of a `from <level dots><name> import ...` in module ``mod``."""
    if not level:
        return name
    base = mod.split(".")
    if not is_pkg:
        base = base[:-1]
    if level > 1:
        base = base[:-(level - 1)]
    return ".".join(base + ([name] if name else []))


def _child(mod, is_pkg, imported):
    """The submodule of package ``mod`` that importing ``imported`` makes an attribute of it (the import system
    sets each imported submodule on its parent package: Python reference, "5.4.2 Submodules"): 'device_mesh' for
    `from .device_mesh import DeviceMesh` in torch/distributed/__init__.py; None otherwise."""
    if not is_pkg or not imported or not imported.startswith(mod + "."):
        return None
    return imported[len(mod) + 1:].split(".")[0]


def _body_nodes(body):
    """The statements of a module body that run at import, into if/try/with blocks (not into functions)."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from _body_nodes(node.body)
            yield from _body_nodes(node.orelse)
        elif isinstance(node, ast.Try):
            for b in (node.body, node.orelse, node.finalbody):
                yield from _body_nodes(b)
            for h in node.handlers:
                yield from _body_nodes(h.body)
        elif isinstance(node, ast.With):
            yield from _body_nodes(node.body)


def _all_extended(node):
    """The argument of a module-level `__all__.extend(X)` statement, else None."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and node.value.args:
        func = node.value.func
        if isinstance(func, ast.Attribute) and func.attr == "extend" and isinstance(func.value, ast.Name) and \
                func.value.id == "__all__":
            return node.value.args[0]
    return None


def _all_of(tree):
    """A module's __all__ when it is a literal list/tuple of strings (+= and .extend of literals too), else None."""
    out = None
    for node in _body_nodes(tree.body):
        val = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            out, val = [], node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) and \
                node.target.id == "__all__":
            if isinstance(node, ast.AnnAssign):
                out = []
            val = node.value
        elif _all_extended(node) is not None:
            val = _all_extended(node)
        if val is not None and isinstance(val, (ast.List, ast.Tuple)):
            out = (out or []) + [e.value for e in val.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return out


class Sources:
    """The .py files of one release, parsed on demand: {module: (tree, is_package)}."""

    def __init__(self, files):
        self.text = {}
        for path, src in files:
            m = module_of(path)
            if m:
                self.text[m] = (src, path.endswith("/__init__.py"))
        self._trees, self._names = {}, {}

    def tree(self, mod):
        if mod not in self._trees:
            got = self.text.get(mod)
            try:
                self._trees[mod] = (ast.parse(got[0]), got[1]) if got else None
            except SyntaxError:
                self._trees[mod] = None
        return self._trees[mod]

    def names(self, mod, depth=0):
        """Every name bound at module level of ``mod`` (star imports resolved within this release)."""
        if mod in self._names:
            return self._names[mod]
        got = self.tree(mod)
        if got is None or depth > 12:
            return set()
        self._names[mod] = set()  # an import cycle ends here
        tree, is_pkg = got
        out = set()
        for node in _body_nodes(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            out.add(n.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    out.add(a.asname or a.name.split(".")[0])
                    sub = _child(mod, is_pkg, a.name)
                    if sub:
                        out.add(sub)
            elif isinstance(node, ast.ImportFrom):
                src = _resolve(mod, is_pkg, node.level, node.module)
                sub = _child(mod, is_pkg, src)
                if sub:
                    out.add(sub)
                for a in node.names:
                    if a.name == "*":
                        out |= self.public(src, depth + 1)
                    else:
                        out.add(a.asname or a.name)
        self._names[mod] = out
        return out

    def public(self, mod, depth=0):
        """What `from mod import *` binds: __all__, else the names without a leading '_'."""
        got = self.tree(mod)
        if got is None:
            return set()
        declared = _all_of(got[0])
        if declared is not None:
            return set(declared)
        return {n for n in self.names(mod, depth) if not n.startswith("_")}

    def members(self, mod, cls):
        """Every member name of class ``cls`` of ``mod`` (private ones too), or None when it has no such class."""
        got = self.tree(mod)
        if got is None:
            return None
        found = None
        for node in _body_nodes(got[0].body):
            if isinstance(node, ast.ClassDef) and node.name == cls:
                found = node
        if found is None:
            return None
        out = set()
        for node in found.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.add(node.name)
            elif isinstance(node, ast.Assign):
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
        for node in ast.walk(found):  # self.X = ... in any method
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    out.add(t.attr)
        return sorted(out)

    def params(self, mod, qual):
        """{"args": [...], "varkw": bool} of the function ``qual`` ('f' or 'Class.method') of ``mod``, or None."""
        got = self.tree(mod)
        if got is None:
            return None
        scope = got[0].body
        parts = qual.split(".")
        for i, part in enumerate(parts):
            found = None
            for node in _body_nodes(scope):
                if getattr(node, "name", None) == part and \
                        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found = node  # the last definition wins (an `if` / `else` pair defines it twice)
            if found is None:
                return None
            if i < len(parts) - 1:
                if not isinstance(found, ast.ClassDef):
                    return None
                scope = found.body
        if not isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        a = found.args
        names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if names and names[0] in ("self", "cls") and len(parts) > 1:
            names = names[1:]
        return {"args": names, "varkw": a.kwarg is not None}


def extract(files):
    """What one release holds: {"modules": [...], "names": {module: [...]}, "params": {callable: {...}},
    "members": {class: [...]}}."""
    src = Sources(files)
    modules = sorted(m for m in src.text if not MODULE_SKIP.search(m[len("torch."):]))
    names = {}
    for mod in NAME_MODULES:
        if src.tree(mod) is not None:
            names[mod] = sorted(n for n in src.names(mod) if not n.startswith("_") and
                                (mod != "torch" or n in TOP_NAMES))
    params = {}
    for mod, qual, user in CALLABLES:
        p = src.params(mod, qual)
        if p is not None and user not in params:
            params[user] = p
    members = {}
    for mod, cls in CLASSES:
        got = src.members(mod, cls)
        if got is not None:
            members[cls] = got
    return {"modules": modules, "names": names, "params": params, "members": members}


# --------------------------------------------------------------------------- the table

def _key(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def _span(present, releases):
    """{"since": first release with it (null: already in the oldest read), "removed": the first
    release after its last one (null: still there)} over ``releases`` (sorted)."""
    have = [r for r in releases if r in present]
    first, last = have[0], have[-1]
    since = None if first == releases[0] else first
    after = releases[releases.index(last) + 1:]
    return {"since": since, "removed": after[0] if after else None}


def build(per_release, version):
    """per_release: {release: extract()}."""
    releases = sorted(per_release, key=_key)
    modules, names, params, members = {}, {}, {}, {}
    for r in releases:
        got = per_release[r]
        for m in got["modules"]:
            modules.setdefault(m, set()).add(r)
        for mod, ns in got["names"].items():
            for n in ns:
                names.setdefault(mod, {}).setdefault(n, set()).add(r)
        for cls, ms in got.get("members", {}).items():
            for n in ms:
                members.setdefault(cls, {}).setdefault(n, set()).add(r)
        for fn, p in got["params"].items():
            d = params.setdefault(fn, {"args": {}, "varkw": set()})
            for a in p["args"]:
                d["args"].setdefault(a, set()).add(r)
            if p["varkw"]:
                d["varkw"].add(r)
    fns = {}
    for fn, d in sorted(params.items()):
        known = sorted(set().union(*d["args"].values()) if d["args"] else set(), key=_key)
        fns[fn] = {"releases": [known[0], known[-1]] if known else None,
                   "args": {a: _span(rs, releases) for a, rs in sorted(d["args"].items())},
                   "varkw": sorted(d["varkw"], key=_key)}
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "generated by %s; do not edit by hand, run it again. since: the first release "
                                     "read that has it (null: already in %s, the oldest read); removed: the first "
                                     "release after its last (null: still in %s)" % (GENERATOR, releases[0],
                                                                                      releases[-1])),
            "releases": releases,
            "modules": {m: _span(rs, releases) for m, rs in sorted(modules.items())},
            "names": {mod: {n: _span(rs, releases) for n, rs in sorted(ns.items())} for mod, ns in sorted(names.items())},
            "params": fns,
            "members": {cls: {n: _span(rs, releases) for n, rs in sorted(ms.items())}
                        for cls, ms in sorted(members.items())},
            "sites": []}


# --------------------------------------------------------------------------- the record (slice)

def write_record(path, version, rows):
    """rows: [(release, wheel, sha256, extract())]. The first release is written whole; each later one as
    what it adds (m+ / n+) and drops (m- / n-) against the one before, which keeps the record small."""
    with open(path, "w") as f:
        f.write("# Recorded by tools/gen_torch_api.py --pypi --record: per torch release, the wheel read (PyPI's sha256),\n"
                "# then its modules (m), the public names of NAME_MODULES (n <module> <names>) and the parameters of\n"
                "# CALLABLES (p <callable> <args> [**]) and the members of CLASSES (c <class> <names>), as the wheel's\n"
                "# sources define them; after the first release, m+/m-/n+/n-/c+/c- give what a release adds and drops\n"
                "# against the one before.\n")
        f.write("#! version %s\n" % version)
        prev = None
        for release, wheel, sha, got in rows:
            f.write("#! release %s %s sha256=%s\n" % (release, wheel, sha))
            if prev is None:
                f.write("m %s\n" % " ".join(got["modules"]))
                for mod, ns in sorted(got["names"].items()):
                    f.write("n %s %s\n" % (mod, " ".join(ns)))
            else:
                for sign, items in (("+", sorted(set(got["modules"]) - set(prev["modules"]))),
                                    ("-", sorted(set(prev["modules"]) - set(got["modules"])))):
                    if items:
                        f.write("m%s %s\n" % (sign, " ".join(items)))
                for mod in sorted(set(got["names"]) | set(prev["names"])):
                    now, before = set(got["names"].get(mod, ())), set(prev["names"].get(mod, ()))
                    if mod in got["names"] and mod not in prev["names"]:
                        f.write("n %s %s\n" % (mod, " ".join(sorted(now))))
                    elif mod not in got["names"]:
                        f.write("n- %s\n" % mod)
                    else:
                        for sign, items in (("+", sorted(now - before)), ("-", sorted(before - now))):
                            if items:
                                f.write("n%s %s %s\n" % (sign, mod, " ".join(items)))
            for fn, p in sorted(got["params"].items()):
                f.write("p %s %s%s\n" % (fn, ",".join(p["args"]), " **" if p["varkw"] else ""))
            before_members = prev.get("members", {}) if prev else {}
            for cls, ms in sorted(got.get("members", {}).items()):
                if cls not in before_members:
                    f.write("c %s %s\n" % (cls, " ".join(ms)))
                    continue
                for sign, items in (("+", sorted(set(ms) - set(before_members[cls]))),
                                    ("-", sorted(set(before_members[cls]) - set(ms)))):
                    if items:
                        f.write("c%s %s %s\n" % (sign, cls, " ".join(items)))
            for cls in sorted(set(before_members) - set(got.get("members", {}))):
                f.write("c- %s\n" % cls)
            prev = got


def from_slice(path):
    per, version, cur, prev = {}, "slice", None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif line.startswith("#! release "):
                prev = cur
                cur = {"modules": list(prev["modules"]) if prev else [],
                       "names": {m: list(ns) for m, ns in prev["names"].items()} if prev else {}, "params": {},
                       "members": {c: list(ms) for c, ms in prev["members"].items()} if prev else {}}
                per[line.split()[2]] = cur
            elif cur is None or not line or line.startswith("#"):
                continue
            elif line.startswith(("m ", "m+ ", "m- ")):
                kind, items = line.split(" ", 1)
                if kind == "m":
                    cur["modules"] = items.split()
                elif kind == "m+":
                    cur["modules"] = sorted(set(cur["modules"]) | set(items.split()))
                else:
                    cur["modules"] = sorted(set(cur["modules"]) - set(items.split()))
            elif line.startswith(("n ", "n+ ", "n- ")):
                parts = line.split()
                kind, mod, items = parts[0], parts[1], parts[2:]
                if kind == "n":
                    cur["names"][mod] = items
                elif kind == "n+":
                    cur["names"][mod] = sorted(set(cur["names"].get(mod, ())) | set(items))
                elif items:
                    cur["names"][mod] = sorted(set(cur["names"].get(mod, ())) - set(items))
                else:
                    cur["names"].pop(mod, None)
            elif line.startswith(("c ", "c+ ", "c- ")):
                parts = line.split()
                kind, cls, items = parts[0], parts[1], parts[2:]
                if kind == "c":
                    cur["members"][cls] = items
                elif kind == "c+":
                    cur["members"][cls] = sorted(set(cur["members"].get(cls, ())) | set(items))
                elif items:
                    cur["members"][cls] = sorted(set(cur["members"].get(cls, ())) - set(items))
                else:
                    cur["members"].pop(cls, None)
            elif line.startswith("p "):
                parts = line[2:].split()
                args = [x for x in parts[1:] if x != "**"]
                cur["params"][parts[0]] = {"args": args[0].split(",") if args else [], "varkw": parts[-1] == "**"}
    return per, version


# --------------------------------------------------------------------------- PyPI, by HTTP range requests

def _get(url, start=None, end=None):
    req = urllib.request.Request(url, headers={"User-Agent": "gpudoctor-gen_torch_api"})
    if start is not None:
        req.add_header("Range", "bytes=%d-%d" % (start, end))
    with urllib.request.urlopen(req, timeout=120) as r:
        data = r.read()
        if start is not None and r.status != 206:
            raise SystemExit("%s: the server ignored the Range request" % url)
        return data


def zip_members(url, size, want):
    """{name: bytes} of the members of the remote zip at ``url`` (``size`` bytes) whose name ``want(name)``
    accepts, read with range requests: the end of central directory record (APPNOTE 4.3.16; zip64 4.3.14-15),
    the central directory (4.3.12), then each member's local header and data (4.3.7), inflated (method 8)."""
    tail = _get(url, max(0, size - 65600), size - 1)
    i = tail.rfind(b"PK\x05\x06")
    if i < 0:
        raise SystemExit("%s: no end of central directory" % url)
    cd_size, cd_off = struct.unpack("<II", tail[i + 12:i + 20])
    if cd_off == 0xFFFFFFFF or cd_size == 0xFFFFFFFF:
        j = tail.rfind(b"PK\x06\x06")
        cd_size, cd_off = struct.unpack("<QQ", tail[j + 40:j + 56])
    cd = _get(url, cd_off, cd_off + cd_size - 1)
    entries, p = [], 0
    while p + 46 <= len(cd) and cd[p:p + 4] == b"PK\x01\x02":
        method, = struct.unpack("<H", cd[p + 10:p + 12])
        csize, usize, nlen, xlen, clen = struct.unpack("<IIHHH", cd[p + 20:p + 34])
        off, = struct.unpack("<I", cd[p + 42:p + 46])
        name = cd[p + 46:p + 46 + nlen].decode("utf-8", "replace")
        extra = cd[p + 46 + nlen:p + 46 + nlen + xlen]
        if 0xFFFFFFFF in (csize, usize, off):  # zip64 extended information extra field (4.5.3)
            q = 0
            while q + 4 <= len(extra):
                tag, ln = struct.unpack("<HH", extra[q:q + 4])
                if tag == 1:
                    vals, k = extra[q + 4:q + 4 + ln], 0
                    if usize == 0xFFFFFFFF:
                        usize, = struct.unpack("<Q", vals[k:k + 8])
                        k += 8
                    if csize == 0xFFFFFFFF:
                        csize, = struct.unpack("<Q", vals[k:k + 8])
                        k += 8
                    if off == 0xFFFFFFFF:
                        off, = struct.unpack("<Q", vals[k:k + 8])
                q += 4 + ln
        if want(name):
            entries.append((name, method, csize, off))
        p += 46 + nlen + xlen + clen
    def member(entry):
        name, method, csize, off = entry
        blob = _get(url, off, off + 30 + 1024 + csize)  # local header: 30 bytes + name + extra (short)
        nlen, xlen = struct.unpack("<HH", blob[26:30])
        data = blob[30 + nlen + xlen:30 + nlen + xlen + csize]
        return name, zlib.decompress(data, -15) if method == 8 else data

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        return dict(pool.map(member, entries))


def _file_url(url):
    """The files.pythonhosted.org address of a wheel as the JSON API names it (absolute, or relative to the
    API's address through a mirror: '../../packages/packages/80/83/<hash>/torch-...whl')."""
    m = re.search(r"packages/([0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{60}/[^/]+\.whl)$", url)
    if not m:
        raise SystemExit("unexpected wheel address: %s" % url)
    return "https://files.pythonhosted.org/packages/" + m.group(1)


def from_pypi(record=None):
    meta = json.loads(_get("https://pypi.org/pypi/torch/json"))
    rows = []
    for release in sorted(meta["releases"], key=_key):
        k = _key(release)
        if not re.fullmatch(r"\d+\.\d+\.0", release) or k[:2] < FIRST:
            continue
        wheels = [f for f in meta["releases"][release] if f["filename"].endswith(".whl") and
                  "linux" in f["filename"] and "x86_64" in f["filename"] and not f.get("yanked")]
        if not wheels:
            continue
        w = sorted(wheels, key=lambda f: f["filename"])[0]
        w["url"] = _file_url(w["url"])
        print("reading %s" % w["filename"], file=sys.stderr)
        got = zip_members(w["url"], w["size"], lambda n: n.startswith(PKG_DIRS) and n.endswith(".py"))
        files = [(n, b.decode("utf-8", "replace")) for n, b in sorted(got.items())]
        rows.append((release, w["filename"], w["digests"]["sha256"], extract(files)))
    version = "%d releases, %s to %s" % (len(rows), rows[0][0], rows[-1][0])
    if record:
        write_record(record, version, rows)
    return {r[0]: r[3] for r in rows}, version


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="pypi", source_opts={"action": "store_true"},
                          extra=[("--record", {"help": "write what was read as a slice (with --pypi)"})])
    per, version = from_pypi(a.record) if a.pypi else from_slice(a.slice)
    if not per:
        a.error("no torch release read")
    doc = build(per, version)
    path = knowgen.write("torch_api", doc, a.out)
    print("%s: %d releases, %d modules, %d names, %d callables, %d classes" % (
        path, len(doc["releases"]), len(doc["modules"]), sum(len(v) for v in doc["names"].values()),
        len(doc["params"]), len(doc["members"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
