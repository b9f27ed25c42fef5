#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/param_docs.json: what the training libraries' own docstrings say
about each parameter of their public classes and functions (paramdocs19, issue 18: "name the fix").

When a library refuses an argument with a message that lists no allowed value ("mode maximum is unknown!",
torch/optim/lr_scheduler.py ReduceLROnPlateau._init_is_better), the API's own docstring usually does
("mode (str): One of `min`, `max`."). explain (gpudoctor/explain/paramdocs.py) looks the refused argument up here and
writes the edit from the documented choices or default, quoting the doc sentence.

Read per module (a .py file of the package, not private - no path part that starts with '_' but __init__.py -, nor
its tests / examples / benchmarks, nor transformers/models/ - the per-architecture configs and modules, thousands of
parameters a training script does not pass -), statically with ast (never imported):
  - every public top-level class: its constructor's parameters (its own __init__ or __new__, or its dataclass fields:
    `x: T = field(default=..., metadata={"help": ...})`), documented in the class's or __init__'s docstring;
  - every public top-level function, and every public method of those classes, documented in its own docstring.
The parameter documentation read: Google style ("Args:" / "Arguments:" / "Parameters:" / "Keyword Args:" sections,
`name (type): text` or Hugging Face's `name (`type`, *optional*, defaults to `x`):` with the text on the lines
below), NumPy style ("Parameters" over a '---' rule, `name : type`), Sphinx (`:param name: text`) and a dataclass
field's metadata help. Kept per parameter: its signature default (repr, at most MAX_DEFAULT characters), the first
sentences of its doc (at most MAX_DOC characters, reStructuredText and Markdown markup folded), and the literal choices
that the signature's Literal[...] annotation, a field's metadata choices, or the doc itself lists (after 'one of',
'can be', 'either', 'choices', 'options', 'supported', 'possible values', 'valid values' ...: two or more quoted words
joined as a list - `min`, ``'max'`` or "cosine" -, a braced list {min, max}, or a bullet list of quoted words; or three
or more quoted words joined by '|' anywhere: 'none' | 'mean' | 'sum'). A parameter no doc mentions is kept only for its Literal[...] choices; a callable
with no parameter kept is not kept.

Usage:
    (the packages, pip installed in a venv from their PyPI wheels - torch from https://download.pytorch.org/whl/cpu -,
     or their wheels / sdists fetched with `pip download --no-deps`)
    python tools/gen_param_docs.py --site VENV/lib/python3.11/site-packages [--dist FILE.whl|FILE.tar.gz ...] \\
        [--record tools/data/param_docs_slice.json] [-o OUT]
    python tools/gen_param_docs.py --slice tools/data/param_docs_slice.json -o OUT   (the test)

