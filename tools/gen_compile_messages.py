#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/compile_messages.json: the graph breaks torch.compile (TorchDynamo) cannot
trace, as `torch._dynamo.exc.Unsupported: <graph break type>` prints them when fullgraph=True (or
torch._dynamo.config.error_on_graph_break) makes a graph break an error, each with the explanation and hints PyTorch
registers for it.

Read from the torch wheel (PyPI), never imported: torch/_dynamo/graph_break_registry.json (every graph break type Dynamo
raises through torch/_dynamo/exc.py unimplemented(): {"GBnnnn": [{"Gb_type", "Context", "Explanation", "Hints"}, ...]},
the first variant of each id being the current one) and torch/_dynamo/graph_break_hints.py (the generic hint lists
the registry's hints are built from: USER_ERROR, DYNAMO_BUG, DIFFICULT, FUNDAMENTAL, SUPPORTABLE, ...). The text an
error shows is exc.py format_graph_break_message(): the graph break type on the exception's line, then
'  Explanation: ...', one '  Hint: ...' line per hint and '  Developer debug context: ...'. Each graph break type
becomes a site whose matcher is `Unsupported: <type>` (the exception's class and the message's first line: a
TORCH_LOGS=graph_breaks log of a healthy run prints the type after 'Graph Break Reason: ', never as an exception).
Its meaning is the registered explanation; its fix is the registry's own hints that are specific to it (the generic
ones left out), then what the generic hint's category asks for (USER_ERROR: run eagerly to see the code's own error;
FUNDAMENTAL / SUPPORTABLE: keep that code out of the compiled region or let Dynamo fall back; DYNAMO_BUG / DIFFICULT:
a newer torch), then fullgraph=False. A graph break type whose registered hints are empty gets its fix from
MSG_FIX, written from the explanation and the documentation of what it names.

Usage:
    pip download --no-deps --only-binary :all: torch -d /tmp/w   (the files read are the same on every platform)
    pip download --no-deps --only-binary :all: --python-version 3.11 --platform manylinux1_x86_64 torch==2.6.0 -d /tmp/w
    pip download ... torch==2.4.1 -d /tmp/w
    python tools/gen_compile_messages.py --wheel /tmp/w/torch-2.14.1-...whl --older /tmp/w/torch-2.6.0-...whl \\
        --older /tmp/w/torch-2.4.1-...whl [--record tools/data/compile_messages_slice.txt]
    python tools/gen_compile_messages.py --slice tools/data/compile_messages_slice.txt -o OUT   (the test)

