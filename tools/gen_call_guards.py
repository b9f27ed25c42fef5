#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/call_guards.json.gz: for each refusal that torch.distributed (FSDP,
FSDP2's fully_shard, DCP, DeviceMesh, DTensor, tensor parallel, DDP, c10d), torch.cuda, accelerate and transformers'
Trainer raise, the public call that reaches it and what its guard tests (callfix26, issue 18 "name the fix").

A library refuses a call under a condition its source tests (`if not self._use_orig_params: raise ValueError(...)`,
`if device_id is None: raise ...`). An expert reading the message names the API the user called, the argument or
state that test reads, and what the API's documentation says about it. This table records, per raise site, read
statically from the pinned wheels (tools/wheelmsgs.py: never imported):
  - text / re: the message format (knowgen.py_messages, the same reading every generated table uses) and its matcher;
  - func: the function or method that raises (Class.method);
  - api: the public callables that reach it: the function itself when its name and class are public, else the
    public functions / methods of the same module that call it (up to DEPTH calls up, at most MAX_API of them) - where
    static reading can tell (a call by its bare name or as an attribute `.name(`);
  - guard: the tests the raise sits under (an `if` test, `not (test)` for its else branch, an assert's test), as
    written (ast.unparse), at most MAX_GUARD characters;
  - params: the raising function's parameters that the guard reads, where they are the api's (the same name, or the
    api's own parameter handed on by name: send calls `_check_not_self_rank(group, group_dst, ...)`); inner: the others
    (a value the api computes and hands on); passed: per api, its own parameter it hands on as an inner one (send's
    group_dst reaches the check as `rank`, recv's group_src);
  - state: the attributes `self.X` the guard reads (a constructor's argument kept as `self._X` reads as X when the
    class's __init__ takes X: FSDP's `self._use_orig_params` is its use_orig_params; another private attribute is
    the library's own bookkeeping and is left out).
No family is assigned here, and the rows are the table's 'guards' (its 'sites' stay empty: knowledge.py makes no
pattern of them): explain/callguard.py reads the table
when another reading already chose the family, and names the call, the argument / state and the documented words
(generated/param_docs.json, tools/gen_param_docs.py) in the fix.

Usage:
    pip download --no-deps --only-binary :all: accelerate==1.15.0 transformers==5.24.0 -d /tmp/w
    (torch: the CPU wheel torch-2.13.0+cpu from https://download.pytorch.org/whl/cpu, here /opt/wheels)
    python tools/gen_call_guards.py --wheel /opt/wheels/torch-2.13.0+cpu-*.whl --wheel /tmp/w/accelerate-*.whl \\
        --wheel /tmp/w/transformers-*.whl [-o OUT]
    python tools/gen_call_guards.py --file PATH=FILE.py ...   (one source file read as the package path PATH: the test)

Sources: https://pypi.org/project/torch/ (BSD-3, github.com/pytorch/pytorch; torch/distributed/, torch/nn/parallel/,
torch/cuda/__init__.py), https://pypi.org/project/accelerate/ (Apache-2.0, github.com/huggingface/accelerate),
https://pypi.org/project/transformers/ (Apache-2.0, github.com/huggingface/transformers; trainer*.py,
training_args.py, modeling_utils.py, integrations/).
"""

import argparse
import ast
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_call_guards.py"
NAME = "call_guards"
DEPTH = 3  # calls walked up from a private function to a public one
MAX_API = 4
MAX_GUARD = 240
MAX_GAPS = 8  # a matcher's bounded gaps at most (tests/test_callguard_bounds26.py)
# (dist name, files of it read)
LIBS = [
    ("torch", r"^torch/(?:distributed|nn/parallel)/(?!(?:.*/)?(?:tests?|testing|benchmarks?|examples?)/)"
              r"(?:[A-Za-z_0-9]+/){0,6}[A-Za-z_0-9]+\.py$|^torch/cuda/__init__\.py$"
              # explain-usage31 (issue 18): torch's own argument checks a user's call meets - nn.functional, the nn
              # layers, torch.optim, and the torch._check(cond, lambda: msg) sites of the refs / meta kernels
              r"|^torch/nn/functional\.py$|^torch/nn/modules/[a-z_]+\.py$|^torch/optim/[a-z_]+\.py$"
              r"|^torch/_refs/(?:[a-z_]+/){0,2}[a-z_]+\.py$|^torch/_meta_registrations\.py$"
              r"|^torch/_prims_common/__init__\.py$|^torch/_decomp/decompositions\.py$"),
    ("accelerate", r"^accelerate/(?!(?:.*/)?(?:tests?|test_utils|commands)/)(?:[A-Za-z_0-9]+/){0,4}[A-Za-z_0-9]+\.py$"),
    ("transformers", r"^transformers/(?:trainer[a-z_]*|training_args|modeling_utils|integrations/[a-z_]+)\.py$"),
]


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _funcs(tree):
    """[(qualname, class name or None, FunctionDef)] of the module's functions and its classes' methods, those
    defined under a module-level `if` / `try` too (torch/distributed/device_mesh.py defines DeviceMesh and
    init_device_mesh under `if not is_available(): ... else:`)."""
    out = []

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((node.name, None, node))
            elif isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        out.append(("%s.%s" % (node.name, sub.name), node.name, sub))
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for h in getattr(node, "handlers", []):
                    visit(h.body)

    visit(tree.body)
    return out


def _dataclass_fields(tree):
    """{class: its fields} of the module's @dataclass classes (their generated __init__ takes the fields:
    TrainingArguments' bf16, fp16, ...); https://docs.python.org/3/library/dataclasses.html"""
    out = {}
    for node in knowgen.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
                "dataclass" in ast.unparse(d) for d in node.decorator_list):
            out[node.name] = {x.target.id for x in node.body
                              if isinstance(x, ast.AnnAssign) and isinstance(x.target, ast.Name)}
    return out


def _params(fn):
    a = fn.args
    return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]


