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

PKGS = ("transformers", "accelerate", "peft", "trl", "datasets", "safetensors")
_P = r"(?:transformers|accelerate|peft|trl|datasets|safetensors)(?:\.[A-Za-z_][\w.]{0,150})?"
_IMPORT = re.compile(r"cannot import name '([A-Za-z_]\w{0,80})' from '(%s)'" % _P)
_ATTR = re.compile(r"module '(%s)' has no attribute '([A-Za-z_]\w{0,80})'" % _P)
_KWARG = re.compile(r"\b([A-Za-z_]\w{0,80})(?:\.__init__)?\(\) got an unexpected keyword argument '([A-Za-z_]\w{0,80})'")
_CALL = re.compile(r"\b([A-Z]\w{2,60})\s{0,4}\(")


def table():
    """generated/api_history.json, read once ({} when missing)."""
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("api_history")


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


def asked(texts, tb):
    """(package, kind, where, name): kind 'name' (where: the module) or 'kwarg' (where: the class or function)."""
    classes = {c: p for p, d in tb.get("packages", {}).items() for c in d.get("params", {})}
    for t in texts:
        t = t[:2000]
        m = _IMPORT.search(t)
        if m:
            return m.group(2).split(".")[0], "name", m.group(2), m.group(1)
        m = _ATTR.search(t)
        if m:
            return m.group(1).split(".")[0], "name", m.group(1), m.group(2)
        m = _KWARG.search(t)
        if m:
            cls = m.group(1)
            if cls == "__init__":
                # Python < 3.10 names no class: the traceback's source line of the call names it
                cls = next((c.group(1) for u in texts for c in _CALL.finditer(u[:2000]) if c.group(1) in classes), None)
            if cls in classes:
                return classes[cls], "kwarg", cls, m.group(2)
    return None


def _next_line(a, b):
    """Whether release b is the minor line right after a (4.40.0 -> 4.41.0, 0.34.0 -> 1.0.0)."""
    va, vb = _vt(a), _vt(b)
    return (vb[0] == va[0] and vb[1] == va[1] + 1) or (vb[0] == va[0] + 1 and vb[1] == 0)


def compute(texts, tb=None):
    """(fix line, why) for the library name or keyword a log asks for, or None."""
    tb = table() if tb is None else tb
    got = asked(texts, tb) if tb else None
    if not got:
        return None
    pkg, kind, where, name = got
    d = tb["packages"].get(pkg)
    if not d:
        return None
    rel = d["releases"]
    if kind == "name":
        sp = spans(d.get("names", {}).get(where, "")).get(name)
        what = "%s.%s" % (where, name)
    else:
        sp = spans(d.get("params", {}).get(where, {}).get("args", "")).get(name)
        what = "%s(%s=...)" % (where, name)
    if not sp:
        return None
    since_i, removed_i = sp
    have = version_in_log(texts, pkg)
    yours = " (your %s is %s)" % (pkg, have) if have else ""
    why = "generated/api_history.json: %s is in %s %s%s of the releases read (%s to %s)" % (
        what, pkg, rel[since_i], (" up to %s" % rel[removed_i - 1]) if removed_i else " and later", rel[0], rel[-1])
    first = rel[since_i] if since_i else None
    gone = rel[removed_i] if removed_i else None
    last = rel[removed_i - 1] if removed_i else None
    if gone and (not have or _vt(have) >= _vt(gone) or (first and _vt(have) >= _vt(first))) and \
            not (first and have and _vt(have) < _vt(first)):
        if have and _vt(have) < _vt(gone) and _vt(have) >= _vt(last):
            return None  # between the last release read with it and the first without: the table cannot tell
        pin = ("'%s<%s'" % (pkg, gone)) if _next_line(last, gone) else ("'%s~=%s'" % (pkg, last))
        line = "%s was removed from %s after %s (not in %s)%s: the code was written for an older %s; pin " \
               "pip install %s, or port the code to the newer API (%s's release notes name its replacement)" % (
                   what, pkg, last, gone, yours, pkg, pin, pkg)
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
            what, when, yours, pkg, pin, ", or drop the argument %s" % name if kind == "kwarg" else "")
        return line, why
    return None


def how_sure(finding, got):
    """The finding's How sure: medium when the table dates the name (the release is read from the wheels, but the
    log may not say which release ran), else the family only: the name is in every release read or in none, so
    the release is no answer (a typo, another library's name, a shadowing file or a circular import may be)."""
    notes = finding.setdefault("notes", [])
    notes[:] = [n for n in notes if not n.startswith("How sure:")]
    if got:
        notes.insert(0, "How sure: medium. The releases that have the name are read from the libraries' own wheels "
                        "(generated/api_history.json); the version that ran is %s." % (
                            "the one the log prints" if " (your " in got[0] or "the log reports" in got[0]
                            else "not in the log: check it with pip list"))
    else:
        finding["confidence"] = "family"
        notes.insert(0, "How sure: low. The message names a name the installed release lacks, but the release "
                        "history read (generated/api_history.json) does not date it (every release read has it, "
                        "or none does): check the spelling and the module it is imported from, and pip list.")