Sources: the PyPI releases named in the header (https://pypi.org/project/<name>/): torch, lightning (and its
lightning_fabric / pytorch_lightning packages), transformers, accelerate, peft, torchmetrics, datasets, trl, deepspeed.
The slice records what the docstring reader took from the sources (per callable: its parameters' defaults,
annotation choices and raw doc text), so the test re-runs the doc parsing and the bounding without the wheels.
"""

import argparse
import ast
import json
import os
import re
import sys
import tarfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
from gen_trailers import parse  # noqa: E402  (a file in newer syntax than this interpreter's)

GENERATOR = "tools/gen_param_docs.py"
NAME = "param_docs"
# import package -> distribution (its version is the dist-info's / the file name's)
# (pytorch_lightning and lightning_fabric, the standalone copies of lightning/pytorch and lightning/fabric, are read as
# lightning's: explain/paramdocs.py maps their paths)
PACKAGES = {"torch": "torch", "lightning": "lightning", "transformers": "transformers", "accelerate": "accelerate",
            "peft": "peft", "torchmetrics": "torchmetrics", "datasets": "datasets", "trl": "trl",
            "deepspeed": "deepspeed"}
MAX_DOC = 240
MAX_RAW = 700
MAX_DEFAULT = 60
MAX_CHOICES = 24
# not a module users call: private parts, tests, examples, a package's bundled copies, per-architecture model code
_SKIP = re.compile(r"(?:^|/)(?:_[^_/][^/]*|tests?|testing|examples?|benchmarks?|scripts?|_?vendor(?:ed)?|"
                   r"third_?party|commands?|cli)(?:/|\.py$)|^transformers/models/|^torch/(?:onnx|testing|"
                   r"utils/hipify|utils/benchmark|ao/pruning|fx/experimental|jit|package|_inductor)/|"
                   r"(?:^|/)test_[^/]*\.py$|^deepspeed/(?:ops/csrc|accelerator/(?!real))")

# the modules the recorded slice keeps (the ones training scripts call most: schedulers, optimizers, data loading, the
# process group, Lightning's Trainer and callbacks, Trainer / TrainingArguments, LoRA's config, DeepSpeed's init)
SLICE = re.compile(r"^(?:torch/optim/(?:lr_scheduler|adamw|sgd)\.py|torch/utils/data/dataloader\.py|"
                   r"torch/distributed/distributed_c10d\.py|torch/nn/modules/(?:transformer|sparse|rnn)\.py|"
                   r"lightning/pytorch/callbacks/(?:early_stopping|model_checkpoint)\.py|"
                   r"lightning/pytorch/trainer/trainer\.py|transformers/training_args\.py|peft/tuners/lora/config\.py|"
                   r"accelerate/accelerator\.py|datasets/arrow_dataset\.py|trl/trainer/sft_config\.py|"
                   r"torchmetrics/classification/accuracy\.py|deepspeed/__init__\.py)$")
_SECTION = re.compile(r"^(?P<ind>[ \t]*)(?:Args|Arguments|Parameters|Params|Keyword [Aa]rg(?:ument)?s|Other "
                      r"[Pp]arameters|Kwargs)\s*:\s*$")
_NUMPY = re.compile(r"^(?P<ind>[ \t]*)(?:Parameters|Other Parameters)\s*$")
_RULE = re.compile(r"^[ \t]*-{3,}\s*$")
# an entry of a Google section: name (type): text | name: text | **name (type): text
_ENTRY = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_]\w{0,60})(?:\s{0,4}\((?P<type>[^\n]{0,200})\))?\s{0,4}:(?:\s+|$)"
                    r"(?P<text>.*)$")
_NP_ENTRY = re.compile(r"^(?P<name>[A-Za-z_]\w{0,60})(?:\s{0,4},\s{0,4}[A-Za-z_]\w{0,60}){0,4}\s{0,4}(?::\s{0,4}"
                       r"(?P<type>[^\n]{0,200}))?$")
_SPHINX = re.compile(r"^\s*:param\s+(?:[\w\[\], .|]{1,80}\s)?(?P<name>[A-Za-z_]\w{0,60})\s*:\s*(?P<text>.*)$")
_FIELD_END = re.compile(r"^\s*:(?:param|type|returns?|rtype|raises?)\b")

# markup folded: reStructuredText roles, ``literal``, Markdown [`x`] links, *emphasis*
_ROLE = re.compile(r":(?:[a-z]{1,12}:)?[a-z]{1,12}:`~?(?:[^`<\n]{0,80}<)?([^`>\n]{1,120})>?`")
_MDLINK = re.compile(r"\[`?([^\]`\n]{1,120})`?\]\([^)\n]{0,300}\)|\[`([^\]`\n]{1,120})`\]")
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(*])")
# a doc sentence that lists the values the parameter takes
_LISTS = re.compile(r"\b(?:one of|can be(?: set to)?|either|choices?|options?|supported|supports|possible values|"
                    r"valid values|accepted values|allowed values|any of|values? (?:are|is)|modes? (?:are|is))\b", re.I)
_VALUE = re.compile(r"^[A-Za-z0-9_.:+-]{1,40}$")
_Q1 = r"(?:``'[^'`\n]{1,40}'``|``\"[^\"`\n]{1,40}\"``|``[^`\n]{1,40}``|`\"[^\"`\n]{1,40}\"`|`'[^'`\n]{1,40}'`|`[^`\n]{1,40}`|" \
      r"\"[^\"\n]{1,40}\"|'[^'\n]{1,40}')"
# quoted words joined as a list: Q (, Q){0,}(, or|or|and|/|\|) Q
_RUN = re.compile(_Q1 + r"(?:\s{0,3}(?:,\s{0,3}(?:or\s{1,3}|and\s{1,3})?|or\s{1,3}|and\s{1,3}|/|\|)\s{0,3}" + _Q1 +
                  r"){1,%d}" % 30)
_BARS = re.compile(_Q1 + r"(?:\s{0,3}\|\s{0,3}" + _Q1 + r"){2,30}")
_BRACED = re.compile(r"^[^.;]{0,40}?[{\[]([\w.:+-]{1,40}(?:\s{0,3}[,|]\s{0,3}[\w.:+-]{1,40}){1,30})[}\]]")
_BULLET = re.compile(r"(?:^|\s)[-*]\s{1,3}(" + _Q1 + r")")


def fold(text):
    text = re.sub(r"``(['\"])([^`'\"\n]{0,80})\1``", r"\1\2\1", text)  # ``'min'`` -> 'min'
    text = re.sub(r"`(['\"])([^`'\"\n]{0,80})\1`", r"\1\2\1", text)  # `"no"` -> "no"
    text = re.sub(r"``([^`\n]{1,80})``", r"`\1`", text)  # ``None`` -> `None`
    text = _ROLE.sub(r"\1", text)
    text = _MDLINK.sub(lambda m: m.group(1) or m.group(2), text)
    return " ".join(text.split())


def _indent(ln):
    return len(ln) - len(ln.lstrip())


def google(doc):
    """{name: raw text} of a docstring's Google-style parameter sections (and Hugging Face's form of them)."""
    out = {}
    lines = doc.expandtabs(4).split("\n")
    i = 0
    while i < len(lines):
        m = _SECTION.match(lines[i])
        if not m:
            i += 1
            continue
        base = len(m.group("ind"))
        i += 1
        entry_ind, cur = None, None
        while i < len(lines):
            ln = lines[i]
            if not ln.strip():
                i += 1
                continue
            ind = _indent(ln)
            if ind <= base:
                break
            if entry_ind is None:
                entry_ind = ind
            if ind == entry_ind:
                e = _ENTRY.match(ln.strip())
                if e:
                    cur = e.group("name")
                    out[cur] = (["(" + e.group("type") + ")"] if e.group("type") else []) + [e.group("text")]
                else:
                    cur = None
            elif ind < entry_ind:
                break
            elif cur is not None:
                out[cur].append(ln.strip())
            i += 1
    return {k: " ".join(x for x in v if x) for k, v in out.items()}


def numpy(doc):
    """{name: raw text} of a NumPy-style 'Parameters' section."""
    out = {}
    lines = doc.expandtabs(4).split("\n")
    for i in range(len(lines) - 1):
        m = _NUMPY.match(lines[i])
        if not m or not _RULE.match(lines[i + 1]):
            continue
        base = len(m.group("ind"))
        cur = None
        for ln in lines[i + 2:]:
            if not ln.strip():
                continue
            ind = _indent(ln)
            if ind < base or _RULE.match(ln):
                break
            if ind == base:
                e = _NP_ENTRY.match(ln.strip())
                if not e:
                    break  # the next section's title
                cur = e.group("name")
                out[cur] = ["(" + e.group("type") + ")"] if e.group("type") else []
            elif cur is not None:
                out[cur].append(ln.strip())
    return {k: " ".join(v) for k, v in out.items()}


def sphinx(doc):
    """{name: raw text} of ':param name: text' fields."""
    out, cur = {}, None
    for ln in doc.expandtabs(4).split("\n"):
        m = _SPHINX.match(ln)
        if m:
            cur = m.group("name")
            out[cur] = [m.group("text")]
        elif cur is not None:
            if not ln.strip() or _FIELD_END.match(ln):
                cur = None
            else:
                out[cur].append(ln.strip())
    return {k: " ".join(v) for k, v in out.items()}


def param_docs(doc):
    """{name: raw doc text} of every parameter a docstring documents (all three styles)."""
    if not doc:
        return {}
    out = {}
    for reader in (google, numpy, sphinx):
        for k, v in reader(doc).items():
            if v.strip() and k not in out:
                out[k] = v.strip()[:MAX_RAW]
    return out


def _literal_choices(ann):
    """The string values of a Literal[...] in an annotation (Optional[Literal[...]], Union[..., Literal[...]])."""
    out = []
    if ann is None:
        return out
    for node in ast.walk(ann):
        if isinstance(node, ast.Subscript) and (getattr(node.value, "id", None) == "Literal" or
                                                getattr(node.value, "attr", None) == "Literal"):
            for c in ast.walk(node.slice):
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value not in out:
                    out.append(c.value)
    return out


def _default(node):
    if node is None:
        return None
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001
        return None
    return text if len(text) <= MAX_DEFAULT else None


def _signature(fn):
    """[(name, default repr or None, has default, Literal choices)] of a function's parameters (self / cls left out)."""
    a = fn.args
    pos = list(a.posonlyargs) + list(a.args)
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    out = []
    for arg, d in zip(pos, defaults):
        out.append((arg.arg, _default(d), d is not None, _literal_choices(arg.annotation)))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, _default(d), d is not None, _literal_choices(arg.annotation)))
    return [p for p in out if p[0] not in ("self", "cls")]


