#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/api_history.json: in which release of transformers, accelerate, peft, trl, datasets and safetensors each public name, and each field of the config / arguments classes scripts pass keywords to, arrived or left.

A script written for one release of a library of the training stack fails on another with
`ImportError: cannot import name 'X' from 'transformers.utils'`, `AttributeError: module
'accelerate.utils' has no attribute 'X'` or `TypeError: TrainingArguments.__init__() got an
unexpected keyword argument 'X'`. This table says in which release each name or keyword arrived
(and in which it left), so explain can answer "X left transformers in 4.X: pip install
'transformers<4.X'" (gpudoctor/explain/apihistory.py).

Usage:
    python tools/gen_api_history.py --wheels DIR [--download] [--record SLICE] [-o OUT]
    python tools/gen_api_history.py --slice tools/data/api_history_slice.txt -o OUT   (the test)

Source: the released wheels on PyPI, the first release of each minor line (X.Y.0, or X.Y.1 where
X.Y.0 is not on PyPI) from FIRST on, fetched with pip's ordinary client (`pip index versions P`, then
`pip download --no-deps --only-binary=:all: P==V` into DIR, a cache outside the repository; --download
fetches the ones DIR lacks). Each wheel is opened as a zip and its .py files are read with `ast`, never
imported (tools/gen_torch_api.py Sources: module-level def / class / assignment / import, `from x
import *` resolved through __all__, into if / try blocks, so transformers' `if TYPE_CHECKING:` imports,
which mirror its lazy _import_structure, are read too).

What is read from each release:
- names: the public names (no leading '_') bound at module level of each public module at most
  DEPTH dots deep (tests, private modules, transformers' per-model packages left out, but the modeling
  files of MODELING models kept);
- params: the keyword parameters of CLASSES: a dataclass's fields (its own and those of its bases in the
  same package), else its __init__'s parameters.
Only what appears or disappears within the releases read is kept (a name in every release, or in none,
says nothing about versions), each as [index of the first release that has it, index of the first
release after its last (null: still in the newest)], indices into the package's release list.
"""

import ast
import json
import os
import re
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
from gen_torch_api import Sources, _body_nodes, _key  # noqa: E402

GENERATOR = "tools/gen_api_history.py"
SOURCE = ("the wheels on PyPI (pip download --no-deps) of transformers, accelerate, peft, trl, datasets and "
          "safetensors, the first release of each minor line, their .py files read with ast")
# the oldest minor line read per package (older ones predate the APIs scripts on clusters use today)
FIRST = {"transformers": (4, 20), "accelerate": (0, 10), "peft": (0, 2), "trl": (0, 4), "datasets": (2, 0),
         "safetensors": (0, 3)}
# transformers releases a minor line every few weeks and reading one takes ~30 s: every STEP-th line is read (and
# the newest), so its spans are "by release B" rather than "in release B" (the answer still names a release that
# has the name)
STEP = {"transformers": 3}
DEPTH = 3  # transformers.utils.import_utils: 3 parts
# transformers.models.<m>.modeling_<m> of the models scripts patch most (attention classes, rotary helpers)
MODELING = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen2_vl", "qwen3", "gemma", "gemma2", "phi3",
            "gpt2", "gpt_neox", "opt", "bert", "t5", "falcon", "bloom", "whisper", "clip", "llava")
SKIP = re.compile(r"(?:^|\.)(?:_|tests?(?:\.|$)|testing_utils|benchmarks?|examples?|commands(?:\.|$)|"
                  r"dummy_|convert_)")
# (package, class, modules that may define it: searched in order, the first that defines it wins)
CLASSES = [
    ("transformers", "TrainingArguments", ["transformers.training_args"]),
    ("transformers", "Seq2SeqTrainingArguments", ["transformers.training_args_seq2seq"]),
    ("transformers", "Trainer", ["transformers.trainer"]),
    ("transformers", "BitsAndBytesConfig", ["transformers.utils.quantization_config"]),
    ("accelerate", "Accelerator", ["accelerate.accelerator"]),
    ("accelerate", "DeepSpeedPlugin", ["accelerate.utils.dataclasses"]),
    ("accelerate", "FullyShardedDataParallelPlugin", ["accelerate.utils.dataclasses"]),
    ("peft", "LoraConfig", ["peft.tuners.lora.config", "peft.tuners.lora"]),
    ("peft", "PeftConfig", ["peft.config", "peft.utils.config"]),
    ("trl", "SFTConfig", ["trl.trainer.sft_config"]),
    ("trl", "DPOConfig", ["trl.trainer.dpo_config"]),
    ("trl", "GRPOConfig", ["trl.trainer.grpo_config"]),
    ("trl", "PPOConfig", ["trl.trainer.ppo_config"]),
    ("trl", "RewardConfig", ["trl.trainer.reward_config"]),
    ("trl", "SFTTrainer", ["trl.trainer.sft_trainer"]),
    ("trl", "DPOTrainer", ["trl.trainer.dpo_trainer"]),
    ("trl", "GRPOTrainer", ["trl.trainer.grpo_trainer"]),
    ("datasets", "load_dataset", ["datasets.load"]),
]


def tracked(mod, pkg):
    """Whether the public names of module ``mod`` are recorded."""
    rest = mod[len(pkg) + 1:] if mod != pkg else ""
    if rest and SKIP.search(rest):
        return False
    parts = mod.split(".")
    if mod == "transformers.models":  # star-imports every model: the same names as `transformers` itself
        return False
    if pkg == "transformers" and len(parts) >= 3 and parts[1] == "models" and parts[2] != "auto":
        return len(parts) == 4 and parts[2] in MODELING and parts[3] == "modeling_" + parts[2]
    return len(parts) <= DEPTH


def _is_dataclass(cls):
    for d in cls.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        if (isinstance(f, ast.Name) and f.id == "dataclass") or (isinstance(f, ast.Attribute) and f.attr == "dataclass"):
            return True
    return False


def _classes(src, mods):
    """{name: ClassDef} of the top-level classes of ``mods``."""
    out = {}
    for mod in mods:
        got = src.tree(mod)
        if got is None:
            continue
        for node in _body_nodes(got[0].body):
            if isinstance(node, ast.ClassDef):
                out.setdefault(node.name, node)
    return out


def _fields(cls, index, depth=0):
    """The keyword parameters of class ``cls``: a dataclass's fields, its bases' first (by name in ``index``),
    else its __init__'s parameters; (names, takes **kwargs)."""
    names, varkw = [], False
    if _is_dataclass(cls):
        for b in cls.bases:
            base = index.get(b.id if isinstance(b, ast.Name) else getattr(b, "attr", None))
            if base is not None and base is not cls and depth < 6:
                got, vk = _fields(base, index, depth + 1)
                names += [n for n in got if n not in names]
                varkw = varkw or vk
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                    not node.target.id.startswith("_") and "ClassVar" not in ast.dump(node.annotation):
                if node.target.id not in names:
                    names.append(node.target.id)
        return names, varkw
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__init__":
            a = node.args
            names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs][1:]
            return names, a.kwarg is not None
    return None, False


