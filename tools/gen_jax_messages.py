#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/jax_messages.json: what JAX refuses in the user's own call (an array
whose dimension the mesh axis does not divide, a pmap'ed batch larger than the devices, jax.distributed.initialize
called late, twice or without the coordinator, a mesh that does not fit the devices) and XLA's refusal of an unknown
flag in XLA_FLAGS.

Read, never executed:
  - the jax wheel (PyPI; pure Python) with tools/wheelmsgs.py: every `raise X("...")`, `assert ..., "..."`, logger
    .error / .warning and warnings.warn of FILES (jax/_src: the jit / pjit and pmap front ends, shardings and meshes,
    device_put, jax.distributed and its cluster auto-detection, the backend bridge), a message built in a variable
    first, and a `"...".format(...)` text assigned to a name and raised through it (_format_named: jax <= 0.4's pxla
    `msg = ("compiling computation that requires {} logical devices, ..."); raise ValueError(msg.format(...))`);
    --older adds what an older release printed that the current one no longer does (most threads quote 0.4.x);
  - XLA's GPU allocators (openxla/xla; the jax-cuda plugin links them): the `absl::<Kind>Error(absl::StrCat(...))` of
    xla/stream_executor/integrations/tf_allocator_adapter.cc (its ternaries on one condition taking one branch
    together, a `constexpr absl::string_view` operand resolved: `Out of memory while trying to allocate %s bytes.`, the
    host variant with XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB) and the `absl::StrFormat` formats of
    xla/stream_executor/stream_executor_address_allocator.cc (`Failed to allocate request for %s (%uB) on device
    ordinal %d`) -> xla.oom (a case of cuda.oom);
  - XLA's xla/parse_flags_from_env.cc (openxla/xla at a commit; jaxlib links it): each `LOG(QFATAL) << ...` statement
    read as one message, its string literals joined, each other operand a value, a `(cond ? "s" : "")` operand both
    ways, and the `envvar` operand each environment variable the same function compares it with (XLA_FLAGS,
    TF_XLA_FLAGS): `Unknown flag in XLA_FLAGS: %s%s`, `Could not open file "%s" to read flags for environment
    variable "XLA_FLAGS". ...`.
