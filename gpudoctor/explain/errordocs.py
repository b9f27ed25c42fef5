"""The fix a library documents for its own error class (docerrors18, issue 18): generated/error_docs.json
(tools/gen_error_docs.py) holds, per documented class of flax.errors and jax.errors, the docstring's cause, its fix
sentences and working code lines, and the doc URL the class's message ends with.

- ``finding(scan, kb, tb, chain, make)``: pyanswer's structural answer for a traceback whose exception (or one of
  its chain) is such a class: the library's family (jax.usage, jax.tracer, ...) with the documented cause first;
- ``apply(result, scan)``: when a knowledge entry answered the text (jax.tracer's pattern on jax.errors' URL), the
  documented cause and fix of the exception at the root's line go first, unless the answer came from here.

A class is known by its full name in the exception line ('flax.errors.ModifyScopeVariableError'), by its name under
another module of the same package (jax <= 0.4 printed 'jax._src.errors.ConcretizationTypeError'), or by its bare
name where the message carries the class's own doc URL ('...errors.html#jax.errors.TracerBoolConversionError') or
the innermost frame is in the class's package. The quoted fix is documentation's text: a fix line names it as such
(never pasted as a command).
"""

import re

from gpudoctor.explain.text import clip as _clip

NEAR = 12  # lines between an exception's line and the root's matched line (jax's 'See <url>' line after its message)
_STATE = {}


def _table():
    if "full" in _STATE:
        return _STATE
    from gpudoctor.explain.knowledge import generated_table

    full, short = {}, {}
    for row in generated_table("error_docs").get("classes") or []:
        full[row["class"]] = row
        short.setdefault(row["name"], []).append(row)
    _STATE.update(full=full, short=short)
    return _STATE


def lookup(tb):
    """The documented class of a traceback's exception, or None."""
    exc = (tb or {}).get("exc") or ""
    st = _table()
    row = st["full"].get(exc)
    if row:
        return row
    name = exc.rsplit(".", 1)[-1]
    rows = st["short"].get(name)
    if not rows:
        return None
    text = "%s\n%s" % (tb.get("msg") or "", tb.get("more") or "")
    frames = tb.get("frames") or []
    for row in rows:
        if row.get("url") and row["url"].split("#", 1)[-1] in text:
            return row
        if "." in exc and exc.split(".", 1)[0] == row["package"]:
            # the class printed from the module that defines it in another release (jax <= 0.4:
            # 'jax._src.errors.ConcretizationTypeError', 'jax.core.ConcretizationTypeError'): same package, same name
            return row
        if "." not in exc and frames:
            from gpudoctor.explain import pytb

            kind, lib = pytb.where(frames[-1][0])
            if kind == "lib" and lib == row["package"]:
                return row
    return None


def cause(row):
    """A cause dict (first, specific to this class) from a documented class."""
    pkg = row["package"]
    text = "%s documents %s: %s" % (pkg, row["name"], _clip(row["cause"] or "", 300))
    if row.get("url"):
        text += " (%s)" % row["url"]
    fix = ["%s's documentation of %s: %s" % (pkg, row["name"], _clip(f, 300)) for f in row["fix"][:3]]
    if row.get("url"):
        fix.append("read %s for the cases it lists and their fixes" % row["url"])
    return {"text": text, "checks": [], "confirm": [], "fix": fix, "exports": {}, "evidence": [], "static_rank": 0,
            "computed": None, "documented": row["class"]}


def finding(scan, kb, tb, chain, make):
    """pyanswer's structural finding for a documented exception in the chain, or None."""
    by = kb.by_id
    for t in [tb] + list(chain):
        row = lookup(t)
        if row and row.get("family") in by:
            f = make(by[row["family"]], t["hit"], "%s, an error class %s documents" % (t["exc"], row["package"]),
                     scan, sure="medium")
            f["causes"].insert(0, cause(row))
            return f
    return None


# a documented class named in a matched line: an exception line ('jax.errors.X: ...', '[rank0]: flax.errors.X: ...') or
# its doc URL's fragment ('errors.html#jax.errors.X'); bounded, anchored on the module path's dots
_NAMED = re.compile(r"(?:^|[\s#:\]])((?:[a-z_][a-z0-9_]{0,40}\.){1,6}[A-Z][A-Za-z0-9]{2,80})(?=:|\s|$|\))")


def _insert(root, row):
    causes = root["causes"]
    # below a cause this very message already has (a generated site's, static_rank 0), above the family's
    at = 1 if causes and causes[0].get("static_rank") == 0 and causes[0].get("evidence") is not None and \
        root.get("confidence") != "structural" else 0
    causes.insert(at, cause(row))


def apply(result, scan):
    """The documented cause of the exception at the root finding's line, first (see the module's doc): the
    traceback that ends at (or just before) a matched line, else a documented class a matched line names (an
    exception line pasted alone, its doc URL)."""
    findings = result.get("findings") or []
    if not findings or result.get("verdict") not in ("root_cause", "echo_only"):
        return result
    root = findings[0]
    if any(c.get("documented") for c in root.get("causes") or []):
        return result
    matches = [m for m in root.get("matches") or [] if isinstance(m.get("line"), int)]
    lines = [m["line"] for m in matches]
    for tb in scan.tracebacks:
        if not any(0 <= ln - tb["line"] <= NEAR for ln in lines):
            continue
        row = lookup(tb)
        if row:
            _insert(root, row)
            return result
    full = _table()["full"]
    for m in matches[:4]:
        for name in _NAMED.findall((m.get("text") or "")[:2000]):
            row = full.get(name)
            if row:
                _insert(root, row)
                return result
    return result
