"""The argument of the user's call that a library refused (issue 18): an exception raised in an installed library's
frame (site-packages / dist-packages: pytb.where) under a line of the user's own file, whose message names one of
the arguments that line passes, is that argument's value refused; the answer names the argument, the call and the
line, so that the fix says what to change, not only that "a library raised an error".

Evidence, never a guess: the argument's name must be a word of the message and either
  - a keyword argument written on the user's line (`L.Trainer(..., limit_train_batches=1.5)`: CPython prints the
    line under the frame, pytb.frame_source), or
  - a parameter of the API the line calls (generated/train_api.json, the signatures read from torch, transformers,
    accelerate and peft: userline.calls) whose name is not a plain word (snake_case, or quoted in the message), so a
    value passed by position or through **cfg is named too;
  - a parameter of the library function that raised (the innermost library frame's file and function, as a
    generated table records them for its sites: generated/pylibs_messages.json's func / params), the same kind of
    name (a value the call passes on, or a default it left);
and the message must read as a refusal (must / should / invalid / expected / requires / has to ...: the words of an
argument check). The value written on the line is shown when the message quotes it. The message itself stays in the
cause's text; the fix line names only the argument, the call and the line (plain names: userline.ident).
"""

import re

from gpudoctor.explain import apinotes, argedit, callarg, callguard, cxxguard, paramdocs, pytb, userline
from gpudoctor.fixline import sh

# the words of an argument check's message (what a value must be, may not be, or is not)
_REFUSAL = re.compile(r"\b(?:must|should|has to|have to|needs?|requires?|invalid|not (?:a )?valid|expected|"
                      r"expects?|only|not supported|unsupported|not allowed|cannot|can't|got|out of range|"
                      r"between|positive|negative|greater|less|at least|at most|one of|incompatible|unknown)\b", re.I)
# keyword arguments written on a line: name=value (not ==, <=, >=, !=), the value up to the next top-level ',' or ')'
_KW = re.compile(r"(?<![\w.=!<>])([A-Za-z_]\w{1,60})[ \t]{0,2}=(?!=)[ \t]{0,2}([^,()\[\]{}\n]{1,80})")
_TOKEN = re.compile(r"[A-Za-z_]\w{1,60}")
_QUOTED = re.compile(r"[`'\"]([A-Za-z_]\w{1,60})[`'\"]")
_CALLEE = re.compile(r"([A-Za-z_][\w.]{0,80})[ \t]{0,2}$")
# names that are words of every message, never an argument's evidence
_COMMON = frozenset("""self cls args kwargs input output value values type dtype device size shape data
the and for not but got with from into must should only one has have was were are this that""".split())


def _call(src):
    """(what the line calls, the text of its arguments) of the line's first call, or None."""
    i = src.find("(")
    if i <= 0:
        return None
    m = _CALLEE.search(src[:i])
    if not m:
        return None
    return m.group(1), src[i + 1:userline._close(src, i)]


def argument(tb):
    """dict(param, value, call, file, line, lib, how) for the traceback ``tb`` when its message names an argument
    of the user's call that went into the library that raised (module docstring), else None."""
    inner = pytb.innermost(tb)
    if not inner or inner[3] != "lib":
        return None
    msg = tb.get("msg") or ""
    if not msg or not _REFUSAL.search(msg):
        return None
    uf = userline.user_frame(tb)
    if uf is None or not uf["callees"] or pytb.where(uf["callees"][0][0])[0] != "lib":
        return None  # the user's line must call into a library (not a helper of the user's own)
    got = _call(uf["src"])
    if got is None:
        return None
    written, argtext = got
    kws = {}
    for m in _KW.finditer(argtext):
        kws.setdefault(m.group(1), m.group(2).strip())
    quoted = set(_QUOTED.findall(msg))
    words = [w for w in _TOKEN.findall(msg) if w.lower() not in _COMMON]
    params = set()
    for _wrote, _name, rec in userline.calls(uf)[:1]:
        params.update(userline._params(rec))
    for w in words:
        if w in kws and (len(w) >= 3 or w in quoted):
            value = kws[w]
            return {"param": w, "value": value if value in msg else None, "call": written, "file": uf["file"],
                    "line": uf["line"], "lib": inner[4], "how": "written on the line"}
    for w in words:
        if w in params and ("_" in w or w in quoted):
            return {"param": w, "value": None, "call": written, "file": uf["file"], "line": uf["line"],
                    "lib": inner[4], "how": "a parameter of the API the line calls"}
    own = _raiser_params(inner[0], inner[2])
    for w in words:
        if w in own and ("_" in w or w in quoted):
            return {"param": w, "value": None, "call": written, "file": uf["file"], "line": uf["line"],
                    "lib": inner[4], "how": "a parameter of %s, the library function that raised" % inner[2]}
    return None


