"""The one quoting rule for the commands gpudoctor prints as fixes.

A fix is text a person pastes into a shell, and much of what it names comes from a node
(an interpreter's path, an ssh config entry, a bus id, a variable name) or an input file:
untrusted. Every such value goes through ``sh()``, here, and nowhere else:

- a value made of characters no shell treats specially is printed as is (``/usr/bin/python3``);
- anything else is one single-quoted word (``shlex.quote``: ``'/opt/x;touch /tmp/PWN;#/python3'``);
- a value holding a control character (a newline, an escape sequence, a carriage return), a
  Unicode line or paragraph separator, a format character (bidi overrides that make a
  line read differently from what it runs) or an undecodable byte is one ANSI-C quoted word
  (``$'a\\nb'``: bash, zsh, ksh, and POSIX sh since Issue 8), so the printed line stays one
  line and shows what it holds; a value never adds a line to a fix.

Checks build fixes with ``cmd(template, **values)``: the template is the check's own text
(``"{exe} -m pip uninstall -y pynvml"``); every field is filled with ``sh(value)`` (a list or
tuple becomes its quoted items joined by spaces). Text the check itself chose and means the
shell to read (``$USER``) is passed as ``Literal("$USER")``.
"""

import re
import shlex
import string
import unicodedata

__all__ = ["sh", "cmd", "Literal", "Fix", "needs_ansi_c", "Shown", "hostile", "home_path"]


class Literal(str):
    """Text a check wrote itself (never a value from facts) that the shell should read as is."""


class Fix(str):
    """A fix assembled by ``cmd``: each value in it was quoted by ``sh``."""


# Characters that end or alter a line on a terminal or for str.splitlines(), or hide what the
# line runs: C0/C1 controls and DEL (Cc), format characters such as U+202E (Cf), U+2028/U+2029
# (Zl, Zp), and lone surrogates (Cs: a byte that was not UTF-8, kept by surrogateescape).
_UNSAFE_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))


def _unsafe(ch):
    return unicodedata.category(ch) in _UNSAFE_CATEGORIES


def needs_ansi_c(text):
    return any(_unsafe(c) for c in text)


