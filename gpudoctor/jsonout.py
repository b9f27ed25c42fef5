"""``json.dumps(doc, indent=1, sort_keys=True)``, the text `gpudoctor facts` writes, without
json's pure-Python encoder.

With ``indent`` set, json.dumps does not use its C encoder: CPython Lib/json/encoder.py
``JSONEncoder.iterencode`` calls ``c_make_encoder`` only when ``self.indent is None``
(3.6 through 3.13), and ``_make_iterencode``'s nested generators cost 40 ms of the
controller's CPU for 64 nodes' facts (1 MB) on the 2-core VM. ``dumps_facts`` writes the
same text with the pieces that encoder uses (same file: ``item_separator`` ',' and
``key_separator`` ': ' when an indent is given, the C ``encode_basestring_ascii`` for
every string, ``float.__repr__`` and ``int.__repr__``, 'NaN'/'Infinity'/'-Infinity',
items ``sorted(dct.items())``, '{}' and '[]' for empty containers) for documents of plain
JSON types: dict with str keys, list, tuple, str, int, float, bool, None. Anything else
(a subclass, a non-str key, a cycle) is handed to json.dumps itself, which writes it or
raises as before. tests/test_jsonout.py compares the two texts."""

import json

try:
    from _json import encode_basestring_ascii as _enc
except ImportError:  # pragma: no cover - a Python without _json: json's own pure-Python one
    from json.encoder import py_encode_basestring_ascii as _enc

_INF = float("inf")


class _Unusual(Exception):
    """A value this writer leaves to json.dumps."""


def _float(o):
    # json.encoder's floatstr with allow_nan=True
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


def _scalar(o, t):
    if t is str:
        return _enc(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if t is int:
        return int.__repr__(o)
    if t is float:
        return _float(o)
    raise _Unusual()


def _walk(o, nl, w):
    """Write container ``o`` whose opening bracket starts at the indent ``nl`` ends with."""
    t = type(o)
    inner = nl + " "
    if t is dict:
        if not o:
            w("{}")
            return
        pre = "{" + inner
        sep = "," + inner
        for k, v in sorted(o.items()):
            if type(k) is not str:
                raise _Unusual()
            tv = type(v)
            if tv is dict or tv is list or tv is tuple:
                w(pre + _enc(k) + ": ")
                _walk(v, inner, w)
            else:
                w(pre + _enc(k) + ": " + _scalar(v, tv))
            pre = sep
        w(nl + "}")
        return
    if not o:
        w("[]")
        return
    pre = "[" + inner
    sep = "," + inner
    for v in o:
        tv = type(v)
        if tv is dict or tv is list or tv is tuple:
            w(pre)
            _walk(v, inner, w)
        else:
            w(pre + _scalar(v, tv))
        pre = sep
    w(nl + "]")


def dumps_facts(doc):
    """The text of ``json.dumps(doc, indent=1, sort_keys=True)``."""
    t = type(doc)
    try:
        if t is dict or t is list or t is tuple:
            out = []
            _walk(doc, "\n", out.append)
            return "".join(out)
        return _scalar(doc, t)
    except (_Unusual, TypeError, RecursionError):
        # json.dumps writes what this does not (or raises what it raises: a cycle's
        # ValueError, an unserialisable value's TypeError, sorted()'s TypeError on mixed keys)
        return json.dumps(doc, indent=1, sort_keys=True)
