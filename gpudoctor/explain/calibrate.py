"""How sure the verdict is (issue 18 item 3, "never confidently wrong"): a root is stated as THE root
cause only when the answer itself says the text carries the evidence for it.

Every reader of explain already writes how sure its answer is, as the first 'How sure: high / medium /
low' note of the finding: a known message or a generated site says what failed (medium or high); a
family read from the text's shape (analyze.structural and its readers: the exception type, the
package whose frame raised, an NCCL WARN or Slurm line nothing knows), from the user's words
(symptoms.py) or from a hang's triage (hang.py) says 'How sure: low'. The verdict did not follow that
note: every one of them was `root_cause`.

bench/explain_calibration.py measures, on the seen sets by round, how often a root of each class
(its confidence, and how it was reached) has the right family, separately on the rounds its rule was
written after (out of sample) and before (in sample). At 0a04ae8 a root that says 'How sure: low'
had the right family in 74 of 98 out-of-sample answers (76%: the text's shape 45 of 55, the user's
words 13 of 22, a hang's triage 3 of 6), against 93% for the other roots (docs/explain.md,
"Calibration by round"). So such a root is answered with the verdict `likely_cause`: the same
finding, notes, causes and fixes (nothing is hidden), `matched` true and exit 0 as before, but not
called the root cause, and the families the text does not rule out are listed with what tells them
apart (`alternatives`). Each finding also says how it was reached (`basis`).
"""

import re

LIKELY = "likely_cause"
MAX_ALTERNATIVES = 4

# CPython raises these at the frame that ASKED for the name or passed the argument (Objects/moduleobject.c
# module_getattro: "module '%U' has no attribute '%U'"; Python/ceval.c import_from: "cannot import name '%U' from
# '%U'"; Python/ceval.c's argument binding: "%U() got an unexpected keyword argument '%S'"; Modules/_pickle.c:
# "'%s' is an invalid keyword argument for %s()"): the message names the name, not whose code asked for it. With that
# frame in the text, asker.py reads it; without it, the user's code (a release of the package older than the code)
# and another installed package (code.lib_api_version: two packages' releases that do not fit) both fit
_MISSING_NAME = re.compile(r"module '[A-Za-z_][\w.]{0,80}' has no attribute '\w{1,80}'|cannot import name '\w{1,80}' "
                           r"from '[A-Za-z_][\w.]{0,80}'|\(\) got an unexpected keyword argument '\w{1,80}'|"
                           r"'\w{1,80}' is an invalid keyword argument for \w{1,80}\(\)")
MAX_TEXT = 600  # characters of the root's line searched
ASKER_UNKNOWN = ("How sure: low. The message names a name or an argument that the installed release lacks, not whose "
                 "code asked for it: the traceback's frames are not in the text. Your own code (this answer), or "
                 "another installed package made for another release (code.lib_api_version): the frame above the "
                 "error line tells which.")

# the ways a Python exception read from the text's shape (no message of it is known) can go wrong, each with
# what in the text or on the machine tells it apart: the frame that raised, the versions, the message's own words
# (pytb.py reads the frames; upgrade.py the versions; the library's own message says what it refused)
_SHAPE = (
    ("code.exception", "your own code or data",
     "the traceback's last frame is a file of your own: the values that line passes are the cause"),
    ("{lib}.usage", "a call {lib} refuses (an argument or a value it does not accept)",
     "the message names an argument, a value or an allowed set: change that argument of your call into {lib}"),
    ("code.lib_api_version", "two installed packages' versions disagree",
     "an ImportError, an AttributeError for a module's name, or a TypeError for an argument, raised where one "
     "package calls another: pip show both; upgrade the one that called, or pin the other"),
    ("code.library_error", "a bug in {lib}",
     "the last frames are inside {lib} with arguments its documentation allows: search its issue tracker for the "
     "message, and upgrade it"),
)


def level(f):
    """The level of the finding's first 'How sure:' note: 'high', 'medium', 'low', or None."""
    for n in f.get("notes") or ():
        if isinstance(n, str) and n.startswith("How sure: "):
            words = n[len("How sure: "):].split(".", 1)[0].split()
            if words and words[0].strip(",;:") in ("high", "medium", "low"):
                return words[0].strip(",;:")
    return None


def basis(f):
    """How a finding was reached, from its own fields: 'words' (the user's sentences, symptoms.py), 'launch' (a
    launch line or launcher config), 'settings', 'info lines' (NCCL's INFO lines), 'hang' (a hang's triage),
    'shape' (no known message matched: the text's shape, analyze.structural), 'recorder' (Flight Recorder dumps),
    'site' (a generated message site of a pinned source), 'entry' (a hand-written entry's pattern)."""
    if f.get("from_words"):
        return "words"
    if f.get("from_launch"):
        return "launch"
    if f.get("from_settings"):
        return "settings"
    if f.get("triage"):
        return "hang"
    if f.get("from_info_lines"):
        return "info lines"
    if f.get("confidence") == "structural":
        return "shape"
    if f.get("confidence") == "log":
        return "recorder"
    if any(isinstance(n, str) and n.startswith("Known message of ") for n in f.get("notes") or ()):
        return "site"
    return "entry"


