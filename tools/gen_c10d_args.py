#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/c10d_args.json: for each argument check c10d's C++ backends make
(Utils.hpp's assert* helpers, reported as "ProcessGroupGloo::<op>: <message>"), the test it makes, and, for each
public torch.distributed collective that reaches the backend's op, which argument of the Python call became the
value the test read (callarg29, issue 18 "name the fix").

A refusal such as `ProcessGroupGloo::broadcast: invalid root rank: 2` is raised in C++, where no Python raise site
exists (tools/gen_call_guards.py reads only Python). Its message is one of Utils.hpp's helpers
(`assertRootRank(fn, rank, size)`: `if (rank < 0 || rank >= size) fn("invalid root rank: " + ...)`), prefixed by the
backend's op. The Python collective builds the op's arguments from its own: `opts.rootRank = group_src` with
`group_src = _canonicalize_group_rank(group, src, group_src, ...)`, `group.scatter(output_tensors, input_tensors,
opts)` with `input_tensors = [scatter_list]`. This table records, all read from the one pinned torch wheel (never
imported; C++ headers ship in it under torch/include/):
  - helpers: each `inline void assert*(std::function<void(const std::string&)> fn, ...)` of
    torch/csrc/distributed/c10d/Utils.hpp: its parameters, the test under which it calls fn (as written), the
    message's literal start (its matcher), and what it reads: `rank` (a root rank: the op's options' rootRank),
    `input` / `output` (the message names the op's input or output tensor list), else `tensors` (the tensor list it
    is handed);
  - ops: each method of ProcessGroup.hpp (what Python calls: `group.all_gather_single(...)`) and of
    ProcessGroupGloo.hpp (its tensor parameters, in order) and the rootRank field of its options struct (Types.hpp);
  - calls: each public function of torch/distributed/distributed_c10d.py that calls `<group>.<op>(...)`: per
    positional argument of that call, the function's parameters it is made of (following local assignments:
    `input_tensors = [scatter_list]`), and the parameters `opts.rootRank` is made of; `group` and `async_op` are
    the call's context, not the value, and are left out.
  - checks / check_params / signature / index: per public function, the module's private checks (`_check*`,
    `_ensure*`) it hands its own arguments to (which argument to which parameter of the check), the checks'
    parameters, the public functions' parameters in order, and each `param[<int>]` a function reads (an empty list
    there raises IndexError: `_check_p2p_op_list` reads `p2p_op_list[0]`, barrier `device_ids[0]`).
No family is assigned (`sites` stays empty: knowledge.py makes no pattern of it); explain/callarg.py reads it when
the root's traceback goes from the user's line into one of these collectives.

