#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/py_messages.json: which Python distribution of the ML stack holds the
words of a failure message, read with ast from the distributions' own Python files over several releases (issue 18
item 2, pymsg19).

A Python library's message pasted alone ('RuntimeError: <message>', or one line quoted from a thread, often cut)
keeps neither its traceback nor its logger's prefix: only its words are left, and they are the library's own string
literal. tools/gen_source_messages.py reads C / C++ / Go projects' literals; this reads the Python stack's: every
`raise X(<msg>)`, `assert c, <msg>`, logger./logging.error / .critical ('error') and .warning / warnings.warn
('warning') of every .py file of each release (knowgen.py_messages: a str constant, an f-string, a '%'-format, a
'.format' string or a '+' of them, each replacement field a conversion), cut at its conversions into fragments, each
fragment of at least MIN_WORDS words and MIN_CHARS characters kept (lower case, blanks folded): fragment ->
[distribution, level, module, the releases read that hold it]. The level is the strongest the distribution prints
it at (raise > error > warning): a warning's words answer only a line already at error level (a run goes past a
warning). Releases of one distribution are unioned (messages change between releases: vLLM 0.5 / 0.6's are gone in
0.8), and the table names the releases read, so explain can say where a message is from.

Usage:
    python tools/gen_py_messages.py --source PATH [PATH ...] [--record SLICE] [-o OUT]
        PATH: a wheel (.whl), an sdist (.tar.gz), or SITE_PACKAGES::DIST (an installed distribution, its RECORD)
    python tools/gen_py_messages.py --slice tools/data/py_messages_slice.txt.gz -o OUT   (the test)

