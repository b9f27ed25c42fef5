"""A generated message site's own words, filled with the values its line holds.

A site's ``means`` and ``fix`` (its generator's MSG_FIX / SITE_FIX row, tools/knowgen.py give_fix)
may hold slots: ``{%N|words}`` is the value of the N-th conversion of the site's format (its
``text``, counted from 1 as printf reads them, ``%%`` not counted; ``{%-1|words}`` the last one,
for a row that several formats share: 'on node %d' and '%s: ... on node %d'), or ``words`` (the row's text
as it read before slots: 'the option', '<node>') when the pasted line does not give that value.
Slurm's 'Node failure on %s' with the fix ``sinfo -R -n {%1|<node>}`` reads
``sinfo -R -n gpu07`` for the line 'srun: error: Node failure on gpu07'.

Values come from the pasted text: untrusted. A value is taken from the one line the site
matched (at most MAX_LINE characters of it), with terminal escapes and control characters
removed, blanks folded, at most MAX_VALUE characters (a longer one is not used: a cut value in a
command would name something else), and printed as one shell word by gpudoctor/fixline.py
``sh`` (the quoting of every fix line: docs/security.md), in the prose of ``means`` too. A slot
whose value is missing, empty or too long gets its words; a filled text never shows a raw slot.

The values are found without a regex over the line: the format's literal runs are looked up in
order (blanks folded, case ignored), a value being the text between two runs; a conversion at the
format's start or end is the one blank-free word before the first run or after the last. That is
linear in the line, whatever the format (a regex with a lazy group per conversion can backtrack
once per group and character).
"""

import re

from gpudoctor.fixline import _unsafe, sh

MAX_LINE = 4096  # characters of a line searched for values
MAX_VALUE = 160  # characters of one value, after cleaning
MAX_STARTS = 8  # places tried for the format's first literal run

# A slot in a site's means/fix: {%N|words}, N 1..99 or -1..-99 (from the last); words hold no brace and no '|'.
SLOT = re.compile(r"\{%(-?[1-9]\d?)\|([^{}|]+)\}")
# printf conversions (C99 7.19.6.1, as tools/knowgen.py _CONV reads them): flags, width,
# precision, length, conversion; glibc's %m (strerror(errno)) is a string too.
_CONV = re.compile(r"%(?:\d{1,9}\$)?([-+ #0']*)(\*(?:\d{1,9}\$)?|\d+)?(?:\.(\*(?:\d{1,9}\$)?|\d*))?"
                   r"(hh|h|ll|l|L|z|j|t|q)?([diouxXeEfFgGaAcspnm%])")
# Slurm's own conversions (src/common/xstring.c, _xstrdup_vprintf; src/common/log.c): %pJ, %ps,
# %pS, %pA ... are strings (the job, the step id, an address), as tools/gen_slurm_messages.py
# slurm_to_printf reads them
_SLURM_CONV = re.compile(r"%p[A-Za-z]")
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|[@-Z\\-_])")
_PYITEM = re.compile(r"'([^'\n]{0,200})'|\"([^\"\n]{0,200})\"")
_PYLIST = re.compile(r"\[(?:'[^'\n]{0,200}'|\"[^\"\n]{0,200}\")(?:, ?(?:'[^'\n]{0,200}'|\"[^\"\n]{0,200}\")){0,50}\]$")
# a Python message printed without its f prefix shows the field's name, not a value (accelerate's
# "Could not find the transformer layer class {layer_class} in the model.", torch DCP's "{fqn}")
_UNFORMATTED = re.compile(r"\{[A-Za-z_][\w.]{0,60}\}$")
_INT = re.compile(r"-?\d{1,20}")
_HEX = re.compile(r"(?:0x)?[0-9a-fA-F]{1,16}|\(nil\)")
_FLOAT = re.compile(r"-?[0-9.eE+-]{1,30}")
_HEXFLOAT = re.compile(r"-?0[xX][0-9a-fA-F.pP+-]{1,30}")  # %a / %A: 0x1.8p+1


