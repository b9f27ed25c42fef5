"""Text a library appends to every error it raises or prints (a trailer): a note on how to see more, never the
failure or its fix (docerrors18, issue 18). Read from generated/trailers.json (tools/gen_trailers.py: JAX's
"For simplicity, JAX has removed its internal frames ... Set JAX_TRACEBACK_FILTERING=off to include these.",
equinox's runtime-error block, Hydra's "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack
trace.", torch's "CUDA kernel errors might be asynchronously reported ..." / "Compile with `TORCH_USE_CUDA_DSA` ...").

- ``is_line(body)``: a log line (without its launcher prefix) is a trailer's line: pytb's message after an exception
  line and advice.message_lines stop there, so the exception above it is the one read;
- ``is_header(msg)``: an exception's message is the header a library prints before the real exception (equinox's
  'Above is the stack outside of JIT. ...'): pyanswer reads the exception after it;
- ``in_sentence(s)``: a sentence is a trailer's words: advice.find never quotes it as what to do (at most as 'more
  detail', when it says how to get more output).

Lines are compared by their words (lower case, punctuation and spacing folded: torch's older 'API call,so the
stacktrace' is the same line); a line that is a trailer line's first 24+ characters (a wrapped or cut paste) is one
too. A trailer line with a field ('Search for `%s' in https://...') is a bounded pattern anchored at the line's start.
"""

import re

_FOLD = re.compile(r"[^0-9a-z]+")
MIN_PREFIX = 24  # characters of a trailer line a cut or wrapped line must hold (folded)
MAX_LINE = 600  # a longer line is no trailer's (they are one sentence or two)
_STATE = {}


def fold(text):
    return _FOLD.sub(" ", (text or "")[:MAX_LINE * 2].lower()).strip()


def _load():
    if "lines" in _STATE:
        return _STATE
    from gpudoctor.explain.knowledge import generated_table  # (late: knowledge imports pytb, which imports this)

    plain, fields, texts = set(), [], []
    for t in generated_table("trailers").get("trailers") or []:
        whole = []
        for ln in t.get("lines") or []:
            if "%s" in ln:
                parts = [re.escape(fold(p)) for p in ln.split("%s")]
                fields.append(re.compile(r"^%s" % r" ?[0-9a-z ]{0,200}? ?".join(p for p in parts if p)))
            else:
                plain.add(fold(ln))
            whole.append(fold(ln.replace("%s", " ")))
        texts.append(" ".join(whole))
    _STATE["headers"] = {fold(t["header"]) for t in generated_table("trailers").get("trailers") or []
                         if t.get("header")}
    _STATE["lines"] = plain
    _STATE["prefixes"] = {p[:MIN_PREFIX] for p in plain if len(p) >= MIN_PREFIX}
    _STATE["fields"] = fields
    _STATE["corpus"] = " | ".join(texts)
    return _STATE


def is_line(body):
    """Whether a line (its text without a launcher's prefix) is a line of a trailer."""
    if not body or len(body) > MAX_LINE:
        return False
    st = _load()
    f = fold(body)
    if len(f) < 12:
        return False
    if f in st["lines"]:
        return True
    if len(f) >= MIN_PREFIX and f[:MIN_PREFIX] in st["prefixes"]:
        # the line starts as one does: the same line with other punctuation, a cut one, or one with more after it
        return any(p.startswith(f) or f.startswith(p) for p in st["lines"] if p[:MIN_PREFIX] == f[:MIN_PREFIX])
    return any(rx.match(f) for rx in st["fields"])


def in_sentence(s):
    """Whether a sentence is a trailer's words (the whole sentence, folded, inside a trailer's text)."""
    f = fold(s)
    if len(f) < 16:
        return False
    st = _load()
    return f in st["corpus"] or any(rx.match(f) for rx in st["fields"])


def is_header(msg):
    """Whether an exception's message is a trailer's header: the line a library prints before the stack it adds and
    the real exception (equinox's 'Above is the stack outside of JIT. Below is the stack inside of JIT:', then the
    frames inside JIT and 'equinox.EquinoxRuntimeError: <message>'): that later exception is the one to read."""
    f = fold(msg)
    return bool(f) and f in _load()["headers"]
