#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/build_features.json: the messages a library prints because it was built
without a feature, each with the build option that turns the feature on, read from the sources that print them and the
build systems that decide them (upgrade19, issue 18: the installation as the fix).

- **UCX** (openucx/ucx): every ucs_error / ucs_warn / ucs_diag / ucs_fatal format of src/ that sits in the branch of an
  `#if MACRO` / `#ifdef MACRO` / `#ifndef MACRO` compiled when MACRO is off, where configure.ac or config/m4/*.m4
  defines MACRO (AC_DEFINE / AC_DEFINE_UNQUOTED) inside the block of an AC_ARG_ENABLE / AC_ARG_WITH option whose
  shell variable (enable_<name> / with_<name>) that block tests: the message's feature is that option's
  (`#if ENABLE_MT ... #else ucs_diag("... built without multi-thread support")` in src/ucp/core/ucp_worker.c, and
  configure.ac's `AC_ARG_ENABLE([mt], ...)` whose `test "x$enable_mt" = xyes` branch defines ENABLE_MT 1).
- **Open MPI** (open-mpi/ompi, the releases in OMPI_TAGS): the UCX glue's messages (PML_UCX_ERROR / _WARN / _VERBOSE,
  OSC_UCX_*, MCA_COMMON_UCX_*) printed in the `if` that finds the UCP worker's thread mode is not
  UCS_THREAD_MODE_MULTI. UCX's own source decides it: the only code that gives a worker UCP_WORKER_FLAG_THREAD_MULTI
  (src/ucp/core/ucp_worker.c) is compiled under `#if ENABLE_MT`, so these are UCX's --enable-mt too (the generator
  stops when UCX's source no longer says so).
- **Apex** (NVIDIA/apex): setup.py's `if has_flag("--X", "APEX_X"):` blocks (read with Python's ast) and the
  CUDAExtension / CppExtension modules each builds (`amp_C`, `fused_layer_norm_cuda`, `apex_C`, ...), with the
  ENV_TO_FLAG table that maps each flag to its environment variable: a program's `No module named '<module>'` for one
  of them is an Apex installed without that option (the Python-only build), answered in the family
  code.python_env already gives it, with the rebuild as the site's own fix.
- **Transformer Engine** (NVIDIA/TransformerEngine): setup.py's `if bool(int(os.getenv("NVTE_X", "0"))):` blocks
  that pass `-DNVTE_X=ON` to CMake (with the variables the block asserts, MPI_HOME for NVTE_UB_WITH_MPI), the
  `option(NVTE_X ...)` of transformer_engine/common/CMakeLists.txt that defines the macro, and every NVTE_ERROR /
  NVTE_CHECK format of transformer_engine/common compiled in that macro's off branch (`#ifdef NVTE_UB_WITH_MPI ...
  #else NVTE_ERROR("Bootstrapping Userbuffers with MPI requires building" "Transformer Engine with
  NVTE_UB_WITH_MPI=1 ...")`): megatron.dependency's family (the installed Transformer Engine lacks what the
  feature needs), the rebuild with the variable as the fix.
- **nccl-tests** (NVIDIA/nccl-tests): src/Makefile's `-I$(<VAR>)/include` flags and the condition that adds each
  (`ifeq ($(MPI), 1)` for MPI_HOME), and each header the sources include that is not in the tree (src/common.h's
  `#include "mpi.h"` under MPI_SUPPORT, `#include "nccl.h"`): the compiler's missing-header line for it, named by the
  including file (GCC's libcpp 'FILE:LINE:COL: fatal error: HEADER: No such file or directory', clang's "fatal error:
  'HEADER' file not found"), fixed by giving that variable the install prefix.

Usage:
    python tools/gen_build_features.py --ucx /path/to/ucx.git --ompi /path/to/ompi.git \\
        --nccl-tests /path/to/nccl-tests.git --apex /path/to/apex.git --te /path/to/TransformerEngine.git \\
        [--record] [-o OUT]
    python tools/gen_build_features.py --slice tools/data/build_features_slice.txt -o OUT   (the test)

Sources: openucx/ucx (https://github.com/openucx/ucx), open-mpi/ompi (https://github.com/open-mpi/ompi),
NVIDIA/nccl-tests (https://github.com/NVIDIA/nccl-tests), NVIDIA/apex (https://github.com/NVIDIA/apex),
NVIDIA/TransformerEngine (https://github.com/NVIDIA/TransformerEngine), read with `git show REV:path`.
"""

import ast

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_build_features.py"
SLICE = os.path.join(knowgen.ROOT, "tools", "data", "build_features_slice.txt")
UCX_REV, NCCL_TESTS_REV, APEX_REV, TE_REV = "HEAD", "HEAD", "HEAD", "HEAD"
OMPI_TAGS = ("v3.1.6", "v4.1.8", "v5.0.9")
OMPI_FILES = ("ompi/mca/pml/ucx/pml_ucx.c", "ompi/mca/osc/ucx/osc_ucx_component.c", "opal/mca/common/ucx/common_ucx.c")

# the package -> (knowledge family, what to check the build with, what to rebuild after it)
PACKAGES = {
    "ucx": ("ucx.build_feature", "ucx_info -b | grep -E '{macro}'   (the build's defines: 0 or absent = off)",
            "then rebuild what links UCX (Open MPI's pml ucx, NCCL's UCX plugin) against it"),
    "nccl-tests": ("nccltests.build", "ls $%s/include/%s",
                   "make clean first: objects built with the old flags stay otherwise"),
}

# ---------------------------------------------------------------- configure options (autoconf)

_ARG = re.compile(r"AC_ARG_(ENABLE|WITH)\(\s*\[?([\w-]{1,60})\]?")
_HELP = re.compile(r"AS_HELP_STRING\(\s*\[([^\]\n]{1,120})\]\s*,\s*\[([^\]]{1,400})\]")
_PROBE = re.compile(r"\bAC_(?:MSG_CHECKING|CHECK_\w{1,20}|COMPILE_IFELSE|LINK_IFELSE|RUN_IFELSE|PREPROC_IFELSE)\b")
_DEFINE = re.compile(r"AC_DEFINE(?:_UNQUOTED)?\(\s*\[?(\w{1,80})\]?\s*,\s*\[?([^\],)\n]{0,40})")


def options(files):
    """{macro: (option, help, path:line)} of the configure files: each AC_DEFINE of a macro inside the block of an
    AC_ARG_ENABLE / AC_ARG_WITH (up to the next one) that tests the option's variable before it, with the value 1
    (the feature on)."""
    out = {}
    for path, src in files:
        if not (path == "configure.ac" or path.endswith(".m4")):
            continue
        args = list(_ARG.finditer(src))
        for i, m in enumerate(args):
            end = args[i + 1].start() if i + 1 < len(args) else len(src)
            block = src[m.start():end]
            kind, name = m.group(1).lower(), m.group(2)
            var = "%s_%s" % ("enable" if kind == "enable" else "with", name.replace("-", "_"))
            help_ = _HELP.search(block)
            flag = help_.group(1).split("=")[0].split("(")[0].strip() if help_ else "--%s-%s" % (kind, name)
            for d in _DEFINE.finditer(block):
                if d.group(2).strip() != "1" or "$" + var not in block[:d.start()]:
                    continue
                # the define follows the option's own test, not a probe after it (a header or library found:
                # detection decides that macro, not the option)
                if _PROBE.search(block[block.rfind("$" + var, 0, d.start()):d.start()]):
                    continue
                line = src.count("\n", 0, m.start()) + 1
                out.setdefault(d.group(1), (flag, " ".join(help_.group(2).split()) if help_ else "",
                                            "%s:%d" % (path, line)))
    return out


# ---------------------------------------------------------------- message sites in a feature's off branch

_COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_COND_MACRO = re.compile(r"^(!?)\s*(?:defined\s*\(?\s*)?([A-Z_][A-Z0-9_]{1,80})\s*\)?\s*(?:/[*/].*)?$")
_UCS_LOG = re.compile(r"\bucs_(error|warn|diag|fatal)\s*\(")
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def _format_at(src, i):
    """The format of the logging call whose '(' ends at offset ``i``: its adjacent string literals, joined."""
    stmt = src[i:knowgen.statement_end(src, i)]
    first = re.match(r'\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)', stmt)
    return "".join(_LITERAL.findall(first.group(1))) if first else None


