"""The value a message refused and the values it lists, as the edit (issue 18, explain-fixline24).

Many library messages name both the value they refused and the values they accept:

- Lightning's callbacks (src/lightning/pytorch/callbacks/early_stopping.py _validate_condition_metric):
  "Early stopping conditioned on metric `val_loss` which is not available. Pass in or modify your `EarlyStopping`
  callback to use any of the following: `train/loss`, `val/loss`";
- a rule with two values (Lightning's core/optimizer.py): 'The "interval" key in lr scheduler dict must be "step" or
  "epoch" but is "batch"';
- JAX's sharding check (jax/_src/named_sharding.py): "Resource axis: data of P('data', None) is not found in mesh:
  ('batch',)";
- 'Unknown split "validation". Should be one of [\'train\']' (datasets), 'Available names are: ...', 'Expected one
  of: ...', 'choose from ...'.

The family's cause then says "use one of the names the message lists"; the message itself holds the answer. This
module reads, from the root's own message lines, the refused value, the listed values and, where the message or the
root's fix line names it, the key or argument that took the value; it picks the listed value the refused one is
closest to (the same letters once case and punctuation are dropped: val_loss / val/loss; one a prefix of the other:
adamw / adam; else difflib's ratio >= 0.75), and writes the edit first among the root's first cause's fix lines:
"monitor='val/loss'", "P('batch', None)". With no close value and at most four listed, the edit names each
("'interval': 'step' or 'interval': 'epoch'"). The root, its family, verdict and "How sure" never change.

Values are untrusted log text: only plain names ([\\w./:+-], at most 64 characters) are written into a fix line.
"""

import difflib
import re

MAX_MSG = 2000
MAX_ITEMS = 24
_NAME = re.compile(r"^[\w./:+-]{1,64}$")
_Q = r"[`'\"]"
# a cue that a list of accepted values follows
_CUE = re.compile(r"(?i)(?:use any of the following|any of the following|available (?:names|options|choices|values|"
                  r"keys|metrics)(?: are)?|valid (?:names|options|choices|values|keys)(?: are)?|(?:should|must) be "
                  r"one of|expected one of|choose from|example choices|is not found in mesh)\s*:?\s*")
_TWO = re.compile(r"(?i)must be " + _Q + r"?([\w./:+-]{1,64})" + _Q + r"? or " + _Q + r"?([\w./:+-]{1,64})" + _Q +
                  r"?(?:,? but (?:is|got|was|found|received) " + _Q + r"?([\w./:+-]{1,64})" + _Q + r"?)?")
# 'Unrecognized <argument>=<value>, should be one of ...': the argument's and the value's regexes fill it
_UNQUOTED = r"(?i)\b(?:Unknown|Invalid|Unsupported|Unrecognized|unrecognised) %s=%s,? (?:should|must|expected|valid)"
# the refused value
_REFUSED = (
    re.compile(r"(?i)conditioned on metric `([^`]{1,64})`"),
    re.compile(r"(?i)Resource axis: ([\w.-]{1,64}) of "),
    re.compile(r"`\w{1,40}=([\w./:+-]{1,64})`"),
    re.compile(r"(?i)(?:Unknown|Invalid|Unsupported|Unrecognized|unrecognised) [a-z_ ]{1,30}?:? " + _Q +
               r"([^`'\"]{1,64})" + _Q),
    re.compile(r"(?i)" + _Q + r"([^`'\"]{1,64})" + _Q + r",? which (?:is|was) not (?:available|found|valid|known)"),
    re.compile(r"(?i)\bbut (?:is|got|was|found|received) " + _Q + r"?([\w./:+-]{1,64})"),
    # 'Unrecognized mode=max_autotune, should be one of: default, ...' (torch/_inductor/__init__.py
    # list_mode_options, torch 2.x): the argument and its value without quotes (lead, session 30)
    re.compile(_UNQUOTED % (r"\w{1,40}", r"([\w./:+-]{1,64}?)")),
)
# the key or argument that took it
_KEY_DICT = re.compile(r"(?i)\bthe " + _Q + r"(\w{1,40})" + _Q + r" key\b")
_KEY_ARG = (re.compile(r"`(\w{1,40})=[\w./:+-]{1,64}`"),
            re.compile(_UNQUOTED % (r"(\w{1,40})", r"[\w./:+-]{1,64}?")),
            re.compile(r"(?i)\bthe " + _Q + r"(\w{1,40})" + _Q + r" (?:argument|option|parameter)\b"))
# a fix line of the root's cause that leaves the listed value to the reader: 'EarlyStopping(monitor=<one of the
# names the message lists>)'
_PLACEHOLDER = re.compile(r"\b(\w{1,40})=<[^<>]{0,80}\b(?:lists?|listed)\b[^<>]{0,40}>")
# JAX's PartitionSpec as the message prints it: quoted axis names, None, commas and blanks only. The spec is written
# into the fix line as it stands: `P('bach': touch M; #)` made the clause after its ': ' run touch when pasted
# (docs/security.md 74.)
_PSPEC = re.compile(r"\bP\(([\w'\", .-]{1,120})\)")


def _items(rest):
    """The listed values after a cue: quoted names, else a bracketed / parenthesised list, else comma-separated."""
    rest = rest[:600]
    got = re.findall(r"`([^`]{1,64})`", rest) or re.findall(r"'([^']{1,64})'", rest) or \
        re.findall(r'"([^"]{1,64})"', rest)
    if not got:
        m = re.match(r"\s*[\[(]([^\])]{1,400})[\])]", rest)
        part = m.group(1) if m else re.split(r"[.;]\s|\.$", rest)[0]
        got = [x.strip(" '\"`") for x in re.split(r",|\bor\b", part)]
    return [x for x in got if x and _NAME.match(x)][:MAX_ITEMS]


