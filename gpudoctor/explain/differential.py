"""A differential for a root that names its family but not its cause (issue 18 item 3 and "name the fix").

Issue 18 item 3: "a generic phrase alone yields the family AND THE WAYS TO TELL THE CAUSES APART, not one cause".
Where the root's first cause has no evidence line of its own (the message names what failed, not why), the
answer's first causes become a short differential: the causes a user must tell apart, each with its concrete fix
and what tells it apart, drawn from

- the root entry's own causes;
- the causes of the other knowledge entries of the root's family (the same ``family``), and the causes an entry
  keeps for its differential only (``differential = true``: not listed by themselves, analyze._finding);
- the entries the seen labels name beside the root's (generated/neighbours.json, tools/gen_neighbours.py).

They are ranked by what the text does show: the names a cause is written with (an API call ``dist.new_group``, a
class ``LazyLinear``, a keyword argument ``device_ids=``, an option ``--nproc-per-node``, a variable
``NCCL_SOCKET_IFNAME``) that the text's error lines, traceback frames and source lines and launch lines hold, each
name counted only where few causes of the whole knowledge use it (a name most causes use tells none apart). Then
by a prior: how often each cause named the settled fix of the seen cases labelled with its family
(generated/differential_prior.json, tools/gen_differential_prior.py; the session's development held-out sets not
read). A cause of another entry joins only where the text shows its names (at most MAX_IMPORTS of them); the
differential is at most MAX_CAUSES long; the entry's other causes follow it, as before.

It never makes a root, never changes the root's id, family or verdict, and runs only on a root (so never on a
healthy log). Its "How sure" note says it is a differential. A reader's own first cause (the user's line, the
refused argument's edit) stays first. Called by calibrate.apply after neighbours.apply.
"""

import hashlib
import json
import re

MAX_CAUSES = 4  # the differential's length
MAX_IMPORTS = 2  # causes of other entries it may bring in
MAX_DF = 12  # a name used by more causes of the knowledge than this tells no cause apart
MAX_POOL = 1 << 16  # characters of the text's lines searched for names
MAX_SHOWN = 3  # names quoted per cause
WHEN_SCORE = 100.0  # a cause whose `when` lines the text holds
OTHER_WEIGHT = 0.5  # a cause of another entry (the family's others, a neighbour) against the root entry's own

# names a cause is written with: a --long-option, a keyword argument (name=), a dotted name (dist.new_group,
# torch.cuda.set_device), an ENV_VAR or snake_case name, a CamelCase class; bounded, linear
_TOKEN = re.compile(r"(?<![\w-])--[a-z][a-z0-9_-]{2,40}(?![\w-])"
                    r"|(?<![\w.])[A-Za-z_][A-Za-z0-9_]{0,40}(?:\.[A-Za-z_][A-Za-z0-9_]{0,40}){1,4}(?![\w])"
                    r"|(?<![\w.])[A-Za-z_][A-Za-z0-9_]{1,40}=(?!=)"
                    r"|(?<![\w.])[A-Za-z][A-Za-z0-9]{0,30}_[A-Za-z0-9_]{0,40}[A-Za-z0-9](?![\w.])"
                    r"|(?<![\w.])[A-Z][a-z0-9]{1,20}(?:[A-Z][a-z0-9]{0,20}){1,5}(?![\w.])")
_SKIP = {"e.g", "i.e", "etc.", "a.k.a", "vs."}
_PLAIN = re.compile(r"^[a-z]{1,3}\.[a-z]{1,3}$")  # 'e.g', 'i.e', 'x.y' (no API of two short words here)
# a frame of an installed package or of the interpreter's own library (pytb.where reads the same paths)
_LIBRARY = re.compile(r"[/\\\\](?:site|dist)-packages[/\\\\]|[/\\\\]lib[/\\\\]python\d|^<frozen |^<string>")

_DF = {}  # id(kb) -> {token: number of causes whose words hold it}
_PRIOR = None


# launchers and programs a cause may name by their plain word (torchrun, mpirun, srun, ...): the launchers here and
# the programs of generated/programs.json (tools/gen_programs.py: the executables of Debian's MPI, Slurm, ssh, pdsh,
# rdma and container packages, and the documented GPU tools)
_LAUNCHERS = {"torchrun", "deepspeed", "accelerate", "mpirun", "mpiexec", "srun", "sbatch", "salloc", "horovodrun",
              "pdsh", "ssh", "docker", "podman", "apptainer", "singularity", "enroot", "kubectl", "jsrun", "aprun"}
