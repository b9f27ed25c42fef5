"""Shared helpers of the knowledge generators (tools/gen_*.py; STYLE.md "Generated knowledge").

Each generator reads one pinned source and writes gpudoctor/data/knowledge/generated/<source>.json:

    {"header": {"source": ..., "version": ..., "generator": ..., "date": ..., "note": ...},
     "sites": [{"id", "where", "text", "re", "family", "rule", ...}, ...],
     "unassigned": [...ids of sites no rule assigns...]}

A site's "re" is a bounded, linear-time matcher (printf_to_regex); its "family" is the knowledge
entry (a TOML file) that explains it, assigned by the generator's hand-written rules table, or
null: a site no rule assigns is listed in docs/explain.md, never guessed.

What every generator repeats lives here, so that its own file holds only what is its source's:

    def main(argv):
        a = knowgen.arguments(__doc__, argv, rev="HEAD")        # --repo/--rev or --slice, -o
        files, version = knowgen.source_files(a, from_repo)    # from_repo: tree_files + revision
        return knowgen.emit("<source>", build(files, version), a.out)   # write + summary line

and build() reads each format (c_format for a C argument, go_format for a Go one, py_messages for Python's raise/assert/
logging calls), gives each site its id (slug), drops a vague format (unanchored), matches it
(printf_to_regex; matcher: a message that spans lines by its first line, py_first_lines), names
its family (assign) and its fix (give_fix; stale_fixes in main() stops when a fix row lost its
message). Tests regenerate a slice with regenerated() and compare it with
committed().
"""

import argparse
import ast
import collections
import contextlib
import datetime
import functools
import io
import json
import os
import re
import subprocess
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated")
DATA = os.path.join(ROOT, "tools", "data")
GZIP_LEVEL = 9  # the compression of a stored .gz table or slice (save_text): fixed, so that regeneration is repeatable
MIN_LITERAL = 8  # a site whose longest literal run (without blanks) is shorter is too vague to match: skipped

# printf conversions (C99 7.19.6.1): flags, width, precision, length, conversion
_CONV = re.compile(r"%(?:\d{1,9}\$)?([-+ #0']*)(\*(?:\d{1,9}\$)?|\d+)?(?:\.(\*(?:\d{1,9}\$)?|\d*))?"
                   r"(hh|h|ll|l|L|z|j|t|q)?([diouxXeEfFgGaAcspn%])")
_INT = r"-?\d{1,20}"
_HEX = r"(?:0x)?[0-9a-f]{1,16}"
_STR = r"[^\n]{0,200}"


