"""The name on the user's line that holds an object of another type than the line expects (famfix28, issue 18
"name the fix": the user's code faults where explain found the exception, not the change to make).

CPython words an operation on an object of the wrong type with the object's type and what was asked of it:
Objects/object.c PyObject_GetAttr "'%.100s' object has no attribute '%U'", Objects/abstract.c "'%.200s' object is
not subscriptable", Objects/call.c "'%.200s' object is not callable", Objects/abstract.c PyObject_GetIter "'%.200s'
object is not iterable" (https://github.com/python/cpython/blob/main/Objects/object.c, .../Objects/abstract.c,
.../Objects/call.c). The traceback's innermost frame of the user's own code prints the line and, on 3.11+, marks
the part that raised (Lib/traceback.py). Where that part (or the line) holds exactly one name used the way the
message says (``name.attr``, ``name(``, ``name[``, ``for x in name``), the type says what the name holds and so what
the edit is:

- ``NoneType``: the name holds None: the call that set it returned None on that path (a function without a return
  there; one documented to return None: in an IterableDataset's ``__iter__``, torch.utils.data.get_worker_info() in
  the main process, https://pytorch.org/docs/stable/data.html#torch.utils.data.get_worker_info; dict.get of a key
  that is not there; re.match without a match; an in-place method such as list.sort(),
  https://docs.python.org/3/library/stdtypes.html#list.sort) - handle the None case before the line;
- ``tuple``: several values were assigned to one name (a function or model that returns several outputs, a trailing
  comma: https://docs.python.org/3/reference/expressions.html#expression-lists; transformers' Trainer passes
  EvalPrediction.predictions as a tuple when the model returns more than its logits,
  https://huggingface.co/docs/transformers/main_classes/trainer) - take the element meant, or unpack;
- ``list``: a list of values where one was meant (timm's ``features_only=True`` returns one feature map per stage,
  https://huggingface.co/docs/timm/feature_extraction) - take the element meant or stack them;
- ``dict``: a mapping where one of its values was meant - read it by its key;
- accelerate's ``Accelerated*`` wrappers called or used as another object: Accelerator.prepare returns the objects
  in the order they were passed (https://huggingface.co/docs/accelerate/package_reference/accelerator), so an
  unpacking in another order binds a name to another wrapper - unpack in the order of the arguments;
- ``self.<attr>`` missing in a LightningDataModule's ``*_dataloader`` hook: Lightning calls ``setup(stage)`` on every
  process before the dataloader hooks, with stage 'fit' / 'validate' / 'test' / 'predict', while ``prepare_data()``
  runs on one process only and must not set state
  (https://lightning.ai/docs/pytorch/stable/data/datamodule.html) - assign the attribute in setup for that stage.

Any other type (a library's class, the user's own class) is left to the readers that know it (a DDP wrapper's
``.module``, a renamed API). The name is untrusted text: only a plain dotted name (userline.ident) reaches a fix line.
Called from userline.specific, so the reading becomes the first cause of a user-code root whose own first cause has
no evidence, and a note otherwise; the root, its family and verdict never change.
"""

import re

_TYPE = r"'(?P<type>[A-Za-z_][\w.]{0,99})' object "
_ATTR = re.compile(r"^" + _TYPE + r"has no attribute '(?P<attr>[A-Za-z_]\w{0,99})'")
_NOT = re.compile(r"^" + _TYPE + r"is not (?P<what>subscriptable|callable|iterable)\b")
_NAME = r"[A-Za-z_]\w{0,60}(?:\.[A-Za-z_]\w{0,60}){0,3}"
_USE = {
    "callable": r"(?<![\w.])(%s) ?\(" % _NAME,
    "subscriptable": r"(?<![\w.])(%s) ?\[" % _NAME,
    "iterable": r"\bfor [\w, ()]{1,80} in (%s)\s*:|\b(?:zip|enumerate|list|tuple|sorted)\((%s)\)" % (_NAME, _NAME),
}
_LIGHTNING = re.compile(r"[/\\](?:lightning[/\\]pytorch|pytorch_lightning)[/\\]")
_DL_HOOK = re.compile(r"^(?:train|val|test|predict)_dataloader$")


def _one(rx, texts):
    """The one name ``rx`` finds in the first of ``texts`` where it finds any; None when none or several differ."""
    for t in texts:
        if not t:
            continue
        got = {next(g for g in m.groups() if g) for m in re.finditer(rx, t[:400])}
        if got:
            return got.pop() if len(got) == 1 else None
    return None


