#!/usr/bin/env python3
"""Generate gpudoctor/data/runtime_switches.json: the CUDA, Triton and JAX settings whose own documents say they slow a run, cost memory or make it wait, each read from the document that defines it.

Usage:
    python tools/gen_runtime_switches.py --cuda-page PAGE.md --triton SITE-PACKAGES/triton --triton-readme README.md \
        --jax SITE-PACKAGES/jax --jax-doc gpu_memory_allocation.rst [-o OUT]
    python tools/gen_runtime_switches.py --slice tools/data/runtime_switches_slice.txt [-o OUT]

What is read (issue 18, words16; every file as text, nothing imported):
- the CUDA Programming Guide's "CUDA Environment Variables" page (5.2; CUDA_PAGE, saved as served): each
  `### 5.2.x.y. \\`VAR\\`` section, its paragraphs and its "Possible Values" bullets (`VALUE`: what it does,
  "(default)");
- Triton: triton/knobs.py of a Triton wheel (every `env_*("VAR"[, default])` knob, with the knob class it sits in)
  and the "Helpful environment variables" list of Triton's README.md (the sentence that says what each does);
- JAX: jax/_src/config.py of a JAX wheel (every `*_state(name='jax_...', default=..., help=...)` flag; config.py
  reads each from the environment variable of its name in upper case, `os.getenv(name.upper(), default)`), JAX's
  docs/gpu_memory_allocation.rst (the XLA_PYTHON_CLIENT_* variables), and the compile log lines the wheel prints
  when jax_log_compiles is on (jax/_src/interpreters/pxla.py 'Compiling %s with global shapes and types %s.', and
  pjit.py's 'Finished tracing {fun_name} for jit').

Which settings cost what (RULES: each keys on the document's own words, quoted in the row):
- the CUDA page: a value whose bullet says "Higher startup time and GPU memory footprint" (CUDA_MODULE_LOADING=EAGER),
  "increases the memory footprint and the time required for CUDA driver initialization" (CUDA_FORCE_PRELOAD_
  LIBRARIES=1), a variable whose text says it "increases an application's load time" (CUDA_CACHE_DISABLE=1,
  CUDA_FORCE_PTX_JIT / CUDA_FORCE_JIT=1), "results in slower execution" (CUDA_LAUNCH_BLOCKING=1: a hand row of
  settings.toml already judges it), "halt and wait when a device-side exception occurs"
  (CUDA_DEVICE_WAITS_ON_EXCEPTION=1: a job that hangs instead of failing);
- Triton's README: "uses the Triton interpreter instead of running on the GPU" (TRITON_INTERPRET=1), "forces to
  compile kernels regardless of cache hit" (TRITON_ALWAYS_COMPILE=1), "dumps the IR before every" / "dumps the
  timing information" / "printing a lot of debugging information" (compile-time debugging output);
- JAX's flag help: "Disable JIT compilation" (jax_disable_jit), "Add nan checks to every operation" /
  "Add inf checks to every operation" (jax_debug_nans / jax_debug_infs), "Makes things slower" (jax_enable_checks),
  "may have performance impacts" (jax_check_tracer_leaks); JAX's memory page: "This is very slow"
  (XLA_PYTHON_CLIENT_ALLOCATOR=platform); the compile log: jit compiles a function again for every new set of
  input shapes, so a 'Compiling jit(f)' line per step is a recompilation per batch shape.
Every other setting is a site without a rule (listed in "unassigned"): the documents say nothing of a cost.
Only stdlib; run it again when CUDA, Triton or JAX release.
"""

import ast
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

OUT = os.path.join(knowgen.ROOT, "gpudoctor", "data", "runtime_switches.json")
CUDA_PAGE = "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html"
TRITON_README = "https://github.com/triton-lang/triton/blob/%s/README.md"
TRITON_BLOB = "https://github.com/triton-lang/triton/blob/v%s/python/triton/knobs.py#L%d"
JAX_BLOB = "https://github.com/jax-ml/jax/blob/jax-v%s/jax/_src/%s#L%d"
JAX_DOC = "https://github.com/jax-ml/jax/blob/%s/docs/gpu_memory_allocation.rst"

