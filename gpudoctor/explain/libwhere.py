"""The finer family of an exception a library raised, from where and how it raised it (family19, issue 18 "the right
family", item 3).

When no knowledge entry knows an exception's words, pyanswer answers from its innermost frame: a library's file named
'<lib>.library_error' whatever part of the library raised it. The traceback says more:

- **Where** (generated/lib_modules.json, tools/gen_lib_modules.py: every module of the pinned lightning, accelerate,
  datasets, transformers, peft, trl, timm, torchmetrics, hydra-core and omegaconf wheels and DeepSpeed's sdist,
  assigned by a hand-written rules table to the families these libraries' knowledge has):
  lightning/pytorch/callbacks/early_stopping.py is lightning.callbacks, datasets/load.py datasets.load,
  accelerate/accelerator.py accelerate.config, transformers/training_args.py
  transformers.trainer. The standalone wheels' pytorch_lightning/ and lightning_fabric/ are the same tree as
  lightning/pytorch/ and lightning/fabric/. A module the pinned wheel lacks (another release's) is read by its
  folder when every module of that folder has one family.
- **How**: the module's family is the answer only for an exception the library raised itself with its own `raise`
  line, the way it refuses a call or a setting: the innermost frame is the library's (not the standard library's or
  another package's under it), its source line, where the traceback prints it, is a `raise` statement, and the class
  is not one of Python's internal failures (INTERNAL: AttributeError, AssertionError, NameError, ...
  Doc/library/exceptions.rst: a missing attribute, a failed invariant - the library's own state, or another
  package's version under it: '<lib>.library_error' stays; a KeyError / IndexError only on a printed `raise` line
  with a sentence of its own: LOOKUP). Without a printed source line, a class the library itself defines (its
  module is the library's: lightning.fabric.utilities.exceptions.MisconfigurationException) or a ValueError /
  NotImplementedError ('an argument that has the right type but an inappropriate value') is read as its own raise;
  a TypeError is so only on a printed `raise` line (CPython raises TypeErrors of its own for any operation: 'expected
  str, bytes or os.PathLike object, not NoneType').
- **A class of the library's errors module** (the table's classes: omegaconf/errors.py, hydra/errors.py,
  datasets/exceptions.py, peft/utils/error.py): an exception of such a class is the library's own raise whichever
  of its frames raised it - OmegaConf raises every error through _utils.format_and_raise, whose module says nothing,
  and InterpolationResolutionError says omegaconf.interpolation. The class alone, an exception line pasted without
  its traceback, says it too (provenance._bare_exception asks class_family).
- **An argument check with no module family**: an own raise of an argument-check class (ValueError, TypeError,
  NotImplementedError, or the library's own exception class) in an argument-checking frame (CHECKING: __init__,
  __post_init__, validate* / _validate*, check* / _check*, verify* / _verify*, the name-mangled __validate*) within
  pyanswer.API_DEPTH library frames under the user's frame, whose message names an argument of the user's call
  (libarg.argument), is the library's usage family ('<lib>.usage', else '<lib>.config'), not a fault inside it.

The finer family's causes and fixes come first; the generic fallback's cause list follows them, with upgrade19's
installation alternative last (finding()).
"""

import re

from gpudoctor.explain import pytb

# Python's exceptions that report an internal failure, not a refusal (Doc/library/exceptions.rst)
INTERNAL = frozenset(("AttributeError", "AssertionError", "NameError", "UnboundLocalError", "ZeroDivisionError",
                      "RecursionError", "StopIteration", "ImportError", "ModuleNotFoundError", "OverflowError",
                      "UnicodeDecodeError", "UnicodeEncodeError", "MemoryError", "SystemError", "ReferenceError"))
# a missing key or index: internal (a dict or list lookup in the library's code), unless the library's own printed
# `raise` line raised it with a sentence of its own (omegaconf's oc.env resolver: raise KeyError(f"Environment
# variable '{key}' not found"), omegaconf/resolvers/oc/__init__.py) - never a bare key (raise KeyError(key))
LOOKUP = frozenset(("KeyError", "IndexError", "LookupError"))
LOOKUP_WORDS = 3  # words a lookup error's own message needs
_WORD = re.compile(r"[A-Za-z]{2,}")
# what an argument check raises (Doc/library/exceptions.rst: ValueError, TypeError, NotImplementedError)
ARG_CHECK = frozenset(("ValueError", "TypeError", "NotImplementedError"))
# the functions that check a call's arguments: a constructor, a dataclass's __post_init__, a validation helper
# ('__validate_init_configuration' of ModelCheckpoint is printed by its code name, before name mangling)
CHECKING = re.compile(r"^(?:__init__|__post_init__|__new__|_{0,2}(?:validate|check|verify|_validate)\w{0,80})$")
# a source line that raises (CPython prints the frame's line stripped: 'raise MisconfigurationException(')
_RAISE = re.compile(r"^raise\b")
# the import package names a frame's path shows -> the path the table uses (the standalone Lightning wheels
# install src/lightning/pytorch and src/lightning/fabric under these names)
_ALIAS = (("pytorch_lightning/", "lightning/pytorch/"), ("lightning_fabric/", "lightning/fabric/"))
_MARKERS = ("/site-packages/", "/dist-packages/")
# the usage family a library's argument checks are answered with when no module names a finer one
USAGE_SUFFIXES = ("usage", "config")