_PROGRAMS = None
_PLAIN_WORD = re.compile(r"(?<![\w./-])[a-z][a-z0-9_-]{2,30}(?![\w/-])")


def _programs():
    global _PROGRAMS
    if _PROGRAMS is None:
        from gpudoctor.explain.knowledge import generated_table

        _PROGRAMS = frozenset(_LAUNCHERS | {p for p in generated_table("programs").get("programs") or {}
                                            if len(p) >= 4 and p.isascii()})
    return _PROGRAMS


def tokens(text):
    """The names a text is written with (lower-cased), as a set."""
    out = set()
    progs = _programs()
    for m in _PLAIN_WORD.finditer((text or "")[:4096]):
        if m.group(0) in progs:
            out.add(m.group(0))
    for m in _TOKEN.finditer((text or "")[:4096]):
        t = m.group(0)
        if t in _SKIP or _PLAIN.match(t) or t.startswith(("http", "www.")):
            continue
        t = t.lower()
        out.add(t)
        if "." in t and not t.endswith("="):  # the last part of a dotted name: dist.new_group -> new_group
            last = t.rsplit(".", 1)[1]
            if "_" in last or any(c.isupper() for c in m.group(0).rsplit(".", 1)[1][1:]):
                out.add(last)
    return out


def cause_words(c):
    """A knowledge cause's names: its text, fix and confirm lines (what it is, what to change, what tells it)."""
    return tokens(" \n".join([c.get("text") or ""] + list(c.get("fix") or []) + list(c.get("confirm") or [])))


def tell_words(c):
    """The names that tell a cause apart: those of its text and confirm lines (what it is, what to look for). Its fix
    lines' names are the remedy's words (F.cross_entropy in a loss's fix, nn.Linear in a layer's), which a text shows
    for other reasons."""
    return tokens(" \n".join([c.get("text") or ""] + list(c.get("confirm") or [])))


def cause_key(entry_id, c):
    """A knowledge cause's stable key in the prior table: its entry and a digest of its text."""
    return "%s#%s" % (entry_id, hashlib.sha1((c.get("text") or "").encode("utf-8")).hexdigest()[:12])


def _df(kb):
    got = _DF.get(id(kb))
    if got is None:
        got = {}
        for e in kb.entries:
            for c in e.get("causes") or ():
                for t in cause_words(c):
                    got[t] = got.get(t, 0) + 1
        _DF.clear()
        _DF[id(kb)] = got
    return got


def _prior():
    global _PRIOR
    if _PRIOR is None:
        from gpudoctor.explain.knowledge import generated_table

        _PRIOR = generated_table("differential_prior").get("prior") or {}
    return _PRIOR


def _pool(result, scan):
    """The lines the text shows about the failure: every finding's matched lines, the error lines, each traceback's
    exception, frames and source lines, the launch lines; lower-cased, bounded."""
    parts = []
    for f in result.get("findings") or ():
        parts += [m.get("text") or "" for m in (f.get("matches") or ())[:8]]
    if scan is not None:
        parts += [getattr(h, "text", "") or "" for h in (getattr(scan, "errors", None) or ())[:40]]
        for tb in (getattr(scan, "tracebacks", None) or ())[:8]:
            parts.append("%s: %s" % (tb.get("exc") or "", tb.get("msg") or ""))
            # the user's own frames and the source lines CPython printed under them (a library's own lines name
            # its internals, which tell no cause apart)
            frames, srcs = tb.get("frames") or (), tb.get("src") or ()
            for k, fr in enumerate(frames[:40]):
                if not fr or _LIBRARY.search(str(fr[0] or "")):
                    continue
                parts.append(" ".join(str(x) for x in fr[1:3] if x is not None))
                if k < len(srcs) and srcs[k] and srcs[k][0]:
                    parts.append(srcs[k][0])
            user = tb.get("user")
            if user and len(user) > 3 and user[3] and user[3][0]:
                parts.append(user[3][0])
        paste = getattr(scan, "paste", None)
        for rows in ((paste.launches, paste.sbatch, paste.envs) if paste is not None else ()):
            for row in rows[:20]:
                parts += [x for x in (row if isinstance(row, (tuple, list)) else (row,)) if isinstance(x, str)]
    out, n = [], 0
    for p in parts:
        p = p[:4096]
        n += len(p) + 1
        if n > MAX_POOL:
            break
        out.append(p)
    return "\n".join(out).lower()


