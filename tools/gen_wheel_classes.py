#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/wheel_classes.json: which distribution of the ML stack defines each
distinctive class name, read from the wheels' own Python files (issue 18 item 2, noanswer18).

An exception's line pasted alone ("AttributeError: 'DeepSpeedZeroOptimizer_Stage3' object has no attribute
'train'", "AssertionError: ... when using the OneForwardOneBackwardPipelineEngine") names no file, but a class its
message names is defined by one library: CPython's own wordings put the object's type name in the message
(Objects/object.c PyObject_GenericGetAttr: "'%.100s' object has no attribute '%U'", Objects/abstract.c: "'%.200s'
object is not subscriptable" ...), and a library's own checks name its classes. explain reads this table to name
that library (explicit.py): the class is the library's, so the error was met inside or against it.

Usage:
    python tools/gen_wheel_classes.py --wheels DIR [DIR ...] [--record SLICE] [-o OUT]
    python tools/gen_wheel_classes.py --slice tools/data/wheel_classes_slice.txt.gz -o OUT   (the test)

Source: the wheels on PyPI, fetched with pip's ordinary client (`pip download --no-deps --only-binary=:all: P`;
DeepSpeed publishes an sdist only: pip's own wheel built from it) into a cache outside the repository; every wheel
of a distribution of tools/gen_wheel_packages.py's STACK found in DIR is read (its read_wheel), each version: a class
an older release defined still names its library in that release's messages (torchao 0.8's
WeightWithDelayedFloat8CastTensor, gone from 0.18).
Every `class <Name>` statement of every .py file of the wheel's import packages (not its tests/, examples/ ..., nor
the code it vendors from another project: thirdparty/, _vendor/, tensorboard's tensorflow_stub/; nor a name the
interpreter's standard library defines) is read with a regex over the lines (a class statement starts a logical line:
Python's grammar). Kept: distinctive
names only (DISTINCT: at least MIN_LEN characters and three capitalised words, or a word joined by an underscore or a
digit: 'DeepSpeedZeroOptimizer_Stage3', 'WeightWithDelayedFloat8CastTensor'); a name two distributions define
('LlamaForCausalLM' is transformers', vLLM's and SGLang's) names none of them and is left out (the table never
guesses).

The slice records, per wheel, its distribution, version, file name and the distinctive class names read, so the
test regenerates the table without the wheels.
"""

import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_wheel_packages as wp  # noqa: E402
import knowgen  # noqa: E402

GENERATOR = "tools/gen_wheel_classes.py"
NAME = "wheel_classes"
MIN_LEN = 12
_CLASS = re.compile(r"^[ \t]{0,40}class[ \t]{1,8}(?P<name>[A-Za-z_]\w{2,100})[ \t]{0,8}[(:]", re.M)
_HUMP = re.compile(r"[A-Z][a-z0-9]+")
# a file of the wheel that is not its library's code: tests, examples, benchmarks shipped inside a package; another
# project's code it vendors (ray/_private/runtime_env/agent/thirdparty_files/aiohttp, ray/_private/thirdparty/pynvml,
# pip-style _vendor/) and tensorboard's copy of TensorFlow's classes (tensorboard/compat/tensorflow_stub/errors.py:
# InvalidArgumentError, ResourceExhaustedError ...): those classes are the other project's (review18)
_NOT_CODE = re.compile(r"(?:^|/)(?:tests?|testing|examples?|benchmarks?|docs?|scripts?|_?vendor(?:ed)?|"
                       r"_?third_?party(?:_files)?|tensorflow_stub)/|(?:^|/)test_[^/]*\.py$")


def stdlib_classes():
    """The class names the running interpreter's standard library defines (its Lib/ .py files, not its tests): a
    wheel's class of the same name is a copy (mpi4py's ThreadPoolExecutor, ray's SpooledTemporaryFile), which names
    no library (review18)."""
    import sysconfig

    root, out = sysconfig.get_paths()["stdlib"], set()
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("site-packages", "dist-packages", "test", "tests", "idlelib"))
        for n in files:
            if n.endswith(".py"):
                with open(os.path.join(d, n), encoding="utf-8", errors="replace") as f:
                    out.update(m.group("name") for m in _CLASS.finditer(f.read()))
    return out


def distinct(name):
    """Whether a class name is distinctive enough to name its library: MIN_LEN characters or more and three
    capitalised words ('OneForwardOneBackwardPipelineEngine'), or two joined by an underscore or digit
    ('DeepSpeedZeroOptimizer_Stage3'); not a test's class."""
    core = name.strip("_")
    if len(core) < MIN_LEN or core.startswith("Test") or core.endswith(("Test", "Tests", "TestCase")):
        return False
    humps = len(_HUMP.findall(core))
    return humps >= 3 or (humps >= 2 and bool(re.search(r"[a-z][_0-9]|[0-9_][A-Z]", core)))


