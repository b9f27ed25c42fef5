"""Which installation to change when a library's own code failed (issue 18, session 19: "name the fix").

A traceback that ends inside a library's frames with an exception of Python's own internal-failure classes
(Doc/library/exceptions.rst: AttributeError, KeyError, IndexError, AssertionError, TypeError, NameError,
UnboundLocalError, ImportError / ModuleNotFoundError), where no argument check of the user's call refused it
(pyanswer._refused_call reads those), is the installed code failing on itself: a fault of that release, or of its fit
with another installed package. The settled fix in public threads is then nearly always an installation: upgrade the
package (its next release fixed it), or pin the release the other package supports. This module reads, from the
traceback and the text, what to name:

- **the raising package**: the innermost frame's (pytb.where: site-packages / dist-packages paths, the wheel tables'
  import package -> distribution, generated/wheel_packages.json);
- **the integrating package**: the nearest frame outward of the raising package's run that belongs to another
  library (a plugin, connector or adapter calling into the raising package's internals: an LMCache connector calling
  vLLM, TRL calling vLLM, a framework calling Transformer Engine). torch's frames and the standard library's are
  stepped over (torch.nn.Module.__call__, threading, asyncio, functools dispatch a call, they do not make it); the
  user's own frame stops the walk (the user called the package directly);
- **the installed versions** the text prints: `pip list` / `conda list` tables (their header, then the rows under it:
  record_table), pip's requirement form (`pip freeze`, `pip install X==V`,
  torch.utils.collect_env's `[pip3] vllm==0.7.0`), a banner or environment report's `<Name> version: V`
  (transformers-cli env's '- `transformers` version: 4.46.3', collect_env's 'PyTorch version: 2.1.0', vLLM's
  'vLLM Version: 0.7.0'), and a frame path with the version in it (an egg's 'vllm-0.7.0-py3.12.egg/vllm/...', a
  build folder 'vllm-0.7.0/vllm/...').

The fix is an installation command in the user's words (pip install -U <distribution>), the integrating package
first when one calls into another's internals, then the pin that undoes a mismatch. Any other exception raised deep in
a library (RuntimeError, ValueError) keeps the library's own reading first; the upgrade is its last alternative.
"""

import re

from gpudoctor.fixline import hostile, sh, shown_word

# Python's internal-failure classes (Doc/library/exceptions.rst): raised by code that met a state it did not expect,
# not by a check that refuses a value (ValueError, a library's own exception classes)
INTERNAL = frozenset(("AttributeError", "KeyError", "IndexError", "AssertionError", "TypeError", "NameError",
                      "UnboundLocalError", "ImportError", "ModuleNotFoundError"))
# the internal failures that name no value of the program's: an attribute, an import, a name of the code itself
_NAMES_NO_DATA = frozenset(("AttributeError", "ImportError", "ModuleNotFoundError", "NameError", "UnboundLocalError"))
# packages whose frames dispatch a call they did not choose: torch (Module.__call__, autograd.Function.apply, the
# compile wrappers: every library's call goes through them), executors that run the functions they are handed (Ray's
# remote calls and actors, Dask, joblib, Celery), the command-line and app frameworks that call the program's
# functions (click, typer, fire, Hydra, uvicorn / starlette / fastapi / anyio), notebooks, pytest, and tqdm (an
# iterator wrapper whose frame sits between a loop and the data it draws)
DISPATCH = frozenset(("torch", "ray", "dask", "distributed", "joblib", "celery", "click", "typer", "fire", "hydra",
                      "uvicorn", "starlette", "fastapi", "anyio", "uvloop", "IPython", "ipykernel", "pytest", "_pytest",
                      "pluggy", "tqdm"))

# a check's own words (an assert or a TypeError that states the rule a value broke: 'local_world_size (16) must be
# less than or equal to ...', 'expected Tensor as element 0'): a validation of what the program gave, not an internal
# failure; the upgrade is then the last alternative
_RULE = re.compile(r"\b(?:must|should|expected|expects|only supports?|not supported|unsupported|invalid|required|"
                   r"cannot be|can't be|needs? to be|is not allowed|takes \d|got an unexpected)\b", re.I)