def _kw(call, name):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _fields(cls):
    """[(name, default, has default, choices, help)] of a dataclass's fields: `x: T = field(default=..., metadata=
    {"help": ..., "choices": [...]})` or `x: T = value`."""
    out = []
    for st in cls.body:
        if not isinstance(st, ast.AnnAssign) or not isinstance(st.target, ast.Name):
            continue
        name, v = st.target.id, st.value
        choices, help_, default, has = _literal_choices(st.annotation), None, None, v is not None
        if isinstance(v, ast.Call) and getattr(v.func, "id", getattr(v.func, "attr", "")) == "field":
            d = _kw(v, "default")
            has = d is not None or _kw(v, "default_factory") is not None
            default = _default(d) if d is not None else None
            md = _kw(v, "metadata")
            if isinstance(md, ast.Dict):
                for k, val in zip(md.keys, md.values):
                    key = getattr(k, "value", None)
                    if key == "help":
                        try:
                            help_ = ast.literal_eval(val)
                        except Exception:  # noqa: BLE001  (an f-string or a joined expression)
                            help_ = None
                    elif key == "choices" and isinstance(val, (ast.List, ast.Tuple)):
                        for c in val.elts:
                            if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value not in choices:
                                choices.append(c.value)
        elif v is not None:
            default = _default(v)
        out.append((name, default, has, choices, help_ if isinstance(help_, str) else None))
    return out


