#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/enum_values.json: the values of every Enum class of the training
libraries, read from their sources (lead31, issue 18: "name the fix", a value against its domain).

A value that is not one of an Enum's stops the run with Python's own message, raised by EnumType.__call__
(https://github.com/python/cpython/blob/3.11/Lib/enum.py: ValueError("%r is not a valid %s" % (value,
cls.__qualname__))), the libraries' ExplicitEnum adding "please select one of ..." at best:

    ValueError: 'MULTI_CPUS' is not a valid DistributedType

The message names the class, not its values. explain (gpudoctor/explain/famfix.py) looks the class up here and names
the closest value. Read statically with ast (never imported), per module of each package: every top-level or nested
class whose bases name an Enum type (Enum, IntEnum, StrEnum, Flag, IntFlag, or a class of the package that derives
from one: transformers' ExplicitEnum), and its members: assignments `NAME = <str | int | float | bool>` in the class
body (auto() and computed values are left out, and so is a class with none left).

Usage:
    python tools/gen_enum_values.py --site VENV/lib/python3.11/site-packages [--package NAME ...] [-o OUT]

Sources: the PyPI releases named in the header (https://pypi.org/project/<name>/).
"""

import argparse
import ast
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_enum_values.py"
NAME = "enum_values"
PACKAGES = ("torch", "accelerate", "transformers", "datasets", "deepspeed", "peft", "trl", "lightning",
            "pytorch_lightning", "torchmetrics", "vllm")
ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"}
MAX_VALUES = 200  # members kept per class
_DIST = re.compile(r"^([A-Za-z0-9_.-]+)-([\w.+!-]+)\.dist-info$")
_SKIP = re.compile(r"(?:^|/)(?:tests?|testing|examples|benchmarks?|_vendor)(?:/|$)")


def versions(site):
    """{normalised distribution name: version} from site-packages' *.dist-info folders."""
    out = {}
    for n in os.listdir(site):
        m = _DIST.match(n)
        if m:
            out[m.group(1).lower().replace("-", "_")] = m.group(2)
    return out


def _classes(tree):
    """Every class definition of a module, nested ones too."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            yield node


def _members(cls):
    out = []
    for st in cls.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            name, value = st.targets[0].id, st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            name, value = st.target.id, st.value
        else:
            continue
        if name.startswith("_") or not isinstance(value, ast.Constant):
            continue
        if isinstance(value.value, (str, int, float, bool)) and not isinstance(value.value, bytes):
            out.append([name, value.value])
    return out[:MAX_VALUES]


def read_package(root, pkg):
    """{class name: {"module": m, "members": [[name, value], ...]}} of one package's Enum classes."""
    found, bases = {}, {}
    trees = []
    for d, dirs, files in os.walk(os.path.join(root, pkg)):
        dirs.sort()
        rel_dir = os.path.relpath(d, root).replace(os.sep, "/")
        if _SKIP.search(rel_dir):
            dirs[:] = []
            continue
        for n in sorted(files):
            if not n.endswith(".py"):
                continue
            path = os.path.join(d, n)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    tree = ast.parse(f.read())
            except (SyntaxError, ValueError, OSError):
                continue
            module = (rel_dir + "/" + n[:-3]).replace("/", ".")
            if module.endswith(".__init__"):
                module = module[:-9]
            trees.append((module, tree))
            for c in _classes(tree):
                bases.setdefault(c.name, set()).update(filter(None, map(knowgen.ast_name, c.bases)))
    enums = set(ENUM_BASES)
    while True:  # classes of the package deriving from an Enum type (ExplicitEnum, then its subclasses)
        more = {n for n, b in bases.items() if n not in enums and b & enums}
        if not more:
            break
        enums |= more
    for module, tree in trees:
        for c in _classes(tree):
            if c.name in ENUM_BASES or not (set(filter(None, map(knowgen.ast_name, c.bases))) & enums):
                continue
            members = _members(c)
            if members and c.name not in found:
                found[c.name] = {"module": module, "members": members}
    return found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", required=True, help="a site-packages folder with the packages installed")
    ap.add_argument("--package", action="append", help="a package to read (default: %s)" % ", ".join(PACKAGES))
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    vers = versions(a.site)
    classes, read = {}, {}
    for pkg in a.package or PACKAGES:
        if not os.path.isdir(os.path.join(a.site, pkg)):
            continue
        version = vers.get(pkg) or vers.get(pkg.replace("_", "-")) or "?"
        read[pkg] = version
        for name, rec in sorted(read_package(a.site, pkg).items()):
            classes.setdefault(name, []).append(dict(rec, package=pkg, version=version))
    source = "the PyPI releases (https://pypi.org/project/<name>/): " + ", ".join(
        "%s %s" % kv for kv in sorted(read.items()))
    doc = {"header": knowgen.header(source, "%d Enum classes of %d packages" % (len(classes), len(read)), GENERATOR,
                                    "the members (name, value) of every Enum class of the training libraries, "
                                    "read with ast"),
           "sites": [],  # (no matcher of its own: explain/famfix.py reads the table)
           "packages": read, "classes": classes}
    path = a.out or knowgen.out_path(NAME)
    with knowgen.open_write(path) as f:
        json.dump(doc, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("%s: %d Enum classes (%s)" % (path, len(classes), ", ".join("%s %s" % kv for kv in sorted(read.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
