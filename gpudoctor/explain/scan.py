"""One pass over a log as bytes: find the lines that may match a knowledge pattern, and try
the patterns on them.

Speed: a log is read in 4 MiB blocks and never decoded whole. Each block is lower-cased and
has its whitespace deleted in one C call (bytes.translate); one trie-shaped regex per first
byte finds the patterns' needles in that squashed copy, so a needle is found even when a
terminal or an issue form wrapped the message in the middle of it, or the user pasted it in
another case. Each hit is mapped back to its line; only those lines (and the one or two
after them, for wrapped text) are decoded and tried against the real patterns
(re.IGNORECASE). Most lines of a log are never decoded.

Time (issue 23): the work is linear in the input whatever it holds.
- A pattern is never given more than WINDOW bytes of text at once: a line longer than that is
  tried in windows of WINDOW bytes that start every STEP bytes (only those around the pattern's
  own needles), so a match up to STEP bytes long is still found whole, and a pattern that
  backtracks costs at most its price on WINDOW bytes per window (tests/test_explain_time.py
  proves the generated patterns linear or times them, and holds every other pattern to a budget
  there).
- A line seen before (the same text once the digits of its rank/host/time prefix are set
  aside, and the same lines after it) is not tried again: its answer is replayed, counted and
  attributed to its own line, rank and host.
- A deadline (``deadline``, a time.monotonic() value) is looked at between blocks and candidate
  lines; past it the scan stops with what it found and says so (Scan.stopped).
"""

import re
import time
from bisect import bisect_right

from gpudoctor.explain.knowledge import _WS
from gpudoctor.explain.text import PREFIX_B as _PREFIX_B
from gpudoctor.explain.text import GLOG_HEAD_NC, GLOG_REST, GLOG_SEVERITY, GLOG_WHEN, ungrouped
from gpudoctor.explain.text import clean, severity, strip_prefix

BLOCK = 1 << 22  # bytes read at a time
MAX_LINE = 1 << 20  # a "line" longer than this (no newline in 1 MiB) is cut there
WINDOW = 4096  # the most bytes of one line a pattern is tried on at once
STEP = WINDOW // 2  # long lines: a window starts every STEP bytes
MAX_CACHE = 4096  # answers kept for lines seen before (each line at most WINDOW bytes)
MAX_WINDOWS_CACHED = 256  # answers kept for windows of long lines seen before
MAX_SPREAD = 10000  # distinct ranks / hosts kept per entry
SUB = 1 << 19  # squashed bytes whose prefilter hits are listed at once
MAX_SHOWN = 5  # matched lines kept per entry (the count covers all of them)
MAX_LINES_KEPT = 200  # line numbers kept per entry/signal for proximity scoring
MAX_PG_STATUS = 256  # process-group status lines kept (one or two per rank: analyze.late_rank compares them)
TAIL_SCAN = 8 << 20  # bytes at a large file's end read when its share of the deadline is nearly spent (perf21)
TAIL = 1 << 15  # bytes kept from the end of each input: the lines a hung job printed last (hang.py)
MAX_WRAP = 3  # continuation lines a wrapped message may span
HELD_MAX = 1 << 16  # bytes of held-back lines judged after a reader's early stop (scan_stream)
MIN_WRAPPED = 20  # a line shorter than this is not the first part of a wrapped message
WRAP_REACH = 80  # bytes from a line's start within which a needle may be a wrapped message's rest
# Texts that cannot hold a match are not searched (_Squashed, _search_text): the answers are the
# same either way; tests/test_explain_scan_prune.py turns it off to compare
PRUNE = True
_LOWER = bytes(range(256)).lower()
_ANSI_B = re.compile(rb"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\n]*\x07|[@-Z\\-_])")
_NOT_CONTINUATION = set(b"[( \t0123456789\x1b")
_NOT_CONTINUATION_B = {bytes([c]) for c in _NOT_CONTINUATION}
_LEAD = b" \t>"
# A line that starts a record of its own is never the rest of a message wrapped from the line before: CPython's
# exception line ('<qualified name>: <message>', or the bare name: Lib/traceback.py format_exception_only) and the
# header lines of its tracebacks and fatal-error reports (Python/pylifecycle.c fatal_error: 'Fatal Python error: ',
# 'Python runtime state: '; Modules/faulthandler.c: 'Current thread 0x...' / 'Thread 0x...'). Without this, 'Python
# runtime state: core initialized' joined with the 'ModuleNotFoundError: ...' after it read as one exception,
# 'initializedModuleNotFoundError'.
_RECORD_HEAD_B = re.compile(
    rb"(?:[A-Za-z_][\w.]{0,120}(?:Error|Exception|Exit|Interrupt|Warning)(?::|\s*$)"
    rb"|Traceback \(most recent call last\)|Fatal Python error: |Python runtime state: |(?:Current )?[Tt]hread 0x[0-9a-f])")
_LEAD_SET = set(_LEAD)
_DIGITS_B = re.compile(rb"\d+")
_GLOG_B = GLOG_HEAD_NC.encode()
# a line's run of prefixes, torch's glog-style header among them, in one match
_PREFIX_RUN_B = re.compile(rb"(?:\s*(?:%s|%s)){0,8}" % (_PREFIX_B.pattern[len(rb"\s*"):], _GLOG_B))


