"""The remedy a project's own documentation gives for an error message it quotes (docs20, issue 18):
generated/doc_remedies.json (tools/gen_doc_remedies.py) holds, per section of a troubleshooting / FAQ / guide page
that quotes an error message and says what to do, the message's fragments (the literal text between the values a
user's text prints differently), the section's remedy sentences, the page URL with the heading's anchor and the
family of the project.

``apply(result, scan, kb)``: when a failure line of the text (an error line the scan kept, never an INFO / WARN line,
or a traceback's message) holds a documented fragment:
  - with a root finding, the documented remedy joins the root's causes as a cause of its own, below the causes the
    text proves (a generated site's own cause of this message, a cause with evidence or a computed fix) and below
    the answer's first cause (a knowledge entry's most likely one, which the page's remedy - often a debugging step,
    'run it on the CPU first' - does not replace; a structural answer's reading of the text's own words), when the
    line is the root's (within NEAR lines of one of its matched lines) or the root's family area is the project's;
  - with no answer (unknown_error), the project's family is the answer, How sure: low, the documented remedy its
    first cause. (A page may quote another program's message - vLLM's troubleshooting page quotes CPython's
    multiprocessing bootstrapping error, transformers' a CUDA device assert - which the knowledge's own entries
    answer first; the page's remedy then joins that answer as a cause.)
Either way the fragment must be LONG words or more, or the text must name the project (its name in an error line, a
traceback's frame or exception): a short fragment may be another program's words, and the page's remedy is for the
project's users (JobSet's troubleshooting page quotes the API server's 'no endpoints available for service', which
every operator's webhook prints; peft's quotes torch's 'Attempting to unscale FP16 gradients', whose peft remedy,
cast_mixed_precision_params, is no fix outside peft). A healthy log (no_error) is never read. Matching is linear in the line: a fragment is looked up by its first
KEY_WORDS words, then compared word by word (the whole fragment, or LONG words of a longer one in a row from its
start), as srcprov.py matches the projects' literals.
"""

import re

from gpudoctor.explain.text import clip as _clip
from gpudoctor.explain.text import strip_prefix

KEY_WORDS = 4
LONG = 8
NEAR = 12
MAX_LINES = 64
_WORD = re.compile(r"[^\s]{1,80}")
_STRIP = ".,;:'\"()[]`"
_STATE = {}


def _table():
    if "index" in _STATE:
        return _STATE
    from gpudoctor.explain.knowledge import generated_table

    rows = generated_table("doc_remedies").get("sections") or []
    index = {}
    _STATE["symptoms"] = [row for row in rows if row.get("symptom") and row.get("terms")]
    for i, row in enumerate(rows):
        for fr in row.get("fragments") or ():
            words = [w for w in (w.strip(_STRIP) for w in fr.split()) if w]
            if len(words) >= KEY_WORDS:
                index.setdefault(" ".join(words[:KEY_WORDS]), []).append((words, i))
    _STATE.update(index=index, rows=rows)
    return _STATE


def _words(text):
    return [w for w in (w.strip(_STRIP).lower() for w in _WORD.findall(text[:4000])) if w][:300]


def sections_of(text):
    """[(section row, words matched)] of the documented sections whose message fragment ``text`` holds, the longest
    match first."""
    st = _table()
    index, words, got = st["index"], _words(text), {}
    for i in range(max(0, len(words) - KEY_WORDS + 1)):
        for frw, ri in index.get(" ".join(words[i:i + KEY_WORDS]), ()):
            n = 0
            while n < len(frw) and i + n < len(words) and words[i + n] == frw[n]:
                n += 1
            if n == len(frw) or n >= LONG:
                got[ri] = max(got.get(ri, 0), n)
    return [(st["rows"][ri], n) for ri, n in sorted(got.items(), key=lambda x: (-x[1], x[0]))]


