"""The concrete edit of an argument a library refused (edits19, issue 18: "name the fix").

libarg.py finds the argument of the user's call that a library refused; this module writes the edit that the
message and the call line together give, in the user's own syntax, and puts it first among the fix lines of the
cause explain already picked (the family never changes here).

**Constraint kinds** (KIND_RULES, a small table over the wording of argument checks, read from the message sites
the generators extract from the libraries' sources: generated/*_messages.json, guard_messages.json; and Python's
own: Lib/argparse.py `_check_value` "invalid choice: %(value)r (choose from %(choices)s)", Lib/enum.py
`EnumType.__call__` "%r is not a valid %s"):
  - ALLOWED: the message lists the values it takes ("`mode` can be min, max, got maximize",
    "X is not a valid SchedulerType, please select one of [...]", "must be one of", "Supported values are");
  - EXCLUSIVE: arguments that cannot go together ("`fused` and `foreach` cannot be `True` together",
    "should be mutually exclusive", "only one of", "not both");
  - REQUIRES: one argument needs another ("persistent_workers option needs num_workers > 0", "only supported
    when", "at least one of");
  - TYPE: the value's type ("Expected timeout argument to be of type datetime.timedelta, got 1800",
    "must be an int, got", "must be str, not int");
  - RANGE: the value's range ("should be a positive integer", "must be > 0", "must be between a and b").
classify() is the table's reading of one message or format string; tools/arg_constraints.py counts it over every
raise site of the generated tables (docs/explain.md, "The concrete edit").

**The edit** (edit()): with the instantiated message (its arguments, its refused value, its choices, its bound) and
the user's call line (its keyword arguments as written, their quoting), or the command line that gave the value
(`--flag v` of a `python ...` line the text prints: launchctx's commands):
  - ALLOWED: `arg="<closest allowed value>"` (same letters but case / '-' vs '_'; a choice that the value starts
    with or that starts with the value; then difflib's closest; up to 3), or `--flag <choice>`;
  - EXCLUSIVE: "keep only one of a=X / b=Y: drop b=Y (or set b=False), or drop a=X";
  - REQUIRES: "set B to a value > N (it is B=V now), or a=False";
  - TYPE: `arg=timedelta(seconds=V)` for a number where a timedelta is required (torch.distributed's
    init_process_group / new_group timeout: https://pytorch.org/docs/stable/distributed.html), `arg=int(V)`,
    `arg=float(V)`, `arg=str(V)`, `arg=[V]`, `arg=torch.<dtype>` for a dtype written as a string;
  - RANGE: "set arg to a value > 0 (it passes V)"; a value read from the environment with a default
    (`int(os.environ.get("X", 0))` on the line) is named: `export X=<a value > 0>`.
Never a value that neither the text nor the message gives: a bound is written as a bound, not as a number.
"""

import difflib
import re

from gpudoctor.explain import pytb, userline

MAX_MSG = 2000  # characters of a message read
MAX_CHOICES = 64

