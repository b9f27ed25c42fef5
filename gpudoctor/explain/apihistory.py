"""Which release of transformers, accelerate, peft, trl, datasets or safetensors has a name or keyword argument a
script asks for (computed fix `api_history`).

A script written for one release of a library of the stack fails on another with one of CPython's wordings
(Python/ceval.c import_from "cannot import name %R from %R", Objects/moduleobject.c module_getattro
"module '%U' has no attribute '%U'", Python/getargs.c / ceval.c "%U() got an unexpected keyword argument '%S'"):

    ImportError: cannot import name 'is_torch_tpu_available' from 'transformers.utils' (...)
    AttributeError: module 'accelerate.utils' has no attribute 'X'
    TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'eval_strategy'

generated/api_history.json (tools/gen_api_history.py, read with ast from the released wheels) says in which
release each name or keyword arrived or left; the version the log prints (pip's `transformers==4.30.2`,
transformers-cli env's "`transformers` version: 4.30.2") is compared with it when the log has one. A name the
table does not record (in every release read, or in none) gets no answer here.
"""

import re

PKGS = ("transformers", "accelerate", "peft", "trl", "datasets", "safetensors", "vllm", "pytorch_lightning",
        "diffusers", "sglang", "deepspeed")
# (removed18) the libraries the others run on: generated/api_history_sci.json (tools/gen_api_history.py --set sci)
SCI = ("numpy", "scipy", "pandas", "jax", "flax", "optax", "huggingface_hub", "torchvision", "torchaudio")
# generated/api_history.json (the Hugging Face stack) and generated/api_history_serving.json (vLLM, Lightning,
# diffusers, sglang, DeepSpeed): one generator, tools/gen_api_history.py --set hf / serving
TABLES = ("api_history", "api_history_serving", "api_history_sci")
_P = r"(?:transformers|accelerate|peft|trl|datasets|safetensors|vllm|pytorch_lightning|lightning|diffusers|sglang|" \
     r"deepspeed|numpy|scipy|pandas|jax|flax|optax|huggingface_hub|torchvision|torchaudio)(?:\.[A-Za-z_][\w.]{0,150})?"
# (removed18) a removed name's own AttributeError, printed from the library's table (tools/gen_api_history.py
# attr_tables): numpy 2's __getattr__ "`np.X` was removed in the NumPy 2.0 release. <note>" (numpy/__init__.py), jax's
# deprecation_getattr raising the table's message "jax.X was removed in JAX v0.6.0: use ..."
# (jax/_src/deprecations.py)
# (removed18) a submodule a release removed (torchvision 0.17 dropped transforms.functional_tensor, which basicsr
# still imports): CPython's "No module named %R" (Python/import.c) for a dotted name of one of SCI; the table's
# "modules" spans date it
_NOMOD = re.compile(r"No module named '((?:numpy|scipy|pandas|jax|flax|optax|huggingface_hub|torchvision|torchaudio)"
                    r"(?:\.[A-Za-z_]\w{0,80}){1,6})'")
_SAID = re.compile(r"\bwas removed in (?:JAX v|the NumPy )(\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)\b")
_GONE = re.compile(r"`np\.([A-Za-z_]\w{0,80})` was removed in the NumPy|"
                   r"\b(jax(?:\.[a-z_]\w{0,40}){0,4})\.([A-Za-z_]\w{0,80}) (?:was|has been) removed\b")
_IMPORT = re.compile(r"cannot import name '([A-Za-z_]\w{0,80})' from '(%s)'" % _P)
_ATTR = re.compile(r"module '(%s)' has no attribute '([A-Za-z_]\w{0,80})'" % _P)
_KWARG = re.compile(r"\b([A-Za-z_]\w{0,80})(?:\.__init__)?\(\) got an unexpected keyword argument '([A-Za-z_]\w{0,80})'")
_CALL = re.compile(r"\b([A-Z]\w{2,60})\s{0,4}\(")
# argparse (Lib/argparse.py parse_args): "%(prog)s: error: unrecognized arguments: %s"
_ARGV = re.compile(r"error: unrecognized arguments: (--[A-Za-z][\w-]{0,80})")
# which program's command line: its usage line, its module or its traceback
_PROG = (("vllm", re.compile(r"\bvllm\b|\bapi_server\.py\b")), ("sglang", re.compile(r"\bsglang\b|\blaunch_server\b")),
         ("deepspeed", re.compile(r"usage: deepspeed\b")))