# CPython's refusal of a call's arguments by the callee's signature (Python/ceval.c, Python/getargs.c)
_BINDING = re.compile(r"got an unexpected keyword argument|takes (?:from )?\d{1,3} (?:to \d{1,3} )?positional "
                      r"arguments? but|missing \d{1,3} required (?:positional|keyword-only) argument")
# a version as packages print it (PEP 440's public part, a local label)
_VER = r"(?P<ver>\d{1,4}(?:\.\d{1,6}){1,3}(?:(?:a|b|rc|\.post|\.dev)\d{0,6})?(?:\+[\w.]{1,40})?)"
# the scan's patterns (knowledge.STRUCTURAL '_struct_pkg_version'); the requirement form's needles are given ('=='
# and the version's first digit: two characters alone are no needle)
PATTERNS = {"_struct_pkg_version": [
    (r"(?<![\w.-])(?P<dist>[A-Za-z][\w.-]{0,60}) ?== ?" + _VER + r"(?![\w.])", ["==%d" % d for d in range(10)]),
    (r"(?<![\w.-])`?(?P<dist>[A-Za-z][\w.-]{0,40})`? [Vv]ersion: ?v?" + _VER + r"(?![\w.])", ["version:"])],
    # the header of `pip list`'s table (pip/_internal/commands/list.py format_for_columns: 'Package', 'Version',
    # then 'Editable project location' / 'Location' with -v) and of `conda list` ('# Name  Version  Build  Channel'):
    # record_table reads the rows under it
    "_struct_pip_list": [(r"^(?:Package {1,80}Version|# ?Name {1,80}Version {1,80}Build)\b",
                          ["packageversion", "#nameversionbuild"])]}
# a row of those tables: the name, blanks, the version, more columns
_ROW = re.compile(r"^(?P<dist>[A-Za-z0-9][\w.-]{0,80}) {1,80}v?" + _VER + r"(?: {1,80}\S[^\n]{0,300})?\s*$")
_RULER = re.compile(r"^-{3,80}(?: {1,8}-{3,200}){1,4}\s*$")
MAX_ROWS = 1000  # rows read under one table's header
# a frame path with a version in a folder name: an egg or wheel-unpacked folder, a source tree named by its release
_PATH_VER = re.compile(r"[/\\](?P<dist>[A-Za-z][\w.]{0,60}?)-(?P<ver>\d{1,4}(?:\.\d{1,6}){1,3}(?:(?:a|b|rc|\.post|"
                       r"\.dev)\d{0,6})?)(?:-py\d[^/\\]{0,60}|\.egg|\.dist-info)?[/\\]")
# names a report prints for a distribution
_SAID = {"pytorch": "torch"}
MAX_VERSIONS = 256  # version lines kept by the scan (a pip freeze of a large environment: scan.py)


def norm(name):
    """A distribution name as PEP 503 normalizes it (lower case, runs of '-', '_', '.' as one '-')."""
    n = re.sub(r"[-_.]+", "-", (name or "").lower())
    return _SAID.get(n, n)


def record_table(scan, hit, win):
    """The scan's reader of a pip list / conda list table: each row under the header (its ruler skipped) until a line
    that is not one, as {normalized distribution: (version, line)} in scan.pkg_rows (the first row of each)."""
    rows = getattr(scan, "pkg_rows", None)
    if rows is None:
        rows = scan.pkg_rows = {}
    for i in range(1, MAX_ROWS + 1):
        raw = win.raw(i)
        if not raw.strip():
            break
        text = raw.decode("utf-8", "replace").rstrip("\r")
        if i == 1 and _RULER.match(text):
            continue
        m = _ROW.match(text)
        if not m:
            break
        rows.setdefault(norm(m.group("dist")), (m.group("ver"), hit.line + i))


def installed(scan, tb=None):
    """{normalized distribution: (version, line or None)} of the versions the text prints (the module docstring),
    the first one printed for each."""
    out = {}
    for h in (scan.matches.get("_struct_pkg_version") or ()):
        d, v = norm(h.groups.get("dist")), h.groups.get("ver")
        if d and v:
            out.setdefault(d, (v, h.line))
    for d, got in (getattr(scan, "pkg_rows", None) or {}).items():
        out.setdefault(d, got)
    frames = list((tb or {}).get("outer") or []) + list((tb or {}).get("frames") or [])
    for file, _line, _fn in frames:
        for m in _PATH_VER.finditer(file or ""):
            out.setdefault(norm(m.group("dist")), (m.group("ver"), None))
    return out