def _is_dataclass(cls):
    return any("dataclass" in ast.unparse(d) for d in cls.decorator_list)


def _doc(node, consts=None):
    """A docstring, or a class body's `__doc__ = <expr>` (torch.nn's Conv2d: r\"\"\"...\"\"\".format(**notes))."""
    got = ast.get_docstring(node, clean=True)
    if got or not isinstance(node, ast.ClassDef):
        return got or ""
    import inspect

    for st in node.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and getattr(st.targets[0], "id", None) == "__doc__":
            return inspect.cleandoc(_text(st.value, consts or {}))
    return ""


def _record(params, docs, helps=None):
    """[name, default, has default, choices, raw doc] of the documented parameters."""
    out = []
    helps = helps or {}
    for name, default, has, choices in params:
        raw = docs.get(name) or helps.get(name) or ""
        if not raw and not choices:
            continue  # (a parameter no doc mentions is kept only for its signature's Literal[...] choices)
        out.append([name, default, has, choices, raw[:MAX_RAW]])
    return out


def constants(tree):
    """{name: text} of a module's top-level string constants (`_foreach_doc = r\"\"\"...\"\"\"`): what a docstring built
    as an f-string interpolates (torch/optim/optimizer.py's shared parameter docs)."""
    out = {}
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                isinstance(st.value, ast.Constant) and isinstance(st.value.value, str) and len(st.value.value) >= 20:
            out[st.targets[0].id] = st.value.value
    return out


