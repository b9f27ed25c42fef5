#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/triton_messages.json: what Triton prints when it cannot build the small C
launcher it compiles at run time (no C compiler, the linker finds no libcuda, Python's headers missing), when a kernel
needs more shared memory than the GPU has, when ptxas fails, and when no GPU driver is active.

Read from the triton wheel (PyPI), never executed (tools/wheelmsgs.py): every `raise X("...")`, `assert ..., "..."`
and logger .error / .warning call of FILES, a message built in a variable first (driver.py: `msg = 'libcuda.so cannot
found!\\n'; msg += ...; assert ..., msg`), the messages of the exception classes' __str__ (runtime/errors.py:
OutOfResources, PTXASError), and the C launcher's PyErr_SetString texts (backends/nvidia/driver.c). Besides, what the
toolchain prints when Triton's build of that launcher fails, read from the code that runs it:
  - runtime/build.py's cc_cmd (`[cc, src, "-O3", "-shared", "-fPIC", ..., "-o", so]`): the CalledProcessError that
    subprocess.check_call raises ("Command '[...]' returned non-zero exit status 1.") is matched on the list's repr;
  - backends/nvidia/driver.py's `libraries` (['cuda'] in triton 3.0, ['libcuda.so.1'] now, passed as -l<lib> or
    -l:<lib>, build.py _library_flag): GNU ld's "cannot find -l<lib>" (binutils ld/ldfile.c, ldfile_open_file:
    "%P: cannot find %s" / "%P: cannot find -l%s");
  - each header the launcher #includes that no C library ships (Python.h, cuda.h): GCC's "fatal error: <h>: No such
    file or directory" (libcpp/files.cc, open_file_failed) and clang's "fatal error: '<h>' file not found".
Each becomes a bounded matcher assigned to a knowledge family (knowledge/triton.toml) by RULES; MSG_FIX gives a
message its own meaning and fix, written from the condition that raises it; warnings are context only.

Usage:
    pip download --no-deps --only-binary :all: triton -d /tmp/w; pip download ... triton==3.0.0 -d /tmp/w
    python tools/gen_triton_messages.py --wheel /tmp/w/triton-3.9.0-...whl --older /tmp/w/triton-3.0.0-...whl \\
        [--record tools/data/triton_messages_slice.txt] [-o OUT]
    python tools/gen_triton_messages.py --slice tools/data/triton_messages_slice.txt -o OUT   (the test)

Source: triton (https://pypi.org/project/triton/, MIT; https://github.com/triton-lang/triton, python/triton/ and
third_party/nvidia/backend/): runtime/build.py, runtime/errors.py, runtime/driver.py, runtime/cache.py,
runtime/autotuner.py, runtime/jit.py, compiler/compiler.py, compiler/errors.py, backends/nvidia/driver.py,
backends/nvidia/compiler.py, backends/nvidia/driver.c, the C++ compiler's messages in _C/libtriton.so (BINARY_NEEDLES) and
the bundled ptxas' messages about a GPU or PTX version it does not know (PTXAS_NEEDLES).
The regenerated table read triton 3.9.0 and the older 3.0.0.
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_triton_messages.py"
FILES = (r"^triton/(?:runtime/(?:build|errors|driver|cache|autotuner|jit)\.py|compiler/(?:compiler|errors)\.py|"
         r"backends/nvidia/(?:driver|compiler)\.py|backends/nvidia/driver\.c)$")

# Headers a C toolchain's own library ships (C11 7.1.2, POSIX.1-2017 headers): their absence is no Triton matter
STANDARD_HEADERS = frozenset("""assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h
math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h
string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h dlfcn.h pthread.h unistd.h fcntl.h sys/types.h
sys/stat.h sys/mman.h""".split())

_BUILD = (r"Failed to find C(?:\+\+)? compiler|libcuda\.so cannot found|Failed to open libcuda|^cannot find -l|"
          r"^'%s', '-O3', '-shared'|from libcuda\.so\.1")
# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("internal", None, {"text": r"should not happen|^Unexpected |^Internal Triton|Unknown key|Signature keys must|"
                                r"must be of GPUTarget type|source must be either"}),
    # GCC's / clang's "fatal error: <header>: No such file or directory" for the launcher's #includes is what every C
    # build prints for that header (psutil's or any C extension's setup.py lacks Python.h the same way): no family by
    # the line alone; triton.toml's triton.build takes it beside Triton's own lines (its build.py frame, a `together`
    # with a triton/ path or a TRITON_ variable)
    ("compiler-header", None, {"text": r"^fatal error: "}),
    ("launcher-build", "triton.build", {"text": _BUILD}),
    ("no-driver", "cuda.not_available", {"text": r"active drivers \(%s\)\. There should only be one|"
                                                 r"^Backend device '%s' is not active"}),
    ("out-of-resources", "triton.out_of_resources", {"text": r"^out of resource: "}),
    ("ptxas", "triton.ptxas", {"text": r"PTXAS error|`ptxas`|ptxas|TRITON_PTXAS_PATH|only support CUDA 10\.0 or higher|"
                                       r"for option 'gpu-name'|^Unsupported \.version "}),
    ("cache", "triton.cache", {"text": r"cache dir"}),
    ("compile", "triton.compile", {"text": r"^PassManager::run failed$|^Failures have been detected while processing an "
                                           r"MLIR pass pipeline$"}),
    # the kernel's own code and its launch: @triton.jit, autotune configs, compile() of the kernel (ctx-: by file)
    ("ctx-kernel", "triton.usage", {"level": r"^(?:raise|error)$",
                                    "where": r"^triton/(?:runtime/(?:jit|autotuner)|compiler/compiler|"
                                             r"backends/nvidia/compiler)\.py:"}),
]

# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^Failed to find C compiler",
     "triton/runtime/build.py _find_compiler(): Triton compiles a small C launcher for each kernel signature the first "
     "time it runs, with $CC, else gcc, else clang from PATH; none was found (a slim image without a compiler).",
     ["install a C compiler where the job runs (apt-get install -y gcc / dnf install -y gcc, or build-essential), or "
      "export CC=<path of an installed gcc/clang>"]),
    (r"^libcuda\.so cannot found!",
     "triton/backends/nvidia/driver.py libcuda_dirs(): Triton links its launcher against the driver's libcuda.so.1 and "
     "found it neither in `/sbin/ldconfig -p` nor on LD_LIBRARY_PATH (a container started without the NVIDIA runtime, "
     "or a driver installed outside the linker cache).",
     ["export TRITON_LIBCUDA_PATH=<the folder holding libcuda.so.1> (find / -name 'libcuda.so*' 2>/dev/null; in WSL "
      "/usr/lib/wsl/lib)", "or refresh the linker cache: sudo ldconfig (the message's advice); in a container start "
      "it with the GPUs (docker run --gpus all)"]),
    (r"^cannot find -l",
     "GNU ld could not find the library Triton links its launcher against (triton/backends/nvidia/driver.py "
     "`libraries`: -lcuda in triton <= 3.x, -l:libcuda.so.1 later): -lcuda needs a file named libcuda.so (the driver "
     "installs only libcuda.so.1; the unversioned link comes with a -dev package or CUDA's stubs), in a folder the "
     "linker searches.",
     ["export TRITON_LIBCUDA_PATH=<the folder holding libcuda.so.1> (find / -name 'libcuda.so*' 2>/dev/null) so that "
      "Triton passes it as -L", "or register the driver's folder with the linker: sudo ldconfig (as in the "
      "state-spaces/mamba and triton threads), or export LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LIBRARY_PATH, or "
      "create the link: sudo ln -s libcuda.so.1 <that folder>/libcuda.so"]),
    (r"^'%s', '-O3', '-shared', '-fPIC'",
     "subprocess.check_call of Triton's launcher build (triton/runtime/build.py: `cc <main.c> -O3 -shared -fPIC ... "
     "-lcuda -L... -I...`) failed: the compiler's own message is printed just above this traceback (cannot find "
     "-lcuda, Python.h missing, a CC that is no compiler).",
     ["read the compiler's lines above the traceback: `cannot find -lcuda` -> export TRITON_LIBCUDA_PATH=<folder of "
      "libcuda.so.1> or sudo ldconfig; `Python.h: No such file or directory` -> apt-get install python3-dev; a CC that "
      "is not a C compiler -> unset CC"]),
    (r"^out of resource: %s, Required: %s, Hardware limit: %s",
     "triton/compiler/compiler.py (CompiledKernel._init_handles): the compiled kernel asks for more shared memory (or "
     "threads, tensor memory) per block than this GPU has; the block sizes and num_stages of the kernel's config "
     "decide it (a config tuned for an H100's 228 KiB runs out on GPUs with 100 KiB or less).",
     ["lower BLOCK_M/BLOCK_N/BLOCK_K or num_stages in the kernel's triton.Config (the message's advice); with "
      "autotune keep a smaller config in the list", "torch.compile: mode='max-autotune' skips such configs by "
      "itself; a fixed kernel from a library needs the library's release for this GPU"]),
    (r"^PTXAS error: |`ptxas` failed with error code",
     "triton/backends/nvidia/compiler.py make_cubin(): ptxas (the PTX assembler Triton runs, its own copy in "
     "triton/backends/nvidia/bin or TRITON_PTXAS_PATH) failed on the generated PTX; its stderr follows in the message.",
     ["read the `ptxas` stderr in the message: 'Unsupported .version' / 'not defined for option gpu-name' -> a ptxas "
      "older than this GPU or PTX: unset TRITON_PTXAS_PATH (use Triton's own) or point it at a CUDA toolkit's that "
      "knows the GPU; else upgrade triton (and the torch that pins it)"]),
    (r"^Value '%s' is not defined for option 'gpu-name'$",
     "The ptxas Triton runs (its wheel's backends/nvidia/bin/ptxas, or TRITON_PTXAS_PATH) does not know this GPU's "
     "architecture (--gpu-name=sm_<capability>): a triton release older than the GPU (a Blackwell sm_100 / sm_120 with "
     "triton < 3.3), or a ptxas from an older CUDA toolkit.",
     ["upgrade triton with the torch that pins it (a torch built for CUDA 12.8+ brings a triton that knows sm_100 / "
      "sm_120), or export TRITON_PTXAS_PATH=<a CUDA >= 12.8 toolkit>/bin/ptxas; unset a TRITON_PTXAS_PATH that names "
      "an older one", "if the log is JAX's or TensorFlow's (XLA runs the CUDA toolkit's ptxas, not Triton's): pip "
      "install -U 'jax[cuda12]' (a newer nvidia-cuda-nvcc-cu12) or a newer CUDA toolkit first on PATH"]),
    (r"^Unsupported \.version %s; current version is '%s'",
     "The PTX Triton generated asks for a newer PTX ISA version than the ptxas it runs supports: TRITON_PTXAS_PATH "
     "names an older CUDA toolkit's ptxas than the one the wheel ships.",
     ["unset TRITON_PTXAS_PATH (the wheel's own ptxas matches its PTX), or point it at a newer CUDA toolkit's ptxas"]),
    (r"^Triton only support CUDA 10\.0 or higher",
     "The ptxas Triton found reports a CUDA release older than 10.0 (TRITON_PTXAS_PATH or an old toolkit on PATH).",
     ["unset TRITON_PTXAS_PATH so that Triton uses the ptxas its wheel ships"]),
    (r"active drivers \(%s\)\. There should only be one",
     "triton/runtime/driver.py: no GPU backend is active: Triton found no usable GPU driver (no GPU visible to this "
     "process: CUDA_VISIBLE_DEVICES empty, a container without --gpus, a CPU-only node) when a kernel first ran.",
     ["run where a GPU is visible: nvidia-smi in the same environment; docker run --gpus all; a Slurm job with "
      "--gres=gpu:N; CUDA_VISIBLE_DEVICES unset or naming a GPU"]),
    (r"^PassManager::run failed$|^Failures have been detected while processing an MLIR pass pipeline$",
     "A pass of Triton's compiler (the kernel's MLIR pipeline, python/src/ir.cc) failed: the kernel uses an operation or "
     "type this Triton cannot lower for this GPU (fp8 tl.dot below sm_89, bf16 on pre-Ampere GPUs in older releases, "
     "Hopper-only features elsewhere), or a compiler bug for this kernel; the MLIR error printed just above names the "
     "operation.",
     ["read the MLIR error above the traceback (`error: ...` with the kernel's file and line); run where the GPU "
      "supports the operation or change the dtype, or install the triton release the kernel's library requires "
      "(MLIR_ENABLE_DUMP=1 shows the failing pass)"]),
    (r"^Could not create or locate cache dir",
     "triton/runtime/cache.py FileCacheManager: the kernel cache folder (TRITON_CACHE_DIR, default ~/.triton/cache) "
     "could not be made or found: HOME unset or not writable, a read-only or full file system.",
     ["export TRITON_CACHE_DIR=<a writable folder of your own> (a local disk: /tmp/$USER/triton or the job's "
      "scratch)"]),
]