# ---- the rules table: constraint kind <- the wording of an argument check (first rule that matches decides) ----
# 'V' in a format string is '%s' (the generators' placeholder); in a message, the value.
_Q = r"[`'\"]?"
KIND_RULES = [
    ("exclusive", re.compile(
        r"mutually[ -]exclusive|\bcannot (?:both )?be (?:`?True`? |set |used |specified |passed |enabled |provided |"
        r"given |combined )?(?:together|at the same time|simultaneously)|\bcan ?not both be\b|\bonly one of\b|"
        r"\bat most one of\b|\bexactly one of\b|\bnot both\b|\bpassing both\b|\bcannot (?:pass|use|set|specify|"
        r"provide|combine) both\b|\b(?:are|is) (?:not compatible|incompatible) with\b|\bare incompatible\b|"
        r"\bcannot be used (?:together )?with\b|\bcannot be combined with\b|\bnot supported together\b|"
        r"\b(?:use|pass|set|specify|provide) (?:only )?(?:one|either) of (?:them|the two|these|those)\b|"
        r"\b(?:is|are) not (?:yet )?(?:supported|allowed|compatible) (?:together )?(?:with|when|in combination with)\b|"
        r"\bisn't (?:yet )?supported (?:with|when)\b|\bdoes not work with\b|\bcan(?:not|'t) be used when\b", re.I)),
    ("requires", re.compile(r"\bat least one of\b|\beither [^.\n]{1,80}? or [^.\n]{1,80}? (?:should|must|has to|"
                            r"needs? to) "
                            r"be\b|\brequires? (?:specifying |passing |setting )?either\b|\b(?:is|"
                            r"are) required (?:when|if|for|"
                            r"with)\b", re.I)),
    ("allowed", re.compile(
        r"\bone of\b|\bchoose from\b|\bselect (?:one )?from\b|\binvalid choice\b|\bis not a valid\b|"
        r"\bcan be\b[^.\n]{1,200}?\bgot\b|"
        r"\b(?:supported|valid|allowed|available|possible|accepted|known|expected|example) (?:[\w-]{1,30} ){0,2}"
        r"[a-z]{2,30}s\b[^.\n]{0,20}?(?:\bare\b|\bis\b|\binclude\b|:)|"
        r"\b(?:must|should) be [\w-]{1,40}(?:/[\w-]{1,40}){1,10}(?:,? not\b|,? got\b|,? or\b|\.|$)|"
        r"\b(?:must be|expected) (?:either )?(?:'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|`[^`\n]{1,40}`),? (?:or|,)|"
        r"\bonly (?:'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|`[^`\n]{1,40}`)(?:,? (?:or|and)|,) [^.\n]{1,200}? (?:are|is) "
        r"(?:supported|allowed|valid)\b", re.I)),
    ("type", re.compile(
        r"\b(?:be|is|of) (?:of )?type\b|\bto be an? (?:instance|subclass) of\b|\bmust be an? (?:instance|subclass) "
        r"of\b|\b(?:must|should) be (?:an? )?`?(?:int|integer|float|str|string|bool|boolean|list|tuple|dict|"
        r"callable|sequence|iterable|(?:torch\.)?Tensor|(?:torch\.)?dtype|(?:datetime\.)?timedelta|Path|number)s?`?"
        r"\b(?! (?:value|greater|larger|smaller|less|multiple|in|between|within|at|from))|"
        r"\bexpected (?:an? )?`?(?:int|integer|float|str|"
        r"string|bool|boolean|list|tuple|dict|callable|sequence|iterable|(?:torch\.)?Tensor|(?:torch\.)?dtype|"
        r"(?:datetime\.)?timedelta|number)`?,? (?:but )?(?:got|received|found)\b|\bnot an? (?:int|integer|float|"
        r"str|string|bool|boolean|list|tuple|dict|callable|tensor|Tensor)\b|\bmust be [\w.]{1,60}, not [\w.]{1,60}|"
        r"\b(?:must|should) be (?:of )?(?:dtype )?(?:torch\.)?(?:float(?:16|32|64)|bfloat16|int(?:8|16|32|64)|"
        r"uint8|half)\b",
        re.I)),
    ("range", re.compile(
        r"\b(?:must|should|has to|needs to|have to) be (?:a |an )?(?:number |value |float |integer |"
        r"int )?(?:strictly )?(?:positive|non-?negative|negative|"
        r"non-?zero|>=?|<=?|greater|less|larger|smaller|bigger|at least|at most|no (?:more|less|greater|larger|"
        r"smaller) than|between|in (?:the )?(?:range|interval)|in [\[(]|within|odd|even)|\bout of (?:range|bounds)\b|"
        r"\bexpected (?:a )?(?:positive|non-?negative)\b|\bpositive (?:integer|int|float|number|value)\b|"
        r"\btoo (?:large|small|big|high|low)\b|\bexceeds? (?:the )?(?:maximum|max|limit)\b|\bdivisible by\b|"
        r"\b(?:a )?multiple of\b|\bexpected `?[A-Za-z_][\w.]{0,60} ?(?:>=?|<=?) ?-?[\d.]{1,20}`?|"
        r"^assert [A-Za-z_][\w.]{0,60} ?(?:>=?|<=?) ?-?[\d.]{1,20}$", re.I)),
    ("requires", re.compile(
        r"\b(?:requires?|needs?) " + _Q + r"(?:--)?[A-Za-z_][\w.-]{0,60}" + _Q +
        r" ?(?:>=?|<=?|==|!=|=) ?[\w.'\"-]{1,40}|"
        r"\b(?:must|should) (?:have the same|match|be equal to|equal)\b|"
        r"\b(?:requires?|needs?) " + _Q + r"[A-Za-z_][\w.-]{0,60}" + _Q + r" (?:to be|be set|set)\b|"
        r"\b(?:is |are |can )?only (?:be )?(?:supported|valid|allowed|available|possible|used|applicable|set|"
        r"enabled|specified|works?|applies) (?:when|with|if|for)\b|"
        r"\b(?:must|should|has to|needs to) be (?:set|specified|provided|given|passed|enabled|disabled|True|False|"
        r"None|defined)\b[^.\n]{0,80}\b(?:when|if|with|for|to use)\b|"
        r"\b(?:when|if) [^,.\n]{1,80}, [^.\n]{0,80}\b(?:must|should|has to|needs to)\b|"
        r"\bto use " + _Q + r"[\w.-]{1,60}" + _Q + r", (?:you must|please|set|pass)\b|"
        r"\brequires? " + _Q + r"[a-z][a-z0-9]{0,30}_[\w.]{1,40}" + _Q, re.I)),
    # a value outside a set the message does not list ('Unknown strategy %s', "Invalid kv_cache_dtype: '%s'"): the
    # allowed values are the API's documented ones (the value a format string's placeholder or quoted)
    ("allowed", re.compile(r"\b(?:unknown|invalid|unrecogni[sz]ed|unsupported|unexpected) (?!error|exception|failure)"
                           r"`?[A-Za-z_][\w.-]{0,40}`?(?: (?:value|name|type|mode|option|choice|"
                           r"argument))?(?: for [\w`'.-]"
                           r"{1,40})?:? (?:'[^'\n]{0,80}'|\"[^\"\n]{0,80}\"|`[^`\n]{0,80}`|%s)[.,;]?(?:$|\s)", re.I)),
]


def classify(text):
    """The constraint kind of an argument check's message or format string, or None."""
    text = (text or "")[:MAX_MSG]
    for kind, rx in KIND_RULES:
        if rx.search(text):
            return kind
    return None


