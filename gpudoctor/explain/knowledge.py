"""Loading and validating the knowledge entries (TOML data), and deriving each pattern's
prefilter needles from the regex itself.

Matching is case-insensitive and blind to whitespace in the prefilter: every needle is
lower-cased and has its whitespace removed, because the scanner looks for needles in a
lower-cased copy of the log with all whitespace deleted (scan.py). That is what lets a
message wrapped over two lines by a terminal or an issue form still be found.
"""

import os
import re

KINDS = ("error", "warning", "echo")
MIN_NEEDLE = 4
MAX_NEEDLE = 24
HEAD = 3  # every needle is at least this long (Pattern): the short-text search looks its first bytes up
SMALL_TEXT = 1 << 18  # squashed bytes a process searches without compiling the prefilter regexes
TINY_TEXT = 1 << 12  # squashed bytes searched without even the table of the needles' first bytes
GENERATED_RANK = 30  # rank of a generated message site unless its entry sets site_rank
_ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")
_URL = re.compile(r"^https?://\S+$")
_WS = b" \t\r\n"
FLAGS = re.IGNORECASE


_LOOKS_PAST_END = re.compile(r"\(\?[=!>(]|\\Z|\$|[*+?}]\+")  # (?= (?! (?> (?( \Z $ and *+ ++ ?+ }+
_WORD_EDGE = re.compile(r"\\[bB]")


class KnowledgeError(Exception):
    """A knowledge entry is malformed (a bug in the data, reported at load time)."""


def squash(text):
    """A needle as the prefilter sees it: lower case, no whitespace (bytes)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return data.lower().translate(None, _WS)


class Pattern:
    """One regex of an entry. role: match (makes a finding), distinct (values compared across
    the log), evidence (moves a cause up), signal (raises the entry's score), part (one line of
    a `together` group)."""

    __slots__ = ("entry", "role", "cause", "rank", "source", "_regex", "needles_b", "multiline",
                 "weight", "near", "group", "index", "on_info", "site", "_scan_info")

    def __init__(self, entry, role, source, rank, cause=None, weight=0, near=None, group=None, index=None,
                 on_info=False, site=None, needles=None):
        self.entry, self.role, self.source, self.rank, self.cause = entry, role, source, rank, cause
        self.on_info = on_info
        self.site = site  # a generated message site ({"id", "where", "text", ...}) or None
        self.weight, self.near, self.group, self.index = weight, near, group, index
        if not isinstance(source, str):
            raise KnowledgeError("%s: a pattern must be a string, not %r" % (entry, source))
        self.multiline = "\\n" in source or "\n" in source
        self._regex = self._scan_info = None
        if needles is not None:
            # a generated site: its needles were derived when it was generated (tools/knowgen.py),
            # its regex is compiled when a line first needs it (thousands of sites: load time)
            self.needles_b = sorted({n.encode("utf-8")[:MAX_NEEDLE] for n in needles})
            if not self.needles_b or min(len(n) for n in self.needles_b) < 3:
                raise KnowledgeError("%s: site %s has no needle" % (entry, site and site.get("id")))
            return
        # compiled when a line first needs it (Pattern.regex): most patterns never run on a short
        # text. needles_of parses it (a bad regex is refused here); load_knowledge(files) compiles
        # a given file's patterns at load, tests/test_explain.py every built-in one
        try:
            raw = _needles_memo(source)
        except (re.error, RecursionError, OverflowError) as exc:
            raise KnowledgeError("%s: pattern %r does not compile: %s" % (self.entry, self.source, exc))
        # a prefix of a required literal is required too: long needles are cut, which keeps the
        # prefilter's containment index small (Knowledge) with thousands of generated patterns
        self.needles_b = sorted({squash(n)[:MAX_NEEDLE] for n in raw})
        if not raw or min(len(n) for n in raw) < MIN_NEEDLE or min(len(n) for n in self.needles_b) < 3:
            raise KnowledgeError("%s: pattern %r has no literal run of %d+ non-blank characters to prefilter on"
                                 % (entry, source, MIN_NEEDLE))

    def _compile(self):
        try:
            return re.compile(self.source, FLAGS)
        except re.error as exc:
            raise KnowledgeError("%s: pattern %r does not compile: %s" % (self.entry, self.source, exc))

    @property
    def needles(self):
        """The needles as text (needles_b decoded)."""
        return [n.decode("utf-8", "replace") for n in self.needles_b]

    @property
    def regex(self):
        got = self._regex
        if got is None:
            got = self._regex = self._compile()
        return got

    def scan_info(self):
        """(whether it reads the next line, whether its needles are ASCII, required_of(source),
        whether a match in a text is still one when ' ' and more follow, and when anything
        follows): what the scanner asks of it for every candidate line (scan._evaluate,
        scan._search_text), worked out once."""
        got = self._scan_info
        if got is None:
            from gpudoctor.explain.scan import _two_line

            # A match of a regex without lookaheads, end anchors, atomic groups or possessive
            # quantifiers (which look past where it ends, or never give back what they took) is
            # still found when more text follows; '\b' / '\B' look at the next character, which
            # a following ' ' leaves as the end of the text left it (neither is a word character)
            tail = not _LOOKS_PAST_END.search(self.source)
            got = self._scan_info = (_two_line(self), all(n.isascii() for n in self.needles_b),
                                     required_of(self.source), tail, tail and not _WORD_EDGE.search(self.source))
        return got


def _sre():
    try:
        from re import _parser as parser, _constants as const  # Python 3.11+
    except ImportError:  # Python 3.9, 3.10
        import sre_constants as const
        import sre_parse as parser
    return parser, const


def _literal_choices(op, av, c):
    """The alternatives of a branch (bare, or in a group) when each is a plain literal, else None."""
    if op is c.SUBPATTERN:
        body = list(av[-1])
        if len(body) != 1:
            return None
        op, av = body[0]
    if op is not c.BRANCH:
        return None
    out = []
    for alt in av[1]:
        alt = list(alt)
        if not alt or any(o is not c.LITERAL for o, _ in alt):
            return None
        out.append("".join(chr(v) for _, v in alt))
    return out


_NEEDLES = {}  # regex source -> needles_of(source): derived once per process, or read from kcache
_DERIVED = [0]  # how many needles_of calls _needles_memo made


def _needles_memo(source):
    got = _NEEDLES.get(source)
    if got is None:
        got = needles_of(source)
        _NEEDLES[source] = got
        if got:  # (kcache keeps no empty list: counting one would write the cache again at every run)
            _DERIVED[0] += 1
    return got


def needles_of(regex):
    """Literal strings, one of which every text the regex matches must contain (the longest
    required literal run; for an alternation, one run per branch)."""
    parser, c = _sre()

    def seq(items):
        best, run = None, []

        def size(cands):
            return min(len("".join(x.split())) for x in cands)

        def consider(cands):
            nonlocal best
            if cands and (best is None or size(cands) > size(best)):
                best = cands

        for op, av in list(items) + [(None, None)]:
            if op is c.LITERAL:
                run.append(chr(av))
                continue
            consider(["".join(run)] if run else None)
            if run:
                # a literal run then a choice of literals ('site-packages/(?:vllm|flash_attn)/'): the
                # run joined with each choice is required too, and far rarer than the run alone
                alts = _literal_choices(op, av, c)
                if alts:
                    consider(["".join(run) + a for a in alts])
            run = []
            if op is c.SUBPATTERN:
                consider(seq(av[-1]))
            elif op is c.BRANCH:
                alts = [seq(b) for b in av[1]]
                if all(alts):
                    consider(sorted({n for a in alts for n in a}))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] >= 1:
                consider(seq(av[2]))
        return best

    return seq(parser.parse(regex)) or []


class _GiveUp(Exception):
    pass


_QUANT = re.compile(r"\{(\d*)(,(\d*))?\}")
_CLASS_ESC = set("AbBZdDsSwW")
_CTRL = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v", "a": "\a"}


def required_of(source):
    """Clauses that every text a match of ``source`` lies in must satisfy, read from the regex
    source alone (a cheap walk, not sre's parser: this runs for thousands of patterns that a log
    may never make compile): a tuple of clauses, each a tuple of squashed literals (lower case,
    no blanks, as the prefilter squashes) one of which the matched text holds. A top-level
    literal run is a clause of one; a group's alternatives give one clause of their longest
    runs. What the walk does not know (inline verbose flags, backreferences, conditionals,
    '{' that is not a quantifier) gives no clause at all: never a clause a match could miss.
    Clauses with non-ASCII letters are left out (re.IGNORECASE folds some to ASCII ones)."""
    try:
        alts, i = _req_alts(source, 0)
        if i != len(source):
            raise _GiveUp
    except (_GiveUp, IndexError, ValueError):
        return ()
    # the longest first (the rarest), a clause of one or two bytes left out (it rules out nothing)
    got = {c for c in _req_group(alts) if min(len(x) for x in c) >= 3}
    return tuple(sorted(got, key=lambda c: (-min(len(x) for x in c), c)))


def _req_group(alts):
    """The clauses of a group whose alternatives' clauses are ``alts``."""
    if len(alts) == 1:
        return alts[0]
    out = set()
    for clauses in alts:
        if not clauses:
            return []  # an alternative without a required literal: nothing is required
        out.update(max(clauses, key=lambda c: min(len(x) for x in c)))
    return [tuple(sorted(out))]