# the files of the slice / of the sources, by the name the generator reads them under
F_CUDA, F_KNOBS, F_README, F_CONFIG, F_PXLA, F_PJIT, F_JAXDOC, F_JAXVER, F_PEVAL = (
    "cuda/environment-variables.md", "triton/knobs.py", "triton/README.md", "jax/_src/config.py",
    "jax/_src/interpreters/pxla.py", "jax/_src/pjit.py", "jax/docs/gpu_memory_allocation.rst", "jax/version.py",
    "jax/_src/interpreters/partial_eval.py")

CUDA_VAR = re.compile(r"^### 5\.2\.\d{1,2}\.\d{1,2}\. `([A-Z][A-Z0-9_]{2,80})`(?: and `([A-Z][A-Z0-9_]{2,80})`)?", re.M)
CUDA_VALUE = re.compile(r"^\*\s{1,4}`([^`\n]{1,40})`: ([^\n]{1,600})", re.M)
CUDA_SUB = re.compile(r"^\s{4}\*\s{1,4}([^\n]{1,400})", re.M)
KNOB = re.compile(r"^\s{4}(\w{1,60})(?::[^=\n]{1,80})?\s?=\s?(env_\w{1,40})\(\"([A-Z][A-Z0-9_]{2,80})\"(?:,\s?([^)\n]{1,80}))?\)",
                  re.M)
KNOB_CLASS = re.compile(r"^class (\w{1,60})_knobs\(base_knobs\):", re.M)
README_VAR = re.compile(r"^- `([A-Z][A-Z0-9_]{2,80})(?:=([^`\n]{0,40}))?`((?:[^\n]|\n(?!- |\n|#)){1,900})", re.M)
JAX_STATE = re.compile(r"^(\w{1,80}) = (bool_state|int_state|enum_state|optional_enum_state|float_state|string_state|"
                       r"string_or_object_state)\(\s{0,8}name='(jax_\w{1,80})'", re.M)
JAXDOC_VAR = re.compile(r"^``(XLA_PYTHON_CLIENT_[A-Z_]{2,40})=([^`\n]{1,20})``\n((?:  [^\n]{0,200}\n){1,12})", re.M)
JAX_LOG = (
    (F_PXLA, re.compile(r"\"(Compiling %s with global shapes and types %s\. )\"")),
    (F_PJIT, re.compile(r"\"(Finished tracing \{fun_name\} for jit in \{elapsed_time:\.9f\} sec)\"")),
    # jax_explain_cache_misses: each miss of the tracing cache, and the function it is for
    (F_PEVAL, re.compile(r"p\(f\"(TRACING CACHE MISS at \{callsite\}:)\"\)")),
    (F_PEVAL, re.compile(r"p\(f\"(  for \{func_name\}\{src_info\})\"\)")),
)