def _use(msg, uf):
    """(type, how: 'attr' | 'callable' | 'subscriptable' | 'iterable', attr, name) or None."""
    texts = [uf.get("focus") or "", uf.get("src") or ""]
    m = _ATTR.match(msg)
    if m:
        attr = m.group("attr")
        name = _one(r"(?<![\w.])(%s)\.%s\b" % (_NAME, re.escape(attr)), texts)
        return (m.group("type"), "attr", attr, name) if name else None
    m = _NOT.match(msg)
    if m:
        name = _one(_USE[m.group("what")], texts)
        return (m.group("type"), m.group("what"), None, name) if name else None
    return None


def read(uf, tbr, ident, quote):
    """(text, fix[, elsewhere]) for the user's frame ``uf`` of traceback ``tbr`` whose exception names the type of an object the
    line uses, or None. ``ident`` / ``quote``: userline's (a name in a fix line; a value in a cause's text).
    ``elsewhere``: the edit is made where the name was set (prepare()'s unpacking, a DataModule's setup), not on the
    line the traceback shows."""
    exc = (tbr.get("exc") or "").rsplit(".", 1)[-1]
    if exc not in ("AttributeError", "TypeError"):
        return None
    got = _use((tbr.get("msg") or "").strip()[:300], uf)
    if got is None:
        return None
    typ, how, attr, name = got
    if ident(name, None) is None:
        return None
    use = {"attr": "reads .%s of it" % attr, "callable": "calls it", "subscriptable": "indexes it",
           "iterable": "iterates over it"}[how]
    after = (" before .%s" % attr) if attr else ""
    if typ == "NoneType":
        where = ""
        if (uf.get("fn") or "") == "__iter__":
            where = (" In an IterableDataset's __iter__ that is most often torch.utils.data.get_worker_info(), which "
                     "returns None in the main process (num_workers=0: no worker runs it).")
        return ("`%s` is None on your line, which %s: the call that set it returned None on this path (a function "
                "without a return there, dict.get of a missing key, re.match without a match, an in-place method "
                "such as list.sort()).%s" % (quote(name), use, where),
                "handle the None case before this line (if %s is None: ...), or make what sets %s return a value%s" % (
                    name, name, " (read all the data when get_worker_info() is None)" if where else ""))
    if typ == "tuple" and how in ("attr", "callable"):
        return ("`%s` is a tuple on your line, which %s: the value given to it holds several values - a function or "
                "model that returns several outputs (logits with hidden states or attentions; transformers' Trainer "
                "passes EvalPrediction.predictions as a tuple when the model returns more than its logits), or a "
                "trailing comma." % (quote(name), use),
                "take the element you mean (%s[0] for the first) or unpack it (a, b = %s)%s" % (name, name, after))
    if typ == "list" and how in ("attr", "callable"):
        return ("`%s` is a list on your line, which %s: the value given to it holds several values - a model or "
                "layer that returns one output per stage (timm's features_only=True: one feature map per stage), or "
                "a batch collated into a list." % (quote(name), use),
                "take the element you mean (%s[-1] for the last, %s[0] for the first) or stack them "
                "(torch.stack(%s))%s" % (name, name, name, after))
    if typ == "dict" and how in ("attr", "callable"):
        return ("`%s` is a dict on your line, which %s: the value given to it is a mapping (a batch or a model's "
                "outputs as key -> value) where one of its values was meant." % (quote(name), use),
                "read the value by its key (%s['<key>']; print(list(%s)) shows the keys)%s" % (name, name, after))
    if typ.startswith("Accelerated") and how in ("attr", "callable"):
        return ("`%s` holds accelerate's %s on your line, which %s: Accelerator.prepare() returns the objects in the "
                "order they are passed, so unpacking its result in another order binds each name to another "
                "object." % (quote(name), quote(typ), use),
                "unpack accelerator.prepare(...) in the order of its arguments (model, optimizer, loader = "
                "accelerator.prepare(model, optimizer, loader))", True)
    if how == "attr" and name == "self" and _DL_HOOK.match(uf.get("fn") or "") and \
            any(_LIGHTNING.search(str(f[0] or "")) for f in tbr.get("frames") or ()):
        return ("Your DataModule's %s reads self.%s, which nothing set on this process: Lightning calls "
                "setup(stage) on every process before the dataloader hooks, with stage 'fit', 'validate', 'test' or "
                "'predict', while prepare_data() runs on one process only and must not set state (a setup that "
                "tests another stage name, such as 'train', sets nothing)." % (uf["fn"], attr),
                "assign self.%s in setup(self, stage) for the stage that uses it (if stage == 'fit' or stage is "
                "None: ...), not in prepare_data()" % attr, True)
    return None