Each becomes a bounded matcher assigned to a knowledge entry (knowledge/jax.toml) by RULES: a message about the shape
of the user's array against the mesh or the devices -> jax.sharding_shape (a case of usercode.shape_mismatch); the
order or the arguments of jax.distributed.initialize, or a config set after the backend started -> jax.distributed_init
(a case of code.exception: the job's own code calls JAX in an order or with values JAX refuses); XLA's flag parser ->
xla.flags; the rest of the jit / pmap / sharding / mesh front ends -> jax.usage (code.library_error). MSG_FIX gives a
message its own meaning and fix, written from the condition that raises it and JAX's documentation. Messages the
backend bridge prints about a CUDA backend or plugin are generated/framework_libs.json's (jax.backend_init, ...) and
stay unassigned here. Warnings are context only; a raise no rule assigns is listed, never guessed.

Usage:
    pip download --no-deps --only-binary :all: --python-version 3.12 jax==0.12.0 jax==0.4.30 -d /tmp/w  (one each)
    curl -o /tmp/w/parse_flags_from_env.cc \\
        https://raw.githubusercontent.com/openxla/xla/001918b7024cf5f020051a9d25d2dd57a5896aaa/xla/parse_flags_from_env.cc
    curl -o /tmp/w/tf_allocator_adapter.cc https://raw.githubusercontent.com/openxla/xla/\\
370cfa8d30b2fdf224fabb57fc0263f6f14b07e0/xla/stream_executor/integrations/tf_allocator_adapter.cc
    curl -o /tmp/w/stream_executor_address_allocator.cc https://raw.githubusercontent.com/openxla/xla/\\
3bf46366636e052d993bb8a4ad6ba0524daa05b2/xla/stream_executor/stream_executor_address_allocator.cc
    python tools/gen_jax_messages.py --wheel /tmp/w/jax-0.12.0-py3-none-any.whl \\
        --older /tmp/w/jax-0.4.30-py3-none-any.whl \\
        --xla-file /tmp/w/parse_flags_from_env.cc --xla-commit 001918b7024cf5f020051a9d25d2dd57a5896aaa \\
        --xla-file /tmp/w/tf_allocator_adapter.cc --xla-commit 370cfa8d30b2fdf224fabb57fc0263f6f14b07e0 \\
        --xla-file /tmp/w/stream_executor_address_allocator.cc --xla-commit 3bf46366636e052d993bb8a4ad6ba0524daa05b2 \\
        [--record tools/data/jax_messages_slice.txt] [-o OUT]
    python tools/gen_jax_messages.py --slice tools/data/jax_messages_slice.txt -o OUT   (the test)

Sources: jax (https://pypi.org/project/jax/, Apache-2.0; https://github.com/jax-ml/jax, jax/_src/), openxla/xla
(https://github.com/openxla/xla/blob/main/xla/parse_flags_from_env.cc, Apache-2.0). The regenerated table read jax
0.12.0, the older jax 0.4.30 and XLA at 001918b7024cf5f020051a9d25d2dd57a5896aaa.
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_jax_messages.py"
FILES = (r"^jax/_src/(?:api|core|pjit|pmap|sharding|sharding_impls|named_sharding|mesh|mesh_utils|distributed|xla_bridge|"
         r"array|dispatch|errors)\.py$|^jax/_src/clusters/[a-z_0-9]+\.py$|^jax/_src/interpreters/pxla\.py$")
XLA_PATH = "xla/parse_flags_from_env.cc"
# the XLA files read (--xla-file, by their name): the flag parser, and the GPU allocators whose out-of-memory status
# a jitted step gets (the allocator adapter's MemoryAllocationError over JAX's BFC pool; the plain StreamExecutor
# allocator's, without the pool: XLA_PYTHON_CLIENT_ALLOCATOR=platform)
XLA_FILES = {"parse_flags_from_env.cc": XLA_PATH,
             "tf_allocator_adapter.cc": "xla/stream_executor/integrations/tf_allocator_adapter.cc",
             "stream_executor_address_allocator.cc": "xla/stream_executor/stream_executor_address_allocator.cc"}

_SHAPE = (r"implies that array axis %s is partitioned %s times|is not divisible by axis_size|is only valid for values "
          r"of rank at least|^Number of devices %s must (?:equal|be >=) the product of|doesn't match received "
          r"axis_size|requires %s logical devices, but only %s XLA devices are available|requires %s replicas, but "
          r"only %s XLA devices|got inconsistent sizes for array axes to be mapped|^Expected shard shape|does not "
          r"match the number of devices in logical mesh|The size of each axis in your logical mesh|pmapped function "
          r"requires %s local devices")
_DIST = (r"must be called before any JAX calls|should only be called once|config should be updated before backends "
         r"are initialized|^coordinator_address should be defined|^Number of processes must be defined|^The process "
         r"id of the current process must be defined|^process_id must be|^num_processes must be|^process_id and "
         r"num_processes must be|^coordinator_bind_address should be defined|^Automatic Distributed initialization "
         r"can not proceed|^Open MPI 5 or newer requires mpi4py|^Could not parse coordinator IP address|"
         r"jobs must be indexed by setting")
# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("internal", None, {"text": r"file a bug|Please open a bug|^Internal error|^Unreachable|should implement|"
                                r"not implemented|^Unexpected XLA|implemented in C\+\+|^No pxla_result_handler|"
                                r"must implement"}),
    ("jax-distributed", "jax.distributed_init", {"text": _DIST}),
    # jax.Array's copies of numpy's own TypeErrors (jax/_src/array.py: '# same as numpy error'; numpy's array_iter and
    # array_length, numpy/_core/src/multiarray/sequence.c and arrayobject.c): a plain numpy traceback prints the same
    # words, so they name no library (review16)
    ("numpy's own wording", None, {"text": r"^(?:len\(\) of unsized object|iteration over a 0-d array)$"}),
    # the CUDA / TPU backend and its plugins: generated/framework_libs.json (jax.backend_init, jax.no_cuda_plugin)
    ("framework-libs", None, {"where": r"^jax/_src/xla_bridge\.py:", "text": r"backend|plugin|jaxlib|PJRT|TPU"}),
    ("jax-shape", "jax.sharding_shape", {"where": r"^jax/", "text": _SHAPE}),
    ("xla-flags", "xla.flags", {"where": r"^xla/parse_flags_from_env\.cc:"}),
    ("xla-oom", "xla.oom", {"where": r"^xla/stream_executor/", "text": r"memory while trying to allocate|^Failed to "
                                                                     r"allocate request for"}),
    # jax/_src/errors.py's classes: the job's own code used a traced value where Python needs a concrete one, leaked a
    # tracer out of a transformation, or reused a PRNG key (the classes' docstrings, JAX's errors page)
    ("jax-tracer", "jax.tracer", {"where": r"^jax/_src/errors\.py:", "text": r"^jax\.errors\.\w+: "}),
    # the front ends' other refusals of the call (ctx-: by the file that raises them)
    ("ctx-jax", "jax.usage", {"level": r"^raise$", "where": r"^jax/_src/(?:pjit|pmap|sharding|sharding_impls|"
                                                           r"named_sharding|mesh|mesh_utils|dispatch|array)\.py:"}),
]