def call_args(src, i):
    """The top-level arguments of a C/C++ call or macro whose '(' ends at src[i-1], each as
    written (string literals kept whole, nested brackets not split); None when the call does
    not end in src."""
    out, depth, cur, n = [], 0, [], len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            cur.append(src[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                out.append("".join(cur).strip())
                return out
            depth -= 1
        elif c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    return None


def statement_end(src, i):
    """Where the C/C++ statement starting at src[i] ends: the index of its ';' at bracket depth 0
    (string literals skipped whole, an unterminated one as one character), len(src) when there is none."""
    depth, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            m = C_STRING.match(src, i)
            i = m.end() if m else i + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth <= 0:
            return i
        i += 1
    return n


def package_version(paths):
    """The ``Version:`` field of the first of ``paths`` that can be read and has one (an sdist's
    PKG-INFO, a wheel's ``*.dist-info/METADATA``: the core metadata format,
    https://packaging.python.org/en/latest/specifications/core-metadata/#version); '?' when none has."""
    for path in paths:
        try:
            with open(path) as f:
                m = re.search(r"^Version:\s*(\S+)", f.read(), re.M)
        except OSError:
            continue
        if m:
            return m.group(1)
    return "?"


def printf_to_regex(fmt):
    """(regex, longest literal) for a printf format: literal text escaped, each conversion a
    bounded group; leading and trailing conversions dropped (patterns are searched, not
    anchored), runs of blanks made flexible. Every repetition is bounded and separated by
    literals, so the match time is linear in the line."""
    parts, pos = [], 0
    for m in _CONV.finditer(fmt):
        if m.start() > pos:
            parts.append(("lit", fmt[pos:m.start()]))
        conv = m.group(5)
        if conv == "%":
            parts.append(("lit", "%"))
        elif conv in "diu":
            parts.append(("conv", _INT))
        elif conv in "xXop":
            parts.append(("conv", r"(?:%s|\(nil\))" % _HEX if conv == "p" else _HEX))
        elif conv in "eEfFgG":
            parts.append(("conv", r"-?[0-9.e+-]{1,30}"))
        elif conv in "aA":  # hexadecimal floating point: 0x1.8p+1
            parts.append(("conv", r"-?0[xX][0-9a-fA-F.pP+-]{1,30}"))
        elif conv == "c":
            parts.append(("conv", r"[^\n]"))
        else:
            parts.append(("conv", _STR))
        pos = m.end()
    if pos < len(fmt):
        parts.append(("lit", fmt[pos:]))
    # merge adjacent literals
    merged = []
    for kind, val in parts:
        if merged and kind == "lit" == merged[-1][0]:
            merged[-1] = ("lit", merged[-1][1] + val)
        else:
            merged.append((kind, val))
    # strip newlines and edge blanks inside literals; drop edge conversions
    merged = [(k, v.replace("\n", " ").replace("\t", " ")) if k == "lit" else (k, v) for k, v in merged]
    while merged and (merged[0][0] == "conv" or not merged[0][1].strip()):
        merged.pop(0)
    while merged and (merged[-1][0] == "conv" or not merged[-1][1].strip()):
        merged.pop()
    if not merged:
        return None, ""
    out, longest = [], ""
    for i, (kind, val) in enumerate(merged):
        if kind == "conv":
            # two conversions in a row would make two repetitions compete: one group for both
            if out and out[-1][0] == "conv":
                out[-1] = ("conv", _STR)
            else:
                out.append((kind, val))
            continue
        text = val
        if i == 0:
            text = text.lstrip()
        if i == len(merged) - 1:
            text = text.rstrip()
        squashed = "".join(text.split())
        if len(squashed) > len("".join(longest.split())):
            longest = text.strip()
        out.append((kind, re.escape(text)))
    return "".join(v for _, v in out), longest


# A C string literal (one; adjacent ones are joined by c_format), its body in group 1.
C_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# <inttypes.h>'s format macros are string literals (glibc stdlib/inttypes.h, LP64 as on x86_64 and aarch64:
# __PRI64_PREFIX and __PRIPTR_PREFIX are "l"; PRIu64 is __PRI64_PREFIX "u", PRIu32 is "u"), and the compiler
# joins adjacent literals (C11 6.4.5p5, translation phase 6): "%" PRIu64 "s" is "%" "l" "u" "s", i.e. "%lus".
# The macro is the conversion's length and letter only: the "%" is the literal before it.
_PRI_MACRO = re.compile(r"PRI([diouxX])(8|16|32|64|LEAST(?:8|16|32|64)|FAST(?:8|16|32|64)|MAX|PTR)\b")
_PRI_LONG = {"64", "LEAST64", "FAST16", "FAST32", "FAST64", "MAX", "PTR"}


def c_unescape(body):
    """A C string literal's body as the string it stands for: \\n and \\t as themselves, any other
    escaped character as that character (\\" -> ", \\\\ -> \\)."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def inttypes(name):
    """What an <inttypes.h> format macro expands to ('PRIu64' -> 'lu', 'PRIx32' -> 'x'), or None
    when ``name`` is not one."""
    m = _PRI_MACRO.fullmatch(name)
    return m and ("l" if m.group(2) in _PRI_LONG else "") + m.group(1)


def c_format(src, i, macro=None, lead=False):
    """The printf format a C call argument starting at src[i] spells: its adjacent string literals
    joined (c_unescape), each <inttypes.h> macro among them expanded ('"%" PRIu64' is '%lu', see
    inttypes), each other token that the regex ``macro`` matches read as %s (a string constant, a
    #stringified argument); blanks and line continuations skipped, up to the first other token (the
    ',' or ')' that ends the argument). None when it holds no literal. Macros count only after the
    first literal unless ``lead``."""
    out, n, saw = [], len(src), False
    other = re.compile(macro) if macro else None
    while i < n:
        c = src[i]
        if c in " \t\r\n\\":
            i += 1
            continue
        if c == '"':
            m = C_STRING.match(src, i)
            if not m:
                return None
            out.append(c_unescape(m.group(1)))
            saw, i = True, m.end()
            continue
        if not (saw or lead):
            break
        m = _PRI_MACRO.match(src, i)
        if m:
            out.append(inttypes(m.group()))
            i = m.end()
            continue
        m = other.match(src, i) if other else None
        if m:
            out.append("%s")
            i = m.end()
            continue
        break
    return "".join(out) if saw else None


# Go's fmt verbs that print a value as text (https://pkg.go.dev/fmt: %v %+v %#v, %w in Errorf, %q, %T, %t): read
# as %s by go_format
_GO_VERB = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?[vwqTt]")


def go_format(src, i):
    """The format a Go call argument starting at src[i] spells: an interpreted string literal ("...", its C-like
    escapes read by c_unescape) or a raw one (`...`), each '+' of such joined, Go's %v-family verbs
    read as %s; None when it starts with no literal."""
    out, n = [], len(src)
    while i < n:
        while i < n and src[i] in " \t\r\n":
            i += 1
        if i < n and src[i] == '"':
            m = C_STRING.match(src, i)
            if not m:
                return None
            out.append(c_unescape(m.group(1)))
            i = m.end()
        elif i < n and src[i] == "`":
            j = src.find("`", i + 1)
            if j < 0:
                return None
            out.append(src[i + 1:j])
            i = j + 1
        else:
            break
        j = i
        while j < n and src[j] in " \t\r\n":
            j += 1
        if j < n and src[j] == "+":
            i = j + 1
            continue
        break
    # '%%' is a literal '%' ('%%test sections'): kept whole, never read as the verb %t
    return "%%".join(_GO_VERB.sub("%s", part) for part in "".join(out).split("%%")) if out else None


def py_format(node):
    """A Python message expression (ast) as a printf format: a str constant (its % doubled), an f-string (each
    replacement field %s), a '+' of such (any other operand %s), a '...' % args (already a %-format),
    '...'.format(...) (each {field} %s); None when it holds no literal text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("%", "%%")
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            out.append(v.value.replace("%", "%%") if isinstance(v, ast.Constant) else "%s")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = py_format(node.left), py_format(node.right)
        return (a if a is not None else "%s") + (b if b is not None else "%s") if (a or b) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        return node.left.value  # already a %-format
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return re.sub(r"\{[^{}]*\}", "%s", node.func.value.value.replace("%", "%%"))
    return None


_LOGGERS = ("logger", "logging")


def py_message(node):
    """(level, message node) of a Python statement that reports a failure: `raise X(msg, ...)` and
    `assert cond, msg` ('raise': the exception's text), logger./logging.error and .critical ('error'),
    .warning and warnings.warn ('warning'); else (None, None)."""
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
        return "raise", node.exc.args[0]
    if isinstance(node, ast.Assert) and node.msg is not None:
        return "raise", node.msg  # AssertionError: <msg>
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return None, None
    owner, attr = node.func.value, node.func.attr
    name = owner.id if isinstance(owner, ast.Name) else None
    if attr in ("error", "warning", "critical") and name in _LOGGERS:
        return ("warning" if attr == "warning" else "error"), node.args[0]
    if attr == "warn" and name == "warnings":
        return "warning", node.args[0]
    return None, None


def walk(node):
    """ast.walk's nodes in ast.walk's order (breadth first, each node's fields in _fields order), without its two
    generators per node (iter_child_nodes, iter_fields): tools/gen_call_guards.py walks torch's 431 sources many
    times over, and the walks were most of its CPU (suite32: torch 2.13.0+cpu's wheel, 19.5 -> 8.6 s of CPU with
    parse_py, the same output)."""
    todo = collections.deque([node])
    pop, push, AST = todo.popleft, todo.append, ast.AST
    while todo:
        node = pop()
        for name in node._fields:
            try:
                value = getattr(node, name)
            except AttributeError:
                continue
            if isinstance(value, AST):
                push(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        push(item)
        yield node


@functools.lru_cache(maxsize=16)
def parse_py(src):
    """ast.parse(src), kept for the next reader of the same source (the readers of a file's messages, its calls and
    its guards each parsed it: four parses a file in gen_call_guards). Its readers never change the tree."""
    return ast.parse(src)


def py_messages(src, more=None):
    """(level, line, format) of each message a Python source reports (py_message; ``more(node)`` ->
    (level, message node) adds a source's own kinds, asked when py_message finds none), the format
    (py_format) with its blanks squashed; nothing when the source does not parse."""
    try:
        tree = parse_py(src)
    except SyntaxError:
        return
    for node in walk(tree):
        level, arg = py_message(node)
        if level is None and more is not None:
            level, arg = more(node)
        if level is None:
            continue
        fmt = _py_message_format(node, arg)
        if fmt:
            yield level, node.lineno, " ".join(fmt.split())


def _py_message_format(node, arg):
    """The format (py_format) of the message ``arg`` of the statement ``node``, its blanks and line breaks as
    written; a logging call given arguments keeps its string as written."""
    if isinstance(node, ast.Call) and len(node.args) > 1 and isinstance(arg, ast.Constant) and \
            isinstance(arg.value, str) and isinstance(node.func, ast.Attribute) and \
            isinstance(node.func.value, ast.Name) and node.func.value.id in _LOGGERS:
        # logger.warning("... %s", x): logging formats msg % args when there are args (CPython
        # Lib/logging/__init__.py, LogRecord.getMessage), so the text is already a %-format
        return arg.value
    return py_format(arg)


def first_line(fmt):
    """The first line of a message format whose text holds a line break before more text, its blanks squashed;
    None for a message of one line. Printed, such a message spans lines (accelerate's "Cannot apply desired
    operation due to shape mismatches ...\\n\\nOperation: ..."), so a matcher of its squashed whole text
    would need them on one: its first line is the matcher (matcher)."""
    fmt = (fmt or "").strip()
    return " ".join(fmt.split("\n")[0].split()) if "\n" in fmt else None


def py_first_lines(srcs):
    """{line: first_line} of the messages of the Python sources ``srcs`` (py_messages' kinds) that span lines."""
    out = {}
    for src in srcs:
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            level, arg = py_message(node)
            first = level and first_line(_py_message_format(node, arg))
            if first:
                out[node.lineno] = first
    return out


def matcher(fmt, first=None, need=16):
    """printf_to_regex of a site's format ``fmt``, or of ``first``, its first line (first_line), when it has
    one that keeps ``need`` non-blank literal characters."""
    if first and first != fmt:
        rx, literal = printf_to_regex(first)
        if rx is not None and len("".join(literal.split())) >= need:
            return rx, literal
    return printf_to_regex(fmt)


def binary_strings(data, minimum):
    """The printable runs of a binary's bytes (a shared object's), as GNU `strings -n MINIMUM` prints them
    (binutils strings.c: printable ASCII and tab, at least MINIMUM long)."""
    return [m.group().decode("ascii") for m in re.finditer(rb"[\x20-\x7e\t]{%d,}" % minimum, data)]


def run_around(data, needle):
    """The printable run (bytes 0x20-0x7e, no tab) of a binary's bytes that holds the first ``needle``, or None:
    a message the linker keeps whole around a piece of it that is known (a format's file path, its literal)."""
    i = data.find(needle)
    if i < 0:
        return None
    a, b = i, i + len(needle)
    while a > 0 and 0x20 <= data[a - 1] <= 0x7e:
        a -= 1
    while b < len(data) and 0x20 <= data[b] <= 0x7e:
        b += 1
    return data[a:b].decode("ascii")


def slug(text):
    """A place or a name as part of a site id: lower case, each run of other characters than a-z and
    0-9 one '_', none at the ends ('src/ucs/sys/sys.c:42' -> 'src_ucs_sys_sys_c_42')."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def unique_id(base, ids):
    """`base`, or `base_2`, `base_3`, ... the first not in `ids`; added to `ids` (two sites of one
    file can slug to the same id: a key with a generic and a specific text, one format per line)."""
    sid, n = base, 2
    while sid in ids:
        sid, n = "%s_%d" % (base, n), n + 1
    ids.add(sid)
    return sid


def unanchored(site, rx, literal, need=MIN_LITERAL):
    """Whether a format is too vague to match: it has no matcher (printf_to_regex gave rx None) or
    its longest literal run has fewer than ``need`` non-blank characters. Then the site gets re and
    family None and the rule that says so (listed as unassigned, never guessed)."""
    if rx is not None and len("".join(literal.split())) >= need:
        return False
    site.update({"re": None, "family": None, "rule": "no literal anchor of %d+ characters" % need})
    return True


# what splits a format into its literal runs for own_words: a printf conversion, Slurm's %pX (src/common/log.c),
# glibc's %m, and '%%'
_CONV_RUN = re.compile(r"%(?:p[A-Za-z]|m|[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t|L)?[a-zA-Z])|%%")
# the C library's error texts (strerror, glibc on Linux): any program's line may quote one
ERRNO_TEXTS = frozenset(os.strerror(n).lower() for n in range(1, 134))


def own_words(fmt, names=True):
    """The words (2+ letters) of the literal run of a format that holds the most of them, its conversions taken
    out. ``names=False``: a word inside an identifier ('listen_error_messages: %s') is no word of its own."""
    word = re.compile(r"[A-Za-z]{2,}" if names else r"\b[A-Za-z]{2,}\b")
    return word.findall(max(_CONV_RUN.split(fmt), key=lambda r: len(word.findall(r))))


def specific_enough(fmt, need=3, errtexts=ERRNO_TEXTS, names=True):
    """Whether a format's own words name its message, so that the source file that prints it may give it that
    file's family (the generators' CONTEXT_RULES): its own_words are at least ``need`` and are not within one of
    ``errtexts`` (lower case; default the errno texts), which any line may quote. Too few ('%s: invalid %pI',
    'Missing argument %s') stays unassigned."""
    words = own_words(fmt, names)
    if len(words) < need:
        return False
    said = " ".join(w.lower() for w in words)
    return not any(said in t for t in errtexts)


# A message matched on its own words alone (a generator's 'ctx-' rules, or a short message no exception class
# anchors) needs OWN_WORDS words and OWN_CHARS non-blank characters of literal text of its own: fewer, and other
# programs print the same words ('index out of range' ends the builtins' 'list index out of range'; 'Config file not
# found: %s'). Python's %-conversions (py_format's) are not literal text.
OWN_WORDS, OWN_CHARS = 4, 20
PY_CONV = re.compile(r"%[-#0-9.]*[a-zA-Z]")


def own_enough(fmt):
    """Whether a (Python) message format has OWN_WORDS words and OWN_CHARS characters of literal text of its own."""
    return specific_enough(fmt, need=OWN_WORDS) and len("".join(PY_CONV.sub("", fmt).split())) >= OWN_CHARS


def give_fix(site, fixes, text):
    """Give an assigned site (its family set) the meaning and fix of the first row (regex, means,
    [commands]) of a generator's fix table (MSG_FIX, SITE_FIX) whose regex matches the site's format
    ``text``: site["means"], site["fix"]. stale_fixes checks that every row still finds its site."""
    fix = next(((means, fx) for r, means, fx in fixes if re.search(r, text)), None)
    if site.get("family") and fix:
        site["means"], site["fix"] = fix[0], list(fix[1])


def ast_name(node):
    """The name an ast Name or Attribute node ends in (`Enum`, `pydantic.Field` -> `Field`), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def header(source, version, generator, note=""):
    return {"source": source, "version": version, "generator": generator,
            "date": datetime.date.today().isoformat(),
            "note": note or "generated by %s; do not edit by hand, run it again" % generator}


def needles(rx):
    """The prefilter needles of a matcher, as explain derives them (gpudoctor/explain/knowledge.py:
    the longest required literal runs, lower case, without blanks, cut to MAX_NEEDLE), stored with
    the site so that explain need not parse thousands of regexes when it starts."""
    import sys

    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from gpudoctor.explain.knowledge import MAX_NEEDLE, needles_of, squash

    return sorted({squash(n)[:MAX_NEEDLE].decode("utf-8", "ignore") for n in needles_of(rx)})


def gzip_bytes(data):
    """``data`` as a gzip member (RFC 1952) that depends on nothing but the bytes: no file name, modification time 0,
    compression GZIP_LEVEL, XFL 2 and OS 255 (unknown) in the header, whatever Python writes it (the same zlib gives
    the same bytes)."""
    import zlib

    c = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + body +
            (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "little") + (len(data) & 0xFFFFFFFF).to_bytes(4, "little"))


def save_text(path, text):
    """Write ``text`` to ``path``: as UTF-8 gzip'd by gzip_bytes when the path ends in .gz (a big generated table,
    generated/<name>.json.gz, or a big slice, tools/data/*.gz: docs/explain.md "Generated knowledge"), else as it
    always was (open(path, "w"))."""
    if path.endswith(".gz"):
        with open(path, "wb") as f:
            f.write(gzip_bytes(text.encode("utf-8")))
    else:
        with open(path, "w") as f:
            f.write(text)


@contextlib.contextmanager
def open_write(path):
    """A text file to write ``path`` through (``with knowgen.open_write(path) as f``): the file itself, or, for a .gz
    path, a buffer whose text save_text writes when the block ends."""
    if not path.endswith(".gz"):
        with open(path, "w") as f:
            yield f
        return
    buf = io.StringIO()
    yield buf
    save_text(path, buf.getvalue())


def open_text(path, encoding=None):
    """``path`` open for reading as text: a .gz file (a big slice or table) decoded as UTF-8 as it is read, another
    as open(path, encoding=encoding) reads it."""
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding=encoding)