# ---- reading an instantiated message ----
_TOKEN = r"(?:'[^'\n]{0,80}'|\"[^\"\n]{0,80}\"|`[^`\n]{0,80}`|[^\s,;()\[\]{}]{1,80})"
# the value the check refused
_VALUE = [
    re.compile(r"invalid choice: (?P<v>" + _TOKEN + r")"),  # Lib/argparse.py _check_value
    re.compile(r"^(?P<v>" + _TOKEN + r") is not a valid [\w.]{1,80}"),  # Lib/enum.py; transformers ExplicitEnum
    re.compile(r"\b(?:but )?(?:got|received|found)(?: value| type)?:? (?P<v>" + _TOKEN + r")"),
    re.compile(r"\b(?:passed|given|provided) (?:is|was|were):? (?P<v>" + _TOKEN + r")"),
    re.compile(r"\bbut (?:it )?is:? (?P<v>" + _TOKEN + r")"),
    re.compile(r"\b(?:unknown|invalid|unsupported|unrecogni[sz]ed) `?[A-Za-z_][\w.-]{0,40}`?(?: (?:value|name|"
               r"type|mode|"
               r"option|choice))?:? (?P<v>" + _TOKEN + r")(?=[.,;]|$)", re.I),
    re.compile(r"`[A-Za-z_]\w{0,60}` (?P<v>" + _TOKEN + r") is (?:invalid|not valid|not supported|unknown)\b"),
    re.compile(r", not (?P<v>" + _TOKEN + r")$"),
]
_LIST_INTRO = re.compile(
    r"\(choose from (?P<paren>[^)\n]{1,2000})\)|"
    r"\b(?:select|choose|pick|use) (?:one )?(?:of|from):? |"
    r"\b(?:must|should|has to|needs to|can only) be (?:either )?one of(?: the following(?: [\w-]{1,30}){0,2})?:? |"
    r"\bexpected (?:[\w`'-]{1,40} )?(?:to be )?one of(?: the following(?: [\w-]{1,30}){0,2})?:? |"
    r"\bone of(?: the following(?: [\w-]{1,30}){0,2})?:? |"
    r"\bcan be (?=[^.\n]{1,400}?\bgot\b)|"
    r"\b(?:supported|valid|allowed|available|possible|accepted|known|example) (?:[\w-]{1,30} ){0,2}[a-z]{2,30}s\b"
    r"(?: for [\w`'-]{1,40})? ?(?:are|is|include)?:? ?(?=[\[({'\"`A-Za-z0-9])|"
    r"\b(?:must|should) be (?=[\w-]{1,40}(?:/[\w-]{1,40}){1,10}\b)|"
    r"\b(?:must be|expected) (?:either )?(?=(?:'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|`[^`\n]{1,40}`),? (?:or|,))|"
    r"\bonly (?=(?:'[^'\n]{1,40}'|\"[^\"\n]{1,40}\"|`[^`\n]{1,40}`)(?:,? (?:or|and)|,) [^.\n]{1,200}? (?:are|is) "
    r"(?:supported|allowed|valid))", re.I)
_LIST_END = re.compile(r",? (?:but )?(?:got|received|found|instead|not)\b|\. |\.$|;|\n|, please\b| but\b| \(|"
                       r" (?:are|is) (?:supported|allowed|valid)\b")
_ITEM = re.compile(r"^[`'\"]?([A-Za-z0-9_.:+-]{1,60})[`'\"]?$")
_BOUND = [
    (re.compile(r"\bstrictly positive|\bpositive\b|\bnon-?zero\b|\bgreater than (?:0|zero)\b|> ?0(?![.\d])", re.I),
     ("> 0", None)),
    (re.compile(r"\bnon-?negative\b|>= ?0(?![.\d])", re.I), (">= 0", None)),
    (re.compile(r"\bbetween (?P<a>-?[\d.]{1,20}) and (?P<b>-?[\d.]{1,20})", re.I), ("between", None)),
    (re.compile(r"\bin (?:the )?(?:range|interval) ?(?P<r>[\[(]-?[\d.]{1,20}, ?-?[\d.]{1,20}[\])])|\bin (?P<r2>[\[(]"
                r"-?[\d.]{1,20}, ?-?[\d.]{1,20}[\])])", re.I), ("in", None)),
    (re.compile(r"(?:\bat least|>=|\bgreater than or equal to|\bno (?:less|smaller) than) (?P<n>-?\d[\d.]{0,20})",
                re.I), (">=", None)),
    (re.compile(r"(?:\bat most|<=|\bless than or equal to|\bno (?:more|greater|larger) than) (?P<n>-?\d[\d.]{0,20})",
                re.I), ("<=", None)),
    (re.compile(r"(?:\bgreater than|\blarger than|\bbigger than|(?<![<>=])>) ?(?P<n>-?\d[\d.]{0,20})", re.I),
     (">", None)),
    (re.compile(r"(?:\bless than|\bsmaller than|(?<![<>=])<) ?(?P<n>-?\d[\d.]{0,20})", re.I), ("<", None)),
]
# 'type' rules: the type the check wants
_WANT = [
    re.compile(r"\bof type `?(?P<t>[\w.]{1,80})`?"),
    re.compile(r"\b(?:an? )?(?:instance|subclass) of `?(?P<t>[\w.]{1,80})`?"),
    re.compile(r"\bmust be (?:an? )?`?(?P<t>[\w.]{1,60})`?, not\b"),
    re.compile(r"\b(?:must|should) be (?:an? )?`?(?P<t>int|integer|float|str|string|bool|boolean|list|tuple|dict|"
               r"(?:torch\.)?Tensor|(?:torch\.)?dtype|(?:datetime\.)?timedelta)`?\b"),
    re.compile(r"\bexpected (?:an? )?`?(?P<t>int|integer|float|str|string|bool|boolean|list|tuple|dict|"
               r"(?:torch\.)?Tensor|(?:torch\.)?dtype|(?:datetime\.)?timedelta)`?\b", re.I),
]
# names in a message: `x`, 'x', "x", x=..., --x-y
_NAMED = re.compile(r"[`'\"](?P<q>[A-Za-z_][\w.]{0,60})(?:=[^`'\"]{0,40})?[`'\"]|(?<![\w.-])(?P<kv>[A-Za-z_]\w{0,60})="
                    r"|(?<![\w-])(?P<flag>--[A-Za-z][\w-]{0,60})")