def conversions(fmt, slurm=False):
    """The format's parts: [('lit', text) | ('conv', letter)], the conversions in printf's order
    (``%%`` is literal text); ``slurm``: Slurm's %pX read as strings."""
    parts, pos = [], 0
    if slurm:
        fmt = _SLURM_CONV.sub("%s", fmt.replace("%%", "\0")).replace("\0", "%%")
    for m in _CONV.finditer(fmt):
        if m.start() > pos:
            parts.append(("lit", fmt[pos:m.start()]))
        if m.group(5) == "%":
            parts.append(("lit", "%"))
        else:
            parts.append(("conv", m.group(5)))
        pos = m.end()
    if pos < len(fmt):
        parts.append(("lit", fmt[pos:]))
    out = []  # adjacent literals joined
    for kind, val in parts:
        if out and kind == "lit" == out[-1][0]:
            out[-1] = ("lit", out[-1][1] + val)
        else:
            out.append((kind, val))
    return out


def count(fmt, slurm=False):
    """How many conversions the format has (what a slot's N may be)."""
    return sum(1 for k, _ in conversions(fmt, slurm) if k == "conv")


def slots_of(text):
    """[(N, words)] of the slots in a site's means or fix line."""
    return [(int(m.group(1)), m.group(2)) for m in SLOT.finditer(text)]


def _fold(text):
    return " ".join(text.split())


def clean(value):
    """A value as it may be shown: terminal escapes and control, format and separator characters
    removed, blanks folded, edge punctuation of the sentence around it dropped; None when empty or
    longer than MAX_VALUE."""
    v = _ANSI.sub("", value)
    v = "".join(" " if c.isspace() else c for c in v if c.isspace() or not _unsafe(c))
    v = _fold(v)
    if len(v) > 1 and v[0] in "'\"`" and v[-1] == v[0]:
        v = v[1:-1].strip()
    if _PYLIST.match(v):  # a Python list of names as the message printed it (f"... {keys}"): the names
        v = ", ".join(a or b for a, b in _PYITEM.findall(v))
    v = _trim(v)
    if not v or len(v) > MAX_VALUE or _UNFORMATTED.match(v):
        return None
    return v


def _trim(v):
    """A value without the sentence's punctuation after it: '.', ',', ';', ':', '!', '?', a quote, and a
    closing bracket that opens nowhere in the value ('gpu[01-04]' keeps its ']', '(gpu01)' its ')')."""
    while v:
        c = v[-1]
        if c in ".,;:!?'\"`" or (c in ")]}" and v.count({")": "(", "]": "[", "}": "{"}[c]) < v.count(c)):
            v = v[:-1]
        else:
            break
    return v


def _typed(kind, value):
    """The value when it has its conversion's shape (%d an integer, %x hex...), else None."""
    rx = _INT if kind in "diu" else _HEX if kind in "xXop" else _FLOAT if kind in "eEfFgG" else _HEXFLOAT if kind in "aA" else None
    if rx is not None:
        return value if rx.fullmatch(value) else None
    if kind == "c":
        return value if len(value) == 1 else None
    return value