def _failure_texts(scan):
    """[(line, hit, text)] of the text's failure lines: the scan's error lines (never INFO / WARN) and the tracebacks'
    messages (with the lines the message goes on over)."""
    out = []
    for tb in scan.tracebacks:
        hit = tb.get("hit")
        if hit is not None:
            out.append((tb["line"], hit, "%s: %s %s" % (tb.get("exc") or "", tb.get("msg") or "",
                                                         tb.get("more") or "")))
    for h in scan.errors[:MAX_LINES]:
        if h.severity in ("info", "warn"):
            continue
        out.append((h.line, h, strip_prefix(h.text.strip())[0]))
    out.sort(key=lambda x: x[0])
    return out


def names_project(scan, project):
    """Whether the text names the project: its name (or with '_' for '-') in an error line, a traceback's exception or
    one of its frames' files."""
    names = [re.escape(n) for n in sorted({project, project.replace("-", "_")})]
    if project in _PROJECT_NAME:  # (its package's own spellings: pytorch_lightning, lightning_fabric)
        names.append(_PROJECT_NAME[project])
    rx = re.compile(r"(?<![\w-])(?:%s)(?![\w])" % "|".join(names), re.I)
    for tb in scan.tracebacks:
        if rx.search(tb.get("exc") or "") or any(rx.search(str(fr[0])) for fr in (tb.get("frames") or ())[:64]):
            return True
    return any(rx.search(h.text or "") for h in scan.errors[:MAX_LINES])


def _of(project):
    return project + ("'" if project.endswith("s") else "'s")


_DISPLAY = {"pytorch": "PyTorch", "torch-api": "PyTorch"}  # (docfix27: the torch pages' and docstrings' rows)


def cause(row):
    """A cause dict from a documented section."""
    where, who = row["heading"], _of(_DISPLAY.get(row["project"], row["project"]))
    text = "%s documentation quotes this message in '%s' (%s)" % (who, _clip(where, 120), row["url"])
    fix = ["%s documentation ('%s'): %s" % (who, _clip(where, 80), _clip(f, 400)) for f in row["fix"][:3]]
    fix.append("read %s for the documented cases and fixes" % row["url"])
    return {"text": text, "checks": [], "confirm": [], "fix": fix, "exports": {}, "evidence": [], "static_rank": 0,
            "computed": None, "doc_section": row["url"]}


def _proven(c, root):
    """Whether a cause is one the text proves: evidence, a computed fix, a documented class's, or a generated site's
    own cause of this message (static_rank 0 on a finding that is not a structural family answer)."""
    return bool(c.get("evidence") or c.get("computed") or c.get("documented") or
                (c.get("static_rank") == 0 and c.get("evidence") is not None and
                 root.get("confidence") != "structural"))


def _area(eid):
    return (eid or "").split(".", 1)[0]


# (review20) a project's name as a text shows it: its package in a traceback's path or an exception's module, a
# logger's name, the program's own name on a line
_PROJECT_NAME = {"lightning": r"(?:pytorch_)?lightning|lightning_fabric", "megatron-bridge": r"megatron",
                 "megatron": r"megatron"}


def _shows_project(scan, root, project):
    """Whether the text names the project whose page quotes the message: its name or package as a word of a
    traceback's frames or exception, of an error line or of a line the root matched."""
    rx = re.compile(r"(?<![\w-])(?:%s)(?![\w-])" % _PROJECT_NAME.get(project, re.escape(project)), re.I)
    texts = [m.get("text") or "" for m in root.get("matches") or []]
    for tb in getattr(scan, "tracebacks", None) or ():
        texts.append(tb.get("exc") or "")
        texts.extend(str(f[0]) for f in tb.get("frames") or ())
    texts.extend(h.text for h in (getattr(scan, "errors", None) or [])[:MAX_LINES])
    return any(rx.search(t[:2000]) for t in texts)