def _lib(f):
    """The package a shape answer names as the raiser ('transformers' of transformers.library_error), or None."""
    fam = f.get("family") or ""
    head = fam.split(".", 1)[0]
    return head if head and head not in ("code", "cascade", "errno", "cuda", "gpu") and "." in fam else None


def alternatives(f, result, kb=None):
    """The families a 'likely' root does not rule out, each {family, title, tell}: the hang triage's other
    causes, the other findings of the answer (not echoes), the other symptoms the user's words describe, and for a
    Python exception read from its shape the differential of where an exception comes from."""
    mine = {f.get("id"), f.get("family")}
    out, seen = [], set(mine)

    def add(fam, title, tell):
        if fam and fam not in seen and len(out) < MAX_ALTERNATIVES:
            seen.add(fam)
            out.append({"family": fam, "title": title, "tell": tell})

    for t in f.get("triage") or ():
        e = kb.by_id.get(t.get("entry")) if kb is not None and t.get("entry") else None
        if e is not None and e["family"] not in mine and t.get("entry") not in mine:
            add(e["family"], e["title"], t.get("tell_apart") or t.get("text") or "")
    for g in (result.get("findings") or ())[1:]:
        if g.get("role") == "cascade" or g.get("kind") == "echo":
            continue
        h = (g.get("matches") or [None])[0]
        add(g.get("family"), g.get("title", ""), "line %s of the text: %s" % (h["line"], h["text"][:160]) if h and
            h.get("line") else "")
    for n in result.get("context") or ():
        # the other symptoms the user's words describe (symptoms.py: 'Your words also describe'), each a reading of
        # the same sentences: the line that says which is the error line the words stand for
        e = kb.by_id.get(n.get("id")) if kb is not None and n.get("severity") == "words" else None
        if e is not None:
            add(e["family"], e["title"], "your line %s: %s" % (n.get("first_line"), (n.get("text") or "")[:160])
                if n.get("first_line") else "")
    if f.get("notes") and f["notes"][0] == ASKER_UNKNOWN:
        for fam, title, tell in _SHAPE[2:3] + _SHAPE[:1]:
            add(fam, title, tell)
    if f.get("confidence") == "structural" and any(isinstance(n, str) and "raise" in n for n in f.get("notes") or ()):
        lib = _lib(f) or "the library"
        for fam, title, tell in _SHAPE:
            if "{lib}" in fam:
                if _lib(f) is None or kb is None or fam.format(lib=lib) not in kb.by_id:
                    continue
                fam = fam.format(lib=lib)
            add(fam, title.format(lib=lib), tell.format(lib=lib))
    return out


def asker_unknown(root, scan):
    """A root a message gave (no 'How sure' note of its own) whose line is a name or an argument missing from an
    installed release (_MISSING_NAME), in a text with no traceback frame: who asked for it is not in the text."""
    if scan is None or root.get("basis") not in ("entry", "site") or level(root) is not None:
        return False
    if any(tb.get("frames") for tb in getattr(scan, "tracebacks", None) or ()):
        return False
    return any(_MISSING_NAME.search((m.get("text") or "")[:MAX_TEXT]) for m in (root.get("matches") or ())[:1])


def apply(result, kb=None, scan=None):
    """The verdict follows how sure the root says it is: a 'How sure: low' root is `likely_cause`, with the
    alternatives the text does not rule out. Every finding gets its `basis`. ``scan``: a root whose missing name's
    asker is not in the text says so first (asker_unknown)."""
    findings = result.get("findings") or []
    for f in findings:
        f.setdefault("basis", basis(f))
    if result.get("verdict") != "root_cause" or not findings:
        return result
    root = findings[0]
    if asker_unknown(root, scan):
        root["notes"].insert(0, ASKER_UNKNOWN)
    from gpudoctor.explain import neighbours

    near = neighbours.apply(result, kb, level)  # (struct23) the families the same text is also read as
    from gpudoctor.explain import differential

    differential.apply(result, kb, scan, level)  # (diff25) a root without its cause's line: the causes to tell apart
    if level(root) != "low":
        return result
    result["verdict"] = LIKELY
    root["alternatives"] = alternatives(root, result, kb)
    for n in near:  # (struct23) the neighbours, with what confirms each
        if kb is not None and n in kb.by_id and all(a["family"] != n for a in root["alternatives"]):
            c0 = kb.by_id[n]["causes"][0]
            root["alternatives"].append({"family": n, "title": kb.by_id[n]["title"],
                                         "tell": "; ".join((c0.get("confirm") or [])[:2]) or c0.get("text", "")})
    return result