def _where(path):
    from gpudoctor.explain import pytb

    return pytb.where(path)


def integrator(tb, lib):
    """(package, file, line, fn) of the nearest frame outward of the innermost run of ``lib``'s frames that belongs to
    another library, stepping over DISPATCH's and the standard library's; None when the user's own frame (or
    nothing) comes first."""
    frames = list(tb.get("outer") or []) + list(tb.get("frames") or [])
    k = len(frames)
    while k > 0 and _where(frames[k - 1][0])[0] == "stdlib":
        k -= 1
    if k == 0 or _where(frames[k - 1][0]) != ("lib", lib):
        return None
    while k > 0 and _where(frames[k - 1][0]) == ("lib", lib):
        k -= 1
    while k > 0:
        kind, other = _where(frames[k - 1][0])
        if kind == "user":
            return None
        if kind == "lib" and other not in DISPATCH and other != lib:
            file, line, fn = frames[k - 1]
            return other, file, line, fn
        k -= 1
    return None


def _dist(name):
    from gpudoctor.explain import pytb

    return pytb.distribution(name)


_SITE = re.compile(r"[/\\](?:site|dist)-packages[/\\]")


def _short(path):
    """A frame's file from its package folder on ('lmcache/integration/vllm/vllm_adapter.py'), as pip installs it."""
    m = None
    for m in _SITE.finditer(path or ""):
        pass
    return path[m.end():] if m else path


def _install(name, file=None, vers=None):
    """The command that upgrades import package ``name``: pip's, with the distribution the wheel tables name; a
    package the tables do not know is named as imported (pip list names its distribution); a frame outside
    site-packages is a source checkout (a git pull and reinstall there)."""
    from gpudoctor.explain import pytb

    d = _dist(name)
    if file and not _SITE.search(file) and "/" in file.replace("\\", "/"):
        path = file.replace("\\", "/")
        i = path.rfind("/%s/" % name)
        root = path[:i] if i > 0 else path.rsplit("/", 1)[0]
        # the folder in the prose too is one shell word where a shell acts on it: a traceback's 'site-packages;touch
        # M;#/transformers/...' (no site-packages folder, so read as a checkout) ran touch when the clause after
        # 'installed, ' was pasted (docs/security.md 49.)
        return d, "where it is installed, %s, not site-packages: a source checkout - git -C %s pull, then pip " \
                  "install -e %s - or a pip --target folder - pip install -U --target %s %s" % (
                      shown_word(root) if hostile(root) else root, sh(root), sh(root), sh(root), sh(d))
    known = d != name or name in (pytb._wheels().get("packages") or {}) or norm(d) in (vers or {})
    return d, "pip install -U %s%s" % (sh(d), "" if known else "; pip list | grep -i %s names its distribution"
                                       % sh(name.split("_")[0]))


def _installed_say(vers, dist):
    got = vers.get(norm(dist))
    if not got:
        return ""
    return "; installed: %s %s%s" % (dist, got[0], " (line %d)" % got[1] if got[1] else "")


def inner_file(tb):
    """The file of the innermost frame outside the standard library (pytb.innermost), or None."""
    from gpudoctor.explain import pytb

    got = pytb.innermost(tb) if tb.get("frames") else None
    return got[0] if got else None


