"""One pass over a log as bytes: find the lines that may match a knowledge pattern, and try
the patterns on them.

Speed: a log is read in 4 MiB blocks and never decoded whole. Each block is lower-cased and
has its whitespace deleted in one C call (bytes.translate); one trie-shaped regex per first
byte finds the patterns' needles in that squashed copy, so a needle is found even when a
terminal or an issue form wrapped the message in the middle of it, or the user pasted it in
another case. Each hit is mapped back to its line; only those lines (and the one or two
after them, for wrapped text) are decoded and tried against the real patterns
(re.IGNORECASE). Most lines of a log are never decoded.
"""

import re

from gpudoctor.explain.knowledge import _WS
from gpudoctor.explain.text import PREFIX_B as _PREFIX_B
from gpudoctor.explain.text import clean, severity, strip_prefix

BLOCK = 1 << 22  # bytes read at a time
MAX_LINE = 1 << 20  # a "line" longer than this (no newline in 1 MiB) is cut there
MAX_SHOWN = 5  # matched lines kept per entry (the count covers all of them)
MAX_LINES_KEPT = 200  # line numbers kept per entry/signal for proximity scoring
MAX_WRAP = 3  # continuation lines a wrapped message may span
MIN_WRAPPED = 20  # a line shorter than this is not the first part of a wrapped message
WRAP_REACH = 80  # bytes from a line's start within which a needle may be a wrapped message's rest
_LOWER = bytes(range(256)).lower()
_ANSI_B = re.compile(rb"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\n]*\x07|[@-Z\\-_])")
_NOT_CONTINUATION = set(b"[( \t0123456789\x1b")
_NOT_CONTINUATION_B = {bytes([c]) for c in _NOT_CONTINUATION}
_LEAD = b" \t>"
_LEAD_SET = set(_LEAD)


class Hit:
    __slots__ = ("line", "text", "pattern", "groups", "severity")

    def __init__(self, line, text, pattern, groups, sev):
        self.line, self.text, self.pattern, self.groups, self.severity = line, text, pattern, groups, sev


class Scan:
    """What one pass over a log found."""

    def __init__(self):
        self.lines = 0
        self.bytes = 0
        self.matches = {}  # entry id -> [Hit] (first MAX_SHOWN)
        self.counts = {}  # entry id -> number of matching lines
        self.rank = {}  # entry id -> {severity: best rank} (severity None = an error line)
        self.first = {}  # entry id -> {severity: first line}
        self.match_lines = {}  # entry id -> [line numbers] (first MAX_LINES_KEPT)
        self.evidence = {}  # (entry id, cause index) -> [Hit]
        self.distinct = {}  # entry id -> {key: {value: Hit}}
        self.signals = {}  # Pattern -> [Hit] (first MAX_LINES_KEPT)
        self.parts = {}  # (entry id, group, index) -> [Hit] (first MAX_LINES_KEPT)
        self.errors = []  # generic error lines (first MAX_SHOWN), not INFO/WARN
        self.error_count = 0
        self.launchers = {}  # launcher name -> first line it was seen on


def _decode(raw):
    text = raw.decode("utf-8", "replace")
    if "\r" in text:  # tqdm: '...\r...' progress updates on one line; CRLF endings
        text = " ".join(p for p in text.split("\r") if p.strip())
    return clean(text)