def _req_alts(s, i):
    """([clauses of each alternative], index of the ')' that ends them or len(s))."""
    alts, clauses, run = [], [], []

    def flush():
        if run:
            lit = squash("".join(run))
            if lit and lit.isascii():
                clauses.append((lit,))
            del run[:]

    n = len(s)
    while i < n:
        c = s[i]
        if c == ")":
            break
        if c == "|":
            flush()
            alts.append(clauses)
            clauses, i = [], i + 1
            continue
        kind, lit, inner = "other", None, None
        if c == "\\":
            d = s[i + 1]
            i += 2
            if d in _CLASS_ESC:
                kind = "other"
            elif d == "x":
                kind, lit = "lit", chr(int(s[i:i + 2], 16))
                i += 2
            elif d in _CTRL:
                kind, lit = "lit", _CTRL[d]
            elif d.isalnum() or d == "_":
                raise _GiveUp  # backreferences, \u, \N, octal
            else:
                kind, lit = "lit", d
        elif c == "[":
            j = i + 1
            if j < n and s[j] == "^":
                j += 1
            if j < n and s[j] == "]":
                j += 1
            while s[j] != "]":
                j += 2 if s[j] == "\\" else 1
            i = j + 1
        elif c == "(":
            if s.startswith("(?", i):
                t = s[i + 2]
                if t == ":" or t == ">":
                    kind, i = "group", i + 3
                elif s.startswith("(?P<", i):
                    kind, i = "group", s.index(">", i) + 1
                elif t in "=!" or s.startswith("(?<=", i) or s.startswith("(?<!", i):
                    # a positive lookaround's text is in the searched text (not always in the match): its clauses
                    # are required of the text as a group's are; a negative one's are not
                    kind = "look" if t == "!" or s.startswith("(?<!", i) else "poslook"
                    i += 3 if t in "=!" else 4
                elif t == "#":
                    i = s.index(")", i) + 1
                    continue
                else:
                    m = re.match(r"\(\?([aiLmsux]*)(?:-([imsx]+))?([:)])", s[i:])
                    if not m or "x" in (m.group(1) + (m.group(2) or "")):
                        raise _GiveUp  # verbose, conditionals, (?P=name)
                    if m.group(3) == ")":
                        i += m.end()
                        continue
                    kind, i = "group", i + m.end()
            else:
                kind, i = "group", i + 1
            if kind in ("group", "look", "poslook"):
                inner, i = _req_alts(s, i)
                if s[i] != ")":
                    raise _GiveUp
                i += 1
        elif c in ".^$":
            i += 1
        elif c in "*+?{":
            raise _GiveUp  # a quantifier with nothing before it, or '{' as a literal
        else:
            kind, lit = "lit", c
            i += 1
        # its quantifier
        least = 1
        if i < n and s[i] in "*+?{":
            if s[i] == "{":
                m = _QUANT.match(s, i)
                if not m or (not m.group(1) and not m.group(2)):
                    raise _GiveUp
                least = int(m.group(1) or 0)
                i = m.end()
            else:
                least = 0 if s[i] in "*?" else 1
                i += 1
            if i < n and s[i] in "?+":
                i += 1
            quantified = True
        else:
            quantified = False
        if kind == "lit":
            if least:
                run.append(lit)
            if quantified:
                flush()
        else:
            flush()
            if kind in ("group", "poslook") and least:
                clauses.extend(_req_group(inner))
    flush()
    alts.append(clauses)
    return alts, i


class Knowledge:
    """Every entry, its compiled patterns and the prefilter regexes over squashed bytes."""

    def __init__(self, entries, extra_patterns=()):
        self.entries = entries
        self.by_id = {e["id"]: e for e in entries}
        self.patterns = []
        for e in entries:
            self.patterns.extend(e["_patterns"])
            for cause in e["causes"]:
                self.patterns.extend(cause["_evidence"])
        self.patterns.extend(extra_patterns)
        # Each first byte costs the prefilter one pass over the log: a generated site's needle that
        # starts with a byte no hand-written needle starts with ('***', '(', a quote) is cut to
        # its rest from the first byte that has a pass anyway (a part of a required literal is
        # required too).
        firsts = {n[:1] for p in self.patterns if p.site is None for n in p.needles_b}
        for p in self.patterns:
            if p.site is not None and any(n[:1] not in firsts for n in p.needles_b):
                cut = []
                for n in p.needles_b:
                    i = 0
                    while i < len(n) and n[i:i + 1] not in firsts:
                        i += 1
                    cut.append(n[i:] if len(n) - i >= 6 else n)
                p.needles_b = sorted(set(cut))
        needles = set()
        for p in self.patterns:
            needles.update(p.needles_b)
        self.order = {p: i for i, p in enumerate(self.patterns)}
        lengths = sorted({len(n) for n in needles})
        self._longest_first = lengths[::-1]

        def inside(n):
            """The needles n contains (itself included): its substrings of the lengths that occur
            (each needle is at most MAX_NEEDLE long)."""
            got = set()
            for k in lengths:
                if k > len(n):
                    break
                for i in range(len(n) - k + 1):
                    sub = n[i:i + k]
                    if sub in needles:
                        got.add(sub)
            return got

        # One regex per first byte: the byte as a literal (which the regex engine finds with a fast
        # scan; one trie over every needle is ~3x slower, bench/explain_bench.py), then a trie of
        # the rest in a lookahead, so that needles overlapping each other are all found: a hit
        # is the longest needle that starts at that byte.
        # (built when a text first needs them: compiling them is half of loading the knowledge, and a
        # short text is searched without them, Knowledge.hits)
        self._needles = frozenset(needles)
        self._prefilters = self._heads = None
        self._small_left = SMALL_TEXT
        # a hit (the longest needle starting at that byte) -> the patterns to try on its line:
        # - hand-written patterns: every one whose needle contains a shortest hand-written needle
        #   inside the hit (a short needle on the next line finds a message wrapped across a
        #   quoted or indented paste, scan.py);
        # - generated message sites: those whose own needle is inside the hit, so that a hit of
        #   'failed' never tries the hundreds of generated messages that contain 'failed'.
        # - the structural lines (knowledge.STRUCTURAL: traceback frames of 16 libraries, ...) like
        #   generated sites: a line of 'site-packages/torch/...' must not try every library's frame
        #   pattern because some hand-written needle is 'site-packages/' (a frame is never wrapped)
        def own_needle_only(p):
            return p.site is not None or p.entry.startswith("_struct")

        having, site_having = {}, {}  # needle -> the hand-written / own-needle-only patterns with it
        for p in self.patterns:
            mine = site_having if own_needle_only(p) else having
            for n in p.needles_b:
                mine.setdefault(n, {})[p] = True
        hand = sorted(having)
        minimal_memo = {}

        def with_minimal(m):
            """The hand-written patterns with a needle that contains m, when m is a shortest
            hand-written needle (no other one inside it), else none. Worked out when a hit
            first needs it (a few per short text; at most once per hand-written needle)."""
            got = minimal_memo.get(m)
            if got is None:
                got = {}
                if not any(h in m and h != m for h in hand):
                    for n in hand:
                        if m in n:
                            got.update(having[n])
                minimal_memo[m] = got
            return got

        order = self.order

        def patterns_of(n):
            got = {}
            for m in inside(n):
                if m in having:
                    got.update(with_minimal(m))
                got.update(site_having.get(m, {}))
            return sorted(got, key=order.__getitem__)

        # computed for a needle when a log first hits it (most of thousands never are)
        self.by_hit = _ByHit(needles, patterns_of)

    def check_ids(self):
        return sorted({cid for e in self.entries for c in e["causes"] for cid in c.get("checks", ())})

    @property
    def prefilters(self):
        """The prefilter regexes, one per first byte (compiled on first use)."""
        got = self._prefilters
        if got is None:
            groups = {}
            for n in self._needles:
                groups.setdefault(n[:1], []).append(n[1:])
            got = self._prefilters = [_Prefilter(first, rests) for first, rests in sorted(groups.items())]
        return got

    def hits(self, flat, pos, endpos, before):
        """[(start, needle)] in order: at each offset of flat[pos:before] where a needle starts, the
        longest one that ends by ``endpos`` (what the prefilter regexes find). The first SMALL_TEXT
        bytes a process scans (a pasted line, a short log) are looked up in the needle set instead:
        compiling the regexes costs more than that (docs/benchmarks.md, explain)."""
        if self._prefilters is None and before - pos <= self._small_left:
            self._small_left -= max(0, before - pos)
            return self._small_hits(flat, pos, endpos, before)
        found = []
        for pre in self.prefilters:
            found.extend(pre.hits(flat, pos, endpos, before))
        found.sort()
        return found

    def _small_hits(self, flat, pos, endpos, before):
        heads = self._heads
        if heads is None and before - pos <= TINY_TEXT:
            # a line or two: every needle length at every offset costs less than the table below
            needles, out = self._needles, []
            for i in range(pos, min(before, endpos)):
                for k in self._longest_first:
                    if i + k <= endpos:
                        n = flat[i:i + k]
                        if n in needles:
                            out.append((i, n))
                            break
            return out
        if heads is None:
            # the first HEAD bytes of every needle -> the needles' lengths, longest first
            got = {}
            for n in self._needles:
                if len(n) < HEAD:  # (Pattern refuses such needles)
                    self._small_left = 0
                    return self.hits(flat, pos, endpos, before)
                got.setdefault(n[:HEAD], set()).add(len(n))
            heads = self._heads = {h: sorted(ls, reverse=True) for h, ls in got.items()}
        needles, get, out = self._needles, heads.get, []
        for i in range(pos, min(before, endpos)):
            lengths = get(flat[i:i + HEAD])
            if lengths:
                for k in lengths:
                    if i + k <= endpos:
                        n = flat[i:i + k]
                        if n in needles:
                            out.append((i, n))
                            break
        return out