_FUNCS = None


def _raiser_params(file, fn):
    """The parameter names of the library function ``fn`` of ``file`` (a site-packages path) as a generated table
    records them for its message sites (generated/pylibs_messages.json: func, params), or ()."""
    global _FUNCS
    if _FUNCS is None:
        from gpudoctor.explain.knowledge import generated_table

        _FUNCS = {}
        for site in generated_table("pylibs_messages").get("sites") or []:
            if site.get("func"):
                _FUNCS[(site["where"].rsplit(":", 1)[0], site["func"])] = tuple(site.get("params") or ())
    norm = (file or "").replace("\\", "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in norm:
            return _FUNCS.get((norm.rsplit(marker, 1)[1], fn), ())
    return ()


def _root_traceback(scan, f):
    lines = {m["line"] for m in f.get("matches") or []}
    tbs = [t for t in getattr(scan, "tracebacks", []) or [] if t.get("line") in lines]
    return tbs[0] if tbs else None


def fill(scan, findings):
    """Name the refused argument in the root's first cause (analyze.analyze's hook, after userline.fill)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes"):
        return
    tb = _root_traceback(scan, f)
    got = argument(tb) if tb else None
    if got is None:
        argedit.fill(scan, findings, tb)  # the concrete edit the message gives (argedit.py), argument or not
        paramdocs.fill(scan, findings, tb)  # what the called API's documentation says (paramdocs.py)
        apinotes.fill(scan, findings, tb)  # the called API's documented constraint of use (apinotes.py)
        callguard.fill(scan, findings, tb)  # the call and the argument / state its check read (callguard.py)
        callarg.fill(scan, findings, tb)  # the collective's argument c10d's C++ check read (callarg.py)
        cxxguard.fill(scan, findings, tb)  # the C++ check's condition and what it wants (cxxguard.py)
        return
    name = userline.ident(got["param"], "the argument")
    call = userline.ident(got["call"], "the call")
    shown = "%s=%s" % (got["param"], got["value"]) if got["value"] else got["param"]
    written = got["how"] == "written on the line"
    f["notes"].append("The message names %s, %s your line %s:%d %s %s (%s): that value is what %s refused: "
                      "\u201c%s\u201d." % (
                          userline.quote(shown), "an argument" if written else "a parameter of the call",
                          userline.quote(got["file"].replace("\\", "/").rsplit("/", 1)[-1]), got["line"],
                          "passes to" if written else "makes,", userline.quote(got["call"]), got["how"],
                          userline.quote(got["lib"]), userline.quote((tb_msg(scan, f) or "")[:200])))
    fix = ("the value given as %s to %s is rejected by %s: change %s in that call (%s, line %d), or the config "
           "value that feeds it, to one the message allows" % (name, call, sh(got["lib"]), name, sh(got["file"]),
                                                             got["line"]))
    first = f["causes"][0]
    if _generic(f):
        first["fix"].insert(0 if not first.get("evidence") else 1, fix)
    else:
        # a specific root (a device mismatch naming 'bias', a dtype check naming 'weight') has its own fix: the
        # message's argument is where to look, not what to change first (review15)
        first["fix"].append(fix)
    argedit.fill(scan, findings, tb, got)  # the concrete edit first (argedit.py)
    paramdocs.fill(scan, findings, tb, got)  # then what the called API's documentation says (paramdocs.py)
    apinotes.fill(scan, findings, tb)  # and the called API's documented constraint of use (apinotes.py)
    callguard.fill(scan, findings, tb)  # and the call and the argument / state its check read (callguard.py)
    callarg.fill(scan, findings, tb)  # and the collective's argument c10d's C++ check read (callarg.py)
    cxxguard.fill(scan, findings, tb)  # and the C++ check's condition and what it wants (cxxguard.py)


def _generic(f):
    """Whether the root is an answer by family or by the traceback's shape only (a library raised, no entry knows
    the message): then the refused argument is the most specific fix there is."""
    return f.get("confidence") in ("family", "structural")  # analyze._confidence / _structural_finding


def tb_msg(scan, f):
    tb = _root_traceback(scan, f)
    return tb.get("msg") if tb else None
