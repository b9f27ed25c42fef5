#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/api_notes.json: the sentences of the training libraries' own docstrings
that CONSTRAIN how an API is used (apinotes20, issue 18: "name the fix").

A usage error raised inside an API often has its fix written in that API's documentation, not in the message:
torch.distributed.tensor.parallel.loss_parallel's docstring shows `loss.backward()` inside `with loss_parallel():`,
torch.distributed.optim.DistributedOptimizer's says it takes remote references (RRefs) to parameters. gen_param_docs
keeps what each PARAMETER's doc says (choices, default); this keeps what the API as a whole requires. explain
(gpudoctor/explain/apinotes.py) quotes the kept sentences that share a word with a usage error raised under the
user's call of that API, citing the API's page.

Read with the same readers as tools/gen_param_docs.py (the wheels / sdists, or a site-packages folder; ast, never
imported; its docstring fetch `_doc` with `X.__doc__ = ...` assignments and interpolated string constants), per
public top-level class / function and public method of a public class, in every module but tests / examples /
benchmarks / vendored copies (and the subtrees of torch a training script never calls: _inductor, _dynamo, fx, onnx,
jit ...; of ray only ray.train / ray.air). A private module's callable (torch/_tensor.py's Tensor, jax/_src/api.py's
device_put) is kept when a public module re-exports it (`from torch._tensor import Tensor` in torch/__init__.py): its
public name is that module's. Kept per callable, at most MAX_NOTES sentences of at most MAX_SENT characters
(reStructuredText / Markdown markup folded), in this order:
  1. the sentences of its `.. warning::` / `.. note::` (also important, caution, attention, danger, deprecated) blocks,
     Google-style `Warning:` / `Note:` sections, NumPy `Notes` sections and Hugging Face `<Tip warning={true}>` /
     `> [!WARNING]` blocks, the first two of each block;
  2. any other sentence of the docstring outside its example code that states a constraint: must / must not / only /
     cannot / should (not) be / before / after / instead / requires / not supported / make sure / ensure / do not;
and the code lines of its Example block that show a required order: a `with` statement naming the API itself and
the first lines of its body (`with loss_parallel():` / `loss.backward()`).

Usage:
    python tools/gen_api_notes.py --dist FILE.whl|FILE.tar.gz ... [--site VENV/lib/python3.11/site-packages] \\
        [--record tools/data/api_notes_slice.json.gz] [-o OUT]
    python tools/gen_api_notes.py --slice tools/data/api_notes_slice.json.gz -o OUT   (the test)