class _ByHit(dict):
    """needle -> the patterns to try, computed on first use; iterating gives every needle."""

    def __init__(self, needles, compute):
        super().__init__()
        self._needles, self._compute = frozenset(needles), compute

    def __missing__(self, needle):
        if needle not in self._needles:
            raise KeyError(needle)
        got = self[needle] = self._compute(needle)
        return got

    def __iter__(self):
        return iter(self._needles)

    def __len__(self):
        return len(self._needles)

    def __contains__(self, needle):
        return needle in self._needles

    def keys(self):
        return self._needles

    def items(self):
        return ((n, self[n]) for n in self._needles)

    def values(self):
        return (self[n] for n in self._needles)


class _PrefilterHit:
    __slots__ = ("_start", "_needle")

    def __init__(self, start, needle):
        self._start, self._needle = start, needle

    def start(self):
        return self._start

    def group(self):
        return self._needle


class _Prefilter:
    """The needles that start with one byte, found wherever they start (overlapping ones too):
    finditer(data, pos, endpos) yields hits with start() and group() (the needle), like re's."""

    __slots__ = ("first", "rx")

    def __init__(self, first, rests):
        self.first = first
        self.rx = re.compile(re.escape(first) + b"(?=(" + _bytes_trie(rests) + b"))")

    def finditer(self, data, pos=0, endpos=None):
        first = self.first
        for m in self.rx.finditer(data, pos, len(data) if endpos is None else endpos):
            yield _PrefilterHit(m.start(), first + m.group(1))

    def hits(self, data, pos, endpos, before):
        """[(start, needle)] of the hits in data[pos:endpos] that start before ``before``, as
        one list (the scanner's hot loop: no object per hit; scan.py _hits)."""
        first = self.first
        out = []
        add = out.append
        for m in self.rx.finditer(data, pos, endpos):
            st = m.start()
            if st >= before:
                break
            add((st, first + m.group(1)))
        return out


_ESCAPED = [re.escape(bytes([i])) for i in range(256)]


def _bytes_trie(needles):
    """The prefilter over bytes: a trie of the needles. (Built on every load: with ~100,000 trie
    nodes from the generated sites, one re.escape() call and one sort of (key, subtree) pairs per
    node were half of the build; the escaped bytes come from a table and only the keys are sorted.
    The regex is byte-for-byte the same.)"""
    trie = {}
    for w in needles:
        d = trie
        for b in w:
            d = d.setdefault(b, {})
        d[None] = True

    def build(d):
        end = d.pop(None, False)
        alts = [_ESCAPED[k] + build(d[k]) for k in sorted(d)]
        if not alts:
            return b""
        s = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
        return b"(?:" + s + b")?" if end else s

    return build(trie)


def knowledge_files():
    """checks/*.knowledge.toml (beside the checks that confirm them), then data/knowledge/*.toml."""
    import gpudoctor.checks as checks_pkg

    out = []
    for folder in list(checks_pkg.__path__):
        out.extend(os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".knowledge.toml"))
    data = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "knowledge")
    if os.path.isdir(data):
        out.extend(os.path.join(data, n) for n in sorted(os.listdir(data)) if n.endswith(".toml"))
    return out


def _toml():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    return tomllib


ENTRY_KEYS = {"id", "title", "kind", "rank", "explain", "patterns", "distinct", "causes", "references", "debug",
              "lookup", "family", "signals", "together", "note", "computed", "site_rank", "generic", "known_bug", "structural",
              "by_evidence", "root_when_alone", "affects", "words", "means", "means_order", "resolved_by",
              "resolved_anywhere", "resolved_by_job", "yields", "echo_without_evidence"}