def shown(words, pool, df):
    """The names of ``words`` that the pool holds as whole names and few causes use, rarest first."""
    got = []
    for t in words:
        n = df.get(t, 0)
        if n > MAX_DF or len(t) < 4:
            continue
        if t.endswith("="):
            if re.search(r"(?<![\w.])%s ?=" % re.escape(t[:-1]), pool):
                got.append((n, t))
        elif t in pool and re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(t), pool):
            got.append((n, t))
    got.sort()
    return [t for _, t in got]


def _score(names, df):
    """Rarer names weigh more: 1 for a name one cause uses, 1/n for one that n causes use."""
    return sum(1.0 / max(1, df.get(t, 1)) for t in names)


def _when_ok(c, pool):
    """A cause listed only where its `when` lines are: each regex must find something in the text's lines."""
    for w in c.get("when") or ():
        try:
            if not re.search(w, pool, re.I):
                return False
        except re.error:
            return False
    return True


def _candidates(root, e, kb):
    """[(entry, cause index, origin)] of the root's family: its entry's, the family's other entries', the
    neighbours'."""
    from gpudoctor.explain import neighbours

    fam = e.get("family") or e["id"]
    out = [(e, i, "own") for i in range(len(e["causes"]))]
    for other in kb.entries:
        if other is e or other.get("kind") != "error" or (other.get("family") or other["id"]) != fam:
            continue
        out += [(other, i, "family") for i in range(len(other["causes"]))]
    for nid, _ in neighbours.of([root.get("id"), root.get("family")], kb, {root.get("id")}) + \
            _more_neighbours(root, kb):
        other = kb.by_id.get(nid)
        if other is None or other is e or (other.get("family") or other["id"]) == fam:
            continue
        out += [(other, i, "neighbour") for i in range(len(other["causes"]))]
    return out


def _more_neighbours(root, kb):
    """The neighbours beyond neighbours.of's first two (the differential weighs each by the text)."""
    from gpudoctor.explain import neighbours

    rows = neighbours._table().get(root.get("id") or "") or neighbours._table().get(root.get("family") or "") or []
    return [(n, k) for n, k in rows[neighbours.MAX_NEIGHBOURS:12]
            if n in kb.by_id and kb.by_id[n].get("kind") == "error"]


def _as_cause(other, c, origin, names):
    if origin == "neighbour":
        head = "Neighbouring family %s (%s): " % (other["id"], other["title"])
    elif origin == "family":
        head = "Another entry of this family (%s: %s): " % (other["id"], other["title"])
    else:
        head = ""
    confirm = list(c.get("confirm") or []) or list(other.get("debug") or [])[:1]
    return {"text": head + c["text"], "checks": list(c.get("checks") or []), "confirm": confirm,
            "fix": list(c["fix"]), "exports": dict(c.get("exports") or {}), "evidence": [],
            "static_rank": 0, "computed": None,
            "differential": {"entry": other["id"], "shows": names[:MAX_SHOWN]}}