Sources: the PyPI releases named in the header (https://pypi.org/project/<name>/). The slice records, for the modules
SLICE names, each kept callable's raw docstring (and its public name), so the test re-runs the extraction without
the wheels.
"""

import ast
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_param_docs as pd  # noqa: E402  (the shared wheel / sdist / site readers, docstring fetch and folding)
import knowgen  # noqa: E402
from gen_trailers import parse  # noqa: E402

GENERATOR = "tools/gen_api_notes.py"
NAME = "api_notes"
PACKAGES = dict(pd.PACKAGES, jax="jax", flax="flax", omegaconf="omegaconf", hydra="hydra_core",
                webdataset="webdataset", ray="ray")
MAX_NOTES = 5
MAX_SENT = 300
MAX_ORDER = 4
MAX_METHODS = 80
MAX_DOC = 12000  # the raw docstring recorded in the slice, at most
# not a module users call (tests, examples, vendored copies, per-architecture model code, torch's compiler / export
# internals, of ray everything but ray.train / ray.air); unlike gen_param_docs a private module is read (its public
# names come from the re-exports)
_SKIP = re.compile(r"(?:^|/)(?:tests?|testing|test_utils|testing_utils|pytest_plugin|examples?|benchmarks?|"
                   r"scripts?|_?vendor(?:ed)?|third_?party|"
                   r"commands?|cli)(?:/|\.py$)|^transformers/models/|(?:^|/)test_[^/]*\.py$|"
                   r"^torch/(?:onnx|testing|_inductor|_dynamo|_functorch|_refs|_prims|_prims_common|_decomp|"
                   r"_higher_order_ops|_export|export|fx|jit|package|ao|_library|_subclasses|_numpy|_logging|"
                   r"_strobelight|_lazy|_custom_op|_vendor|utils/hipify|utils/benchmark|utils/_sympy|"
                   r"_C|include|share|lib|bin|testing|masked|nested|sparse|signal|special|linalg|fft|_awaits|"
                   r"_vmap_internals|_guards|_meta_registrations|_torch_docs|_tensor_docs|_storage_docs|"
                   r"_jit_internal|_ops|_classes|_sources|_tensor_str|overrides|quantization|mtia|xpu|mps|"
                   r"backends/_nnapi|_C_flatbuffer|contrib|_dispatch|_namedtensor_internals)(?:/|\.py$)|"
                   r"^deepspeed/(?:ops/csrc|accelerator/(?!real))|^ray/(?!train/|air/|__init__\.py$)|"
                   r"^jax/(?:experimental/jax2tf|_src/(?:lib|internal_test_util|cudnn|pallas|clusters|cloud_tpu))/|"
                   r"^flax/(?:linen/(?:experimental)|experimental)/")
# the modules the recorded slice keeps (a few APIs of each package whose notes a usage error meets)
SLICE = re.compile(r"^(?:torch/distributed/tensor/parallel/loss\.py|torch/distributed/optim/optimizer\.py|"
                   r"torch/_tensor\.py|torch/nn/parallel/distributed\.py|torch/utils/checkpoint\.py|"
                   r"torch/distributed/fsdp/_fully_shard/_fully_shard\.py|lightning/pytorch/core/module\.py|"
                   r"omegaconf/omegaconf\.py|jax/_src/api\.py|accelerate/accelerator\.py|"
                   r"peft/mapping_func\.py|datasets/arrow_dataset\.py|ray/train/torch/train_loop_utils\.py)$")

_DIRECTIVE = re.compile(r"^(?P<ind>[ \t]*)\.\. (?P<kind>warning|note|important|caution|attention|danger|"
                        r"deprecated|tip|hint)[ \t]?::[ \t]*(?P<rest>.*)$", re.I)
_GSECTION = re.compile(r"^(?P<ind>[ \t]*)(?P<kind>Warnings?|Notes?|Important|Caution|Tip)[ \t]*:[ \t]*(?P<rest>.*)$")
_NPSECTION = re.compile(r"^(?P<ind>[ \t]*)(?P<kind>Notes|Warnings)[ \t]*$")
_RULE = re.compile(r"^[ \t]*-{3,}[ \t]*$")
_TIP = re.compile(r"^[ \t]*<Tip(?P<warn>[ \t]+warning=\{true\})?>[ \t]*$")
_TIP_END = re.compile(r"^[ \t]*</Tip>[ \t]*$")
_GH = re.compile(r"^[ \t]*>[ \t]*\[!(?P<kind>WARNING|NOTE|TIP|IMPORTANT|CAUTION)\][ \t]*$")
_EXAMPLE = re.compile(r"^(?P<ind>[ \t]*)(?:Examples?|Usage|Example usage)[ \t]*:{1,2}[ \t]*$|"
                      r"^(?P<ind2>[ \t]*)\.\. code-block::|^(?P<ind3>[ \t]*)(?:Examples?|Usage)[ \t]*$")
_FENCE = re.compile(r"^[ \t]*```")
_PROMPT = re.compile(r"^[ \t]*(?:>>>|\.\.\.)(?: |$)")
# a sentence that states a constraint of use
_CONSTRAINT = re.compile(r"\b(?:must|only|cannot|can ?not|can't|should(?: not| only)? be|should(?: not)? call|"
                         r"before|after|instead|requires?|required|not supported|unsupported|not compatible|"
                         r"incompatible|make sure|ensure|do not|don't|never|has to|have to|needs? to be)\b", re.I)
# a parameter's sentence is kept only with a strong constraint word (its doc's 'before' / 'instead' are mostly what
# the parameter does, not what the caller must do)
_STRONG = re.compile(r"\b(?:must|cannot|can ?not|can't|only (?:be|supported|works?|valid|used|when|if|for|with)|"
                     r"not supported|unsupported|requires?|required|not compatible|incompatible|has to|have to|"
                     r"should be called|needs? to be)\b", re.I)
_SECTIONS = re.compile(r"^[ \t]*(?:Args|Arguments|Parameters|Params|Keyword [Aa]rgs|Kwargs|Returns?|Yields?|"
                       r"Raises|Attributes|Shape|Inputs?|Outputs?|Return type|Example|Examples|See [Aa]lso|"
                       r"References?|Todo)[ \t]*:?[ \t]*$")


def _ind(ln):
    return len(ln) - len(ln.lstrip())


def _block(lines, i, base, rest):
    """The text of a block whose head is lines[i] (indent ``base``): the head's rest and the following lines indented
    deeper (blank lines inside kept as paragraph breaks); (text, the index after it)."""
    out = [rest] if rest.strip() else []
    j = i + 1
    while j < len(lines):
        ln = lines[j]
        if ln.strip() and _ind(ln) <= base:
            break
        out.append(ln.strip())
        j += 1
    return "\n".join(out).strip(), j


def split(doc):
    """(blocks [(kind, text)], the prose outside blocks and examples, the example code lines) of a docstring."""
    lines = doc.expandtabs(4).split("\n")
    blocks, prose, code = [], [], []
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = _DIRECTIVE.match(ln)
        if m:
            text, i = _block(lines, i, len(m.group("ind")), m.group("rest"))
            blocks.append((m.group("kind").lower(), text))
            continue
        m = _GSECTION.match(ln)
        if m and (m.group("rest") or (i + 1 < len(lines) and _ind(lines[i + 1]) > len(m.group("ind")))):
            text, i = _block(lines, i, len(m.group("ind")), m.group("rest"))
            blocks.append((m.group("kind").lower().rstrip("s"), text))
            continue
        m = _NPSECTION.match(ln)
        if m and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            j, out = i + 2, []
            while j < len(lines) and not (j + 1 < len(lines) and _RULE.match(lines[j + 1]) and lines[j].strip()):
                out.append(lines[j].strip())
                j += 1
            blocks.append((m.group("kind").lower().rstrip("s"), "\n".join(out).strip()))
            i = j
            continue
        m = _TIP.match(ln)
        if m:
            j, out = i + 1, []
            while j < len(lines) and not _TIP_END.match(lines[j]):
                out.append(lines[j].strip())
                j += 1
            blocks.append(("warning" if m.group("warn") else "tip", "\n".join(out).strip()))
            i = j + 1
            continue
        m = _GH.match(ln)
        if m:
            j, out = i + 1, []
            while j < len(lines) and lines[j].lstrip().startswith(">"):
                out.append(lines[j].lstrip()[1:].strip())
                j += 1
            blocks.append((m.group("kind").lower(), "\n".join(out).strip()))
            i = j
            continue
        m = _EXAMPLE.match(ln)
        if m:
            base = len(m.group("ind") or m.group("ind2") or m.group("ind3") or "")
            j = i + 1
            if m.group("ind3") is not None and j < len(lines) and _RULE.match(lines[j]):
                j += 1  # NumPy 'Examples' over a rule
            while j < len(lines):
                if lines[j].strip() and _ind(lines[j]) <= base and not _PROMPT.match(lines[j]) and \
                        not _FENCE.match(lines[j]):
                    break
                code.append(lines[j])
                j += 1
            i = j
            continue
        if _FENCE.match(ln):
            j = i + 1
            while j < len(lines) and not _FENCE.match(lines[j]):
                code.append(lines[j])
                j += 1
            i = j + 1
            continue
        if _PROMPT.match(ln):
            code.append(ln)
            i += 1
            continue
        prose.append(ln)
        i += 1
    return blocks, "\n".join(prose), code


def sentences(text):
    """The folded sentences of a text (paragraphs kept apart: a sentence never runs over a blank line)."""
    out = []
    for para in re.split(r"\n[ \t]*\n", text):
        para = pd.fold(para)
        if not para:
            continue
        out.extend(s.strip() for s in pd._SENT.split(para) if s.strip())
    return out


def _bound(s):
    if len(s) <= MAX_SENT:
        return s
    cut = s[:MAX_SENT]
    return (cut[:cut.rfind(" ")] if " " in cut else cut) + " ..."


def _is_prose(s):
    """A sentence, not a table row / a signature / a lone word (enough letters and at least four words)."""
    return len(s.split()) >= 4 and sum(c.isalpha() for c in s) >= 0.5 * len(s) and not s.startswith(("|", "+-"))


def order_lines(code, short):
    """The code lines of an example that show a required order: a `with` statement naming the API itself (``short``)
    and the first lines of its body, prompts (>>> / ...) dropped; at most MAX_ORDER lines."""
    if any(_PROMPT.match(ln) for ln in code):  # a doctest: its code is the prompted lines (the rest is output)
        code = [_PROMPT.sub("", ln.strip(), count=1) for ln in code if _PROMPT.match(ln)]
    lines = [ln.rstrip() for ln in code if ln.strip() and not ln.strip().startswith("#")]
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not re.match(r"^(?:async\s+)?with\s", s) or not s.endswith(":") or \
                not re.search(r"(?<![\w])%s\s*\(" % re.escape(short), s):
            continue
        out, base = [s], _ind(ln)
        for nxt in lines[i + 1:]:
            if _ind(nxt) <= base or len(out) >= MAX_ORDER:
                break
            out.append("    " + nxt.strip())
        if len(out) > 1:
            return [x[:120] for x in out]
    return []


def notes(doc, short):
    """(notes [[kind, sentence]], order lines) of a docstring (module docstring)."""
    blocks, prose, code = split(doc)
    out, seen = [], set()

    def add(kind, s):
        s = _bound(s)
        if s.lower() not in seen and _is_prose(s) and len(out) < MAX_NOTES:
            seen.add(s.lower())
            out.append([kind, s])

    for kind, text in sorted(blocks, key=lambda b: b[0] not in ("warning", "danger", "caution", "attention")):
        for s in sentences(text)[:2]:
            add("deprecated" if kind == "deprecated" else "warning" if kind in (
                "warning", "danger", "caution", "attention", "important") else "note", s)
    # the description's constraint sentences (the prose before its first section or Sphinx field), then a
    # parameter's own (gen_param_docs' section readers: "name: sentence")
    body = []
    lines = prose.split("\n")
    for i, ln in enumerate(lines):
        if _SECTIONS.match(ln) or pd._SECTION.match(ln) or pd._FIELD_END.match(ln) or (
                pd._NUMPY.match(ln) and i + 1 < len(lines) and _RULE.match(lines[i + 1])):
            break
        body.append(ln)
    for s in sentences("\n".join(body)):
        if _CONSTRAINT.search(s):
            add("sentence", s)
    for name, raw in pd.param_docs(prose).items():
        text = re.sub(r"^\([^()]{0,200}\)\s*", "", pd.fold(raw))
        for s in sentences(text):
            if _STRONG.search(s):
                add("param", "%s: %s" % (name, s))
    return out, order_lines(code, short)


# ---- public names ----
def _private(mod):
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in mod.split("."))


def _module(path):
    mod = path[:-3].replace("/", ".")
    return mod[:-len(".__init__")] if mod.endswith(".__init__") else mod


def _top(body):
    """A module's top-level statements, those under its top-level if / try / with blocks too (torch.distributed.optim
    imports DistributedOptimizer under `if hasattr(torch._C, "_rpc_init"):`)."""
    for st in body:
        if isinstance(st, (ast.If, ast.Try, ast.With)):
            yield from _top(st.body)
            yield from _top(getattr(st, "orelse", []) or [])
            for h in getattr(st, "handlers", []) or []:
                yield from _top(h.body)
        else:
            yield st


def reexports(files):
    """{(defining module, name): public name} from the public packages' __init__.py `from X import a [as b]`
    (relative imports resolved; `from X import *` as (X, "*"): the importing package), the shortest public name
    wins."""
    out = {}
    for path, text in files:
        mod = _module(path)
        if _private(mod) or not path.endswith("__init__.py"):  # (a package's own namespace, not any importer)
            continue
        try:
            tree = parse(text)
        except Exception:  # noqa: BLE001
            continue
        pkg = mod if path.endswith("__init__.py") else mod.rsplit(".", 1)[0]
        for st in _top(tree.body):
            if not isinstance(st, ast.ImportFrom):
                continue
            src = st.module or ""
            if st.level:
                base = pkg.split(".")
                base = base[:len(base) - (st.level - 1)] if st.level > 1 else base
                src = ".".join(base + ([src] if src else []))
            for a in st.names:
                alias = a.asname or a.name
                if a.name == "*":  # (torch/nn/__init__.py: from .modules import *: its public names are torch.nn's)
                    if (src, "*") not in out or len(mod) < len(out[(src, "*")]):
                        out[(src, "*")] = mod
                    continue
                if alias.startswith("_"):
                    continue
                pub = "%s.%s" % (mod, alias)
                key = (src, a.name)
                if key not in out or len(pub) < len(out[key]):
                    out[key] = pub
    return out


def read_module(path, src, consts, public):
    """{qual: {"file", "kind", "func", "name", "line", "doc"}} of a module's callables with a docstring: public
    top-level classes / functions (of a private module only those a public module re-exports) and their public
    methods."""
    try:
        tree = parse(src)
    except Exception:  # noqa: BLE001
        return {}
    consts = dict(consts or {}, **pd.constants(tree))
    later = pd.assigned_docs(tree, consts)
    mod = _module(path)
    out = {}

    def keep(qual, name, kind, func, node, doc):
        if doc and doc.strip():
            out[qual] = {"file": path, "kind": kind, "func": func, "name": name, "line": node.lineno,
                         "doc": doc[:MAX_DOC]}
            if kind == "class":  # (the functions its body defines: a frame of one of them is in this class)
                out[qual]["methods"] = sorted({b.name for b in node.body if isinstance(
                    b, (ast.FunctionDef, ast.AsyncFunctionDef))})[:MAX_METHODS]

    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name.startswith("_"):
            continue
        name = public.get((mod, node.name)) or ("%s.%s" % (mod, node.name) if not _private(mod) else None)
        if name is None:
            continue
        for _hop in range(4):  # a package that re-exports its subpackage's names with `import *`
            up = public.get((name.rsplit(".", 1)[0], "*"))
            if not up:
                break
            name = "%s.%s" % (up, name.rsplit(".", 1)[1])
        qual = "%s.%s" % (mod, node.name)
        if isinstance(node, ast.ClassDef):
            doc = pd._doc(node, consts) or later.get(node.name, "")
            init = next((b for b in node.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
            idoc = pd._doc(init) if init is not None else ""
            keep(qual, name, "class", node.name, node, "\n\n".join(x for x in (doc, idoc) if x))
            for b in node.body:
                if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and not b.name.startswith("_"):
                    keep("%s.%s" % (qual, b.name), "%s.%s" % (name, b.name), "method", b.name, b, pd._doc(b))
        else:
            keep(qual, name, "function", node.name, node, pd._doc(node) or later.get(node.name, ""))
    return out


# ---- the table ----
def docs_url(pkg, name, kind):
    """The API's page: the project's API reference where its address follows from the public name, else the
    project's documentation root (the name is given beside it)."""
    if pkg == "torch":
        mod = name.rsplit(".", 1)[0] if kind != "method" else name.rsplit(".", 2)[0]
        anchor = name
        if mod.startswith("torch.distributed"):
            pages = (("torch.distributed.tensor.parallel", "distributed.tensor.parallel"),
                     ("torch.distributed.tensor", "distributed.tensor"),
                     ("torch.distributed.fsdp", "fsdp"), ("torch.distributed.checkpoint", "distributed.checkpoint"),
                     ("torch.distributed.pipelining", "distributed.pipelining"),
                     ("torch.distributed.optim", "distributed.optim"), ("torch.distributed.elastic", "elastic/run"),
                     ("torch.distributed.algorithms", "ddp_comm_hooks"), ("torch.distributed.rpc", "rpc"),
                     ("torch.distributed", "distributed"))
            page = next(p for m, p in pages if mod == m or mod.startswith(m + "."))
            return "https://docs.pytorch.org/docs/stable/%s.html#%s" % (page, anchor)
        top = name if kind != "method" else name.rsplit(".", 1)[0]
        if re.match(r"^torch\.(?:nn|optim|cuda|amp|autograd|utils\.checkpoint|utils\.data)\.", top) or \
                top.count(".") == 1:
            return "https://docs.pytorch.org/docs/stable/generated/%s.html#%s" % (top, anchor) \
                if not top.startswith(("torch.utils.data.", "torch.utils.checkpoint.")) else \
                "https://docs.pytorch.org/docs/stable/%s.html#%s" % (
                    "data" if top.startswith("torch.utils.data.") else "checkpoint", anchor)
        return "https://docs.pytorch.org/docs/stable/search.html?q=%s" % anchor
    if pkg == "jax" and name.startswith("jax.") and kind != "method":
        return "https://docs.jax.dev/en/latest/_autosummary/%s.html" % name
    if pkg == "lightning":
        top = name if kind != "method" else name.rsplit(".", 1)[0]
        return "https://lightning.ai/docs/pytorch/stable/api/%s.html#%s" % (top, name)
    if pkg == "ray":
        top = name if kind != "method" else name.rsplit(".", 1)[0]
        return "https://docs.ray.io/en/latest/train/api/doc/%s.html" % top
    roots = {"transformers": "https://huggingface.co/docs/transformers/main/en/index",
             "accelerate": "https://huggingface.co/docs/accelerate/main/en/index",
             "peft": "https://huggingface.co/docs/peft/main/en/index",
             "trl": "https://huggingface.co/docs/trl/main/en/index",
             "datasets": "https://huggingface.co/docs/datasets/main/en/index",
             "deepspeed": "https://deepspeed.readthedocs.io/en/latest/",
             "flax": "https://flax.readthedocs.io/en/latest/",
             "jax": "https://docs.jax.dev/en/latest/",
             "omegaconf": "https://omegaconf.readthedocs.io/en/2.3_branch/",
             "hydra": "https://hydra.cc/docs/intro/",
             "torchmetrics": "https://lightning.ai/docs/torchmetrics/stable/",
             "webdataset": "https://github.com/webdataset/webdataset#readme"}
    return roots.get(pkg, "https://pypi.org/project/%s/" % pkg)