# differential: a cause listed only when explain/differential.py ranks it into a root's differential (the text shows
# its names); never listed by itself
CAUSE_KEYS = {"text", "checks", "confirm", "fix", "exports", "evidence", "computed", "when", "differential"}
COMPUTED = {"torch_build", "socket_ifname", "launcher_port", "visible_gpus", "btl_tcp_if", "min_driver", "cuda_toolkit",
            "torch_api", "ds_batch", "ds_field", "api_history", "vllm_pp"}


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _validate(e, where, known_checks):
    eid = e.get("id")
    if not isinstance(eid, str) or not _ID.match(eid):
        raise KnowledgeError("%s: entry id %r must be a dotted lowercase slug like 'nccl.system_error'" % (where, eid))
    extra = set(e) - ENTRY_KEYS
    if extra:
        raise KnowledgeError("%s: %s: unknown keys %s" % (where, eid, sorted(extra)))
    for key in ("title", "explain"):
        if not isinstance(e.get(key), str) or not e[key].strip():
            raise KnowledgeError("%s: %s has no %s" % (where, eid, key))
    e.setdefault("kind", "error")
    if e["kind"] not in KINDS:
        raise KnowledgeError("%s: %s: kind %r is not one of %s" % (where, eid, e["kind"], KINDS))
    if not _int(e.get("rank")):
        raise KnowledgeError("%s: %s: rank must be an integer (higher = more specific)" % (where, eid))
    e.setdefault("family", eid.split(".")[0] if e["kind"] == "echo" else eid)
    pats = []
    for p in e.get("patterns", []):
        if isinstance(p, str):
            pats.append(Pattern(eid, "match", p, e["rank"]))
        elif isinstance(p, dict) and isinstance(p.get("re"), str) and _int(p.get("rank", e["rank"])) \
                and set(p) <= {"re", "rank", "on_info"} and isinstance(p.get("on_info", False), bool):
            pats.append(Pattern(eid, "match", p["re"], p.get("rank", e["rank"]), on_info=p.get("on_info", False)))
        else:
            raise KnowledgeError("%s: %s: a pattern is a string or {re = '...', rank = N, on_info = true|false}"
                                 % (where, eid))
    for p in e.get("distinct", []):
        pat = Pattern(eid, "distinct", p, e["rank"])
        if not pat.regex.groupindex:
            raise KnowledgeError("%s: %s: distinct pattern %r needs a named group" % (where, eid, p))
        pats.append(pat)
    for s in e.get("signals", []):
        # needles (optional): what every match holds once squashed, where the one derived from the
        # regex is too common ('\btorch {2,40}\d\.' -> 'torch', in every traceback frame's path)
        if not (isinstance(s, dict) and isinstance(s.get("re"), str) and _int(s.get("weight"))
                and set(s) <= {"re", "weight", "near", "needles"} and (s.get("near") is None or _int(s["near"]))
                and (s.get("needles") is None or isinstance(s["needles"], list) and s["needles"] and all(
                    isinstance(n, str) and len(squash(n)) >= MIN_NEEDLE for n in s["needles"]))):
            raise KnowledgeError("%s: %s: a signal is {re = '...', weight = N, near = LINES (optional), "
                                 "needles = ['...'] (optional)}" % (where, eid))
        given = s.get("needles") and [squash(n).decode("utf-8", "replace") for n in s["needles"]]
        pats.append(Pattern(eid, "signal", s["re"], 0, weight=s["weight"], near=s.get("near"), needles=given or None))
    if e.get("resolved_by"):  # scanned as a signal of no weight; explain/waits.py reads its lines
        e["_resolved_by"] = Pattern(eid, "signal", e["resolved_by"], 0, weight=0)
        pats.append(e["_resolved_by"])
    for gi, t in enumerate(e.get("together", [])):
        if not (isinstance(t, dict) and isinstance(t.get("all"), list) and len(t["all"]) >= 2
                and _int(t.get("within")) and _int(t.get("rank", e["rank"]))
                and isinstance(t.get("ordered", False), bool) and set(t) <= {"all", "within", "rank", "ordered"}):
            raise KnowledgeError("%s: %s: together is {all = ['re1', 're2', ...], within = LINES, rank = N, "
                                 "ordered = true (optional: the others after the first)}" % (where, eid))
        for i, src in enumerate(t["all"]):
            pats.append(Pattern(eid, "part", src, t.get("rank", e["rank"]), group=gi, index=i))
    if not any(p.role in ("match", "distinct", "part") for p in pats) and not e.get("structural"):
        raise KnowledgeError("%s: %s has no patterns (only an entry with structural = true, which explain picks "
                             "from a traceback's shape, may have none)" % (where, eid))
    e["_patterns"] = pats
    causes = e.get("causes")
    if not isinstance(causes, list) or not causes:
        raise KnowledgeError("%s: %s has no causes" % (where, eid))
    for i, c in enumerate(causes):
        if not isinstance(c, dict) or not isinstance(c.get("text"), str) or not c["text"].strip():
            raise KnowledgeError("%s: %s: cause %d has no text" % (where, eid, i + 1))
        extra = set(c) - CAUSE_KEYS
        if extra:
            raise KnowledgeError("%s: %s: cause %d: unknown keys %s" % (where, eid, i + 1, sorted(extra)))
        if not isinstance(c.get("fix"), list) or not c["fix"] or not all(isinstance(f, str) for f in c["fix"]):
            raise KnowledgeError("%s: %s: cause %d needs fix = [commands...]" % (where, eid, i + 1))
        if c.get("computed") is not None and c["computed"] not in COMPUTED:
            raise KnowledgeError("%s: %s: cause %d: computed %r is not one of %s"
                                 % (where, eid, i + 1, c["computed"], sorted(COMPUTED)))
        c.setdefault("checks", [])
        c.setdefault("confirm", [])
        c.setdefault("exports", {})
        c.setdefault("evidence", [])
        c["_evidence"] = [Pattern(eid, "evidence", src, 0, cause=i) for src in c["evidence"]]
        # when: the cause is listed only if every one of these is somewhere in the log (a known bug
        # of some NCCL versions is a possibility only where the log prints one of them); it names
        # no cause by itself (evidence does)
        c.setdefault("when", [])
        if not isinstance(c.get("differential", False), bool):
            raise KnowledgeError("%s: %s: cause %d: differential must be true or false" % (where, eid, i + 1))
        if not isinstance(c["when"], list) or not all(isinstance(w, str) for w in c["when"]):
            raise KnowledgeError("%s: %s: cause %d: when is ['re1', 're2', ...]" % (where, eid, i + 1))
        c["_evidence"] += [Pattern(eid, "evidence", src, 0, cause=("when", i, k)) for k, src in enumerate(c["when"])]
        if isinstance(c["confirm"], str):
            c["confirm"] = [c["confirm"]]
        if not isinstance(c["exports"], dict) or not all(isinstance(v, str) for v in c["exports"].values()):
            raise KnowledgeError("%s: %s: cause %d: exports values must be strings" % (where, eid, i + 1))
        for cid in c["checks"]:
            if known_checks is not None and cid not in known_checks:
                raise KnowledgeError("%s: %s: cause %d names check %r, which is not registered (gpudoctor list)"
                                     % (where, eid, i + 1, cid))
    refs = e.setdefault("references", [])
    if not refs:
        raise KnowledgeError("%s: %s has no references (a URL where the cause and fix are documented)" % (where, eid))
    for r in refs:
        if not isinstance(r, dict) or not isinstance(r.get("title"), str) or not _URL.match(str(r.get("url"))):
            raise KnowledgeError("%s: %s: a reference is {title = '...', url = 'https://...'}" % (where, eid))
    e.setdefault("debug", [])
    e.setdefault("lookup", {})
    for key in ("by_evidence", "root_when_alone", "resolved_anywhere", "resolved_by_job"):
        if not isinstance(e.get(key, False), bool):
            raise KnowledgeError("%s: %s: %s must be true or false" % (where, eid, key))
    if e.get("root_when_alone") and e["kind"] != "warning":
        raise KnowledgeError("%s: %s: root_when_alone is for entries of kind warning" % (where, eid))
    if e.get("resolved_by") is not None and not (isinstance(e["resolved_by"], str) and e.get("root_when_alone")):
        # the line the program prints when what the warning waits for happened (explain/waits.py)
        raise KnowledgeError("%s: %s: resolved_by is a regex string, beside root_when_alone = true" % (where, eid))
    if e.get("resolved_anywhere") and e.get("resolved_by") is None:
        raise KnowledgeError("%s: %s: resolved_anywhere is for an entry with resolved_by" % (where, eid))
    if e.get("affects") is not None:
        # a known bug of some NCCL releases: a finding only where the log ran one (explain/versions.py)
        from gpudoctor.explain.versions import validate as _affects_error

        err = _affects_error(e["affects"], "%s: %s" % (where, eid))
        if err:
            raise KnowledgeError(err)
    if e.get("note") is not None and not isinstance(e["note"], str):
        raise KnowledgeError("%s: %s: note must be a string" % (where, eid))
    e["source_file"] = where
    return e