def _related(root, row, line, scan=None):
    """Whether the section speaks to the root's failure: the root's family area is the project's (or the family the
    section's message belongs to), or the text shows the project and the line is the root's. A page may quote a
    message another program prints (CUDA's 'an illegal memory access was encountered' on verl's FAQ, torch's 'CUDA out
    of memory' with transformers' TrainingArguments, 'no kernel image is available' with DeepSpeed's build from
    source): its remedy is that project's, and reads wrong for a text of another program (review20)."""
    if _area(root.get("family") or root.get("id")) == _area(row["family"]) or \
            _area(root.get("id")) == _area(row["family"]):
        return True
    lines = [m["line"] for m in root.get("matches") or [] if isinstance(m.get("line"), int)]
    if not any(abs(line - ln) <= NEAR for ln in lines):
        return False
    return scan is None or _shows_project(scan, root, row["project"])


# ------------------------------------------------------------------------------------------------ symptoms (docfix27)
# A reference page (PyTorch's notes: multiprocessing, DataLoader's multi-process loading, the FAQ) states what to do
# about a failure without quoting its message: the row keeps the identifiers the section writes as code ('terms':
# fork, spawn, set_start_method; file_descriptor, file_system; collate_fn, worker_init_fn, pickle). Under a root, its
# traceback's exception names enough of them: TERMS_MIN different terms in the exception's message and the library
# frames that raised it (their functions and module paths), one at least in the message itself. The user's own
# frames and line never count (a script names every API it uses, the failure only the one that broke).
TERMS_MIN = 2
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]{1,60}")
_LIB = re.compile(r"(?:site|dist)-packages/|/lib/python3[.\d]*/|^<frozen ")
_SUFFIX = ("", "s", "ed", "ing", "er", "ers")


def _tokens(text):
    out = set()
    for t in _TOKEN.findall(text[:4000]):
        t = t.lower()
        out.add(t)
        out.update(p for p in t.split("_") if len(p) >= 3)
    return out


def _has(tokens, term):
    if term in tokens:
        return True
    if len(term) < 4:
        return False
    return any(tok.startswith(term) and tok[len(term):] in _SUFFIX for tok in tokens)


def _frame_tokens(tb):
    """The library frames' function names and file names (not their folders: torch/multiprocessing/ is on the path
    of every spawned process's traceback, whatever failed)."""
    out = set()
    for fr in (tb.get("frames") or ())[:64]:
        path, fn = str(fr[0]), str(fr[2] if len(fr) > 2 else "")
        if not _LIB.search(path):
            continue
        out |= _tokens(path.rsplit("/", 1)[-1].replace(".py", " ") + " " + fn)
    return out


def symptom_rows(tb):
    """[(row, [terms matched])] of the symptom rows a traceback's exception names (see above), the most terms first."""
    st = _table()
    # the exception's class by its own name (a module path such as torch.multiprocessing.spawn.ProcessRaisedException
    # says where it was raised, which the frames tell) and its message
    msg = _tokens("%s %s %s" % ((tb.get("exc") or "").rsplit(".", 1)[-1], tb.get("msg") or "", tb.get("more") or ""))
    frames = _frame_tokens(tb)
    got = []
    for row in st["symptoms"]:
        if row.get("api"):
            # a docstring's block: its API must be the one that failed - the message names it ('... or
            # set_num_interop_threads called'), or a frame of the traceback is the API's own (its module file and
            # function: torch/serialization.py's load, not any 'load'); then one more of its terms in the message
            api = row["terms"][0]
            named = "_" in api and api in msg
            fr = row.get("frame")
            framed = bool(fr) and any(str(f[0]).endswith("/" + fr[0]) and len(f) > 2 and f[2] == fr[1]
                                      for f in (tb.get("frames") or ())[:64])
            if not (named or framed):
                continue
            more = [t for t in row["terms"][1:] if _has(msg, t)]
            if more or (named and len(row["terms"]) == 1):  # (a block about more than its API: one of those too)
                got.append((row, [api] + more))
            continue
        in_msg = [t for t in row["terms"] if _has(msg, t)]
        if not in_msg:
            continue
        hit = in_msg + [t for t in row["terms"] if t not in in_msg and _has(frames, t)]
        if len(hit) >= TERMS_MIN:
            got.append((row, hit))
    # the most terms named, then the section about fewer things (a share-first order put a small section with
    # generic terms - Hogwild's multiprocessing / fork - above the one about the failure)
    got.sort(key=lambda x: (-len(x[1]), len(x[0]["terms"])))
    return got