def _calls(fn):
    """The names a function calls: `name(` and `.name(`."""
    out = set()
    for node in knowgen.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                out.add(f.id)
            elif isinstance(f, ast.Attribute):
                out.add(f.attr)
    return out


def _passed(fn, callers):
    """{helper parameter: the caller's parameter passed to it} where every caller that calls ``fn`` directly by name
    passes the same plain name (send calls `_check_not_self_rank(group, dst, "destination")`: rank <- dst)."""
    out, names = {}, _params(fn)  # (a method's `self.helper(a, b)` hands a, b to the parameters after self)
    for caller in callers:
        if caller is None:
            continue
        for node in knowgen.walk(caller):
            if not (isinstance(node, ast.Call) and (
                    isinstance(node.func, ast.Name) and node.func.id == fn.name or
                    isinstance(node.func, ast.Attribute) and node.func.attr == fn.name)):
                continue
            given = {}
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Name) and i < len(names):
                    given[names[i]] = arg.id
            for kw in node.keywords:
                if kw.arg and isinstance(kw.value, ast.Name):
                    given[kw.arg] = kw.value.id
            for k, v in given.items():
                if out.setdefault(k, v) != v:
                    out[k] = None
    return {k: v for k, v in out.items() if v}


def _public(qual, cls):
    name = qual.rsplit(".", 1)[-1]
    if cls is not None and _private(cls):
        return False
    return not _private(name)


def _apis(qual, cls, fn, funcs, calls, area=None):
    """The public callables of the module that reach ``fn`` (itself when public); else, with ``area`` (the public
    callables of the other modules of its folder: [(module, qual, cls, the private names it calls)]), those that call
    it or a private function of its module that reaches it (FullyShardedDataParallel.__init__ calls
    fsdp/_init_utils.py's _init_param_handle_from_module, which calls _check_single_device_module)."""
    if _public(qual, cls):
        return [qual]
    seen, frontier, found, reached = {qual}, [fn.name], [], {fn.name}
    for _ in range(DEPTH):
        nxt = []
        for q, c, f in funcs:
            if q in seen or not (calls[q] & set(frontier)):
                continue
            seen.add(q)
            if _public(q, c):
                if f.name == "__init__":
                    q = c
                found.append(q)
            else:
                nxt.append(f.name)
                reached.add(f.name)
        if found or not nxt:
            break
        frontier = nxt
    if not found and area:
        for module, q, c, called, _p in area:
            if called & reached:
                found.append("%s.%s" % (module, c if q.endswith(".__init__") else q) if c else "%s.%s" % (module, q))
        found = ["@" + x for x in found]  # (another module's: written whole)
    return sorted(set(found))[:MAX_API] if len(set(found)) <= MAX_API else []


def _guard(fn, line):
    """[(how, test node)] of the tests that the statement at ``line`` sits under within ``fn``."""
    path = []

    def walk(node):
        for field in ("body", "orelse", "handlers", "finalbody"):
            for i, child in enumerate(getattr(node, field, []) or []):
                if not hasattr(child, "lineno"):
                    continue
                end = getattr(child, "end_lineno", child.lineno)
                if child.lineno <= line <= end:
                    if isinstance(node, ast.If) and field in ("body", "orelse"):
                        path.append(("if" if field == "body" else "else", node.test))
                    if isinstance(child, ast.Assert) and child.lineno <= line <= end:
                        path.append(("assert", child.test))
                    walk(child)
                    return

    walk(fn)
    return path


def _reads(tests):
    names, attrs = set(), set()
    for _how, t in tests:
        for node in knowgen.walk(t):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                attrs.add(node.attr)
    return names, attrs