def out_path(name):
    """The committed file of generated table ``name``, which its generator writes by default:
    generated/<name>.json.gz when the table is stored compressed (tools/gzip_tables.py made it so), else
    generated/<name>.json."""
    gz = os.path.join(OUT_DIR, name + ".json.gz")
    return gz if os.path.exists(gz) else os.path.join(OUT_DIR, name + ".json")


def data_path(name):
    """tools/data/<name>, or tools/data/<name>.gz when that slice is stored compressed (tools/gzip_tables.py)."""
    path = os.path.join(DATA, name)
    return path + ".gz" if os.path.exists(path + ".gz") else path


def read_slice(path):
    """A recorded slice of a source tree: `#! version V` once, then each file as a line
    `=== path` (or `=== path @N`: the lines that follow start at line N of that file, so the
    sites keep their real line numbers) and its text. Returns ([(path, text)], version)."""
    files, cur, buf, version = [], None, [], "slice"
    with open_text(path) as f:
        for line in f:
            if line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif line.startswith("=== "):
                if cur:
                    files.append((cur, "".join(buf)))
                cur, _, first = line[4:].strip().partition(" @")
                buf = ["\n" * (int(first) - 1)] if first else []
            elif cur is not None:
                buf.append(line)
    if cur:
        files.append((cur, "".join(buf)))
    return files, version