class Hit:
    """One line a pattern matched. ``line`` counts over every input of the scan (several files
    are one sequence of lines, kept apart by Scan.sources); ``origin`` is the line's
    (rank, host, time) from its prefixes (text.origin)."""

    __slots__ = ("line", "text", "pattern", "groups", "severity", "origin", "more")

    def __init__(self, line, text, pattern, groups, sev, origin=None):
        self.line, self.text, self.pattern, self.groups, self.severity = line, text, pattern, groups, sev
        self.origin = origin
        self.more = None  # a kept hit's message lines (advice.message_lines): what the message says to do


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
        self.error_lines = []  # their line numbers (first MAX_LINES_KEPT)
        self.error_count = 0
        self.launchers = {}  # launcher name -> first line it was seen on
        self.paste = None  # launch lines and launcher configs in the text (launchpaste.record)
        self.spread = {}  # entry id -> {"ranks": set, "hosts": set, "earliest": Hit, "lines": n}
        self.nccl_info = None  # what NCCL's INFO lines say it chose (ncclinfo.record)
        self.hang = None  # what the text says about a hang or a slow run (hang.record)
        self.meaning = None  # the user's lines that may tell a failure in words (meaning.record)
        self.tails = []  # hang.summarize_tail() of each input's last TAIL bytes: where NCCL stopped
        self.sources = []  # [{"path", "first_line", "lines", "bytes"}]: the inputs, in order
        self.stopped = None  # why the scan stopped before the end: {"reason", ...}
        self.deadline = None  # time.monotonic() past which the scan stops
        self.interrupted = []  # a signal handler appends the signal's name: the scan stops there
        self.file_rank = None  # the rank the current input's name says (rank3.log), for lines without one
        self.several = False  # several inputs of one job: a per-rank file's name says the rank
        self._cache = {}  # line key -> answers (lines seen before)
        self._wcache = {}  # window bytes -> {pattern: (groups, shown) or None}
        self.tried = 0  # candidate lines whose patterns ran (not replayed)
        self.replayed = 0  # candidate lines answered from a line seen before
        self.tracebacks = []  # the first Python tracebacks, read back from their exception lines (pytb.record)
        self.argparse = []  # argparse refusals: 'usage: prog ...' then 'prog: error: ...' (pytb.record_argparse)
        self.behind = b""  # the input's last bytes before the current buffer (pytb reads a traceback back)
        self.tb_tries = self.ap_tries = 0  # exception / 'prog: error:' lines pytb read back (pytb.MAX_TRIES)
        self.retired = set()  # patterns whose reader keeps nothing more (retire)
        self._live = {}  # needle -> whether a pattern it leads to is not retired (_live_needles)
        self._rec = None  # (buffer, line start, state): the last line whose absl/glog record was read (record_state)
        self._own_kind = {}  # line cache key -> _line_kind of the line itself (_in_record)
        self._shapes = {}  # (line with each digit 0, needles) -> the patterns that matched its first line (_consider)
        self._alone = {}  # (line 0 with each digit 0, needles) -> (patterns it may match alone, the others) (_alone)
        self._pats = {}  # (knowledge, needles) -> their patterns in the data's order (_patterns_of)
        self._idle = {}  # (reader pattern, line's _FIGURES_B shape) -> lines in a row its reader kept nothing from
        self._shape_now = None  # that shape of the line being replayed (_replay's reader budget)
        self.shape_skipped = 0  # candidate lines no pattern was tried on: their shape matches none (perf21)
        self.cut_at = None  # time.monotonic() past which the rest of a large file's middle is passed over for its tail
        self.skipped = None  # {"line", "resumed_line"}: the lines of the current input passed over (_skip_to_tail)
        self._cut = None  # cut_at while the current input is a plain file
        self._t0 = 0.0  # when the current input's reading began

    def retire(self, pattern):
        """``pattern``'s reader holds all it keeps (launchctx's MAX_ALONE 'rank 0 of 1' lines, its MAX_CMDS command
        lines): a line whose needles lead only to retired patterns is no longer a candidate. Each candidate line
        costs the whole per-line path (its window, every pattern of its needles, its severity, the reader), so
        10^5 such lines cost seconds for answers the reader drops; the prefilter still finds them (linear)."""
        if pattern not in self.retired:
            self.retired.add(pattern)
            self._live.clear()

    def past_deadline(self):
        return self.stop_reason() is not None

    def stop_reason(self):
        """'timeout' past the deadline, the signal's name after SIGINT / SIGTERM (`explain`
        answers with what it read, as valid JSON), else None."""
        if self.interrupted:
            return self.interrupted[0]
        if self.deadline is not None and time.monotonic() > self.deadline:
            return "timeout"
        if self._cut is not None and self.skipped is None and time.monotonic() > self._cut:
            return "cut"  # (perf21: scan_stream passes over the rest of the file's middle, _skip_to_tail)
        return None


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
        as 'mlx5_vdpa:' may be part of the message). Lines after the first are cut at WINDOW
        bytes (they are only read as the continuation of a wrapped message)."""
        got = self._lines.get(i)
        if got is None:
            raw = self.raw(i)
            got = self._lines[i] = _decode(raw if i == 0 else raw[:WINDOW])
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
                if (not raw.strip() or raw[:1] in _NOT_CONTINUATION_B or raw[:1] == b">" or _PREFIX_B.match(raw)
                        or _RECORD_HEAD_B.match(raw)):
                    break
                body, prefixed = self.body(i)
                if prefixed or not body.strip():
                    break
                out.append(body)
        self._cont = out
        return out


def _norm_prefix(raw):
    """The line with the digit runs of its launcher/logger prefixes replaced by '0' (torch's
    '[E1123 12:00:00.123456 1234 ProcessGroupNCCL.cpp:616]' header counts as one)."""
    end = _PREFIX_RUN_B.match(raw).end()
    return _DIGITS_B.sub(b"0", raw[:end]) + raw[end:] if end else raw


def _two_line(p):
    """Whether pattern p reads the next line: a newline outside a negated class ('[^\\n]' only
    keeps a match on one line)."""
    got = _TWO_LINE.get(p.source)
    if got is None:
        got = _TWO_LINE[p.source] = p.multiline and "\\n" in re.sub(r"\[\^[^\]]*\]", "", p.source)
    return got


_TWO_LINE = {}


def _search_text(p, text0, conts, text1, whole, sq=None):
    """(match, shown text, whole line shown) of pattern p on text0, possibly wrapped into the
    continuation lines ``conts`` (a callable, read only when needed), or (None, None, False).
    ``whole``: the pattern's needle is in text0 (else it spans a wrap). ``sq``: a _Squashed of
    the same texts, or None: a text that cannot hold a match (_Squashed.may_hold) is not
    searched, which answers the same, only sooner."""
    if _two_line(p):
        # a two-line pattern starts on line 0 (a pattern with [^\n] in it is "multiline" too,
        # and must not match on the next line alone: that line is tried as its own)
        if sq is not None and not sq.next_may_hold(p):
            return None, None, False
        m = p.regex.search(text0 + "\n" + text1())
        if m and m.start() > len(text0):
            m = None
        return m, (m and _display(text0)), len(text0) <= 400
    if whole and (sq is None or sq.line_may_hold(p)):
        m = p.regex.search(text0)
        if m:
            return m, _display(text0, m), len(text0) <= 400
    conts = conts()
    first = 1 if sq is None else sq.first_join(p)  # no join before it can hold a match
    seps = ("", " ")
    if sq is not None and first < len(conts):
        # A pattern whose match stays a match when more text follows (Pattern.scan_info): a match
        # of a shorter join that starts on line 0 is one of the longest join too, so the longest
        # join's first match starts on line 0 as well. When it does not (no match, or one that
        # starts on a continuation line), no join with that separator can answer: one search
        # rules the separator out.
        info = p._scan_info or p.scan_info()
        if info[3]:
            n0 = len(text0)
            seps = tuple(sep for sep in seps if not (info[4] or sep) or
                         _starts_before(p.regex.search(text0 + sep + sep.join(conts)), n0))
    for k in range(first, len(conts) + 1):
        for sep in seps:
            joined = text0 + sep + sep.join(conts[:k])
            m = p.regex.search(joined)
            # it must start on line 0 and cross into the continuation (else it is not wrapped)
            if m and m.start() < len(text0) < m.end():
                return m, _display(joined, m), False
    return None, None, False


def _starts_before(m, n):
    return m is not None and m.start() < n


def _squash_text(text):
    return text.encode("utf-8").translate(_LOWER, _WS)


def _may_hold(flat, p):
    """Whether a squashed text holds one of p's needles and every clause of
    knowledge.required_of(p.source): a text where a match of p can lie."""
    for n in p.needles_b:
        if n in flat:
            break
    else:
        return False
    for clause in (p._scan_info or p.scan_info())[2]:
        for x in clause:
            if x in flat:
                break
        else:
            return False
    return True


class _Squashed:
    """Line 0 alone and joined with what may follow it (its continuation lines, the next line),
    squashed as the prefilter squashes (lower case, no blanks), read only when a pattern asks.
    Every match of a pattern holds one of its needles (knowledge.needles_of) and every clause
    of knowledge.required_of, so a text whose squashed copy lacks them cannot match and is not
    searched (scan._search_text). Whitespace is dropped on both sides, so the joins with '' and
    ' ' squash alike. Only where the pattern's needles and the texts are ASCII: re.IGNORECASE
    matches some non-ASCII letters to ASCII ones ('\u212a' to 'k'), which a byte-wise lower()
    does not."""

    __slots__ = ("text0", "conts", "text1", "_line", "_joins", "_next")

    def __init__(self, text0, conts, text1):
        self.text0, self.conts, self.text1 = text0, conts, text1
        self._line = self._joins = self._next = None

    def joins(self):
        """[squashed line 0 + its first k continuation lines, for k = 1...] ([] without any), or
        None when a text is not ASCII (nothing is ruled out then)."""
        joins = self._joins
        if joins is None:
            conts = self.conts()
            if not self.text0.isascii() or not all(c.isascii() for c in conts):
                joins = self._joins = False
            else:
                joins, acc = [], _squash_text(self.text0)
                for c in conts:
                    acc += _squash_text(c)
                    joins.append(acc)
                self._joins = joins
        return joins if joins is not False else None

    def line_may_hold(self, p):
        """Whether line 0 alone may hold a match of p."""
        if not (p._scan_info or p.scan_info())[1]:
            return True
        got = self._line
        if got is None:
            got = self._line = _squash_text(self.text0) if self.text0.isascii() else False
        return got is False or _may_hold(got, p)

    def first_join(self, p):
        """The fewest continuation lines (1...) whose join with line 0 may hold a match of p
        (past the last one when none may): the joins before it cannot match."""
        joins = self.joins()
        if not joins or not (p._scan_info or p.scan_info())[1]:
            return 1
        if not _may_hold(joins[-1], p):
            return len(joins) + 1
        for k, flat in enumerate(joins, 1):
            if _may_hold(flat, p):
                return k
        return len(joins)  # (not reached: the longest join may hold it)

    def next_may_hold(self, p):
        """Whether line 0 and the next line, joined, may hold a match of p."""
        if not (p._scan_info or p.scan_info())[1]:
            return True
        got = self._next
        if got is None:
            t1 = self.text1()
            got = self._next = (_squash_text(self.text0) + _squash_text(t1)
                                if self.text0.isascii() and t1.isascii() else False)
        return got is False or _may_hold(got, p)


def _patterns_of(kb, needles, scan=None):
    key = None
    if scan is not None:  # (one scan's lines come with a few sets of needles: each sorted once, perf29)
        key = (id(kb), needles if isinstance(needles, frozenset) else frozenset(needles))
        got = scan._pats.get(key)
        if got is not None and got[0] is kb:
            return got[1]
    todo = set()
    for h in needles:
        todo.update(kb.by_hit[h])
    out = sorted(todo, key=kb.order.__getitem__)  # the data's order: stable results
    if key is not None:
        if len(scan._pats) >= MAX_CACHE:
            scan._pats.clear()
        scan._pats[key] = (kb, out)
    return out


def _alone(scan, kb, win, shape0, fs, needles, conts):
    """The patterns of ``needles`` worth trying on the line of ``win``, in the data's order: those that may match its
    first line alone, kept per shape of that line (its bytes with each digit 0, perf29), and of the others those whose
    needles and required text its joins with its continuation lines hold (_Squashed.first_join's test). A pattern left
    out cannot match: on the first line alone, a SHAPE-BLIND one did not match that shape's first line seen (the same
    text but for its digits' values), and another's _relaxed form did not; across the wrap, _search_text would rule it
    out by the same test before searching. A two-line pattern is always kept. The answer is that of trying all."""
    key = (shape0, fs)
    got = scan._alone.get(key)
    if got is None:
        text0 = win.text(0)
        base, rest = [], []
        for p in _patterns_of(kb, needles, scan):
            if _two_line(p):
                base.append(p)
                continue
            r = p.regex if _shape_blind(p) else _relaxed(p)
            (base if r is None or r.search(text0) is not None else rest).append(p)
        # the others by needle, each needle once (a few hundred patterns share a hundred or so needles)
        by_needle, always = {}, []
        for i, p in enumerate(rest):
            if not (p._scan_info or p.scan_info())[1]:
                always.append(i)
                continue
            for n in p.needles_b:
                by_needle.setdefault(n, []).append(i)
        if len(scan._alone) >= MAX_CACHE:
            scan._alone.clear()
        got = scan._alone[key] = (base, rest, tuple(by_needle.items()), always)
    base, rest, by_needle, always = got
    if not rest or not conts:
        return base  # (no continuation line: no join to search)
    joins = _Squashed(win.text(0), win.continuations, None).joins()
    if joins is None:  # (not ASCII: nothing is ruled out)
        return _patterns_of(kb, needles, scan)
    last = joins[-1]
    hold = set()
    for n, idx in by_needle:
        if n in last:
            hold.update(idx)
    # (_may_hold: one of its needles, then every clause of its required text; one without needles is always tried)
    hold = {i for i in hold if _may_hold(last, rest[i])}
    hold.update(always)
    add = [rest[i] for i in sorted(hold)]
    if not add:
        return base
    order = kb.order.__getitem__
    return sorted(base + add, key=order)


def _evaluate(kb, win, needles, only=None):
    """([(pattern, groups, shown, whole line shown)], whether a two-line pattern was tried) for a
    line of at most WINDOW bytes. ``only``: the patterns to try (a shape seen before), else those of the needles."""
    out, multi = [], False
    raw0 = win.raw(0)
    sq0 = _blank_ansi(raw0).translate(_LOWER, _WS)
    text0 = win.text(0)
    text1 = lambda: win.text(1)  # noqa: E731
    sq = _Squashed(text0, win.continuations, text1) if PRUNE else None
    # the longest join of line 0 and its continuation lines, squashed (False: not ASCII, or PRUNE off)
    last = None if PRUNE else False
    # a regex searched once per line: patterns of several entries with the same source and needles answer the
    # same (NCCL's known bugs of kind 'error' share the words of a failure, versions._symptom_entry: three
    # searches of every line with 'error' in it, red team 2026-11-26f)
    done = {}
    for p in (_patterns_of(kb, needles) if only is None else only):
        info = p._scan_info or p.scan_info()
        two = info[0]
        if two:
            multi = True
        needles_b = p.needles_b
        for n in needles_b:
            if n in sq0:
                whole = True
                break
        else:
            whole = False
            if not two and info[1]:
                # only a wrapped message could match: its lines joined must hold a needle (most
                # candidates of a line are hand-written patterns whose needle holds a short one
                # the line has, knowledge.Knowledge: a line with 'failed' and no wrap is cheap)
                if last is None:
                    joins = sq.joins()
                    last = False if joins is None else (joins[-1] if joins else b"")
                if last is not False:
                    for n in needles_b:
                        if n in last:
                            break
                    else:
                        continue
        key = (p.source, whole, tuple(needles_b))
        got = done.get(key)
        if got is None:
            got = done[key] = _search_text(p, text0, win.continuations, text1, whole, sq)
        m, shown, plain = got
        if m:
            out.append((p, m.groupdict(), shown, plain))
    return out, multi


def _evaluate_long(scan, kb, win, needles, wins):
    """The same for a line longer than WINDOW: each pattern is tried on the windows
    [k*STEP, k*STEP + WINDOW) around its own needles (a match up to STEP bytes long lies
    whole in one of them), the first match wins; a window seen before is not tried again.
    A wrapped message is looked for from the line's last STEP bytes."""
    raw0 = win.raw(0)
    last = max(0, (len(raw0) - 1) // STEP)
    spots = {}  # pattern -> window starts (in STEP units)
    for h in needles:
        ks = set()
        for k in wins.get(h, ()):
            k = min(k, last)
            ks.add(k)
            if k:
                ks.add(k - 1)
        for p in kb.by_hit[h]:
            spots.setdefault(p, set()).update(ks)
    texts = {}
    out = []
    wcache = scan._wcache
    for p in _patterns_of(kb, needles):
        found = None
        for k in sorted(spots.get(p, ())):
            piece = raw0[k * STEP:k * STEP + WINDOW]
            known = wcache.get(piece)
            if known is None:
                if len(wcache) >= MAX_WINDOWS_CACHED:
                    wcache.clear()
                known = wcache[piece] = {}
            if p in known:
                got = known[p]
            else:
                text = texts.get(k)
                if text is None:
                    text = texts[k] = _decode(piece)
                m = p.regex.search(text) if not _two_line(p) else None
                got = known[p] = (m.groupdict(), _display(text, m)) if m else None
            if got:
                found = (p, got[0], got[1], False)
                break
        if found is None and (win.continuations() or _two_line(p)):
            tail = _decode(raw0[-STEP:])
            m, shown, _ = _search_text(p, tail, win.continuations, lambda: win.text(1), False)
            if m:
                found = (p, m.groupdict(), shown, False)
        if found:
            out.append(found)
    return out


def _origin_of(win):
    from gpudoctor.explain.text import origin

    return origin(win.raw(0)[:512].decode("utf-8", "replace"))


def _deps(win, flags):
    """What else than line 0 the answer read: its continuation lines (a wrapped message), the
    next line (a two-line pattern)."""
    conts, nxt = flags
    return (tuple(win.continuations()) if conts else None, _norm_prefix(win.raw(1)[:WINDOW]) if nxt else None)


# absl / glog log records. abseil's prefix (abseil-cpp absl/log/internal/log_format.cc FormatLogMessage /
# FormatLogPrefix: "%c%02d%02d %02d:%02d:%02d.%06d %7d %s:%d] ", the first letter of the severity's name I, W, E or F)
# and glog's (google/glog src/logging.cc LogMessage::Init: the same fields, and the year first when its flag
# log_year_in_prefix is set, 'I20251127 ...'); torch's c10 logger prints it in brackets without the thread
# ('[W1126 13:53:31.247387868 ProcessGroupNCCL.cpp:1575]', c10/util/Logging.cpp). XLA, TensorFlow, gRPC, jaxlib and many C++ libraries a job loads
# log this way. A record is the message written whole, newlines and all (absl's LogMessage formats the message into
# one buffer and a sink writes it at once): the lines after its header up to the next record are its body - a
# Status's detail ('Additional GRPC error information from remote target ...', ':UNAVAILABLE:failed to connect to all
# addresses; ... Connection refused', '=== Source Location Trace: ===' and its file lines). A body line has its
# record's severity: under an I or W header it is context, as the header is (a 'went on' note, never a root alone);
# under E or F it stays an error line. The body ends at a blank line, at a line with another launcher tag than its
# header's (srun -l '1: ', '[rank1]:'), at a line that starts a record of its own (another header, a logger's or
# launcher's prefix, a Python traceback or exception line, a level word, a program's 'srun: error: ') and after
# MAX_BODY lines (a line further down is read as its own, as before).
_TAG_B = (rb"(?:\[(?:rank|default|local_rank|node)?\d{1,7}\] {0,2}:? {0,2}|(?:rank)?\d{1,5}: {1,4}"
          rb"|\[\d{1,7},\d{1,7}\]<std(?:out|err)>: {0,4}|\(\w{1,60} pid=\d{1,10}(?:, ip=[\d.]{1,40})?\) {0,4})?")
_REC_HEAD_B = re.compile(
    _TAG_B + (GLOG_SEVERITY + ungrouped(GLOG_WHEN + GLOG_REST)).encode())
_TAG_ONLY_B = re.compile(_TAG_B)
# a line that starts a record of its own: a level word (Python's logging 'ERROR:root:', '[WARNING]'), a program's own
# message ('srun: error: ...', 'slurmstepd: error: ...'), a Python traceback or exception line (_RECORD_HEAD_B)
_OWN_RECORD_B = re.compile(rb"\[?(?:DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL)\b"
                           rb"|[\w./-]{1,60}(?:\[\d{1,10}\])?: (?:error|fatal|warning|warn)\b"
                           # the shell's report of a child killed by a signal (bash jobs.c: its strsignal text, 'bash:
                           # line 1: 4242 Segmentation fault (core dumped)'), libstdc++'s terminate handler, CPython's
                           # fatal error: printed by another program than the record's, never a record's body (review16)
                           rb"|(?:[\w./-]{1,200}: line \d{1,7}: {1,4}\d{1,10} {1,4})?(?:Segmentation fault|Aborted|Killed|"
                           rb"Bus error|Illegal instruction|Floating point exception|Terminated)\b|terminate called |"
                           rb"Fatal Python error: ", re.I)
MAX_BODY = 64  # body lines of one record followed back to its header
MAX_BODY_BYTES = 1 << 16  # bytes walked back from a line to its header


def _line_kind(line):
    """(kind, tag, severity letter) of one line for record_state: 'head' (an absl/glog header), 'stop' (a line that
    is no record's body) or 'plain' (a line that may be the body of the record above it)."""
    m = _REC_HEAD_B.match(line)
    if m:
        return "head", line[:m.start(1)].rstrip(b"[ "), m.group(1)
    t = _TAG_ONLY_B.match(line)
    tag = line[:t.end()].rstrip()
    rest = line[t.end():]
    if (not rest.strip() or _PREFIX_B.match(rest) or _RECORD_HEAD_B.match(rest) or _OWN_RECORD_B.match(rest)):
        return "stop", tag, None
    return "plain", tag, None


def record_state(scan, buf, s):
    """(severity letter, header's tag, lines after the header) when the line of ``buf`` starting at ``s`` is an
    absl/glog header (0) or a line of its body (1..MAX_BODY), else None. Lines are asked in order within a buffer:
    the walk back stops at the last line asked (Scan._rec), so a buffer's lines are read about once."""
    memo = scan._rec
    lines, pos, state, known = [], s, None, False
    lo = max(0, s - MAX_BODY_BYTES)
    while len(lines) <= MAX_BODY:
        if memo is not None and memo[0] is buf and memo[1] == pos:
            state, known = memo[2], True
            break
        end = buf.find(b"\n", pos)
        kind, tag, sev = _line_kind(buf[pos:(len(buf) if end < 0 else end)][:512])
        if kind != "plain":
            state, known = ((sev, tag, 0) if kind == "head" else None), True
            break
        lines.append(tag)
        if pos == 0 or pos <= lo:
            break
        pos = buf.rfind(b"\n", 0, pos - 1) + 1
    if not known:
        state = None  # no header within MAX_BODY lines (or the buffer's start): read as its own
    for tag in reversed(lines):
        state = (state[0], tag, state[2] + 1) if state and state[1] == tag and state[2] < MAX_BODY else None
    scan._rec = (buf, s, state)
    return state


def _in_record(scan, win, got, key=None):
    """``got`` with the severity of the absl/glog record whose body the line is, when it has none of its own.
    ``key``: the line's cache key (_consider): a line that is a header or a record of its own is one whatever comes
    before it, so its kind is read once per such line (a million lines of one error read it once)."""
    if not got[0] or got[1] is not None:
        return got
    if key is not None:
        own = scan._own_kind.get(key)
        if own is None:
            if len(scan._own_kind) >= MAX_CACHE:
                scan._own_kind.clear()
            own = scan._own_kind[key] = _line_kind(win.raw(0)[:512])[0]
        if own != "plain":
            return got
    st = record_state(scan, win.buf, win.start)
    if st and st[2] and st[0] in b"IW":
        return got[0], ("info" if st[0] == b"I" else "warn")
    return got


def _consider(scan, kb, lineno, win, needles, wins=None):
    if not needles:
        return
    raw0 = win.raw(0)
    if len(raw0) > WINDOW:
        scan._shape_now = None
        results = _evaluate_long(scan, kb, win, needles, wins or {})
        scan.tried += 1
        _replay(scan, lineno, win, _in_record(scan, win, (results, severity(win.body(0)[0][:WINDOW]) if results
                                                           else None)))
        return
    # A line seen before (the same bytes once the digits of its prefixes are set aside, the
    # same needles) gets the same answer, if what else it read (the lines after it) is the same.
    fs = frozenset(needles)
    k0 = (_norm_prefix(raw0), fs)
    scan._shape_now = _FIGURES_B.sub(b"0", raw0) if SHAPES else None
    entry = scan._cache.get(k0)
    if entry is not None:
        got = entry[1].get(_deps(win, entry[0]))
        if got is not None:
            scan.replayed += 1
            _replay(scan, lineno, win, _in_record(scan, win, got, k0))
            return
    # A line of a shape seen before (the same bytes with each digit read as 0: a progress line's step, loss and
    # time differ on every line, so the cache above never hits), read alone (no wrapped continuation): a pattern
    # without a digit of its own (SHAPE-BLIND: \d and {m,n} only) that did not match the shape's first line does
    # not match this one either (the same text but for the digits' values), so only the patterns that matched it
    # are tried; a reader that kept nothing from READER_IDLE lines of this shape in a row is not asked again
    # (_reader_idle). Such a line with no pattern left costs its prefilter hit, nothing more (perf21).
    sk = only = None
    partial = False  # an idle reader's pattern left out: the answer is not kept for the line cache
    conts = win.continuations()
    again = False  # the shape was seen once before: what it keeps is worked out now (perf29)
    if SHAPES and len(raw0) >= 8:
        # (a wrapped line's continuation lines are read by its patterns: their shapes are part of the key, perf27)
        sk = (raw0.translate(_ZERO), tuple(c.translate(_ZERO_T) for c in conts), fs)
        only = scan._shapes.get(sk)
        if only is False:
            only, again = None, True
    fresh = only is None
    if fresh and sk is not None and PRUNE:
        # A line whose shape with what follows it is new may still have a first line of a shape seen before: where
        # its unprefixed lines come in any order (1,024 ranks' 'RuntimeError: ...' lines, each reading the next ones
        # as its continuation lines), the key above seldom repeats (perf29: 1,100 keys in 2,000 lines of 10 kinds).
        # The patterns that cannot match its first line alone are tried only where its joins may hold them.
        only = _alone(scan, kb, win, sk[0], fs, needles, conts)
    if SHAPES and scan._idle:
        pats = _patterns_of(kb, needles, scan) if only is None else only
        live = [p for p in pats if not _reader_idle(scan, p)]
        if len(live) < len(pats):
            idle = {id(p) for p in pats} - {id(p) for p in live}
            only, partial = live, True
    if only is not None and not only and (not fresh or all(_reader_idle(scan, p)
                                                           for p in _patterns_of(kb, needles, scan))):
        # (a fresh line whose candidates _alone ruled out is judged, as without it, only sooner: the shape caches
        # and scan.tried stay those of the scan without _alone)
        scan.shape_skipped += 1
        return
    results, multi = _evaluate(kb, win, needles, only)
    scan.tried += 1
    if sk is not None and fresh and not again:
        # a shape seen once is only marked: most of a dense log's keys never come back (perf29), and working out
        # what one keeps costs more than the line
        if len(scan._shapes) >= MAX_CACHE:
            scan._shapes.clear()
        scan._shapes[sk] = False
    elif sk is not None and fresh:
        if len(scan._shapes) >= MAX_CACHE:
            scan._shapes.clear()
        # (a pattern with digits of its own is kept unless its _relaxed form does not match the line with its
        # digits 0: its answer may differ between lines of one shape)
        matched = {id(r[0]) for r in results}
        line0 = None
        keep = []
        # (a pattern _alone left out was not tried, and matches no line of this key: it is pruned as one tried)
        for p in _patterns_of(kb, needles, scan):
            if partial and id(p) in idle:
                keep.append(p)  # (an idle reader's pattern, not tried on this line: it stays the shape's)
            elif multi and _two_line(p):
                # A two-line pattern reads the next line too, which the shape does not fix: it stays the shape's and
                # is tried on every line of it, as before. The others of line 0 and its continuation lines are pruned
                # as for a line read alone (perf27: 'srun: error: node7: task 7: Exited with exit code 1' reads the
                # next task lines as its continuations and has a two-line candidate; its shape was never kept, so
                # 10,000 task lines were each tried against all ~310 candidates, ~2 ms a line).
                keep.append(p)
            elif id(p) not in matched and not _shape_blind(p):
                wide = _relaxed(p)
                if wide is not None:
                    if line0 is None:
                        line0 = win.text(0)  # as it is: wide's digits match any digit
                    # every text _search_text may search: line 0, and its joins with its first k continuation lines
                    # with either separator (a superset of what it searches: wide matches wherever p does)
                    if wide.search(line0) is None and not any(
                            wide.search(line0 + sep + sep.join(conts[:k]))
                            for k in range(1, len(conts) + 1) for sep in ("", " ")):
                        continue
                keep.append(p)
            elif id(p) in matched:
                keep.append(p)
        scan._shapes[sk] = keep
    got = (results, severity(win.body(0)[0]) if results else None)
    flags = (win._cont is not None, multi)
    if entry is None or entry[0] != flags:
        if len(scan._cache) >= MAX_CACHE:
            scan._cache.clear()
        entry = scan._cache[k0] = (flags, {})
    if len(entry[1]) < 16 and not partial:
        entry[1][_deps(win, flags)] = got
    _replay(scan, lineno, win, _in_record(scan, win, got, k0))


READERS = ("_meaning", "_settings")  # fact patterns that hand every candidate line to a reader ('^[^\n]{1,600}')
SHAPES = True  # the shape cache and the readers' idle budget (_consider); tests/test_explain_time_shapes.py compares
READER_IDLE = 64  # lines of one shape in a row a reader kept nothing from, after which it is not asked for that shape
_FIGURES_B = re.compile(rb"[0-9 \t]+")  # a reader's shape of a line: its figures and their padding ('%8d') as one '0'
_ZERO = bytes(b"0"[0] if 48 <= c <= 57 else c for c in range(256))
# a pattern's digits once its {m,n} quantifiers are set aside: one with none (SHAPE-BLIND) answers alike on two lines
# that differ only in their digits' values (\d, \w and \b see every digit alike); '\1' or '[1-9]' count as digits
_QUANT = re.compile(r"\{\d*,?\d*\}")
_BLIND = {}


def _shape_blind(p):
    got = _BLIND.get(p.source)
    if got is None:
        got = _BLIND[p.source] = not re.search(r"\d", _QUANT.sub("", p.source))
    return got


_RELAXED = {}
_ZERO_T = str.maketrans("123456789", "000000000")  # a continuation line's shape (its ASCII digits 0)


def _relaxed(p):
    """Pattern p with each literal digit widened to any digit (a class holding a digit takes every digit), compiled
    with p's flags, or None where that is no wider (a backreference, a negated class or NOT_LITERAL of a digit, an
    atomic group or possessive repeat that tells digits apart; a negative lookaround that does is left out): it
    matches wherever p does, and alike on two texts that differ only in their digits' values. So where it does not
    match a shape's first line, p matches no line of that shape (_consider)."""
    got = _RELAXED.get(p.source, False)
    if got is not False:
        return got
    got = None
    try:
        from gpudoctor.explain.knowledge import _sre

        parser, c = _sre()
        try:
            from re import _compiler as compiler
        except ImportError:  # Python 3.9, 3.10
            import sre_compile as compiler
        digit = (c.IN, [(c.CATEGORY, c.CATEGORY_DIGIT)])
        refs = {getattr(c, n) for n in ("GROUPREF", "GROUPREF_EXISTS", "GROUPREF_IGNORE", "GROUPREF_LOC_IGNORE",
                                        "GROUPREF_UNI_IGNORE") if hasattr(c, n)}

        def reads_digits(sub):
            # whether a part of the pattern tells one digit from another (what widen would change)
            for op, av in sub.data:
                if op in refs or ((op is c.LITERAL or op is c.NOT_LITERAL) and 48 <= av <= 57) or (op is c.IN and any(
                        (o is c.LITERAL and 48 <= a <= 57) or (o is c.RANGE and a[0] <= 57 and a[1] >= 48)
                        for o, a in av)):
                    return True
                if op is c.BRANCH:
                    if any(reads_digits(alt) for alt in av[1]):
                        return True
                elif op is getattr(c, "ATOMIC_GROUP", None):
                    if reads_digits(av):
                        return True
                elif op is c.GROUPREF_EXISTS:
                    return True
                elif op is c.SUBPATTERN or op in _REPEAT_OPS(c) or op in (c.ASSERT, c.ASSERT_NOT):
                    if reads_digits(av[-1]):
                        return True
            return False

        def widen(sub):
            # (red team 2026-11-28g) a negative lookaround that tells digits apart is left out, not widened: widening
            # its body narrows the pattern ('Xid N: (?!(?:63|92)\b)\d+' widened refused every Xid, so an Xid 63 line
            # hid every later Xid line of its shape); without it the pattern is wider, as it must be. An atomic group
            # or a possessive repeat gives back nothing, so a widened alternative in one may end a match p finds: such
            # a pattern is not widened.
            if any(op is c.ASSERT_NOT and reads_digits(av[-1]) for op, av in sub.data):
                sub.data[:] = [(op, av) for op, av in sub.data if not (op is c.ASSERT_NOT and reads_digits(av[-1]))]
            for i, (op, av) in enumerate(sub.data):
                if op in refs or (op is c.NOT_LITERAL and 48 <= av <= 57):
                    raise ValueError("not widened")
                if (op is getattr(c, "ATOMIC_GROUP", None) and reads_digits(av)) or (
                        op is getattr(c, "POSSESSIVE_REPEAT", None) and reads_digits(av[-1])):
                    raise ValueError("not widened")
                if op is c.LITERAL and 48 <= av <= 57:
                    sub.data[i] = digit
                elif op is c.IN:
                    has = any((o is c.LITERAL and 48 <= a <= 57) or (o is c.RANGE and a[0] <= 57 and a[1] >= 48)
                              for o, a in av)
                    if has and any(o is c.NEGATE for o, _a in av):
                        raise ValueError("not widened")
                    if has:
                        av.append((c.CATEGORY, c.CATEGORY_DIGIT))
                elif op is c.BRANCH:
                    for alt in av[1]:
                        widen(alt)
                elif op is c.SUBPATTERN or op in _REPEAT_OPS(c) or op in (c.ASSERT, c.ASSERT_NOT) or \
                        op is getattr(c, "ATOMIC_GROUP", None):
                    inner = av if op is getattr(c, "ATOMIC_GROUP", None) else av[-1]
                    widen(inner)
        flags = p.regex.flags
        tree = parser.parse(p.source, flags)
        widen(tree)
        got = compiler.compile(tree, flags)
    except Exception:  # (an internal of re that moved: the pattern is simply never left out)
        got = None
    _RELAXED[p.source] = got
    return got


def _REPEAT_OPS(c):
    return {op for op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)) if op is not None}