def _text(how, test):
    src = ast.unparse(test)
    if how == "else":
        return "not (%s)" % src
    # the tests are joined with 'and': an 'or' / a conditional expression keeps its own parentheses
    return "(%s)" % src if isinstance(test, (ast.BoolOp, ast.IfExp)) and not isinstance(
        getattr(test, "op", None), ast.And) else src


_CHECKS = ("_check", "_check_value", "_check_index", "_check_type", "_check_not_implemented", "_check_with")


def _check_sites(path, tree):
    """(where, format, None, [("else", cond)]) of each ``torch._check(cond, lambda: msg)`` (torch/__init__.py's
    _check family: it raises RuntimeError / ValueError / IndexError / TypeError with msg() when cond is False), the
    way torch/_refs and torch/_meta_registrations.py check a call's arguments; cond is the guard."""
    out = []
    for node in knowgen.walk(tree):
        if not (isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.func, (ast.Attribute, ast.Name))):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        if name not in _CHECKS:
            continue
        cond, msg = (node.args[1], node.args[2]) if name == "_check_with" and len(node.args) >= 3 else node.args[:2]
        if not isinstance(msg, ast.Lambda):
            continue
        fmt = knowgen.py_format(msg.body)
        if fmt:
            out.append(("%s:%d" % (path, node.lineno), " ".join(fmt.split()), None, [("else", cond)]))
    return out


def _registered_ops(tree):
    """{function name: ['torch.op', ...]} of the functions a decorator registers for aten ops
    (``@register_meta([aten.nll_loss_forward.default, ...])``, ``@register_decomposition(aten.addmm)``,
    ``@out_wrapper()`` aside): the op's torch function is the call the user wrote."""
    out = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names = []
        for dec in node.decorator_list:
            if not isinstance(dec, ast.Call) or not isinstance(dec.func, (ast.Name, ast.Attribute)):
                continue
            for arg in dec.args:
                for sub in knowgen.walk(arg):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "aten":
                        op = sub.attr
                        if not op.startswith("_") and op.rstrip("_") and "torch." + op not in names:
                            names.append("torch." + op)
        if names:
            out[node.name] = names[:4]
    return out


def _module(path):
    module = path[:-3].replace("/", ".")
    return module[:-len(".__init__")] if module.endswith(".__init__") else module


def _area(path):
    """The folder whose modules' public callables may reach a private function of ``path`` (torch/distributed/fsdp)."""
    return "/".join(path.split("/")[:3]) if path.count("/") >= 3 else path.rsplit("/", 1)[0]


def areas(files):
    """{folder: [(module, qual, cls, the private names it calls, its parameters)]} of the public callables of
    ``files``."""
    out = {}
    for path, src in files:
        try:
            tree = knowgen.parse_py(src)
        except SyntaxError:
            continue
        for q, c, f in _funcs(tree):
            if _public(q, c):
                called = {n for n in _calls(f) if _private(n)}
                if called:
                    out.setdefault(_area(path), []).append((_module(path), q, c, called, tuple(_params(f))))
    return out