def read_rows(path):
    """A recorded table of codes (tools/data/*_slice.tsv): `NAME<TAB>NUMBER<TAB>TEXT` a line (a
    missing TEXT is ''), blank lines and '#' comments skipped. Returns ([(name, number, text)], "slice")."""
    out = []
    with open_text(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, num, text = (line.rstrip("\n").split("\t") + [""])[:3]
                out.append((name, int(num), text))
    return out, "slice"


def git_reader(repo):
    """`git -C repo ARGS...` -> its stdout: a pinned source is read at a commit, never from
    whatever the work tree holds (fetched mirrors have no work tree at all)."""
    def git(*args):
        return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True, text=True,
                              errors="replace").stdout
    return git


def arguments(doc, argv, source="repo", rev=None, source_opts=None, extra=()):
    """The command line every generator shares, parsed: --<source> (the pinned source: a git
    directory, with --rev REV when ``rev`` is given, its default; or a folder, wheels ...; its
    argparse options ``source_opts``) or --slice FILE (the recorded slice in tools/data/ that the
    tests regenerate from), exactly one of them; -o/--out OUT (default: the committed file,
    gpudoctor/data/knowledge/generated/<name>.json); then each (flag, argparse options) of ``extra``.
    ``source`` may be a tuple of names: a source read from several places, all given together (then
    ``source_opts`` maps each name to its options). With ``source`` None the slice is optional (the
    source is what this machine has installed). The description is the first line of the
    generator's docstring ``doc``; ``a.error(message)`` stops as argparse does (exit 2)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    sources = (source,) if isinstance(source, str) else tuple(source or ())
    for name in sources:
        ap.add_argument("--" + name, **((source_opts or {}).get(name, {}) if len(sources) > 1 else source_opts or {}))
    if rev is not None:
        ap.add_argument("--rev", default=rev)
    ap.add_argument("--slice")
    ap.add_argument("-o", "--out")
    for flag, opts in extra:
        ap.add_argument(flag, **opts)
    a = ap.parse_args(argv)
    given = [bool(getattr(a, n.replace("-", "_"))) for n in sources]
    if sources and (all(given) == bool(a.slice) or (any(given) and not all(given))):
        flags = ["--" + n for n in sources]
        ap.error("give %s and %s, or --slice" % (", ".join(flags[:-1]), flags[-1]) if len(flags) > 1
                 else "give %s or --slice" % flags[0])
    a.error = ap.error
    return a


def stale_fixes(a, table, fixes, sites, of="revision"):
    """Stop (``a.error``, exit 2) when an entry of the fix table ``fixes`` ((regex, fix, commands) a
    row, named ``table``) matches the text of no site that carries a fix: the message was reworded
    or removed upstream, and its fix must be moved by hand rather than silently lost."""
    unused = [r for r, _, _ in fixes if not any(s.get("fix") and re.search(r, s["text"]) for s in sites)]
    if unused:
        a.error("%s entries match no assigned site of this %s: %s" % (table, of, "; ".join(unused)))


def source_files(a, from_repo, from_slice=None):
    """([(path, text)], version) of the parsed command line ``a``: ``from_repo(a.repo, a.rev)`` when
    a repository is given, else its slice (``from_slice``, default read_slice)."""
    if a.repo:
        return from_repo(a.repo, a.rev)
    return (from_slice or read_slice)(a.slice)


def tree_files(git, rev, dirs, keep):
    """[(path, text)] of the files at ``rev`` under ``dirs`` (the whole tree when empty) whose path
    ``keep(path)`` accepts, sorted by path; each read with `git show REV:path` (git_reader's ``git``),
    so the work tree is never used."""
    names = [p for p in git("ls-tree", "-r", "--name-only", rev, "--", *dirs).splitlines() if keep(p)]
    return [(p, git("show", "%s:%s" % (rev, p))) for p in sorted(names)]


def revision(git, rev, describe=True, untagged=None):
    """The version a generator records for a git revision: '<name> (commit <sha>)', the name being
    `git describe --tags` of ``rev`` (or ``rev`` itself when it is a tag, or when ``describe`` is
    false: a pinned release tag such as v4.1.8). ``untagged``: the name when describe finds no tag
    (a mirror fetched without tags); without it, that is an error. The commit is the one the name
    points to: an annotated tag is peeled (``rev^{commit}``, gitrevisions(7)), never the tag object's
    own id, which no `git checkout` of a clone without tags can find."""
    commit = git("rev-parse", rev + "^{commit}").strip()
    name = rev
    if describe and rev not in git("tag").split():
        try:
            name = git("describe", "--tags", rev).strip()
        except subprocess.CalledProcessError:
            if untagged is None:
                raise
            name = untagged
    return "%s (commit %s)" % (name, commit)


def slurm_release(git, rev):
    """SchedMD/slurm's version of a revision as its generators record it: '<META's Version:> (commit
    <sha>)' ('26.11.0 (commit 284c3b9...)'; '?' when META names none). Slurm's tags
    (slurm-26-11-0-1) are not the version its programs print."""
    v = re.search(r"Version:\s*(\S+)", git("show", "%s:META" % rev))
    return "%s (commit %s)" % (v.group(1) if v else "?", git("rev-parse", rev + "^{commit}").strip())


def write_statements(path, generator, version, files, spans, shape="\n".join):
    """Record the slice of a message generator: a header naming ``generator`` and ``version``, then
    each site's statement as the source has it, `=== path @first line` above it. ``spans(path, src)``
    yields each site's (first, last) line, 1-based; ``shape(lines)`` makes the statement's text (a
    generator whose statements must parse alone dedents them here)."""
    with open_write(path) as f:
        f.write("# Recorded by %s --record: the statement of each message site, as the source has it\n"
                "# (=== path @first line).\n#! version %s\n" % (generator, version))
        for p, src in files:
            lines = src.splitlines()
            for a, b in spans(p, src):
                f.write("=== %s @%d\n%s\n" % (p, a, shape(lines[a - 1:b])))


def sites_main(doc, argv, name, generator, build, msg_fix, slice_path, spans, load, shape="\n".join,
               source="repo", **opts):
    """The main() of a generator of message sites read from pinned repositories: parse the shared
    command line (arguments(), with --record), read the files (``load(a)`` from the repositories, else
    the slice), ``build(files, version)`` the document, and, from repositories only, stop on a stale
    MSG_FIX entry (stale_fixes) and --record the slice (write_statements). Returns emit()'s status."""
    a = arguments(doc, argv, source=source, extra=[
        ("--record", {"action": "store_true", "help": "write the slice (%s)" % slice_path})], **opts)
    files, version = read_slice(a.slice) if a.slice else load(a)
    built = build(files, version)
    if not a.slice:
        stale_fixes(a, "MSG_FIX", msg_fix, built["sites"])
        if a.record:
            write_statements(slice_path, generator, version, files, spans, shape)
    return emit(name, built, a.out)