def apply(result, kb, scan, level):
    """Rank the root's causes (and the family's, the neighbours') by what the text shows, then by the prior; at most
    MAX_CAUSES first. ``level``: calibrate.level. Returns the differential's causes' entry ids ([] when none)."""
    findings = result.get("findings") or []
    if kb is None or not findings or result.get("verdict") not in ("root_cause", "likely_cause"):
        return []
    root = findings[0]
    e = kb.by_id.get(root.get("id"))
    causes = root.get("causes") or []
    if e is None or e.get("kind") != "error" or root.get("kind") == "echo" or root.get("role") not in ("root", None) \
            or not causes or causes[0].get("evidence") or level(root) == "high":
        return []
    pool = _pool(result, scan)
    if not pool:
        return []
    df = _df(kb)
    prior = _prior()
    sr0 = causes[0].get("static_rank") or 0
    kc0 = e["causes"][sr0 - 1] if 0 < sr0 <= len(e["causes"]) else None
    if kc0 is not None and kc0.get("when"):
        return []  # (listed because its own lines are in the text: a known bug where the version is printed)
    keep = causes[0]  # the family's lead (its entry's first, or a reader's own: the user's line) stays first
    ranked = []
    listed = set()
    # the causes right after the lead with lines of their own in the text (the settings a paste shows) keep their
    # places: the differential ranks only what follows them
    shown_ = []
    for c in causes[1:]:
        if not c.get("evidence"):
            break
        shown_.append(c)
    for pos, c in enumerate(causes):
        if c is keep or any(c is x for x in shown_):
            continue
        sr = c.get("static_rank") or 0
        kc = e["causes"][sr - 1] if 0 < sr <= len(e["causes"]) else None
        words = tell_words(kc or c)
        if kc is not None:
            listed.add(sr - 1)
        names = shown(words, pool, df)
        p = (prior.get(cause_key(e["id"], kc)) or 0) if kc is not None else 0
        # a cause listed because its `when` lines are in the text (the watchdog's Timeout(ms), a printed version)
        # keeps its place ahead of those the text shows only names of
        ranked.append([WHEN_SCORE if kc is not None and kc.get("when") else _score(names, df), p, 0, pos, c, names])
    for other, i, origin in _candidates(root, e, kb):
        c = other["causes"][i]
        if origin == "own" and (i in listed or not c.get("differential")):
            continue  # (listed already, or hidden by its `when`)
        if not _when_ok(c, pool):
            continue
        names = shown(tell_words(c), pool, df)
        if not names or (origin != "own" and len(names) < 2 and df.get(names[0], 99) > 2):
            continue  # a cause joins only where the text shows its names (another entry's: two, or one few use)
        # another entry's cause weighs half: the root's entry is the family the message names
        ranked.append([_score(names, df) * (1.0 if origin == "own" else OTHER_WEIGHT),
                       prior.get(cause_key(other["id"], c)) or 0, 0 if origin == "own" else 1, i,
                       _as_cause(other, c, origin, names), names])
    if not any(r[0] > 0 for r in ranked):
        return []
    ranked.sort(key=lambda r: (-r[0], -r[1], r[2], r[3]))
    top, imports = [], 0
    for r in ranked:
        if len(top) == MAX_CAUSES or r[0] <= 0:
            break  # (ranked: the causes whose names the text shows come first; the others keep their order below)
        if any(x[4]["text"] == r[4]["text"] for x in top):
            continue
        if r[2]:
            if imports == MAX_IMPORTS:
                continue
            imports += 1
        top.append(r)
    if not top:
        return []
    chosen = [r[4] for r in top]
    rest = [c for c in causes if c is not keep and all(c is not x for x in chosen + shown_)]
    order = ([keep] if keep is not None else []) + shown_ + chosen + rest
    if [id(c) for c in order] == [id(c) for c in causes]:
        return []
    for r in top:
        if r[5] and r[2] == 0:
            r[4].setdefault("differential", {"entry": e["id"], "shows": r[5][:MAX_SHOWN]})
    root["causes"] = order
    names = []
    for r in top:
        names += [t for t in r[5][:MAX_SHOWN] if t not in names]
    after = " after the first" if keep is not None else ""
    which = ("the %s causes%s below are the ones" % (len(top), after) if len(top) > 1
             else "the cause%s below is the one" % after)
    note = ("A differential: no line of the text proves one cause, so %s to tell apart, ranked by the names the "
            "text shows (%s), then by how often each was the settled cause of seen texts of this family; each says "
            "how to confirm it." % (which, ", ".join(names[:6])))
    notes = root.setdefault("notes", [])
    for k, n in enumerate(notes):
        if isinstance(n, str) and n.startswith("How sure: "):
            notes[k] = n.rstrip() + " " + note
            break
    else:
        notes.append(note)  # (no How sure of its own to join: a note without a level would read "How sure: A ...")
    return [(r[4].get("differential") or {}).get("entry") for r in top]


def dump(kb):
    """(tests) the names of every knowledge cause, as JSON."""
    return json.dumps({cause_key(e["id"], c): sorted(cause_words(c)) for e in kb.entries for c in e["causes"]})