def _text(node, consts):
    """The text of a docstring expression: a string, or an f-string / '+' / .format-less join whose parts are strings
    or names of string constants (another part is dropped, its place left empty)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name):
                out.append(consts.get(v.value.id, ""))
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left, consts) + _text(node.right, consts)
    if isinstance(node, ast.Name):
        return consts.get(node.id, "")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _text(node.func.value, consts)  # r"""...{notes}...""".format(**notes): the text, its fields unfilled
    return ""


def assigned_docs(tree, consts):
    """{name: docstring} of `X.__doc__ = ...` statements (torch.optim's AdamW, SGD ... set theirs after the class)."""
    out = {}
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Attribute) and \
                st.targets[0].attr == "__doc__" and isinstance(st.targets[0].value, ast.Name):
            import inspect

            text = _text(st.value, consts)
            if text:
                out[st.targets[0].value.id] = inspect.cleandoc(text)
    return out


def read_module(path, src, consts=None):
    """{qualified name: {"file", "kind", "params": [...raw...]}} of a module's public documented callables
    (``consts``: the package's string constants a docstring may interpolate)."""
    try:
        tree = parse(src)
    except Exception:  # noqa: BLE001  (a file no supported grammar reads)
        return {}
    consts = dict(consts or {}, **constants(tree))
    later = assigned_docs(tree, consts)
    mod = path[:-3].replace("/", ".")
    if mod.endswith(".__init__"):
        mod = mod[:-len(".__init__")]
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            got = _record(_signature(node), param_docs(_doc(node)))
            if got:
                out["%s.%s" % (mod, node.name)] = {"file": path, "kind": "function", "params": got}
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            # the constructor: __init__, else __new__ (torchmetrics' task wrappers: Accuracy(task=...) builds the
            # task's class in __new__)
            init = next((b for name in ("__init__", "__new__") for b in node.body
                         if isinstance(b, ast.FunctionDef) and b.name == name), None)
            docs = param_docs(_doc(node, consts) or later.get(node.name, ""))
            if init is not None:
                for k, v in param_docs(_doc(init)).items():
                    docs.setdefault(k, v)
                got = _record(_signature(init), docs)
            elif _is_dataclass(node) or any(isinstance(b, ast.AnnAssign) for b in node.body):
                fields = _fields(node)
                got = _record([f[:4] for f in fields], docs, {f[0]: f[4] for f in fields if f[4]})
            else:
                got = []
            if got:
                out["%s.%s" % (mod, node.name)] = {"file": path, "kind": "class", "params": got}
            for b in node.body:
                if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and not b.name.startswith("_"):
                    got = _record(_signature(b), param_docs(_doc(b)))
                    if got:
                        out["%s.%s.%s" % (mod, node.name, b.name)] = {"file": path, "kind": "method", "params": got}
    return out


# ---- the parsed table ----
def first_sentences(raw):
    """The doc's first sentence (two when the first is short), folded, at most MAX_DOC characters; the leading
    '(type)' kept apart."""
    text = fold(raw)
    typ = None
    m = re.match(r"^\(([^()]{0,200}(?:\([^()]{0,60}\)[^()]{0,100})?)\)\s*", text)
    if m:
        typ, text = m.group(1), text[m.end():]
    sents = _SENT.split(text)
    out = sents[0] if sents else ""
    if len(out) < 60 and len(sents) > 1:
        out += " " + sents[1]
    if len(out) > MAX_DOC:
        cut = out[:MAX_DOC]
        out = cut[:cut.rfind(" ")] + " ..." if " " in cut else cut
    return typ, out


def _values(items):
    vals = []
    for v in items:
        v = v.strip().strip("'\"`").strip()
        if not _VALUE.match(v):
            return []
        if v not in vals and v not in ("None", "True", "False"):
            vals.append(v)
    return vals if len(vals) >= 2 else []