# Lines that give a log its shape when no entry explains it (analyze.structural): the first NCCL
# WARN line, exception names, traceback frames inside known libraries, Slurm daemons' fatal/error lines. They are
# recorded under pseudo-entries whose ids start with '_' and never become findings themselves.
STRUCTURAL = {
    "_struct_nccl_warn": [r"NCCL WARN (?P<msg>[^\n]{3,300})"],
    "_struct_exc": [r"(?<![\w.])(?P<exc>(?:[A-Za-z_][\w]*(?:\.|::))*[A-Z]\w*(?:Error|Exception|NotMet|Failure))\b(?:: ?|$)"],
    # torchrun's failure report (torch/distributed/elastic/multiprocessing/errors/__init__.py
    # _FAILURE_FORMAT_TEMPLATE): its Root Cause header, then two lines at a time ('[idx]:' + time,
    # host + rank, rank + exitcode, error_file + traceback), each with a needle of its own (the
    # template's spaces written out: 'host      :' squashes to the needle 'host:', not 'host');
    # elastic.reports() puts the block back together from the line numbers
    "_struct_elastic": [r"(?P<root>Root Cause) \(first observed failure\):",
                        r"\[(?P<idx>\d{1,6})\]:\n  time      : (?P<time>[^\s]{1,40})",
                        r"\bhost      : (?P<host>[^\s]{1,255})\n {0,12}rank {6}: -?\d",
                        r"\brank {6}: (?P<rank>-?\d{1,9}) \(local_rank: (?P<lrank>-?\d{1,9})\)\n {0,12}exitcode {2}: "
                        r"(?P<code>-?\d{1,5}) \(pid: (?P<pid>\d{1,10})\)(?: {1,3}\((?P<sig>SIG[A-Z0-9]{2,10})\))?",
                        r"\berror_file: (?P<ef>[^\n]{1,300})\n {0,12}traceback : (?P<tb>[^\n]{0,300})"],
    # a traceback frame inside one of these libraries (torch is left out: its frames are in
    # every traceback, and every frame line as a candidate would double the scan's time)
    # (one plain literal each, so that each is its own prefilter needle; analyze reads the library
    # from the pattern)
    "_struct_lib": [r"%s-packages/%s/" % (where, lib) for where in ("site", "dist") for lib in (
        "deepspeed", "accelerate", "transformers", "megatron", "apex", "lightning", "pytorch_lightning", "vllm",
        "flash_attn", "bitsandbytes", "peft", "trl", "datasets", "horovod", "ray")],
    "_struct_slurm": [r"\b(?P<prog>slurmd|slurmstepd|slurmctld|srun|sbatch|salloc)(?:\[\d{1,10}\])?: "
                      r"(?P<level>fatal|error): (?P<msg>[^\n]{3,300})"],
    # (wrong27) srun signalling its own step: launch/slurm's _step_signal 'info("Terminating %ps")' (older releases
    # 'Terminating job step %u.%u') after a task's abnormal exit under kill-on-bad-exit (_task_finish), and srun's
    # forced end of the job after ^C twice or a job cancel ('forcing job termination', 'Force Terminated job')
    # (SchedMD/slurm src/plugins/launch/slurm/launch_slurm.c; rootguard.srun_ended_step reads them)
    "_struct_srun_term": [r"\bsrun: (?:launch/slurm: _step_signal: )?Terminating (?:StepId=|job step )\d",
                          r"\bsrun: (?P<forced>forcing job termination|Force Terminated job)"],
    "_struct_traceback": [r"Traceback \(most recent call last\)"],
    # argparse's refusal (CPython Lib/argparse.py ArgumentParser.error: '%(prog)s: error: %(message)s' after
    # the usage); pytb.record_argparse reads the program's name and keeps the line when 'usage: <prog>' is
    # just before it (the literal first: a pattern for the name before it would backtrack on long lines)
    "_struct_argparse": [r": error: (?P<msg>[^\n]{1,300})"],
    # the NCCL a log ran and the torch release that pins it (explain/versions.py reads them for the
    # known bugs of some NCCL releases, an entry's `affects`): NCCL's own line (src/init.cc
    # showVersion 'NCCL version %d.%d.%d%s', and torch's 'NCCL error in: ..., NCCL version X'), pip's
    # 'nvidia-nccl-cu12==X' / 'nvidia-nccl-cu12   X', torch.cuda.nccl.version()'s '(2, 18, 1)';
    # torch's pip name, torch.utils.collect_env's 'PyTorch version: X' and torch.__version__ 'X+cuNNN'
    # ... and where a job's environment or an issue template says it: the NCCL_VERSION variable of NVIDIA's CUDA
    # images, which their libnccl2 is (gitlab.com/nvidia/container-images/cuda dist/12.0.0/ubuntu2204/runtime/
    # Dockerfile: 'ENV NCCL_VERSION=2.16.2-1'; older ones 'ENV NCCL_VERSION 2.7.8'), printed by env or docker
    # inspect; 'NCCL version: X' (horovod's issue template). A pip torch in such an image loads pip's NCCL: when
    # the log prints both, each is a version it may have run (versions.ran)
    "_struct_nccl_version": [r"NCCL version:? ?(?P<nccl>\d{1,2}\.\d{1,3}\.\d{1,3})",
                             r"\bNCCL_VERSION[=: ]{1,3}[\"']?(?P<nccl>\d{1,2}\.\d{1,3}\.\d{1,3})",
                             r"\bnvidia-nccl-cu1\d(?:==| {1,40})(?P<nccl>\d{1,2}\.\d{1,3}\.\d{1,3})\b",
                             r"nccl\.version\(\)\)?\W{0,20}\((?P<nccl>\d{1,2}, \d{1,3}, \d{1,3})\)",
                             # the Debian package (apt-get install libnccl2=2.18.3-1+cuda12.2, apt list's
                             # 'libnccl2/unknown 2.18.3-1+cuda12.2', dpkg -l's 'ii  libnccl2  2.18.3-1+cuda12.2'),
                             # NVIDIA's tarball (nccl_2.18.3-1+cuda12.2_x86_64.txz), the library file
                             # (libnccl.so.2.18.3), and a user's own words ('NCCL 2.18.1', 'NCCL v2.19.3'; needles
                             # given: 'nccl' alone is on every NCCL line)
                             r"\blibnccl2(?:=|/\S{1,40}\s{1,4}|\s{1,40}\(?)(?P<nccl>2\.\d{1,3}\.\d{1,3})-\d",
                             (r"\bnccl_(?P<nccl>2\.\d{1,3}\.\d{1,3})-\d{1,2}\+cuda", ["nccl_2."]),
                             r"libnccl\.so\.(?P<nccl>2\.\d{1,3}\.\d{1,3})",
                             (r"\b(?:lib)?NCCL[ -]v?(?P<nccl>2\.\d{1,3}\.\d{1,3})",
                              ["nccl2.", "ncclv2.", "nccl-2.", "nccl-v2."])],
    # (a torch pattern's needles are given: each form squashed, 'torch  2.1.0' -> 'torch2.', so that
    # the 'site-packages/torch/' of every traceback line is not a candidate)
    # ('PyTorch 2.2.1' in a user's words reads as the PyPI release, as 'torch==2.2.1' does)
    "_struct_torch_version": [(r"\b(?:py)?torch(?:==| {1,40}|: ?)(?P<torch>2\.\d{1,3}\.\d{1,3})"
                               r"(?P<local>[a-z+.][\w.+]{0,40})?",
                               ["torch==2.", "torch2.", "torch:2."]),
                              r"PyTorch version: ?(?P<torch>\d{1,2}\.\d{1,3}\.\d{1,3})(?P<local>[a-z+.][\w.+]{0,40})?",
                              r"__version__\W{0,6}(?P<torch>2\.\d{1,3}\.\d{1,3})(?P<local>[a-z+.][\w.+]{0,40})?",
                              r"(?<![\w.])(?P<torch>2\.\d{1,3}\.\d{1,3})(?P<local>\+cu1\d{1,2})(?![\w.])"],
    # a c10d watchdog stack (a C++ frame list, a py-spy/gdb dump) without its message: the frames of
    # ProcessGroupNCCL's watchdog thread (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:
    # ncclCommWatchdog -> watchdogHandler -> WorkNCCL::checkTimeout)
    "_struct_watchdog": [r"ProcessGroupNCCL::(?P<fn>(?:WorkNCCL::)?checkTimeout|watchdogHandler|ncclCommWatchdog|"
                         r"Watchdog::run|HeartbeatMonitor::runLoop|heartbeatMonitor)\b"],
    # a traceback frame in torch.distributed, or in a launcher's own package: the package path names
    # the family when nothing else does (analyze._TORCHDIST); elastic/multiprocessing/errors/__init__.py is left
    # out: its frame in a rank's traceback is @record's wrapper around the rank's own code, never the raiser
    "_struct_torchdist": [r"(?:site|dist)-packages/torch/distributed/(?P<sub>elastic/rendezvous|elastic/agent|"
                          r"elastic/multiprocessing(?!/errors/__init__)|rendezvous|distributed_c10d|run|launch)\b",
                          r"(?:site|dist)-packages/(?P<sub>deepspeed/launcher|deepspeed/ops|accelerate/commands)/"],
    "_struct_terminate": [r"terminate called after throwing an instance of '(?P<exc>[^'\n]{1,120})'"],
    # CPython's fatal error and the runtime's state under it (Python/pylifecycle.c fatal_error and
    # fatal_error_dump_runtime): a state before 'initialized' is a stop while the interpreter started
    # (provenance.bare_line, family16)
    "_struct_pyfatal": [r"Fatal Python error: (?P<msg>[^\n]{1,300})",
                        r"Python runtime state: (?P<state>preinitializing|preinitialized|initializing|core initialized)"],
    # a shell command the text shows ('$ podman run ...'), for the program whose own refusal is the first line it
    # printed (provenance.bare_line); the program's name leads the needles (a pasted prompt is rare in a log)
    "_struct_shell": [r"^\$ (?:(?:sudo|time|env|nohup|exec) {1,4}){0,3}(?:[A-Za-z_]\w{0,40}=\S{0,200} {1,4}){0,8}"
                      r"(?:\S{0,200}/)?(?P<prog>podman|docker|nerdctl|enroot|apptainer|singularity|srun|sbatch|salloc)"
                      r"(?= |$)"],
    # the run finished: what the trainers print once training has ended (analyze._completed). transformers'
    # Trainer (src/transformers/trainer.py, _inner_training_loop: logger.info("\n\nTraining completed. Do not
    # forget to share your model on huggingface.co/models =)\n\n"), then its metrics dict with 'train_runtime');
    # Lightning (src/lightning/pytorch/loops/fit_loop.py: rank_zero_info("`Trainer.fit` stopped: `max_epochs=N`
    # reached."), or max_steps)
    # TensorFlow's own note after its DSO loader's dlerror lines on a machine without a GPU
    # (tensorflow/stream_executor/cuda/cudart_stub.cc, TF 2.x: LOG(INFO) << "Ignore above cudart dlerror if you do
    # not have a GPU set up on your machine."; later tensorflow/tsl/cuda/cudart_stub.cc; analyze._tf_cpu_only)
    "_struct_tf_cudart_stub": [r"Ignore above cudart dlerror if you do not have a GPU set up on your machine"],
    "_struct_completed": [r"Training completed\. Do not forget to share your model",
                          r"'train_runtime': \d",
                          r"`Trainer\.fit` stopped: `max_(?:epochs|steps)=-?\d{1,12}` reached"],
    # an MPI or UCX error line no entry explains (analyze._mpi_structural names the implementation and the family):
    # MPICH's error stack head (src/mpi/errhan/errutil.c) and Hydra's '[mpiexec@host] func (file.c:N): text'
    # (src/pm/hydra/lib/hydra.h HYDU_error_printf); Open MPI / PRRTE's ORTE_ERROR_LOG-style lines
    # (orte/mca/errmgr/errmgr.h: '[[jobid,vpid],rank] ORTE_ERROR_LOG: <text> in file <f> at line <n>'), its MCA
    # components' messages ('btl_tcp_endpoint.c:626:...] ... failed'), MPI_ERRORS_ARE_FATAL's '*** An error occurred
    # in MPI_X' (ompi/errhandler/errhandler_predefined.c); UCX's 'file.c:N  UCX  ERROR text' (src/ucs/debug/log.c);
    # the PML selection's abort (ompi/mca/pml/base/pml_base_select.c: 'PML %s cannot be selected')
    "_struct_mpi": [r"Fatal error in (?P<fn>P?MPI_\w{1,60}|internal_\w{1,60}): (?P<msg>[^\n]{1,200})",
                    # an inner line of MPICH's error stack ('find_provider(170).........: text', padded with dots)
                    r"(?P<stack>\w{1,100})\(\d{1,7}\)\.\.\.\.{0,200}:[ \t]{0,4}(?P<msg>\S[^\n]{0,200})",
                    r"\[(?P<hydra>mpiexec|proxy:[\d:]{1,20})@[^\]\n]{1,100}\] (?P<fn>\w{1,100}) \([^)\n]{1,200}:\d{1,7}\): "
                    r"(?P<msg>[^\n]{1,200})",
                    r"(?P<orte>ORTE|PRTE|OPAL|PMIX|OMPI)_ERROR_LOG: (?P<msg>[^\n]{1,200}?) in file",
                    r"(?P<orte>PMIX|PRTE) ERROR: (?P<msg>[^\n]{1,200}?) in file",
                    # mca_pml_base_select (ompi/mca/pml/base/pml_base_select.c): no PML of the include list (--mca pml
                    # X) initialised on this rank: orte_errmgr.abort(1, "PML %s cannot be selected", ...)
                    # (msg keeps 'PML': analyze's word list reads it as the transport; no mca group, which names the
                    # component-prefix patterns below)
                    r"\b(?P<msg>PML [\w-]{1,40} cannot be selected)",
                    r"\*\*\* (?P<msg>An error occurred in (?P<fn>MPI_\w{1,60}))",
                    r"(?P<ucx>[\w-]{1,60}\.(?:c|h|inl)):\d{1,6}\s{1,40}(?:UCX\s{1,10}(?:ERROR|FATAL)|Fatal:)\s{1,100}"
                    r"(?P<msg>[^\n]{1,200})"] + [
                    # the component's prefix is the literal 'btl_' (the mca group in a lookahead): as
                    # '(?P<mca>btl)_' the prefilter needles were the error words ('rror', 'nable',
                    # 'failed', ...), and every line with 'enabled' or 'error' was a candidate
                    r"\b(?=(?P<mca>%s)_)%s_(?P<comp>[a-z0-9]{1,20})[\w.]{0,60}:\d{1,6}[:\]\s][^\n]{0,200}?(?P<msg>"
                    r"(?:[Ee]rror|failed|[Uu]nable|refused|reset|timed out)[^\n]{0,200})" % (fw, fw)
                    for fw in ("btl", "pml", "mtl", "oob", "plm", "osc", "coll", "odls", "ess")],
    # a process group's status per rank (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp: the
    # watchdog's " failure detected by watchdog at work sequence id: ... PG status: last enqueued
    # work: ..." and HeartbeatMonitor::getNCCLWatchdogTimeoutErrorMsg's "Received a dump signal due
    # to a collective timeout from ... Last enqueued NCCL work: ..."; older releases: "Exception
    # (either an error or timeout) detected by watchdog at work: N, last enqueued NCCL work: M"):
    # analyze.late_rank names the rank that never enqueued the collective another rank timed out in
    "_struct_pg_status": [
        r"Rank (?P<rank>\d{1,9})\]  ?failure detected by watchdog at work sequence id: (?P<seq>-?\d{1,18}) PG "
        r"status: last enqueued work: (?P<enq>-?\d{1,18})",
        r"Rank (?P<rank>\d{1,9})\] Received a dump signal due to a collective timeout from [^\n]{0,200}?Last "
        r"enqueued NCCL work: (?P<enq>-?\d{1,18})",
        r"Rank (?P<rank>\d{1,9})\] (?:Exception (?:\(either an error or timeout\) )?)?detected by watchdog at work: "
        r"(?P<seq>-?\d{1,18}), last enqueued NCCL work: (?P<enq>-?\d{1,18})"],
}


