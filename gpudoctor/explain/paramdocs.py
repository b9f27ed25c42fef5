"""What the called API's own documentation says about the argument a library refused (paramdocs19, issue 18).

A library's check often names the argument without the values it takes ("mode maximum is unknown!",
torch/optim/lr_scheduler.py ReduceLROnPlateau._init_is_better) or names none ("invalid combination"), while the
API's docstring does ("mode (str): One of `min`, `max`."). generated/param_docs.json (tools/gen_param_docs.py) holds,
per public class / function / method of the training libraries, each documented parameter's default, first doc
sentences and listed choices. When libarg / argedit see a refusal under the user's call line, this module:

  1. finds the argument: the one libarg names (the message names it, the line passes it); else the keyword of the
     user's line that the raising frame's own source line checks, when exactly one is (`raise ValueError("mode " +
     mode + " is unknown!")` reads `mode`);
  2. finds the callee: the first library frame under the user's line (its file relative to site-packages, its
     function: `__init__` of the class the line names, or the method the line calls) among the table's callables of
     that file; else the name the line calls, among the callables of the raising package with that name (one, or
     all documenting the argument alike); pytorch_lightning / lightning_fabric paths read as lightning's;
  3. writes what the documentation gives, never more:
     - choices, and the value written (or given on the command line) is not one: the closest documented choice as
       the edit, in the user's syntax (argedit's writer: `mode="max"`, a variable named where it is set, a
       `--flag v` / Hydra override);
     - a default, and the line passes the argument: "drop <arg>=<V> (its documented default: <D>)";
     - a note quoting the doc sentence, with the callable and the package version it comes from.
The family never changes; an edit argedit already wrote from the message itself stays first.
"""

import re

from gpudoctor.explain import argedit, pytb, userline

_INDEX = None
# the standalone Lightning packages are the unified package's modules (lightning/pytorch, lightning/fabric)
_MIRRORS = (("pytorch_lightning/", "lightning/pytorch/"), ("lightning_fabric/", "lightning/fabric/"))
_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w{0,60}(?![\w])")
_DEFAULT = re.compile(r"^(?:-?[\d.e+-]{1,20}|None|True|False|'[\w.:/+-]{0,40}'|\"[\w.:/+-]{0,40}\"|[A-Za-z_]\w{0,30}\.[\w.]{1,60}|"
                      r"\((?:-?[\d.e+-]{1,20}, ){1,4}-?[\d.e+-]{1,20}\))$")
_CHOICE = re.compile(r"^[\w.:+-]{1,40}$")


def table():
    """generated/param_docs.json(.gz), read once per process (knowledge.generated_table keeps it)."""
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("param_docs")


def _index():
    """({file: [qualified name]}, {short name: [qualified name]}) of the table's callables."""
    global _INDEX
    if _INDEX is None:
        by_file, by_name = {}, {}
        for qual, rec in (table().get("callables") or {}).items():
            by_file.setdefault(rec.get("file"), []).append(qual)
            by_name.setdefault(qual.rsplit(".", 1)[1], []).append(qual)
        _INDEX = (by_file, by_name)
    return _INDEX