def values(fmt, line, slurm=False, need=None):
    """{N: raw value} of the conversions of ``fmt`` that ``line`` shows (N from 1), for the
    conversions up to ``need`` (all when None). Empty when the format's literal runs are not in
    the line in order."""
    parts = conversions(fmt, slurm)
    n_conv = sum(1 for k, _ in parts if k == "conv")
    need = n_conv if need is None else min(need, n_conv)
    if need < 1:
        return {}
    # the parts up to the literal after the last conversion wanted (later ones need not be there:
    # Slurm's final '.' is optional in its matchers)
    k, last = 0, len(parts)
    for i, (kind, _) in enumerate(parts):
        if kind == "conv":
            k += 1
            if k == need:
                last = i + 2
                break
    # a literal of blanks only between two conversions ('%s %d') is a separator: the value before it is one word
    cooked = []
    for kind, v in parts[:last]:
        if kind == "lit":
            v = _fold(v).lower()
            kind = "lit" if v else "sep"
        cooked.append((kind, v))
    while cooked and cooked[0][0] == "sep":
        cooked.pop(0)
    while cooked and cooked[-1][0] == "sep":
        cooked.pop()
    parts = cooked
    text = _fold(line[:MAX_LINE])
    # lower case with the positions kept (a few characters lower to two: 'İ')
    low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    lits = [i for i, p in enumerate(parts) if p[0] == "lit"]
    if not lits:
        return {}
    got = _search(parts, text, low, parts[lits[0]][1])
    if got is None and len(lits) > 1 and parts[-1][0] == "lit" and not any(c.isalnum() for c in parts[-1][1]):
        # a closing '.' or ')' the paste left out (Slurm's matchers take a message without its final stop:
        # tools/gen_slurm_messages.py _optional_stop): the last value is then the line's last word
        got = _search(parts[:-1], text, low, parts[lits[0]][1])
    return got or {}


def _search(parts, text, low, first):
    """_walk from each place (at most MAX_STARTS) where the first literal run is, until one fits."""
    start, tries = low.find(first), 0
    while start >= 0 and tries < MAX_STARTS:
        got = _walk(parts, text, low, start)
        if got is not None:
            return got
        start, tries = low.find(first, start + 1), tries + 1
    return None


def _walk(parts, text, low, start):
    """The values when the first literal run is at ``start`` and each later one follows it, else
    None. Two conversions with nothing between them give neither (where one ends is unknown)."""
    out, n, pos, pending = {}, 0, None, None  # pos: where the text after the previous literal starts
    for i, (kind, val) in enumerate(parts):
        if kind == "conv":
            n += 1
            if pos is None:  # a leading conversion: the word before the first literal
                if i == 0 and len(parts) > 1 and parts[1][0] == "lit":
                    head = text[:start].rstrip()
                    word = head.rsplit(" ", 1)[-1] if head else ""
                    if word and _typed(val, word if val in "sm" else _trim(word)) is not None:
                        out[n] = word
                continue
            pending = (n, val) if pending is None else (None, val)
            continue
        if kind == "sep":  # blanks between two conversions: the pending value is the next word
            if pending is None or pos is None:
                continue
            rest = text[pos:]
            word = rest.lstrip().split(" ", 1)[0]
            if pending[0] is not None:
                if not word or _typed(pending[1], word) is None:
                    return None
                out[pending[0]] = word
            pos, pending = pos + (len(rest) - len(rest.lstrip())) + len(word), None
            continue
        at = start if pos is None else low.find(val, pos)
        if at < 0:
            return None
        if pending is not None:
            got = text[pos:at].strip()
            if pending[0] is not None:
                if _typed(pending[1], got) is None:
                    return None
                out[pending[0]] = got
            pending = None
        pos = at + len(val)
    if pending is not None and pending[0] is not None:  # a trailing conversion: the word after the last literal
        rest = text[pos:].strip()
        # strerror's text (%m) is several words: the rest of the line; any other value one word
        word = rest if pending[1] == "m" else rest.split(" ", 1)[0] if rest else ""
        if pending[1] not in "sm":
            word = _trim(word)
        if word and _typed(pending[1], word) is not None:
            out[pending[0]] = word
    return out


def has_slots(site):
    return bool(SLOT.search(site.get("means") or "") or any(SLOT.search(x) for x in site.get("fix") or ()))