# pydantic (DeepSpeed's config classes): "1 validation error for DeepSpeedZeroConfig" / "<field>" / "  Extra inputs
# are not permitted" (pydantic 2; pydantic 1: "extra fields not permitted")
_PYD_CLS = re.compile(r"validation errors? for (\w{1,80})")
_PYD_EXTRA = re.compile(r"Extra inputs are not permitted|extra fields not permitted")
_PYD_FIELD = re.compile(r"^\s{0,8}([A-Za-z_]\w{1,80})\s{0,4}$")
_FRAME = re.compile(r'File "[^"\n]{0,300}?/(?:site|dist)-packages/([A-Za-z_]\w{0,60})/')


def table():
    """generated/api_history.json and generated/api_history_serving.json as one {"packages": ...} (read once;
    {} when both are missing)."""
    from gpudoctor.explain.knowledge import generated_table

    got = _MERGED.get("t")
    if got is None:
        parts = [generated_table(n) for n in TABLES]
        got = {"packages": {}} if any(parts) else {}
        for t in parts:
            got.get("packages", {}).update((t or {}).get("packages", {}))
        _MERGED["t"] = got
    return got


_MERGED = {}
_SPANS = {}


def spans(enc):
    """'name=first-afterlast ...' (tools/gen_api_history.py _enc) as {name: [first, afterlast or None]}."""
    got = _SPANS.get(enc)
    if got is None:
        got = {}
        for tok in enc.split():
            name, _, rng = tok.partition("=")
            a, _, b = rng.partition("-")
            got[name] = [int(a), int(b) if b else None]
        if len(_SPANS) < 256:
            _SPANS[enc] = got
    return got


def _vt(v):
    return tuple(int(x) for x in re.findall(r"\d+", v or ""))[:3]


def version_in_log(texts, pkg):
    """The release of ``pkg`` the log prints (pip freeze `pkg==X.Y.Z`, pip list `pkg   X.Y.Z`, `pkg=X.Y.Z`, transformers-cli /
    accelerate env "- `transformers` version: X.Y.Z", "pkg version: X.Y.Z"), or None."""
    rx = re.compile(r"(?<![\w-])`?%s`?(?:={1,2}| {1,40}|: ?|-| version(?: is|:)? ?)v?(\d{1,3}\.\d{1,3}\.\d{1,3})(?![\w.])"
                    % pkg, re.I)
    for t in texts:
        m = rx.search(t[:2000])
        if m:
            return m.group(1)
    return None


def _module(where):
    """lightning.pytorch.X is pytorch_lightning.X (the same sources, shipped under both names)."""
    if where == "lightning.pytorch" or where.startswith("lightning.pytorch."):
        return "pytorch_lightning" + where[len("lightning.pytorch"):]
    return where


