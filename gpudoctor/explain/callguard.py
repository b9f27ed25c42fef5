"""The call a library refused and the argument or state its check read (callfix26, issue 18: "name the fix").

A torch.distributed / FSDP / DeviceMesh / DTensor / DDP, torch.cuda, accelerate or transformers Trainer refusal is
raised under a test in the library's source (`if world_size < group_size: raise ValueError(...)`,
`if not self._use_orig_params: raise ...`). The message often does not say which argument of which public call the
test read; the source does. generated/call_guards.json (tools/gen_call_guards.py, read statically from the pinned
wheels) keeps per raise site its message matcher, the function that raises, the public callables of its module that
reach it, the test it sits under (as written), the function's parameters that test reads and the `self.X` state it
reads (a constructor argument kept as `self._X` named as that argument).

Under the root's traceback (libarg.fill's hook, after paramdocs / apinotes), this module:
  1. finds the site: one whose matcher finds the exception's message and whose file and function are a library
     frame of the traceback (the raise itself, or a frame under the user's call); without such a frame, the message
     alone when every site it matches reads the same arguments and state;
  2. when the test reads an argument or a state (nothing to name else), adds one fix line after the cause's first:
     the public call (the one the traceback passes through, else the table's), the test that held, what to change
     (the argument, or the constructor argument that set the state), with the argument's documented words
     (generated/param_docs.json, paramdocs.lookup) when the documentation has them, and a note naming the source.
The family never changes; a healthy log has no root and gets nothing. Every name written is the table's (the
libraries' own source) or a file path of the traceback, sh()-quoted.
"""

import re

from gpudoctor.explain import paramdocs, pytb, userline
from gpudoctor.fixline import sh

MAX_MSG = 2000
MAX_DOC = 160
_INDEX = None


def table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("call_guards")


def _index():
    """[(compiled matcher, site)] and {(file, function name): [site]}, built once per process."""
    global _INDEX
    if _INDEX is None:
        rows, by_frame = [], {}
        for s in table().get("guards") or []:
            if not (s.get("params") or s.get("state")) or not s.get("re"):
                continue
            try:
                rx = re.compile(s["re"], re.I)
            except re.error:
                continue
            rows.append((rx, s))
            by_frame.setdefault((s["where"].rsplit(":", 1)[0], s["func"].rsplit(".", 1)[-1]), []).append((rx, s))
        _INDEX = (rows, by_frame)
    return _INDEX


def _reads(s):
    return (tuple(s.get("params") or ()), tuple(s.get("state") or ()))


def find(tb):
    """(site, the library frame that matched or None) of the traceback's refusal, or None."""
    msg = (tb.get("msg") or "")[:MAX_MSG] if tb else ""
    if not msg.strip():
        return None
    rows, by_frame = _index()
    for file, line, fn in reversed(tb.get("frames") or []):
        rel = paramdocs.site_path(file)
        if not rel:
            continue
        for rx, s in by_frame.get((rel, fn), ()):
            if rx.search(msg):
                return s, (file, line, fn)
    if any(paramdocs.site_path(file) for file, _l, _f in tb.get("frames") or []):
        return None  # the raise is in library frames none of which is a site: another library's (or release's) check
    hits = [s for rx, s in rows if rx.search(msg)]
    if hits and len({_reads(s) for s in hits}) == 1 and len({s["func"] for s in hits}) == 1:
        return hits[0], None
    return None


def _short(q):
    """A public name as a person writes it: torch.distributed.distributed_c10d.new_subgroups ->
    torch.distributed.new_subgroups (c10d's callables are torch.distributed's: torch/distributed/__init__.py)."""
    return q.replace("torch.distributed.distributed_c10d.", "torch.distributed.")


def _doc(api, param):
    calls = paramdocs.table().get("callables") or {}
    for q in api:
        rec = (calls.get(q) or {}).get("params", {}).get(param)
        if rec and rec.get("doc"):
            d = " ".join(rec["doc"].split())
            d = d if len(d) <= MAX_DOC else d[:MAX_DOC - 6] + " [...]"
            more = []
            if rec.get("choices"):
                more.append("its documented choices: %s" % ", ".join("%s=%r" % (param, c) for c in rec["choices"][:6]))
            if rec.get("default") is not None:
                more.append("default %s=%s" % (param, rec["default"]))
            return q, d + ("" if not more else " (%s)" % "; ".join(more))
    return None


