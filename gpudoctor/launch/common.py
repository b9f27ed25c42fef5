"""What the launcher parsers share: the flag tables (flags/*.json, generated from the
launchers' own parsers by flags/generate.py), an argparse parser rebuilt from a table (so
abbreviations, `--flag=value`, REMAINDER and type errors behave exactly as the launcher's
argparse does), bounded numbers, and the refusal every parser raises."""

import argparse
import functools
import json
import os
import re

from gpudoctor.errors import InputError, excerpt

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_COUNT = 1 << 20  # nodes, processes, slots: no job has a million of them per field


class Refused(InputError):
    """The launcher itself would refuse this line or config: the message names its rule."""


def refuse(launcher, rule):
    raise Refused("%s would refuse this: %s" % (launcher, rule))


def said(text, words, limit=240):
    """A launcher's message that quotes the user's words (argparse's `unrecognized arguments: X`, `invalid int value:
    'X'`), as a refusal prints it: each of ``words`` (the line's) that a shell would act on becomes one inert $'...'
    word (fixline.inert_word: literal between double quotes too, where argparse's repr puts a value holding a
    quote); the launcher's own prose reads as written. It was excerpt()'s word with its quotes stripped: `$'...`
    left open, or the whole message bare, and the clause after its ': ' ran when pasted (red team 2026-11-28e,
    docs/security.md 83.). A longer message, or one with a control character, is excerpt()'s one inert word (72.)."""
    from gpudoctor.fixline import Shown, inert_word

    shown = Shown(words)(str(text), inert_word)
    if len(shown) > limit or not shown.isprintable():
        return excerpt(str(text), 160)
    return shown


@functools.lru_cache(maxsize=None)
def table(name):
    with open(os.path.join(HERE, "flags", name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def source(name):
    s = table(name)["source"]
    return "%s %s (%s)" % (s["project"], s["file"], s["version"])


def count(value, what, where, minimum=0):
    """A whole number from the user: ASCII digits, bounded (int() of 5,000 digits is slow
    and str() of it raises), never a bool."""
    if value is None:
        return None
    if isinstance(value, bool) or isinstance(value, float):
        raise InputError("%s: %s=%s is not a whole number" % (where, what, excerpt(value)))
    if isinstance(value, int):
        n = value
    else:
        s = str(value).strip()
        if not s or len(s) > 8 or not re.match(r"^-?[0-9]+$", s):
            raise InputError("%s: %s=%s is not a whole number" % (where, what, excerpt(value, 24)))
        n = int(s)
    if n < minimum or n > MAX_COUNT:
        raise InputError("%s: %s=%s is out of range (%d to %d)" % (where, what, excerpt(n), minimum, MAX_COUNT))
    return n


class _ArgError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage and exit 2
        raise _ArgError(message)

    def exit(self, status=0, message=None):  # --help / --version
        raise _ArgError(message or "asked for help, not a launch")


class _Env(argparse.Action):
    """torch's `env` action (torch/distributed/argparse_util.py): the default comes from
    PET_<DEST> when that variable is set."""

    environ = {}

    def __init__(self, dest, default=None, required=False, **kw):
        default = self.environ.get("PET_" + dest.upper(), default)
        super().__init__(dest=dest, default=default, required=required and default is None, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


class _CheckEnv(argparse.Action):
    """torch's `check_env` action: a flag whose default is PET_<DEST> read as 0/1."""

    environ = {}

    def __init__(self, dest, default=False, **kw):
        env = self.environ.get("PET_" + dest.upper())
        if env is not None:
            # torch/distributed/argparse_util.py check_env: bool(int(os.environ[PET_<DEST>])): torchrun stops
            # with a ValueError on any other value (PET_STANDALONE=true); parse() makes that its refusal
            if not re.match(r"^\s*[-+]?[0-9](?:_?[0-9]){0,30}\s*$", env):
                raise ValueError("PET_%s=%s: torchrun reads it with int() and stops: invalid literal for int()"
                                 % (dest.upper(), excerpt(env, 20)))
            default = bool(int(env))
        super().__init__(dest=dest, const=True, default=default, nargs=0, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, True)


_TYPES = {"int": int, "float": float, "str": str, None: None}


def _nargs(n):
    if n in ("...", "A..."):
        return argparse.REMAINDER
    return n


def build_parser(name, environ=None, extra=()):
    """An argparse parser with the launcher's own flags, types, choices and defaults."""
    t = table(name)
    p = _Parser(prog=name, add_help=True, allow_abbrev=t.get("allow_abbrev", True))
    env = dict(environ or {})

    class Env(_Env):
        environ = env

    class CheckEnv(_CheckEnv):
        environ = env

    for row in list(t["options"]) + list(extra):
        kw = {"dest": row["dest"]}
        action = row["action"]
        if action == "store" and row["nargs"] == 0:  # version / check-build style actions: flags
            action = "store_true"
            kw.update(action="store_true", default=bool(row["default"]))
        elif action in ("store_true", "store_false"):
            kw.update(action=action, default=row["default"])
        elif action == "store_const":
            kw.update(action="store_const", const=row.get("const"), default=row["default"])
        elif action == "count":
            kw.update(action="count", default=row["default"])
        elif action == "check_env":
            kw.update(action=CheckEnv, default=bool(row["default"]))
        else:
            kw.update(default=row["default"], type=_TYPES.get(row["type"], str))
            if row["nargs"] not in (1, None):
                kw["nargs"] = _nargs(row["nargs"])
            if row.get("choices"):
                kw["choices"] = row["choices"]
            if action == "env":
                kw["action"] = Env
            elif action == "append":
                kw["action"] = "append"
        p.add_argument(*row["flags"], **kw)
    for row in t["positionals"]:
        kw = {}
        if row["nargs"] not in (1, None):
            kw["nargs"] = _nargs(row["nargs"])
        p.add_argument(row["dest"], **kw)
    return p


def parse(name, launcher, argv, environ=None, extra=()):
    """Parse as the launcher's argparse does; its errors are the launcher's refusals."""
    try:
        return build_parser(name, environ, extra).parse_args(argv)
    except _ArgError as exc:
        refuse(launcher, "argparse: %s" % said(exc, argv))
    except (ValueError, TypeError) as exc:  # a PET_ value argparse cannot take
        refuse(launcher, excerpt(exc, 160))


def is_python(prog):
    return bool(re.match(r"^python(\d+(\.\d+)*)?$", os.path.basename(prog or "")))