def asked(texts, tb):
    """(package, kind, where, name): kind 'name' (where: the module), 'kwarg' (where: the class or function; also
    a command line's flag, '<package> CLI', and a config class's field)."""
    classes = {}
    for p, d in tb.get("packages", {}).items():
        for c in d.get("params", {}):
            classes.setdefault(c, []).append(p)
    for t in texts:
        t = t[:2000]
        m = _IMPORT.search(t)
        if m:
            where = _module(m.group(2))
            return where.split(".")[0], "name", where, m.group(1)
        m = _ATTR.search(t)
        if m:
            where = _module(m.group(1))
            return where.split(".")[0], "name", where, m.group(2)
        m = _NOMOD.search(t)
        if m:
            return m.group(1).split(".")[0], "module", m.group(1), m.group(1)
        m = _GONE.search(t)
        if m:
            return ("numpy", "name", "numpy", m.group(1)) if m.group(1) else \
                ("jax", "name", m.group(2), m.group(3))
        m = _KWARG.search(t)
        if m:
            cls = m.group(1)
            if cls == "__init__":
                # Python < 3.10 names no class: the traceback's source line of the call names it
                cls = next((c.group(1) for u in texts for c in _CALL.finditer(u[:2000]) if c.group(1) in classes), None)
            if cls in classes:
                return _owner(classes[cls], cls, m.group(2), texts, tb), "kwarg", cls, m.group(2)
        m = _ARGV.search(t)
        if m:
            prog = next((p for p, rx in _PROG for u in texts if rx.search(u[:2000])), None)
            if prog and "%s CLI" % prog in classes:
                return prog, "flag", "%s CLI" % prog, m.group(1)
    for i, t in enumerate(texts):  # pydantic: the class two lines above, the field on the line above
        if _PYD_EXTRA.search(t[:400]) and i >= 2:
            f = _PYD_FIELD.match(texts[i - 1][:200])
            c = next((c for u in texts[max(0, i - 8):i - 1] for c in [_PYD_CLS.search(u[:400])] if c), None)
            if f and c and c.group(1) in classes:
                return classes[c.group(1)][0], "field", c.group(1), f.group(1)
    return None


def _owner(pkgs, cls, name, texts, tb):
    """The package of class ``cls`` (transformers and Lightning both have a Trainer): the one the log's frames or
    words name, else the one whose table dates ``name``."""
    if len(pkgs) == 1:
        return pkgs[0]
    low = "\n".join(t[:2000] for t in texts).lower()
    named = [p for p in pkgs if p in low or (p == "pytorch_lightning" and "lightning" in low)]
    if len(named) == 1:
        return named[0]
    dated = [p for p in (named or pkgs)
             if name in spans(tb["packages"][p].get("params", {}).get(cls, {}).get("args", ""))]
    return (dated or named or pkgs)[0]


def _next_line(a, b):
    """Whether release b is the minor line right after a (4.40.0 -> 4.41.0, 0.34.0 -> 1.0.0)."""
    va, vb = _vt(a), _vt(b)
    return (vb[0] == va[0] and vb[1] == va[1] + 1) or (vb[0] == va[0] + 1 and vb[1] == 0)


# the log's own deprecation warning, printed before the failure, names the replacement the same way the sources do
# (tools/gen_api_history.py _PAIRS): "... deprecated ... use Y (instead)", "renamed to Y", "in favor of Y"
_LOG_NEW = re.compile(r"(?:\buse|\busing|in favou?r of|renamed to|replaced by|superseded by)\s{1,3}[`'\"]?"
                      r"(--[A-Za-z][\w-]{1,80}(?:=[\w.-]{1,40})?|[A-Za-z_][\w.]{1,100}(?:\(\))?)", re.I)


def _flag(name):
    return "--" + name.replace("_", "-")


def _spell(new, kind):
    """The replacement as the question spells it: a flag for a command line, a keyword for a call."""
    m = re.fullmatch(r"--([A-Za-z][\w-]{0,80})(?:=([\w.'\"-]{1,40}))?", new)
    if m and kind != "flag":
        kw = m.group(1).replace("-", "_")
        return '%s="%s"' % (kw, m.group(2).strip("'\"")) if m.group(2) else kw
    if kind == "flag" and re.fullmatch(r"[a-z][a-z0-9_]{1,80}", new):
        return _flag(new)
    return new


# a deprecation message whose subject is its site (argparse help 'Deprecated, use Y', '[Deprecated] Use Y')
_SUBJECT = re.compile(r"^\W{0,3}deprecated\b", re.I)


