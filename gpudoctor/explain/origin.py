"""Which command separators in an answer's prose came from the log (docs/security.md 68.).

The text report writes a prose string (a note, a cause, a title) safe before pretty where it holds a separator glued
to a word, `$(` or `<(` (render.safe_prose, 58.): a log value such as a traceback frame's folder
`.../site-packages;touch M;#/...` is then one inert shell word. A log value with a blank after its separator
(`.../site-packagesaaa; touch M; #/...`) reads as the prose's own `; ` to that rule, and a clause of the line pasted
alone ran touch. Which `; ` is whose cannot be told from the prose; it can from the log: the scan keeps the lines
its readers took their values from (the hits, the tracebacks' frames, the error lines). ``windows(result, scan)``
returns the short spans around each blank-followed separator of the answer's strings that the scan's own text
holds: the renderer writes a prose string holding one of them safe, as it writes a triggered one.
"""

import re

# a separator a shell acts on, followed by a blank: ';', '&', '|', '&&', '||' ('&' of prose such as 'Q&A ' is
# glued on the left too, and is checked against the log like any other)
_SEP = re.compile(r"[;&|]{1,2}[ \t]")
SIDE = 8  # characters on each side of the separator that must come from the log with it
MAX_TEXTS = 200000  # strings read from the scan
MAX_CHARS = 2 << 20  # and their characters
_SKIP = frozenset(("_cache", "_wcache", "_shapes", "_alone", "_pats", "_idle", "_own_kind", "_live", "retired",
                   "behind", "_rec",
                   "deadline", "interrupted", "cut_at", "_cut", "_t0", "_shape_now"))


_PATTERN = type(re.compile(""))


def _scan_texts(scan):
    """The strings the scan keeps from its input (hits' lines and groups, tracebacks, error lines, ...), bounded."""
    out, size, seen = [], 0, set()
    stack = [v for k, v in vars(scan).items() if k not in _SKIP]
    while stack and len(out) < MAX_TEXTS and size < MAX_CHARS:
        x = stack.pop()
        if isinstance(x, str):
            if len(x) >= SIDE:
                out.append(x)
                size += len(x)
            continue
        if isinstance(x, (bytes, bytearray, int, float, bool)) or x is None or callable(x) and not hasattr(x, "__dict__"):
            continue
        if id(x) in seen or isinstance(x, _PATTERN) or type(x).__module__ == "gpudoctor.explain.knowledge":
            continue  # (the knowledge's own patterns and entries: not the log's text)
        seen.add(id(x))
        if isinstance(x, dict):
            stack.extend(x.values())
            stack.extend(k for k in x if isinstance(k, str))
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif hasattr(x, "__slots__"):
            stack.extend(getattr(x, s, None) for s in x.__slots__ if s != "pattern")
        elif hasattr(x, "__dict__") and not isinstance(x, type) and type(x).__module__.startswith("gpudoctor"):
            stack.extend(vars(x).values())
    return out


def _strings(obj, limit=50000):
    out, stack = [], [obj]
    while stack and len(out) < limit:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return out


def windows(result, scan):
    """frozenset of the spans (up to SIDE characters each side) around the answer's blank-followed separators that
    the scan's text holds."""
    found = set()
    cands = []
    for s in _strings(result):
        for m in _SEP.finditer(s[:65536]):
            w = s[max(0, m.start() - SIDE):m.end() + SIDE].strip()
            if len(w) >= 4 and w not in found:
                cands.append(w)
        if len(cands) > 1000:
            break
    if not cands:
        return frozenset()
    log = "\n".join(_scan_texts(scan))
    for w in cands:
        if w not in found and w in log:
            found.add(w)
    return frozenset(found)


class Answer(dict):
    """explain's answer (a dict, written as JSON as before) with the log's separator spans beside it for the text
    renderer (``log_windows``); a copy or a JSON round trip loses them, and the renderer then reads as before."""

    log_windows = frozenset()


def attach(result, scan):
    try:
        spans = windows(result, scan)
    except Exception:  # (a reader's odd object in the scan: the prose is written as before)
        spans = frozenset()
    if not spans:
        return result
    out = Answer(result)
    out.log_windows = spans
    return out