Source: the wheels / sdists on PyPI (https://pypi.org/project/<distribution>/), fetched with pip's ordinary client
(`pip download --no-deps --only-binary=:all:`; DeepSpeed publishes sdists only) into a cache outside the repository,
and the installed torch / accelerate / peft / lightning / transformers of a venv. Not read: tests, examples,
benchmarks, vendored code (gen_wheel_classes' _NOT_CODE), torch's files outside TORCH_KEEP, and the per-model files
of transformers' models/ and vLLM's model_executor/models/ (each model copies the same checks: 'Copied from').
"""

import argparse
import os
import re
import sys
import tarfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_source_messages as gsm  # noqa: E402
import gen_wheel_classes as gwc  # noqa: E402
import knowgen  # noqa: E402

GENERATOR = "tools/gen_py_messages.py"
NAME = "py_messages"
MIN_WORDS = 5
MIN_CHARS = 28
RANK = {"raise": 0, "error": 1, "warning": 2}
# the distribution a top-level import package is read for (a wheel holds others: vendored copies, its tests)
TOPS = {"vllm": ("vllm",), "deepspeed": ("deepspeed",), "transformers": ("transformers",),
        "accelerate": ("accelerate",), "trl": ("trl",), "peft": ("peft",), "lightning": ("lightning",),
        "pytorch-lightning": ("pytorch_lightning",), "datasets": ("datasets",), "torch": ("torch",)}
# per-model copies in transformers (models/<name>/modeling_*.py ...): the same checks, copied ('# Copied from'),
# which would grow the table by thousands of fragments naming one model each
_SKIP = re.compile(r"^transformers/models/[^/]+/|^vllm/model_executor/models/")
# torch's Python files read: the parts a training / serving run on GPUs reaches whose messages the stack's threads
# quote (distributed, CUDA, AMP, data loading, checkpoints, DDP / FSDP, compile); its other subpackages' messages
# (onnx, ao, fx, jit, _refs / _prims / _decomp, testing) would double the table and are the other torch tables'
TORCH_KEEP = re.compile(r"^torch/(?:distributed|cuda|amp|utils/data|utils/checkpoint\.py|nn/parallel|_dynamo|"
                        r"serialization\.py|multiprocessing|backends/cuda|nn/modules/module\.py)")


def fragments(fmt):
    """The fragments of a message format worth looking up (gen_source_messages' cut, no failure word needed: a raised
    or logged message is a failure by where it is; a backquote is lost at the ends too)."""
    return gsm.cut(fmt, gsm.STRIP + "`")


def _files(path):
    """(distribution, version, [(path in the package, bytes)]) of one wheel / sdist / SITE::DIST."""
    if "::" in path:
        site, dist = path.split("::", 1)
        info = next(n for n in os.listdir(site) if n.lower().startswith(dist.replace("-", "_").lower() + "-") and
                    n.endswith(".dist-info"))
        version = info[len(dist) + 1:-len(".dist-info")].split("+", 1)[0]
        with open(os.path.join(site, info, "RECORD"), encoding="utf-8") as f:
            rels = [line.split(",", 1)[0] for line in f if line.split(",", 1)[0].endswith(".py")]
        out = []
        for rel in rels:
            try:
                with open(os.path.join(site, rel), "rb") as f:
                    out.append((rel, f.read()))
            except OSError:
                continue
        return gwc.wp.canon(dist), version, out
    name = os.path.basename(path)
    if name.endswith(".whl"):
        dist, version = name.split("-")[:2]
        with zipfile.ZipFile(path) as z:
            return gwc.wp.canon(dist), version, [(n, z.read(n)) for n in z.namelist() if n.endswith(".py")]
    m = re.match(r"^(?P<dist>.+?)-(?P<version>\d[^-]*)\.tar\.gz$", name)
    out = []
    with tarfile.open(path) as t:
        for member in t.getmembers():
            if member.isfile() and member.name.endswith(".py"):
                out.append((member.name.split("/", 1)[1] if "/" in member.name else member.name,
                            t.extractfile(member).read()))
    return gwc.wp.canon(m.group("dist")), m.group("version"), out


def read_source(path):
    """(distribution, version, {fragment: (level, module)}) of one release."""
    dist, version, files = _files(path)
    tops = TOPS.get(dist, (dist.replace("-", "_"),))
    got = {}
    for rel, data in sorted(files):
        if rel.split("/", 1)[0] not in tops or gwc._NOT_CODE.search(rel) or _SKIP.search(rel) or (
                dist == "torch" and not TORCH_KEEP.search(rel)):
            continue
        for level, _line, fmt in knowgen.py_messages(data.decode("utf-8", "replace")):
            for fr in fragments(fmt):
                old = got.get(fr)
                if old is None or RANK[level] < RANK[old[0]]:
                    got[fr] = (level, rel)
    return dist, version, got


def union(releases):
    """{dist: {fragment: [level, module, [versions]]}}, {dist: [versions read, oldest first]}."""
    table, versions = {}, {}
    for dist, version, got in releases:
        versions.setdefault(dist, []).append(version)
        per = table.setdefault(dist, {})
        for fr, (level, mod) in got.items():
            row = per.setdefault(fr, [level, mod, []])
            if RANK[level] < RANK[row[0]]:
                row[0], row[1] = level, mod
            row[2].append(version)
    for dist in versions:
        versions[dist] = sorted(set(versions[dist]), key=knowgen_version)
        for row in table[dist].values():
            row[2] = sorted(set(row[2]), key=knowgen_version)
    return table, versions


def knowgen_version(v):
    return tuple(int(x) if x.isdigit() else -1 for x in re.split(r"[.+-]", v)[:4])


def write_slice(path, table, versions):
    with knowgen.open_write(path) as f:
        f.write("# the failure fragments of the Python stack's releases read by %s: '#! dist NAME VERSION ...' "
                "(the releases read), then 'level\\tmodule\\tversions\\tfragment' a line\n" % GENERATOR)
        for dist in sorted(table):
            f.write("#! dist %s %s\n" % (dist, " ".join(versions[dist])))
            for fr, (level, mod, vs) in sorted(table[dist].items()):
                f.write("%s\t%s\t%s\t%s\n" % (level, mod, " ".join(vs), fr))


def read_slice(path):
    table, versions, cur = {}, {}, None
    with knowgen.open_text(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! dist "):
                parts = line[len("#! dist "):].split()
                cur = parts[0]
                versions[cur] = parts[1:]
                table[cur] = {}
            elif line and not line.startswith("#") and cur is not None:
                level, mod, vs, fr = line.split("\t", 3)
                table[cur][fr] = [level, mod, vs.split()]
    return table, versions


def build(table, versions):
    frs = {}
    for dist in sorted(table):
        for fr, (level, mod, vs) in table[dist].items():
            frs.setdefault(fr, []).append([dist, level, mod, " ".join(vs)])
    return {"header": knowgen.header(
        "the Python files of the ML stack's releases on PyPI (https://pypi.org/project/<distribution>/): " +
        ", ".join(sorted(versions)),
        "; ".join("%s %s" % (d, ", ".join(versions[d])) for d in sorted(versions)), GENERATOR,
        "fragments: a raised / asserted / logged message's text between its conversions (lower case, blanks "
        "folded) -> [distribution, level (raise / error / warning), module, the releases read that hold it]"),
        "sites": [], "versions": {d: versions[d] for d in sorted(versions)},
        "fragments": {fr: rows for fr, rows in sorted(frs.items())}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", nargs="+", help="wheels, sdists, SITE_PACKAGES::DIST")
    ap.add_argument("--slice", help="regenerate from a recorded slice instead")
    ap.add_argument("--record", help="write the slice of what was read here")
    ap.add_argument("-o", "--out", default=knowgen.out_path(NAME))
    a = ap.parse_args(argv)
    if bool(a.source) == bool(a.slice):
        ap.error("give --source or --slice")
    if a.source:
        table, versions = union([read_source(p) for p in a.source])
    else:
        table, versions = read_slice(a.slice)
    if a.record:
        write_slice(a.record, table, versions)
    doc = build(table, versions)
    path = knowgen.write(NAME, doc, a.out)
    print("%s: %d fragments of %d distributions" % (path, len(doc["fragments"]), len(doc["versions"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