def doc_choices(raw):
    """The values a parameter's doc lists, after the words that say it lists them (_LISTS), in the first sentence
    that has such a list: quoted words joined by ',' / 'or' / 'and' / '|' / '/' (`min`, ``'max'`` or "cosine"), a
    braced or bracketed list of plain words ({min, max}), or a bullet list whose items start with a quoted word
    ('- `"no"`: ... - `"steps"`: ...'). Quoted words that are not joined as a list are not choices ('any
    ``Iterable`` with ``__len__``')."""
    text = fold(raw)
    m = re.match(r"^\([^()]{0,200}\)\s*", text)
    if m:
        text = text[m.end():]
    for sent in _SENT.split(text)[:6]:
        k = _LISTS.search(sent)
        if not k:
            continue
        rest = sent[k.end():k.end() + 600]
        run = _RUN.search(rest)
        if run:
            got = _values(re.findall(_Q1, run.group(0)))
            if got:
                return got[:MAX_CHOICES]
        br = _BRACED.search(rest)
        if br:
            got = _values(re.split(r"\s*[,|]\s*", br.group(1)))
            if got:
                return got[:MAX_CHOICES]
    for sent in _SENT.split(text)[:6]:  # quoted values joined by '|' ('nearest' | 'linear' | 'bilinear'), no words
        bar = _BARS.search(sent)
        if bar:
            got = _values(re.findall(_Q1, bar.group(0)))
            if got:
                return got[:MAX_CHOICES]
    m = _LISTS.search(text)
    if m:
        bullets = _values(_BULLET.findall(text[m.end():m.end() + 1500]))
        if bullets:
            return bullets[:MAX_CHOICES]
    return []


def build(raw_rows):
    """The table from the reader's rows {package: {"dist", "version", "callables": {qual: record}}}."""
    table, counts = {}, {}
    for pkg, got in sorted(raw_rows.items()):
        c = counts.setdefault(got["dist"], {"version": got["version"], "callables": 0, "params": 0,
                                            "with_choices": 0, "with_default": 0})
        for qual, rec in sorted(got["callables"].items()):
            params = {}
            for name, default, has, choices, raw in rec["params"]:
                typ, doc = first_sentences(raw)
                if not doc and not choices:
                    continue
                ch = list(choices) or doc_choices(raw)
                p = {"doc": doc}
                if has:
                    p["default"] = default
                if ch:
                    p["choices"] = ch[:MAX_CHOICES]
                if typ:
                    p["type"] = " ".join(typ.split())[:80]
                params[name] = p
            if not params:
                continue
            table[qual] = {"file": rec["file"], "kind": rec["kind"], "package": pkg, "params": params}
            c["callables"] += 1
            c["params"] += len(params)
            c["with_choices"] += sum(1 for p in params.values() if p.get("choices"))
            c["with_default"] += sum(1 for p in params.values() if "default" in p)
    return table, counts


# ---- sources ----
def _site_files(site, packages=None, skip=None):
    """{package: (dist, version, [(path, text)])} of PACKAGES found in a site-packages folder (``packages`` /
    ``skip``: another generator's package map and skip rule, tools/gen_api_notes.py)."""
    packages, skip = packages or PACKAGES, skip or _SKIP
    versions = {}
    for n in os.listdir(site):
        m = re.match(r"^([A-Za-z0-9_.-]+?)-([^-]+)\.dist-info$", n)
        if m:
            versions[m.group(1).lower().replace("-", "_")] = m.group(2)
    out = {}
    for pkg, dist in packages.items():
        root = os.path.join(site, pkg)
        if not os.path.isdir(root) or dist not in versions:
            continue
        files = []
        for d, dirs, names in os.walk(root):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(".py"):
                    rel = os.path.relpath(os.path.join(d, n), site).replace(os.sep, "/")
                    if not skip.search(rel):
                        with open(os.path.join(d, n), encoding="utf-8", errors="replace") as f:
                            files.append((rel, f.read()))
        out[pkg] = (dist, versions[dist], files)
    return out


def _dist_files(path, packages=None, skip=None):
    """{package: (dist, version, [(path, text)])} of a wheel or an sdist of PACKAGES (or ``packages``)."""
    packages, skip = packages or PACKAGES, skip or _SKIP
    base = os.path.basename(path)
    m = re.match(r"^([A-Za-z0-9_.]+?)-(\d[^-]*?)(?:-|\.tar\.gz$)", base)
    dist, ver = m.group(1).lower(), m.group(2)
    items = []
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as z:
            items = [(n, z.read(n)) for n in z.namelist() if n.endswith(".py")]
    else:
        with tarfile.open(path) as t:
            for mem in t.getmembers():
                if mem.isfile() and mem.name.endswith(".py"):
                    rel = mem.name.split("/", 1)[1] if "/" in mem.name else mem.name
                    items.append((rel, t.extractfile(mem).read()))
    out = {}
    for rel, data in sorted(items):
        pkg = rel.split("/", 1)[0]
        if packages.get(pkg) != dist or skip.search(rel):
            continue
        out.setdefault(pkg, (dist, ver, []))[2].append((rel, data.decode("utf-8", "replace")))
    return out