def _reader_idle(scan, p):
    """Whether pattern p hands lines to a reader (READERS) that kept nothing from READER_IDLE lines of the current
    line's shape (its runs of digits and blanks one '0') in a row: a 100 MB log of Megatron-LM's iteration lines asked meaning.record and
    settings.record ~0.4 ms a line for nothing (perf21)."""
    sk = scan._shape_now
    return sk is not None and (p.entry in READERS or p.role == "paste") and scan._idle.get((p, sk), 0) >= READER_IDLE


def _kept_size(obj):
    """What a reader's state holds, in sizes (a list, dict or set) and values (the rest): the same before and after
    a line when the reader kept nothing from it."""
    if obj is None:
        return None
    return tuple(len(v) if isinstance(v, (list, dict, set)) else v for v in vars(obj).values())


def _paste_state(scan):
    # launchpaste.record's readers: its own Paste (whose 'tries' counts every line: never idle), layout's, launchctx's,
    # jobshape's
    return _kept_size(getattr(scan, "paste", None)), _kept_size(getattr(scan, "layout", None)), \
        _kept_size(getattr(scan, "launchctx", None)), _kept_size(getattr(scan, "jobshape", None))


def _reader_kept(scan, p, kept):
    sk = scan._shape_now
    if sk is None:
        return
    key = (p, sk)
    if kept:
        scan._idle.pop(key, None)
        return
    if len(scan._idle) >= MAX_CACHE:
        scan._idle.clear()
    scan._idle[key] = scan._idle.get(key, 0) + 1