def build(raw_rows):
    """The table from the reader's rows {package: {"dist", "version", "files", "callables": {qual: record}}}."""
    table, counts = {}, {}
    for pkg, got in sorted(raw_rows.items()):
        c = counts.setdefault(got["dist"], {"version": got["version"], "files": 0, "read": 0, "kept": 0,
                                            "notes": 0, "order": 0})
        c["files"] += got.get("files", 0)
        for qual, rec in sorted(got["callables"].items()):
            c["read"] += 1
            short = rec["name"].rsplit(".", 1)[1]
            kept, order = notes(rec["doc"], short)
            if not kept and not order:
                continue
            row = {"file": rec["file"], "kind": rec["kind"], "func": rec["func"], "name": rec["name"],
                   "package": pkg, "line": rec["line"], "url": docs_url(pkg, rec["name"], rec["kind"]),
                   "notes": kept}
            if order:
                row["order"] = order
            if rec.get("methods"):
                row["methods"] = rec["methods"]
            table[qual] = row
            c["kept"] += 1
            c["notes"] += len(kept)
            c["order"] += bool(order)
    return table, counts


def read_sources(sources):
    """{package: {"dist", "version", "files", "callables"}} from {package: (dist, version, [(path, text)])}."""
    public = {}

    def read_one(path, text, consts, files):
        key = id(files)
        if key not in public:
            public[key] = reexports(files)
        return read_module(path, text, consts, public[key])

    return pd.read_packages(sources, read_one)