KIND = {
    "load_eager": {"family": "torch.slow_setting", "symptoms": ["slowstart", "memory"], "sure": "medium",
                   "told": r"\b(?:first (?:cuda |gpu )?(?:call|op|operation|kernel)|(?:cuda )?init\w{0,8}|start-?up|"
                           r"context|before any tensor|import(?:ing)? torch)\b",
                   "what": "%(key)s=%(value)s: the CUDA Programming Guide says of it \"%(said)s\" (every kernel of every "
                           "library the process links is loaded at the first CUDA call, where the default %(default)s "
                           "loads each when it is first used)",
                   "fix": "unset %(key)s (or %(key)s=LAZY, the default since CUDA 12.2 on Linux) in the job's environment "
                          "and shell profile"},
    "init_cost": {"family": "torch.slow_setting", "symptoms": ["slowstart", "memory"], "sure": "low",
                  "told": r"\b(?:first (?:cuda |gpu )?(?:call|op|operation|kernel)|(?:cuda )?init\w{0,8}|start-?up|context)\b",
                  "what": "%(key)s=%(value)s: the CUDA Programming Guide says \"%(said)s\"",
                  "fix": "unset %(key)s unless the multi-threaded deadlock it works around is seen"},
    "load_time": {"family": "torch.slow_setting", "symptoms": ["slowstart"], "sure": "low",
                  "told": r"\b(?:first (?:cuda |gpu )?(?:call|op|operation|kernel|run)|(?:cuda )?init\w{0,8}|start-?up|"
                          r"load(?:ing)? time|jit|ptx)\b",
                  "what": "%(key)s=%(value)s: the CUDA Programming Guide says \"%(said)s\" (PTX is compiled for the GPU "
                          "at start-up, every run)",
                  "fix": "unset %(key)s (it exists to validate PTX / JIT compatibility, not for production runs)"},
    "forced_jit": {"family": "torch.slow_setting", "symptoms": ["slowstart", "nokernel"], "sure": "low",
                   "told": r"\b(?:first (?:cuda |gpu )?(?:call|op|operation|kernel|run)|(?:cuda )?init\w{0,8}|start-?up|"
                           r"load(?:ing)? time|jit|ptx)\b",
                   "what": "%(key)s=%(value)s: the CUDA Programming Guide says these variables \"%(nokernel)s\" and "
                           "\"%(said)s\": a build that ships machine code (SASS) for this GPU but no PTX it can "
                           "compile for it (a wheel carries PTX only for the architectures its build lists with +PTX, "
                           "usually its newest) then has no "
                           "kernel image for it, and a build that can JIT pays the compilation at start-up",
                   "fix": "unset %(key)s (and CUDA_FORCE_JIT) in the job's environment, shell profile and container "
                          "image: it exists to validate PTX / JIT compatibility, not for production runs"},
    "slower_execution": {"family": "torch.slow_debug_setting", "symptoms": ["slow"], "sure": "high",
                         "told": r"\bcuda\b|\bkernels?\b|\bgpu\b",
                         "what": "%(key)s=%(value)s: the CUDA Programming Guide says \"%(said)s\"",
                         "fix": "unset %(key)s (use it only to find which call raised a CUDA error)"},
    "waits_on_exception": {"family": "torch.slow_debug_setting", "symptoms": ["hang"], "sure": "medium",
                           "told": r"\b(?:hangs?|hung|stuck|waits?|never exits?|does not exit)\b",
                           "what": "%(key)s=%(value)s: the CUDA Programming Guide says that then \"%(said)s\": a "
                                   "device-side error (an assert, an illegal address) leaves the process waiting for a "
                                   "debugger instead of failing",
                           "fix": "unset %(key)s for jobs nobody attaches cuda-gdb to; run once without it to see the "
                                  "device-side error it holds back"},
    "interpreter": {"family": "torch.slow_debug_setting", "symptoms": ["slow"], "sure": "high",
                    "told": r"\btriton\b|\bkernels?\b",
                    "what": "%(key)s=%(value)s: Triton's README says it \"%(said)s\" (every Triton kernel runs in Python "
                            "on the CPU, one program instance at a time: orders of magnitude slower)",
                    "fix": "unset %(key)s (it is meant for debugging kernels with Python breakpoints)"},
    "always_compile": {"family": "torch.slow_setting", "symptoms": ["slow", "slowstart"], "sure": "low",
                       "told": r"\btriton\b|\bkernels?\b|\bcompil\w{1,6}\b",
                       "what": "%(key)s=%(value)s: Triton's README says it \"%(said)s\": every process compiles every "
                               "kernel again",
                       "fix": "unset %(key)s so that compiled kernels come from Triton's cache"},
    "compile_debug": {"family": "torch.slow_debug_setting", "symptoms": ["slow", "slowstart"], "sure": "low",
                      "told": r"\btriton\b|\bkernels?\b|\bcompil\w{1,6}\b",
                      "what": "%(key)s=%(value)s: Triton's README says it \"%(said)s\": compiling each kernel writes "
                              "that output",
                      "fix": "unset %(key)s for training runs"},
    "jit_off": {"family": "torch.slow_debug_setting", "symptoms": ["slow"], "sure": "high",
                "told": r"\bjax\b|\bxla\b|\bjit\b|\bflax\b|\boptax\b",
                "what": "%(key)s=%(value)s: JAX's flag %(flag)s, \"%(said)s\": jax.jit compiles nothing and every "
                        "operation runs one at a time from Python",
                "fix": "unset %(env)s / jax.config.update('%(flag)s', False) (use it only to debug inside a jitted "
                       "function)"},
    "jax_checks": {"family": "torch.slow_debug_setting", "symptoms": ["slow"], "sure": "medium",
                   "told": r"\bjax\b|\bxla\b|\bjit\b|\bflax\b|\boptax\b",
                   "what": "%(key)s=%(value)s: JAX's flag %(flag)s, \"%(said)s\"",
                   "fix": "unset %(env)s / jax.config.update('%(flag)s', False) once the NaN / inf / invariant it "
                          "was set to find is found"},
    "jax_checks_low": {"family": "torch.slow_debug_setting", "symptoms": ["slow"], "sure": "low",
                       "told": r"\bjax\b|\bxla\b|\bjit\b|\bflax\b|\boptax\b",
                       "what": "%(key)s=%(value)s: JAX's flag %(flag)s, \"%(said)s\"",
                       "fix": "unset %(env)s / jax.config.update('%(flag)s', False) for training runs"},
    "matmul_precision": {"family": "torch.slow_setting", "symptoms": ["slow"], "sure": "low",
                         "told": r"\bjax\b|\bxla\b|\bjit\b|\bflax\b|\boptax\b|\bmatmul\b",
                         "what": "%(key)s=%(value)s: JAX's flag %(flag)s says \"%(said)s\": full float32 matmuls "
                                 "and convolutions do not use the tensor cores' TF32 / bf16 paths",
                         "fix": "unset %(env)s (JAX's default precision) or set it to 'tensorfloat32' / 'bfloat16' "
                                "where that accuracy is enough"},
    "very_slow": {"family": "torch.slow_debug_setting", "symptoms": ["slow"], "sure": "medium",
                  "told": r"\bjax\b|\bxla\b|\bjit\b|\bflax\b|\boptax\b",
                  "what": "%(key)s=%(value)s: JAX's GPU memory page: \"%(said)s\" (every operation allocates and frees "
                          "its GPU memory instead of reusing JAX's pool)",
                  "fix": "unset %(key)s (JAX's default allocator pools memory; to use less of the GPU set "
                         "XLA_PYTHON_CLIENT_MEM_FRACTION or XLA_PYTHON_CLIENT_PREALLOCATE=false instead)"},
    "preallocates": {"family": "cuda.oom", "symptoms": ["memory"], "sure": "medium",
                     "told": r"\bjax\b|\bxla\b|\bflax\b",
                     "what": "JAX is on the GPU and XLA_PYTHON_CLIENT_PREALLOCATE is not false: JAX's GPU memory page "
                             "says \"%(said)s\"; that memory stays JAX's, so PyTorch (or a second JAX process) on the "
                             "same GPU gets only what is left",
                     "fix": "XLA_PYTHON_CLIENT_PREALLOCATE=false (or XLA_PYTHON_CLIENT_MEM_FRACTION=.25) in the "
                            "environment before jax is imported, or run the JAX part in a process of its own"},
    "recompiles": {"family": "torch.slow_setting", "symptoms": ["slow"], "sure": "medium",
                   "told": r"\bjax\b|\bxla\b|\bjit\b|\bflax\b|\boptax\b",
                   "what": "jax.jit compiles a function again for every new set of input shapes and dtypes (JAX logs "
                           "each compilation as '%(said)s' under jax_log_compiles): batches whose size or length "
                           "changes from step to step pay an XLA compilation nearly every step, with the GPU idle "
                           "meanwhile",
                   "fix": "pad batches to one or a few fixed sizes (bucket sequence lengths; mask the padding; "
                          "drop_last=True for the last partial batch) so that jit reuses the compiled step; "
                          "JAX_LOG_COMPILES=1 (jax_log_compiles) shows a 'Compiling' line for every new shape"},
}