def _replay(scan, lineno, win, got):
    """Record what the patterns found on a line (found now, or on a line seen before)."""
    results, sev = got
    if not results:
        return
    origin = None  # who printed it and when: read only for lines that may make a finding (not INFO)
    whole = None
    for p, groups, shown, plain in results:
        if plain:  # the line's own text (its own rank prefix), not the first such line's
            if whole is None:
                whole = win.text(0).strip()
            shown = whole
        # on_info: NCCL prints some failures (a plugin's dlerror, "-> N" return chains) as INFO
        hsev = None if p.on_info else sev
        if origin is None and hsev != "info" and p.role in ("match", "part", "distinct", "generic"):
            origin = _origin_of(win)
            if origin[0] is None and scan.file_rank is not None:  # a per-rank file: its name says whose
                origin = (scan.file_rank,) + origin[1:]
        hit = Hit(lineno, shown, p, groups, hsev, origin)
        role = p.role
        if role == "evidence":
            lst = scan.evidence.setdefault((p.entry, p.cause), [])
            if len(lst) < 3:
                lst.append(hit)
        elif role == "distinct":
            keys = scan.distinct.setdefault(p.entry, {})
            for name, value in groups.items():
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
        elif role == "paste":  # a launch line or launcher config pasted beside the error (launchpaste.py)
            from gpudoctor.explain.launchpaste import record as paste_record

            if not _reader_idle(scan, p):
                before = _paste_state(scan) if scan._shape_now is not None else None
                paste_record(scan, hit, win)
                if before is not None:
                    _reader_kept(scan, p, before != _paste_state(scan))
        elif role == "fact":  # an NCCL INFO line that says what NCCL chose (ncclinfo.py), or hang.py's
            if p.entry == "_hang":
                from gpudoctor.explain.hang import record as hang_record

                hang_record(scan, hit)
            elif p.entry == "_ranks":  # what each rank was doing: watchdog lines, stacks, store keys (rankev.py)
                from gpudoctor.explain.rankev import record as ranks_record

                ranks_record(scan, hit)
            elif p.entry == "_meaning":  # a line that may tell a failure in words (meaning.py)
                from gpudoctor.explain.meaning import record as meaning_record

                if not _reader_idle(scan, p):
                    _reader_kept(scan, p, meaning_record(scan, hit))
            elif p.entry == "_settings":  # a setting in any form, or a told symptom it may explain (settings.py)
                from gpudoctor.explain.settings import record as settings_record

                if not _reader_idle(scan, p):
                    _reader_kept(scan, p, settings_record(scan, hit, win))
            else:
                from gpudoctor.explain.ncclinfo import record

                record(scan, hit)
        elif role == "generic":
            if hit.severity is None and (not scan.errors or scan.errors[-1].line != lineno):
                scan.error_count += 1
                if len(scan.errors) < MAX_SHOWN:
                    scan.errors.append(hit)
                if len(scan.error_lines) < MAX_LINES_KEPT:
                    scan.error_lines.append(lineno)
        else:
            _record(scan, p.entry, hit, p.rank)
            if hsev != "info" and scan.matches.get(p.entry, [None])[-1] is hit and \
                    len(scan.matches[p.entry]) <= MAX_SHOWN:
                from gpudoctor.explain.advice import message_lines  # only the hits an answer can show

                hit.more = message_lines(win, hit)
            if p.entry in ("_struct_exc", "_struct_argparse", "_struct_traceback"):  # pytb reads the traceback
                from gpudoctor.explain import pytb  # (or argparse's usage line) around it

                pytb.RECORD[p.entry](scan, hit, win)
            elif p.entry == "_struct_pip_list":  # (upgrade19) a pip list / conda list table: its rows below
                from gpudoctor.explain import upgrade

                upgrade.record_table(scan, hit, win)


