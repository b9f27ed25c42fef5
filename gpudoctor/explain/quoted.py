"""A line that quotes a record the text also holds at its program's own level (wrong18, issue 18 item 3).

A thread or an issue names its subject by a line of the log ('Failed to find ncclNetPlugin_v8 symbol' as the title,
the log below it holding NCCL's ' NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.'). The program chose
the message's level when it printed it: NCCL's INFO lines are not failures (src/debug.cc: NCCL_DEBUG levels VERSION,
WARN, INFO, TRACE; its failures are WARN lines). A bare line whose whole text is the message of such an INFO record of
the same text is that record quoted, not an error nothing explains.

The user's own sentence that introduces the lines quoted after it ('When using nodes connected by IPv6, training
proceeds correctly, but emits these misleading messages at log level error:', intro_lines) names no failure of its own:
a program's 'error:' has its message after the colon. Such a line counts with the quoted lines (analyze.py: only
where those are warnings an entry knows).
"""

import re

MIN_QUOTE = 20  # characters a quoted message has at least (a short line such as 'failed' names no record)
MAX_LINE = 400
MAX_RECORDS = 64


def _norm(s):
    return " ".join(re.sub(r"[.:;,\s]+$", "", s.strip()).split()).lower()


def quoted_info(scan, matched):
    """The error lines of the scan whose text is a message of a line an entry matched at INFO level."""
    records = [_norm((h.text or "")[:MAX_LINE]) for m in matched.values() for h in (m.get("hits") or ())
               if h.severity == "info"][:MAX_RECORDS]
    if not records:
        return set()
    out = set()
    for h in getattr(scan, "errors", None) or ():
        q = _norm((h.text or "")[:MAX_LINE])
        if len(q) >= MIN_QUOTE and any(q in r for r in records):
            out.add(h.line)
    return out


_INTRO_LAST = frozenset(("error", "errors", "warning", "warnings", "message", "messages", "output", "log", "logs"))
MIN_INTRO_WORDS = 6


def intro_lines(scan):
    """The error lines that are a sentence introducing what follows: one colon, at the end, after MIN_INTRO_WORDS
    words or more, the last of them 'error(s)', 'warning(s)', 'message(s)', 'output' or 'log(s)'."""
    out = set()
    for h in getattr(scan, "errors", None) or ():
        t = (h.text or "")[:MAX_LINE].strip()
        if not t.endswith(":") or t.count(":") != 1 or t[:1] in "[<{(":
            continue
        words = t[:-1].split()
        if len(words) >= MIN_INTRO_WORDS and words[-1].lower() in _INTRO_LAST:
            out.add(h.line)
    return out