def _row_says(key, new, msg, pkg=""):
    """(review17) Whether a table row's replacement is the one its own message gives for ``key``: the message names
    the key (as a name or a flag) or is the help text of the key's own flag, and the replacement is a whole name.
    c4ee707's table holds rows whose message is another name's (a message variable assigned twice in one function
    or class: diffusers' load_attn_procs -> save_attn_procs' 'save_lora_adapter()', disable_vae_slicing ->
    disable_vae_tiling's, `scale` -> FluxAttnProcessor2_0) and cut names ('--cuda-graph-backend-')."""
    names = (key, key.replace("_", "-"))
    if not (any(n in msg for n in names) or _SUBJECT.match(msg)):
        return False
    # (removed18) numpy's aliases of a builtin name it ("`np.float` was a deprecated alias for the builtin `float`")
    builtin = pkg in SCI and new == key and ("builtin `%s`" % key) in msg
    return bool(new) and not re.search(r"[-{(,]$|\{", new) and (new.strip("-`'\"") not in names or builtin)


def replacement(texts, tb, pkg, name, kind, where=None):
    """(replacement or '', where it was read, first release with the deprecation message or None) for ``name`` of
    ``pkg``: the log's own deprecation warning first, else the deprecation sites of the releases read (for a
    keyword of class ``where``: that class's replacement where the package's row is another site's, _class_row)."""
    names = (name, _flag(name)) if kind == "flag" else (name,)
    for t in texts:
        low = t[:2000]
        if "deprecat" not in low.lower() and "renamed" not in low.lower():
            continue
        for n in names:
            i = low.find(n)
            if i < 0:
                continue
            m = _LOG_NEW.search(low, i + len(n))
            if m and m.group(1).strip(".") not in names and m.group(1).lower() not in ("it", "the", "this", "a"):
                return m.group(1).rstrip("."), "the log's own deprecation warning", None
    d = tb["packages"].get(pkg, {})
    key = name.lstrip("-").replace("-", "_") if kind == "flag" else name
    got = d.get("replaced", {}).get(key)
    if not got or not _row_says(key, got[0], got[3], pkg):
        return "", None, None
    new, first, _last, msg = got
    rel = d["releases"]
    if where and kind in ("kwarg", "field"):
        fit = _class_row(tb, pkg, where, key, new, msg)
        if fit is not True:
            return fit
    return new, "%s's own deprecation message, %s to %s: \"%s\"" % (pkg, rel[first], rel[_last], msg[:160]), rel[first]


def _kw(new):
    """A replacement's spelling as a bare keyword ('Trainer.processing_class' / 'x=...' -> the name)."""
    return _spell(new, "kwarg").split("=")[0].split("(")[0].rsplit(".", 1)[-1]


def _class_row(tb, pkg, cls, key, new, msg):
    """(apihist22) Whether the package-wide row (``replaced`` is keyed by the old name across the package's
    classes and functions: another site of transformers 4.20-4.56 says "The `tokenizer` argument is deprecated ...
    Use `preprocessor` instead", while Trainer's own deprecate_kwarg says processing_class) fits keyword ``key`` of
    class ``cls``. True (keep it) when its message names the class, when the replacement is a keyword the class's
    table dates, or when nothing points elsewhere; (new, source, None) when another package's row of the same keyword
    names exactly one replacement and that one is among the keywords ``cls`` gained in the very release it lost
    ``key`` (trl's trainers, built on Trainer, carry Trainer's rename): the class's own history and a second
    deprecation message agree. A release adds many keywords, so the arrivals alone refuse nothing (the table dates
    only keywords that change: hub_model_id, older than the releases read, is no dated keyword of TrainingArguments
    and still push_to_hub_model_id's replacement)."""
    d = tb["packages"].get(pkg, {})
    args = spans(d.get("params", {}).get(cls, {}).get("args", ""))
    if re.search(r"(?<![\w.])%s\b" % re.escape(cls), msg) or _kw(new) in args or key not in args or \
            args[key][1] is None:
        return True
    k = args[key][1]
    arrived = {n for n, (a, _b) in args.items() if a == k}
    if not arrived:
        return True  # nothing arrived when it left: the class's history says nothing against the row
    rel = d["releases"]
    found = {}
    for p2, d2 in sorted(tb["packages"].items()):
        row = (d2.get("replaced") or {}).get(key) if p2 != pkg else None
        if row and row[0] and _kw(row[0]) in arrived and _row_says(key, row[0], row[3], p2):
            found.setdefault(_kw(row[0]), (p2, row))
    if len(found) != 1:
        return True
    kw, (p2, row) = next(iter(found.items()))
    return kw, "%s's %s gained %s in %s, the release it lost %s, and %s's deprecation message of the same keyword " \
        "names it: \"%s\"" % (pkg, cls, kw, rel[k], key, p2, row[3][:160]), None


