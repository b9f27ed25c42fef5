"""The C++ check of torch that refused a call and what its condition asks for (explain-cxxguards32, issue 18: "name the
fix").

torch's C++ raises its refusals with TORCH_CHECK(cond, msg...) and its forms (c10/util/Exception.h): the message often
does not say what would have passed; the condition does (`TORCH_CHECK(device_index >= 0, "Device index must not be
negative")`, `TORCH_CHECK(self.dim() == 4, ...)`). generated/cxx_guards.json (tools/gen_cxx_guards.py, read statically
from the torch 2.13.0+cpu wheel's C++ headers and c10/core/Device.cpp) keeps per check its message matcher, the
function it is in, the condition (a check's own, or the `if` tests above a throw) and that condition read as what it
wants (its WANTS table).

Under the root's traceback (libarg.fill's hook, after callguard / callarg), this module:
  1. finds the check: the sites whose matcher finds the exception's message (the root's matched line when no traceback
     was read) and whose family, or hinted family (ATen's and autograd's tensor checks), is the root's; only when
     every such site reads the same condition;
  2. unless the site has its own fix (the generator's MSG_FIX, shown as the cause's already), adds one fix line after
     the cause's first, naming the C++ function, the condition that had to hold (or under
     which it throws), and what it wants, with the user's own line from the traceback; and a note naming the source.
The family never changes; a healthy log has no root and gets nothing. Every name written is the table's (torch's own
source) or a file path of the traceback, sh()-quoted.
"""

import re

from gpudoctor.explain import pytb
from gpudoctor.fixline import sh

MAX_MSG = 2000
_INDEX = None


def table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("cxx_guards")


def _squash(text):
    return "".join(text.lower().split())


def _index():
    """[(needles, compiled matcher, site)] of the sites with a condition and a family or hint, built once."""
    global _INDEX
    if _INDEX is None:
        rows = []
        for s in table().get("sites") or []:
            if not s.get("guard") or not s.get("re") or not (s.get("family") or s.get("hint")):
                continue
            try:
                rx = re.compile(s["re"], re.I)
            except re.error:
                continue
            rows.append((tuple(s.get("needles") or ()), rx, s))
        _INDEX = rows
    return _INDEX


def find(msg, family):
    """The one site whose matcher finds ``msg`` and whose family or hint is ``family``, or None (none, or sites that
    read different conditions)."""
    msg = (msg or "")[:MAX_MSG]
    if not msg.strip():
        return None
    low = _squash(msg)
    hits = [s for needles, rx, s in _index()
            if all(n in low for n in needles) and (s.get("family") or s.get("hint")) == family and rx.search(msg)]
    if not hits or len({(s["guard"], s.get("cond_is_check")) for s in hits}) != 1:
        return None
    return hits[0]


def _message(scan, f, tb):
    if tb and tb.get("msg"):
        return tb["msg"]
    for m in f.get("matches") or []:
        if m.get("text"):
            return m["text"]
    return None


def fill(scan, findings, tb):
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes"):
        return
    site = find(_message(scan, f, tb), f.get("family"))
    if site is None:
        return
    path = site["where"].rsplit(":", 1)[0]
    func = site.get("func") or "its caller"
    user = pytb.last_user_frame(tb) if tb else None
    where = " in your call at %s line %d" % (sh(user[0]), user[1]) if user and user[1] else ""
    if site.get("fix"):
        return  # (the site's own meaning and fix, from the code that prints it, is the cause's already)
    if site.get("cond_is_check"):
        want = site.get("wants") if site.get("wants") != site["guard"] else None
        line = "torch's C++ check in %s (%s) needs `%s` to hold%s: change %s so that it does" % (
            func, path, site["guard"], " (%s)" % want if want else "", "the value it reads%s" % where)
    else:
        line = "torch's C++ code in %s (%s) raises this when `%s` holds: change what your call gives it%s so " \
               "that it does not" % (func, path, site["guard"], where)
    fixes = f["causes"][0]["fix"]
    if line not in fixes:
        fixes.insert(min(1, len(fixes)), line)
    ver = (table().get("header") or {}).get("version", "")
    note = "The C++ check that refused it: %s at %s (%s; tools/gen_cxx_guards.py)." % (
        func, site["where"], ver.split(" of ")[0])
    if note not in f["notes"]:
        f["notes"].append(note)