def off_branch_sites(path, src, macros, calls=_UCS_LOG, fmt_at=None):
    """(line, level, format, macro) of each logging call (``calls``: UCX's ucs_* by default) compiled only when one
    of ``macros`` is off; ``fmt_at(src, offset after '(')`` reads its format (_format_at by default)."""
    stack, pos = [], 0
    for n, line in enumerate(src.split("\n"), 1):
        start, pos = pos, pos + len(line) + 1
        m = _COND.match(line)
        if m:
            kind, rest = m.group(1), m.group(2).strip()
            if kind in ("if", "ifdef", "ifndef"):
                c = _COND_MACRO.match(rest)
                stack.append([c.group(2), (c.group(1) == "!") != (kind == "ifndef")] if c else [None, False])
            elif kind == "else" and stack:
                stack[-1][1] = not stack[-1][1]
            elif kind == "elif" and stack:
                stack[-1] = [None, False]
            elif kind == "endif" and stack:
                stack.pop()
            continue
        for call in calls.finditer(line):
            off = [s[0] for s in stack if s[1] and s[0] in macros]
            fmt = (fmt_at or _format_at)(src, start + call.end()) if off else None
            if off and fmt:
                yield n, call.group(1).lower(), fmt, off[-1]


# ---------------------------------------------------------------- Open MPI's UCX glue: UCX's thread mode