def frames_of(scan, finding):
    """The frames [(file, line, function)] of the traceback that ends at the finding's first matched line, from the
    scanner's tracebacks (pytb.record), outermost first; [] when there is none."""
    lines = {h.get("line") for h in finding.get("matches") or []}
    for t in getattr(scan, "tracebacks", None) or ():
        if t.get("line") in lines and t.get("frames"):
            return list(t["frames"])
    return []


def caller_frame(frames, pkg):
    """(removed18) Who asked ``pkg`` for the name: walking out from the innermost frame past ``pkg``'s own frames
    (numpy's __getattr__) and the interpreter's (importlib), the first frame of another installed library (its
    distribution, as pip installs it: 'numba_cuda' -> 'numba-cuda') or 'user' (the script's own file); None when
    the frames do not say."""
    from gpudoctor.explain import pytb

    for f in reversed(frames or ()):
        kind, lib = pytb.where(str(f[0]).replace("\\", "/"))
        if kind == "stdlib":
            continue
        if kind == "lib" and lib == pkg:
            if f[2] in _ACCESSORS:
                continue
            return "self"  # the library asked itself (a mixed install, a circular import): no pair of releases
        if kind == "lib":
            return pytb.distribution(lib).replace("_", "-")
        return "user" if kind == "user" else None
    return None


# the frames that only answer for a module's names: its PEP 562 __getattr__ (numpy/__init__.py), jax's
# deprecation_getattr's inner getattr (jax/_src/deprecations.py)
_ACCESSORS = ("__getattr__", "getattr")