def _table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("lib_modules")


def module_path(file):
    """The path of a frame's file inside its package, as the table writes it ('lightning/pytorch/callbacks/
    early_stopping.py'), or None outside site-packages / a known library folder."""
    norm = (file or "").replace("\\", "/")
    rel = None
    for marker in _MARKERS:
        if marker in norm:
            rel = norm.rsplit(marker, 1)[1]
            break
    if rel is None:
        for lib in ("pytorch_lightning", "lightning_fabric", "lightning", "accelerate", "transformers", "peft"):
            i = norm.rfind("/%s/" % lib)
            if i >= 0:
                rel = norm[i + 1:]
                break
    if rel is None:
        return None
    for old, new in _ALIAS:
        if rel.startswith(old):
            return new + rel[len(old):]
    return rel


def module_family(file):
    """The family generated/lib_modules.json assigns the module of ``file`` (or its folder), or None."""
    rel = module_path(file)
    if not rel:
        return None
    t = _table()
    fam = (t.get("modules") or {}).get(rel)
    if fam:
        return fam
    folders = t.get("folders") or {}
    parts = rel.split("/")
    for k in range(len(parts) - 1, 1, -1):
        fam = folders.get("/".join(parts[:k]))
        if fam:
            return fam
    return None


def _own_class(exc, lib):
    """Whether the exception's class is one the library defines (its dotted module is the library's package)."""
    if "." not in exc:
        return False
    top = exc.split(".", 1)[0]
    return top == lib or pytb.where("/site-packages/%s/x.py" % top) == ("lib", lib)


ENUM_FRAMES = 4  # frames of Lib/enum.py (and the Enum's own _missing_) at a traceback's end


def _enum_caller(frames, lib):
    """The index of the library's frame that converted a value to an Enum which refused it (Lib/enum.py
    EnumType.__call__ -> Enum.__new__ raises ValueError "%r is not a valid %s", after the class's own _missing_ hook,
    https://github.com/python/cpython/blob/main/Lib/enum.py): the frame just outside the enum.py frames at the
    traceback's end, when it is ``lib``'s; else None. The value the library's code was given is what it refused
    (accelerate's TorchDynamoPlugin.__post_init__ DynamoBackend(backend), transformers' TrainingArguments
    SchedulerType(lr_scheduler_type))."""
    k = len(frames)
    seen = False
    while k > 0 and len(frames) - k < ENUM_FRAMES:
        file, _line, fn = frames[k - 1]
        norm = file.replace("\\", "/")
        if norm.endswith("/enum.py") and pytb.where(file)[0] == "stdlib":
            seen = True
        elif fn != "_missing_" or pytb.where(file) != ("lib", lib):
            break
        k -= 1
    return k - 1 if seen and k > 0 and pytb.where(frames[k - 1][0]) == ("lib", lib) else None


def raiser(tb, lib):
    """(index of the frame that raised for the library, own) - own True when the library raised the exception itself
    with its own `raise` line or an Enum's refusal of a value it converted (module docstring), None when the text does
    not tell (no source line printed, a class that says a refusal) - or None when the library did not raise it (an
    internal failure, or a frame of another package or the standard library raised it)."""
    frames = tb.get("frames") or []
    exc = tb["exc"].rsplit(".", 1)[-1]
    if not frames or exc in INTERNAL:
        return None
    if exc == "ValueError":
        k = _enum_caller(frames, lib)
        if k is not None:
            return k, True
    if pytb.where(frames[-1][0]) != ("lib", lib):
        return None  # (the innermost frame is the standard library's or another package's: not its raise)
    srcs = tb.get("src") or []
    src = (srcs[-1][0] if len(srcs) == len(frames) and srcs[-1] else "") or ""
    if src:
        if not _RAISE.match(src.strip()):
            return None
        if exc in LOOKUP and len(_WORD.findall(tb.get("msg") or "")) < LOOKUP_WORDS:
            return None
        return len(frames) - 1, True
    if exc in LOOKUP:
        return None
    if _own_class(tb["exc"], lib) or exc in ("ValueError", "NotImplementedError"):
        return len(frames) - 1, None  # (no source line printed: its class says a refusal)
    return None


def usage_family(by, lib):
    """'<lib>.usage', else '<lib>.config', when the knowledge has it."""
    for suffix in USAGE_SUFFIXES:
        eid = "%s.%s" % (lib, suffix)
        if eid in by and by[eid].get("kind", "error") != "echo":
            return eid
    return None


