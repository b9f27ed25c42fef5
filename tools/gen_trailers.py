#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/trailers.json: the text a library appends to EVERY error it raises or
prints (a trailer): a note on how to get more detail, never the failure or its fix (docerrors18, issue 18).

P26 (bench/data/explain_heldout_2026-11-27p26.jsonl) quoted JAX's "Set JAX_TRACEBACK_FILTERING=off to include these."
as "the message says what to do" in six answers, and equinox's runtime-error block ended a text with no answer. A
trailer is read from the source that appends it, by the shape of the append (never by one text's wording):

  Python (a wheel, read with ast, never imported):
  - a PEP 678 note: the argument of ``<exc>.add_note(...)`` (jax/_src/traceback_util.py adds
    "--------------------\\n" + _simplified_tb_msg to every filtered exception);
  - an f-string that starts with the message and goes on with text of its own: ``f"{msg}\\n\\n{_message}"``
    (jax/_src/source_info_util.py, traceback_util.py's UnfilteredStackTrace), ``f"{msg}\\n\\n\\n---...filter_jit`."``
    (equinox/_errors.py, the runtime error of a jax.jit program);
  - a module-level message template with a ``{msg}`` field and text after it (equinox/_jit.py ``_on_error_msg``,
    filled with .format): the text after the field is the trailer, the text before it the header
    ("Above is the stack outside of JIT. Below is the stack inside of JIT:");
  - ``sys.stderr.write("...")`` after ``traceback.print_exception`` / ``print_exc`` in the same function (Hydra's
    hydra/_internal/utils.py run_and_report: "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack
    trace.").
  C++ (pytorch/pytorch's c10/cuda, files at a commit):
  - the string literals the functions return whose results c10_cuda_check_implementation appends to every CUDA
    error (CUDAException.cpp: ``check_message.append(c10::cuda::get_cuda_error_help(...))``, ...
    get_cuda_async_error_suffix, c10_retrieve_device_side_assertion_info's build without device-side assertions):
    "CUDA kernel errors might be asynchronously reported ...", "For debugging consider passing
    CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", "Search for
    `%s' in https://docs.nvidia.com/... for more information.".

Each trailer is kept as its lines (a format field as '%s'); a line needs knowgen.own_enough's words of its own (a rule
of dashes or a field alone is no line of it). explain/trailers.py reads the table: pytb's message after an exception
line and advice.message_lines stop at a trailer line, advice.find never gives a trailer sentence as a remedy (at most
'more detail'), and the exception above a trailer is the one read.

Usage:
    pip download --no-deps --only-binary :all: --python-version 3.12 jax==0.12.0.1 equinox==0.13.8 \\
        hydra-core==1.3.8 -d /tmp/w
    python tools/gen_trailers.py --wheel /tmp/w/jax-0.12.0.1-py3-none-any.whl \\
        --wheel /tmp/w/equinox-0.13.8-py3-none-any.whl --wheel /tmp/w/hydra_core-1.3.8-py3-none-any.whl \\
        --cpp-file /tmp/w/CUDAException.cpp@0e4c6cd66277444e521c0d3190b00ee3992cff03 \\
        --cpp-file /tmp/w/CUDAMiscFunctions.cpp@0ac83aeb35494c139d2634d868b81b5cff666ec9 \\
        --cpp-file /tmp/w/CUDADeviceAssertionHost.cpp@035290b77d8b4bd106cf5f9a728516d4335d5a42 \\
        --wheel /tmp/w/torch-2.1.2-cp311-none-macosx_11_0_arm64.whl \\
        --site torch@<site-packages of a torch 2.14.1 install> \\
        [--record tools/data/trailers_slice.txt] [-o OUT]
    (torch/_dynamo/exc.py from two releases: 2.1's augment_exc_message appended "You can suppress this exception and
    fall back to eager by setting: ... torch._dynamo.config.suppress_errors = True", 2.14's TORCHDYNAMO_VERBOSE note;
    the macOS wheel of 2.1.2 is the smallest that holds the file, which is the same on every platform)
    python tools/gen_trailers.py --slice tools/data/trailers_slice.txt -o OUT   (the test)

Sources: jax (https://github.com/jax-ml/jax, Apache-2.0), equinox (https://github.com/patrick-kidger/equinox,
Apache-2.0), Hydra (https://github.com/facebookresearch/hydra, MIT), PyTorch's c10/cuda
(https://github.com/pytorch/pytorch/tree/main/c10/cuda, BSD-3-Clause).
"""

import argparse
import ast
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_trailers.py"
NAME = "trailers"
# the files of each wheel that append a trailer (read whole; the readers below find the appends)
FILES = re.compile(r"^(?:jax/_src/(?:traceback_util|source_info_util)\.py|equinox/_(?:errors|jit)\.py|"
                   r"hydra/_internal/utils\.py|torch/_dynamo/exc\.py)$")
CPP_NAMES = ("CUDAException.cpp", "CUDAMiscFunctions.cpp", "CUDADeviceAssertionHost.cpp")
# the function of CUDAException.cpp that builds every CUDA error's message, and what it appends it from
_APPEND = re.compile(r"check_message\.append\(\s*(?:c10::cuda::)?(\w{1,80})\(")
FIELD = "%s"


# ------------------------------------------------------------------ Python


def _const(node, names):
    """The text of a str expression: constants, '+' of them, names of module constants, f-strings (a field -> %s)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _const(node.left, names), _const(node.right, names)
        return a + b if a is not None and b is not None else None
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(v.value)
            elif isinstance(v, ast.FormattedValue):
                inner = _const(v.value, names) if isinstance(v.value, ast.Name) else None
                out.append(inner if inner is not None else FIELD)
        return "".join(out)
    return None


def _module_strings(tree):
    names = {}
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            v = _const(st.value, names)
            if v is not None:
                names[st.targets[0].id] = v
    return names


# the local a message is held in (jax: msg; equinox: msg), as the f-string's first field
_MESSAGE_NAME = re.compile(r"^(?:msg|message|err_?msg|error_?msg|errmsg|text|err|error|e|exc|s)$")
_MSG_FIELD = re.compile(r"\{(?:msg|message|error|err)\}")


_TOP = re.compile(r"^(?:@|def |async def |class |[A-Za-z_][\w.]{0,80}\s*[:=]|if |try:|import |from |with )")


_TYPE_PARAMS = re.compile(r"^([ \t]{0,40}(?:async[ \t]+)?(?:def|class)[ \t]+\w{1,80})\[(?:[^\[\]\n]|\[[^\[\]\n]{0,200}\]){1,200}\]",
                          re.M)


def parse(src):
    """The module's tree; a file in newer syntax than this interpreter's (PEP 695's 'def f[T](...)') is parsed a
    top-level statement at a time, leaving out those it cannot read."""
    try:
        return ast.parse(src)
    except SyntaxError:
        pass
    # PEP 695's type parameters ('def f[C](', 'class K[T]:') left out: the statements keep their lines
    src = _TYPE_PARAMS.sub(r"\1", src)
    try:
        return ast.parse(src)
    except SyntaxError:
        pass
    lines = src.split("\n")
    starts = [i for i, ln in enumerate(lines) if _TOP.match(ln)
              and not (i and lines[i - 1].startswith("@"))] + [len(lines)]
    body = []
    for a, b in zip(starts, starts[1:]):
        try:
            t = ast.parse("\n".join(lines[a:b]))
        except SyntaxError:
            continue
        ast.increment_lineno(t, a)
        body += t.body
    return ast.Module(body=body, type_ignores=[])


def reduced(src):
    """The statements of a file that its trailers come from (its module-level strings, and each top-level statement
    that appends one), unparsed: what the recorded slice keeps of it."""
    tree = parse(src)
    strings = [st for st in tree.body if isinstance(st, ast.Assign) and len(st.targets) == 1 and
               isinstance(st.targets[0], ast.Name) and _const(st.value, {}) is not None or
               isinstance(st, ast.Assign) and isinstance(st.value, (ast.BinOp, ast.JoinedStr))]
    base = len(py_trailers(None, ast.Module(body=strings, type_ignores=[])))
    strings += [st for st in tree.body if isinstance(st, ast.Assign) and len(st.targets) == 1 and
                isinstance(st.targets[0], ast.Attribute) and st.targets[0].attr == "__module__"]
    keep = [st for st in tree.body if st in strings or
            len(py_trailers(None, ast.Module(body=strings + [st], type_ignores=[]))) > base]
    return "\n\n".join(ast.unparse(st) for st in keep) + "\n"


def _class_name(tree, name, path):
    """The name a class is printed with: '<module>.<name>', the module its `__module__` is set to in the file (jax:
    SimplifiedTraceback.__module__ = "jax.errors") or the file's own."""
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute) and \
                st.targets[0].attr == "__module__" and ast.unparse(st.targets[0].value) == name and \
                isinstance(st.value, ast.Constant):
            return "%s.%s" % (st.value.value, name)
    mod = (path or "").rsplit(".", 1)[0].replace("/", ".")
    return "%s.%s" % (mod, name) if mod else name


def py_trailers(path, src):
    """[(how, text, header)] of one Python file (its text, or a parsed module): each trailer the file appends (the
    module's doc)."""
    tree = src if isinstance(src, ast.Module) else parse(src)
    names = _module_strings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_note" \
                and node.args:
            t = _const(node.args[0], names)
            if t and FIELD not in t:
                # (a constant note, the same on every error; one with a value is that error's context: sglang's
                # add_note(f"when handling name={name} ..."))
                out.append(("note", t, "", node.lineno))
        elif isinstance(node, ast.JoinedStr) and len(node.values) > 1 and isinstance(node.values[0], ast.FormattedValue):
            first = node.values[0].value
            if not (isinstance(first, ast.Name) and first.id not in names and _MESSAGE_NAME.match(first.id)):
                continue  # (the message itself first: a local msg / message / err - not a subject: f"{name} is not ...")
            rest = ast.JoinedStr(values=node.values[1:])
            t = _const(rest, names)
            if t and FIELD not in t and knowgen.own_enough(t):
                # (text of its own after the message, no other value: a field after it is the message's own
                # structure - torch/_dynamo's f"{gb_type}\n  Explanation: {...}" - not a trailer)
                out.append(("appended", t, "", node.lineno))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            printed = None
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
                    f = sub.func
                    if f.attr in ("print_exception", "print_exc") and isinstance(f.value, ast.Name) and \
                            f.value.id == "traceback":
                        printed = sub.lineno if printed is None else min(printed, sub.lineno)
            for sub in ast.walk(node) if printed is not None else ():
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "write" \
                        and ast.unparse(sub.func.value) == "sys.stderr" and sub.args and sub.lineno > printed:
                    t = _const(sub.args[0], names)
                    if t and knowgen.own_enough(t):
                        out.append(("after_traceback", t, "", sub.lineno))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                isinstance(sub, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "args"
                                                    for t in sub.targets) for sub in ast.walk(node)):
            # a function that puts the message plus text of its own back into the exception's args
            # (torch/_dynamo/exc.py augment_exc_message: 'msg += "\nSet TORCHDYNAMO_VERBOSE=1 ..."')
            for sub in ast.walk(node):
                if isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Add) and isinstance(sub.target, ast.Name):
                    t = _const(sub.value, names)
                    if t and knowgen.own_enough(t.replace(FIELD, " ")):
                        out.append(("args", t, "", sub.lineno))
    for st in tree.body:
        # an exception class whose str() is text of the module's own (jax's SimplifiedTraceback, raised as the cause
        # of the real exception before Python 3.11 had add_note: 'jax.errors.SimplifiedTraceback: For simplicity,
        # ...' then 'The above exception was the direct cause of the following exception:')
        if isinstance(st, ast.ClassDef):
            for fn in st.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "__str__" and len(fn.body) == 1 and \
                        isinstance(fn.body[0], ast.Return) and fn.body[0].value is not None:
                    t = _const(fn.body[0].value, names)
                    if t and FIELD not in t and knowgen.own_enough(t):
                        out.append(("str", t, "", st.lineno, _class_name(tree, st.name, path)))
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            v = names.get(st.targets[0].id)
            m = list(_MSG_FIELD.finditer(v or ""))
            if m and knowgen.own_enough(v[m[-1].end():]):
                head = v[:v.find("{")] if "{" in v else ""
                out.append(("template", v[m[-1].end():], head, st.lineno))
    return out


# ------------------------------------------------------------------ C++


def _functions(src):
    """{name: body} of the C++ functions of a file (a definition's name before '(' at a line's start or after a
    return type; its body from '{' to the matching '}')."""
    out = {}
    for m in re.finditer(r"^[\w:<>*& \t]{0,120}?\b(\w{1,80})\(([^;{]{0,400}?)\)[\w \t]{0,40}\{", src, re.M):
        depth, i = 0, m.end() - 1
        while i < len(src):
            if src[i] == "{":
                depth += 1
            elif src[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out.setdefault(m.group(1), src[m.end():i])
    return out


def _literal_runs(body):
    """The texts of adjacent C string literals (one expression), in order."""
    runs, cur, last = [], [], -1
    for m in knowgen.C_STRING.finditer(body):
        between = body[last:m.start()] if last >= 0 else ""
        if cur and between.strip():
            runs.append("".join(cur))
            cur = []
        cur.append(knowgen.c_unescape(m.group(1)))
        last = m.end()
    if cur:
        runs.append("".join(cur))
    return runs


def cpp_trailers(files):
    """[(how, text, header, file, function)] from c10/cuda's files: what c10_cuda_check_implementation appends."""
    funcs, appended = {}, []
    for path, src in files:
        for name, body in _functions(src).items():
            funcs.setdefault(name, (path, body))
        if path.endswith("CUDAException.cpp"):
            appended += [m.group(1) for m in _APPEND.finditer(src)]
    out = []
    for name in appended:
        if name == "c10_retrieve_device_side_assertion_info" and name not in funcs:
            continue
        path, body = funcs.get(name, (None, ""))
        if name == "c10_retrieve_device_side_assertion_info":
            # the build without device-side assertions (#else): the text of a build with them is the failure's own
            body = body[body.rfind("#else"):] if "#else" in body else ""
        for run in _literal_runs(body):
            if run.strip():
                out.append(("appended", run, "", path, name))
    return out


# ------------------------------------------------------------------ the table


def lines_of(text):
    """A trailer's lines with words of their own (a rule of dashes, a blank or a field alone is none)."""
    out = []
    for ln in text.split("\n"):
        ln = " ".join(ln.split())
        if ln and knowgen.own_enough(ln.replace(FIELD, " ").replace("`", " ")) and ln not in out:
            out.append(ln)
    return out


def build(py_files, cpp_files):
    rows = []
    for pkg, ver, path, src in py_files:
        for how, text, head, line, *cls in py_trailers(path, src):
            ls = lines_of(text)
            if ls:
                rows.append({"package": pkg, "version": ver, "file": path,
                             "how": how, "lines": ls, "header": " ".join(head.split()), "classes": cls})
    cpp = cpp_trailers([(p, s) for p, s, _ in cpp_files])
    commits = {p: c for p, _, c in cpp_files}
    # 'Search for `' <name> '' in https://... for more information.': one line with a field for the name
    merged, opened = [], {}
    for how, text, head, path, fn in cpp:
        if text.rstrip().endswith("`"):
            opened[fn] = text  # ('\nSearch for `' then the error's name, then "' in https://... for more information.")
            continue
        if fn in opened and text.startswith("'"):
            text = opened[fn] + FIELD + text
        merged.append((how, text, head, path, fn))
    for how, text, head, path, fn in merged:
        ls = lines_of(text)
        if ls:
            rows.append({"package": "torch", "version": commits.get(path, "?"), "file": "c10/cuda/" + path,
                         "how": how, "function": fn, "lines": ls, "header": ""})
    seen, out = {}, []
    for r in rows:
        key = tuple(r["lines"])
        if key in seen:
            # the same text appended another way (jax's note, and its SimplifiedTraceback class before Python 3.11)
            first = seen[key]
            first["classes"] = sorted(set(first.get("classes") or []) | set(r.get("classes") or []))
            continue
        seen[key] = r
        out.append(r)
    return out


def _wheel_files(path):
    with zipfile.ZipFile(path) as z:
        pkg = os.path.basename(path).split("-")[0]
        ver = os.path.basename(path).split("-")[1]
        return pkg, ver, [(n, z.read(n).decode("utf-8")) for n in sorted(z.namelist()) if FILES.match(n)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", action="append", default=[])
    ap.add_argument("--cpp-file", action="append", default=[], help="PATH@COMMIT of a c10/cuda file")
    ap.add_argument("--site", action="append", default=[],
                    help="PKG@DIR: a package installed from its wheel (site-packages DIR; torch: no small wheel)")
    ap.add_argument("--slice")
    ap.add_argument("--record")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if bool(a.slice) == bool(a.wheel or a.cpp_file or a.site):
        ap.error("give --wheel/--cpp-file or --slice")
    py, cpp = [], []  # (package, version, path, text); (name, text, commit)
    if a.slice:
        files, _ = knowgen.read_slice(a.slice)
        for path, text in files:
            kind, _, rest = path.partition(":")
            if kind == "py":
                pkg, ver, name = rest.split(" ", 2)
                py.append((pkg, ver, name, text))
            else:
                name, commit = rest.split(" ", 1)
                cpp.append((name, text, commit))
    else:
        for w in a.wheel:
            pkg, ver, files = _wheel_files(w)
            py += [(pkg, ver, n, s) for n, s in files]
        for spec in a.site:
            pkg, _, d = spec.partition("@")
            dist = [n for n in os.listdir(d) if n.startswith(pkg + "-") and n.endswith(".dist-info")]
            ver = knowgen.package_version([os.path.join(d, n, "METADATA") for n in dist])
            for root, _, names in os.walk(os.path.join(d, pkg)):
                for n in sorted(names):
                    rel = os.path.relpath(os.path.join(root, n), d).replace(os.sep, "/")
                    if FILES.match(rel):
                        with open(os.path.join(root, n)) as f:
                            py.append((pkg, ver, rel, f.read()))
        for spec in a.cpp_file:
            path, _, commit = spec.partition("@")
            with open(path) as f:
                cpp.append((os.path.basename(path), f.read(), commit))
    rows = build(py, cpp)
    if a.record:
        with open(a.record, "w") as f:
            f.write("# recorded by %s: the files that append a trailer (whole) for the regeneration test\n" % GENERATOR)
            for pkg, ver, name, text in py:
                f.write("=== py:%s %s %s\n%s" % (pkg, ver, name, reduced(text)))
            for name, text, commit in cpp:
                f.write("=== cpp:%s %s\n%s" % (name, commit, text if text.endswith("\n") else text + "\n"))
    source = ", ".join(sorted({"%s %s" % (p, v) for p, v, _, _ in py}) +
                       ["pytorch/pytorch c10/cuda/%s@%s" % (n, c[:12]) for n, _, c in cpp])
    version = "%d Python files of %d packages, %d c10/cuda files" % (len(py), len({p for p, _, _, _ in py}), len(cpp))
    doc = {"header": knowgen.header(source, version, GENERATOR,
                                    "text a library appends to every error: a note, never the failure or its fix"),
           "sites": [],  # (no matcher of its own: explain/trailers.py reads the lines)
           "trailers": rows}
    path = a.out or knowgen.out_path(NAME)
    import json

    with knowgen.open_write(path) as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("%s: %d trailers, %d lines" % (path, len(rows), sum(len(r["lines"]) for r in rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