_OMPI_UCX_LOG = re.compile(r"\b(PML_UCX|OSC_UCX|MCA_COMMON_UCX)_(ERROR|WARN|VERBOSE)\s*\(")
_THREAD_TEST = re.compile(r"thread_mode\s*!=\s*UCS_THREAD_MODE_MULTI")
_UCX_MT_GUARD = re.compile(r"#if ENABLE_MT\s*\n\s*worker->flags \|= UCP_WORKER_FLAG_THREAD_MULTI;")


def thread_mode_sites(path, src):
    """(line, level, format) of each UCX-glue logging call inside the `if` that tests the UCP thread mode against
    UCS_THREAD_MODE_MULTI (the statements up to the `if`'s closing brace)."""
    for t in _THREAD_TEST.finditer(src):
        body = src.find("{", t.end())
        if body < 0:
            continue
        depth, k = 0, body
        while k < len(src):
            depth += {"{": 1, "}": -1}.get(src[k], 0)
            if depth == 0:
                break
            k += 1
        for call in _OMPI_UCX_LOG.finditer(src, body, k):
            if call.group(2) == "VERBOSE":
                # PML_UCX_VERBOSE(level, fmt, ...): the format is the second argument
                comma = src.find(",", call.end())
                fmt = _format_at(src, comma + 1) if comma > 0 else None
            else:
                fmt = _format_at(src, call.end())
            if fmt:
                yield src.count("\n", 0, call.start()) + 1, call.group(2).lower(), fmt


# ---------------------------------------------------------------- nccl-tests' Makefile and includes