def emit(name, doc, out=None, what="sites"):
    """Write ``doc`` as generated/<name>.json or .json.gz (out_path; or ``out``: write) and print the summary line
    (report); the exit status of a generator's main (0)."""
    return report(write(name, doc, out), doc, what)


def committed(name):
    """The committed gpudoctor/data/knowledge/generated/<name>.json (or .json.gz), read: what a test compares a
    regenerated slice with."""
    with open_text(out_path(name)) as f:
        return json.load(f)


def committed_names():
    """The names of the committed generated tables (generated/<name>.json or .json.gz), sorted."""
    return sorted({n[:-len(".json.gz")] if n.endswith(".json.gz") else n[:-len(".json")]
                   for n in os.listdir(OUT_DIR) if n.endswith((".json", ".json.gz"))})


def regenerated(main, slice_path, out):
    """What a generator's ``main`` writes from its recorded slice (``--slice SLICE -o OUT``), read
    back: what a test compares with the committed file (its summary line is not printed)."""
    with contextlib.redirect_stdout(io.StringIO()):
        main(["--slice", str(slice_path), "-o", str(out)])
    with open_text(str(out)) as f:
        return json.load(f)


def report(path, doc, what="sites"):
    """The one summary line every generator prints."""
    n = len(doc["sites"])
    print("%s: %d %s, %d assigned" % (path, n, what, sum(1 for s in doc["sites"] if s.get("family"))))
    return 0