GENERATED_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "knowledge",
                             "generated")
_TABLES = {}
# (Defined before the modules below are imported: slurmscript.py, versions.py ... read their tables through these.)
# A generated table is stored as <name>.json, or, when it is big, as <name>.json.gz: the same JSON text, gzip'd
# deterministically by tools/knowgen.py (tools/gzip_tables.py converts one; docs/explain.md "Generated knowledge").
# Every reader goes through generated_path / open_table / read_json here, so either form reads the same.
GZ_SUFFIX = ".json.gz"


def table_name(path):
    """The table name of a generated file's path: 'torch_api' for .../torch_api.json or .../torch_api.json.gz."""
    base = os.path.basename(path)
    for suffix in (GZ_SUFFIX, ".json"):
        if base.endswith(suffix):
            return base[:-len(suffix)]
    return base


def open_table(path):
    """A generated file (or any .json / .json.gz), open for reading as UTF-8 text; a .gz one decoded as read."""
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def read_json(path):
    """The JSON document of a .json or .json.gz file (OSError / ValueError as json.load raises them; a damaged
    .gz is a ValueError too)."""
    import json

    if path.endswith(".gz"):
        import gzip
        import zlib

        with open(path, "rb") as f:
            data = f.read()
        try:
            data = gzip.decompress(data)  # (the whole file at once: a third faster than reading a GzipFile)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise ValueError("%s: %s" % (os.path.basename(path), exc))
        return json.loads(data.decode("utf-8"))
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def generated_path(name):
    """The stored file of generated table ``name``: generated/<name>.json.gz when it is there, else
    generated/<name>.json (which may not exist)."""
    gz = os.path.join(GENERATED_DIR, name + GZ_SUFFIX)
    return gz if os.path.exists(gz) else os.path.join(GENERATED_DIR, name + ".json")


def read_generated(name):
    """generated/<name>.json(.gz), parsed afresh on each call (a test's own copy); OSError / ValueError when it is
    missing or unreadable. Modules read it once through generated_table."""
    return read_json(generated_path(name))


def open_generated(name):
    """generated/<name>.json(.gz), open for reading as text (``with open_generated(name) as f: json.load(f)``)."""
    return open_table(generated_path(name))


def generated_files():
    """gpudoctor/data/knowledge/generated/*.json and *.json.gz: message sites generated from their sources
    (tools/gen_*.py), one path per table (its .json.gz when both forms are there), in the order of their names."""
    d = GENERATED_DIR
    if not os.path.isdir(d):
        return []
    names = os.listdir(d)
    gz = {n[:-len(GZ_SUFFIX)] for n in names if n.endswith(GZ_SUFFIX)}
    return sorted([os.path.join(d, n) for n in names if n.endswith(GZ_SUFFIX)] +
                  [os.path.join(d, n) for n in names if n.endswith(".json") and n[:-len(".json")] not in gz],
                  key=lambda p: table_name(p) + ".json")  # (the order of the .json names: the patterns' order)


def generated_table(name):
    """generated/<name>.json(.gz) as a whole (a table a module reads itself: torch_api, api_history), read once per
    process; {} when it is missing or unreadable. Shared: a caller never changes it."""
    if name not in _TABLES:
        try:
            _TABLES[name] = read_generated(name)
        except (OSError, ValueError):
            _TABLES[name] = {}
    return _TABLES[name]


# failure lines of other programs' shapes (a shell's, gdb's, torchrun's agent's, curl's, systemd's): failshape.py
from gpudoctor.explain.failshape import PATTERNS as _FAILSHAPE  # noqa: E402

STRUCTURAL.update(_FAILSHAPE)
from gpudoctor.explain.k8s import PATTERNS as _K8S  # noqa: E402  (Kubernetes' Normal events: k8s.resolved)

STRUCTURAL.update(_K8S)
from gpudoctor.explain.explicit import PATTERNS as _EXPLICIT  # noqa: E402  (explicit failures without a family)

STRUCTURAL.update(_EXPLICIT)
from gpudoctor.explain.upgrade import PATTERNS as _UPGRADE  # noqa: E402  (installed versions: upgrade.py)

STRUCTURAL.update(_UPGRADE)
from gpudoctor.explain.slurmscript import PATTERNS as _SLURMSCRIPT  # noqa: E402  (batch scripts, jobs: slurmscript.py)

STRUCTURAL.update(_SLURMSCRIPT)
from gpudoctor.explain.clidocs import PATTERNS as _CLIDOCS  # noqa: E402  (tools' refusals, command lines: clidocs.py)

STRUCTURAL.update(_CLIDOCS)
from gpudoctor.explain.deeper import PATTERNS as _DEEPER  # noqa: E402  (a deeper layer's lines: deeper.py, noans24)

STRUCTURAL.update(_DEEPER)
from gpudoctor.explain.progline import PATTERNS as _PROGLINE  # noqa: E402  (known programs' lines: progline.py)

STRUCTURAL.update(_PROGLINE)


def structural_patterns():
    """A source is a regex, or (regex, needles) where the needles derived from it would be too common."""
    return [Pattern(eid, "match", src, 0) if isinstance(src, str) else Pattern(eid, "match", src[0], 0, needles=src[1])
            for eid, srcs in sorted(STRUCTURAL.items()) for src in srcs]