_MK_INCLUDE = re.compile(r"-I\$\((\w{1,40})\)/include")
_MK_IF = re.compile(r"^\s*ifeq\s*\(\s*\$\((\w{1,40})\)\s*,\s*(\w{1,20})\s*\)")
_MK_IFNEQ = re.compile(r"^\s*ifneq\s*\(\s*\$\((\w{1,40})\)\s*,")
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([\w./-]{1,80}\.h)[>"]')


def makefile_vars(src):
    """{VAR: condition or None} of the `-I$(VAR)/include` flags of a Makefile, with the `ifeq ($(X), V)` that adds
    each (as 'X=V')."""
    out, cond = {}, []
    for line in src.split("\n"):
        m, n = _MK_IF.match(line), _MK_IFNEQ.match(line)
        if m:
            cond.append("%s=%s" % (m.group(1), m.group(2)))
        elif n:
            cond.append(None)
        elif re.match(r"^\s*endif\b", line) and cond:
            cond.pop()
        for v in _MK_INCLUDE.findall(line):
            out.setdefault(v, next((c for c in reversed(cond) if c), None))
    return out


def foreign_includes(path, src, tree):
    """(line, header, macro or None) of each #include of a header the tree does not hold (an installed package's),
    with the #ifdef it is under."""
    stack = []
    for n, line in enumerate(src.split("\n"), 1):
        m = _COND.match(line)
        if m and m.group(1) in ("if", "ifdef", "ifndef"):
            c = _COND_MACRO.match(m.group(2).strip())
            stack.append(c.group(2) if c and m.group(1) != "ifndef" and not c.group(1) else None)
            continue
        if m and m.group(1) == "endif" and stack:
            stack.pop()
            continue
        if m:
            continue
        inc = _INCLUDE.match(line)
        if inc and not any(p.endswith("/" + inc.group(1)) or p == inc.group(1) for p in tree):
            yield n, inc.group(1), next((s for s in reversed(stack) if s), None)


# the package whose prefix a nccl-tests variable names, and the header that tells it is that package's own
_PREFIX_OF = {"MPI_HOME": ("mpi.h", "the MPI installation (the prefix of `which mpicc`: its include/mpi.h)"),
              "NCCL_HOME": ("nccl.h", "NCCL (the directory with include/nccl.h and lib/libnccl.so)"),
              "CUDA_HOME": ("cuda_runtime.h", "the CUDA toolkit (/usr/local/cuda)")}


def _missing_header_re(including, header):
    inc, h = re.escape(including.rsplit("/", 1)[-1]), re.escape(header)
    return (r"(?:^|[\s/])%s:\d{1,6}(?::\d{1,4})?: fatal error: (?:%s: No such file or directory|'%s' file not found)"
            % (inc, h, h))


# ---------------------------------------------------------------- Apex's setup.py: the extension modules of each flag

_EXTENSION_CALLS = ("CUDAExtension", "CppExtension")


def _const(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def apex_extensions(src):
    """([(module, flag, env var, line)], {env var: flag}) of Apex's setup.py: each CUDAExtension / CppExtension built
    inside an `if has_flag(FLAG, ENV):` block (its name: the `name=` keyword or the first argument), and the
    ENV_TO_FLAG table."""
    tree = ast.parse(src)
    env_to_flag = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ENV_TO_FLAG"
                                                for t in node.targets) and isinstance(node.value, ast.Dict):
            env_to_flag = {_const(k): _const(v) for k, v in zip(node.value.keys, node.value.values)
                           if _const(k) and _const(v)}
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Call) and
                isinstance(node.test.func, ast.Name) and node.test.func.id == "has_flag" and len(node.test.args) == 2):
            continue
        flag, env = _const(node.test.args[0]), _const(node.test.args[1])
        if not flag or not env:
            continue
        for stmt in node.body:
            for call in ast.walk(stmt):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and
                        call.func.id in _EXTENSION_CALLS):
                    continue
                name = next((_const(k.value) for k in call.keywords if k.arg == "name"), None) or \
                    (_const(call.args[0]) if call.args else None)
                if name:
                    out.append((name, flag, env, call.lineno))
    return out, env_to_flag


# ---------------------------------------------------------------- Transformer Engine: setup.py -> CMake -> #ifdef

_TE_ENV = re.compile(r'if bool\(int\(os\.getenv\("(?P<env>NVTE_\w{1,60})", "0"\)\)\):\n(?P<body>(?:[ \t]{8}[^\n]*\n|[ \t]*\n){0,12}?)'
                     r'[ \t]{8}cmake_flags\.append\("-D(?P<opt>NVTE_\w{1,60})=ON"\)')
_TE_NEEDS = re.compile(r'os\.getenv\("(\w{1,40})"\) is not None')
_CMAKE_OPTION = re.compile(r'option\((NVTE_\w{1,60}) "([^"\n]{1,200})" OFF\)\s*\nif \(\1\)(?P<body>(?:\n(?!endif)[^\n]*){0,80})\n'
                           r'endif')
_TE_LOG = re.compile(r"\b(NVTE_ERROR|NVTE_CHECK)\s*\(")


def te_options(setup, cmake):
    """{macro: (env var, [variables the block requires], CMake option's description)} of Transformer Engine: each
    setup.py block that turns NVTE_X=1 into -DNVTE_X=ON, whose CMake option defines the macro
    (target_compile_definitions(... NVTE_X) under `if (NVTE_X)`)."""
    defined = {m.group(1): m.group(2) for m in _CMAKE_OPTION.finditer(cmake)
               if re.search(r"target_compile_definitions\([^)]{0,200}\b%s\b" % m.group(1), m.group("body"))}
    out = {}
    for m in _TE_ENV.finditer(setup):
        if m.group("env") == m.group("opt") and m.group("opt") in defined:
            out[m.group("opt")] = (m.group("env"), _TE_NEEDS.findall(m.group("body")), defined[m.group("opt")])
    return out


