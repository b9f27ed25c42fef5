"""Whose request a library's exception answers (wrong18, issue 18 item 3): the library in a traceback's innermost
frame printed the message, but its frames show that it only answered what another party asked of it. The family is
the asker's, not the printer's.

- **pickle asked the object how to write it** (pickle_hook): pickle writes an object through the protocol's special
  methods (Lib/pickle.py save -> __reduce_ex__; object.__reduce_ex__ calls __getnewargs_ex__ / __getnewargs__ /
  __getstate__: https://docs.python.org/3/library/pickle.html#pickling-class-instances). A class that cannot be written
  (an open file handle: h5py's HLObject.__getnewargs__ raises TypeError("h5py objects cannot be pickled"),
  h5py/_hl/base.py) refuses from one of them, so an exception raised in such a method is pickle's refusal
  (python.pickle), whoever printed it: what is pickled is the program's choice (a DataLoader's Dataset under spawn /
  forkserver, mp.spawn's arguments, torch.save of a whole object). The standard library's own refusal of a type that
  has no way to be written ("cannot pickle '%.200s' object", Objects/typeobject.c, raised in C under pickle.dump /
  multiprocessing's ForkingPickler.dump) is the same refusal.
- **another package asked a module for a name it lacks** (foreign_attribute): CPython's "module '%U' has no attribute
  '%U'" (Objects/moduleobject.c module_getattro, or the module's own __getattr__ under PEP 562:
  https://peps.python.org/pep-0562/, as numpy/__init__.py's) and "cannot import name '%U' from '%U'"
  (Python/ceval.c import_from) are raised at the frame that asked. When that frame is another installed package's
  than the module's, the two packages' releases do not fit (the asker was made for a release of the module that had
  the name: numba-cuda's arrayobj.py calling np.row_stack, which numpy removed): code.lib_api_version (family
  code.python_env), pin the module or upgrade the asker; not the module's misuse by the user, nor the asker's bug. A
  circular import ('partially initialized module') is not this.
- **the warnings filter asked for an exception** (warning_raised): warnings.warn() raises the warning itself when the
  filter's action for it is 'error' (Lib/warnings.py warn_explicit: `if action == "error": raise message`;
  https://docs.python.org/3/library/warnings.html#the-warnings-filter): PYTHONWARNINGS=error, python -W error,
  warnings.simplefilter('error'), pytest's -W error. A traceback that ends in a warning category (UserWarning,
  FutureWarning, DeprecationWarning, ...) is that filter, not the code that warned (torch.utils.checkpoint's
  use_reentrant UserWarning under PYTHONWARNINGS=error): python.warning_as_error (family code.python_env).
- **the user's line asked a library's callable with arguments its signature does not take** (library_signature):
  CPython binds a call's arguments before the callee's frame exists (Python/ceval.c: "%U() missing %i required
  positional argument(s)", "%U() got an unexpected keyword argument '%S'", "%U() takes %d positional arguments but %d
  were given"), so the traceback ends at the caller's own line and names no library frame. When that line calls the
  callee through an installed package's name (`torchmetrics.Accuracy(num_classes=5)` and "Accuracy.__new__() missing
  1 required positional argument: 'task'"), the installed release of that package refused the call: its usage
  family (`<lib>.usage`), not the user's own code.
"""

import re

from gpudoctor.explain import pytb

# pickle's protocol methods, through which the pickler asks an object how to write it (Doc/library/pickle.rst)
PICKLE_HOOKS = frozenset(("__reduce__", "__reduce_ex__", "__getstate__", "__getnewargs__", "__getnewargs_ex__"))
# the standard library's writers: pickle.py (the Python pickler), copyreg.py (_reduce_ex), multiprocessing's
# reduction.py (ForkingPickler.dump, which spawn / forkserver use for a Process object)
_PICKLER = re.compile(r"(?:^|[/\\])(?:pickle|copyreg|multiprocessing[/\\]reduction)\.py$")
# Objects/typeobject.c (object_getstate_default, reduce_newobj): "cannot pickle '%.200s' object"; copyreg._reduce_ex:
# "cannot pickle %r object" (3.11+: 'cannot pickle {cls.__name__!r} object')
_CANNOT_PICKLE = re.compile(r"^(?:cannot|can't) pickle '?[\w.<> ]{1,120}'? object\b", re.I)
_MODULE_ATTR = re.compile(r"^module '(?P<mod>[A-Za-z_][\w.]{0,80})' has no attribute '(?P<attr>\w{1,80})'")
_IMPORT_NAME = re.compile(r"^cannot import name '(?P<attr>\w{1,80})' from '(?P<mod>[A-Za-z_][\w.]{0,80})'"
                          r"(?! \(most likely due to a circular import\))")