# (kind, test on a site's fields): the first that holds assigns the site; the words are the documents' own
RULES = (
    ("load_eager", lambda s: s["src"] == "cuda" and "higher startup time and gpu memory footprint" in s["value_says"].lower()),
    ("init_cost", lambda s: s["src"] == "cuda" and "increases the memory footprint and the time required for cuda "
     "driver initialization" in s["value_says"].lower()),
    ("forced_jit", lambda s: s["src"] == "cuda" and "ignore any CUBIN embedded in an application" in s["says"] and
     "load time" in s["says"]),
    ("load_time", lambda s: s["src"] == "cuda" and "increases an application" in s["says"] and "load time" in s["says"]),
    ("slower_execution", lambda s: s["src"] == "cuda" and "results in slower execution" in s["says"]),
    ("waits_on_exception", lambda s: s["src"] == "cuda" and "halt and wait when a device-side exception" in s["says"]),
    ("interpreter", lambda s: s["src"] == "triton" and "uses the triton interpreter instead of running on the"
     in s["says"].lower()),
    ("always_compile", lambda s: s["src"] == "triton" and "compile kernels regardless of cache hit" in s["says"]),
    ("compile_debug", lambda s: s["src"] == "triton" and re.search(r"dumps the IR before every|dumps the timing "
                                                                   r"information|printing a lot of debugging",
                                                                   s["says"])),
    ("jit_off", lambda s: s["src"] == "jax" and s["says"].startswith("Disable JIT compilation")),
    ("jax_checks", lambda s: s["src"] == "jax" and re.match(r"Add nan checks to every operation|Turn on invariant "
                                                            r"checking .{0,60}Makes things slower", s["says"])),
    ("jax_checks_low", lambda s: s["src"] == "jax" and re.match(r"Add inf checks to every operation|.{0,200}may have "
                                                                r"performance impacts", s["says"])),
    ("very_slow", lambda s: s["src"] == "jax" and "This is very slow" in s["says"]),
    ("matmul_precision", lambda s: s["src"] == "jax" and "option is the fastest and least precise" in s["says"]),
    ("preallocates", lambda s: s["src"] == "jax" and s.get("preamble") and "This disables the preallocation"
     in s["says"]),
    ("recompiles", lambda s: s["src"] == "jax" and s["read"] == "log" and s["config"] == "compile"),
)