# What the Python interpreter itself says when an exception is raised (CPython 3.11, github.com/python/cpython/blob/3.11/:
# Objects/moduleobject.c module_getattro, Objects/object.c PyObject_GenericGetAttr, Python/import.c, Python/ceval.c
# import_from / format_missing / too_many_positional / unpack_iterable / NAME_ERROR_MSG, Objects/abstract.c,
# Objects/call.c, Objects/listobject.c, Objects/tupleobject.c, Objects/longobject.c, Objects/floatobject.c,
# Objects/dictobject.c). A library that raises one of these in its own words (sglang's server_args.py re-raises
# "module %s has no attribute %s") prints a line that any Python program prints: a generated site whose words are
# only these says nothing of its library, and the source file that prints it gives no family (wrong13: an
# AttributeError of a project's own module shadowing the standard library's read as SGLang's server arguments).
INTERPRETER_WORDINGS = (
    "module %s has no attribute %s", "%s object has no attribute %s", "No module named %s",
    "cannot import name %s from %s", "list index out of range", "tuple index out of range",
    "%s object is not subscriptable", "%s object is not callable", "%s object is not iterable",
    "%s got an unexpected keyword argument %s", "%s missing %d required positional argument",
    "%s missing %d required positional arguments", "%s takes %d positional arguments but %d were given",
    "unsupported operand type(s) for %s: %s and %s", "division by zero", "float division by zero",
    "not enough values to unpack (expected %d, got %d)", "too many values to unpack (expected %d)",
    "invalid literal for int() with base %d: %s", "could not convert string to float: %s",
    "dictionary changed size during iteration", "maximum recursion depth exceeded", "name %s is not defined",
)
_WORD = re.compile(r"[A-Za-z]{2,}")
# a conversion of a printf format or of a str.format / f-string field, as the generators write a site's text
_CONVERSION = re.compile(r"%(?:[-+ #0-9.*]{0,8}(?:hh|h|ll|l|z|j|t|L)?[a-zA-Z])|\{[^{}\n]{0,40}\}")


def _words(text):
    return tuple(w.lower() for w in _WORD.findall(_CONVERSION.sub(" ", text)))


_INTERPRETER = frozenset(_words(t) for t in INTERPRETER_WORDINGS)
# a text whose words are one of them holds that wording's longest word (a word of _words is a run of the text's own
# letters): the 24,000 site texts of a load are tested for these first, a third of the time _words takes on them
_INTERPRETER_KEY = re.compile("|".join(sorted({max(w, key=len) for w in _INTERPRETER})))


# each wording's first literal run ('unsupported operand type(s) for '): a site whose matcher is only a shorter start
# of one (torch's weights-only unpickler 'Unsupported operand %s', matched as 'Unsupported\ operand' with
# IGNORECASE) would take the interpreter's line ("TypeError: unsupported operand type(s) for %: 'NoneType' and
# 'int'"); _not_interpreter makes it stop there
_INTERPRETER_HEADS = tuple(sorted({_CONVERSION.split(t)[0].lower() for t in INTERPRETER_WORDINGS} - {""}))


def _not_interpreter(text, rx):
    """``rx`` (a site's matcher), with a lookahead that refuses the rest of an interpreter wording when the matcher
    is exactly its format's first literal run and that run is a shorter start of the wording's (see above)."""
    lit = _CONVERSION.split(text)[0].rstrip() if isinstance(text, str) else ""
    if len(lit) < 4 or rx != re.escape(lit):
        return rx
    for head in _INTERPRETER_HEADS:
        if head.startswith(lit.lower()) and len(head.rstrip()) > len(lit):
            return "%s(?!%s)" % (rx, re.escape(head[len(lit):len(lit) + 40]))
    return rx


def interpreter_wording(text):
    """Whether a message format's words are exactly those of an exception message the Python interpreter prints
    (INTERPRETER_WORDINGS; its values and quotes aside): 'module %s has no attribute %s' is, 'Unsupported operand
    %s' (torch's weights-only unpickler, words of its own) and '%s has no attribute %s; pass --foo' are not."""
    return (isinstance(text, str) and _INTERPRETER_KEY.search(text.lower()) is not None
            and _words(text) in _INTERPRETER)