def pickle_hook(tb):
    """(hook, file, line) when the traceback's exception was raised by pickle asking the object how to write it: in a
    frame of one of PICKLE_HOOKS (any file), or a TypeError 'cannot pickle ... object' whose innermost frame is the
    standard library's pickler; else None."""
    frames = tb.get("frames") or []
    if not frames:
        return None
    file, line, fn = frames[-1]
    if fn in PICKLE_HOOKS:
        return fn, file, line
    exc = tb["exc"].rsplit(".", 1)[-1]
    if exc in ("TypeError", "PicklingError") and _CANNOT_PICKLE.match(tb.get("msg") or "") and \
            _PICKLER.search(file.replace("\\", "/")):
        return "the pickler", file, line
    return None


def foreign_attribute(tb):
    """{'mod', 'attr', 'asker', 'file', 'line'} when an AttributeError "module 'M' has no attribute 'A'" (or an
    ImportError "cannot import name 'A' from 'M'") was raised at a frame of an installed package other than M's own
    (M's module __getattr__ frame skipped: PEP 562); else None. 'asker' is that package's import name."""
    exc = tb["exc"].rsplit(".", 1)[-1]
    msg = (tb.get("msg") or "").strip()
    m = _MODULE_ATTR.match(msg) if exc == "AttributeError" else (
        _IMPORT_NAME.match(msg) if exc == "ImportError" else None)
    if not m or re.match(r"__\w+__$", m.group("attr")):
        # (review18) a module without its own __version__ / __file__ is no release of it that lacks the name: a folder
        # of that name found first (a namespace package) or a broken install, whatever asked
        return None
    mod = m.group("mod")
    top = mod.split(".")[0]
    frames = list(tb.get("frames") or [])
    if frames and frames[-1][2] == "__getattr__" and pytb.where(frames[-1][0]) == ("lib", pytb.owner(top)):
        frames.pop()  # the module's own __getattr__ (PEP 562) answered; the frame above asked
    if not frames:
        return None
    file, line, _fn = frames[-1]
    kind, lib = pytb.where(file)
    if kind != "lib" or not lib or lib in (top, pytb.owner(top)):
        return None
    return {"mod": mod, "attr": m.group("attr"), "asker": lib, "file": file, "line": line}


# a warning category's class (Doc/library/warnings.rst "Warning Categories": Warning and its subclasses, a library's
# own named ...Warning), as the traceback's last line names it
_WARNING_CLASS = re.compile(r"^(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}Warning$")


def warning_raised(tb):
    """The warning category a traceback ends in (a warning the warnings filter raised), else None."""
    exc = tb.get("exc") or ""
    if not _WARNING_CLASS.match(exc):
        return None
    src = ((tb.get("src") or [("", None)])[-1][0] or "").strip()
    if src.startswith("raise "):
        # (review18) the code raised the warning class itself (`raise UserWarning("...")`): an exception like any
        # other, no filter involved (warnings.warn's raise is in C: the last frame shown is the warn() call)
        return None
    return exc.rsplit(".", 1)[-1]


# CPython's argument binding errors, the callee's qualified name first (Python/ceval.c missing_arguments,
# too_many_positional, the unexpected keyword check)
_BINDING = re.compile(r"^(?P<fn>[A-Za-z_][\w.]{0,120}?)\(\) (?:missing \d{1,3} required (?:positional|keyword-only) "
                      r"arguments?:|got an unexpected keyword argument '|takes (?:from \d{1,3} to )?\d{1,3} "
                      r"positional arguments? but \d{1,3}|got multiple values for argument ')")


def library_signature(tb):
    """{'lib', 'fn', 'module'} when a TypeError of CPython's argument binding (above) was raised at the user's own
    line and that line calls the callee through an installed package's name; else None."""
    if (tb.get("exc") or "").rsplit(".", 1)[-1] != "TypeError":
        return None
    m = _BINDING.match((tb.get("msg") or "").strip())
    frames = tb.get("frames") or []
    if not m or not frames or pytb.where(frames[-1][0])[0] != "user":
        return None
    src = (tb.get("src") or [("", None)])[-1][0] or ""
    name = next((p for p in m.group("fn").split(".") if not p.startswith("__")), None)
    if not name:
        return None
    call = re.search(r"(?<![\w.])([A-Za-z_]\w{0,60})\.(?:[A-Za-z_]\w{0,60}\.){0,6}%s[ \t]{0,2}\(" % re.escape(name),
                     src[:pytb.MAX_SRC])
    if not call:
        return None
    module = call.group(1)
    packages = pytb._wheels().get("packages") or {}
    if module not in packages:
        return None  # (an alias, a variable, the user's own module: no package named)
    return {"lib": pytb.owner(module), "fn": m.group("fn"), "module": module}


def pip_name(name):
    """The name pip installs a package by (its distribution, normalised as PEP 503 does: '_' and '.' -> '-')."""
    return re.sub(r"[-_.]+", "-", pytb.distribution(name)).lower()