def _record(scan, eid, hit, rank):
    sev = hit.severity
    ranks = scan.rank.setdefault(eid, {})
    ranks[sev] = max(ranks.get(sev, rank), rank)
    scan.first.setdefault(eid, {}).setdefault(sev, hit.line)
    lst = scan.matches.setdefault(eid, [])
    if lst and lst[-1].line == hit.line:  # two patterns of one entry on one line: one match
        # the one whose generated site carries its own fix (what this exact code means) is kept
        if (hit.pattern.site or {}).get("fix") and not (lst[-1].pattern.site or {}).get("fix"):
            lst[-1] = hit
        return
    if len(lst) < (MAX_PG_STATUS if eid in ("_struct_pg_status", "_struct_elastic", "_struct_pkg_version")
                   else MAX_SHOWN):  # (a pip freeze: upgrade.installed reads every package's line)
        lst.append(hit)
    scan.counts[eid] = scan.counts.get(eid, 0) + 1
    ml = scan.match_lines.setdefault(eid, [])
    if len(ml) < MAX_LINES_KEPT:
        ml.append(hit.line)
    _spread(scan, eid, hit)


def _spread(scan, eid, hit):
    """Which ranks and hosts printed an entry's lines, and its earliest line in time (or, with
    no comparable time, in input order): the headline names that one and folds the rest."""
    if hit.severity == "info":  # context, never a finding's origin
        return
    sp = scan.spread.get(eid)
    fi = len(scan.sources) - 1
    if sp is None:
        sp = scan.spread[eid] = {"ranks": set(), "hosts": set(), "earliest": hit, "files": set(), "efile": fi,
                                 "etime": hit.origin[2] if hit.origin else None, "own": [hit]}
    elif fi == sp["efile"] and hit.line > sp["earliest"].line and len(sp["own"]) < MAX_SHOWN and \
            _same_teller(sp["earliest"].origin, hit.origin):
        sp["own"].append(hit)  # the earliest one's own later lines: what the answer quotes under its headline
    o = hit.origin
    if o is None:
        return
    rank, host, when = o
    if rank is not None and len(sp["ranks"]) < MAX_SPREAD:
        sp["ranks"].add(rank)
    if host is not None and len(sp["hosts"]) < MAX_SPREAD:
        sp["hosts"].add(host)
    if scan.sources and len(sp["files"]) < MAX_SPREAD:
        sp["files"].add(len(scan.sources) - 1)
    e = sp["earliest"]
    if when is None or e.origin is None:
        return
    etime = sp["etime"]
    if etime is None:
        # the earliest line has no time of its own (NCCL's WARN lines, a bare traceback): it takes
        # the time of the next line of the same rank in the same file that has one
        if fi == sp["efile"] and e.origin[0] == rank and hit.line > e.line:
            sp["etime"] = when
    elif when[0] == etime[0] and when[1] < etime[1]:
        sp["earliest"], sp["efile"], sp["etime"], sp["own"] = hit, fi, when, [hit]