class FastSources(Sources):
    """Sources whose `from m import *` reads m's literal __all__ without parsing the whole of m (transformers 5's
    `from .models import *` reaches every modeling file: parsing them all takes minutes a release)."""

    _ALL = re.compile(r"^__all__\s*=\s*(\[[^\]]{0,200000}\]|\([^)]{0,200000}\))", re.M)

    def public(self, mod, depth=0):
        got = self.text.get(mod)
        if got is not None and mod not in self._trees:
            m = self._ALL.search(got[0])
            if m and "__all__ +=" not in got[0] and "__all__.extend" not in got[0]:
                try:
                    return set(ast.literal_eval(m.group(1)))
                except (ValueError, SyntaxError):
                    pass
        return Sources.public(self, mod, depth)


def extract(pkg, files):
    """What one release of ``pkg`` holds: {"names": {module: [...]}, "params": {class: [...]}}."""
    src = FastSources(files)
    names = {}
    for mod in sorted(src.text):
        if mod == pkg or mod.startswith(pkg + ".") and tracked(mod, pkg):
            if src.tree(mod) is not None:
                names[mod] = sorted(n for n in src.names(mod) if not n.startswith("_"))
    params = {}
    for p, cls, mods in CLASSES:
        if p != pkg:
            continue
        for mod in mods:
            got = src.tree(mod)
            if got is None:
                continue
            node = None
            for n in _body_nodes(got[0].body):
                if getattr(n, "name", None) == cls and isinstance(n, (ast.ClassDef, ast.FunctionDef)):
                    node = n
            if node is None:
                continue
            if isinstance(node, ast.FunctionDef):
                a = node.args
                params[cls] = sorted(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
            else:
                # bases defined in the same package (Seq2SeqTrainingArguments(TrainingArguments)), looked up in the
                # modules CLASSES names for it
                index = _classes(src, [mod] + [m for q, _, ms in CLASSES if q == pkg for m in ms])
                got_f, _ = _fields(node, index)
                if got_f is not None:
                    params[cls] = sorted(got_f)
            break
    return {"names": names, "params": params}


# --------------------------------------------------------------------------- the table

def _span(present, releases):
    idx = [i for i, r in enumerate(releases) if r in present]
    first, last = idx[0], idx[-1]
    return [first, last + 1 if last + 1 < len(releases) else None]


def _enc(spans):
    """{name: [first, after-last or None]} as one string, 'name=first-afterlast' (after-last empty: still in the
    newest), space-separated: explain loads every generated file when it starts, and one string per module parses
    in a fraction of the time that thousands of small lists take (gpudoctor/explain/apihistory.py decodes it)."""
    return " ".join("%s=%d-%s" % (n, a, "" if b is None else b) for n, (a, b) in sorted(spans.items()))


def build(per_pkg, version):
    """per_pkg: {package: {release: extract()}}."""
    out = {}
    for pkg, per in sorted(per_pkg.items()):
        releases = sorted(per, key=_key)
        names, params, mods = {}, {}, {}
        for r in releases:
            for mod, ns in per[r]["names"].items():
                mods.setdefault(mod, set()).add(r)
                for n in ns:
                    names.setdefault(mod, {}).setdefault(n, set()).add(r)
            for cls, ps in per[r]["params"].items():
                for n in ps:
                    params.setdefault(cls, {}).setdefault(n, set()).add(r)
        full = len(releases)
        named = {m: {n: _span(rs, releases) for n, rs in sorted(ns.items()) if len(rs) < full and len(rs) < len(mods[m])}
                 for m, ns in sorted(names.items())}
        out[pkg] = {
            "releases": releases,
            "modules": _enc({m: _span(rs, releases) for m, rs in sorted(mods.items())}),
            # a module whose names never change within the releases that have it says nothing: kept as a module only
            "names": {m: _enc(ns) for m, ns in named.items() if ns},
            "params": {},
        }
        # a class's fields: only those that change, plus the releases the class is read in
        for c, ps in sorted(params.items()):
            seen = sorted(set().union(*ps.values()), key=_key)
            out[pkg]["params"][c] = {"read": [releases.index(seen[0]), releases.index(seen[-1])],
                                     "args": _enc({n: _span(rs, releases) for n, rs in sorted(ps.items())
                                                   if len(rs) < len(seen)})}
    note = ("generated by %s; do not edit by hand, run it again. Per package: releases read (oldest first); "
            "modules: 'module=first-afterlast ...' for each module whose names are recorded; names: per "
            "module, only the names that appear or disappear within those releases, 'name=first-afterlast ...' "
            "(first: index of the first release with it; afterlast: of the first release after its last, empty: "
            "still in the newest); params: per class, read: [first, last] release index it is found in, args: "
            "its keyword fields that change, encoded the same way"
            % GENERATOR)
    return {"header": knowgen.header(SOURCE, version, GENERATOR, note), "packages": out}


def write(doc, out):
    path = out or os.path.join(knowgen.OUT_DIR, "api_history.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        # one line per module / class: small, and a regeneration diffs line by line
        # "sites": none (explain loads every generated file as message sites: gpudoctor/explain/knowledge.py)
        f.write('{"header": %s,\n"sites": [],\n"packages": {\n' % json.dumps(doc["header"], sort_keys=True))
        pk = sorted(doc["packages"].items())
        for i, (pkg, d) in enumerate(pk):
            f.write('%s: {"releases": %s,\n"modules": %s,\n"params": {\n' % (
                json.dumps(pkg), json.dumps(d["releases"]), json.dumps(d["modules"], separators=(",", ":"))))
            f.write(",\n".join("%s: %s" % (json.dumps(c), json.dumps(v, separators=(",", ":")))
                               for c, v in sorted(d["params"].items())))
            f.write('},\n"names": {\n')
            f.write(",\n".join("%s: %s" % (json.dumps(m), json.dumps(v, separators=(",", ":")))
                               for m, v in sorted(d["names"].items())))
            f.write("}}%s\n" % ("," if i < len(pk) - 1 else ""))
        f.write("}}\n")
    return path


# --------------------------------------------------------------------------- the record (slice)

def write_record(path, version, rows):
    """rows: [(package, release, wheel, extract())]; per package the first release whole, then what each adds
    (n+) and drops (n-) against the one before."""
    with open(path, "w") as f:
        f.write("# Recorded by tools/gen_api_history.py --record: per package release, the wheel read, then the public\n"
                "# names of each tracked module (n <module> <names>; after the first release n+/n- add and drop and\n"
                "# n- <module> drops the module) and the keyword fields of CLASSES (p <class> <names>).\n")
        f.write("#! version %s\n" % version)
        prev = {}
        for pkg, release, wheel, got in rows:
            f.write("#! release %s %s %s\n" % (pkg, release, wheel))
            before = prev.get(pkg)
            for mod in sorted(set(got["names"]) | set(before["names"] if before else ())):
                now = set(got["names"].get(mod, ()))
                if before is None or mod not in before["names"]:
                    f.write("n %s %s\n" % (mod, " ".join(sorted(now))))
                elif mod not in got["names"]:
                    f.write("n- %s\n" % mod)
                else:
                    old = set(before["names"][mod])
                    for sign, items in (("+", sorted(now - old)), ("-", sorted(old - now))):
                        if items:
                            f.write("n%s %s %s\n" % (sign, mod, " ".join(items)))
            for cls, ps in sorted(got["params"].items()):
                f.write("p %s %s\n" % (cls, " ".join(ps)))
            prev[pkg] = got


def from_slice(path):
    per, version, cur, prev = {}, "slice", None, {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! version "):
                version = line[len("#! version "):].strip()
            elif line.startswith("#! release "):
                _, _, pkg, release = line.split()[:4]
                before = prev.get(pkg)
                cur = {"names": {m: list(ns) for m, ns in before["names"].items()} if before else {}, "params": {}}
                per.setdefault(pkg, {})[release] = cur
                prev[pkg] = cur
            elif cur is None or not line or line.startswith("#"):
                continue
            else:
                parts = line.split()
                kind, what, items = parts[0], parts[1], parts[2:]
                if kind == "n":
                    cur["names"][what] = items
                elif kind == "n+":
                    cur["names"][what] = sorted(set(cur["names"].get(what, ())) | set(items))
                elif kind == "n-" and items:
                    cur["names"][what] = sorted(set(cur["names"].get(what, ())) - set(items))
                elif kind == "n-":
                    cur["names"].pop(what, None)
                elif kind == "p":
                    cur["params"][what] = items
    return per, version


# --------------------------------------------------------------------------- the wheels

def releases_of(pkg):
    """The first release of each minor line from FIRST[pkg] on, as `pip index versions` lists them."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", pkg], capture_output=True, text=True,
                         timeout=120).stdout
    m = re.search(r"Available versions: (.*)", out)
    if not m:
        raise SystemExit("pip index versions %s: no versions" % pkg)
    best = {}
    for v in m.group(1).split(", "):
        if re.fullmatch(r"\d+\.\d+\.\d+", v):
            k = _key(v)
            if k[:2] >= FIRST[pkg] and (k[:2] not in best or k < best[k[:2]]):
                best[k[:2]] = k
    keys = sorted(best)
    step = STEP.get(pkg, 1)
    keys = [k for i, k in enumerate(keys) if i % step == 0 or i == len(keys) - 1]
    return [".".join(map(str, best[k])) for k in keys]


def _wheel(d, pkg, release):
    for name in sorted(os.listdir(d)):
        if name.startswith("%s-%s-" % (pkg, release)) and name.endswith(".whl"):
            return os.path.join(d, name)
    return None


def _read(job):
    pkg, release, path = job
    with zipfile.ZipFile(path) as z:
        files = [(n, z.read(n).decode("utf-8", "replace")) for n in z.namelist()
                 if n.startswith(pkg + "/") and n.endswith(".py")]
    print("read %s" % os.path.basename(path), file=sys.stderr)
    return extract(pkg, files)


def from_wheels(d, download, record=None, jobs=2):
    from concurrent.futures import ProcessPoolExecutor

    per, rows, todo = {}, [], []
    for pkg in sorted(FIRST):
        for release in releases_of(pkg):
            path = _wheel(d, pkg, release)
            if path is None and download:
                subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                                "--python-version", "3.11", "--platform", "manylinux2014_x86_64", "-d", d,
                                "%s==%s" % (pkg, release)], timeout=600)
                path = _wheel(d, pkg, release)
            if path is None:
                print("skipped %s %s: no wheel" % (pkg, release), file=sys.stderr)
                continue
            todo.append((pkg, release, path))
    with ProcessPoolExecutor(jobs) as pool:
        for (pkg, release, path), got in zip(todo, pool.map(_read, todo)):
            per.setdefault(pkg, {})[release] = got
            rows.append((pkg, release, os.path.basename(path), got))
    version = "; ".join("%s %d releases %s to %s" % (p, len(v), min(v, key=_key), max(v, key=_key))
                        for p, v in sorted(per.items()))
    if record:
        write_record(record, version, rows)
    return per, version


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheels", source_opts={"help": "the folder of cached wheels"},
                          extra=[("--record", {"help": "write what was read as a slice (with --wheels)"}),
                                 ("--download", {"action": "store_true",
                                                 "help": "pip download the wheels the folder lacks"})])
    per, version = from_wheels(a.wheels, a.download, a.record) if a.wheels else from_slice(a.slice)
    if not per:
        a.error("no release read")
    doc = build(per, version)
    path = write(doc, a.out)
    print("%s: %s; %d bytes" % (path, ", ".join("%s %d names %d params" % (
        p, sum(len(v.split()) for v in d["names"].values()), sum(len(v["args"].split()) for v in d["params"].values()))
        for p, d in sorted(doc["packages"].items())), os.path.getsize(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