def _str_messages(src):
    """(level, line, format) of the messages an exception class formats in its __str__ (`return f"out of resource:
    {self.name}, ..."`): the text Python prints after the class name."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for fn in cls.body:
            if isinstance(fn, ast.FunctionDef) and fn.name == "__str__":
                for node in ast.walk(fn):
                    if isinstance(node, ast.Return) and isinstance(node.value, ast.JoinedStr):
                        fmt = knowgen.py_format(node.value)
                        if fmt and re.search(r"[A-Za-z]{3}", fmt.replace("%s", "")):
                            yield "raise", node.lineno, " ".join(fmt.split())


_INCLUDE = re.compile(r'#include\s*(?:<|\\?")([\w./]+)(?:>|\\?")')
_PYERR = re.compile(r'PyErr_SetString\(\s*PyExc_\w+\s*,\s*"((?:[^"\\\n]|\\.)*)"')


def toolchain_sites(path, src):
    """(level, line, format, kind) of what the toolchain prints for the launcher build that ``src`` (one file)
    specifies: 'link' for each library of `libraries = [...]`, 'include' for each non-standard #include, 'command'
    for build.py's cc_cmd, 'c' for a PyErr_SetString text of the C launcher."""
    out = []
    lines = src.splitlines()
    for i, line in enumerate(lines, 1):
        for m in _INCLUDE.finditer(line):
            if m.group(1) not in STANDARD_HEADERS:
                out.append(("raise", i, "fatal error: %s: No such file or directory" % m.group(1), "include"))
                out.append(("raise", i, "fatal error: '%s' file not found" % m.group(1), "include"))
        if path.endswith(".c"):
            for m in _PYERR.finditer(line):
                out.append(("raise", i, knowgen.c_unescape(m.group(1)), "c"))
        if path.endswith(".so") and line.strip():  # binary_strings: one message a line
            out.append(("raise", i, line.strip(), "so"))
        if path.endswith("/bin/ptxas") and line.strip():
            msg = line.strip()
            if msg.startswith("Value '%s' is not defined for option '%s'"):
                # the option Triton gives an architecture: compiler.py's ptxas command, --gpu-name=sm_<capability>
                out.append(("raise", i, "Value '%s' is not defined for option 'gpu-name'", "ptxas"))
            elif msg.startswith("Unsupported .version "):
                out.append(("raise", i, msg, "ptxas"))
    if path.endswith(".py"):
        try:
            tree = ast.parse(textwrap.dedent(src))
        except SyntaxError:
            tree = None
        for node in ast.walk(tree) if tree else ():
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.List)):
                continue
            name, items = node.targets[0].id, node.value.elts
            if name == "libraries" and items and all(isinstance(e, ast.Constant) for e in items):
                for e in items:  # build.py _library_flag: a file name (.so / .so.N / .a) is passed as -l:<name>
                    flag = "-l:%s" % e.value if re.search(r"\.so(?:\.\d+)*$|\.a$", e.value) else "-l%s" % e.value
                    out.append(("raise", node.lineno, "cannot find %s" % flag, "link"))
            elif name == "cc_cmd" and len(items) > 3:
                consts = [e.value for e in items[2:] if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                if "-o" in consts:
                    consts = consts[:consts.index("-o") + 1]
                    # the list as Python's repr prints it inside "Command '[...]' returned non-zero exit status N."
                    out.append(("raise", node.lineno, "'%s', " + ", ".join("'%s'" % c for c in consts) + ", '%s'",
                                "command"))
    return out


def build(files, version):
    sites, seen, ids = [], set(), set()
    sites += wheelmsgs.py_sites(files, "triton.", RULES, MSG_FIX, seen, ids)
    for path, srcs in wheelmsgs.group(files).items():
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        real = m.group(3) if m else path
        found = []
        for src in srcs:
            found += [(lvl, line, fmt, "str") for lvl, line, fmt in _str_messages(textwrap.dedent(src))]
            found += toolchain_sites(real, src)
        for level, line, fmt, kind in sorted(set(found), key=lambda s: (s[1], s[2])):
            if fmt in seen:
                continue
            seen.add(fmt)
            site = wheelmsgs.site_for("triton." + ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else "")
                                      + kind + "_", ids, level, "%s:%d" % (real, line), fmt, RULES, MSG_FIX,
                                      older=m and "%s %s" % (m.group(1), m.group(2)))
            sites.append(site)
    return {"header": knowgen.header("triton (https://pypi.org/project/triton/)", version, GENERATOR,
                                     "raise/assert/logger messages and exception __str__ texts of triton/runtime, "
                                     "triton/compiler and triton/backends/nvidia; the C launcher's PyErr_SetString "
                                     "texts; the compiler's and linker's messages for the launcher's #includes, "
                                     "libraries and build command; families from the RULES table of the generator"),
            "sites": sites}