Besides the registry, the raise / assert / logger sites (tools/wheelmsgs.py) of Inductor's kernel build
(torch/_inductor/async_compile.py, codecache.py, cpp_builder.py, scheduler.py) and of DDPOptimizer
(torch/_dynamo/backends/distributed.py), in the current wheel and the older ones (`--older`, repeatable: what they
printed that the current one no longer does: 2.4's 'DDPOptimizer backend: Found a higher order op in the graph',
the scheduler's 'Cannot find a working triton installation ...' of 2.4 and 2.6), assigned by PY_RULES, their
meaning and fix from PY_FIX.

Source: torch (https://pypi.org/project/torch/, BSD-3-Clause; https://github.com/pytorch/pytorch,
torch/_dynamo/graph_break_registry.json, graph_break_hints.py, exc.py, backends/distributed.py, torch/_inductor/).
The regenerated table read torch 2.14.1 and the older 2.6.0 and 2.4.1.
Docs: https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html,
https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html, the per-type pages
https://meta-pytorch.github.io/compile-graph-break-site/gb/ that exc.py links to.
"""

import ast
import json
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_compile_messages.py"
FILES = (r"^torch/(?:_dynamo/(?:graph_break_registry\.json|graph_break_hints\.py|backends/distributed\.py)|"
         r"_inductor/(?:async_compile|codecache|cpp_builder|scheduler)\.py)$")
# torch <= 2.7 raised a graph break as unimplemented("<text>") (no registry yet): its Dynamo files, read from older wheels
OLD_DYNAMO = r"^torch/_dynamo/(?:symbolic_convert|utils|output_graph|side_effects|variables/[a-z_]+)\.py$"
PY_FILES = r"^torch/(?:_dynamo/backends/distributed|_inductor/(?:async_compile|codecache|cpp_builder|scheduler))\.py$"
REGISTRY = "torch/_dynamo/graph_break_registry.json"
HINTS = "torch/_dynamo/graph_break_hints.py"
FAMILY = "compile.graph_break"
NEED = 12  # the graph break type's own characters below which it is too vague to match

# what each generic hint category of graph_break_hints.py asks the user to do (the category's own words)
CATEGORY_FIX = {
    "USER_ERROR": "run the same code without torch.compile (torch.compiler.set_stance('force_eager'), or drop the "
                  "torch.compile call): the code fails in eager too, and its own error says what to fix",
    "FUNDAMENTAL": "keep that code out of the compiled region: move it outside the compiled function, or decorate "
                   "the function that holds it with @torch.compiler.disable",
    "SUPPORTABLE": "move that call out of the compiled function (or @torch.compiler.disable on the function that makes "
                   "it); Dynamo does not trace it in this release",
    "DYNAMO_BUG": "a Dynamo bug: pip install -U torch (a newer release may trace it); meanwhile @torch.compiler.disable "
                  "on the function that holds it",
    "DIFFICULT": "pip install -U torch; meanwhile @torch.compiler.disable on the function that holds it",
    "CAUSED_BY_EARLIER_GRAPH_BREAK": "look for an earlier graph break in the log (TORCH_LOGS=graph_breaks) and resolve "
                                     "that one first",
}
_FULLGRAPH = ("or let Dynamo fall back for it: torch.compile(..., fullgraph=False) (and "
              "torch._dynamo.config.error_on_graph_break = False); TORCH_LOGS=graph_breaks python train.py shows each "
              "graph break and the user line that makes it")

# graph break types registered without hints: (regex over the type, means, [fix]) from the explanation and the docs of
# what they name (https://docs.pytorch.org/docs/stable/cond.html for torch.cond; the item()/capture_scalar_outputs and
# dynamic shape pages of the troubleshooting guide)
MSG_FIX = [
    (r"^Data-dependent branching$",
     "Python control flow on a tensor's value (if x.sum() > 0:, while t.any():): Dynamo traces one graph per shape "
     "and cannot decide the branch without running the tensor computation.",
     ["compute the branch with tensor ops instead: torch.where(cond, a, b), or torch.cond(pred, true_fn, false_fn, "
      "(x,)) for two functions; or take the decision outside the compiled function and pass it in as a Python bool"]),
    (r"^Data dependent operator$",
     "An operator whose non-tensor output depends on the tensor's data (Tensor.item(), aten._local_scalar_dense, a "
     "count from nonzero): Dynamo cannot trace its value into the graph unless scalar outputs are captured.",
     ["torch._dynamo.config.capture_scalar_outputs = True (or export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1), the "
      "setting the older message named; or keep that value out of the compiled function"]),
    (r"^Storing Tensor hook handle in globals",
     "A tensor hook's handle is stored in a global variable inside the compiled function.",
     ["register the hook outside the compiled function (or keep the handle local)"]),
]


# Inductor's build of its kernels and DDPOptimizer (torch._dynamo.backends.distributed, torch.compile of a DDP model):
# raise / assert / logger sites of the current and an older wheel (tools/wheelmsgs.py), assigned by their words
PY_RULES = [
    # torch <= 2.5 checked triton in the scheduler (_inductor/scheduler.py create_backend) before exc.py's TritonMissing
    # and GPUTooOldForTriton (torch_core_messages.json's) took the words over
    ("triton", "torch.compile_error", {"where": r"^torch/_inductor/scheduler\.py",
                                       "text": r"working triton installation|too old to be supported by the triton"}),
    ("Inductor's scheduler's own invariants", None, {"where": r"^torch/_inductor/scheduler\.py"}),
    ("build", "compile.inductor_build", {"where": r"^torch/_inductor/",
                                         "text": r"mounted with noexec|C\+\+ compiler|nvcc is required|"
                                                 r"compilation subprocess exited unexpectedly|compile-worker future|"
                                                 r"daemonic multiprocessing|Failed to load library from"}),
    ("ddp", "compile.ddp_optimizer", {"where": r"^torch/_dynamo/backends/distributed\.py",
                                      "text": r"DDPOptimizer|optimize_ddp|higher order op"}),
]
PY_FIX = [
    (r"^Cannot find a working triton installation",
     "torch.compile's default backend (inductor) generates Triton kernels for the GPU and found no usable triton "
     "package (not installed, or too old for this torch; torch <= 2.5's scheduler.py check).",
     ["install the triton this torch release pins (pip show torch: Requires-Dist triton==<version>; pip install "
      "torch reinstalls it)", "or compile without Triton: torch.compile(model, backend='aot_eager'), or drop "
      "torch.compile"]),
    (r"which is too old to be supported by the triton GPU compiler",
     "torch.compile's inductor backend needs a GPU of compute capability 7.0 or newer for Triton (a P100, K80 or "
     "GTX 10xx is older).",
     ["run without torch.compile on this GPU, or torch.compile(model, backend='aot_eager') (no Triton kernels)"]),
    (r"is mounted with noexec",
     "Inductor builds each compiled kernel as a shared object in its cache folder (TORCHINDUCTOR_CACHE_DIR, default "
     "<tmp>/torchinductor_<user>) and loads it with dlopen; the folder's file system is mounted noexec (Docker's "
     "default for a tmpfs /tmp), so the loader refuses to map it.",
     ["export TORCHINDUCTOR_CACHE_DIR=<a folder on an exec-mounted file system> (e.g. $HOME/.cache/torchinductor) "
      "(the message's advice), or remount /tmp with exec (docker run --tmpfs /tmp:exec)"]),
    (r"process pools are disabled in daemonic multiprocessing processes",
     "torch.compile ran inside a daemonic multiprocessing process (a DataLoader worker, a multiprocessing.Pool "
     "worker), which may not start Inductor's compile-worker pool.",
     ["torch._inductor.config.worker_start_method = 'subprocess' (or export "
      "TORCHINDUCTOR_WORKER_START=subprocess) (the message's advice), or compile in the main process"]),
    (r"^A compilation subprocess exited unexpectedly",
     "One of Inductor's parallel compile workers died (killed for memory by the OOM killer when many compile at once, "
     "or a crash of the compiler).",
     ["export TORCHINDUCTOR_COMPILE_THREADS=1 to compile in the main process and see the real error (the message's "
      "advice); dmesg -T | grep -i 'killed process' for an OOM kill"]),
    (r"^Inductor compile-worker future for %s did not complete within",
     "An Inductor compile worker did not finish its kernel in time (a slow or overloaded node, a hung compiler).",
     ["export TORCHINDUCTOR_COMPILE_WORKER_WAIT_TIMEOUT=<seconds> (the message's advice), or "
      "TORCHINDUCTOR_COMPILE_THREADS=1"]),
    (r"DDPOptimizer|optimize_ddp|higher order op",
     "torch.compile of a DDP-wrapped model splits the graph at DDP's gradient buckets (DDPOptimizer, "
     "torch._dynamo.config.optimize_ddp) so that all-reduce overlaps backward; this release's DDPOptimizer cannot "
     "split a graph with a higher-order op (activation checkpointing, torch.cond, a HOP from a library) in it.",
     ["torch._dynamo.config.optimize_ddp = False before torch.compile (one bucket for the whole graph: less "
      "overlap) (the message's advice), or pip install -U torch (newer releases split such graphs)"]),
]


def _hint_lists(src):
    """{NAME: [text, ...]} of graph_break_hints.py's module-level lists of string constants."""
    out = {}
    for node in ast.parse(src).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                isinstance(node.value, ast.List):
            texts = [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if texts:
                out[node.targets[0].id] = texts
    return out


def _joined(hints):
    """The registry's hints with the pieces of one sentence joined: the registry keeps each string constant of an
    implicitly concatenated hint apart ('Set `...capture_scalar_outputs = True` ', 'or `export ...=1` ', 'to include
    ...'); a piece that ends in a blank continues in the next."""
    out, cur = [], ""
    for h in hints:
        cur += h
        if not h.endswith(" "):
            out.append(cur.strip())
            cur = ""
    if cur.strip():
        out.append(cur.strip())
    return out


def _plain(text):
    """A registry text as a reader sees it: a replacement field {expr} as <expr>; an explanation the registry kept as
    source ('"Detected ... " "Dynamo does ..." + trace_info') as its string constants joined."""
    text = text.strip()
    if text.startswith('"'):
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
        text = "".join(parts) if parts else text
    return re.sub(r"\{([^{}]{1,80})\}", r"<\1>", text).strip()


def sites_of(registry, hints):
    """One site per graph break type of the registry (its first variant per id)."""
    categories = {name: [" ".join(t.split()) for t in texts] for name, texts in hints.items()}
    sites, seen, ids = [], set(), set()
    for gbid, variants in sorted(registry.items()):
        v = variants[0]
        gb = " ".join(v["Gb_type"].split())
        if gb in seen:
            continue
        seen.add(gb)
        fmt = "Unsupported: " + gb.replace("%", "%%")
        site = {"id": knowgen.unique_id("compile." + gbid.lower(), ids), "where": "%s:%s" % (REGISTRY, gbid),
                "level": "raise", "text": fmt}
        rx, literal = knowgen.matcher(fmt, None, NEED)
        if knowgen.unanchored(site, rx, literal, NEED) or not re.search(r"[A-Za-z]{3}", gb):
            site.update({"re": None, "family": None, "rule": "no literal anchor"})
            sites.append(site)
            continue
        own, cats = [], []
        for h in _joined(v.get("Hints") or []):
            cat = next((name for name, texts in categories.items() if " ".join(h.split()) in texts), None)
            if cat:
                cats.append(cat)
            else:
                own.append(_plain(h))
        expl = _plain(v.get("Explanation") or "").rstrip(".")
        if re.fullmatch(r"[\w.<>]*", expl):  # a variable's name the registry kept ('explanation'): no text
            expl = ""
        means = "torch.compile (TorchDynamo) cannot trace this construct: a graph break ('%s')%s. With fullgraph=True " \
                "(or torch._dynamo.config.error_on_graph_break) a graph break is an error; without it Dynamo runs " \
                "that part in Python." % (gb, (": " + expl) if expl else "")
        fix = [h for h in own if not re.search(r"report an issue|open an issue|file an issue", h, re.I)]
        fix += [CATEGORY_FIX[c] for c in cats if c in CATEGORY_FIX]
        mf = next((m for r, m, f in MSG_FIX if re.search(r, gb)), None)
        if mf and not fix:
            fix = list(next(f for r, m, f in MSG_FIX if re.search(r, gb)))
        fix.append(_FULLGRAPH if fix else "drop fullgraph=True: torch.compile(..., fullgraph=False) lets Dynamo run "
                                          "that part in Python; " + _FULLGRAPH.split("; ", 1)[1])
        site.update({"re": rx, "family": FAMILY, "rule": "graph break registry",
                     "means": mf or means, "fix": fix})
        sites.append(site)
    return sites


# what torch <= 2.7's own unimplemented() texts ask, where the registry's later hint for the same break says it
OLD_FIX = [
    (r"^data dependent operator: |^Tensor\.item$",
     "Dynamo (torch <= 2.7) met an operator whose output depends on tensor values (Tensor.item(), "
     "aten._local_scalar_dense, nonzero's count) while capture_scalar_outputs was off.",
     ["torch._dynamo.config.capture_scalar_outputs = True (or TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1), or keep the "
      ".item() / data-dependent value out of the compiled function"]),
    (r"^dynamic shape operator: ",
     "Dynamo (torch <= 2.7) met an operator whose output shape depends on tensor values (nonzero, unique, boolean "
     "masking) while capture_dynamic_output_shape_ops was off.",
     ["torch._dynamo.config.capture_dynamic_output_shape_ops = True, or move that operation out of the compiled "
      "function"]),
]


def older_unimplemented(files, seen, ids):
    """The sites of torch <= 2.7's graph breaks: each unimplemented("<text>") of OLD_DYNAMO in an older wheel, matched
    as 'Unsupported: <text>' like the registry's types (the exception printed the text alone)."""
    out = []
    for path, srcs in wheelmsgs.group(files).items():
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        if not m or not re.match(OLD_DYNAMO, m.group(3)):
            continue
        found = []
        for src in srcs:
            try:
                tree = ast.parse(textwrap.dedent(src))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                fn = node.func if isinstance(node, ast.Call) else None
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
                if name == "unimplemented" and node.args:
                    fmt = knowgen.py_format(node.args[0])
                    if fmt:
                        found.append((node.lineno, " ".join(fmt.split())))
        for line, fmt in sorted(set(found)):
            text = "Unsupported: " + fmt
            if text in seen:
                continue
            seen.add(text)
            where = "%s:%d" % (m.group(3), line)
            site = {"id": knowgen.unique_id("compile.%s_%s_%s" % (m.group(1), knowgen.slug(m.group(2)),
                                                                     knowgen.slug(where)), ids),
                    "where": where, "level": "raise", "text": text, "older": "%s %s" % (m.group(1), m.group(2))}
            rx, literal = knowgen.matcher(text, None, NEED)
            # the text's own words after 'Unsupported: ' must name the break: 'Unsupported: %s' or 'Unsupported:
            # call_method %s %s' is any break
            if knowgen.unanchored(site, rx, literal, NEED) or not knowgen.specific_enough(fmt, names=False):
                site.update({"re": None, "family": None, "rule": "too few words of its own"})
                out.append(site)
                continue
            own = next(((mm, f) for r, mm, f in OLD_FIX if re.search(r, fmt)), None)
            site.update({"re": rx, "family": FAMILY, "rule": "older unimplemented()",
                         "means": own[0] if own else "torch.compile (TorchDynamo, torch <= 2.7) cannot trace this "
                                                     "construct: a graph break ('%s'). With fullgraph=True a graph "
                                                     "break is an error; without it Dynamo runs that part in "
                                                     "Python." % fmt,
                         "fix": (list(own[1]) + [_FULLGRAPH]) if own else
                         ["drop fullgraph=True: torch.compile(..., fullgraph=False) lets Dynamo run that part in "
                          "Python; " + _FULLGRAPH.split("; ", 1)[1], "or move that code out of the compiled function "
                          "(@torch.compiler.disable on the function that holds it); a newer torch traces more "
                          "constructs (pip install -U torch)"]})
            out.append(site)
    return out


def build(files, version):
    by = dict(files)
    registry = json.loads(by[REGISTRY])
    hints = _hint_lists(by[HINTS])
    seen, ids = set(), set()
    py = wheelmsgs.py_sites([(p, t) for p, t in files if re.match(PY_FILES, re.sub(r"^older/[^/]+/", "", p))],
                            "compile.", PY_RULES, PY_FIX, seen, ids)
    py += older_unimplemented(files, {s["text"] for s in py}, ids)
    return {"header": knowgen.header("torch (https://pypi.org/project/torch/) torch/_dynamo/graph_break_registry.json, "
                                     "graph_break_hints.py, backends/distributed.py, torch/_inductor/async_compile.py, "
                                     "codecache.py, cpp_builder.py, scheduler.py", version, GENERATOR,
                                     "one site per graph break type, matched as the Unsupported exception prints it; "
                                     "meaning and fix from the registry's explanation and hints (MSG_FIX where it "
                                     "registers none); raise/assert/logger messages of Inductor's kernel build "
                                     "(async_compile.py, codecache.py, cpp_builder.py, scheduler.py) and DDPOptimizer "
                                     "(_dynamo/backends/distributed.py), families from PY_RULES"),
            "sites": sites_of(registry, hints) + py}


def _recorded(files):
    """The slice's blocks: the registry with the fields the generator reads (first variant per id), and the hints
    module whole."""
    by = dict(files)
    registry = json.loads(by[REGISTRY])
    slim = {k: [{f: v[0].get(f) for f in ("Gb_type", "Explanation", "Hints")}] for k, v in registry.items()}
    return [(REGISTRY, json.dumps(slim, indent=0, sort_keys=True)), (HINTS, by[HINTS])]


def _unindent(lines):
    """A statement's lines without its first line's indentation (textwrap.dedent keeps it when a string literal
    of the statement goes on at column 0); the message's blanks are squashed when it is read, so a string line
    that loses the indentation reads the same."""
    ind = re.match(r"\s*", lines[0]).group()
    return "\n".join(ln[len(ind):] if ln.startswith(ind) else ln for ln in lines)


def _call_statements(src, path, keys):
    """[(first, last)] of the smallest statement holding each unimplemented() call whose 'path:line' is in keys."""
    want = sorted(int(k.rsplit(":", 1)[1]) for k in keys if k.rsplit(":", 1)[0] == path)
    if not want:
        return []
    tree = ast.parse(src)
    spans = set()
    simple = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(
        n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try))]
    for ln in want:
        st = min((n for n in simple if n.lineno <= ln <= n.end_lineno), key=lambda n: n.end_lineno - n.lineno,
                 default=None)
        if st is not None:
            spans.add((st.lineno, st.end_lineno))
    return sorted(spans)


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheel", extra=[
        ("--older", {"action": "append", "help": "an older torch wheel: the Python messages it printed that the "
                                                 "current one no longer does (DDPOptimizer's higher-order-op refusal, "
                                                 "the scheduler's triton checks); repeatable"}),
        ("--record", {"help": "write the slice (the registry's fields that are read, the hints module, the "
                              "statements of the assigned Python sites)"})])
    if a.wheel:
        files, version = wheelmsgs.from_wheel(a.wheel, FILES, "torch")
        olds = []
        for wheel in a.older or ():
            ofiles, oversion = wheelmsgs.from_wheel(wheel, "(?:%s)|(?:%s)" % (FILES, OLD_DYNAMO), "torch")
            files += [("older/torch-%s/%s" % (oversion.split()[1], p), t) for p, t in ofiles if p.endswith(".py")]
            olds.append(oversion)
        if olds:
            version += "; older: " + "; ".join(olds)
    else:
        files, version = knowgen.read_slice(a.slice)
    doc = build(files, version)
    if a.wheel:
        # a MSG_FIX row whose graph break type the registry no longer has: moved by hand, never silently lost
        knowgen.stale_fixes(a, "PY_FIX", PY_FIX, [s for s in doc["sites"] if s["family"] != FAMILY], of="wheel")
        types = [s["text"][len("Unsupported: "):] for s in doc["sites"] if s.get("family") == FAMILY]
        unused = [r for r, _, _ in MSG_FIX if not any(re.search(r, t) for t in types)]
        if unused:
            a.error("MSG_FIX entries match no graph break type of this wheel: %s" % "; ".join(unused))
        if a.record:
            with open(a.record, "w") as f:
                f.write("# Recorded by %s --record: the graph break registry's fields it reads and the hints module.\n"
                        % GENERATOR)
                f.write("#! version %s\n" % version)
                for p, text in _recorded(files):
                    f.write("=== %s\n%s\n" % (p, text.rstrip("\n")))
            keep = {wheelmsgs.site_key(s) for s in doc["sites"] if s.get("family") and s["family"] != FAMILY}
            olds = {wheelmsgs.site_key(s) for s in doc["sites"] if s.get("rule") == "older unimplemented()"}
            with open(a.record, "a") as f:
                for p, src in files:
                    if p.endswith(".py") and not p.endswith(HINTS):
                        lines = src.splitlines()
                        for x, y in wheelmsgs.statements(src, keep.__contains__, p):
                            f.write("=== %s @%d\n%s\n" % (p, x, textwrap.dedent("\n".join(lines[x - 1:y]))))
                        for x, y in _call_statements(src, p, olds):
                            f.write("=== %s @%d\n%s\n" % (p, x, _unindent(lines[x - 1:y])))
    return knowgen.emit("compile_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