def _same_teller(a, b):
    """Whether two lines of one file can be one process's: no rank or host that both name differs (NCCL's
    'gpu37:1234:1240 [0] ... WARN' names the host, torch's '[rank296]:' the rank of the same process)."""
    if a is None or b is None:
        return True
    return all(x is None or y is None or x == y for x, y in zip(a[:2], b[:2]))


def _norm_version(value):
    """'2.19.3+cuda12.1' / '(2, 19, 3)' / '2.15.5-1' -> '2.19.3'. PyTorch < 1.10 printed
    NCCL 2.10.3 as '21.0.3' (major*1000+minor*100+patch split wrongly): such values are skipped."""
    import re

    parts = re.findall(r"\d+", value)[:3]
    if len(parts) < 3 or int(parts[0]) >= 10:
        return None
    return ".".join(str(int(x)) for x in parts)


def scan_stream(stream, kb, scan=None, source="<text>"):
    """One pass over a binary stream; memory stays at a few blocks. Each buffer is scanned up
    to its last few lines, which are kept for the next buffer: a candidate line near the end
    still sees the lines after it (a wrapped message), and no line is tried twice.

    ``scan``: a Scan to add this input to (several files of one job): its lines follow the
    previous input's after a gap of 1000 (no `together` group or `near` signal spans two
    files), Scan.sources says which lines are whose."""
    scan = Scan() if scan is None else scan
    tail = b""
    first = base = scan.lines + (1000 if scan.sources else 0)  # lines before the current buffer
    start_bytes = scan.bytes
    scan.sources.append({"path": source, "first_line": first, "lines": 0, "bytes": 0})
    scan.file_rank = rank_of_path(source) if scan.several else None
    eof = False
    scan.skipped = None
    import io

    # a plain file may pass over the rest of its middle for its tail once scan.cut_at is past (stop_reason 'cut')
    scan._cut = scan.cut_at if isinstance(stream, io.BufferedReader) else None
    scan._t0 = time.monotonic()
    kept = b""  # the input's last TAIL bytes of whole lines, up to line ``base``
    while not eof:
        why = scan.stop_reason()
        if why and not scan.stopped:  # (the buffer's own stop says which line it did not judge: keep it)
            scan.stopped = {"reason": why, "line": base + 1}
        if scan.stopped and scan.stopped["reason"] == "cut":  # (perf21) the lines from here on are passed over
            first_not_judged = scan.stopped["line"]
            scan.stopped = None
            got = _skip_to_tail(scan, stream, tail, base)
            if got == "late":  # the deadline passed while counting the middle: no tail read (security.md 32.)
                scan.stopped = {"reason": scan.stop_reason() or "timeout", "line": first_not_judged}
                break
            if got is not None:
                tail, base = got
            scan.skipped = {"line": first_not_judged, "resumed_line": base + 1}
            kept = b""
            continue
        if scan.stopped:
            break
        block = stream.read(BLOCK)
        if not block:
            eof = True
            buf = tail
            if not buf:
                break
            limit = len(buf)
            if getattr(stream, "cut", None) and len(buf) <= HELD_MAX:
                # The reader stopped early (explain's standard input at --timeout or a signal: _StdinUntil.cut)
                # while the last lines it read were held back for a wrapped message: judge them now, as at the
                # end of a file. The stop checks in _scan_buffer would judge none ('tail -f x | gpudoctor explain -'
                # with Ctrl-C after the error line: NO ERROR FOUND, userwalk29); at most HELD_MAX bytes, so the
                # answer still comes promptly after the deadline (docs/security.md 32.)
                held = scan.deadline, scan.interrupted
                scan.deadline, scan.interrupted = None, []
                try:
                    scan.behind = kept
                    _scan_buffer(scan, kb, buf, base, limit)
                finally:
                    scan.deadline, scan.interrupted = held
                kept = (kept + buf[max(0, limit - TAIL):limit])[-TAIL:]
                tail = b""
                base += buf.count(b"\n", 0, limit) + (0 if buf.endswith(b"\n") else 1)
                break
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
        scan.behind = kept
        _scan_buffer(scan, kb, buf, base, limit)
        kept = (kept + buf[max(0, limit - TAIL):limit])[-TAIL:]
        tail = buf[limit:]
        base += buf.count(b"\n", 0, limit)
        if eof and not buf.endswith(b"\n"):
            base += 1  # the last line has no newline
    scan.lines = base
    scan._cut = None
    from gpudoctor.explain.hang import MAX_USER_TAILS, summarize_tail

    scan.tails.append(summarize_tail(source, base, kept, keep_user=len(scan.tails) < MAX_USER_TAILS))
    from gpudoctor.explain import outcome  # what the job went on to do after its failure lines (outcome.py)

    outcome.record(scan, source, base, kept)
    src = scan.sources[-1]
    src["lines"], src["bytes"] = base - first, scan.bytes - start_bytes
    if scan.skipped is not None:  # the answer covers the lines before and from resumed_line on: said as a stop
        st = dict(scan.stopped or {"reason": "timeout"})
        if scan.stopped:  # the tail too was cut short: from this line on
            st["stopped_again"] = st["line"]
        st.update(scan.skipped)
        scan.stopped = st
    if scan.stopped and "source" not in scan.stopped:
        scan.stopped.update(source=source, bytes_read=src["bytes"])
    return scan