def _te_format(src, i):
    """The message of an NVTE_ERROR(...) / NVTE_CHECK(cond, ...) whose '(' ends at ``i``: its string literals joined
    (std::string("a") + std::string("b") is one string), an expression between them %s."""
    stmt = src[i:knowgen.statement_end(src, i)]
    if src[i - len("NVTE_CHECK("):i].startswith("NVTE_CHECK"):
        depth, k = 0, 0
        while k < len(stmt) and not (stmt[k] == "," and depth == 0):  # the condition, then the message
            depth += {"(": 1, ")": -1}.get(stmt[k], 0)
            k += 1
        stmt = stmt[k + 1:]
    lits = list(_LITERAL.finditer(stmt))
    if not lits:
        return None
    out, pos = [], 0
    for m in lits:
        gap = re.sub(r"std::string\s*\(|\)|\+|\s", "", stmt[pos:m.start()])
        if out and gap:
            out.append("%s")
        out.append(m.group(1))
        pos = m.end()
    return "".join(out)


def te_sites(path, src, macros):
    """(line, format, macro) of each NVTE_ERROR / NVTE_CHECK compiled only when one of ``macros`` is off."""
    for line, _level, fmt, macro in off_branch_sites(path, src, macros, _TE_LOG, _te_format):
        yield line, fmt, macro


# ---------------------------------------------------------------- build