_DOC = "https://docs.jax.dev/en/latest/"
# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"implies that array axis %s is partitioned %s times",
     "jax/_src/sharding.py (the sharding's shard shape): the sharding splits that array axis over a mesh axis (its "
     "PartitionSpec names the mesh axis for it), and the dimension's size is not a multiple of the mesh axis's size "
     "(the number of devices along it): JAX shards only evenly.",
     ["pad the array along that axis to a multiple of the mesh axis size (mask the padded rows out of the loss / "
      "metric), or drop the remainder (a last partial batch: drop_last), or replicate that axis instead (P() or None "
      "for it in the PartitionSpec); the sizes: mesh.shape and x.shape; " + _DOC + "sharded-computation.html"]),
    (r"is not divisible by axis_size",
     "jax/_src/sharding_impls.py: an array dimension is not divisible by the size of the mesh axis it is sharded "
     "over (JAX shards only evenly).",
     ["pad that dimension to a multiple of the mesh axis size (and mask the padding), drop the remainder, or "
      "replicate it (P() / None in the PartitionSpec)"]),
    (r"requires %s logical devices, but only %s XLA devices are available|requires %s replicas, but only %s XLA "
     r"devices|pmapped function requires %s local devices|doesn't match received axis_size",
     "jax.pmap maps its function over the leading axis of the arguments, one slice per device: the leading axis is "
     "larger than the number of devices this process has (a batch shaped for 8 TPU cores run on 2 GPUs).",
     ["reshape the batch so that its leading axis is the local device count: x.reshape(jax.local_device_count(), -1, "
      "*x.shape[1:]) (the per-device batch second), or use jax.jit with a NamedSharding over a Mesh of "
      "jax.devices(), which splits any multiple of the device count; " + _DOC + "_autosummary/jax.pmap.html"]),
    (r"^Number of devices %s must (?:equal|be >=) the product of",
     "jax.make_mesh / mesh_utils.create_device_mesh: the mesh shape asks for more (or other) devices than the process "
     "sees.",
     ["make the mesh shape's product the device count: jax.make_mesh((jax.device_count(),), ('data',)) or a shape "
      "whose product is len(jax.devices())"]),
    (r"must be called before any JAX calls",
     "jax/_src/distributed.py: jax.distributed.initialize() joins this process to the others through the "
     "coordinator before the XLA backend starts; a JAX call made before it (jax.devices(), jax.device_put, any "
     "computation, even printing the devices) already started a single-process backend.",
     ["call jax.distributed.initialize(...) first: move it to the top of the program, before jax.devices(), "
      "device_put and any computation (a module imported before it may call JAX too); " + _DOC +
      "multi_process.html"]),
    (r"should only be called once",
     "jax/_src/distributed.py: jax.distributed.initialize() was called a second time in the same process (a library "
     "or a second code path calls it too).",
     ["call it once per process (guard it: if not jax.distributed.is_initialized(): ...)"]),
    (r"^coordinator_address should be defined|^Number of processes must be defined|^The process id of the "
     r"current process must be defined",
     "jax/_src/distributed.py: jax.distributed.initialize() was called without the coordinator's address, the "
     "process count or this process's id, and the automatic detection (jax/_src/clusters: Slurm, Open MPI, mpi4py, "
     "Cloud TPU, GKE / Kubernetes) found no environment it knows: torchrun, a hand-made launch script or ssh set "
     "none of them.",
     ["pass them explicitly: jax.distributed.initialize(coordinator_address=f\"{os.environ['MASTER_ADDR']}:<port>\", "
      "num_processes=int(os.environ['WORLD_SIZE']), process_id=int(os.environ['RANK'])) under torchrun (a port "
      "other than MASTER_PORT), or launch through one of the clusters JAX detects (srun, mpirun); " + _DOC +
      "multi_process.html"]),
    (r"^process_id and num_processes must be|^process_id must be|^num_processes must be",
     "jax/_src/distributed.py: the process id / count given to jax.distributed.initialize() are out of range "
     "(process_id must be in [0, num_processes)).",
     ["give each process its own id from 0 to num_processes-1 and the same num_processes everywhere (RANK and "
      "WORLD_SIZE of the launcher)"]),
    (r"config should be updated before backends are initialized",
     "jax/_src/xla_bridge.py: a backend setting (jax_platforms, the number of CPU devices, ...) was set after a JAX "
     "call had already started the backends.",
     ["set it first: jax.config.update(...) (or the JAX_* environment variable) at the top of the program, before "
      "any JAX call"]),
    (r"^jax\.errors\.(?:ConcretizationTypeError|TracerBoolConversionError|TracerIntegerConversionError|"
     r"NonConcreteBooleanIndexError): ",
     "jax/_src/errors.py: inside jax.jit (or another transformation) the arguments are abstract tracers, and the code "
     "used one where Python needs a concrete value: an `if` / `while` on it, bool() / int() / range() of it, an index "
     "or a shape computed from it, boolean-mask indexing (a data-dependent shape).",
     ["write the branch with jax.lax.cond / jnp.where (loops: jax.lax.fori_loop / while_loop) so that it stays traced, "
      "or mark the argument static when its value decides the shape or the branch: jax.jit(f, static_argnums=(i,)) / "
      "static_argnames=('name',) (one compile per value); boolean masks: jnp.where(mask, x, 0) or a size= argument; "
      + _DOC + "101/errors.html"]),
    (r"^jax\.errors\.TracerArrayConversionError: ",
     "jax/_src/errors.py: a NumPy function (np.* / .__array__()) was called on a traced value inside a JAX "
     "transformation: NumPy needs concrete data, which the tracer does not have.",
     ["use jax.numpy (jnp.*) instead of numpy inside the jitted / grad / vmap'ed function, or move the NumPy call out "
      "of it (jax.device_get the result after the call)"]),
    (r"^jax\.errors\.UnexpectedTracerError: ",
     "jax/_src/errors.py: a traced value leaked out of the transformation that made it (stored into a global, a list "
     "or self inside a jitted / scanned function, or a side effect) and was used after it ended.",
     ["return the value from the function instead of storing it outside (no global / list / attribute writes inside "
      "jit, scan or vmap); with jax.checking_leaks() JAX names where the tracer leaked"]),
    (r"^jax\.errors\.KeyReuseError: ",
     "jax/_src/errors.py: a PRNG key was used twice (jax_debug_key_reuse is on): JAX's random numbers are a pure "
     "function of the key, so reusing it repeats the same numbers.",
     ["split the key before each use: key, sub = jax.random.split(key); x = jax.random.normal(sub, ...)"]),
    (r"^Unknown flags? in (?:TF_)?XLA_FLAGS",
     "XLA (xla/parse_flags_from_env.cc) parses XLA_FLAGS when the backend starts and stops the process (a fatal log "
     "line, F...) at a flag it does not know: the name is misspelled, or the flag was renamed or removed in the XLA "
     "that this jaxlib bundles (a flag copied from an older guide), or it is a TensorFlow flag meant for "
     "TF_XLA_FLAGS.",
     ["correct the misspelled flag name (a typo: compare it letter by letter with XLA's list, "
      "xla/debug_options_flags.cc of the XLA your jaxlib was built with) or remove it from XLA_FLAGS; a flag that a "
      "newer XLA dropped has to go; a TensorFlow flag goes in TF_XLA_FLAGS"]),
    (r"^Out of host memory while trying to allocate",
     "XLA's GPU client (xla/stream_executor/integrations/tf_allocator_adapter.cc MemoryAllocationError) could not "
     "allocate pinned host memory (host offloading, host-side buffers): its host memory pool is limited, 64 GB by "
     "default.",
     ["raise the limit: export XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB=<GB> (the message's advice), or offload less to the "
      "host"]),
    (r"^Out of memory while trying to allocate|^Failed to allocate request for",
     "XLA's GPU client (xla/stream_executor/integrations/tf_allocator_adapter.cc MemoryAllocationError): the "
     "jitted computation's buffers (parameters, optimizer state, activations, the step's temporaries) do not fit in "
     "the GPU memory JAX's allocator holds (75% of the GPU by default), or another process / framework holds the "
     "rest.",
     ["lower the per-device batch, rematerialize activations (jax.checkpoint / jax.remat on the blocks), donate the "
      "buffers the step replaces (jax.jit(step, donate_argnums=(0,)) for the train state), or shard the state over "
      "more devices; when another framework or process shares the GPU: XLA_PYTHON_CLIENT_PREALLOCATE=false or "
      "XLA_PYTHON_CLIENT_MEM_FRACTION=<fraction>; " + _DOC + "gpu_memory_allocation.html"]),
    (r"^Could not open file \"%s\" to read flags",
     "XLA reads the variable's value as a file name when it does not start with '--' (xla/parse_flags_from_env.cc), "
     "and no such file exists: the flags were written without their leading '--'.",
     ["write each flag with its leading dashes: XLA_FLAGS='--xla_<name>=<value> --xla_<name2>=...'"]),
]