def main(argv=None):
    a, sources, raw = pd.source_args(__doc__, argv, PACKAGES, _SKIP)
    if raw is None:
        raw = read_sources(sources)
    if a.record:
        kept = {pkg: dict(got, callables={q: r for q, r in got["callables"].items() if SLICE.match(r["file"])})
                for pkg, got in raw.items()}
        kept = {pkg: got for pkg, got in kept.items() if got["callables"]}
        with knowgen.open_write(a.record) as f:  # (a .gz path: gzip'd, knowgen.save_text)
            json.dump({"note": "recorded by %s: per package, the docstrings (and public names) of the callables of "
                               "the modules SLICE names, for the regeneration test" % GENERATOR, "packages": kept},
                      f, indent=0, sort_keys=True)
            f.write("\n")
    table, counts = build(raw)
    source = "the PyPI releases (https://pypi.org/project/<name>/): " + ", ".join(
        "%s %s" % (d, c["version"]) for d, c in sorted(counts.items()))
    doc = {"header": knowgen.header(source, "%d callables of %d packages" % (len(table), len(counts)), GENERATOR,
                                    "docstring sentences that constrain an API's use (note / warning blocks, must / "
                                    "only / before / instead ...) and its example's required order (docstrings "
                                    "read with ast)"),
           "sites": [],  # (no matcher of its own: explain/apinotes.py reads the table)
           "counts": counts, "callables": table}
    path = a.out or knowgen.out_path(NAME)  # (.json or .json.gz: the stored form)
    with knowgen.open_write(path) as f:
        json.dump(doc, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    read = sum(c["read"] for c in counts.values())
    print("%s: %d callables kept of %d read (%s)" % (path, len(table), read, ", ".join(
        "%s %d/%d" % (d, c["kept"], c["read"]) for d, c in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