def sites_of_file(path, src, version, area=None):
    """The rows of one source file (``path``: its package path, torch/distributed/device_mesh.py; ``area``: the
    public callables of its folder, areas())."""
    try:
        tree = knowgen.parse_py(src)
    except SyntaxError:
        return []
    funcs = _funcs(tree)
    calls = {q: _calls(f) for q, _c, f in funcs}
    inits = {c: set(_params(f)) for q, c, f in funcs if c and f.name == "__init__"}
    inits.update(_dataclass_fields(tree))
    module = _module(path)
    mine = [x for x in (area or []) if x[0] != module]
    rows = []
    found = [(w, f, first, []) for level, w, f, first in wheelmsgs.sites_of(path, [src]) if level == "raise"]
    found += _check_sites(path, tree)
    ops = _registered_ops(tree)
    for where, fmt, first, extra in found:
        if not knowgen.own_enough(fmt):
            continue
        line = int(where.rsplit(":", 1)[1])
        owner = [(q, c, f) for q, c, f in funcs if f.lineno <= line <= f.end_lineno]
        if not owner:
            continue
        qual, cls, fn = owner[-1]
        tests = _guard(fn, line) + extra
        names, attrs = _reads(tests)
        apis = _apis(qual, cls, fn, funcs, calls, mine)
        other = [a[1:] for a in apis if a.startswith("@")]
        apis = [a for a in apis if not a.startswith("@")]
        # a private helper's parameter is named only when the public call has one of that name (send's dst reaches
        # _check_not_self_rank as `rank`: not a name the user wrote)
        byq = {q: f for q, _c, f in funcs}
        api_params = set()
        for a in apis:
            f = byq.get(a) or byq.get(a + ".__init__")
            api_params.update(_params(f) if f is not None else ())
        for m, q, c, _called, ps in mine:
            if "%s.%s" % (m, c if q.endswith(".__init__") else q) in other:
                api_params.update(ps)  # (another module's public call: its parameters of the same name)
        renamed = _passed(fn, [byq.get(a) or byq.get(a + ".__init__") for a in apis]) if qual not in apis else {}
        params, inner = [], []
        for p in _params(fn):
            if p not in names:
                continue
            if qual in apis or p in api_params:
                params.append(p)
            elif renamed.get(p) in api_params:
                params.append(renamed[p])  # the public call's own argument handed on under this name
            else:
                inner.append(p)  # what the public call computes and hands on under this name
        # per public call, its own argument it hands on as an inner one (send: rank <- group_dst, recv: <- group_src)
        passed = {}
        for a in apis:
            f = byq.get(a) or byq.get(a + ".__init__")
            if f is None or qual in apis:
                continue
            got = {k: v for k, v in _passed(fn, [f]).items() if k in inner and v in _params(f)}
            if got:
                passed["%s.%s" % (module, a)] = got
        state = []
        for a in sorted(attrs):
            bare = a.lstrip("_")
            if cls and bare in inits.get(cls, ()):
                state.append(bare)
            elif not a.startswith("_"):
                state.append("self." + a)  # (a private attribute no constructor argument sets: not the user's)
        rx, _lit = knowgen.matcher(fmt, first)
        if rx is None or len(re.findall(r"\{0,\d+\}", rx)) > MAX_GAPS:
            continue  # (a format of many fields, the meta kernels' scaled_mm shapes: its matcher would backtrack)
        guard = " and ".join(_text(h, t) for h, t in tests)
        # a meta kernel / ref registered for aten ops: the torch functions of those ops are what the user called
        top = qual.split(".", 1)[0]
        other = other + [o for o in ops.get(top, ()) if o not in other]
        if ops.get(top) and params == [] and inner:
            params, inner = inner, []  # (the kernel's parameters are the op's schema arguments, the user's)
        rows.append({"where": where, "text": fmt, "re": rx, "func": "%s.%s" % (module, qual),
                     "api": [o for o in other if ops.get(top) and o in ops[top]] + [
                         "%s.%s" % (module, a) for a in apis] + [o for o in other if not (ops.get(top) and o in ops[top])], "guard": guard[:MAX_GUARD],
                     "params": params, "inner": inner, "passed": passed, "state": state, "package": path.split("/", 1)[0]})
    return rows


def build(files, version):
    ids, sites = set(), []
    folders = areas(files)
    for path, src in files:
        for row in sites_of_file(path, src, version, folders.get(_area(path))):
            row["id"] = knowgen.unique_id("%s.%s" % (NAME, knowgen.slug(row["text"])[:60]), ids)
            sites.append(row)
    # one text raised at sites of different calls: the calls all stay listed (the traceback's frame picks one)
    return {"header": knowgen.header(
        "the PyPI releases (https://pypi.org/project/<name>/; torch's CPU wheel from "
        "https://download.pytorch.org/whl/cpu): %s" % version, version, GENERATOR,
        "raise sites of torch.distributed / torch.cuda / accelerate / transformers' Trainer: the public call that "
        "reaches each, the tests guarding it and the arguments / state they read; no family (read by "
        "explain/callguard.py)"), "sites": [], "guards": sites}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", action="append", default=[])
    ap.add_argument("--file", action="append", default=[], help="PATH=FILE: one source read as package path PATH")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    files, versions = [], []
    for pattern in a.wheel:
        for whl in sorted(glob.glob(pattern))[-1:]:
            dist = os.path.basename(whl).split("-", 1)[0]
            rx = dict(LIBS).get(dist)
            if rx is None:
                raise SystemExit("%s: not one of %s" % (whl, ", ".join(d for d, _ in LIBS)))
            f, v = wheelmsgs.from_wheel(whl, rx, dist)
            files += f
            versions.append(v.split(" (")[0])
    for spec in a.file:
        path, _, real = spec.partition("=")
        with open(real, encoding="utf-8") as f:
            files.append((path, f.read()))
        versions.append("file %s" % path)
    if not files:
        raise SystemExit("nothing to read: give --wheel or --file")
    doc = build(files, ", ".join(versions))
    # (its rows are 'guards', not 'sites': no message pattern, nor a row of docs/explain.md's coverage table, is made
    # of them; param_docs.json keeps 'sites' empty the same way)
    path = knowgen.write(NAME, doc, a.out)
    g = doc["guards"]
    print("%s: %d raise sites, %d with a public call, %d reading an argument or a state" % (
        path, len(g), sum(1 for x in g if x["api"]), sum(1 for x in g if x["params"] or x["state"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
