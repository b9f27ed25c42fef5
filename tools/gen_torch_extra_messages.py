#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/torch_extra_messages.json: three kinds of torch message the other torch
generators do not read (gen_torch_messages.py reads torch.distributed's raise and logger statements,
gen_torch_core_messages.py torch's core and torch.compile's): a tensor-parallel plan that names no submodule (a
warning, after which the model trains unsharded), a checkpoint shard that is not where torch.distributed.checkpoint
(DCP) looks for it, and torch.compile's dynamic-shape constraints violated (mark_dynamic on a size the code made a
constant).

Read from the torch wheel (PyPI), never executed:
  - torch/distributed/tensor/parallel/api.py: its warnings.warn texts (parallelize_module: a plan key that resolves
    to no submodule is skipped, an empty plan does nothing), which are the failure: WARNING_RULES;
  - torch/distributed/checkpoint/filesystem.py: the names DCP gives the files of a checkpoint (the shard files
    `f"{prefix}{file_count}{DEFAULT_SUFFIX}"` with `prefix = f"__{rank}_"`, DEFAULT_SUFFIX, and the metadata file
    `_metadata_fn`), each read from its assignment, and the line Python prints when the file one rank opens is not
    there (FileNotFoundError's str, CPython Objects/exceptions.c OSError_str: "[Errno 2] No such file or directory:
    '<path>'"): a site per file kind;
  - torch/fx/experimental/symbolic_shapes.py: the ConstraintViolationError raise (`Constraints violated (%s)! ...`)
    and each message handed to its record_constraint_violation(warn_only, name, msg) helper, a literal or a name
    assigned within NEAR lines above (printed after it as '  - <msg>'): `You marked %s as dynamic but your code
    specialized it to be a constant (%s). ...`.
Each becomes a bounded matcher assigned to a knowledge entry (knowledge/torch_extra.toml) by RULES; MSG_FIX gives a
message its own meaning and fix, written from the code that prints it and PyTorch's documentation.

Usage:
    pip download --no-deps --only-binary :all: torch==2.14.1 -d /tmp/w
    python tools/gen_torch_extra_messages.py --wheel /tmp/w/torch-2.14.1-cp311-cp311-manylinux_2_28_x86_64.whl \\
        --older 2.4.1 [--record tools/data/torch_extra_messages_slice.txt] [-o OUT]
        (--older: an older release's FILES read from its PyPI wheel by range requests, as gen_torch_core_messages.py
        reads them: torch <= 2.5 worded a specialized dynamic size 'Not all values of %s are valid because %s was
        inferred to be a constant (%s).')
    python tools/gen_torch_extra_messages.py --slice tools/data/torch_extra_messages_slice.txt -o OUT   (the test)

Source: torch (https://pypi.org/project/torch/, BSD-3-Clause; https://github.com/pytorch/pytorch:
torch/distributed/tensor/parallel/api.py, torch/distributed/checkpoint/filesystem.py,
torch/fx/experimental/symbolic_shapes.py). The regenerated table read torch 2.14.1 and the older 2.4.1.
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_torch_extra_messages.py"
TP = "torch/distributed/tensor/parallel/api.py"
DCP = "torch/distributed/checkpoint/filesystem.py"
SYM = "torch/fx/experimental/symbolic_shapes.py"
FILES = r"^torch/(?:distributed/tensor/parallel/api|distributed/checkpoint/filesystem|fx/experimental/symbolic_shapes)\.py$"
NEAR = wheelmsgs.NEAR
HELPER = "record_constraint_violation"
# CPython's FileNotFoundError line for a path (Objects/exceptions.c OSError_str: "[Errno %S] %S: %R"; the repr quotes)
NO_FILE = "[Errno 2] No such file or directory: '%s'"

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("dcp-files", "torch.dcp_files", {"where": r"^torch/distributed/checkpoint/filesystem\.py:",
                                      "text": r"^\[Errno 2\] No such file or directory: "}),
    ("dynamic-constraints", "compile.dynamic_constraint", {"where": r"^torch/fx/experimental/symbolic_shapes\.py:",
                                                           "text": r"^Constraints violated|as dynamic but your code "
                                                                   r"specialized it|^Not all values of %s|^The values "
                                                                   r"of %s = %s"}),
]
# warnings that are the failure: (rule, knowledge entry, regex over the text)
WARNING_RULES = [
    ("tp-plan", "torch.tp_plan", r"^Parallelize plan key '%s' could not be resolved|^No parallelize_plan is provided"),
]

_DCP_DOC = "https://docs.pytorch.org/docs/stable/distributed.checkpoint.html"
MSG_FIX = [
    (r"^Parallelize plan key '%s' could not be resolved",
     "torch/distributed/tensor/parallel/api.py parallelize_module(): a key of the plan names no submodule of the "
     "module (the plan was written for another model's names: fc1 / fc2 where the module has w1 / w2), so that "
     "entry is skipped with this warning; with every entry skipped nothing is sharded and each rank trains the full "
     "model (its parameter count and memory are those of the whole model).",
     ["write the plan's keys with the module's own submodule names (print(model) or [n for n, _ in "
      "model.named_modules()] lists them), e.g. {'w1': ColwiseParallel(), 'w2': RowwiseParallel()}; a key may use "
      "'*' for one level of a path ('layers.*.attention.wq'); check after parallelize_module that the weights are "
      "DTensors"]),
    (r"^No parallelize_plan is provided",
     "parallelize_module() was called without a plan and does nothing: the module stays unsharded.",
     ["pass the plan: parallelize_module(model, mesh, {'<submodule name>': ColwiseParallel(), ...})"]),
    (r"__%d_%d\.distcp'",
     "torch.distributed.checkpoint names each rank's shard file __<rank>_<n>.distcp inside the one checkpoint "
     "directory (checkpoint_id), and one .metadata file there that lists every rank's shards: a rank opened a shard "
     "file that is not in that directory, because the ranks saved to different directories (a checkpoint_id with "
     "the rank in it) or to a node-local disk the other ranks cannot see, or the directory was copied without some "
     "shards.",
     ["save and load with the same checkpoint_id on every rank (one directory, e.g. f'checkpoints/step{step}', never "
      "with the rank in it) on a filesystem all ranks share; the directory must hold the .metadata and every "
      "__<rank>_<n>.distcp; " + _DCP_DOC]),
    (r"/\.metadata'",
     "torch.distributed.checkpoint's load reads <checkpoint_id>/.metadata, which the save writes last, once, from the "
     "coordinator rank: the directory given to load is not a finished DCP checkpoint (another path, a save that "
     "stopped early, or a per-rank directory where only rank 0's holds the metadata).",
     ["load from the directory the save was given (the same checkpoint_id on every rank, on a shared filesystem) "
      "and check that it holds .metadata; " + _DCP_DOC]),
    (r"as dynamic but your code specialized it to be a constant|was inferred to be a constant \(%s\)",
     "torch/fx/experimental/symbolic_shapes.py: the size was marked dynamic (torch._dynamo.mark_dynamic, or "
     "Dim.DYNAMIC in torch.export), but the traced code made it a constant: it uses the size as a fixed number (a "
     "stored batch size in reshape / view, a Python int it computed from the shape, a branch on the size), so the "
     "graph would only be valid for that one value.",
     ["derive the size from the input instead of a constant: x.shape[0] / x.size(0) (h.reshape(x.shape[0], -1), or "
      "h.flatten(1)) where the code hard-codes it; or, when the size really is fixed, drop mark_dynamic (or use "
      "torch._dynamo.maybe_mark_dynamic / Dim.AUTO, which allow specialization); TORCH_LOGS=\"+dynamic\" names the "
      "line that specialized it"]),
    (r"^Constraints violated \(%s\)!",
     "torch.compile / torch.export's dynamic shapes (torch/fx/experimental/symbolic_shapes.py produce_guards): a size "
     "the code marked dynamic (mark_dynamic, Dim.DYNAMIC) cannot be: the traced code constrained or specialized it; "
     "the lines after this one say which and why.",
     ["read the '  - ' lines after it: a size the code hard-codes -> derive it from x.shape[0] (or flatten(1)) "
      "instead of a constant; a range it narrows -> give mark_dynamic(min=, max=) that range; or drop the "
      "mark_dynamic (maybe_mark_dynamic)"]),
]


def _assigned_text(tree, name, line):
    """The format of the last `name = <message>` within NEAR lines above ``line`` (py_format), or None."""
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id == name and line - NEAR <= node.lineno < line:
            fmt = _fmt(node.value)
            if fmt and (best is None or node.lineno > best[0]):
                best = (node.lineno, fmt)
    return best


def _fmt(node):
    """py_format of a message, a `"..." + ("..." if c else "")` tail of a conditional left out."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.right, ast.IfExp):
        node = node.left
    fmt = knowgen.py_format(node)
    return " ".join(fmt.split()) if fmt and re.search(r"[A-Za-z]{3}", fmt.replace("%s", "")) else None


def helper_sites(src):
    """(level, line, format) of the messages handed to record_constraint_violation(warn_only, name, msg): a literal,
    or a name assigned within NEAR lines above the call (the assignment's line)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == HELPER and len(node.args) >= 3:
            arg = node.args[2]
            if isinstance(arg, ast.Name):
                got = _assigned_text(tree, arg.id, node.lineno)
                if got:
                    out.append(("raise", got[0], got[1]))
            elif _fmt(arg):
                out.append(("raise", node.lineno, _fmt(arg)))
    return out


def _const(tree, name):
    """(line, value) of the module's `NAME = "..."` / `NAME: str = "..."`, or None."""
    for node in ast.walk(tree):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
            node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == name and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str):
            return node.lineno, node.value.value
    return None


def dcp_sites(src):
    """(level, line, format) of FileNotFoundError's line for each file DCP names: the shard file (the f-string
    `f"{<x>.prefix}{<count>}{DEFAULT_SUFFIX}"`, its prefix the f-string `f"__{<rank>}_"`) and the metadata file
    (`_metadata_fn`), read from the source; each at the line that names it."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out = []
    suffix = _const(tree, "DEFAULT_SUFFIX")
    prefix = None
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and len(node.values) == 3 and \
                all(isinstance(v, ast.Constant) for v in (node.values[0], node.values[2])) and \
                node.values[0].value == "__" and node.values[2].value == "_":
            prefix = "__%d_"  # the rank: an int
            break
    for node in ast.walk(tree):
        if suffix and prefix and isinstance(node, ast.JoinedStr) and len(node.values) == 3 and \
                isinstance(node.values[2], ast.FormattedValue) and \
                getattr(node.values[2].value, "id", None) == "DEFAULT_SUFFIX" and \
                getattr(node.values[0].value, "attr", None) == "prefix":
            out.append(("raise", node.lineno, NO_FILE % ("%s/" + prefix + "%d" + suffix[1].replace("%", "%%"))))
    meta = _const(tree, "_metadata_fn")
    if meta:
        out.append(("raise", meta[0], NO_FILE % ("%s/" + meta[1])))
    return out


def build(files, version):
    sites, seen, ids = [], set(), set()
    py = [(p, s) for p, s in files if re.sub(r"^older/torch-[^/]+/", "", p) == TP]
    for s in wheelmsgs.py_sites(py, "torch_extra.", [], MSG_FIX, seen, ids):
        if s.get("level") != "warning" or not s.get("re"):
            continue  # gen_torch_messages.py reads this file's raise statements
        for rule, family, rx in WARNING_RULES:
            if re.search(rx, s["text"]):
                s.update({"family": family, "rule": rule})
                knowgen.give_fix(s, MSG_FIX, s["text"])
                break
        sites.append(s)
    for full, srcs in wheelmsgs.group(files).items():
        m = re.match(r"older/(torch)-([^/]+)/(.+)$", full)
        path = m.group(3) if m else full
        found, firsts = [], {}
        for src in [wheelmsgs.overlay([textwrap.dedent(s) for s in srcs])]:  # a slice's blocks at their lines
            if path == DCP:
                found += dcp_sites(src)
            elif path == SYM:
                found += helper_sites(src)
                found += [(lvl, ln, fmt) for lvl, ln, fmt in knowgen.py_messages(src)
                          if lvl == "raise" and fmt.startswith("Constraints violated")]
                firsts.update(knowgen.py_first_lines([src]))  # the raise's text spans lines: its first is the matcher
        for level, line, fmt in sorted(set(found), key=lambda s: (s[1], s[2])):
            if fmt in seen:
                continue
            seen.add(fmt)
            first = firsts.get(line)
            sites.append(wheelmsgs.site_for("torch_extra." + ("torch_%s_" % knowgen.slug(m.group(2)) if m else ""),
                                            ids, level, "%s:%d" % (path, line), fmt, RULES, MSG_FIX,
                                            older=m and "torch %s" % m.group(2), first=first))
    return {"header": knowgen.header("torch (https://pypi.org/project/torch/)", version, GENERATOR,
                                     "parallelize_module's warnings (tensor/parallel/api.py), the files DCP names "
                                     "(checkpoint/filesystem.py) as FileNotFoundError prints them, the dynamic-shape "
                                     "constraint violations (fx/experimental/symbolic_shapes.py); families from the "
                                     "RULES and WARNING_RULES tables of the generator"),
            "sites": sites}


def read(wheel, older=None):
    files, version = wheelmsgs.from_wheel(wheel, FILES, "torch")
    version = version.split(" (")[0]
    for release in older or ():
        ofiles, oversion = older_files(release)
        files += ofiles
        version += "; older: " + oversion
    return files, version


def older_files(release):
    """([(path, text)], 'torch <release>') of FILES in torch ``release``'s Linux x86_64 wheel on PyPI, under
    'older/torch-<release>/': one look-up of PyPI's JSON API, then range requests for those members only
    (gen_torch_api.zip_members, as gen_torch_core_messages.py --older reads)."""
    import json

    import gen_torch_api as api
    import gen_torch_core_messages as core

    meta = json.loads(api._get("https://pypi.org/pypi/torch/json"))
    w = core._wheel(meta, release)
    got = api.zip_members(api._file_url(w["url"]), w["size"], lambda n: re.match(FILES, n) is not None)
    return ([("older/torch-%s/%s" % (release, n), got[n].decode("utf-8", "replace")) for n in sorted(got)],
            "torch %s" % release)


def _keep_lines(files, doc):
    """The slice's blocks for the sites this generator reads itself: the DCP names' statements (the constants, the
    prefix and file-name f-strings), and each constraint message's assignment with its helper call."""
    out = []
    for p, src in files:
        lines = src.splitlines()
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        stmts = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.With, ast.While, ast.Try))]

        def block(n):
            out.append((p, n.lineno, textwrap.dedent("\n".join(lines[n.lineno - 1:n.end_lineno]))))

        real = re.sub(r"^older/torch-[^/]+/", "", p)
        if real == DCP:
            for n in stmts:
                seg = "\n".join(lines[n.lineno - 1:n.end_lineno])
                if re.search(r"^\s*(?:DEFAULT_SUFFIX|_metadata_fn)\b[^=\n]{0,20}=", seg) or \
                        re.search(r'f"__\{[^}]{1,40}\}_"', seg) or "{DEFAULT_SUFFIX}" in seg:
                    block(n)
        elif real == SYM:
            for n in stmts:
                calls = [c for c in ast.walk(n) if isinstance(c, ast.Call) and getattr(c.func, "id", None) == HELPER]
                if calls and isinstance(n, ast.Expr):
                    block(n)
                    arg = calls[0].args[2] if len(calls[0].args) >= 3 else None
                    if isinstance(arg, ast.Name):
                        got = [m for m in stmts if isinstance(m, ast.Assign) and isinstance(m.targets[0], ast.Name)
                               and m.targets[0].id == arg.id and n.lineno - NEAR <= m.lineno < n.lineno]
                        if got:
                            block(max(got, key=lambda m: m.lineno))
                elif isinstance(n, ast.Raise) and "Constraints violated" in "\n".join(lines[n.lineno - 1:n.end_lineno]):
                    block(n)
    return out


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheel", extra=[
        ("--older", {"action": "append", "help": "an older torch release, read from PyPI by range requests "
                                                 "(repeatable)"}),
        ("--record", {"help": "write the slice (the statements of the assigned sites)"})])
    files, version = read(a.wheel, a.older) if a.wheel else knowgen.read_slice(a.slice)
    out = build(files, version)
    if a.wheel:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, out["sites"], of="wheel")
        if a.record:
            kept = {wheelmsgs.site_key(s) for s in out["sites"] if s.get("family") and s["where"].startswith(TP)}
            wheelmsgs.write_record(a.record, version, files, kept.__contains__, GENERATOR, _keep_lines(files, out))
    return knowgen.emit("torch_extra_messages", out, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