_CODE = re.compile(r"`([A-Za-z_]\w{0,60})`")  # a name written as code
_WORD = re.compile(r"(?<![\w.-])[A-Za-z_]\w{0,60}(?![\w-])")
# a torch dtype's name (torch/_C/_VariableFunctions: torch.float32 ...), for a dtype written as a string
_DTYPES = frozenset("""float32 float float64 double float16 half bfloat16 int8 uint8 int16 short int32 int int64 long
bool complex64 complex128 float8_e4m3fn float8_e5m2""".split())
_NUMBER = re.compile(r"^-?\d+(?:\.\d*)?(?:e-?\d+)?$", re.I)
_NUMBERS = re.compile(r"^[(\[] ?-?[\d.]{1,12}(?: ?, ?-?[\d.]{1,12}){0,7} ?,? ?[)\]]$")
_ENV = re.compile(r"os\.(?:environ\.get|getenv)\(\s*(?P<q>['\"])(?P<var>[A-Za-z_]\w{0,80})(?P=q)(?:\s*,\s*"
                  r"(?P<d>[^()\n]{0,40}?))?\s*\)|os\.environ\[\s*(?P<q2>['\"])(?P<var2>[A-Za-z_]\w{0,80})(?P=q2)\s*\]")
_TRUE = ("True",)


_SAFE = re.compile(r"^[\w.:/+-]{1,60}$")


def _safe(v):
    """A value of the message or of the line when it may go into a fix line a person pastes (no quote, no shell
    character, no blank), else None."""
    return v if v is not None and _SAFE.match(v) else None


def _unq(v):
    v = (v or "").strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"`":
        return v[1:-1]
    return v.rstrip(".,:;")


def _names(msg):
    """The argument names the message writes, in order: quoted, name=, --flag; then plain snake_case words."""
    out = []
    for m in _NAMED.finditer(msg):
        n = m.group("q") or m.group("kv") or m.group("flag")
        if n and n not in out:
            out.append(n)
    for m in _WORD.finditer(msg):
        w = m.group(0)
        if "_" in w.strip("_") and w not in out:
            out.append(w)
    return out


def _list(text):
    """The items of a choices list: a bracketed list, or comma / 'or' / 'and' / '/' separated tokens; '...' and
    empty items skipped; the last item of a bracket the message does not close (a message cut short) left out."""
    text = text.strip()
    cut = False
    if text[:1] in "[({":
        close = {"[": "]", "(": ")", "{": "}"}[text[0]]
        end = text.find(close)
        cut = end < 0
        body = text[1:end if end > 0 else len(text)]
    else:
        m = _LIST_END.search(text)
        body = text[:m.start()] if m else text
    parts = [p.strip() for p in re.split(r",\s*(?:or |and )?|\s+or\s+|\s+and\s+|\s*\|\s*|/", body)]
    parts = [p for p in parts if p and p not in ("...", "\u2026", "etc", "etc.")]
    if cut and parts:
        parts.pop()
    out = []
    for p in parts[:MAX_CHOICES]:
        m = _ITEM.match(p)
        if not m:
            return []  # a list of phrases, not of values
        item = m.group(1)
        if item not in out:
            out.append(item)
    return out if len(out) >= 2 else []


def read(msg):
    """dict(kind, names, value, choices, bound, want) of an instantiated message, or None when no rule reads it."""
    msg = (msg or "")[:MAX_MSG]
    kind = classify(msg)
    if kind is None:
        return None
    got = {"kind": kind, "msg": msg, "names": _names(msg), "value": None, "choices": [], "bound": None, "want": None}
    for rx in _VALUE:
        m = rx.search(msg)
        if m:
            got["value"] = _safe(_unq(m.group("v")))
            break
    if kind == "allowed":
        m = _LIST_INTRO.search(msg)
        if m:
            got["choices"] = _list(m.group("paren") or "") if m.group("paren") else _list(msg[m.end():])
        if got["value"] is not None and got["value"] in got["choices"]:
            got["value"] = None  # (a 'got' inside the list's own words)
    elif kind == "range":
        for rx, (op, _x) in _BOUND:
            m = rx.search(msg)
            if m:
                gd = m.groupdict()
                if op == "between":
                    got["bound"] = ">= %s and <= %s" % (gd["a"].rstrip("."), gd["b"].rstrip("."))
                elif op == "in":
                    got["bound"] = "in %s" % (gd.get("r") or gd.get("r2"))
                elif gd.get("n") is not None:
                    got["bound"] = "%s %s" % (op, gd["n"].rstrip("."))
                else:
                    got["bound"] = op
                alt = re.search(r"\bor an? (int|integer|None)\b", msg)
                if alt:  # 'it has to be in [0.0, 1.0] or an int' (Lightning's limit_*_batches): both forms
                    got["bound"] += " or %s" % ("None" if alt.group(1) == "None" else "an integer")
                break
    elif kind == "type":
        for rx in _WANT:
            m = rx.search(msg)
            if m:
                got["want"] = m.group("t")
                break
    elif kind == "requires":
        m = re.search(r"(?P<a>[`'\"]?[A-Za-z_][\w.-]{0,60}[`'\"]?)(?: option| argument| flag)? (?:requires?|needs?) "
                      r"(?:that )?(?P<b>[`'\"]?[A-Za-z_][\w.-]{0,60}[`'\"]?) ?(?P<op>>=?|<=?|==|!=|=) ?"
                      r"(?P<n>[\w.'\"-]{1,40})", msg)
        if m:
            n = _safe(_unq(m.group("n")))
            if n:
                got["need"] = (_unq(m.group("a")), _unq(m.group("b")), m.group("op"), n)
    return got