def _called(tb, site):
    """The public call of the site that the traceback passes through (its frame's function), else the table's."""
    api = site.get("api") or []
    names = {fn for _f, _l, fn in tb.get("frames") or []}
    for q in api:
        last = q.rsplit(".", 1)[-1]
        if last in names or (last[:1].isupper() and "__init__" in names):
            return q
    return api[0] if len(api) == 1 else None


# frames a decorator or nn.Module's call machinery puts between the user's line and the function it called
_PASS = {"wrapper", "inner", "wrapped", "_fn", "decorate_context", "_wrapped_call_impl", "_call_impl", "__call__",
         "wrapper_fn", "_wrapper"}


def _entry(tb):
    """The function the user's own line called: the first library frame under the innermost user frame that is not
    a decorator's or nn.Module's pass-through; None when the traceback does not tell."""
    frames = tb.get("frames") or []
    k = max((i for i, fr in enumerate(frames) if pytb.where(fr[0])[0] == "user"), default=None)
    if k is None:
        return None
    return next((fn for _f, _l, fn in frames[k + 1:] if fn not in _PASS and not fn.startswith("<")), None)


def fill(scan, findings, tb):
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes") or not tb:
        return
    got = find(tb)
    if not got:
        return
    site, frame = got
    params, state = _reads(site)
    api = _called(tb, site)
    what = []
    handed = (site.get("passed") or {}).get(api) or {}
    args = list(params)
    for p in site.get("inner") or ():
        h = handed.get(p)
        if not h or h in args:
            continue
        # torch's point-to-point calls take dst= (global) or group_dst= (the group's rank) and turn the one given
        # into group_dst (_canonicalize_group_rank, https://github.com/pytorch/pytorch/blob/main/torch/distributed/
        # distributed_c10d.py): a user who passed dst= is named that argument too, first
        bare = h[len("group_"):] if h.startswith("group_") else None
        if bare and bare not in args and _doc(([api] if api else []) + list(site.get("api") or []), bare):
            args.append(bare)
        args.append(h)
    entry = _entry(tb)
    last = (api or site["func"]).rsplit(".", 1)[-1]
    through = entry if entry and entry not in (last, site["func"].rsplit(".", 1)[-1]) and not (
        entry == "__init__" and last[:1].isupper()) and userline.ident(entry, None) else None
    if through == "__init__":
        through = "the constructor"
    for p in args:
        # (the user called another function that reached this one: its arguments are that call's to hand on)
        what.append("what your call to %s hands on as %s" % (through, p) if through else
                    "%s= (an argument of the call)" % p)
    inner = [p for p in site.get("inner") or () if p not in params and not handed.get(p)]
    if what and inner:
        what.append("what the call hands on as %s" % " / ".join(inner))
    for st in state:
        if st.startswith("self."):
            what.append("the state %s that the object had when called (what your code did to it before)" % st)
        else:
            what.append("%s= (the object's constructor argument that set it)" % st)
    if not what:
        return
    user = pytb.last_user_frame(tb)
    where = " in your call at %s line %d" % (sh(user[0]), user[1]) if user and user[1] else ""
    call = _short(api) if api else _short(site["func"])
    line = "%s%s refuses this when `%s` holds (%s, in %s): change %s%s so that it does not" % (
        "your call to %s reaches " % through if through else "", call + (", which" if through else ""),
        site["guard"], site["where"].rsplit(":", 1)[0], site["func"].rsplit(".", 1)[-1],
        ", ".join(what), where)
    docs = []
    for name in args + [s for s in state if not s.startswith("self.")]:
        d = _doc(([api] if api else []) + list(site.get("api") or []), name)
        if d:
            docs.append("%s (%s): \u201c%s\u201d" % (name, _short(d[0]), d[1]))
    if docs:
        line += "; documented: " + "; ".join(docs[:2])
    fixes = f["causes"][0]["fix"]
    if line not in fixes:
        fixes.insert(min(1, len(fixes)), line)
    ver = table().get("header", {}).get("version", "")
    note = "The check that refused it: %s%s raises at %s under `%s` (%s; tools/gen_call_guards.py)." % (
        _short(site["func"]), " (reached from %s)" % _short(api) if api and api != site["func"] else "",
        site["where"], site["guard"], ver.split(",")[0] if frame is None else
        next((v.strip() for v in ver.split(",") if v.strip().startswith(site["package"] + " ")), ver[:60]))
    if note not in f["notes"]:
        f["notes"].append(note)