def _norm(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def closest(value, choices):
    """The listed value ``value`` is closest to, or None."""
    nv = _norm(value)
    for c in choices:
        if _norm(c) == nv and nv:
            return c
    pre = [c for c in choices if min(len(_norm(c)), len(nv)) >= 3 and
           (_norm(c).startswith(nv) or nv.startswith(_norm(c)))]
    if len(pre) == 1:
        return pre[0]
    best = max(choices, key=lambda c: difflib.SequenceMatcher(None, value.lower(), c.lower()).ratio(), default=None)
    if best is not None and difflib.SequenceMatcher(None, value.lower(), best.lower()).ratio() >= 0.75:
        return best
    return None


def read(msg):
    """(refused value, [listed values], key, 'dict' | 'arg' | None, the message's PartitionSpec or None) of one
    message, or None."""
    msg = msg[:MAX_MSG]
    refused, choices = None, []
    two = _TWO.search(msg)
    if two:
        choices = [two.group(1), two.group(2)]
        refused = two.group(3)
    else:
        m = _CUE.search(msg)
        if m:
            choices = _items(msg[m.end():])
    if not choices:
        return None
    if refused is None:
        for rx in _REFUSED:
            m = rx.search(msg)
            if m:
                refused = m.group(1)
                break
    if not refused or not _NAME.match(refused) or refused in choices:
        return None
    key, form = None, None
    m = _KEY_DICT.search(msg)
    if m:
        key, form = m.group(1), "dict"
    else:
        for rx in _KEY_ARG:
            m = rx.search(msg)
            if m:
                key, form = m.group(1), "arg"
                break
    spec = None
    m = _PSPEC.search(msg)
    if m and re.search(r"['\"]%s['\"]" % re.escape(refused), m.group(1)):
        spec = m.group(0)
    return refused, choices, key, form, spec


def _edit(key, form, value):
    return "'%s': '%s'" % (key, value) if form == "dict" else "%s='%s'" % (key, value)


def line_for(got, placeholder_key=None):
    """The fix line for a read(), or None."""
    refused, choices, key, form, spec = got
    if key is None and placeholder_key:
        key, form = placeholder_key, "arg"
    listed = ", ".join("'%s'" % c for c in choices[:8]) + (", ..." if len(choices) > 8 else "")
    best = closest(refused, choices)
    if best is not None:
        if key:
            return ("%s (the message refuses '%s' and lists %s: '%s' is the listed value closest to it)"
                    % (_edit(key, form, best), refused, listed, best))
        if spec:
            fixed = re.sub(r"(['\"])%s\1" % re.escape(refused), lambda m: "%s%s%s" % (m.group(1), best, m.group(1)),
                           spec)
            return ("%s: the name the message lists ('%s'), where the code wrote '%s' (%s)"
                    % (fixed, best, refused, spec))
        return ("use '%s' where the code or its configuration gives '%s' (the message lists %s; '%s' is the one "
                "closest to it)" % (best, refused, listed, best))
    if key and 2 <= len(choices) <= 4:
        return ("write one of the values the message accepts, %s ('%s' is none of them)"
                % (" or ".join(_edit(key, form, c) for c in choices), refused))
    if spec and len(choices) == 1:
        fixed = re.sub(r"(['\"])%s\1" % re.escape(refused),
                       lambda m: "%s%s%s" % (m.group(1), choices[0], m.group(1)), spec)
        return ("%s: the mesh's only axis name ('%s'), where the code wrote '%s'; or name the mesh's axis '%s'"
                % (fixed, choices[0], refused, refused))
    return None


def fill(scan, findings):
    """Write the listed value the root's message refused as the first fix line of its first cause (analyze.analyze's
    hook)."""
    from gpudoctor.explain.opfix import _lines

    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or f.get("kind") == "echo" or not f.get("causes"):
        return
    c0 = f["causes"][0]
    ph = None  # (cause, index of its fix line, the key) of a fix line that leaves the listed value to the reader
    for c in f["causes"]:
        for i, x in enumerate(c.get("fix") or ()):
            m = _PLACEHOLDER.search(x)
            if m:
                ph = (c, i, m.group(1))
                break
        if ph:
            break
    seen = set()
    for msg, _tb, _matched, _n in _lines(scan, f):
        if not msg or msg in seen:
            continue
        seen.add(msg)
        got = read(msg)
        if not got:
            continue
        best = closest(got[0], got[1])
        if ph and got[2] is None and best is not None:  # the cause's own edit, with the value filled in
            c, i, key = ph
            c["fix"][i] = _PLACEHOLDER.sub(lambda m: _edit(m.group(1), "arg", best), c["fix"][i], count=1) + \
                " ('%s' is the value the message lists closest to the refused '%s')" % (best, got[0])
            if c is not c0:
                c0.setdefault("fix", []).insert(0, c["fix"][i])
            return
        line = line_for(got, ph[2] if ph else None)
        # an edit an earlier reader wrote with the same value (argedit.py: 'task_type="CAUSAL_LM" (not ...)') stays
        # first: it is the call's own spelling
        if best is not None and any(best in x for x in c0.get("fix") or ()):
            return
        if line and line not in (c0.get("fix") or []):
            c0.setdefault("fix", []).insert(0, line)
        return