def closest(value, choices, n=3):
    """The allowed values nearest to the refused one: the same but for case and '-' / '_'; a choice the value starts
    with, or that starts with the value; then difflib's closest (ratio >= 0.6); at most n."""
    norm = lambda s: re.sub(r"[-_ ]", "", s.lower())  # noqa: E731
    v = value.lower()
    same = [c for c in choices if norm(c) == norm(value)]
    if same:
        return same[:1]
    pre = [c for c in choices if len(c) >= 2 and (v.startswith(c.lower()) or c.lower().startswith(v))]
    pre.sort(key=lambda c: -difflib.SequenceMatcher(None, v, c.lower()).ratio())
    near = difflib.get_close_matches(value, choices, n=n, cutoff=0.6)
    out = []
    for c in pre + near:
        if c not in out:
            out.append(c)
    return out[:n]


# ---- the user's call ----
_KWARG = re.compile(r"^\s{0,8}([A-Za-z_]\w{0,60})\s{0,4}=(?!=)\s{0,4}(.{1,200}?)\s{0,8}$", re.S)


def _split_top(text):
    """The parts of an argument list at its top-level commas (brackets and quotes kept whole): one pass."""
    parts, depth, quote_ch, start = [], 0, None, 0
    for k, ch in enumerate(text):
        if quote_ch:
            if ch == quote_ch:
                quote_ch = None
        elif ch in "'\"":
            quote_ch = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return parts


def _kwargs(src):
    """{name: value as written} of the keyword arguments of the user's line's outermost call."""
    from gpudoctor.explain.libarg import _call

    got = _call((src or "")[:pytb.MAX_SRC])
    out = {}
    if got is None:
        return out
    for part in _split_top(got[1])[:64]:
        m = _KWARG.match(part)
        if m:
            out.setdefault(m.group(1), m.group(2).strip())
    return out


def _quote_of(written):
    w = (written or "").strip()
    return w[0] if w[:1] in ("'", '"') and w[-1:] == w[:1] else '"'


def _is_str(written):
    w = (written or "").strip()
    return len(w) >= 2 and w[0] in "'\"" and w[-1] == w[0]


def _env_of(written):
    """(variable, default) of a value read from the environment on the line: int(os.environ.get("X", 0))."""
    m = _ENV.search(written or "")
    if not m:
        return None
    return (m.group("var") or m.group("var2"), _safe(_unq((m.group("d") or "").strip())))


def _ident(text):
    return userline.ident(text, None)


def _lit(written):
    """The written value when it may be pasted back as it is: a literal number, a quoted word, True / False /
    None, or a plain (dotted) name."""
    w = (written or "").strip()
    if _NUMBER.match(w) or w in ("True", "False", "None") or _ident(w):
        return w
    if _is_str(w) and re.match(r"^[\w.:/+-]{0,60}$", w[1:-1]):
        return w
    if _NUMBERS.match(w):  # a tuple or list of numbers: size=(16, 16)
        return w
    return None


def _enum_arg(tb, msg):
    """The argument an enum was built from in a library frame's source: `self.x = SchedulerType(self.x)` for
    "... is not a valid SchedulerType" (Lib/enum.py raises in EnumType.__call__; the frame above it wrote the call)."""
    m = re.search(r"is not a valid ([A-Za-z_]\w{0,80})", msg)
    if not m:
        return None
    call = re.compile(r"(?<![\w.])%s\(\s*(?:self\.|args\.|config\.)?([A-Za-z_]\w{0,60})\s*\)" % re.escape(m.group(1)))
    for src, _focus in reversed(tb.get("src") or []):
        c = call.search(src or "")
        if c:
            return c.group(1)
    return None


# a Hydra override on the command line: key=value, +key=value, ++key=value, the key dotted
# (https://hydra.cc/docs/advanced/override_grammar/basic/)
_OVERRIDE = re.compile(r"^(?P<key>\+{0,2}(?:[A-Za-z_][\w-]{0,60}\.){0,8}(?P<last>[A-Za-z_]\w{0,60}))="
                       r"(?P<v>[^\s=]{1,80})$")


# a value read from the parsed command line or config: args.lr, cfg.trainer.mode
_PARSED = re.compile(r"^(?:args|opts|options|cfg|conf|config|hparams|flags)(?:\.\w{1,60}){1,8}$")