Usage:
    (the CPU wheel torch-2.13.0+cpu from https://download.pytorch.org/whl/cpu)
    python tools/gen_c10d_args.py --wheel /opt/wheels/torch-2.13.0+cpu-*.whl [-o OUT]
        (writes tools/data/c10d_args_slice.txt.gz too: the four files' pieces it reads)
    python tools/gen_c10d_args.py --slice tools/data/c10d_args_slice.txt.gz -o OUT   (the test)

Sources: torch (https://pypi.org/project/torch/, BSD-3-Clause, github.com/pytorch/pytorch):
torch/include/torch/csrc/distributed/c10d/{Utils.hpp,ProcessGroupGloo.hpp,Types.hpp} and
torch/distributed/distributed_c10d.py of the wheel; ProcessGroupNCCL.cpp's statements as tools/data/
torch_cpp_source.txt pins them (copied from https://github.com/pytorch/pytorch at the commit its header names; a
CPU wheel has no ProcessGroupNCCL): its tensor refusals ("Tensors must be contiguous", "input tensor must be the
same size as output size times world size"), each with the test before it and what it reads by its words
(table key "nccl").
"""

import argparse
import ast
import os
import re
import sys
import textwrap
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_c10d_args.py"
NAME = "c10d_args"
SLICE = os.path.join(knowgen.DATA, "c10d_args_slice.txt.gz")
INC = "torch/include/torch/csrc/distributed/c10d/"
FILES = [INC + "Utils.hpp", INC + "ProcessGroupGloo.hpp", INC + "ProcessGroup.hpp", INC + "Types.hpp",
         "torch/distributed/distributed_c10d.py"]
BACKEND = "ProcessGroupGloo"
CONTEXT = {"group", "async_op"}  # a collective's parameters that say where / how, not the value a check reads

_HELPER = re.compile(r"inline void (assert\w+)\(\s*(?:const )?std::function<void\(const std::string&\)>&? fn,"
                     r"(.*?)\)\s*\{", re.S)
_OP = re.compile(r"c10::intrusive_ptr<Work> ([a-z_]+)\(([^;]*?)\)\s*override;", re.S)
# ProcessGroup.hpp: the methods Python calls (`group.all_gather_single(...)`), each dispatching to its backend
_PG_OP = re.compile(r"virtual c10::intrusive_ptr<Work> ([a-z_]+)\(([^;{]*?)\)\s*\{", re.S)
_OPTS = re.compile(r"struct (\w+Options)\s*(?::\s*\w+\s*)?\{([^}]*)\}", re.S)


def _block(src, i):
    """The text of the brace block whose '{' is at src[i-1]."""
    depth, j = 1, i
    while j < len(src) and depth:
        depth += {"{": 1, "}": -1}.get(src[j], 0)
        j += 1
    return src[i:j - 1]


def _literal_start(args):
    """The string literals at the start of a C++ `+` chain, joined ("invalid root rank: " + std::to_string(r))."""
    out = []
    for part in re.split(r"\s*\+\s*", args.strip()):
        m = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', part.strip())
        if not m:
            break
        out.append(m.group(1))
    return "".join(out)


def helpers(src):
    """[{name, params, test, text, reads}] of Utils.hpp's assert helpers that report through fn."""
    out = []
    for m in _HELPER.finditer(src):
        body = _block(src, m.end())
        params = [p.split()[-1].lstrip("&*") for p in m.group(2).split(",") if p.strip()]
        for c in re.finditer(r"if \(([^{};]*?)\)\s*\{\s*fn\(", body):
            args = knowgen.call_args(body, c.end())
            text = _literal_start(args[0]) if args else ""
            if len(text) < 12:
                continue
            low = text.lower()
            # what the test reads, by the message's own words: a root rank (the op's options' rootRank), the root
            # tensor (an index no public collective sets), the op's input or its output tensor list, or both / the
            # one list the op is handed
            reads = ("rank" if "root rank" in low else "root_tensor" if "root tensor" in low else
                     "tensors" if "input" in low and "output" in low else
                     "input" if "input" in low else "output" if "output" in low else "tensors")
            out.append({"helper": m.group(1), "params": params, "test": " ".join(c.group(1).split()),
                        "text": text, "reads": reads})
    return out


def ops(hpp, types, pg=""):
    """{op: {"tensors": [tensor parameter names], "options": struct, "root": bool}} of the backend's methods and
    of ProcessGroup's (``pg``: the names Python calls; a backend's own name kept where ProcessGroup has none)."""
    fields = {m.group(1): m.group(2) for m in _OPTS.finditer(types)}
    out = {}
    for m in list(_OP.finditer(hpp)) + list(_PG_OP.finditer(pg)):
        ps = [p.strip() for p in m.group(2).split(",")]
        tensors = [p.split()[-1].lstrip("&*") for p in ps if "Tensor" in p and "=" not in p]
        opt = next((re.search(r"(\w+Options)&", p).group(1) for p in ps if re.search(r"\w+Options&", p)), None)
        out[m.group(1)] = {"tensors": tensors, "options": opt,
                           "root": bool(opt and re.search(r"\brootRank\b", fields.get(opt, "")))}
    return out


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _origins(fn):
    """{local name: the function's parameters it is made of}, through the function's assignments (to a fixpoint)."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
    flow = {p: {p} for p in params}
    assigns = [(t.id, n.value) for n in ast.walk(fn) if isinstance(n, ast.Assign)
               for t in n.targets if isinstance(t, ast.Name)]
    for _ in range(6):
        changed = False
        for name, value in assigns:
            got = set().union(*(flow.get(v, set()) for v in _names(value))) if _names(value) else set()
            if not got <= flow.get(name, set()):
                flow[name] = flow.get(name, set()) | got
                changed = True
        if not changed:
            break
    return params, flow


def calls(src, backend_ops):
    """[{api, op, line, args: [[params] per positional argument], root: [params]}] of distributed_c10d.py's public
    functions that call a backend op."""
    out = []
    tree = ast.parse(src)
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
            continue
        params, flow = _origins(fn)

        def of(node):
            got = set()
            for v in _names(node):
                got |= flow.get(v, set())
            return sorted(p for p in got if p not in CONTEXT)

        root = []
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "rootRank"
                                                 for t in n.targets):
                root = sorted(set(root) | set(of(n.value)))
        # the module's private checks the collective hands its own arguments to (`_ensure_all_tensors_same_dtype(
        # tensor_list, tensor)`): their raise sites are callguard's (call_guards.json), the arguments are the call's
        private = {}
        for n in ast.walk(fn):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.startswith("_check")
                    or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.startswith("_ensure")):
                got = [of(a) for a in n.args if not isinstance(a, ast.Constant)]
                if any(got):
                    private.setdefault(n.func.id, got)
        for n in ast.walk(fn):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in backend_ops
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in ("group", "pg", "default_pg")):
                args = [of(a) for a in n.args if not (isinstance(a, ast.Name) and a.id == "opts")]
                kw = {k.arg: of(k.value) for k in n.keywords if k.arg and k.arg != "opts"}
                names = backend_ops[n.func.attr]["tensors"]
                for k, v in kw.items():
                    if k in names:
                        while len(args) <= names.index(k):
                            args.append([])
                        args[names.index(k)] = v
                out.append({"api": "torch.distributed." + fn.name, "op": n.func.attr, "params": params,
                            "args": args, "root": root if backend_ops[n.func.attr]["root"] else [],
                            "checks": private})
    return out


def _indexes(fn):
    """[[parameter, index]] of the function's `param[<int>]` reads: an empty list there is an IndexError."""
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    out = []
    for n in ast.walk(fn):
        if (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in params
                and isinstance(n.slice, ast.Constant) and type(n.slice.value) is int
                and [n.value.id, n.slice.value] not in out):
            out.append([n.value.id, n.slice.value])
    return out


def _private_checks(fn):
    return {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id.startswith(("_check", "_ensure"))}


def module_checks(src):
    """{"checks": {api: {private check: [[the api's parameters] per argument]}}, "check_params": {private check:
    [its parameters]}, "index": {function: [[parameter, index]]}} of distributed_c10d.py: which of a collective's
    arguments each of the module's private checks receives, and where a function indexes a parameter."""
    tree = ast.parse(src)
    checks, check_params, index, signature = {}, {}, {}, {}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        if fn.name.startswith(("_check", "_ensure")):
            check_params[fn.name] = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        got = _indexes(fn)
        if got and (not fn.name.startswith("_") or fn.name.startswith(("_check", "_ensure"))):
            index[fn.name] = got
        if fn.name.startswith("_"):
            continue
        params, flow = _origins(fn)
        mine = {}
        for n in ast.walk(fn):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.startswith(("_check", "_ensure")):
                args = [sorted(set().union(*(flow.get(v, set()) for v in _names(a))) - CONTEXT) if _names(a) else []
                        for a in n.args]
                if any(args):
                    mine.setdefault(n.func.id, args)
        if mine:
            checks["torch.distributed." + fn.name] = mine
        if mine or got:
            signature["torch.distributed." + fn.name] = params
    return {"checks": checks, "check_params": check_params, "index": index, "signature": signature}


# ProcessGroupNCCL.cpp's statements, pinned in the repository (tools/data/torch_cpp_source.txt: copied from
# pytorch/pytorch at the commit its header names; a CPU wheel holds no ProcessGroupNCCL)
NCCL_CPP = "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
_THROW = re.compile(r"\b(C10_THROW_ERROR|TORCH_CHECK_WITH|TORCH_CHECK)\(")
_LIT = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')


def _lits(arg):
    """The leading string literals of a C++ argument joined: `"a " "b"`, `c10::str("a ", x, ...)`, `"a" + x`."""
    arg = arg.strip()
    m = re.match(r"c10::str\(", arg)
    if m:
        inner = knowgen.call_args(arg, m.end()) or []
        out = []
        for a in inner:
            got = _lits(a)
            if not got or got != a.strip().strip('"'):
                out.append(got)
                break
            out.append(got)
        return "".join(out)
    out, i = [], 0
    while True:
        m = _LIT.match(arg, i)
        if not m:
            break
        out.append(knowgen.c_unescape(m.group(1)))
        i = m.end()
    return "".join(out)


def nccl_checks(blocks):
    """[{text, test, reads, re}] of ProcessGroupNCCL.cpp's refusals that speak of tensors: the message's literal
    start, the test it is raised under (TORCH_CHECK's condition as `!(cond)`, or the `if (...)` right before a
    C10_THROW_ERROR), and what it reads by its words (the op's input or output tensor, else its tensors)."""
    out, seen = [], set()
    for text in blocks:
        for m in _THROW.finditer(text):
            args = knowgen.call_args(text, m.end()) or []
            if m.group(1) == "C10_THROW_ERROR":
                cond, lits = None, args[1:]
            elif m.group(1) == "TORCH_CHECK_WITH":
                cond, lits = (args[1] if len(args) > 1 else None), args[2:]
            else:
                cond, lits = (args[0] if args else None), args[1:]
            msg = "".join(_lits(a) for a in lits[:1])
            if len(msg) < 16 or "ensor" not in msg or "::" in msg or msg in seen:
                continue
            seen.add(msg)
            if cond:
                test = "!(%s)" % " ".join(cond.split())
            else:
                before = text[max(0, m.start() - 300):m.start()]
                g = re.search(r"if \(([^{};]*)\)\s*\{\s*$", before)
                test = " ".join(g.group(1).split()) if g else ""
            low = msg.lower()
            reads = ("tensors" if "input" in low and "output" in low else "input" if low.startswith("input tensor")
                     else "output" if low.startswith("output tensor") else "tensors")
            out.append({"text": msg, "test": test, "reads": reads,
                        "re": knowgen.printf_to_regex(msg.replace("%", "%%"))[0]})
    return out


def aliases(src, rows):
    """Rows for the public functions that only hand their arguments on to a collective of the table
    (`def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False): return
    all_gather_single(output_tensor, input_tensor, group, async_op)`, torch 2.13; the name older releases raise
    under): the target's row with its parameters renamed to the alias's."""
    by = {r["api"].rsplit(".", 1)[-1]: r for r in rows}
    out = []
    for fn in ast.parse(src).body:
        if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_") or fn.name in by:
            continue
        own = [a.arg for a in fn.args.args]
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Return) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                    and n.value.func.id in by):
                continue
            target = by[n.value.func.id]
            if not all(isinstance(a, ast.Name) and a.id in own for a in n.value.args) or n.value.keywords:
                continue
            rename = {t: a.id for t, a in zip(target["params"], n.value.args)}
            row = dict(target, api="torch.distributed." + fn.name, params=own,
                       args=[[rename.get(p, p) for p in a] for a in target["args"]],
                       root=[rename.get(p, p) for p in target["root"]],
                       checks={k: [[rename.get(p, p) for p in a] for a in v] for k, v in target["checks"].items()})
            out.append(row)
            break
    return out


def build(files, version):
    src = dict(files)
    hs = helpers(src[INC + "Utils.hpp"])
    backend_ops = ops(src[INC + "ProcessGroupGloo.hpp"], src[INC + "Types.hpp"], src.get(INC + "ProcessGroup.hpp", ""))
    cs = calls(src["torch/distributed/distributed_c10d.py"], backend_ops)
    cs += aliases(src["torch/distributed/distributed_c10d.py"], cs)
    for h in hs:
        h["re"] = knowgen.printf_to_regex(h["text"].replace("%", "%%"))[0]
    return {"header": knowgen.header(
        "the torch wheel (https://pypi.org/project/torch/; the CPU build from https://download.pytorch.org/whl/cpu): "
        "torch/include/torch/csrc/distributed/c10d/Utils.hpp, ProcessGroupGloo.hpp, Types.hpp and "
        "torch/distributed/distributed_c10d.py", version, GENERATOR,
        "c10d's C++ argument checks (Utils.hpp) and the Python collective argument each reads; no family "
        "(read by explain/callarg.py)"),
        "sites": [], "backend": BACKEND, "helpers": hs, "ops": backend_ops, "calls": cs,
        "nccl": nccl_checks([t for n, t in files if n == NCCL_CPP]),
        **module_checks(src["torch/distributed/distributed_c10d.py"])}


def _py_slice(src):
    """The functions of distributed_c10d.py this generator reads, each as its own top-level source: the public ones
    that call a backend op, call a private check or index a parameter, and the private checks themselves."""
    tree = ast.parse(src)
    keep = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        seg = ast.get_source_segment(src, fn)
        public = not fn.name.startswith("_")
        alias = public and re.search(r"\n\s*return [a-z_]+\(", seg)
        if (fn.name.startswith(("_check", "_ensure")) or alias or public and (
                re.search(r"\b(?:group|pg|default_pg)\.[a-z_]+\(", seg) or _private_checks(fn) or _indexes(fn))):
            keep.append(textwrap.dedent(seg).replace("\n=== ", "\n ===").rstrip() + "\n")
    return "\n".join(keep)


def from_wheel(path):
    with zipfile.ZipFile(path) as z:
        files = [(f, z.read(f).decode("utf-8")) for f in FILES]
        version = next((n.split("/")[0][len("torch-"):-len(".dist-info")] for n in z.namelist()
                        if n.startswith("torch-") and n.endswith(".dist-info/METADATA")), "unknown")
    cpp, cpp_version = knowgen.read_slice(os.path.join(knowgen.DATA, "torch_cpp_source.txt"))
    nccl = [(n, t) for n, t in cpp if n == NCCL_CPP]
    return files + nccl, "torch %s; %s" % (version, cpp_version.split(",")[0])


def write_slice(files, version, path=SLICE):
    parts = ["#! version %s\n# %s: the pieces of the torch wheel it reads (Utils.hpp's assert helpers, "
             "ProcessGroupGloo.hpp's methods, Types.hpp's options, the public collectives of "
             "distributed_c10d.py that call a backend op); BSD-3-Clause, https://github.com/pytorch/pytorch\n"
             % (version, GENERATOR)]
    for name, text in files:
        if name == NCCL_CPP:
            parts.append("=== %s\n%s\n" % (name, text))
            continue
        if name.endswith("Utils.hpp"):
            text = "\n".join("inline void %s%s}\n" % (m.group(0)[len("inline void "):], _block(text, m.end()))
                             for m in _HELPER.finditer(text))
        elif name.endswith("ProcessGroupGloo.hpp"):
            text = "\n".join(m.group(0) for m in _OP.finditer(text))
        elif name.endswith("ProcessGroup.hpp"):
            text = "\n".join(m.group(0) + "\n  }" for m in _PG_OP.finditer(text))
        elif name.endswith("Types.hpp"):
            text = "\n".join(m.group(0) for m in _OPTS.finditer(text))
        else:
            text = _py_slice(text)
        parts.append("=== %s\n%s\n" % (name, text))
    knowgen.save_text(path, "".join(parts))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel")
    ap.add_argument("--slice")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if a.wheel:
        files, version = from_wheel(a.wheel)
        write_slice(files, version)
    else:
        files, version = knowgen.read_slice(a.slice or SLICE)
    doc = build(files, version)
    path = knowgen.write(NAME, doc, a.out)
    print("%s: %d helpers, %d ops, %d calls" % (path, len(doc["helpers"]), len(doc["ops"]), len(doc["calls"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