def build(files, version):
    ucx = [(p[len("ucx/"):], s) for p, s in files if p.startswith("ucx/")]
    macros = options(ucx)
    sites = []
    fam, check, after = PACKAGES["ucx"]
    for path, src in ucx:
        if not path.startswith("src/"):
            continue
        for line, level, fmt, macro in off_branch_sites(path, src, macros):
            flag, help_, where_opt = macros[macro]
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "ucx.%s" % knowgen.slug("%s:%d" % (path, line)), "package": "ucx",
                    "where": "%s:%d" % (path, line), "text": fmt, "level": level, "macro": macro, "option": flag,
                    "option_where": where_opt, "option_help": help_}
            if not knowgen.unanchored(site, rx, literal, 24):
                site.update({"re": rx, "family": fam, "rule": "off-branch",
                             "means": "This UCX was built without %s (configure %s%s, %s); this message is "
                                      "compiled only when %s is off." % (
                                          macro, flag, ": '%s'" % help_ if help_ else "", where_opt, macro),
                             "fix": ["rebuild UCX with %s (./contrib/configure-release %s --prefix=<prefix>; make "
                                     "install); %s" % (flag, flag, after),
                                     "check: %s" % check.format(macro=macro)]})
            sites.append(site)
    # Open MPI's UCX glue against UCX's thread support (decided by ENABLE_MT: UCX's own source says so)
    worker = next((s for p, s in ucx if p == "src/ucp/core/ucp_worker.c"), "")
    mt = macros.get("ENABLE_MT")
    if not (mt and _UCX_MT_GUARD.search(worker)):
        raise SystemExit("UCX's ucp_worker.c no longer sets UCP_WORKER_FLAG_THREAD_MULTI under #if ENABLE_MT (or "
                         "configure has no --enable-mt): read the thread-mode rule again")
    seen = set()
    for path, src in files:
        if not path.startswith("ompi@"):
            continue
        tag, real = path[len("ompi@"):].split("/", 1)
        for line, level, fmt in thread_mode_sites(real, src):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "ompi.%s" % knowgen.slug("%s:%d" % (real, line)), "package": "ucx",
                    "where": "%s:%d (Open MPI %s)" % (real, line, tag), "text": fmt, "level": level,
                    "macro": "ENABLE_MT", "option": mt[0], "option_where": mt[2], "option_help": mt[1]}
            if not knowgen.unanchored(site, rx, literal, 24):
                site.update({"re": rx, "family": fam, "rule": "ucx-thread-mode",
                             "means": "Open MPI asked UCX for a multi-threaded worker (MPI_THREAD_MULTIPLE: the "
                                      "program's MPI_Init_thread, or mpi4py / a framework that asks for it) and the "
                                      "UCX it loaded was built without thread support (configure %s, %s: UCX gives "
                                      "a worker UCS_THREAD_MODE_MULTI only when ENABLE_MT is on)." % (mt[0], mt[2]),
                             "fix": ["rebuild UCX with %s (./contrib/configure-release %s --prefix=<prefix>; make "
                                     "install), then rebuild Open MPI --with-ucx=<that prefix> (or point "
                                     "LD_LIBRARY_PATH at it)" % (mt[0], mt[0]),
                                     "check: ucx_info -b | grep ENABLE_MT   (#define ENABLE_MT 1 when it has it); or "
                                     "ask for less: MPI_THREAD_SERIALIZED / FUNNELED (mpi4py: mpi4py.rc.thread_level "
                                     "= 'serialized' before importing MPI)"]})
            sites.append(site)
    # nccl-tests: the Makefile's prefix variables and the headers found through them
    nt = [(p[len("nccl-tests/"):], s) for p, s in files if p.startswith("nccl-tests/")]
    mk = next((s for p, s in nt if p == "src/Makefile"), "")
    tree = [p for p, _ in nt if p != "TREE"] + next((s.split() for p, s in nt if p == "TREE"), [])
    prefix = makefile_vars(mk)
    fam, check, after = PACKAGES["nccl-tests"]
    for path, src in nt:
        if not path.endswith((".h", ".cu", ".cc")):
            continue
        for line, header, macro in foreign_includes(path, src, tree):
            var = next((v for v, (h, _) in _PREFIX_OF.items() if h == header and v in prefix), None)
            if var is None:
                continue
            cond = prefix[var]
            make = "make %s%s=<prefix>" % ("%s " % cond if cond else "", var)
            site = {"id": "nccltests.%s" % knowgen.slug("%s:%d" % (path, line)), "package": "nccl-tests",
                    "where": "%s:%d" % (path, line), "text": "%s: fatal error: %s: No such file or directory" % (
                        path.rsplit("/", 1)[-1], header), "level": "error", "macro": macro, "option": var,
                    "option_where": "src/Makefile (-I$(%s)/include%s)" % (var, ", under ifeq %s" % cond if cond else ""),
                    "re": _missing_header_re(path, header), "family": fam, "rule": "prefix-include",
                    "means": "nccl-tests' %s includes %s%s, which the compiler finds only through src/Makefile's "
                             "-I$(%s)/include: %s is not the prefix of %s here (or not given)." % (
                                 path, header, " (under %s)" % macro if macro else "", var, var, _PREFIX_OF[var][1]),
                    "fix": ["%s (%s), e.g. %s; %s" % (make, _PREFIX_OF[var][1], "make MPI=1 MPI_HOME=$(dirname "
                                                      "$(dirname $(which mpicc)))" if var == "MPI_HOME" else
                                                      "make %s=/usr/local/cuda" % var if var == "CUDA_HOME" else
                                                      "make %s=/usr/local/nccl (or /usr for the libnccl-dev package)"
                                                      % var, after),
                            "check: %s" % check % (var, header)]}
            sites.append(site)
    # Transformer Engine: a feature its build left out
    te_setup = next((src for p, src in files if p == "te/setup.py"), None)
    te_cmake = next((src for p, src in files if p == "te/transformer_engine/common/CMakeLists.txt"), "")
    te_macros = te_options(te_setup, te_cmake) if te_setup else {}
    seen = set()
    for path, src in files:
        if not path.startswith("te/transformer_engine/common/") or not path.endswith((".cpp", ".h", ".cu", ".cuh")):
            continue
        real = path[len("te/"):]
        for line, fmt, macro in te_sites(real, src, te_macros):
            if fmt in seen:
                continue
            seen.add(fmt)
            env, needs, desc = te_macros[macro]
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "te.%s" % knowgen.slug("%s:%d" % (real, line)), "package": "transformer-engine",
                    "where": "%s:%d" % (real, line), "text": fmt, "level": "error", "macro": macro, "option": env,
                    "option_where": "setup.py (NVTE env -> -D%s=ON), transformer_engine/common/CMakeLists.txt "
                                    "(option %s)" % (macro, macro), "option_help": desc}
            if not knowgen.unanchored(site, rx, literal, 24):
                envs = " ".join(["NVTE_FRAMEWORK=pytorch", "%s=1" % env] + ["%s=<path>" % v for v in needs])
                site.update({"re": rx, "family": "megatron.dependency", "rule": "te-off-branch",
                             "means": "This Transformer Engine was built without %s (%s: %s=1 at build time turns "
                                      "on CMake's %s); this error is compiled only when %s is off." % (
                                          macro, desc, env, macro, macro),
                             "fix": ["rebuild Transformer Engine with it: %s pip install --no-build-isolation -v "
                                     "<TransformerEngine checkout or git+https://github.com/NVIDIA/TransformerEngine"
                                     ".git@stable>%s" % (envs, "" if not needs else " (%s: the install prefix)"
                                                         % ", ".join(needs)),
                                     "or use what the build has: a Transformer Engine wheel or NGC container built "
                                     "with it, or the feature's other backend (the option that chose %s)" % macro]})
            sites.append(site)
    # Apex: a module its Python-only build does not have
    apex = next((src for p, src in files if p == "apex/setup.py"), None)
    if apex is not None:
        exts, env_to_flag = apex_extensions(apex)
        core = " ".join("%s=1" % e for e, f in sorted(env_to_flag.items()) if f in ("--cpp_ext", "--cuda_ext"))
        seen = set()
        for name, flag, env, line in exts:
            if name in seen:
                continue
            seen.add(name)
            envs = core + ("" if flag in ("--cpp_ext", "--cuda_ext") else " %s=1" % env)
            site = {"id": "apex.%s" % knowgen.slug(name), "package": "apex", "where": "setup.py:%d" % line,
                    "text": "No module named '%s'" % name, "level": "error", "macro": env, "option": flag,
                    "option_where": "setup.py (if has_flag(%r, %r))" % (flag, env),
                    "re": r"No module named '%s'" % re.escape(name), "family": "code.python_env",
                    "rule": "apex-extension",
                    "means": "%s is a compiled extension of Apex that its setup.py builds only with %s (%s=1): this "
                             "Apex was installed without it (the Python-only build, `pip install apex` from PyPI "
                             "(another project), or a build whose compiler step was skipped)." % (name, flag, env),
                    "fix": ["rebuild Apex with it from its checkout: %s pip install -v --no-build-isolation "
                            "--no-cache-dir ./   (or --config-settings \"--build-option=%s\"); nvcc of torch.version."
                            "cuda on PATH" % (envs, flag),
                            "check: python -c 'import %s'   (after the rebuild, in the job's environment)" % name]}
            sites.append(site)
    return {"header": knowgen.header(
        "openucx/ucx (https://github.com/openucx/ucx) configure.ac, config/m4, src; open-mpi/ompi "
        "(https://github.com/open-mpi/ompi) %s; NVIDIA/nccl-tests (https://github.com/NVIDIA/nccl-tests) src/Makefile "
        "and src; NVIDIA/apex (https://github.com/NVIDIA/apex) setup.py; NVIDIA/TransformerEngine "
        "(https://github.com/NVIDIA/TransformerEngine) setup.py, transformer_engine/common" % ", ".join(OMPI_FILES),
        version, GENERATOR,
        "messages printed because a build lacks a feature, with the configure option or make variable that gives "
        "it: UCX's off-branch log formats of its configure macros, Open MPI's UCX thread-mode check (UCX's "
        "--enable-mt), nccl-tests' headers found through its Makefile's prefix variables, Apex's extension modules "
        "of each setup.py flag, Transformer Engine's off-branch errors of its NVTE_* build options"), "sites": sites}