def _cli_value(scan, name, value=None):
    """(how it was written, its value, the separator) of `--name v` / `--name=v` on a command line the text prints
    (launchctx's torchrun / srun / accelerate launch lines), or of a Hydra override `a.b.name=v` whose value is the
    refused ``value``; None when there is none."""
    st = getattr(scan, "launchctx", None)
    if st is None or not name:
        return None
    flags = {"--" + name, "--" + name.replace("_", "-")} if not name.startswith("--") else {name}
    for c in st.cmds:
        argv = c.get("argv") or []
        for i, a in enumerate(argv[:400]):
            if a in flags and i + 1 < len(argv):
                return (a, _safe(argv[i + 1]), " ") if _safe(argv[i + 1]) else None
            head, eq, val = a.partition("=")
            if eq and head in flags:
                return (head, _safe(val), "=") if _safe(val) else None
            o = _OVERRIDE.match(a) if value is not None else None
            if o and o.group("last") == name and o.group("v").strip("'\"") == value:
                # (the key as written: Hydra's '+key=v' appends a key the config lacks, where 'key=v' would fail,
                # and '++key=v' appends or overrides: the edit keeps the user's prefix, review19)
                return o.group("key"), value, "="
    return None


def _on_line(c, msg, kws, got):
    """The arguments the message names that the user's line passes as keywords, in the message's order: a quoted
    name or name=value, a snake_case word, a word of 3 letters or more that no message says of itself
    (libarg._COMMON; any such word for two arguments that cannot go together); then the keyword whose literal is
    the refused value; then libarg's argument."""
    from gpudoctor.explain.libarg import _COMMON

    out = []
    quoted = set(n for n in c["names"])
    for m in _WORD.finditer(msg):
        w = m.group(0)
        if w in kws and w not in out and (w in quoted or (len(w) >= 3 and (c["kind"] == "exclusive" or
                                                                              w.lower() not in _COMMON))):
            out.append(w)
    for n in c["names"]:  # (a name the word reader skipped: `x` next to a dot)
        if n in kws and n not in out:
            out.append(n)
    v = c["value"]
    if v is not None:
        same = [n for n, w in kws.items() if _unq(w) == v and n not in out]
        if len(same) == 1 and not out:
            out.append(same[0])
    if got and got.get("param") in kws and got["param"] not in out:
        out.append(got["param"])
    return out


# torch/csrc/utils/python_arg_parser.cpp: "%s(): argument '%s' (position %d) must be %s, not %s" (raised at the
# user's own line: a C function's argument check has no Python frame)
_ARG_PARSER = re.compile(r"^[\w.]{1,80}\(\): argument '(?P<n>[A-Za-z_]\w{0,60})'(?: \(position \d{1,3}\))? must be "
                         r"(?P<t>[\w.]{1,60}), not (?P<u>[\w.]{1,60})")


def edit(tb, scan=None, got=None):
    """The concrete edit lines for the refusal traceback ``tb`` (its exception raised under the user's line), []
    when the message and the line give none."""
    msg = (tb.get("msg") or "").strip()
    c = read(msg)
    if c is None:
        return []
    uf = userline.user_frame(tb)
    kws = _kwargs(uf["src"]) if uf else {}
    a = _ARG_PARSER.match(msg)
    if a:
        c.update(kind="type", want=a.group("t"), names=[a.group("n")])
    on_line = _on_line(c, msg, kws, got)
    kind = c["kind"]
    if kind == "allowed":
        return _allowed(c, tb, msg, kws, on_line, got, scan)
    if kind == "exclusive":
        return _exclusive(on_line, kws, scan, c["names"])
    if kind == "requires":
        return _requires(c, kws)
    if kind == "type":
        return _type(c, kws, on_line, got)
    if kind == "range":
        return _range(c, kws, on_line, got, c["names"], scan)
    return []


def _allowed(c, tb, msg, kws, on_line, got, scan):
    choices, value = c["choices"], c["value"]
    if not choices:
        return []
    arg = next((n for n in on_line if value is None or _unq(kws[n]) == value), None)
    if arg is None and value is not None:
        arg = next((n for n, w in kws.items() if _is_str(w) and _unq(w) == value), None)
    if arg is None:
        arg = _enum_arg(tb, msg)
    if arg is None and got:
        arg = got.get("param")
    if arg is None:  # a name the message writes as code (`mode`), neither a choice nor the value
        arg = next((n for n in _CODE.findall(msg) if n not in choices and n != value), None)
    if arg is None or not _ident(arg):
        return []
    if value is None and arg in kws and _is_str(kws[arg]):
        value = _safe(_unq(kws[arg]))
    picks = closest(value, choices) if value else []
    written = kws.get(arg)
    cli = None
    if scan is not None and (written is None or _PARSED.match(written.strip())):
        # not on the line, or read from the parsed command line (args.x, cfg.a.x): the `--x v` or the Hydra override
        # `a.x=v` the text's command line gave
        cli = _cli_value(scan, arg if written is None else written.strip().rsplit(".", 1)[1], value)
    if not picks:
        shown = ", ".join(choices[:12]) + (", ..." if len(choices) > 12 else "")
        if cli:
            return ["give %s one of the values it takes: %s" % (cli[0], shown)]
        return ["set %s to one of the values the message lists: %s" % (arg, shown)]
    if cli and cli[1] == value:
        return ["%s (not %s%s%s)" % (" or ".join("%s%s%s" % (cli[0], cli[2], p) for p in picks), cli[0], cli[2], value)]
    if written is not None and not _is_str(written) and _ident(written.strip()) and not _NUMBER.match(written):
        # the value comes from a variable or a config attribute: name it
        var = written.strip()
        return ["%s=%s where it is set (it holds %s now; the call passes %s=%s)" % (
            var, " or ".join('"%s"' % p for p in picks), value, arg, var)]
    q = _quote_of(written)
    return ["%s (not %s)" % (" or ".join("%s=%s%s%s" % (arg, q, p, q) for p in picks),
                             "%s=%s%s%s" % (arg, q, value, q) if value else "the value given")]