# Messages of Triton's C++ compiler (python/src/ir.cc: `throw std::runtime_error("PassManager::run failed")` when a pass
# of the kernel's MLIR pipeline fails), read as the printable run of libtriton.so that holds each: their presence in
# the pinned build is what the generator checks
BINARY = "triton/_C/libtriton.so"
# and MLIR's own diagnostic before it (mlir/lib/Pass/Pass.cpp, linked into libtriton.so), printed with the kernel's
# file and line: '<kernel>.py:18:0: error: Failures have been detected while processing an MLIR pass pipeline'
BINARY_NEEDLES = (b"PassManager::run failed", b"Failures have been detected while processing an MLIR pass pipeline")


# The ptxas the wheel ships (backends/nvidia/bin/ptxas, the assembler compiler.py runs): its messages about a GPU or a
# PTX version it does not know, printed as 'ptxas fatal   : <message>' when Triton's launch of it fails
PTXAS = "triton/backends/nvidia/bin/ptxas"
PTXAS_NEEDLES = (b"' is not defined for option '", b"Unsupported .version ")


def binary_strings(wheel, member=BINARY, needles=BINARY_NEEDLES):
    """The printable runs (GNU strings' sense, knowgen.binary_strings) of the wheel's ``member`` (libtriton.so, ptxas)
    that hold one of ``needles``, one a line; found by the needle and widened to its run, so the 500 MB library is
    not split."""
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        if member not in z.namelist():
            return ""
        data = z.read(member)
    out = [r for r in (knowgen.run_around(data, n) for n in needles) if r is not None]
    return "\n".join(out) + "\n"


def read(wheel, older=None):
    files, version = wheelmsgs.from_wheel(wheel, FILES, "triton")
    files.append((BINARY, binary_strings(wheel)))
    files.append((PTXAS, binary_strings(wheel, PTXAS, PTXAS_NEEDLES)))
    if older:
        ofiles, oversion = wheelmsgs.from_wheel(older, FILES, "triton")
        v = oversion.split()[1]
        files += [("older/triton-%s/%s" % (v, p), src) for p, src in ofiles]
        files.append(("older/triton-%s/%s" % (v, PTXAS), binary_strings(older, PTXAS, PTXAS_NEEDLES)))
        version += "; older: " + oversion
    return files, version


def _keep_lines(files, doc):
    """The extra blocks of the slice: the lines toolchain_sites reads (#include lines, PyErr_SetString calls, the
    `libraries` and `cc_cmd` assignments), whole statements, for the sites it made."""
    want = {wheelmsgs.site_key(s) for s in doc["sites"] if (s.get("family") or s.get("rule") == "compiler-header") and
            re.match(r"triton\.(?:[a-z_0-9]+_)?(?:link|include|command|c|str|so|ptxas)_", s["id"])}
    out = []
    for p, src in files:
        lines = src.splitlines()
        for key in sorted(k for k in want if k.rsplit(":", 1)[0] == p):
            ln = int(key.rsplit(":", 1)[1])
            end = ln
            if p.endswith(".py"):
                try:
                    tree = ast.parse(src)
                    node = next((n for n in ast.walk(tree) if isinstance(n, (ast.stmt,)) and n.lineno == ln and
                                 not isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.If, ast.For, ast.With))), None)
                    end = node.end_lineno if node is not None else ln
                except SyntaxError:
                    pass
                text = "\n".join(lines[ln - 1:end])
                if any(isinstance(n, ast.Return) for n in ast.walk(ast.parse(textwrap.dedent(text)))) if \
                        text.strip().startswith("return") else False:
                    # a __str__'s return: recorded inside its class and method, so that _str_messages finds it
                    text = "class E(Exception):\n    def __str__(self):\n" + textwrap.indent(textwrap.dedent(text),
                                                                                                " " * 8)
                    out.append((p, ln - 2, text))
                    continue
                out.append((p, ln, textwrap.dedent(text)))
            else:
                out.append((p, ln, lines[ln - 1]))
    return out


def main(argv):
    return wheelmsgs.main(argv, __doc__, "triton_messages", "triton", read, build, MSG_FIX, GENERATOR,
                          lambda s: s.get("family"), "the statements of the assigned sites and of the launcher's "
                          "#includes", _keep_lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