def compute(texts, tb=None, frames=None):
    """(fix line, why) for the library name or keyword a log asks for, or None. ``frames``: the traceback's
    frames (frames_of), which say whose call it was."""
    tb = table() if tb is None else tb
    got = asked(texts, tb) if tb else None
    if not got:
        return None
    pkg, kind, where, name = got
    d = tb["packages"].get(pkg)
    if not d or re.match(r"__\w+__$", name):
        # (review18) a module without its own __version__ / __file__ is no release that lacks it: a same-named folder
        # found first or a broken install (lib_api.toml: that cause's evidence)
        return None
    rel = d["releases"]
    if kind == "name":
        sp = spans(d.get("names", {}).get(where, "")).get(name)
        what = "%s.%s" % (where, name)
    elif kind == "module":
        sp = spans(d.get("modules", "")).get(where)
        what = where
    else:
        key = name.lstrip("-").replace("-", "_") if kind == "flag" else name
        sp = spans(d.get("params", {}).get(where, {}).get("args", "")).get(key)
        what = "%s %s" % (pkg, name) if kind == "flag" else \
            ("%s field %s" % (where, name) if kind == "field" else "%s(%s=...)" % (where, name))
    if not sp:
        return _undated(pkg, what, frames, d)
    since_i, removed_i = sp
    # (removed18) the removed name's own message names the release it left in ("was removed in JAX v0.6.0"): that
    # is the library's history, not the installed release
    said = next((m.group(1) for t in texts for m in [_SAID.search(t[:2000])] if m), None) if pkg in SCI else None
    have = version_in_log([t for t in texts if not _GONE.search(t[:2000])], pkg)
    yours = " (your %s is %s)" % (pkg, have) if have else ""
    why = "generated/%s.json: %s is in %s %s%s of the releases read (%s to %s)" % (
        "api_history" if pkg in PKGS[:6] else "api_history_sci" if pkg in SCI else "api_history_serving",
        what, pkg, rel[since_i], (" up to %s" % rel[removed_i - 1]) if removed_i else " and later", rel[0], rel[-1])
    first = rel[since_i] if since_i else None
    gone = rel[removed_i] if removed_i else None
    last = rel[removed_i - 1] if removed_i else None
    if gone and (not have or _vt(have) >= _vt(gone) or (first and _vt(have) >= _vt(first))) and \
            not (first and have and _vt(have) < _vt(first)):
        if have and _vt(have) < _vt(gone) and _vt(have) >= _vt(last):
            return None  # between the last release read with it and the first without: the table cannot tell
        pin = ("'%s<%s'" % (pkg, gone)) if _next_line(last, gone) else ("'%s~=%s'" % (pkg, last))
        new, src, dep = replacement(texts, tb, pkg, name, kind, where if kind in ("kwarg", "field") else None)
        if pkg in SCI:
            asker = caller_frame(frames, pkg) or _caller(texts, pkg)
            if asker == "self":
                return None
            when = ("in %s" % gone) if _next_line(last, gone) else "after %s (by %s)" % (last, gone)
            said_t = _vt(said) + (0,) * (3 - len(_vt(said))) if said else None
            if said and _vt(last) < said_t < _vt(gone):
                when, pin = "in %s" % said, "'%s<%s'" % (pkg, said)
            return _sci_line(pkg, what, name, when,
                             pin, yours, new, src, asker), why + (
                "; the replacement: %s" % src if new else "")
        caller = _caller(texts, pkg)
        if new:
            use = _spell(new, kind)
            since = (" (deprecated since %s)" % dep) if dep and dep != rel[0] else \
                ((" (deprecated by %s, the oldest release read)" % dep) if dep else "")
            # (fix22) a keyword renamed in place: the edit of the call, the value kept ('TrainingArguments(
            # evaluation_strategy=...)' -> eval_strategy=<the same value>)
            edit = (" - the edit: %s=<the value given as %s>" % (use, name)) if kind in ("kwarg", "field") and \
                re.fullmatch(r"[A-Za-z_]\w{0,80}", use) and use != name else ""
            # (apihist22) "left transformers after 4.44.0 (by 4.47.0)", not "in after"
            line = "%s left %s %s%s%s: use %s instead (as %s)%s%s, or pin pip install %s" % (
                what, pkg, ("in %s" % gone) if _next_line(last, gone) else "after %s (by %s)" % (last, gone), since,
                yours, use,
                src, edit, (", in the caller: upgrade %s, whose newer release passes the replacement" % caller)
                if caller else "", pin)
            why += "; the replacement: %s" % src
            return line, why
        line = "%s was removed from %s after %s (not in %s)%s: the code was written for an older %s; pin " \
               "pip install %s, or port the code to the newer API (%s's release notes name its replacement)%s" % (
                   what, pkg, last, gone, yours, pkg, pin, pkg,
                   ("; the call is %s's: upgrade %s" % (caller, caller)) if caller else "")
        return line, why
    if first:
        if have and _vt(have) >= _vt(first):
            return ("%s is in %s %s and later and the log reports %s %s: the process imports another %s "
                    "(python -c 'import %s; print(%s.__version__, %s.__file__)' in the job's environment)" % (
                        what, pkg, first, pkg, have, pkg, pkg, pkg, pkg)), why
        before = rel[since_i - 1]
        pin = "'%s>=%s'" % (pkg, first)
        if gone:
            pin = ("'%s>=%s,<%s'" % (pkg, first, gone)) if _next_line(last, gone) else ("'%s~=%s'" % (pkg, last))
        when = ("in %s %s" % (pkg, first)) if _next_line(before, first) else \
            ("in %s after %s (by %s)" % (pkg, before, first))
        line = "%s arrived %s%s: the code was written for a newer %s; upgrade, pip install %s%s" % (
            what, when, yours, pkg, pin, ", or drop the argument %s" % name if kind != "name" else "")
        return line, why
    return None