def _format_named(tree):
    """(line, format) of the texts assigned to a name as a str (a parenthesised run of literals is one) and raised
    through `<name>.format(...)` within wheelmsgs.NEAR lines below; each {field} a value."""
    assigns = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            assigns.setdefault(node.targets[0].id, []).append((node.lineno, node.value.value))
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args):
            continue
        arg = node.exc.args[0]
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "format" and \
                isinstance(arg.func.value, ast.Name):
            for line, text in assigns.get(arg.func.value.id, ()):
                if line < node.lineno <= line + wheelmsgs.NEAR:
                    out.append((line, " ".join(re.sub(r"\{[^{}]*\}", "%s", text.replace("%", "%%")).split())))
    return out


_STR = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_TERNARY = re.compile(r'^\(?[^?"]{1,120}\?\s*"((?:[^"\\\n]|\\.)*)"\s*:\s*"((?:[^"\\\n]|\\.)*)"\s*\)?$')


def _operands(stmt):
    """The `<<` operands of one LOG statement's text, outside string literals and parentheses."""
    out, depth, cur, i = [], 0, [], 0
    while i < len(stmt):
        c = stmt[i]
        if c == '"':
            m = _STR.match(stmt, i)
            cur.append(m.group(0))
            i = m.end()
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if depth == 0 and stmt.startswith("<<", i):
            out.append("".join(cur).strip())
            cur, i = [], i + 2
            continue
        cur.append(c)
        i += 1
    out.append("".join(cur).strip())
    return out[1:]  # the first is LOG(...) itself