def _squash(text):
    return " ".join(text.replace("**", "").split())


def cuda_sites(text):
    out = []
    heads = list(CUDA_VAR.finditer(text))
    for i, m in enumerate(heads):
        body = text[m.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        body = body.split("\n## ", 1)[0]
        line = text[:m.start()].count("\n") + 1
        paras = [p for p in body.split("\n") if p.strip() and not p.lstrip().startswith(("*", "**Possible"))]
        says = _squash(" ".join(paras))
        values = []
        for v in CUDA_VALUE.finditer(body):
            tail = body[v.end():].split("\n*", 1)[0]
            sub = " ".join(x.group(1) for x in CUDA_SUB.finditer(tail))
            values.append((v.group(1), _squash(v.group(2) + (" " + sub if sub else ""))))
        default = next((v for v, d in values if "(default)" in d or d.startswith("Default behavior")), "")
        if not default:
            d = re.search(r"default is `([^`]{1,20})`", body)
            default = d.group(1) if d else ""
        for var in [g for g in m.groups() if g]:
            # a value that is not the default and whose own bullet says what it costs; else the documented non-default
            costly = [(v, d) for v, d in values if v != default and not d.startswith(("Default behavior", "Default"))]
            value, value_says = (costly[0] if costly else ("", ""))
            for v, d in costly:
                if re.search(r"startup time|memory footprint|load time", d, re.I):
                    value, value_says = v, d
            out.append({"src": "cuda", "var": var, "config": "", "file": F_CUDA, "line": line, "default": default,
                        "values": [v for v, _d in values], "value": value, "value_says": value_says, "says": says,
                        "read": "env", "source": "%s#%s" % (CUDA_PAGE, var.lower().replace("_", "-"))})
    return out


def triton_sites(knobs, readme, ref):
    said = {}
    for m in README_VAR.finditer(readme):
        said.setdefault(m.group(1), (m.group(2) or "", _squash(m.group(3))))
    classes = [(m.start(), m.group(1)) for m in KNOB_CLASS.finditer(knobs)]
    out, seen = [], set()
    for m in KNOB.finditer(knobs):
        var = m.group(3)
        if var in seen:
            continue
        seen.add(var)
        cls = [c for at, c in classes if at < m.start()]
        value, says = said.get(var, ("", ""))
        default = (m.group(4) or "").strip()
        if m.group(2) == "env_bool" and not default:
            default = "False"
        line = knobs[:m.start()].count("\n") + 1
        out.append({"src": "triton", "var": var, "config": "%s.%s" % (cls[-1] if cls else "?", m.group(1)),
                    "file": F_KNOBS, "line": line, "default": default, "values": [], "value": value or
                    ("1" if m.group(2) == "env_bool" else ""), "value_says": "", "says": says, "read": "env",
                    "source": (TRITON_README % ref + "#tips-for-hacking") if says else TRITON_BLOB % ("?", line)})
    # the README's variables that knobs.py does not read (libtriton's C++ reads them: MLIR_ENABLE_DUMP, ...)
    for m in README_VAR.finditer(readme):
        if m.group(1) in seen:
            continue
        seen.add(m.group(1))
        value, says = said[m.group(1)]
        out.append({"src": "triton", "var": m.group(1), "config": "", "file": F_README,
                    "line": readme[:m.start()].count("\n") + 1, "default": "", "values": [], "value": value,
                    "value_says": "", "says": says, "read": "env", "source": TRITON_README % ref + "#tips-for-hacking"})
    return out


def _const(node):
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None


def jax_sites(config, doc, logs, version, doc_ref):
    out = []
    tree = ast.parse(config)
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        fn = getattr(call.func, "id", "")
        if not fn.endswith("_state"):
            continue
        kw = {k.arg: k.value for k in call.keywords}
        name = _const(kw.get("name")) if "name" in kw else None
        if not isinstance(name, str) or not name.startswith("jax_"):
            continue
        help_ = _const(kw.get("help")) if "help" in kw else ""
        default = kw.get("default")
        dflt = _const(default) if default is not None else None
        out.append({"src": "jax", "var": name.upper(), "config": name, "file": F_CONFIG, "line": node.lineno,
                    "default": "" if dflt is None else str(dflt), "values": [], "value": "True" if fn == "bool_state"
                    else "", "value_says": "", "says": _squash(help_ or "")[:1200], "read": "flag",
                    "kind_of": fn, "source": JAX_BLOB % (version, "config.py", node.lineno)})
    pre = re.search(r"\*\*(JAX will preallocate [^*]{1,200})\*\*", doc)
    for m in JAXDOC_VAR.finditer(doc):
        out.append({"src": "jax", "var": m.group(1), "config": "", "file": F_JAXDOC,
                    "preamble": " ".join(pre.group(1).split()) if pre else "",
                    "line": doc[:m.start()].count("\n") + 1, "default": "", "values": [m.group(2)],
                    "value": m.group(2), "value_says": "", "says": _squash(m.group(3)), "read": "env",
                    "source": JAX_DOC % doc_ref + "#L%d" % (doc[:m.start()].count("\n") + 1)})
    for path, text in logs:
        for fpath, rx in JAX_LOG:
            if fpath != path:
                continue
            m = rx.search(text)
            if m:
                ln = text[:m.start()].count("\n") + 1
                out.append({"src": "jax", "var": "", "config": "compile" if path == F_PXLA else "trace" if
                            path == F_PJIT else "cache_miss" if "CACHE MISS" in m.group(1) else "cache_miss_for",
                            "file": path, "line": ln, "default": "", "values": [], "value": "", "value_says": "",
                            "says": m.group(1), "read": "log",
                            "source": JAX_BLOB % (version, path[len("jax/_src/"):], ln)})
    return out


def _version(files, name):
    for path, text in files:
        if path == name:
            v = re.search(r"_version = \"([^\"]+)\"", text)
            return v.group(1) if v else "?"
    return "?"


def _merged(files):
    """{path: text}: a slice may give one file in several pieces (`=== path @N` each, read_slice pads each piece with
    blank lines to its line N); the pieces are laid over each other so that every line keeps its number."""
    out = {}
    for path, text in files:
        lines = out.setdefault(path, [])
        for i, line in enumerate(text.split("\n")):
            if i >= len(lines):
                lines.append(line)
            elif line and not lines[i]:
                lines[i] = line
    return {p: "\n".join(lines) for p, lines in out.items()}


def build(files, version):
    by = _merged(files)
    refs = dict(x.split("=", 1) for x in re.findall(r"\b(\w+=[\w.+-]+)", version))
    sites = cuda_sites(by[F_CUDA])
    sites += triton_sites(by[F_KNOBS], by[F_README], refs.get("triton_readme", "main"))
    for s in sites:
        if s["src"] == "triton" and "?" in s["source"]:
            s["source"] = TRITON_BLOB % (refs.get("triton", "?"), s["line"])
    sites += jax_sites(by[F_CONFIG], by[F_JAXDOC], [(p, by[p]) for p in (F_PXLA, F_PJIT, F_PEVAL) if p in by],
                       refs.get("jax", "?"), refs.get("jax_doc", "main"))
    ids = set()
    for s in sites:
        s["id"] = knowgen.unique_id(knowgen.slug("%s %s" % (s["src"], s["var"] or s["config"])), ids)
        s["where"] = "%s:%d" % (s["file"], s["line"])
        s["family"] = None
        kind = next((k for k, test in RULES if test(s)), None)
        if kind is None:
            continue
        k = KIND[kind]
        s["rule"], s["family"], s["symptoms"], s["sure"], s["told"] = kind, k["family"], list(k["symptoms"]), \
            k["sure"], k["told"]
        said = s["value_says"] if kind in ("load_eager", "init_cost") else s["preamble"] if kind == "preallocates" \
            else s["says"]
        if kind in ("load_eager", "init_cost"):
            said = next((x for x in re.split(r"(?<=\.)\s", said) if re.search(r"startup time|memory footprint", x)),
                        said)
        elif kind == "recompiles":
            said = s["says"].replace("%s", "jit(f)", 1).replace(" %s. ", " ...").strip()
        elif kind == "preallocates":
            pass
        else:
            said = next((x for x in re.split(r"(?<=[.!])\s", said) if re.search(
                r"slow|load time|halt and wait|interpreter|regardless|dumps|debugging|Disable JIT|checks to every|"
                r"performance|is the fastest", x)), said)
        value = "float32" if kind == "matmul_precision" else s["value"] or "1"
        key = s["var"]
        nokernel = next((x for x in re.split(r"(?<=\.)\s", s["says"]) if "ignore any CUBIN" in x), "").rstrip(".")
        nokernel = re.sub(r"^The environment variables instruct", "instruct", nokernel)
        # (the page's DEFAULT is 'equivalent to LAZY': name what it does)
        dflt = "LAZY" if s["default"] == "DEFAULT" else s["default"]
        fill = {"key": key, "value": value, "said": said.rstrip(".")[:300], "default": dflt or "LAZY", "nokernel": nokernel,
                "flag": s["config"], "env": s["var"]}
        s["what"] = k["what"] % fill
        s["fix"] = k["fix"] % fill
        if kind == "recompiles":
            s["keys"], s["when"] = ["jax.compile"], "any"
            s["needs"] = "recompiles"
        elif kind == "forced_jit" and s["var"] == "CUDA_FORCE_PTX_JIT":
            # (the page: CUDA_FORCE_PTX_JIT overrides CUDA_FORCE_JIT) where the text shows neither, a build whose arch
            # list holds this GPU failing with 'no kernel image' is what forcing PTX JIT does: the row is that cause
            s["keys"], s["when"], s["needs"] = [s["var"]], "=1", "arch_covered"
        elif kind == "preallocates":
            # preallocating is the default: in effect where the text sets no value, on a GPU JAX is seen using
            s["keys"], s["when"], s["absent_default"], s["needs"] = [s["var"]], "true", "true", "jax_gpu"
        elif kind == "matmul_precision":
            # the values the help names as the full-precision end ('float32' "is similar to full float32 precision"),
            # and the legacy 'highest' and the F32 / F64 dot algorithm presets of its enum
            s["keys"], s["when"] = [s["var"], s["config"]], ["float32", "highest", "F32_F32_F32", "F64_F64_F64"]
        elif s["src"] == "jax" and s["read"] == "flag":
            s["keys"], s["when"] = [s["var"], s["config"]], "true"
        else:
            s["keys"] = [s["var"]]
            s["when"] = [value] if not re.fullmatch(r"-?\d+", value) else "=" + value
    for s in sites:
        s["text"] = "%s -> %s" % (s["var"] or s["config"], s.get("rule") or "-")
        s.pop("value_says", None)
    return {"header": knowgen.header("the CUDA Programming Guide's 'CUDA Environment Variables' page (%s); Triton's "
                                     "python/triton/knobs.py and README.md; JAX's jax/_src/config.py, "
                                     "jax/_src/interpreters/pxla.py, jax/_src/pjit.py and docs/gpu_memory_allocation.rst"
                                     % CUDA_PAGE, version, "tools/gen_runtime_switches.py",
                                     "the settings CUDA, Triton and JAX read, each with the sentence of its own "
                                     "document; 'rule' names those the document says slow a run, cost memory or make "
                                     "it wait"),
            "sites": sites}


def read_sources(a):
    files = []
    with open(a.cuda_page, encoding="utf-8") as f:
        files.append((F_CUDA, f.read()))
    for name, path in ((F_KNOBS, os.path.join(a.triton, "knobs.py")), (F_README, a.triton_readme),
                       (F_CONFIG, os.path.join(a.jax, "_src", "config.py")),
                       (F_PXLA, os.path.join(a.jax, "_src", "interpreters", "pxla.py")),
                       (F_PJIT, os.path.join(a.jax, "_src", "pjit.py")), (F_JAXDOC, a.jax_doc),
                       (F_PEVAL, os.path.join(a.jax, "_src", "interpreters", "partial_eval.py")),
                       (F_JAXVER, os.path.join(a.jax, "version.py"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            files.append((name, f.read()))
    tv = knowgen.package_version([os.path.join(os.path.dirname(a.triton), d, "METADATA") for d in
                                  os.listdir(os.path.dirname(a.triton)) if d.startswith("triton-") and
                                  d.endswith(".dist-info")])
    version = "cuda_page=2025-12-15 triton=%s triton_readme=%s jax=%s jax_doc=%s" % (
        tv or "?", a.triton_readme_ref, _version(files, F_JAXVER), a.jax_doc_ref)
    return files, version


def main(argv=None):
    a = knowgen.arguments(__doc__, argv, source=None, extra=(
        ("--cuda-page", {}), ("--triton", {}), ("--triton-readme", {}), ("--jax", {}), ("--jax-doc", {}),
        ("--triton-readme-ref", {"default": "0112e82a367ce0da054c06b8d4e8c739120a4fbd"}),
        ("--jax-doc-ref", {"default": "00f5ef2ac0f49f4c963897dbde1fc2755e461432"})))
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    elif all((a.cuda_page, a.triton, a.triton_readme, a.jax, a.jax_doc)):
        files, version = read_sources(a)
    else:
        a.error("give --cuda-page, --triton, --triton-readme, --jax and --jax-doc, or --slice")
    doc = build(files, version)
    missing = sorted({k for k, _t in RULES} - {s.get("rule") for s in doc["sites"]})
    if missing:
        a.error("rules that match no statement of these releases (reworded upstream: move them by hand): %s" % missing)
    # (beside torch_switches.json, not in knowledge/generated/: settings that settings.py reads, not message sites)
    return knowgen.emit("runtime_switches", doc, a.out or OUT, what="settings")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