def _display(text, m=None, width=400):
    """A long line (a JSON blob, tqdm updates) shown as the part around the match."""
    if len(text) <= width:
        return text.strip()
    if m is None:
        return text[:width].strip() + " ..."
    a = max(0, m.start() - width // 3)
    return ("... " if a else "") + text[a:a + width].strip() + " ..."


class _Window:
    """A candidate line of a buffer and the lines after it, read and decoded lazily."""

    __slots__ = ("buf", "start", "ends", "_lines", "_cont")

    def __init__(self, buf, start):
        self.buf, self.start = buf, start
        self.ends = []  # end offsets of the lines read so far
        self._lines = {}
        self._cont = None

    def raw(self, i):
        """Bytes of line i of the window (b"" past the buffer)."""
        buf, ends = self.buf, self.ends
        while len(ends) <= i:
            s = ends[-1] + 1 if ends else self.start
            if s > len(buf):
                return b""
            e = buf.find(b"\n", s)
            ends.append(len(buf) if e < 0 else e)
        s = ends[i - 1] + 1 if i else self.start
        return buf[s:ends[i]] if s <= len(buf) else b""

    def text(self, i):
        """The decoded, cleaned line i of the window. Patterns are tried on it (a prefix such
        as 'mlx5_vdpa:' may be part of the message)."""
        got = self._lines.get(i)
        if got is None:
            got = self._lines[i] = _decode(self.raw(i))
        return got

    def body(self, i):
        """(prefix-free text, whether a prefix was removed): decides severity and wrapping."""
        key = ("body", i)
        got = self._lines.get(key)
        if got is None:
            got = self._lines[key] = strip_prefix(self.text(i)) if (i == 0 or self.raw(i)) else ("", True)
        return got

    def line(self, i):
        return (self.text(i),) + self.body(i)

    def continuations(self):
        """The lines that may continue line 0 when it was wrapped: no prefix of their own
        (a new log record has one), not blank, line 0 long enough to have been wrapped."""
        if self._cont is not None:
            return self._cont
        out = []
        raw0 = self.raw(0)
        if len(raw0) >= MIN_WRAPPED:
            lead0 = raw0[:len(raw0) - len(raw0.lstrip(_LEAD))]  # a pasted block's indentation or '> '
            for i in range(1, MAX_WRAP + 1):
                raw = self.raw(i)
                if lead0:
                    if not raw.startswith(lead0):
                        break
                    raw = raw[len(lead0):]
                # cheap refusals first: blank, indented (deeper than the block) or prefixed lines
                # start a new record
                if not raw.strip() or raw[:1] in _NOT_CONTINUATION_B or raw[:1] == b">" or _PREFIX_B.match(raw):
                    break
                body, prefixed = self.body(i)
                if prefixed or not body.strip():
                    break
                out.append(body)
        self._cont = out
        return out


def _search(p, win, whole):
    """(match, shown text) of pattern p on the window's first line, possibly wrapped, or
    (None, None). ``whole``: the pattern's needle is on line 0 (else it spans a wrap)."""
    text0 = win.text(0)
    if p.multiline:
        m = p.regex.search(text0 + "\n" + win.text(1))
        return m, (m and _display(text0))
    if whole:
        m = p.regex.search(text0)
        if m:
            return m, _display(text0, m)
    conts = win.continuations()
    for k in range(1, len(conts) + 1):
        for sep in ("", " "):
            joined = text0 + sep + sep.join(conts[:k])
            m = p.regex.search(joined)
            # it must start on line 0 and cross into the continuation (else it is not wrapped)
            if m and m.start() < len(text0) < m.end():
                return m, _display(joined, m)
    return None, None


def _consider(scan, kb, lineno, win, needles):
    todo = set()
    for h in needles:
        todo.update(kb.by_hit[h])
    if not todo:
        return
    sq0 = _blank_ansi(win.raw(0)).translate(_LOWER, _WS)
    sev = None
    sev_done = False
    for p in sorted(todo, key=kb.order.__getitem__):  # the data's order: stable results
        whole = any(n in sq0 for n in p.needles_b)
        m, shown = _search(p, win, whole)
        if not m:
            continue
        if not sev_done:
            sev, sev_done = severity(win.body(0)[0]), True
        # on_info: NCCL prints some failures (a plugin's dlerror, "-> N" return chains) as INFO
        hit = Hit(lineno, shown, p, m.groupdict(), None if p.on_info else sev)
        role = p.role
        if role == "evidence":
            lst = scan.evidence.setdefault((p.entry, p.cause), [])
            if len(lst) < 3:
                lst.append(hit)
        elif role == "distinct":
            keys = scan.distinct.setdefault(p.entry, {})
            for name, value in m.groupdict().items():
                if value is None:
                    continue
                key, _, const = name.partition("__")
                norm = const or _norm_version(value)
                if norm:
                    keys.setdefault(key, {}).setdefault(norm, hit)
        elif role == "signal":
            lst = scan.signals.setdefault(p, [])
            if len(lst) < MAX_LINES_KEPT:
                lst.append(hit)
        elif role == "part":
            lst = scan.parts.setdefault((p.entry, p.group, p.index), [])
            if len(lst) < MAX_LINES_KEPT and (not lst or lst[-1].line != lineno):
                lst.append(hit)
        elif role == "launcher":
            scan.launchers.setdefault(p.entry, lineno)
        elif role == "generic":
            if sev is None and (not scan.errors or scan.errors[-1].line != lineno):
                scan.error_count += 1
                if len(scan.errors) < MAX_SHOWN:
                    scan.errors.append(hit)
        else:
            _record(scan, p.entry, hit, p.rank)


def _record(scan, eid, hit, rank):
    sev = hit.severity
    ranks = scan.rank.setdefault(eid, {})
    ranks[sev] = max(ranks.get(sev, rank), rank)
    scan.first.setdefault(eid, {}).setdefault(sev, hit.line)
    lst = scan.matches.setdefault(eid, [])
    if lst and lst[-1].line == hit.line:  # two patterns of one entry on one line: one match
        return
    if len(lst) < MAX_SHOWN:
        lst.append(hit)
    scan.counts[eid] = scan.counts.get(eid, 0) + 1
    ml = scan.match_lines.setdefault(eid, [])
    if len(ml) < MAX_LINES_KEPT:
        ml.append(hit.line)


def _norm_version(value):
    """'2.19.3+cuda12.1' / '(2, 19, 3)' / '2.15.5-1' -> '2.19.3'. PyTorch < 1.10 printed
    NCCL 2.10.3 as '21.0.3' (major*1000+minor*100+patch split wrongly): such values are skipped."""
    import re

    parts = re.findall(r"\d+", value)[:3]
    if len(parts) < 3 or int(parts[0]) >= 10:
        return None
    return ".".join(str(int(x)) for x in parts)


def scan_stream(stream, kb):
    """One pass over a binary stream; memory stays at a few blocks. Each buffer is scanned up
    to its last few lines, which are kept for the next buffer: a candidate line near the end
    still sees the lines after it (a wrapped message), and no line is tried twice."""
    scan = Scan()
    tail = b""
    base = 0  # lines before the current buffer
    eof = False
    while not eof:
        block = stream.read(BLOCK)
        if not block:
            eof = True
            buf = tail
            if not buf:
                break
            limit = len(buf)
        else:
            scan.bytes += len(block)
            buf = tail + block
            limit = len(buf)
            for _ in range(MAX_WRAP + 1):
                limit = buf.rfind(b"\n", 0, limit)
                if limit < 0:
                    break
            if limit < 0:
                if len(buf) < MAX_LINE:
                    tail = buf
                    continue
                limit = len(buf)  # a giant line: cut it here
            else:
                limit += 1
        _scan_buffer(scan, kb, buf, base, limit)
        tail = buf[limit:]
        base += buf.count(b"\n", 0, limit)
        if eof and not buf.endswith(b"\n"):
            base += 1  # the last line has no newline
    scan.lines = base
    return scan


class _Mapper:
    """Position in the squashed copy (no whitespace) -> position in the buffer, for positions
    asked in increasing order; linear in the buffer overall (bytes.count per gap)."""

    def __init__(self, buf):
        self.buf, self.o, self.q = buf, 0, 0
        self.size = len(buf)

    def __call__(self, q):
        buf, count = self.buf, self.buf.count
        o, need = self.o, q - self.q
        while need > 0:
            nxt = min(o + need, self.size)
            ws = count(b" ", o, nxt) + count(b"\n", o, nxt) + count(b"\t", o, nxt) + count(b"\r", o, nxt)
            o, need = nxt, ws
            if o >= self.size:
                break
        while o < self.size and buf[o] in _WS:
            o += 1
        self.o, self.q = o, q
        return o


def _blank_ansi(buf):
    """ANSI escapes replaced by as many blanks: the squashed copy loses them like any blank, so a
    colour code inside a keyword does not hide it, and every offset stays where it was."""
    return _ANSI_B.sub(lambda m: b" " * (m.end() - m.start()), buf) if b"\x1b" in buf else buf


def _scan_buffer(scan, kb, buf, base, limit):
    """Candidate lines of one buffer (whole lines) that start before ``limit``, in order,
    each tried once; the lines after ``limit`` are only looked at as continuations."""
    plain = _blank_ansi(buf)
    flat = plain.translate(_LOWER, _WS)
    found = []
    for pre in kb.prefilters:
        for m in pre.finditer(flat):
            found.append((m.start(), m.group()))
    if not found:
        return
    found.sort()
    start_of = _Mapper(plain)
    rfind = buf.rfind
    cands = {}  # line start -> the needles found from it
    prefix_at = _PREFIX_B.match
    for qs, needle in found:
        o = start_of(qs)
        s = rfind(b"\n", 0, o) + 1
        if s > limit:
            break
        if s < limit:  # the first line after the limit is scanned with the next buffer, but it
            c = cands.get(s)  # may still be the continuation of a line before the limit (below)
            if c is None:
                c = cands[s] = set()
            c.add(needle)
        # Near the start of a line without a prefix of its own, the needle (often a short
        # part of the pattern's text) may be the rest of a message wrapped from the line
        # before: try the pattern there too.
        k = s  # past a pasted block's indentation or '> ', shared with the line before
        while k < s + 16 and k < o and buf[k] in _LEAD_SET:
            k += 1
        if 0 < s and o - s < WRAP_REACH and buf[k] not in _NOT_CONTINUATION and buf[k] != 62 and \
                not prefix_at(buf, k):
            ps = rfind(b"\n", 0, s - 1) + 1
            if s - 1 - ps >= MIN_WRAPPED and buf[ps:ps + k - s] == buf[s:k] and \
                    (ps + k - s >= s - 1 or buf[ps + k - s] not in _LEAD_SET):
                c = cands.get(ps)
                if c is None:
                    c = cands[ps] = set()
                c.add(needle)
    counted, line = 0, base
    for s in sorted(cands):
        line += buf.count(b"\n", counted, s)
        counted = s
        _consider(scan, kb, line + 1, _Window(buf, s), cands[s])