def _ansi_c(text):
    """``$'...'`` with every byte that is not plain printable text written as \\xHH (bash's
    ansi_cstrings: \\xHH takes at most two hex digits, so the next character is never eaten)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "'":
            out.append("\\'")
        elif _unsafe(ch):
            o = ord(ch)
            if 0xDC80 <= o <= 0xDCFF:  # surrogateescape: the original byte
                out.append("\\x%02x" % (o - 0xDC00))
            elif o < 0x80:
                out.append("\\x%02x" % o)
            else:
                out.extend("\\x%02x" % b for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def sh(value):
    """One shell word that reads back as ``value`` and prints on one line."""
    if isinstance(value, Literal):
        return str(value)
    if isinstance(value, (list, tuple)):
        return " ".join(sh(v) for v in value)
    text = value if isinstance(value, str) else str(value)
    if needs_ansi_c(text):
        return _ansi_c(text)
    return shlex.quote(text)


def home_path(path):
    """``path`` as a word the shell still reads from the home folder: ``~/rest`` is ``~/`` and ``sh(rest)``
    (``~/train.py``, ``~/'my run.py'``), since a quoted tilde is not expanded: ``pdcp -w n3 -- '~/train.py' ...``
    copied a file named ``~/train.py`` under the current folder, which is none. Any other path is ``sh(path)``."""
    if isinstance(path, str) and not isinstance(path, Literal) and path.startswith("~/") and len(path) > 2:
        return Literal("~/" + sh(path[2:]))
    return Literal(sh(path))


class _Quoting(string.Formatter):
    def format_field(self, value, format_spec):
        if isinstance(value, (Literal, list, tuple)):
            return sh(value)
        return sh(format(value, format_spec))


_FORMATTER = _Quoting()


def cmd(template, *args, **values):
    """The fix ``template`` (the check's own text, ``str.format`` fields) with every field
    filled by ``sh``. Literal braces are written ``{{`` and ``}}``."""
    return Fix(_FORMATTER.format(template, *args, **values))


# A description (a finding's message, what was observed and expected, a check's evidence) is prose, not a command,
# but it names node values (a hostname, an env value, a path, a version string) that the node chose: one that holds
# what a shell acts on (a command substitution, ';', a quote, a newline) or a control character is shown there as
# the same one shell word a fix line would hold (sh), so a description copied into a terminal runs nothing and
# shows what the value holds. Plain values (every healthy node's) are shown as they are.
_ACTIVE = frozenset("$`;|&<>\\'\"\n\r")
MAX_SHOWN = 512  # hostile values of one run looked for in its descriptions (the longest first)
MAX_VALUE = 4096
MAX_TOTAL = 32768  # characters of all those values together: the alternation's cost per character of a description


# a brace expansion (bash(1) "Brace Expansion": an unquoted '{', a ',' or '..', a '}'): `{touch,M}` is the command
# `touch M` with no blank and no character _ACTIVE holds (red team 2026-11-29, docs/security.md 109.); read with a
# '.' for '..' (linear: no class run can give back a ',' or '.')
_BRACE = re.compile(r"\{[^{}\s,.]*[,.][^{}\s]*\}")


def hostile(value):
    """Whether a node value must be quoted where a description names it: 3+ characters, one of them a letter or a
    digit (a bare ';' or '&' is the prose's own), and a character a shell acts on, a brace expansion or a control
    character."""
    return (isinstance(value, str) and 3 <= len(value) <= MAX_VALUE and any(c.isalnum() for c in value)
            and (any(c in _ACTIVE for c in value) or needs_ansi_c(value) or _BRACE.search(value) is not None))


class Shown(object):
    """The descriptions of a run with its nodes' hostile values each made one sh() word; ``Shown(values)(text)``.
    Every occurrence of every value is found, overlapping ones too, and each run of overlapping occurrences becomes
    one sh() word (red team 2026-11-26h, docs/security.md 28.: a second value that began before the first one and
    ended inside it was quoted alone, leaving the first one's rest bare). A value already between single quotes, with
    none of its own, is left (a check that quoted it itself). Where the nodes hold more hostile values than are looked
    for (more than MAX_SHOWN, or MAX_TOTAL characters together: the alternation costs up to that per character of a
    description), or one longer than MAX_VALUE, every space-separated word of a description that holds what a shell or a
    terminal acts on is made one sh() word instead (the prose's own quotes too: safe before pretty)."""

    def __init__(self, values, inert=False):
        # inert: each hostile value is written as inert_word ($'...' with every character a shell acts on as \xNN),
        # a check's own quotes around it taken in: literal whatever quote an earlier prose apostrophe left open
        # ("the driver's own libcuda.so.'V'": the apostrophe paired with the word's opening quote and left V bare
        # when the line was pasted, red team 2026-11-28f, docs/security.md 86.)
        self._inert = inert
        vals, every = set(), False
        for v in values:
            if hostile(v):
                vals.add(v)
                # (red team 2026-11-28g, docs/security.md 90.) as repr() and ascii() write it too: a check shows a
                # list or a dict a node sent as repr() writes it ('["x\\\\'$(touch M)"]': a backslash doubled, so
                # the value itself was not found there, and '$(...)' sat inside repr's double quotes)
                for form in (repr(v)[1:-1], ascii(v)[1:-1]):
                    if form != v and hostile(form):
                        vals.add(form)
                    elif form != v and len(form) > MAX_VALUE and _acts(form):
                        every = True  # a form too long to look for (repr doubles each '\\', writes '\n' as two)
            elif isinstance(v, str) and len(v) > MAX_VALUE and _acts(v):
                every = True
        self._every = every or len(vals) > MAX_SHOWN or sum(len(v) for v in vals) > MAX_TOTAL
        vals = sorted(vals, key=len, reverse=True)
        self._rx = re.compile("|".join(re.escape(v) for v in vals)) if vals and not self._every else None

    def __call__(self, text, as_word=None):
        """``as_word``: how a value is written (default shown_word)."""
        if not isinstance(text, str):
            return text
        as_word = as_word or (inert_word if self._inert else shown_word)
        if self._every:
            return _WORD.sub(lambda m: as_word(m.group(0)) if _acts(m.group(0)) else m.group(0), text)
        if self._rx is None:
            return text
        runs, pos = [], 0
        while True:  # every occurrence: the next search starts one past the last match's start
            m = self._rx.search(text, pos)
            if m is None:
                break
            s, e = m.span()
            if runs and s < runs[-1][1]:
                runs[-1] = [runs[-1][0], max(e, runs[-1][1]), False]
            else:
                runs.append([s, e, "'" not in m.group(0)])
            pos = s + 1
        out, last = [], 0
        for s, e, alone in runs:
            word = text[s:e]
            if alone and 0 < s and e < len(text) and text[s - 1] == "'" == text[e]:
                if " " not in word and not self._inert:
                    continue
                s, e = s - 1, e + 1  # the check's own 'a;b c': written as shown_word writes it (never split)
            out.append(text[last:s])
            out.append(as_word(word))
            last = e
        out.append(text[last:])
        return "".join(out)


_WORD = re.compile(r"[^ ]+")


def bounded(value, limit):
    """A node's value as a description shows it, at most ``limit`` characters (a string as it is, anything else as
    repr() writes it; ' ...' after a cut one): plain, as it is; else one inert_word (red team 2026-11-28g,
    docs/security.md 90.). The report's Shown makes a node's hostile value inert where a description holds it whole;
    a value cut at a limit is not that value, and its cut piece ran as written ('hostname "x\'$(touch M)aaa..."')."""
    text = value if isinstance(value, str) else repr(value)
    cut = text[:limit]
    more = " ..." if len(text) > limit else ""
    if any(c in ACTS for c in cut) or needs_ansi_c(cut):
        return inert_word(cut) + more
    return cut + more


def shown_word(value):
    """sh(value) as a description shows it: one holding a space is written $'...' with the space as \\x20, so the
    text report, which wraps prose at spaces and never a line holding $', cannot split it over two lines (the second
    line began inside the quote and ran when copied alone: docs/security.md 28.)."""
    if " " not in value:
        return sh(value)
    return _ansi_c(value).replace(" ", "\\x20")


def _acts(text):
    return any(c in _ACTIVE for c in text) or needs_ansi_c(text) or _BRACE.search(text) is not None


def leaf_strings(facts, limit=100000):
    """Every string of a node's facts, keys too (an env variable's name is the node's), up to ``limit``."""
    out, stack = [], [facts]
    while stack and len(out) < limit:
        x = stack.pop()
        if isinstance(x, dict):
            out.extend(k for k in x if isinstance(k, str))
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, str):
            out.append(x)
    return out



# A line of the user's own text that a fix shows edited (a script line given a default, a submitting command with
# its '$' escaped: explain/slurmscript.py) can be printed as it is only where, pasted, it runs the one command its
# words name: the text is whoever wrote the log's (red team 2026-11-27b, docs/security.md 31.).
_ARITH = re.compile(r"\$\(\(([\w\s$+*/%{}:?,.-]*)\)\)")


def first_active(line):
    """The offset of the first thing in a shell line that does more than run its one command with its own words and
    parameter expansions, or None: a command substitution (``$(``, a backtick: inside double quotes too), ``$'``, a
    history expansion (``!`` outside single quotes), a second command, a pipe, a redirection or a subshell (``;`` ``&``
    ``|`` ``<`` ``>`` ``(`` ``)`` outside quotes), a control or format character, or a quote left open (its offset:
    the line's length). ``$((...))`` arithmetic of names and numbers is kept."""
    if not isinstance(line, str):
        return 0
    for i, c in enumerate(line):
        if _unsafe(c):
            return i
    i, n, state = 0, len(line), None
    while i < n:
        c = line[i]
        if state == "'":
            if c == "'":
                state = None
            i += 1
            continue
        if c == "\\":
            i += 2
            continue
        if c == "$" and line.startswith("$((", i):
            m = _ARITH.match(line, i)
            if m is None:
                return i
            i = m.end()
            continue
        if c == "$" and line[i + 1:i + 2] in ("(", "'") or c in "`!":
            return i
        if state == '"':
            if c == '"':
                state = None
        elif c in ";&|<>()":
            return i
        elif c in "'\"":
            state = c
        i += 1
    return n if state is not None else None


def inert(line):
    """Whether ``line``, pasted, runs only the one command its words name (first_active finds nothing)."""
    return first_active(line) is None


# A report that wraps its lines at blanks (explain's text report) must never break inside a shell-quoted word: the
# next line then began inside the quote and ran what the value held when copied alone ('... ccc; touch PWN; #' of
# ls -l '/data/a b ccc; touch PWN; #'), as item 28 found for check's descriptions (docs/security.md 31.).
KEEP = "\ue000"  # a private-use character: what a blank inside a quoted word is while the text is wrapped
_WORD_START = " =(:,["


def _quote_end(text, i):
    """The offset just past the quoted word that starts at ``text[i]`` (``'...'``, ``"..."`` or ``$'...'``, and the
    quoted pieces glued to it: sh()'s ``'a'"'"'b'``), or None where its quote is not closed."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                return None
            i = j + 1
        elif c == '"' or (c == "$" and text[i + 1:i + 2] == "'"):
            close = '"' if c == '"' else "'"
            j = i + (1 if c == '"' else 2)
            while j < n and text[j] != close:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                return None
            i = j + 1
        else:
            return i
    return i


def keep_quoted(text):
    """``text`` with every blank inside a shell-quoted word (one that starts a word: after a blank, ``=``, ``(``,
    ``:``, ``,``, ``[`` or the text's start, and is closed) written as KEEP, for a wrapper that breaks at blanks;
    ``.replace(KEEP, " ")`` after. A prose apostrophe inside a word (the job's) starts nothing."""
    if KEEP in text or not any(q in text for q in "'\""):
        return text
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if (c in "'\"" or (c == "$" and text[i + 1:i + 2] == "'")) and (i == 0 or text[i - 1] in _WORD_START):
            end = _quote_end(text, i)
            if end is not None:
                out.append(text[i:end].replace(" ", KEEP))
                i = end
                continue
        out.append(c)
        i += 1
    return "".join(out)


def operand(value):
    """sh(value) for a file operand of a fix's command (ls -ld, mkdir -p, df -h): a relative path that starts with
    '-' is written './-...', the same file, so that the command never reads it as an option (a log's path
    '-oProxyCommand=...' or '--reference=/etc/shadow'; red team 2026-11-27b)."""
    text = value if isinstance(value, str) else str(value)
    return sh("./" + text if text.startswith("-") else text)


# Prose that quotes what an input says as it is written (explain's titles, notes and causes quoting a log; plan's
# notes quoting a script): a word holding `;touch x;#`, `$(...)` or `<(...)` sat bare in a prose line, ran when the
# line (or a clause of it) was copied into a shell, and a wrap at a blank inside a log path put it at a line's start
# (docs/security.md 58., 78.). Such prose is written safe before pretty: each of its words that holds what a shell
# acts on becomes one $'...' word with every such character as \xNN, inert whatever quote an earlier word opened (a
# prose apostrophe pairs with an input's quote), and blank-free, so no wrap splits it. Prose without a trigger reads
# as before. (a separator glued to what follows it: the prose's own '; ' and ' & ' are followed by a blank)
# (red team 2026-11-29, docs/security.md 108.: '<' and '>' end a word, so bash starts a process substitution after a
# word character or ']' too, `aaa>(cmd)`; a glued separator runs a brace expansion `;{touch,M}` (a command with no
# blank and no ${IFS}), a tilde path `;~/x`, a redirection `;>F` or a test `;[ ...` as well)
# (110.: a backquote glued to a word on its outer side, `aaa`{touch,M}`bbb`, or around a brace command, `{touch,M}`,
# is a command substitution a pasted line runs; the prose's own `raise`, (`wait`), `return`/`break` are not triggers)
TRIGGER = re.compile(r"[;|][A-Za-z0-9_/.$(`'\"\\{~<>\[*?!-]|&[A-Za-z0-9_/.$(`\\{~<>\[*?!-]|(?<![<>])[<>]\(|\$[({]"
                     r"|(?<=[\w\]})-])`(?=[\w{~$(-])|(?<=[^\s`(\[{'\"/])`(?=[\w{(-])|`\{[^{}\s`,.]*(?:,|\.\.)[^{}\s`]*\}`")
ACTS = frozenset("$`;|&<>\\'\"!\n\r")
_BLANK_SEP = re.compile(r"[;&|]{1,2}[ \t]")
SIDE = 8  # characters on each side of a blank-followed separator that must come from the input with it


def inert_word(word):
    """``word`` as one $'...' shell word whose every character a shell acts on (quotes, $, backtick, ;, |, &, <, >,
    \\, !, #, ~, globs, braces) is written \\xNN: literal inside a quote and outside one alike."""
    return "$'" + "".join(c if c.isalnum() or c in "_./:@%+,=-()" or (ord(c) > 127 and c.isprintable())
                          else "\\x%02x" % ord(c) if ord(c) < 256 else "\\u%04x" % ord(c) for c in word) + "'"


def _words_safe(text):
    return " ".join(inert_word(w) if any(c in ACTS for c in w) else w for w in text.split(" "))


def _spans(text, windows):
    """[(start, end)] of the input's separator spans (``windows``) in ``text``, merged where they meet and widened to
    the words they begin and end in."""
    found = []
    for w in windows:
        i = text.find(w)
        while i >= 0 and len(found) < 1000:
            found.append([i, i + len(w)])
            i = text.find(w, i + 1)
    if not found:
        return []
    found.sort()
    merged = [found[0]]
    for s, e in found[1:]:
        if s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    out = []
    for s, e in merged:
        b = text.rfind(" ", 0, s) + 1
        n = text.find(" ", e)
        n = len(text) if n < 0 else n
        if out and b <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], n))
        else:
            out.append((b, n))
    return out


def guarded_prose(text, windows=()):
    """``text`` as-is, or, where a word of it holds a command separator or substitution (TRIGGER), or it holds a
    separator the input wrote (one of ``windows``: input_windows), with every word that holds what a shell acts on
    made inert_word. The input's own span around such a separator, from the word it begins in to the word it ends in,
    becomes one inert_word, blanks and all: a wrap at one of its blanks began a line with the input's next word."""
    spans = _spans(text, windows) if windows else []
    trigger = TRIGGER.search(text)
    if not spans and not trigger:
        return text
    # (review24) the words outside the input's spans follow the trigger rule alone: with a span but no trigger, the
    # prose's own apostrophes and backquotes ("salloc's", `wait`) stayed as written, not $'salloc\x27s'
    rest = _words_safe if trigger else (lambda t: t)
    out, last = [], 0
    for s, e in spans:
        out.append(rest(text[last:s]))
        out.append(inert_word(text[s:e]))
        last = e
    out.append(rest(text[last:]))
    return "".join(out)


def input_windows(strings, texts, limit=2 << 20):
    """frozenset of the spans (up to SIDE characters each side) around the blank-followed separators of ``strings``
    that one of ``texts`` (what the input held: a script and the files it sources; at most ``limit`` characters)
    holds: the input's own '; ', not the prose's (docs/security.md 68., 78.)."""
    kept, size = [], 0
    for t in texts:
        if size >= limit:
            break
        kept.append(t[:limit - size])
        size += len(kept[-1])
    found = set()
    for s in strings:
        for m in _BLANK_SEP.finditer(s[:65536]):
            # (on the left, the word the separator ends: a script's short word `u; touch M` stands after the prose's
            # own `runs `, which the script does not hold)
            left = max(0, m.start() - SIDE, s.rfind(" ", 0, m.start()) + 1)
            # (on the right, at most the next word, less the prose's punctuation after it: a value that ends there,
            # `u; touch M; ab` then `.sh, which`, is still found)
            nxt = s.find(" ", m.end())
            word_end = min(m.end() + SIDE, len(s) if nxt < 0 else nxt)
            for w in (s[left:m.end() + SIDE].strip(), s[left:word_end].rstrip(",.:;)]}'\"").strip()):
                if len(w) >= 4 and w[-1] not in " \t;&|" and w not in found and any(w in t for t in kept):
                    found.add(w)
                    break
        if len(found) > 1000:
            break
    return frozenset(found)