def _undated(pkg, what, frames, d):
    """(removed18) A name the table does not date (in every release read, or in none) that ANOTHER installed library
    asked for (the traceback's frames): the two releases do not fit, whichever release dropped it (wrong18's asker
    reading, asker.foreign_attribute, says the same); None otherwise."""
    caller = caller_frame(frames, pkg) if pkg in SCI else None
    if not caller or caller in ("user", "self"):
        return None
    rel = d.get("releases") or ["?"]
    return ("%s is not in the installed %s; %s asks for it: upgrade %s (pip install -U %s), or install the %s release "
            "it was written for (its requirements pin it)" % (what, pkg, caller, caller, caller, pkg),
            "the traceback: %s's frame asked %s for it; generated/api_history_sci.json does not date it (%s %s to %s "
            "read)" % (caller, pkg, pkg, rel[0], rel[-1]))


def _sci_line(pkg, what, name, when, pin, yours, new, src, caller):
    """(removed18) A name a library the others run on removed: raised inside ANOTHER library's frame, the two
    releases do not match (pin the older one, or upgrade the caller); in the user's own frame, the code needs the
    replacement."""
    use = (" (use %s)" % new) if new else ""
    head = "%s left %s %s%s" % (what, pkg, when, yours)
    if caller and caller != "user":
        head = "%s left %s %s%s%s" % (what, pkg, when, use, yours)
        return "%s; %s still %s it: pin pip install %s, or upgrade %s (pip install -U %s: a release written for the " \
               "newer %s)" % (head, caller, "imports" if what.count(".") and what == name else "calls", pin, caller,
                              caller, pkg)
    if new:
        return "%s: use %s instead of %s in the code (as %s), or pin pip install %s" % (
            head, new, what, src or "the library's own deprecation message", pin)
    return "%s: the code was written for an older %s; pin pip install %s, or port it (%s's release notes name the " \
           "replacement)" % (head, pkg, pin, pkg)


def _caller(texts, pkg):
    """The installed package whose frame called into ``pkg`` (lm_eval calling vllm), from the traceback: the last
    frame outside ``pkg`` before the first one inside it; None when that frame is the user's own code."""
    prev, last = None, None
    for t in texts:
        m = _FRAME.search(t[:600])
        if not m:
            if 'File "' in t[:600]:
                prev = None
            continue
        lib = m.group(1)
        if lib == pkg or (pkg == "pytorch_lightning" and lib == "lightning"):
            return prev
        prev = lib if lib not in PKGS and lib not in _NOT_CALLERS else None
        last = prev or last
    # explain hands over the first frame only (an entry's signal): a library's frame and no frame of ``pkg``
    return last


_NOT_CALLERS = ("torch", "ray", "typing_extensions", "IPython", "ipykernel", "runpy", "click", "fire", "hydra")


def how_sure(finding, got):
    """The finding's How sure: medium when the table dates the name (the release is read from the wheels, but the
    log may not say which release ran), else the family only: the name is in every release read or in none, so
    the release is no answer (a typo, another library's name, a shadowing file or a circular import may be)."""
    if not got and not finding.get("id", "").endswith("api_version"):
        return  # another entry's computed cause (a library's structural entry): its own How sure stays
    notes = finding.setdefault("notes", [])
    notes[:] = [n for n in notes if not n.startswith("How sure:")]
    if got and got[1].startswith("the traceback:"):  # (removed18) _undated: the frames, not the table, say it
        notes.insert(0, "How sure: medium. Another installed library's frame asked for the name (the traceback); "
                        "which release of either dropped or added it is not in the releases read: pip list shows both.")
    elif got:
        notes.insert(0, "How sure: medium. The releases that have the name are read from the libraries' own wheels "
                        "(generated/api_history*.json); the version that ran is %s." % (
                            "the one the log prints" if " (your " in got[0] or "the log reports" in got[0]
                            else "not in the log: check it with pip list"))
    else:
        finding["confidence"] = "family"
        notes.insert(0, "How sure: low. The message names a name the installed release lacks, but the release "
                        "history read (generated/api_history.json) does not date it (every release read has it, "
                        "or none does): check the spelling and the module it is imported from, and pip list.")