def cc_log_sites(src):
    """(level, line, format) of each `LOG(QFATAL|FATAL|ERROR) << ...;` of a C++ source: its string literals joined,
    a `(cond ? "a" : "b")` operand both ways, the operand `envvar` each string the file compares it with
    (`envvar == "X"`), any other operand a value (%s)."""
    envs = sorted(set(re.findall(r'\benvvar\s*==\s*"([A-Z_]{2,40})"', src)))
    out = []
    for m in re.finditer(r"\bLOG\((?:QFATAL|FATAL|ERROR)\)", src):
        end = src.find(";", m.end())
        while end > 0 and src.count('"', m.start(), end) % 2:  # a ';' inside a literal
            end = src.find(";", end + 1)
        stmt = " ".join(src[m.start():end].split())
        variants = [""]
        for op in _operands(stmt):
            t = _TERNARY.match(op)
            if re.fullmatch(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+', op):
                parts = ["".join(knowgen.c_unescape(s) for s in _STR.findall(op)).replace("%", "%%")]
            elif t:
                parts = [knowgen.c_unescape(t.group(1)), knowgen.c_unescape(t.group(2))]
            elif op == "envvar" and envs:
                parts = envs
            else:
                parts = ["%s"]
            variants = [v + p for v in variants for p in parts]
        line = src.count("\n", 0, m.start()) + 1
        for v in variants:
            text = " ".join(v.split())
            if re.search(r"[A-Za-z]{3}", text.replace("%s", "")):
                out.append(("raise", line, text))
    return out


_CLASS = re.compile(r"^class[ \t]+(\w{1,80})(?:\(([\w, \t.]{1,200})\))?:", re.M)
_MODULE = re.compile(r"^[ \t]+_module_name[ \t]*=[ \t]*[\"']([\w.]{1,80})[\"']", re.M)


def error_class_sites(src):
    """(level, line, format) of the exception classes of jax/_src/errors.py, as Python's traceback prints them: each
    class that derives (through the file's own classes) from its error mixin, whose __init__ appends 'See
    <error page>#<module>.<class>', is printed '<_module_name>.<Class>: <message>'."""
    module = _MODULE.search(src)
    if not module:
        return []
    bases = {m.group(1): (m.start(), [b.strip() for b in (m.group(2) or "").split(",") if b.strip()])
             for m in _CLASS.finditer(src)}
    mixin = next((c for c in bases if c.endswith("ErrorMixin")), None)

    def derives(c, seen=()):
        return c == mixin or any(b in bases and b not in seen and derives(b, seen + (c,)) for b in bases[c][1])

    out = []
    for c, (at, _b) in bases.items():
        if c != mixin and not c.startswith("_") and not re.match(r"JAX\w*Error$", c) and derives(c):
            out.append(("raise", src.count("\n", 0, at) + 1, "%s.%s: %%s" % (module.group(1), c)))
    return out


_STRCAT = re.compile(r"\babsl::\w{1,40}Error\(\s*absl::StrCat\(")
_CONSTEXPR = re.compile(r'constexpr[ \t]+absl::string_view[ \t]+(\w{1,60})[ \t]*=\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+);')


def _args(text, i):
    """The top-level comma-separated arguments of the call whose '(' is before ``i``, and where it ends."""
    out, depth, cur = [], 0, []
    while i < len(text):
        c = text[i]
        if c == '"':
            m = _STR.match(text, i)
            cur.append(m.group(0))
            i = m.end()
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                out.append("".join(cur).strip())
                return out, i
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return out, i


_STRFORMAT = re.compile(r'\babsl::\w{1,40}Error\(\s*absl::StrFormat\(\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)')


def cc_strformat_sites(src):
    """(level, line, format) of each `absl::<Kind>Error(absl::StrFormat("<format>", ...))`: the format as it is."""
    return [("raise", src.count("\n", 0, m.start()) + 1,
             " ".join("".join(knowgen.c_unescape(x) for x in _STR.findall(m.group(1))).split()))
            for m in _STRFORMAT.finditer(src)]


def cc_strcat_sites(src):
    """(level, line, format) of each `absl::<Kind>Error(absl::StrCat(...))` of a C++ source: its string literals
    joined, a `(cond ? a : b)` operand both ways (a literal, or a `constexpr absl::string_view` of the file), any other
    operand a value (%s)."""
    consts = {m.group(1): "".join(knowgen.c_unescape(x) for x in _STR.findall(m.group(2)))
              for m in _CONSTEXPR.finditer(src)}
    out = []
    for m in _STRCAT.finditer(src):
        args, _end = _args(src, m.end())
        variants = [("", {})]  # (text, {condition: branch}): ternaries on one condition take the same branch
        for op in args:
            op = " ".join(op.split())
            t = re.match(r'^\(?([^?"]{1,120})\?\s*("(?:[^"\\\n]|\\.)*"|\w{1,60})\s*:\s*("(?:[^"\\\n]|\\.)*"|\w{1,60})'
                         r'\s*\)?$', op)
            if re.fullmatch(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+', op):
                parts = {None: "".join(knowgen.c_unescape(x) for x in _STR.findall(op)).replace("%", "%%")}
                cond = None
            elif t:
                cond = t.group(1).strip()
                parts = {k: knowgen.c_unescape(x[1:-1]) if x.startswith('"') else consts.get(x, "%s")
                         for k, x in enumerate(t.groups()[1:])}
            else:
                parts, cond = {None: "%s"}, None
            nxt = []
            for text, chosen in variants:
                for k, p in parts.items():
                    if cond is None or chosen.get(cond, k) == k:
                        nxt.append((text + p, dict(chosen, **({cond: k} if cond is not None else {}))))
            variants = nxt
        variants = [v for v, _ in variants]
        line = src.count("\n", 0, m.start()) + 1
        for v in variants:
            text = " ".join(v.split())
            if re.search(r"[A-Za-z]{3}", text.replace("%s", "")):
                out.append(("raise", line, text))
    return out


def build(files, version):
    sites, seen, ids = [], set(), set()
    py = [(p, s) for p, s in files if p.endswith(".py")]
    sites += wheelmsgs.py_sites(py, "jax.", RULES, MSG_FIX, seen, ids)
    for path, srcs in wheelmsgs.group(files).items():
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        real = m.group(3) if m else path
        found = []
        src = wheelmsgs.overlay(srcs)  # a slice's blocks at their lines: the assignment and its raise, the LOG and `envvar ==`
        if path.endswith(".py"):
            try:
                found += [("raise", line, fmt) for line, fmt in _format_named(ast.parse(src))]
            except SyntaxError:
                pass
            if real == "jax/_src/errors.py":
                found += error_class_sites(src)
        elif path.endswith(".cc"):
            found += cc_log_sites(src) + cc_strcat_sites(src) + cc_strformat_sites(src)
        for level, line, fmt in sorted(set(found), key=lambda s: (s[1], s[2])):
            if fmt in seen:
                continue
            seen.add(fmt)
            prefix = "jax." + ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else "")
            if path.endswith(".cc"):
                prefix = "jax.xla_"
            sites.append(wheelmsgs.site_for(prefix, ids, level, "%s:%d" % (real, line), fmt, RULES, MSG_FIX,
                                            older=m and "%s %s" % (m.group(1), m.group(2))))
    return {"header": knowgen.header("jax (https://pypi.org/project/jax/), openxla/xla "
                                     "(https://github.com/openxla/xla) xla/parse_flags_from_env.cc", version,
                                     GENERATOR, "raise/assert/logger/warnings messages of jax/_src's jit, pmap, "
                                     "sharding, mesh, device_put, distributed and cluster modules; XLA's LOG(QFATAL) "
                                     "messages of its XLA_FLAGS parser; families from the RULES table of the "
                                     "generator"),
            "sites": sites}


# PEP 695's type parameters (`def vmap[F: Callable](`, jax >= 0.10 requires Python 3.12) do not parse on the Python
# 3.11 that runs the generators: each is taken out of its line (the rest of the line, and every line number, kept)
_TYPE_PARAMS = re.compile(r"^([ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\w+)\[[^\]\n]{1,200}\](?=[(:])", re.M)


def _py311(src):
    return _TYPE_PARAMS.sub(r"\1", src)


def read(wheel, older, xla_files, xla_commits):
    files, version = wheelmsgs.from_wheel(wheel, FILES, "jax")
    files = [(p, _py311(s)) for p, s in files]
    version = version.split(" (")[0]
    for w in older or ():
        ofiles, over = wheelmsgs.from_wheel(w, FILES, "jax")
        v = over.split()[1]
        files += [("older/jax-%s/%s" % (v, p), src) for p, src in ofiles]
        version += "; older: jax %s" % v
    for path, commit in zip(xla_files, xla_commits):
        with open(path) as f:
            files.append((XLA_FILES[os.path.basename(path)], f.read()))
        version += "; openxla/xla %s %s" % (XLA_FILES[os.path.basename(path)], commit)
    return files, version


def _keep_lines(files, doc):
    """The extra blocks of the slice: the `.format` texts' assignments and raises (_format_named), and the C++ LOG
    statements of the assigned sites with the lines that compare `envvar` with a name."""
    want = {wheelmsgs.site_key(s) for s in doc["sites"] if s.get("family")}
    out = []
    for p, src in files:
        lines = src.splitlines()
        if p.endswith(".cc"):
            for i, text in enumerate(lines, 1):
                if re.search(r'\benvvar\s*==\s*"', text):
                    out.append((p, i, text.strip()))
            for m in _CONSTEXPR.finditer(src):
                a = src.count("\n", 0, m.start()) + 1
                out.append((p, a, textwrap.dedent("\n".join(lines[a - 1:src.count("\n", 0, m.end()) + 1]))))
            for key in sorted(k for k in want if k.rsplit(":", 1)[0] == p):
                ln = int(key.rsplit(":", 1)[1])
                end = ln
                while end < len(lines) and not lines[end - 1].rstrip().endswith(";"):
                    end += 1
                out.append((p, ln, textwrap.dedent("\n".join(lines[ln - 1:end]))))
            continue
        if not p.endswith(".py"):
            continue
        if p.endswith("jax/_src/errors.py"):  # error_class_sites reads the class lines and the mixin's module name
            for i, text in enumerate(lines, 1):
                if _CLASS.match(text) or _MODULE.match(text):
                    out.append((p, i, text) if _CLASS.match(text) else (p, i - 1, "if True:\n" + text))
        tree = ast.parse(src)
        for line, fmt in _format_named(tree):
            if "%s:%d" % (p, line) not in want:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.If,
                                                                         ast.For, ast.With, ast.While, ast.Try)):
                    if node.lineno == line or (isinstance(node, ast.Raise) and line < node.lineno <= line +
                                                wheelmsgs.NEAR and ".format(" in ast.get_source_segment(src, node)):
                        out.append((p, node.lineno, textwrap.dedent("\n".join(lines[node.lineno - 1:
                                                                                     node.end_lineno]))))
    return out


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheel", extra=[
        ("--older", {"action": "append", "help": "an older jax wheel (repeatable)"}),
        ("--xla-file", {"action": "append", "help": "an openxla/xla file of XLA_FILES (repeatable)"}),
        ("--xla-commit", {"action": "append", "help": "the openxla/xla commit each --xla-file was read at"}),
        ("--record", {"help": "write the slice (the statements of the assigned sites)"})])
    if a.wheel:
        if not (a.xla_file and a.xla_commit) or len(a.xla_file) != len(a.xla_commit):
            a.error("give each --xla-file with its --xla-commit with --wheel")
        files, version = read(a.wheel, a.older, a.xla_file, a.xla_commit)
    else:
        files, version = knowgen.read_slice(a.slice)
    doc = build(files, version)
    if a.wheel:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"], of="wheel")
        if a.record:
            kept = {wheelmsgs.site_key(s) for s in doc["sites"] if s.get("family")}
            blocks = {(p, ln): t for p, ln, t in _keep_lines(files, doc)}
            wheelmsgs.write_record(a.record, version, [(p, s) for p, s in files if p.endswith(".py")],
                                   kept.__contains__, GENERATOR, [(p, ln, t) for (p, ln), t in sorted(blocks.items())])
    return knowgen.emit("jax_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