def _root_tracebacks(root, scan):
    lines = [m["line"] for m in root.get("matches") or [] if isinstance(m.get("line"), int)]
    return [tb for tb in getattr(scan, "tracebacks", None) or ()
            if isinstance(tb.get("line"), int) and any(abs(tb["line"] - ln) <= NEAR for ln in lines)]


def apply_symptoms(result, scan):
    """A symptom row's remedy joins the root's causes (below the causes the text proves and the answer's first one)
    when the root's traceback names its terms; never an answer of its own, never for a text without a root."""
    if result.get("verdict") != "root_cause":
        return result
    findings = result.get("findings") or []
    root = findings[0] if findings else None
    if root is None or any(c.get("doc_section") for c in root.get("causes") or []):
        return result
    for tb in _root_tracebacks(root, scan):
        rows = symptom_rows(tb)
        if not rows:
            continue
        row, hit = rows[0]
        # the doc's sentences that name what the exception named first (a section may say several things)
        named = [f for f in row["fix"] if any(_has(_tokens(f), t) for t in hit)]
        c = cause(dict(row, fix=named + [f for f in row["fix"] if f not in named]))
        c["text"] = "PyTorch's documentation on what the exception names (%s): '%s' (%s)" % (
            ", ".join(hit[:4]), _clip(row["heading"], 120), row["url"])
        causes = root["causes"]
        at = 0
        while at < len(causes) and _proven(causes[at], root):
            at += 1
        causes.insert(max(at, 1) if causes else 0, c)
        root.setdefault("notes", []).append(
            "The exception at line %s names %s, which PyTorch's documentation ('%s') is about (%s; %s)." % (
                tb.get("line"), ", ".join(hit[:4]), _clip(row["heading"], 80), row["url"],
                row.get("source") or ("torch's docstring" if row.get("api") else row["project"])))
        return result
    return result


def apply(result, scan, kb):
    """See the module's doc."""
    _apply(result, scan, kb)
    return apply_symptoms(result, scan)


def _apply(result, scan, kb):
    """The quoted messages' rows (see the module's doc)."""
    verdict = result.get("verdict")
    if verdict not in ("root_cause", "echo_only", "unknown_error"):
        return result
    findings = result.get("findings") or []
    root = findings[0] if findings else None
    if root is not None and any(c.get("doc_section") for c in root.get("causes") or []):
        return result
    for line, hit, text in _failure_texts(scan):
        for row, n in sections_of(text):
            if row.get("cases") and not any(c.lower() in text.lower() for c in row["cases"]):
                continue  # (review20: the page is about another case of the message - its backquoted name)
            if n < LONG and not names_project(scan, row["project"]):
                continue  # (a short fragment: another program's words too, see the module's doc)
            if root is not None:
                if not _related(root, row, line, scan):
                    continue
                causes = root["causes"]
                if any(row["url"] in " ".join(c.get("fix") or []) for c in causes):
                    return result
                at = 0
                while at < len(causes) and _proven(causes[at], root):
                    at += 1
                if at == 0 and causes:
                    at = 1  # (the answer's first cause: an entry's most likely one, or the reading made of the
                    # text's own words - a structural answer's 'accelerate refused the value of X' - stays first)
                causes.insert(at, cause(row))
                return result
            by = kb.by_id
            e = by.get(row["family"])
            if e is None or e.get("kind") == "echo":
                continue
            from gpudoctor.explain.analyze import _structural_finding

            f = _structural_finding(e, hit, "its message is one %s documentation quotes (%d words), in '%s'" % (
                _of(row["project"]), n, _clip(row["heading"], 80)), scan)
            f["causes"].insert(0, cause(row))
            if result.get("errors"):
                f["notes"].append("The text's error line %s is the message the page quotes; the page's remedy is "
                                  "the first cause." % line)
            findings.insert(0, f)
            result["findings"] = findings
            result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
            result["triage"] = []
            return result
    return result