def _skip_to_tail(scan, stream, tail, base):
    """(bytes left of the first line kept, lines before them) after passing over the middle of a plain file up to its
    last TAIL_SCAN bytes, counting its lines (C speed), or None (not a plain file, or its rest is short). The lines
    passed over are scan.skipped; scan.stopped says so once the input ends (a timeout that read on at line N).
    "late" where the deadline passed while counting: a file of holes (truncate -s 1T) reads at disk or page speed,
    and the count looks at the deadline each block as the scan does (docs/security.md 32.)."""
    import io

    if not isinstance(stream, io.BufferedReader):
        return None
    try:
        import os

        size = os.fstat(stream.fileno()).st_size
        pos = stream.tell()
    except (OSError, ValueError):
        return None
    # the tail this file's time left can read, at the rate its lines were read so far (a loaded machine reads less)
    left = (scan.deadline - time.monotonic()) if scan.deadline is not None else None
    spent = time.monotonic() - scan._t0
    want = TAIL_SCAN if left is None or spent <= 0 else int(min(TAIL_SCAN, max(1 << 16, 0.5 * left * pos / spent)))
    if size - pos <= want:
        return None  # (read on from here: the rest is the tail)
    start = pos
    n = tail.count(b"\n")
    last = tail.rfind(b"\n")
    partial = len(tail) - last - 1 if last >= 0 else len(tail)  # (bytes of an unfinished line before pos)
    target = size - want
    while pos < target:
        if scan.stop_reason() not in (None, "cut"):  # past the deadline, or a signal
            scan.bytes += stream.tell() - start
            return "late"
        block = stream.read(min(BLOCK, target - pos))
        if not block:
            break
        pos += len(block)
        n += block.count(b"\n")
        last_nl = block.rfind(b"\n")
        partial = len(block) - last_nl - 1 if last_nl >= 0 else partial + len(block)
    rest = b""
    if partial:  # finish the line the target fell in: it is passed over too
        while True:
            if scan.stop_reason() not in (None, "cut"):
                scan.bytes += stream.tell() - start
                return "late"
            block = stream.read(BLOCK)
            if not block:
                break
            i = block.find(b"\n")
            if i >= 0:
                n += 1
                rest = block[i + 1:]
                break
    scan.bytes += stream.tell() - start
    return rest, base + n