def _checked_call(tb, lib, depth, k):
    """The checking function (CHECKING) of frame ``k`` when it is within ``depth`` library frames of the user's own
    frame, every frame between them the library's (a dataclass's generated __init__, '<string>', and the standard
    library's frames between are not counted), or None."""
    frames = tb.get("frames") or []
    fn = frames[k][2] or ""
    if not CHECKING.match(fn):
        return None
    n = 0
    for i in range(k, -1, -1):
        kind = pytb.where(frames[i][0])
        if kind[0] == "user":
            return fn if 1 <= n <= depth else None
        if kind == ("lib", lib):
            n += 1
        elif kind[0] != "stdlib":
            return None
    return None


def class_family(by, exc):
    """The family the table's classes give the exception class ``exc`` (dotted, as a traceback prints it), or None."""
    fam = (_table().get("classes") or {}).get(exc or "")
    return fam if fam in by and by[fam].get("kind", "error") != "echo" else None


def choose(by, tb, lib, depth):
    """(entry id, how) of the finer family for an exception raised in library ``lib`` (module docstring), or None:
    how is ('class', the exception's class), ('module', module path) or ('check', function)."""
    frames = tb.get("frames") or []
    fam = class_family(by, tb["exc"])
    if fam and frames and _own_class(tb["exc"], lib):
        return fam, ("class", tb["exc"])  # (a class of the library's errors module: its own raise)
    got = raiser(tb, lib)
    if got is None:
        return None
    k, own = got
    fam = module_family(frames[k][0])
    if fam and fam in by and by[fam].get("kind", "error") != "echo":
        return fam, ("module", module_path(frames[k][0]))
    exc = tb["exc"].rsplit(".", 1)[-1]
    if exc not in ARG_CHECK and not _own_class(tb["exc"], lib):
        return None
    fn = _checked_call(tb, lib, depth, k)
    if not fn:
        return None
    from gpudoctor.explain import libarg

    if libarg.argument(tb) is None:
        return None  # (the message names none of the call's arguments: not shown to be the call's refusal)
    eid = usage_family(by, lib)
    return (eid, ("check", fn)) if eid else None


def finding(scan, kb, tb, lib, user, at, what, structural_finding, depth):
    """The answer for an exception library ``lib`` raised itself, by the finer family choose() reads, or None. The
    finer family's own causes come first, then the library's generic ones ('<lib>.library_error', or
    code.library_error)."""
    by = kb.by_id
    got = choose(by, tb, lib, depth)
    if not got:
        return None
    eid, (how, where) = got
    if how == "module":
        why = "%s raised by %s's own check in %s (a module of %s's %s part)" % (tb["exc"], lib, where, lib, eid)
    elif how == "class":
        why = "%s, an exception class %s defines for its %s errors" % (tb["exc"], lib, eid)
    else:
        why = "%s raised by %s's argument check %s, called from your line" % (tb["exc"], lib, where)
    f = structural_finding(by[eid], tb["hit"], why, scan, sure="medium")
    called = " (called from your %s:%d)" % (user[0], user[1]) if user else ""
    f["notes"].append("Raised by %s's own `raise` at %s%s: %s. %s" % (
        lib, at, called, what.rstrip("."),
        "That module is %s's %s part (%s): the library refused the call or the setting there; its message names "
        "what it wants." % (lib, eid, where) if how == "module" else
        "%s defines that class for this kind of error (%s): its message names the key, value or target it could not "
        "use." % (lib, eid) if how == "class" else
        "%s checks the arguments it was given and refused one your line passes: change that argument as the "
        "message asks, not the library." % where))
    base = "%s.library_error" % lib if "%s.library_error" % lib in by else "code.library_error"
    seen = {c["text"] for c in f["causes"]}
    n = len(f["causes"])
    for c in (by.get(base) or {}).get("causes") or ():
        if c["text"] in seen or c.get("when") or c.get("evidence"):
            continue  # (a cause the log must show evidence for is the generic entry's own answer, not a follow-up)
        n += 1
        f["causes"].append({"text": c["text"], "checks": list(c.get("checks") or ()),
                            "confirm": list(c.get("confirm") or ()), "fix": list(c.get("fix") or ()),
                            "exports": dict(c.get("exports") or {}), "evidence": [], "static_rank": n,
                            "computed": c.get("computed")})
    # (upgrade19) the installation to change, as pyanswer's library-error answer gives it: for a refusal of the
    # library's own (never an internal failure here) the last alternative, beside the generic version cause
    from gpudoctor.explain import upgrade

    up, note, _internal = upgrade.advice(scan, tb, lib, own=True)  # (a KeyError with its sentence: the library's own)
    if up:
        f["causes"][-1]["fix"].extend(up)
        if note:
            f["notes"].append(note)
    return f
