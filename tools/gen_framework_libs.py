#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/framework_libs.json: what JAX (and the XLA runtime under it, which
TensorFlow shares) and PaddlePaddle print when the CUDA libraries they load at run time (libcuda, libcudart, cuDNN,
cuBLAS, NCCL, ptxas) are missing, too old, or of another version than the one they were built with. Each message
site is the message's first line (what a log line holds), with a bounded matcher and the knowledge entry from RULES;
the entries (gpudoctor/data/knowledge/framework_libs.toml) belong to the existing families (cuda.libs, cudnn.version,
cuda.init_failed, ...) so the answer carries those families' fixes, and each says which framework printed it.

Usage:
    python tools/gen_framework_libs.py --jax-repo <jax.git> [--jax-rev REV] --xla-repo <xla.git> \
        --paddle-repo <Paddle.git> [-o OUT]      (reads FILES' functions at each repository's revision;
                                                  writes tools/data/framework_libs_slice.txt too)
    python tools/gen_framework_libs.py --slice tools/data/framework_libs_slice.txt -o OUT   (the test)

Sources (FILES below): jax-ml/jax (https://github.com/jax-ml/jax) jax_plugins/cuda/__init__.py (the CUDA plugin's
library loading and version checks) and jax/_src/xla_bridge.py (backends(), _suggest_missing_backends());
openxla/xla (https://github.com/openxla/xla) xla/tsl/platform/default/dso_loader.cc, xla/stream_executor/cuda/
cuda_dnn.cc, cuda_diagnostics.cc, cuda_platform.cc, subprocess_compilation.cc; PaddlePaddle/Paddle
(https://github.com/PaddlePaddle/Paddle) paddle/phi/backends/dynload/dynamic_loader.cc, dynload/cudnn.cc,
paddle/phi/backends/gpu/gpu_resources.cc. Only the named functions are read (the slice keeps them verbatim, each
under `=== <repo>@<commit>:<path> <function,...>`): openxla/xla and PaddlePaddle/Paddle are too large to mirror
whole here, and their functions were copied from the stored files at the commits the slice names.

What a site is: C++ `LOG(ERROR|WARNING|FATAL) << ...` streams (each `<<` operand that is not a string literal is
%s), `absl::StrCat(...)` (the same), `absl::StrFormat("...")`, `absl::*Error("...")`, Paddle's
`errors::*("...")` and its `auto error_msg = "..."` format; Python `raise X(...)`, `logger.warning(...)` and
assignments to a `*msg` name. A format is cut at its first newline.
"""

import ast
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_framework_libs.py"
SLICE = os.path.join(knowgen.DATA, "framework_libs_slice.txt")

# (framework, repository, revision: None = the --<repo>-rev given, path, functions or None for the whole file)
FILES = [
    ("JAX", "jax-ml/jax", None, "jax_plugins/cuda/__init__.py", None),
    ("JAX", "jax-ml/jax", None, "jax/_src/xla_bridge.py", ("backends", "_suggest_missing_backends")),
    # the version check's older form, still in the logs of jax <= 0.4.30 ('Found cuDNN version 8600, but JAX was
    # built against version 8906, which is newer'; 'Backend 'cuda' failed to initialize: ...')
    ("JAX", "jax-ml/jax", "jax-v0.4.25", "jax/_src/xla_bridge.py", ("_check_cuda_versions", "_get_backend_uncached")),
    ("XLA", "openxla/xla", "13da2f0c462fd4ac86ae3bc9f4a8ceb2aed119df", "xla/tsl/platform/default/dso_loader.cc",
     ("GetDsoHandle",)),
    ("XLA", "openxla/xla", "0007719d2292d5750b8666ba5e1e5a223a420e38", "xla/stream_executor/cuda/cuda_dnn.cc",
     ("CudnnSupport::Init",)),
    ("XLA", "openxla/xla", "03d4b92a35c5c178564611d3b8cef533b75b8fa6", "xla/stream_executor/cuda/cuda_diagnostics.cc",
     ("Diagnostician::WarnOnDsoKernelMismatch",)),
    # (the index's current copy of this file named no commit: recorded as 'stored')
    ("XLA", "openxla/xla", "stored", "xla/stream_executor/cuda/cuda_platform.cc",
     ("InternalInit", "CudaPlatform::VisibleDeviceCount")),
    ("XLA", "openxla/xla", "827aca0eb2748018b7e803606250f9ea56939ab0",
     "xla/stream_executor/cuda/subprocess_compilation.cc", ("GetToolVersionString", "GetToolVersionImpl",
                                                            "FindCudaExecutable", "LogPtxasTooOld")),
    ("PaddlePaddle", "PaddlePaddle/Paddle", "00816fcb21ade6ad4425774b0e989c8098c6d324",
     "paddle/phi/backends/dynload/dynamic_loader.cc", ("GetDsoHandleFromSearchPath",)),
    ("PaddlePaddle", "PaddlePaddle/Paddle", "1642ecf874318bf1e750657e204d7b7c3108e77d",
     "paddle/phi/backends/dynload/cudnn.cc", ("EnforceCUDNNLoaded",)),
    ("PaddlePaddle", "PaddlePaddle/Paddle", "00816fcb21ade6ad4425774b0e989c8098c6d324",
     "paddle/phi/backends/gpu/gpu_resources.cc", ("InitGpuProperties", "InitDnnHandle")),
]
REPO_FLAG = {"jax-ml/jax": "jax", "openxla/xla": "xla", "PaddlePaddle/Paddle": "paddle"}

# (rule, knowledge entry or None, {field: regex}); fields: text (the first line), framework, level (error, warning)
RULES = [
    # informational lines of the same functions ('Please NOTE: device: 0, GPU Compute Capability', 'Used ptxas at')
    ("info", None, {"text": r"^(?:Please NOTE|device: %s, cuDNN Version|Used ptxas at|Package: |Memory usage: )"}),
    # ROCm's MIOpen: not a CUDA job
    ("rocm", None, {"text": r"MIOPEN"}),
    ("jax-libs", "jax.cuda_libs", {"framework": "JAX", "text": r"Unable to load %s\. Is it installed|Outdated %s "
                                   r"installation found|Unable to use CUDA because of the following issues|but JAX was built against|"
                                   r"cuDNN 9\.10\.0 had a binary|cuDNN < 9\.10\.0"}),
    ("jax-no-plugin", "jax.no_cuda_plugin", {"text": r"CUDA-enabled jaxlib is not installed"}),
    ("jax-backend", "jax.backend_init", {"framework": "JAX", "text": r"backend failed to initialize|"
                                         r"Unable to initialize backend|Backend '%s' failed to initialize"}),
    ("dso", "libload.dso", {"text": r"Could not load dynamic library"}),
    # Paddle's start-up warnings that the CUDA or cuDNN it finds is older than its build: a warning
    ("paddle-version-warning", "paddle.cuda_version", {"level": r"^warning$", "text": r"The installed Paddle is "
                                                       r"compiled with (?:CUDA|CUDNN) %s"}),
    ("cudnn-version", "libload.cudnn_version", {"text": r"Loaded runtime CuDNN library|compiled with CUDA%d/cuDNN%d"}),
    ("cudnn-handle", "libload.cudnn_handle", {"text": r"cudnn handle|could not create a handle|Possibly insufficient "
                                              r"driver version"}),
    ("cuinit", "libload.cuinit", {"text": r"cuInit|CUDA device count|does not match DSO version"}),
    ("ptxas", "libload.ptxas", {"text": r"ptxas|--version|Couldn't find a suitable version of"}),
    ("paddle-dynload", "paddle.dynload", {"text": r"third-party dynamic library|Cannot load cudnn shared library"}),
    ("paddle-arch", "paddle.gpu_arch", {"text": r"not compatible with Paddle installation with arch|not supported by "
                                        r"Paddle"}),
]

_LOG = re.compile(r"\bLOG(?:_FIRST_N)?\(\s*(ERROR|WARNING|FATAL|QFATAL)\b[^)]*\)")
_CALL = re.compile(r"\b(absl::StrCat|absl::StrFormat|absl::\w+Error|(?:common|phi)::errors::\w+)\s*\(")
_MSG_VAR = re.compile(r"\bauto\s+\w*msg\w*\s*=\s*(?=\")")
_LIT = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _first_line(fmt):
    """A format as a log line shows it: its first non-blank line, blanks squashed."""
    for line in fmt.split("\n"):
        if line.strip():
            return " ".join(line.split())
    return ""


def _pieces(args):
    """A format from operands (StrCat's arguments, a LOG stream's `<<` operands): each made of string literals only
    is its text, any other is %s (its % doubled in literals)."""
    out = []
    for a in args:
        a = a.strip()
        lits = _LIT.findall(a)
        if lits and not _LIT.sub("", a).strip():
            out.append(knowgen.c_unescape("".join(x[1:-1] for x in lits)).replace("%", "%%"))
        elif a:
            out.append("%s")
    return "".join(out)


def _split_stream(expr):
    """The `<<` operands of a LOG statement's stream (brackets and string literals kept whole)."""
    ops, depth, cur, i, n = [], 0, [], 0, len(expr)
    while i < n:
        c = expr[i]
        if c == '"':
            m = _LIT.match(expr, i)
            j = m.end() if m else i + 1
            cur.append(expr[i:j])
            i = j
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if depth == 0 and expr.startswith("<<", i):
            ops.append("".join(cur))
            cur, i = [], i + 2
            continue
        cur.append(c)
        i += 1
    ops.append("".join(cur))
    return ops


def cpp_messages(src):
    """(level, format) of each message a C++ region builds (module docstring)."""
    for m in _LOG.finditer(src):
        end = knowgen.statement_end(src, m.end())
        ops = _split_stream(src[m.end():end])[1:]
        level = "warning" if m.group(1) == "WARNING" else "error"
        yield level, _pieces(ops)
    for m in _CALL.finditer(src):
        args = knowgen.call_args(src, m.end())
        if not args:
            continue
        name = m.group(1)
        if name == "absl::StrCat":
            yield "error", _pieces(args)
        else:
            fmt = knowgen.c_format(args[0], 0)
            if fmt is not None:
                yield "error", fmt
    for m in _MSG_VAR.finditer(src):
        fmt = knowgen.c_format(src, m.end())
        if fmt is not None:
            yield "error", fmt


def py_messages(src):
    """(level, format) of each message a Python region raises or logs, and each string assigned to a `*msg` name
    (jax builds its messages in err_msg / msg / warning_msg before raising or logging them)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        level, arg = knowgen.py_message(node)
        if level is None and isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and node.targets[0].id.endswith("msg"):
            level, arg = "error", node.value
        if level is None:
            continue
        fmt = knowgen.py_format(arg)
        if fmt:
            yield ("warning" if level == "warning" else "error"), fmt


def build(files, version):
    sites, seen = [], set()
    for path, text in files:
        framework, rest = path.split(" ", 1)
        where = "%s %s" % (framework, rest.rsplit(" ", 1)[0].split(":", 1)[1])  # 'XLA xla/.../cuda_dnn.cc'
        msgs = py_messages(text) if where.endswith(".py") else cpp_messages(text)
        for level, fmt in msgs:
            line = _first_line(fmt)
            if not line or line in seen:
                continue
            seen.add(line)
            rx, literal = knowgen.printf_to_regex(line)
            site = {"id": "%s.%s" % (framework.lower(), knowgen.slug(line)[:72]), "where": where,
                    "framework": framework, "level": level, "text": line}
            if not knowgen.unanchored(site, rx, literal, 12):
                rule, family = knowgen.assign(RULES, site, {"text": line, "framework": framework, "level": level})
                site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            sites.append(site)
    return {"header": knowgen.header("jax-ml/jax, openxla/xla, PaddlePaddle/Paddle: the functions of FILES in "
                                     "tools/gen_framework_libs.py", version, GENERATOR,
                                     "families from the RULES table of the generator; each message's first line"),
            "sites": sites}


def function_regions(text, names, python):
    """The source of each named function of a file (Python: a top-level def; C++: the definition whose line holds
    the name followed by '(' and whose body follows, up to its matching brace), joined."""
    if names is None:
        return text
    out = []
    if python:
        lines = text.splitlines(True)
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and node.name in names:
                start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
                out.append("".join(lines[start:node.end_lineno]))
        return "\n\n".join(out) + "\n"
    for name in names:
        m = re.search(r"^[^\n;]*\b%s\(" % re.escape(name), text, re.M)
        while m:
            brace = text.find("{", m.end())
            semi = text.find(";", m.end())
            if brace >= 0 and (semi < 0 or brace < semi):
                break
            m = re.compile(r"^[^\n;]*\b%s\(" % re.escape(name), re.M).search(text, m.end())
        if not m:
            raise SystemExit("function %s not found" % name)
        depth, i = 0, brace
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out.append(text[m.start():i + 1])
    return "\n\n".join(out) + "\n"


def slice_from_repos(repos, revs):
    out, versions = [], []
    for framework, repo, rev, path, names in FILES:
        git = knowgen.git_reader(repos[REPO_FLAG[repo]])
        r = revs[REPO_FLAG[repo]] if rev in (None, "stored") else rev
        commit = git("rev-parse", r).strip()
        text = git("show", "%s:%s" % (commit, path))
        region = function_regions(text, names, path.endswith(".py"))
        out.append("=== %s %s@%s:%s %s\n%s" % (framework, repo, commit, path, ",".join(names or ("*",)), region))
        versions.append("%s@%s" % (repo, commit[:12]))
    head = "#! version %s\n" % ", ".join(sorted(set(versions)))
    return head + "# written by tools/gen_framework_libs.py from the repositories' functions (FILES)\n" + "".join(out)


def read_slice(path):
    """[('<framework> <repo>@<commit>:<path> <functions>', text)] and the version line."""
    files, version = knowgen.read_slice(path)
    return [(p, t) for p, t in files], version


def main(argv):
    opts = {"jax-repo": {}, "xla-repo": {}, "paddle-repo": {}}
    a = knowgen.arguments(__doc__, argv, ("jax-repo", "xla-repo", "paddle-repo"), source_opts=opts,
                          extra=(("--jax-rev", {"default": "HEAD"}),))
    path = a.slice
    if a.jax_repo:
        with open(SLICE, "w") as f:
            f.write(slice_from_repos({"jax": a.jax_repo, "xla": a.xla_repo, "paddle": a.paddle_repo},
                                     {"jax": a.jax_rev, "xla": "HEAD", "paddle": "HEAD"}))
        path = SLICE
    files, version = read_slice(path)
    return knowgen.emit("framework_libs", build(files, version), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