def _site_rows(path):
    """[family, regex, needles, info] of each assigned site of a generated file, in its order (a site with no
    family, or whose words are only the interpreter's, is none): what _attach_rows makes patterns of. A malformed
    file or site is a KnowledgeError."""
    name = os.path.basename(path)
    try:
        doc = read_json(path)
        sites, head = doc["sites"], doc["header"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KnowledgeError("%s: not a generated knowledge file: %s" % (name, exc))
    for key in ("source", "version", "generator", "date"):
        if not head.get(key):
            raise KnowledgeError("%s: header has no %s" % (name, key))
    rows = []
    for site in sites:
        fam, rx = site.get("family"), site.get("re")
        if not fam or not rx or interpreter_wording(site.get("text")):
            continue
        info = {k: site[k] for k in ("id", "where", "text", "name", "code", "level", "means") if k in site}
        fix = site.get("fix")
        if fix is not None:
            # a site's own fix (its generator's per-code table): the code's nuance, shown first
            if not (isinstance(fix, list) and fix and all(isinstance(x, str) for x in fix)
                    and isinstance(site.get("means"), str)):
                raise KnowledgeError("%s: site %s: fix must be a list of strings, with means (a string)"
                                     % (name, site.get("id")))
            info["fix"] = list(fix)
        info["source"] = table_name(path)
        needles, cut = site.get("needles"), end_stop(rx)
        if cut != rx and isinstance(needles, list):
            needles = [n[:-1] if isinstance(n, str) and n.endswith(".") and len(n) > 4 else n for n in needles]
        rx = either_cannot(first_of(_not_interpreter(site.get("text"), cut)))
        if info["source"] in OWN_LINE_FORM and plain_words(site.get("text")):
            rx = OWN_LINE_FORM[info["source"]] + rx
        rows.append([fam, rx, needles, info])
    return rows


# (noans22, issue 18 item 3) A site whose words are any program's - three words or fewer of plain English, no name
# among them ('Allocation failed', 'close failed: %s', 'Unknown pattern %d', '%s() failed: %s') - is its program's
# only in that program's own line form: podman's 'Error: allocating lock for new container: allocation failed;
# exceeded num_locks (2048)' (AP's Slurm containers guide) read as NCCL's src/include/checks.h 'Allocation failed'.
# NCCL logs its WARN / INFO sites through ncclDebugLog, which puts 'NCCL WARN ' / 'NCCL INFO ' right before the
# message ('<host>:<pid>:<tid> [<dev>] NCCL WARN <msg>', src/debug.cc), and keeps the last WARN's text for
# ncclGetLastError, which torch prints on a line of its own after 'Last error:' (ProcessGroupNCCL's DistBackendError):
# the message after NCCL's level, after 'Last error:', or starting its line (a launcher's '[rank0]: ' / '1: ' before
# it) is NCCL's; in the middle of another program's sentence it is not.
OWN_LINE_FORM = {"nccl_messages": r"(?:\bNCCL (?:WARN|INFO)\b[^\n]{0,200}?|\bLast error:\s{0,4}|"
                                  r"^(?:\[[^\]\n]{1,60}\]:? ?|\d{1,5}: )?\s{0,8})"}
_NAMEISH = re.compile(r"[_\d]|[a-z][A-Z]|[A-Z]{2}|\w\(")
# (spec28, issue 18: the most specific knowledge the text supports) 'can not' and 'cannot' are one word spelt two
# ways, and the programs use both: Slurm's slurmctld refuses a job with 'Memory specification can not be satisfied'
# (src/slurmctld/node_scheduler.c, https://github.com/SchedMD/slurm/blob/master/src/slurmctld/node_scheduler.c)
# while most of its other messages say 'cannot'; a user retelling the message (set 2026-11-25's 'srun ... shows
# memory specification cannot be satisfied. unable to allocate resources') writes the spelling they use. A generated
# matcher's literal 'can not' / 'cannot' takes either; its needles are squashed (blanks deleted), so the same lines
# are tried. Only the whole word: 'Scannot' or 'can nothing' are left as they are; and not in a matcher first_of
# tempered (three values or more), whose lookaheads are its literals as written.
_CANNOT = re.compile(r"(?<![A-Za-z\\])(can)(?:\\ )?(not)(?![A-Za-z])", re.I)


def either_cannot(rx):
    """``rx`` (a generated matcher, re.escape'd literals) with each whole word 'can not' / 'cannot' taking either."""
    if "not" not in rx.lower() or "(?:(?!" in rx:
        return rx
    return _CANNOT.sub(lambda m: m.group(1) + r"\ ?" + m.group(2), rx)


def plain_words(text):
    """Whether a site's text is three words or fewer, none of them a name (an underscore, a digit, a lower-upper hump,
    capitals, a call's parenthesis), its conversions aside."""
    if not isinstance(text, str):
        return False
    lit = _CONVERSION.sub(" ", text)
    return 0 < len(_WORD.findall(lit)) <= 3 and not _NAMEISH.search(lit)


# A message quoted without its closing full stop where the line ends: an issue's title, a chat or a log line cut
# there ('Ray does not allocate any GPUs on the driver node. Consider adjusting the Ray placement group or running
# the driver on a GPU node', argilla-io/distilabel#842's words for vLLM's executor/ray_gpu_executor.py message). A
# generated matcher that ends in its format's '.' takes the end of the line (a few blanks, then the line break or the
# text's end) in its place; never a longer message that goes on after the same words. Its needles drop a final '.'
# too (a needle only narrows which lines are tried).
_END_STOP = r"(?:\.|[ \t]{0,8}(?:\n|$))"


def end_stop(rx):
    """``rx`` whose last token is an escaped '.', with that token made ``_END_STOP``; else ``rx``."""
    if not rx.endswith("\\."):
        return rx
    head = rx[:-1]
    if (len(head) - len(head.rstrip("\\"))) % 2 == 0:  # the backslash before '.' is itself escaped: '.' is a wildcard
        return rx
    return rx[:-2] + _END_STOP


def _attach_rows(rows, by_id, name):
    """Each site row (_site_rows) becomes a pattern of the entry its family names (rank: the entry's site_rank,
    else GENERATED_RANK). A site naming no entry is a bug in the generator's rules table."""
    for fam, rx, needles, info in rows:
        e = by_id.get(fam)
        if e is None:
            raise KnowledgeError("%s: site %s names family %r, which no knowledge entry defines"
                                 % (name, info.get("id"), fam))
        rank = e.get("site_rank", min(e["rank"], GENERATED_RANK))
        e["_patterns"].append(Pattern(e["id"], "match", rx, rank, site=info, needles=needles))
        e.setdefault("_sites", []).append(info)


def _attach_sites(path, by_id):
    """Each assigned site of a generated file becomes a pattern of the entry its family names."""
    _attach_rows(_site_rows(path), by_id, os.path.basename(path))


def _attach_generated(by_id):
    """Every generated file's sites (_attach_sites). Their rows are what the 19 MB of generated/*.json give, read
    back from kcache.py's sites file when it was written from these very files (parsing the JSON, reading
    each site's words and cutting its regex were two thirds of loading the knowledge); built and written there
    otherwise."""
    from gpudoctor.explain import kcache

    paths = generated_files()
    key = kcache.sites_key(paths)
    rows = kcache.read_sites(key, len(paths))
    if rows is None:
        rows = [_site_rows(path) for path in paths]
        kcache.write_sites(key, rows)
    for path, got in zip(paths, rows):
        _attach_rows(got, by_id, os.path.basename(path))


# A generated matcher reads each printf value as _WILD (knowgen.printf_to_regex). With three or more values, each
# that a literal of two or more characters follows ('%s, %s, %s or %s found in directory %s.', 'pdsh@%s: %s: %s')
# reaches only to that literal's first occurrence (a tempered token): else a line of the format's own separators
# ('Error no file named , , , or , , ...') is cut every way, a product of the separators each value may end at, when
# the message's end is missing. Red team 2026-11-26e: 10 such lines of 4 KiB took 57 s of CPU (transformers'
# "Error no file named ..."), now 0.24 s; the seen held-out sets (573 texts) and explain's tests answer the same.
# A value that holds the literal after it (a file named 'a, b') is then read up to it.
_WILD = r"[^\n]{0,200}"
_WILD_LIT = re.compile(re.escape(_WILD) + r"((?:\\[^\\\w]|[^\\\[\](){}|?*+^$.\n]){2,40})")


def first_of(rx):
    """``rx`` with each _WILD that a literal follows made to stop at that literal's first occurrence, when it has 3+."""
    if rx.count(_WILD) < 3:
        return rx

    def one(m):
        lit, end = m.group(1), m.end()
        if rx[end:end + 1] in ("?", "*", "+", "{"):
            lit = re.sub(r"(?:\\.|.)$", "", lit)  # its last character is quantified: not required as written
        if len(lit.replace("\\", "")) < 2:
            return m.group(0)
        return r"(?:(?!%s)[^\n]){0,200}" % lit + m.group(1)

    return _WILD_LIT.sub(one, rx)


_cache = {}
_DOCS = {}  # path -> its TOML table as the built-in knowledge's load read it (kcache or the file): settings.table()


def _read_toml(path, rel):
    try:
        with open(path, "rb") as f:
            return _toml().load(f)
    except (OSError, ValueError) as exc:
        raise KnowledgeError("%s: %s" % (rel, exc))


def _json_or_none(doc):
    import json

    try:
        return json.dumps(doc, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def load_knowledge(files=None, known_checks="registry"):
    """Load and validate every entry. ``known_checks``: 'registry' (the registered check
    ids), None (skip that validation) or a set of ids."""
    cache_key = (tuple(files) if files else None, known_checks if isinstance(known_checks, str) or known_checks is None
                 else tuple(sorted(known_checks)))
    if cache_key in _cache:
        return _cache[cache_key]
    # A load makes ~125,000 objects (entries, patterns, their needles and sites), kept to the process's end (_cache):
    # Python's cyclic garbage collector went over them again and again as they grew (281 collections, 15% of a
    # load's CPU) and at each full collection after (a one-line explain: 0.05 s more), never freeing one. It is
    # paused for the load, and what is alive then is moved out of its reach (gc.freeze: still freed by reference
    # counting; only a cycle among them would stay). Left as it was found where it was off.
    import gc

    was_on = gc.isenabled()
    gc.disable()
    try:
        kb = _load(files, known_checks)
    finally:
        if was_on:
            gc.freeze()
            gc.enable()
    _cache[cache_key] = kb
    return kb


def _load(files, known_checks):
    if known_checks == "registry":
        from gpudoctor.registry import load_checks

        known_checks = set(load_checks().ids())
    entries, seen = [], {}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = list(files or knowledge_files())
    # the built-in knowledge's TOML tables and hand-written needles, as the last run derived them
    # (kcache.py: keyed by the files' bytes, read back under the collector blob cache's rules)
    cache = key = None
    derived = _DERIVED[0]
    if files is None:
        from gpudoctor.explain import kcache

        key = kcache.key_of(paths, root)
        cache = kcache.read(key, len(paths))
        if cache is not None:
            for src, got in cache[1].items():
                _NEEDLES.setdefault(src, got)
    fresh = []  # each file's table as JSON text (for kcache), before _validate adds to it
    for i, path in enumerate(paths):
        rel = os.path.relpath(path, root) if path.startswith(root) else path
        if cache is not None:
            doc = cache[0][i]
            _DOCS[path] = doc
        else:
            doc = _read_toml(path, rel)
            if key is not None and fresh is not None:
                fresh.append(_json_or_none(doc))
                if fresh[-1] is None:  # (a TOML date: not JSON)
                    fresh = None
        for e in doc.get("entry", []):
            _validate(e, rel, known_checks)
            if e["id"] in seen:
                raise KnowledgeError("entry id %r is defined twice (%s and %s)" % (e["id"], seen[e["id"]], rel))
            seen[e["id"]] = rel
            entries.append(e)
    if files is None:
        # the known NCCL bugs of the release notes' fix lines (generated/nccl_releases.json)
        from gpudoctor.explain.versions import known_bug_entries

        where = "gpudoctor/data/knowledge/generated/nccl_releases.json"
        for e in known_bug_entries():
            _validate(e, where, known_checks)
            if e["id"] in seen:
                raise KnowledgeError("entry id %r is defined twice (%s and %s)" % (e["id"], seen[e["id"]], where))
            seen[e["id"]] = where
            entries.append(e)
    by_id = {e["id"]: e for e in entries}
    if files is None:
        _attach_generated(by_id)
    from gpudoctor.explain.text import generic_error_patterns, launcher_patterns

    from gpudoctor.explain.ncclinfo import patterns as nccl_info_patterns
    from gpudoctor.explain.launchpaste import patterns as paste_patterns
    # the user's words that a job hangs or is slow, nccl-tests' headers, nvidia-smi topo -m rows (hang.py)
    from gpudoctor.explain.hang import patterns as hang_patterns
    # what each rank was doing in a multi-rank log (explain/rankev.py): facts, never a match
    from gpudoctor.explain.rankev import patterns as ranks_patterns

    # NCCL's INFO lines that say which transport it chose (generated/nccl_info.json): facts, never a match
    # launch lines and launcher configs pasted beside the error: read by launchpaste.judge, never a match
    # the user's words for a failure with no error line (symptoms.toml's `words`: explain/symptoms.py)
    from gpudoctor.explain.symptoms import patterns as words_patterns
    # ... and read by meaning (symptoms.toml's `means`: the concept classes of explain/meaning.py)
    from gpudoctor.explain.meaning import patterns as meaning_patterns
    # settings in any form a log shows them, and the told symptoms they explain (explain/settings.py)
    from gpudoctor.explain.settings import patterns as settings_patterns

    kb = Knowledge(entries, generic_error_patterns() + launcher_patterns() + structural_patterns() +
                   nccl_info_patterns() + paste_patterns() + hang_patterns() + ranks_patterns() + words_patterns(entries) +
                   meaning_patterns(entries) + settings_patterns())
    if files:  # files given (not the built-in knowledge): every pattern compiles, or the load fails
        for e in entries:
            for p in e["_patterns"] + [ev for c in e["causes"] for ev in c["_evidence"]]:
                p.regex
    elif key is not None and (cache is None or _DERIVED[0] != derived):
        if cache is not None:  # a pattern of the code changed: the tables as the files give them
            fresh = [_json_or_none(_read_toml(path, path)) for path in paths]
        if fresh is not None and None not in fresh:
            # the patterns' needles and the symptoms' concepts' (symptoms._needles)
            needles = {source: got for source, got in _NEEDLES.items() if got}
            kcache.write(key, fresh, needles)
    return kb