# Names of per-rank files: 'rank3.log', 'rank_3.out', 'log_rank3.txt', torchrun --log-dir's
# '<run>/attempt_0/<local rank>/stderr.log' (torch/distributed/elastic/multiprocessing/api.py)
_RANK_FILE = re.compile(r"(?:^|[^a-z])rank[_-]?(\d{1,7})(?:\.\w{1,5})?$", re.I)
_TORCHRUN_FILE = re.compile(r"attempt_\d+/(\d{1,5})/std(?:out|err)\.log$")


def rank_of_path(path):
    """'3' for rank3.log, 'local 3' for torchrun's attempt_0/3/stderr.log, else None."""
    if not isinstance(path, str):
        return None
    norm = path.replace("\\", "/")
    m = _TORCHRUN_FILE.search(norm)
    if m:
        return "local %d" % int(m.group(1))
    m = _RANK_FILE.search(norm.rsplit("/", 1)[-1])
    return str(int(m.group(1))) if m else None


def _wrap_target(buf, s, line_end, rfind, prefix_at):
    """(start of the line before, end of this line's lead) when the line at s may be the
    continuation of a wrapped message from the line before, else (-1, 0): it has no log prefix
    of its own and does not start deeper than the block, and the line before is long enough
    to have been wrapped and has the same lead (a pasted block's indentation or '> ')."""
    k = s
    while k < s + 16 and k < line_end and buf[k] in _LEAD_SET:
        k += 1
    if k >= line_end or buf[k] in _NOT_CONTINUATION or buf[k] == 62 or prefix_at(buf, k):
        return -1, 0
    ps = rfind(b"\n", 0, s - 1) + 1
    if s - 1 - ps >= MIN_WRAPPED and buf[ps:ps + k - s] == buf[s:k] and \
            (ps + k - s >= s - 1 or buf[ps + k - s] not in _LEAD_SET):
        return ps, k
    return -1, 0


def _blanks(count, a, b):
    return count(b" ", a, b) + count(b"\n", a, b) + count(b"\t", a, b) + count(b"\r", a, b)


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


def _hits(kb, flat):
    """(squashed offset, needle) of every prefilter hit, in order, SUB bytes of the squashed
    block at a time (memory stays bounded when a block is one needle repeated)."""
    size, reach = len(flat), kb_reach(kb)
    for a in range(0, size, SUB):
        b = min(size, a + SUB)
        end = min(size, b + reach)
        lookup = getattr(kb, "hits", None)
        if lookup is not None:  # Knowledge.hits: the prefilter regexes, or a short text's lookup
            yield lookup(flat, a, end, b)
            continue
        found = []
        for pre in kb.prefilters:
            batch = getattr(pre, "hits", None)
            if batch is not None:
                found.extend(batch(flat, a, end, b))
                continue
            for m in pre.finditer(flat, a, end):
                if m.start() >= b:
                    break
                found.append((m.start(), m.group()))
        found.sort()
        yield found


def kb_reach(kb):
    got = getattr(kb, "_reach", None)
    if got is None:
        got = max((len(n) for n in kb.by_hit), default=1)
        try:
            kb._reach = got
        except AttributeError:
            pass
    return got


def _scan_buffer(scan, kb, buf, base, limit):
    """Candidate lines of one buffer (whole lines) that start before ``limit``, in order,
    each tried once; the lines after ``limit`` are only looked at as continuations."""
    plain = _blank_ansi(buf)
    flat = plain.translate(_LOWER, _WS)
    start_of = _Mapper(plain)
    rfind = buf.rfind
    cands = {}  # line start -> the needles found from it
    wins = {}  # line start -> {needle: window indices (offset // STEP) where it is}, for long lines
    prefix_at = _PREFIX_B.match
    find = buf.find
    count = plain.count
    s, line_end = 0, -1  # the line of the last hit: [s, line_end), line_end -1 before the first
    q_s = q_end = -1  # that line's start and end in the squashed block
    islong, bounds, cur_c, cur_w, last, wrap = False, None, None, None, None, None
    stop = False
    retired = scan.retired
    for nb, found in enumerate(_hits(kb, flat)):
        if nb and scan.past_deadline():  # one 4 MiB line of 'error ' holds 700,000 hits: ~3 s past a 1 s deadline
            # the line it stopped at is the first one not judged: the block's first candidate line (its lines were
            # found, never judged), not the last line with a needle (red team 2026-11-26f: an OOM on line 5 of a
            # long log read 'stopped at line 63775', as if the lines before it had no error)
            first = min(cands) if cands else max(s, 0)
            scan.stopped = {"reason": scan.stop_reason(), "line": base + 1 + buf.count(b"\n", 0, first)}
            return
        for qs, needle in found:
            if retired and not _live_needles(scan, kb, (needle,)):
                continue  # (it leads only to patterns retired in an earlier block: no candidate, nothing mapped)
            if qs >= q_end:  # the first hit on a new line: map it back once (hits come in order)
                o = start_of(qs)
                s = rfind(b"\n", max(0, line_end), o) + 1
                line_end = find(b"\n", o)
                if line_end < 0:
                    line_end = len(buf)
                q_s = qs - (o - s - _blanks(count, s, o))
                q_end = qs + (line_end - o) - _blanks(count, o, line_end)
                if s > limit:
                    stop = True
                    break
                last = wrap = None
                islong = line_end - s > WINDOW
                if islong:  # the squashed offsets where its windows start: a hit's window needs no mapping
                    q, pos, bounds = q_s, s, [q_s]
                    while pos + STEP < line_end:
                        q += STEP - _blanks(count, pos, pos + STEP)
                        pos += STEP
                        bounds.append(q)
                if s < limit:  # the first line after the limit is scanned with the next buffer, but it
                    cur_c = cands.get(s)  # may still be the continuation of a line before it (below)
                    if cur_c is None:
                        cur_c = cands[s] = set()
                    cur_w = wins.setdefault(s, {})
                else:
                    cur_c = None
            else:
                o = None
            if cur_c is not None:
                cur_c.add(needle)
                k = bisect_right(bounds, qs) - 1 if islong else 0
                if (needle, k) != last:
                    last = (needle, k)
                    w = cur_w.get(needle)
                    if w is None:
                        w = cur_w[needle] = {0}
                    w.add(k)
            if not s or qs - q_s >= WRAP_REACH:
                continue
            # Near the start of a line without a prefix of its own, the needle (often a short
            # part of the pattern's text) may be the rest of a message wrapped from the line
            # before: try the pattern there too. Whether the line can continue the one before
            # is decided once per line.
            if wrap is None:
                wrap = _wrap_target(buf, s, line_end, rfind, prefix_at)
            if wrap[0] < 0:
                continue
            if o is None:
                o = start_of(qs)
            if o - s < WRAP_REACH and o >= wrap[1]:
                c = cands.get(wrap[0])
                if c is None:
                    c = cands[wrap[0]] = set()
                c.add(needle)
        if stop:
            break
    if not cands:
        return
    counted, line = 0, base
    for n, s in enumerate(sorted(cands)):
        if not n & 63 and scan.past_deadline():
            scan.stopped = {"reason": scan.stop_reason(), "line": line + 1 + buf.count(b"\n", counted, s)}
            return
        line += buf.count(b"\n", counted, s)
        counted = s
        needles = cands[s]
        if scan.retired:
            needles = _live_needles(scan, kb, needles)
            if not needles:
                continue
        _consider(scan, kb, line + 1, _Window(buf, s), needles, wins.get(s))


def _live_needles(scan, kb, needles):
    """The needles of a candidate line that lead to a pattern not retired (Scan.retire)."""
    live, retired = scan._live, scan.retired
    out = set()
    for h in needles:
        ok = live.get(h)
        if ok is None:
            ok = live[h] = not all(p in retired for p in kb.by_hit[h])
        if ok:
            out.add(h)
    return out