def advice(scan, tb, lib, own=False):
    """(fix lines, note, place) for an exception ``tb`` raised inside ``lib``'s code: the installation to change, and
    where the fix list takes them ('first', 'second': after the library's own reading, False: last). ([], None, False)
    when there is no library to name. ``own``: the caller read the exception as the library's own refusal (libwhere:
    a KeyError with a sentence of its own on a printed raise line, omegaconf's "Environment variable 'X' not found"),
    never an internal failure whatever its class."""
    if not lib or lib in ("builtins",) or lib in DISPATCH:
        return [], None, False
    exc = (tb.get("exc") or "").rsplit(".", 1)[-1]
    vers = installed(scan, tb)
    caller = integrator(tb, lib) if tb.get("frames") else None
    msg = tb.get("msg") or ""
    # an attribute of None is a value the code was handed (an argument left None, a batch without the field) as often
    # as the library's own state: the upgrade after the library's own reading, on that condition (review19)
    none = exc == "AttributeError" and msg.startswith("'NoneType' object has no attribute")
    # a call the other package made that the installed one's signature refuses is their mismatch (CPython's own
    # binding messages); a rule a check states is a validation of what the program gave
    internal = not own and exc in INTERNAL and (
        (caller is not None and exc == "TypeError" and _BINDING.search(msg)) or
        not (exc in ("AssertionError", "TypeError") and _RULE.search(msg)))
    if not internal:
        # a library's own error (its exception class, a stated rule) raised under another package's call is that
        # package using it as documented more often than a mismatch (a callback: antlr4's visitor calling
        # omegaconf's, a solver calling its linear-algebra package): the raiser's upgrade alone, as the last step
        caller = None
    fixes = []
    d, how = _install(lib, inner_file(tb), vers)
    if caller:
        p, file, line, fn = caller
        pd, phow = _install(p, file, vers)
        fixes.append("upgrade %s (%s%s): its code (%s:%d%s) calls into %s, and the installed %s is not the release it "
                     "was written for; or pin %s to the release %s supports (pip show %s lists its requirement; pip "
                     "install '%s==<that version>')" % (
                         # (the frame's file and function are the traceback's, log text: each one shell word, as
                         # every value of a fix line, docs/security.md 15., 80.)
                         pd, phow, _installed_say(vers, pd), sh(_short(file)), line, " in %s" % sh(fn) if fn and
                         not fn.startswith("<") else "", d, d, d, pd, sh(pd), d))
        fixes.append("or upgrade %s (%s%s) when its own release notes name the fix" % (d, how, _installed_say(vers, d)))
        note = ("%s (%s) was raised inside %s's code, which %s's code called (%s:%d): an integration of %s with %s's "
                "internals. When such a call fails inside the callee, the two installed releases do not fit each other "
                "or the callee's release has the bug: upgrade %s first (its newer releases follow %s), or pin %s to "
                "the release %s supports." % (exc, "an internal failure" if internal else "the library's own error",
                                               lib, p, _short(file), line, p, lib, pd, d, d, pd))
    else:
        if internal and none:
            fixes.append("if no argument or field your call passes is None: upgrade %s (%s%s), whose release may fail "
                         "on its own state here (its release notes and issue tracker name the release that fixed it), "
                         "or pin %s to the release the other packages support (pip check)" % (
                             d, how, _installed_say(vers, d), d))
        elif internal:
            fixes.append("upgrade %s (%s%s): %s inside %s's own code is a fault of this release or of its fit with "
                         "the installed torch and other libraries; its release notes and issue tracker name the release "
                         "that fixed it; or pin %s to the release the other packages support (pip check lists the "
                         "requirements that do not hold)" % (
                             d, how, _installed_say(vers, d), "an %s" % exc if exc[:1] in "AEIOU" else "a %s" % exc,
                             lib, d))
        else:
            fixes.append("if the call and its configuration are what %s's documentation asks for: upgrade %s (%s%s), "
                         "whose release may have this as a bug (its release notes and issue tracker name the release "
                         "that fixed it), or pin the release the other packages support (pip check)" % (
                             d, d, how, _installed_say(vers, d)))
        note = None
        if internal and not none:
            note = ("%s is one of Python's internal-failure classes, raised in %s's own frames and not by an argument "
                    "check of your call: the installed %s failed on its own state (a bug of this release, or a "
                    "mismatch with another installed package); an upgrade, or the release the other packages pin, is "
                    "the fix threads settle on." % (exc, lib, d))
    # where the caller puts the lines: first for a failure that names no data of the program's (a missing attribute,
    # import or name; or any internal failure under another package's call); after the library's own reading for a
    # KeyError / IndexError / assert / TypeError of its own frames (a key or an index is often the program's data:
    # a dataset without the column, a config without the field); last for the library's own errors
    first = caller is not None or (exc in _NAMES_NO_DATA and not none)
    place = ("first" if first else "second") if internal else False
    return fixes, note, place