def _spans_of(path, src):
    """The lines the slice keeps of a file: each site's #if...#endif (or if-block) with the logging call, each
    configure option's block, the Makefile whole and the include lines."""
    lines = src.split("\n")
    if path.endswith("configure.ac") or path.endswith(".m4"):
        for m in _ARG.finditer(src):
            a = src.count("\n", 0, m.start()) + 1
            if "AC_DEFINE" in "\n".join(lines[a - 1:a + 14]):
                yield a, min(len(lines), a + 14)
        return
    if path.endswith("Makefile"):
        yield 1, len(lines)
        return
    if path.startswith("ompi@"):
        for t in _THREAD_TEST.finditer(src):  # the if-block whole (thread_mode_sites reads its braces)
            body = src.find("{", t.end())
            depth, k = 0, body
            while 0 <= k < len(src):
                depth += {"{": 1, "}": -1}.get(src[k], 0)
                if depth == 0:
                    break
                k += 1
            yield src.count("\n", 0, t.start()) + 1, src.count("\n", 0, max(k, t.start())) + 1
        return
    for n, line in enumerate(lines, 1):
        if _UCS_LOG.search(line) or _TE_LOG.search(line) or _INCLUDE.match(line) or _COND.match(line) or \
                "UCP_WORKER_FLAG_THREAD_MULTI;" in line:
            yield n, n + (2 if not _INCLUDE.match(line) and not _COND.match(line) else 0)