def write(name, doc, out=None):
    for site in doc["sites"]:
        if site.get("re"):
            site["needles"] = needles(site["re"])
    path = out or out_path(name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    doc["unassigned"] = sorted(s["id"] for s in doc["sites"] if not s.get("family"))
    with open_write(path) as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    return path


def macro_calls(path, src, call, macros, names=None):
    """(macro, 'path:line', format) of each call of a C/C++ logging macro in a file, its #define left out: ``call`` a
    regex whose group 1 is the macro's name and whose match ends at its '('; ``macros`` the name -> (index of the
    format argument, level); ``names`` {constant: string} written into the format first (a PACKAGE_NAME or
    PRODUCT_NAME macro the message spells). The format's first line, stripped (c_format, other macros as values)."""
    for m in call.finditer(src):
        if src[max(0, m.start() - 8):m.start()].endswith("define "):
            continue
        args = call_args(src, m.end())
        i = macros[m.group(1)][0]
        if not args or len(args) <= i:
            continue
        arg = args[i]
        for const, text in (names or {}).items():
            arg = re.sub(r"\b%s\b" % re.escape(const), '"%s"' % text, arg)
        fmt = c_format(arg, 0, macro=r"[A-Z_][A-Z0-9_]{2,}\b", lead=True)
        if fmt and fmt.strip():
            yield m.group(1), "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt.strip().split("\n")[0].strip()


def c_site(sites, ids, idbase, where, level, line, rules, fields, fixes, **extra):
    """Append the site of one message ``line`` to ``sites``: a unique id from ``idbase``, where and level, the
    ``extra`` keys; with its matcher, the family ``rules`` give over ``fields`` and its row of ``fixes``, unless its
    literal text is too short to anchor one (kept without, unanchored)."""
    site = dict({"id": unique_id(idbase, ids), "where": where, "level": level, "text": line}, **extra)
    rx, lit = printf_to_regex(line)
    if not unanchored(site, rx, lit):
        rule, family = assign(rules, site, fields)
        site.update({"re": rx, "family": family, "rule": rule or "no rule"})
        give_fix(site, fixes, line)
    sites.append(site)
    return site


def assign(rules, site, fields):
    """The first rule (name, family, {field: regex}) whose regexes all match the site's fields."""
    for name, family, conds in rules:
        if all(re.search(rx, str(fields.get(k, "")), re.IGNORECASE) for k, rx in conds.items()):
            return name, family
    return None, None


# ---------------------------------------------------------------- the condition that guards a raise (guards17)
# A raise / assert site's guard: what its source TESTS before it fails, read with `ast` (tools/guardrules.py turns its
# shape into advice). The reading works on a file's skeleton: the header of each compound statement (def, if, elif,
# else, except, and the loops / with / try that only bound a block) with its line and indentation. A whole file and a
# recorded slice that keeps the headers on a site's path (each with its own indentation) read the same path: the
# header that encloses a statement is the nearest one above it that is indented less (a header between them inside
# the same block is indented at least as deep as the statement).

_SKEL_HEAD = re.compile(r"^[ \t]*(async[ \t]+def|def|class|elif|if|else|except|try|finally|for|async[ \t]+for|while|"
                        r"with|async[ \t]+with|match)\b")
GUARD_NEAR = 60  # an assignment of a name the guard tests counts within this many lines above the guard


def _indent(line):
    return len(line) - len(line.lstrip(" \t"))


def py_skeleton(src):
    """[(line, last line, indent, kind, text)] of each compound statement's header of a whole Python source (kind:
    def (a def or class), if, elif, else, except, other; text: the header's lines as written) and each simple
    statement (kind 'stmt', text its lines), sorted; [] when it does not parse."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    lines = src.splitlines()
    out = []

    def add(a, b, kind):
        out.append((a, b, _indent(lines[a - 1]), kind, "\n".join(lines[a - 1:b])))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(node.lineno, node.lineno, "def")
        elif isinstance(node, ast.If):
            add(node.lineno, node.test.end_lineno, "elif" if lines[node.lineno - 1].lstrip().startswith("elif")
                else "if")
            if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and
                                    lines[node.orelse[0].lineno - 1].lstrip().startswith("elif")):
                for k in range(node.orelse[0].lineno - 1, node.body[-1].end_lineno, -1):
                    if re.match(r"^[ \t]*else[ \t]*:", lines[k - 1]):
                        add(k, k, "else")
                        break
        elif isinstance(node, ast.ExceptHandler):
            add(node.lineno, node.type.end_lineno if node.type is not None else node.lineno, "except")
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)) or \
                type(node).__name__ in ("Match", "TryStar"):
            add(node.lineno, node.lineno, "other")
        elif isinstance(node, ast.stmt):
            add(node.lineno, node.end_lineno, "stmt")
    return sorted(set(out))


def slice_skeleton(srcs):
    """py_skeleton's rows of one file's recorded blocks (each block's lines at their own line numbers, indentation as
    the source has it): a block whose first line opens a compound statement is its header, any other a statement."""
    out = []
    for src in srcs:
        body = src.lstrip("\n")
        if not body.strip():
            continue
        first = len(src) - len(body) + 1
        text = body.rstrip("\n")
        n = text.count("\n")
        m = _SKEL_HEAD.match(text)
        kind = "stmt"
        if m:
            word = m.group(1).split()[-1]
            kind = {"def": "def", "class": "def", "if": "if", "elif": "elif", "else": "else",
                    "except": "except"}.get(word, "other")
        out.append((first, first + n, _indent(text.split("\n", 1)[0]), kind, text))
    return sorted(set(out))


@functools.lru_cache(maxsize=65536)
def _header_test(text, kind):
    """The test of an if / elif header (its source, blanks squashed through ast.unparse), the exception names of an
    except header (a tuple), or None."""
    body = textwrap.dedent(text)
    try:
        if kind in ("if", "elif"):
            node = ast.parse(re.sub(r"^elif\b", "if", body) + "\n    pass").body[0]
            return ast.unparse(node.test)
        if kind == "except":
            node = ast.parse("try:\n    pass\n" + body + "\n    pass").body[0].handlers[0]
            t = node.type
            elts = t.elts if isinstance(t, ast.Tuple) else [t] if t is not None else []
            return tuple(ast.unparse(e) for e in elts)
    except (SyntaxError, IndexError, AttributeError):
        return None
    return None


@functools.lru_cache(maxsize=65536)
def _assert_test(text):
    try:
        return ast.unparse(ast.parse(textwrap.dedent(text)).body[0].test)
    except (SyntaxError, IndexError, AttributeError):
        return None


@functools.lru_cache(maxsize=65536)
def _assigned(text):
    """(name, value source) of a single-target assignment statement's text, or None."""
    try:
        node = ast.parse(textwrap.dedent(text)).body[0]
    except (SyntaxError, IndexError):
        return None
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, ast.unparse(node.value)
    return None


def guard_path(skel, line):
    """The guard of the statement at ``line`` (skel: py_skeleton / slice_skeleton rows): [(how, test)] from the
    innermost condition out to its function: ('assert', test) for an assert statement itself (it fails when the test
    is false), ('if', test) for an if / elif body it is in (it runs when the test is true), ('else', test) for each
    test of the chain an else body follows (each was false), ('except', (names)) for an exception handler; the
    statement's own row is returned as well, (path, row) (None, None when no statement starts at ``line``)."""
    path, own, _rows = _guard_walk(skel, line)
    return path, own


def guard_rows(skel, line):
    """The skeleton rows guard_path reads for the statement at ``line`` (its own, each header it passes, the chain of
    an else, the def that ends it): what a slice records so that it reads the same path."""
    return _guard_walk(skel, line)[2]


def _guard_walk(skel, line):
    own = next((r for r in skel if r[0] <= line <= r[1] and r[3] == "stmt"), None)
    if own is None:
        return None, None, []
    path, rows = [], [own]
    if re.match(r"^[ \t]*assert\b", own[4]):
        t = _assert_test(own[4])
        if t:
            path.append(("assert", t))
    cur, at = own[2], own[0]
    heads = [r for r in skel if r[3] != "stmt" and r[0] < at]
    for r in sorted(heads, reverse=True):
        if r[0] >= at or r[2] >= cur:
            continue
        rows.append(r)
        if r[3] == "def":
            break
        cur, at = r[2], r[0]
        if r[3] in ("if", "elif"):
            t = _header_test(r[4], r[3])
            if t:
                path.append(("if", t))
        elif r[3] == "except":
            t = _header_test(r[4], "except")
            if t is not None:
                path.append(("except", t))
        elif r[3] == "else":
            for c in sorted((h for h in heads if h[0] < r[0] and h[2] == r[2]), reverse=True):
                if c[3] not in ("if", "elif"):
                    break
                rows.append(c)
                t = _header_test(c[4], c[3])
                if t:
                    path.append(("else", t))
                if c[3] == "if":
                    break
    return path, own, rows


def guard_names(skel, line, path):
    """{name: the expression last assigned to it} for each plain name a guard test of ``path`` reads that a
    single-target assignment above ``line`` in the same function (its def the nearest skeleton 'def' above, indented
    less) gives, within GUARD_NEAR lines: `diff = t[1:] > t[:-1]` then `assert diff.all()` reads the comparison."""
    names = set()
    for how, t in path:
        if how != "except":
            try:
                names.update(n.id for n in ast.walk(ast.parse(t, mode="eval")) if isinstance(n, ast.Name))
            except SyntaxError:
                pass
    _path, own, rows = _guard_walk(skel, line)
    if own is None or not names:
        return {}
    top = max((r[0] for r in rows if r[3] == "def"), default=0)
    out = {}
    for r in sorted(skel):
        if r[3] != "stmt" or not top < r[0] < own[0] or own[0] - r[0] > GUARD_NEAR:
            continue
        if "=" not in r[4]:
            continue
        got = _assigned(r[4])
        if got and got[0] in names:
            out[got[0]] = (r[0], r[1], got[1])
    return out