def site_path(file):
    """A frame's file relative to site-packages (the standalone Lightning packages as lightning's), or None."""
    norm = (file or "").replace("\\", "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in norm:
            rel = norm.rsplit(marker, 1)[1]
            for a, b in _MIRRORS:
                if rel.startswith(a):
                    rel = b + rel[len(a):]
            return rel
    return None


def lookup(written, param, callees):
    """(qualified name, the parameter's record) of the callable the user's line called, that documents ``param``:
    ``written`` what the line calls (`torch.optim.lr_scheduler.ReduceLROnPlateau`, `trainer.fit`), ``callees`` the
    (file, function) of the frames under the line. None when the table does not tell one."""
    calls = table().get("callables") or {}
    by_file, by_name = _index()
    short = (written or "").rsplit(".", 1)[-1]
    if not short or not param:
        return None
    first = next(((site_path(f), fn) for f, fn in callees if site_path(f)), None) if callees else None
    if first:
        rel, fn = first
        names = (short,) if fn == "__init__" else (fn, short)
        for q in by_file.get(rel, ()):
            if q.rsplit(".", 1)[1] in names and param in calls[q]["params"]:
                return q, calls[q]["params"][param]
    pkg = first[0].split("/", 1)[0] if first else None
    cands = [q for q in by_name.get(short, ()) if param in calls[q]["params"] and
             (pkg is None or calls[q]["package"] == pkg)]
    if not cands:
        return None
    if len({repr(sorted(calls[q]["params"][param].items())) for q in cands}) == 1:
        return sorted(cands, key=len)[0], calls[cands[0]]["params"][param]
    return None


def _version(pkg):
    counts = table().get("counts") or {}
    dist = {"lightning_fabric": "lightning", "pytorch_lightning": "lightning"}.get(pkg, pkg)
    c = counts.get(dist)
    return "%s %s" % (dist, c["version"]) if c and c.get("version") else dist


_TOKENS = re.compile(r"[\w.:+-]{1,80}")
_PLAIN = ("0", "1", "True", "False", "None")


def _num(v):
    try:
        return float(v)
    except ValueError:
        return None


def _quotes(msg, k, w):
    """Whether the message quotes the value written for keyword k: the literal itself (a quoted word, a number, the
    same number written otherwise: -1e-8 / -1e-08), `k=value` as written, or a number / word of the message inside
    the written value ('Invalid beta parameter at index 1: 1.2' and betas=(0.9, 1.2)); 0, 1, True, False and None
    only in the `k=value` form."""
    w = w.strip()
    if re.search(r"(?<![\w.])%s ?= ?%s(?![\w.])" % (re.escape(k), re.escape(w)), msg):
        return True
    words = [t.rstrip(".:") for t in _TOKENS.findall(msg)]
    words = [t for t in words if t and t not in _PLAIN and len(t) <= 60]
    v = argedit._unq(w) if argedit._is_str(w) else w
    if argedit._is_str(w) or argedit._NUMBER.match(v):
        if v in _PLAIN:
            return False
        if v in words:
            return True
        n = _num(v) if argedit._NUMBER.match(v) else None
        return n is not None and any(_num(t) == n for t in words if argedit._NUMBER.match(t))
    if argedit._NUMBERS.match(v):  # a tuple of numbers: one of them quoted
        parts = re.findall(r"-?[\d.]{1,12}", v)
        return any(t in parts for t in words if argedit._NUMBER.match(t))
    return False


def in_message(msg, kws):
    """The keyword of the user's line whose value the message quotes (_quotes), when exactly one is: the refused
    value names its argument ("threshold mode relative is unknown!" and threshold_mode="relative"; "Invalid
    learning rate: -0.001" and lr=-0.001)."""
    got = [k for k, w in kws.items() if _quotes(msg, k, w)]
    return got[0] if len(got) == 1 else None


_NOT_VALUE = frozenset("""unknown invalid unsupported supported expected valid value values mode option options
argument arguments must should one either got but not and the for with only""".split())


def _refused_word(msg, param, choices):
    """The refused value as the message quotes it, for an argument whose value the line does not write (a variable, a
    parsed option): the one word of the message, not a choice itself nor the argument's name, that a documented
    choice is close to ("mode maximum is unknown!" -> 'maximum', close to 'max'); None when none or several are."""
    from gpudoctor.explain.libarg import _COMMON

    got = []
    for w in dict.fromkeys(t.strip(".:'\"`") for t in _TOKENS.findall(msg[:300])):
        if len(w) < 2 or w in choices or w == param or w.lower() in _COMMON or w.lower() in _NOT_VALUE or \
                w.lower() in param.lower().split("_") or not argedit._safe(w):
            continue
        if argedit.closest(w, choices):
            got.append(w)
    return got[0] if len(got) == 1 else None


def checked_argument(tb, kws):
    """The keyword of the user's line that the raising frame's source line reads, when exactly one is."""
    srcs = tb.get("src") or []
    frames = tb.get("frames") or []
    if not srcs or not frames or len(srcs) < len(frames):
        return None
    src = srcs[len(frames) - 1][0] or ""
    words = set(_WORD.findall(src))
    got = [k for k in kws if k in words and len(k) >= 2]
    return got[0] if len(got) == 1 else None


def _picked(edit):
    """Whether an edit already written (argedit's, from the message itself) names a value (not 'set x to one of')."""
    return bool(edit) and not edit.startswith(("set ", "give ", "pass "))


def advise(tb, scan=None, got=None, edit_done=None):
    """(edit lines, note) from the callee's documentation of the refused argument, or ([], None); ``edit_done``: the
    edit argedit already wrote from the message (then no documented choice is offered again)."""
    from gpudoctor.explain.libarg import _REFUSAL, _call

    msg = (tb.get("msg") or "").strip()
    if not msg or not (_REFUSAL.search(msg) or argedit.classify(msg)):
        return [], None
    uf = userline.user_frame(tb)
    if uf is None:
        return [], None
    call = _call(uf["src"][:pytb.MAX_SRC])
    if call is None:
        return [], None
    kws = argedit._kwargs(uf["src"])
    quoted = in_message(msg, kws)
    param = quoted or (got or {}).get("param") or checked_argument(tb, kws)
    if not param:
        return [], None
    found = lookup(call[0], param, uf["callees"])
    if found is None:
        return [], None
    qual, rec = found
    pkg = (table().get("callables") or {})[qual].get("package", qual.split(".", 1)[0])
    shown = qual.rsplit(".", 2)[-2] + "." + qual.rsplit(".", 1)[1] if (table().get("callables") or {})[qual].get(
        "kind") == "method" else qual.rsplit(".", 1)[1]
    lines = []
    choices = [c for c in rec.get("choices") or [] if _CHOICE.match(c)]
    written = kws.get(param)
    value = argedit._safe(argedit._unq(written)) if written is not None and argedit._is_str(written) else None
    if value is not None and value in choices:
        return [], None  # a value the documentation allows: not the argument the library refused
    if value is None and choices and written is not None:
        value = _refused_word(msg, param, choices)  # (a value from a variable / the command line: the message's)
    if choices and not _picked(edit_done):
        c = {"kind": "allowed", "msg": msg, "names": [param], "value": value, "choices": choices, "bound": None,
             "want": None}
        got2 = dict(got or {}, param=param)
        out = argedit._allowed(c, tb, msg, kws, [param] if param in kws else [], got2, scan) if value else []
        if out and not out[0].startswith(("set ", "give ")):
            lines.append("%s: the values %s documents for %s are %s" % (
                out[0], shown, param, ", ".join(choices[:12]) + (", ..." if len(choices) > 12 else "")))
        elif not edit_done:
            lines.append("set %s to one of the values %s documents: %s" % (
                param, shown, ", ".join(choices[:12]) + (", ..." if len(choices) > 12 else "")))
    default = rec.get("default")
    # the documented default replaces only a value the message itself refused (it quotes it): an argument the message
    # merely names may be the one a combination needs ('Nesterov momentum requires a momentum')
    if quoted == param and written is not None and "default" in rec and default is not None and _DEFAULT.match(default) and \
            written.strip() != default:
        lit = argedit._lit(written)
        if default[:1] in "'\"" and argedit._is_str(written):  # the default in the line's own quoting
            q = argedit._quote_of(written)
            default = q + default[1:-1] + q
        lines.append("drop %s from the call (%s's documented default: %s=%s)" % (
            "%s=%s" % (param, lit) if lit else param, shown, param, default))
    if not lines:
        return [], None  # (nothing to do from the documentation: no note either)
    if rec.get("doc"):
        note = "%s's documentation of %s (%s, %s): \u201c%s\u201d" % (
            shown, param, _version(pkg), rec.get("type") and "type %s" % userline.quote(rec["type"]) or "no type given",
            userline.quote(rec["doc"]))
    else:
        note = "%s's signature (%s) gives %s the values %s (Literal[...])" % (
            shown, _version(pkg), param, ", ".join(choices[:12]))
    return lines, note


# a check that an argument is given at all (fix22): "Optional kwarg `mesh_dim` needs to be specified when
# device_mesh.ndim > 1." (torch/distributed/device_mesh.py get_local_rank), "max_steps has to be specified"
# (transformers/trainer.py _validate_args), "`x` must be provided"; the name a Python parameter's (snake_case, lower)
_MISSING = re.compile(r"(?<![\w.-])[`'\"]?(?P<p>[a-z_][a-z0-9_]{2,60})[`'\"]? (?:(?P<noun>option|argument|kwarg|parameter|"
                      r"keyword argument) )?(?:has to|needs to|must|should) be (?:specified|provided|passed|given|set)"
                      r"(?! (?:to|as|through|via|in|by|with|from|only)\b)(?=[ .,;:]|$)")
_PLACEHOLDER = re.compile(r"^[\w.\[\], |]{1,60}$")


def missing(tb):
    """(edit line, note) for a library check that an argument was not given at all, when the API the user's line
    calls - or, when the line calls something else (Trainer(...) where TrainingArguments holds it), the one
    callable of the raising package that documents it - documents that argument; else (None, None)."""
    from gpudoctor.explain.libarg import _call

    msg = (tb.get("msg") or "").strip()[:argedit.MAX_MSG]
    built = built_with(tb, msg)
    if built[0]:
        return built
    m = _MISSING.search(msg)
    uf = userline.user_frame(tb)
    if m is None or uf is None:
        return None, None
    param = m.group("p")
    kws = argedit._kwargs(uf["src"])
    if param in kws:
        return None, None  # (given: the check is about its value, not its absence)
    call = _call(uf["src"][:pytb.MAX_SRC])
    calls = table().get("callables") or {}
    found = lookup(call[0], param, uf["callees"]) if call else None
    where = "in the call on line %s" % uf.get("line") if found else None
    short = call[0].rsplit(".", 1)[-1] if call else ""
    first = next((fn for f, fn in uf["callees"] if site_path(f)), None)
    if found is None and short and first == short and (m.group("noun") or re.search(
            r"\b(?:kwarg|keyword argument|argument|parameter) [`'\"]?%s\b" % re.escape(param), msg)):
        # the line calls the raising function itself (mesh.get_local_rank() raising in get_local_rank), which the
        # table does not document: the message's own words name the argument of that call, and call it one ("Optional
        # kwarg `mesh_dim`"; not "objects valid for `is_torch_tensor` should be passed", accelerate's gather)
        return "pass %s=<a value> in the call on line %s: %s(..., %s=...) (the message requires it)" % (
            param, uf.get("line"), short, param), None
    if found is None:
        inner = pytb.innermost(tb)
        pkg = (site_path(inner[0]) or "").split("/", 1)[0] if inner else ""
        cands = [q for q, rec in calls.items() if rec.get("package") == _PKG.get(pkg, pkg) and
                 param in (rec.get("params") or {}) and rec.get("kind") == "class"]
        if len({repr(sorted(calls[q]["params"][param].items())) for q in cands}) > 1:
            # several classes document it: the one the called API takes as an argument's documented type
            # (Trainer(args=...): 'TrainingArguments, *optional*'), where the user's line passes that argument
            callee = next((q for q in _index()[0].get(site_path(uf["callees"][0][0]) or "", ())
                           if q.rsplit(".", 1)[1] == short), None) if uf["callees"] else None
            types = " ".join((rec.get("type") or "") for k, rec in
                             ((calls.get(callee) or {}).get("params") or {}).items() if k in kws)
            cands = [q for q in cands if re.search(r"(?<![\w.])%s(?![\w])" % re.escape(q.rsplit(".", 1)[1]), types)]
        if len({repr(sorted(calls[q]["params"][param].items())) for q in cands}) != 1:
            return None, None
        q = sorted(cands, key=lambda x: (len(x), x))[0]
        found = q, calls[q]["params"][param]
    qual, rec = found
    kind = calls[qual].get("kind")
    shown = qual.rsplit(".", 2)[-2] + "." + qual.rsplit(".", 1)[1] if kind == "method" else qual.rsplit(".", 1)[1]
    typ = re.sub(r"[`*]", "", rec.get("type") or "").split(",")[0].strip()  # ('`int`, *optional*, ...': int)
    hint = typ if typ and _PLACEHOLDER.match(typ) else "a value"
    choices = [c for c in rec.get("choices") or [] if _CHOICE.match(c)]
    if choices:
        hint = " | ".join(choices[:6])
    line = "pass %s=<%s> %s: %s(..., %s=...) (the message requires it; %s documents it)" % (
        param, hint, where or "where it is built", shown, param, shown)
    pkg = calls[qual].get("package", qual.split(".", 1)[0])
    note = "%s's documentation of %s (%s): \u201c%s\u201d" % (
        shown, param, _version(pkg), userline.quote(rec.get("doc") or "no sentence"))
    return line, note


_PKG = {"pytorch_lightning": "lightning", "lightning_fabric": "lightning"}

# an object that had to be made with an argument: "Both events must be created with argument 'enable_timing=True'."
# (torch/cuda/streams.py Event.elapsed_time), "... must be constructed / initialized / built with foo=True"
_BUILT = re.compile(r"\b(?:created|constructed|initiali[sz]ed|instantiated|built) with (?:the )?(?:argument |option |flag "
                    r"|keyword )?[`'\"]?(?P<p>[a-z_][a-z0-9_]{1,60})=(?P<v>[\w.'\"-]{1,40}?)[`'\"]?(?=[ .,;)]|$)")


def built_with(tb, msg):
    """(edit line, note) when the message says the object had to be made with an argument and the raising frame is a
    method of a class the table documents that argument for (the class in the same file whose method raised):
    'create it with Event(..., enable_timing=True) where it is built'; else (None, None). (fix22)"""
    m = _BUILT.search(msg)
    inner = pytb.innermost(tb)
    if m is None or not inner or inner[3] != "lib":
        return None, None
    rel, fn = site_path(inner[0]), inner[2] if len(inner) > 2 else None
    calls = table().get("callables") or {}
    meth = [q for q in _index()[0].get(rel, ()) if q.rsplit(".", 1)[1] == fn and calls[q].get("kind") == "method"]
    cls = {q.rsplit(".", 1)[0] for q in meth}
    found = [(c, calls[c]["params"][m.group("p")]) for c in sorted(cls) if c in calls and
             m.group("p") in (calls[c].get("params") or {})]
    if len(found) != 1:
        return None, None
    qual, rec = found[0]
    name, value = qual.rsplit(".", 1)[1], m.group("v").strip("'\"")
    if not _CHOICE.match(value):
        return None, None
    line = "create it with %s(%s=%s, ...) where it is built (the message requires it; %s raised in %s.%s)" % (
        name, m.group("p"), value, name, name, fn)
    pkg = calls[qual].get("package", qual.split(".", 1)[0])
    note = "%s's documentation of %s (%s): \u201c%s\u201d" % (name, m.group("p"), _version(pkg),
                                                           userline.quote(rec.get("doc") or "no sentence"))
    return line, note


def fill(scan, findings, tb, got=None):
    """Add the documented edit to the root's first cause (libarg.fill's hook, after argedit.fill)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes") or not tb:
        return
    inner = pytb.innermost(tb)
    if not inner or inner[3] != "lib":
        return
    first = f["causes"][0]
    lines, note = advise(tb, scan, got, first.get("edit"))
    if note is None:
        line, note = missing(tb)
        if line is None:
            return
        lines = [line]
        if note is None:
            note = ""
    fixes = first["fix"]
    # argedit's edit from the message itself stays first, unless it names no value and the documentation does
    chose = bool(lines) and not lines[0].startswith(("drop ", "set "))
    at = 0 if not first.get("edit") or (chose and not _picked(first["edit"])) else 1
    for line in reversed(lines[:2]):
        if line not in fixes:
            fixes.insert(at, line)
    if lines and at == 0:
        first["edit"] = lines[0]
    if note and note not in f["notes"]:
        f["notes"].append(note)