def classes_of(path, pkgs, stdlib=frozenset()):
    """The distinctive class names the .py files of a wheel's import packages define (sorted), less ``stdlib``'s."""
    roots = {p.lstrip("~") for p in pkgs}
    out = set()
    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            if not n.endswith(".py") or n.split("/", 1)[0] not in roots and n[:-3] not in roots:
                continue
            if _NOT_CODE.search(n.split("/", 1)[-1]):
                continue
            text = z.read(n).decode("utf-8", "replace")
            out.update(m.group("name") for m in _CLASS.finditer(text) if distinct(m.group("name")))
    return sorted(out - stdlib)


def every(dirs):
    """The wheels of STACK distributions in the folders, by distribution and version."""
    found = []
    stack = {wp.canon(d) for d in wp.STACK}
    for d in dirs:
        for n in sorted(os.listdir(d)):
            m = wp._WHEEL.match(n)
            if m and wp.canon(m.group("dist")) in stack:
                found.append((wp.canon(m.group("dist")), wp._version_key(m.group("version")), os.path.join(d, n)))
    return [p for _, _, p in sorted(found, key=lambda x: (x[0], [str(v) for v in x[1]], x[2]))]


def build(rows):
    """The table from [(distribution, version, wheel file, [class names])]."""
    owners = {}
    for dist, _, _, names in rows:
        for c in names:
            owners.setdefault(c, set()).add(dist)
    classes = {c: next(iter(ds)) for c, ds in sorted(owners.items()) if len(ds) == 1}
    counts = {}
    for d in classes.values():
        counts[d] = counts.get(d, 0) + 1
    return {"header": knowgen.header(
                "the wheels on PyPI (https://pypi.org/project/<distribution>/, pip download --no-deps): the class "
                "statements of their import packages' .py files",
                ", ".join("%s %s" % (d, v) for d, v, _, _ in rows), GENERATOR,
                "generated by %s; do not edit by hand, run it again. classes: a distinctive class name -> the one "
                "distribution that defines it (names several define are left out: shared)" % GENERATOR),
            "sites": [],  # (no message sites: a table explain's explicit.py reads itself, knowledge.generated_table)
            "wheels": sorted(w for _, _, w, _ in rows),
            "counts": dict(sorted(counts.items())),
            "shared": sum(1 for ds in owners.values() if len(ds) > 1),
            "classes": classes}


def write_slice(path, rows):
    wp.write_slice(path, rows, "distinctive class names", "names", GENERATOR)


read_slice = wp.read_slice


def main(argv=None):
    a = wp.arguments(__doc__, NAME, argv)
    if a.slice:
        rows = read_slice(a.slice)
    else:
        rows, stdlib = [], stdlib_classes()
        for path in every(a.wheels):
            try:
                d, v, pkgs = wp.read_wheel(path)
                rows.append((d, v, os.path.basename(path), classes_of(path, pkgs, stdlib)))
            except (zipfile.BadZipFile, StopIteration) as e:  # a download cut short: say so, read the rest
                sys.stderr.write("skipped %s: %s\n" % (path, e or "no METADATA"))
    if a.record:
        write_slice(a.record, rows)
    doc = build(rows)
    import json

    with knowgen.open_write(a.out) as f:
        json.dump(doc, f, indent=0, sort_keys=False)
        f.write("\n")
    sys.stderr.write("%s: %d distributions, %d classes, %d shared\n" % (a.out, len(rows), len(doc["classes"]),
                                                                       doc["shared"]))


if __name__ == "__main__":
    main()