def from_repos(a):
    ucx, ompi, nt = knowgen.git_reader(a.ucx), knowgen.git_reader(a.ompi), knowgen.git_reader(a.nccl_tests)
    files = [("ucx/" + p, s) for p, s in knowgen.tree_files(
        ucx, UCX_REV, ("configure.ac", "config/m4", "src"),
        lambda p: p == "configure.ac" or p.endswith(".m4") or (p.endswith((".c", ".h", ".inl")) and "/test" not in p))]
    for tag in OMPI_TAGS:
        for p in OMPI_FILES:
            try:
                files.append(("ompi@%s/%s" % (tag, p), ompi("show", "%s:%s" % (tag, p))))
            except Exception:  # noqa: BLE001  (a file a release does not have: osc ucx before 4.0)
                continue
    names = nt("ls-tree", "-r", "--name-only", NCCL_TESTS_REV, "--", "src").split()
    files += [("nccl-tests/" + p, nt("show", "%s:%s" % (NCCL_TESTS_REV, p))) for p in names
              if p == "src/Makefile" or p.endswith((".h", ".cu"))]
    files.append(("nccl-tests/TREE", "\n".join(names)))
    apex = knowgen.git_reader(a.apex)
    files.append(("apex/setup.py", apex("show", "%s:setup.py" % APEX_REV)))
    te = knowgen.git_reader(a.te)
    files += [("te/" + p, s) for p, s in knowgen.tree_files(
        te, TE_REV, ("setup.py", "transformer_engine/common"),
        lambda p: p in ("setup.py", "transformer_engine/common/CMakeLists.txt") or
        p.endswith((".cpp", ".h", ".cu", ".cuh")))]
    version = "ucx %s; ompi %s; nccl-tests %s; apex %s; transformer-engine %s" % (
        knowgen.revision(ucx, UCX_REV), ", ".join(knowgen.revision(ompi, t, describe=False) for t in OMPI_TAGS),
        knowgen.revision(nt, NCCL_TESTS_REV), knowgen.revision(apex, APEX_REV), knowgen.revision(te, TE_REV))
    return files, version


def _record(path, version, files, sites):
    """The slice: the lines of each file that make its sites (_spans_of), the tree listing of nccl-tests whole."""
    kept = []
    for p, src in files:
        if p in ("nccl-tests/TREE", "apex/setup.py", "te/setup.py", "te/transformer_engine/common/CMakeLists.txt"):
            kept.append((p, src))
            continue
        lines = src.split("\n")
        spans = sorted(set(_spans_of(p, src)))
        if not spans:
            continue
        keep = set()
        for a, b in spans:
            keep.update(range(a, b + 1))
        if not any(s["where"].split(" ")[0].startswith(p.split("/", 1)[1]) for s in sites) and \
                not p.endswith(("configure.ac", ".m4", "Makefile", "ucp_worker.c")):
            continue
        kept.append((p, "\n".join(lines[n - 1] if n in keep else "" for n in range(1, len(lines) + 1))))
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: the lines of each source file that make its sites (others blank, so "
                "line numbers hold)\n#! version %s\n" % (GENERATOR, version))
        for p, text in kept:
            f.write("=== %s\n%s\n" % (p, text.rstrip("\n")))


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=("ucx", "ompi", "nccl-tests", "apex", "te"), extra=[
        ("--record", {"action": "store_true", "help": "write the slice (%s)" % SLICE})])
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
        files = [(p, s.rstrip("\n")) for p, s in files]
    else:
        files, version = from_repos(a)
    doc = build(files, version)
    if not a.slice and a.record:
        _record(SLICE, version, files, doc["sites"])
    return knowgen.emit("build_features", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
