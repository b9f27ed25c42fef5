"""A hyperparameter that came in as a string (config18, issue 18 item 1): a traceback whose exception is Python's
TypeError for an order comparison between a str and a number ("'<=' not supported between instances of 'float' and
'str'", Objects/object.c do_richcompare) and whose innermost frame is one of the guards a constructor of torch.optim /
torch.optim.lr_scheduler / transformers' TrainingArguments / timm's and bitsandbytes' optimizers applies to the value
it was given (`if not 0.0 <= lr:`), or Python's TypeError for arithmetic between a str and a number ("unsupported
operand type(s) for -: 'float' and 'str'", Objects/abstract.c) at a line of those files that computes with a value
the user gave (a parameter, or `self.eta_min` that __init__ assigned from one); both read from the wheels by
tools/gen_config_messages.py (generated/config_messages.json "guards" and "uses").

The usual way such a value becomes a string is YAML 1.1's resolver (PyYAML yaml/resolver.py: a float needs a '.', so
`lr: 3e-4` is the string '3e-4'; https://yaml.org/type/float.html), so the fix names both edits: a number with a dot
in the file, or a cast where the config is read. Evidence-bound: the exception's class, its two operand types, and
the innermost frame's file and source line (or, when the traceback printed no source, its file and function) must
all be a guard's; the word 'yaml' is never evidence.
"""

import re

from gpudoctor.explain import knowledge, pytb
from gpudoctor.fixline import sh

# Objects/object.c do_richcompare: "'%s' not supported between instances of '%.100s' and '%.100s'"
_ORDER = re.compile(r"^'(?P<op><=|>=|<|>)' not supported between instances of '(?P<a>[\w.]{1,100})' and "
                    r"'(?P<b>[\w.]{1,100})'$")
# Objects/abstract.c binop_type_error: "unsupported operand type(s) for %.100s: '%.100s' and '%.100s'"; str + number:
# Objects/unicodeobject.c 'can only concatenate str (not "%.200s") to str'
_ARITH = re.compile(r"^unsupported operand type\(s\) for (?P<op>[-+*/%@]{1,2}|\*\*|//): '(?P<a>[\w.]{1,100})' and "
                    r"'(?P<b>[\w.]{1,100})'$|^can only concatenate (?P<a2>str) \(not \"(?P<b2>float|int)\"\) to str$")
_NUMBER = ("float", "int")
# where a site-packages path's package starts
_PKG = re.compile(r"(?:^|[\\/])((?:torch|transformers|timm|bitsandbytes)[\\/][\w\\/]{1,200}\.py)$")


def _rows(key):
    rows = knowledge.generated_table("config_messages").get(key) or []
    by = {}
    for g in rows:
        path = g["where"].rsplit(":", 1)[0]
        by.setdefault(path, []).append(g)
    return by


def _types(tb):
    """('guard' or 'use', (type, type)) of a TypeError's message: an order comparison, or arithmetic; else None."""
    msg = tb.get("msg") or ""
    m = _ORDER.match(msg)
    if m:
        return "guards", (m.group("a"), m.group("b"))
    m = _ARITH.match(msg)
    if m:
        return "uses", ((m.group("a"), m.group("b")) if m.group("a") else (m.group("a2"), m.group("b2")))
    return None


def _norm(src):
    return " ".join((src or "").replace('"', "'").split())


def guard_of(tb):
    """The guard row the traceback's innermost frame is, with the operand types; None when it is not one."""
    if not tb or not tb.get("frames") or tb["exc"].rsplit(".", 1)[-1] != "TypeError":
        return None
    got = _types(tb)
    if not got or sorted(got[1])[1] != "str" or not (set(got[1]) - {"str"}) or not (set(got[1]) - {"str"}) <= \
            set(_NUMBER):
        return None
    file, _line, fn = tb["frames"][-1]
    p = _PKG.search(file.replace("\\", "/"))
    if not p:
        return None
    rows = _rows(got[0]).get(p.group(1).replace("\\", "/"))
    if not rows:
        return None
    src = _norm((tb.get("src") or [("", None)])[-1][0])
    if src:
        row = next((g for g in rows if _norm(g["line"]) == src), None)
    elif got[0] == "guards":  # no source line printed: the function must hold a guard
        row = next((g for g in rows if g["function"] == fn), None)
    else:
        row = None
    return dict(row, kind=got[0], types=got[1]) if row else None


def _user_expr(tb, names):
    """The expression the user's call passed for the guarded parameter (`lr=cfg["lr"]` -> 'cfg["lr"]'), read from the
    source line of the innermost frame of the user's code; None when it is not there."""
    frames, srcs = tb.get("frames") or [], tb.get("src") or []
    for (file, _line, _fn), (src, _focus) in zip(reversed(frames), reversed(srcs)):
        if pytb.where(file)[0] != "user":
            continue
        for name in names:
            base = re.sub(r"\[.*$", "", name.split(".")[-1])
            m = re.search(r"\b%s\s*=\s*([\w.]{1,80}(?:\[[^\]\n]{1,80}\]){0,4}|[\w.]{1,80}\([^()\n]{0,80}\))" % re.escape(base),
                          src or "")
            if m:
                return m.group(1)
        return None
    return None


def finding(scan, kb, tb, make):
    """config.yaml_string_number's finding for a traceback whose innermost frame is a hyperparameter guard given a
    string, or None. ``make``: analyze._structural_finding."""
    if "config.yaml_string_number" not in kb.by_id:
        return None
    row = guard_of(tb)
    if row is None:
        return None
    types = row["types"]
    name = row["names"][0]
    guard = row["kind"] == "guards"
    f = make(kb.by_id["config.yaml_string_number"], tb["hit"], "a TypeError %s %s with %s in `%s` (%s)" % (
        "comparing" if guard else "computing", types[0], types[1], row["line"], row["where"].rsplit(":", 1)[0]),
        scan, sure="medium")
    expr = _user_expr(tb, row["names"])
    user = pytb.last_user_frame(tb)
    f["notes"].append("%s %s the value it was given (`%s`) and got a str for %s: the value came in as a string "
                      "(a YAML 1.1 number without a dot such as 3e-4, a quoted value, or text from the command line "
                      "or the environment)%s." % (row["where"].rsplit(":", 1)[0], "checks" if guard else "computes with",
                                                  row["line"], name,
                                                  ", passed at your %s:%d" % user[:2] if user else ""))
    fixes = f["causes"][0]["fix"]
    count = guard and "int" in types  # compared with an int: a count (T_0, total_steps)
    if expr:
        fixes.insert(0, "cast it where it is passed: %s=%s, or write the number %s in the YAML file" % (
            name.split("[")[0].split(".")[-1], ("int(float(%s))" if count else "float(%s)") % expr,
            "as a plain integer (1000, not 1e3)" if count else "with a dot (3.0e-4 or 0.0003, not 3e-4)"))
    elif count:
        fixes.insert(0, "write the count as a plain integer in the YAML file (1000, not 1e3), or cast it with "
                        "int(float(value)) where the config is read")
    else:  # (the call that passed it is not in the traceback: a scheduler computes with it at step())
        base = name.split("[")[0].split(".")[-1]
        fixes.insert(0, "cast it where %s is passed: %s=float(<the value>), or write the number with a dot in the "
                        "YAML file (1.0e-6 or 0.000001, not 1e-6)" % (base, base))
    if user:
        fixes.append("open %s (line %d): the value passed there is a str" % (sh(user[0]), user[1]))
    return f