def fill(site, line):
    """(means, [fix lines], {N: value}) of a generated site (its ``text``, ``means``, ``fix``,
    ``source``) for the pasted ``line`` it matched: each slot the value the line gives (cleaned,
    one shell word), else its words. The third item holds the values used (cleaned, unquoted)."""
    means, fix = site.get("means") or "", list(site.get("fix") or ())
    if not has_slots(site):
        return means, fix, {}
    slurm = str(site.get("source") or "").startswith("slurm")
    total = count(site.get("text") or "", slurm)

    def at(n):  # a slot's conversion, counted from 1 (0: none)
        k = n if n > 0 else total + 1 + n
        return k if 1 <= k <= total else 0

    need = max(at(n) for t in [means] + fix for n, _ in slots_of(t)) if line else 0
    raw = values(site.get("text") or "", line or "", slurm=slurm, need=need) if need else {}
    vals = {n: v for n, v in ((n, clean(v)) for n, v in raw.items()) if v is not None}
    used = {}

    def put(m, quoted=None, command=False):
        n = at(int(m.group(1)))
        if n in vals:
            if command and vals[n].startswith("-"):
                # a fix line's value that starts with '-' would stand as an option of the command before it: the
                # message's host '-oProxyCommand=touch${IFS}PWN' made 'ssh ... '-oProxyCommand=...' hostname' run
                # touch when pasted (red team 2026-11-27b); the slot keeps its words
                return m.group(2)
            word = sh(vals[n])
            if quoted and quoted.get(m.start()) and word != vals[n]:
                # inside the template's own quotes ('accelerate>={%1|...}'), a quoted word would close them and
                # the value would stand bare in the line: such a value is not put there (red team 2026-11-26d)
                return m.group(2)
            used[n] = vals[n]
            return word
        return m.group(2)

    def put_fix(x):
        x = _merge(x, vals, at)
        quoted = _quoted_at(x)
        return SLOT.sub(lambda m: put(m, quoted, True), x)

    return SLOT.sub(put, _merge(means, vals, at)), [put_fix(x) for x in fix], used


def _merge(text, vals, at):
    """``text`` without the words around a slot that its value already holds: NCCL's 'Could not get
    speed from %s' prints the path /sys/class/net/eth0/speed, and the row's
    '/sys/class/net/{%1|<if>}/speed' read '/sys/class/net//sys/class/net/eth0/speed/speed'. The
    template's text just before the slot that the value starts with, and just after it that the
    value ends with, is dropped when that part holds a separator (a path's '/', '=', ':'), so a
    plain word ('port {%1|N}' with 'port 29500') is never taken for one."""
    out, pos = [], 0
    for m in SLOT.finditer(text):
        v = vals.get(at(int(m.group(1))))
        start, end = m.start(), m.end()
        if v:
            before, after = text[pos:start], text[end:]
            p = next((k for k in range(min(len(v), len(before)), 1, -1) if before.endswith(v[:k])), 0)
            s = next((k for k in range(min(len(v) - p, len(after)), 1, -1) if after.startswith(v[len(v) - k:])), 0)
            p = p if p and _SEP.search(v[:p]) else 0
            s = s if s and _SEP.search(v[len(v) - s:]) else 0
            start, end = start - p, end + s
        out.append(text[pos:start])
        out.append(text[m.start():m.end()])
        pos = end
    out.append(text[pos:])
    return "".join(out)


_SEP = re.compile(r"[/=:]")


def _quoted_at(line):
    """{slot start: True when the slot stands inside quotes or backquotes of the fix line} (POSIX sh 2.2
    Quoting: a backslash outside single quotes quotes the next character; '...' quotes everything up to the
    next '; "..." and `...` end at their own unescaped character). A prose fix line's apostrophe counts as
    a quote too: what follows it is then taken as quoted, the careful reading."""
    out, state, i, n = {}, None, 0, len(line)
    ends = {m.start(): m.end() for m in SLOT.finditer(line)}
    while i < n:
        if i in ends:  # a slot: its words are not the line's quoting
            out[i] = state is not None
            i = ends[i]
            continue
        c = line[i]
        if state == "'":
            if c == "'":
                state = None
        elif c == "\\":
            i += 1
        elif state is None and c in "'\"`":
            state = c
        elif c == state:
            state = None
        i += 1
    return out