def _exclusive(on_line, kws, scan, names):
    if len(on_line) < 2:
        flags = [n for n in names if n.startswith("--")]
        written = [f for f in flags if _cli_value(scan, f[2:])] if scan is not None else []
        if len(written) >= 2:
            return ["keep only one of %s: drop %s from the command line (or drop %s)" % (
                " / ".join(written[:4]), written[-1], " / ".join(written[:-1]))]
        return []
    shown = []
    for n in on_line[:4]:
        lit = _lit(kws[n])
        shown.append("%s=%s" % (n, lit) if lit else n)
    keep, drop = shown[0], shown[1:]
    off = ["%s=False" % n for n in on_line[1:4] if kws[n].strip() in _TRUE]
    also = " (or set %s)" % ", ".join(off) if off else ""
    if len(shown) == 2:
        return ["keep only one of %s / %s: drop %s%s, or drop %s instead" % (keep, drop[0], drop[0], also, keep)]
    # 'a is mutually exclusive with b, c and d' (torch/utils/data/dataloader.py): a against the others
    return ["drop %s%s (they cannot go with %s), or drop %s instead" % (" and ".join(drop), also, keep, keep)]


def _requires(c, kws):
    need = c.get("need")
    if not need:
        return []
    a, b, op, n = need
    if a not in kws:
        return []
    if op == "=":
        op = "=="
    av = kws[a].strip()
    alt = "%s=False" % a if av in _TRUE else "drop %s=%s" % (a, _lit(av) or "...")
    bv = kws.get(b)
    if bv is not None:
        var = bv.strip()
        now = " (it is %s=%s now%s)" % (b, _lit(var) or "...", "; %s is set above the call" % var
                                        if _ident(var) and not _NUMBER.match(var) and var not in ("True", "False",
                                                                                                  "None") else "")
    else:
        now = " (the call leaves %s at its default)" % b
    if op == "==":
        first = "%s=%s" % (b, n)
    else:
        first = "set %s to a value %s %s" % (b, op, n)
    return ["%s%s, or %s" % (first, now, alt)]


_CAST = {"int": "int(%s)", "integer": "int(%s)", "float": "float(%s)", "str": "str(%s)", "string": "str(%s)",
         "list": "[%s]", "tuple": "(%s,)"}


def _type(c, kws, on_line, got):
    want = (c.get("want") or "").split(".")[-1]
    arg = next((n for n in on_line), None) or (got or {}).get("param")
    if not arg or arg not in kws or not want:
        return []
    w = kws[arg].strip()
    lit = _lit(w)
    if want == "timedelta":
        if lit is None or _is_str(w):
            return []
        return ["%s=timedelta(seconds=%s) (from datetime import timedelta; not %s=%s)" % (arg, lit, arg, lit)]
    if want == "dtype" and _is_str(w) and _unq(w) in _DTYPES:
        return ["%s=torch.%s (a torch.dtype, not the string %s)" % (arg, _unq(w), w)]
    if want.lower() in ("bool", "boolean") and _is_str(w) and _unq(w).lower() in ("true", "false"):
        return ["%s=%s (a bool, not the string %s)" % (arg, _unq(w).capitalize(), w)]
    form = _CAST.get(want.lower())
    if form and lit:
        return ["%s=%s (not %s=%s)" % (arg, form % lit, arg, lit)]
    return []


def _range(c, kws, on_line, got, names, scan):
    bound = c.get("bound")
    if not bound:
        return []
    arg = next((n for n in on_line), None) or (got or {}).get("param")
    if arg is None:
        # the message's own quoted name of the argument (`r` should be a positive integer): where the call that
        # built it is not the traceback's
        arg = next((n for n in _CODE.findall(c.get("msg") or "") if n != c["value"]), None)
        if arg is None or not _ident(arg):
            return []
        return ["set %s to a value %s (where it is given: the call or config that builds it)" % (arg, bound)]
    w = kws.get(arg, "").strip()
    env = _env_of(w)
    if env:
        var, default = env
        return ["export %s=<a value %s> before the run (the call reads %s=%s from the environment%s)" % (
            var, bound, arg, "$" + var, ", falling back to %s" % default if default else "")]
    cli = None
    if scan is not None and (not w or _PARSED.match(w)):  # (a value from the command line: its flag / override)
        cli = _cli_value(scan, w.rsplit(".", 1)[1] if w else arg, c["value"])
    if cli:
        return ["%s%s<a value %s> (not %s%s%s)" % (cli[0], cli[2], bound, cli[0], cli[2], cli[1])]
    lit = _lit(w)
    if w and lit and _ident(lit) and not _NUMBER.match(lit) and lit not in ("True", "False", "None"):
        return ["set %s to a value %s where it is set (the call passes %s=%s)" % (lit, bound, arg, lit)]
    return ["%s=<a value %s>%s" % (arg, bound, " (not %s=%s)" % (arg, lit) if lit else "")]