def package_constants(files):
    """The string constants of a package's files ([(path, text)]), a name two modules define differently left out
    (what a docstring fetch or a default may interpolate)."""
    consts, seen = {}, set()
    for _path, text in files:
        try:
            got = constants(parse(text))
        except Exception:  # noqa: BLE001
            continue
        for k, v in got.items():
            if k in seen and consts.get(k) != v:
                consts.pop(k, None)
            elif k not in seen:
                consts[k] = v
            seen.add(k)
    return consts


def read_packages(sources, read_one):
    """{package: {"dist", "version", "files", "callables"}} from {package: (dist, version, [(path, text)])}, each
    file's callables from ``read_one(path, text, consts, files)``."""
    raw = {}
    for pkg, (dist, ver, files) in sorted(sources.items()):
        consts, calls = package_constants(files), {}
        for path, text in files:
            calls.update(read_one(path, text, consts, files))
        raw[pkg] = {"dist": dist, "version": ver, "files": len(files), "callables": calls}
    return raw


def source_args(doc, argv, packages=None, skip=None):
    """The command line both docstring generators take (--site / --dist or --slice, --record, -o): (args,
    {package: (dist, version, [(path, text)])} or None, the recorded slice's packages or None)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--site")
    ap.add_argument("--dist", action="append", default=[])
    ap.add_argument("--slice")
    ap.add_argument("--record")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if bool(a.slice) == bool(a.site or a.dist):
        ap.error("give --site / --dist or --slice")
    if a.slice:
        with knowgen.open_text(a.slice) as f:
            return a, None, json.load(f)["packages"]
    sources = _site_files(a.site, packages, skip) if a.site else {}
    for d in a.dist:
        sources.update(_dist_files(d, packages, skip))
    return a, sources, None


def main(argv=None):
    a, sources, raw = source_args(__doc__, argv)
    if raw is None:
        raw = read_packages(sources, lambda path, text, consts, _files: read_module(path, text, consts))
    if a.record:
        kept = {pkg: dict(got, callables={q: r for q, r in got["callables"].items() if SLICE.match(r["file"])})
                for pkg, got in raw.items()}
        with knowgen.open_write(a.record) as f:  # (a .gz path: gzip'd, knowgen.save_text)
            json.dump({"note": "recorded by %s: per package, the documented parameters the docstring reader took "
                               "(name, default, has default, Literal choices, raw doc) from the modules SLICE names, "
                               "for the regeneration test" % GENERATOR, "packages": kept}, f, indent=0,
                      sort_keys=True)
            f.write("\n")
    table, counts = build(raw)
    for pkg, got in raw.items():
        counts[got["dist"]]["files"] = counts[got["dist"]].get("files", 0) + got["files"]
    source = "the PyPI releases (https://pypi.org/project/<name>/): " + ", ".join(
        "%s %s" % (d, c["version"]) for d, c in sorted(counts.items()))
    doc = {"header": knowgen.header(source, "%d callables of %d packages" % (len(table), len(counts)), GENERATOR,
                                    "documented parameters of public classes / functions: default, first sentences, "
                                    "choices (docstrings read with ast)"),
           "sites": [],  # (no matcher of its own: explain/paramdocs.py reads the table)
           "counts": counts, "callables": table}
    path = a.out or knowgen.out_path(NAME)  # (.json or .json.gz: the stored form)
    with knowgen.open_write(path) as f:
        json.dump(doc, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("%s: %d callables, %d documented parameters (%s)" % (path, len(table), sum(
        c["params"] for c in counts.values()), ", ".join("%s %d/%d" % (d, c["callables"], c["params"])
                                                         for d, c in sorted(counts.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