# (fix22) the message's own remedy for one argument: "otherwise set prefetch_factor to None"
# (torch/utils/data/dataloader.py), "Please set `x` to False"
_SET_ARG = re.compile(r"\bset (?:the )?[`'\"]?(?P<a>[a-z_][a-z0-9_]{1,60})[`'\"]? (?:to|=) ?[`'\"]?(?P<v>None|True|False|"
                      r"-?\d{1,12}(?:\.\d{1,6})?)[`'\"]?(?=[ .,;)]|$)")
_MAPPING = re.compile(r"(?<![*\w])\*\*(?P<m>[A-Za-z_][\w.]{0,60})(?![\w.\[(])")  # (a plain name: it is written in a fix line)
_YAML = {"None": "null", "True": "true", "False": "false"}


def from_mapping(tb):
    """(fix22) The edit of an argument the user's line passes through a mapping (`DataLoader(ds, **cfg)`), when the
    message says which value to set it to and the line does not write it: the key of that mapping, in the forms a
    config file that fills it takes. [] otherwise."""
    msg = (tb.get("msg") or "").strip()[:MAX_MSG]
    m = _SET_ARG.search(msg)
    uf = userline.user_frame(tb)
    if m is None or uf is None:
        return []
    src = uf["src"] or ""
    maps = _MAPPING.findall(src)
    if len(maps) != 1 or m.group("a") in _kwargs(src):
        return []
    a, v, mp = m.group("a"), m.group("v"), maps[0]
    yaml = _YAML.get(v, v)
    return ["%s comes from the mapping passed as **%s (not written on the line): set its %r key to %s there, or drop "
            "the key (in a YAML / OmegaConf config that fills it: %s: %s)" % (a, mp, a, v, a, yaml)]


# ---- the hook ----
def fill(scan, findings, tb, got=None):
    """Put the concrete edit first among the fix lines of the root's first cause (libarg.fill calls it with the
    root's traceback and, when it found one, the refused argument)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes"):
        return
    if not tb:
        lines = _argparse_edit(scan, f)
    else:
        inner = pytb.innermost(tb)
        if not inner or (inner[3] != "lib" and not _ARG_PARSER.match((tb.get("msg") or "").strip())):
            return
        lines = edit(tb, scan, got) or from_mapping(tb)
    fixes = f["causes"][0]["fix"]
    for line in reversed(lines[:3]):
        if line not in fixes:
            fixes.insert(0, line)
    if lines:
        f["causes"][0]["edit"] = lines[0]  # (advice.place keeps a cause with an edit above the message's words)


# Lib/argparse.py ArgumentError.__str__: "argument %(argument_name)s: %(message)s", the name the option strings
# joined by '/' (or the positional's metavar / dest); _check_value: "invalid choice: %(value)r (choose from ...)"
_ARGPARSE_CHOICE = re.compile(r"^argument (?P<names>[^:\n]{1,200}): invalid choice: (?P<v>'[^'\n]{0,80}'|"
                              r"\"[^\"\n]{0,80}\"|"
                              r"\S{1,80}) (?P<list>\(choose from [^)\n]{1,2000}\)?)")


# Lib/argparse.py _get_value: "invalid %(type)s value: %(value)r" (the type callable's __name__)
_ARGPARSE_TYPE = re.compile(r"^argument (?P<names>[^:\n]{1,200}): invalid (?P<t>[\w.]{1,40}) value: "
                            r"(?P<v>'[^'\n]{0,80}'|\"[^\"\n]{0,80}\")")
_ARGPARSE_TYPES = {"int": "an integer", "float": "a number", "Path": "a path"}


def _argparse_edit(scan, f):
    """The edit of an argparse refusal of a value outside an option's choices (the root's own 'prog: error:'
    line): `--flag <closest choice>`."""
    lines = {m["line"] for m in f.get("matches") or []}
    for a in getattr(scan, "argparse", None) or []:
        if a.get("line") not in lines:
            continue
        t = _ARGPARSE_TYPE.match(a.get("msg") or "")
        if t:
            flag = next((n for n in t.group("names").split("/") if n.startswith("--")), t.group("names").split("/")[0])
            if re.match(r"^-{0,2}[A-Za-z_][\w-]{0,60}$", flag) and t.group("t") in _ARGPARSE_TYPES:
                return ["%s <%s>: the option's type=%s refuses %s" % (
                    flag, _ARGPARSE_TYPES[t.group("t")], t.group("t"), _safe(_unq(t.group("v"))) or "the value given")]
            return []
        m = _ARGPARSE_CHOICE.match(a.get("msg") or "")
        if not m:
            return []
        choices = _list("(" + m.group("list")[len("(choose from "):])  # (a line cut short: its last item left out)
        value = _safe(_unq(m.group("v")))
        if value is None:
            return []
        names = [n for n in m.group("names").split("/") if n]
        flag = next((n for n in names if n.startswith("--")), names[0] if names else None)
        if not flag or not re.match(r"^-{0,2}[A-Za-z_][\w-]{0,60}$", flag) or not choices:
            return []
        picks = closest(value, choices)
        if not picks:
            return ["pass %s one of the values it takes: %s" % (flag, ", ".join(choices[:12]))]
        if flag.startswith("-"):
            return ["%s (not %s %s)" % (" or ".join("%s %s" % (flag, p) for p in picks), flag, value)]
        return ["give the argument %s as %s (not %s)" % (flag, " or ".join(picks), value)]
    return []
