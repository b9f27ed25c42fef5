#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/vllm_pp.json: which model architectures each vLLM release runs with
pipeline parallelism, so that vLLM's refusal

    NotImplementedError: Pipeline parallelism is not supported for this model. Supported models implement the
    `SupportsPP` interface.

(vllm/config.py, later vllm/config/model.py, ModelConfig.verify_with_parallel_config: `if not self.registry.
is_pp_supported_model(architectures)`) can name the release that added it for the model in the log.

Read from each release's wheel with Python's `ast`, never imported:
- vllm/model_executor/models/registry.py (0.6.1 and later; `__init__.py` before): every module-level dict of
  architecture -> (module, class) (_TEXT_GENERATION_MODELS, _MULTIMODAL_MODELS, ...): the name in the model's
  config.json `architectures`, which vLLM's log prints ("Resolved architecture: ...", "architectures=[...]");
- vllm/model_executor/models/**/*.py (and vllm/models/**/*.py, which later registries name by a dotted path): each
  class and its bases; a class supports pipeline parallelism when
  SupportsPP is among its ancestors (vllm/model_executor/models/interfaces.py; is_pp_supported_model checks
  supports_pp on the class the registry names);
- before SupportsPP (0.5.x, 0.6.0): vllm/config.py's _PP_SUPPORTED_MODELS list of architectures.

Usage:
    pip download --no-deps --only-binary :all: vllm==X -d DIR   (each release; the table read 0.5.2, 0.6.0,
        0.6.3.post1, 0.7.0, 0.8.0, 0.9.0, 0.10.0, 0.11.0, 0.13.0, 0.17.0 and 0.33.0: the first of each minor
        release a cache held, and the latest)
    python tools/gen_vllm_pp.py --wheels DIR [--record] [-o OUT]
    python tools/gen_vllm_pp.py --slice tools/data/vllm_pp_slice.txt -o OUT   (the test)

Source: vllm (https://pypi.org/project/vllm/, Apache-2.0; https://github.com/vllm-project/vllm,
vllm/model_executor/models/). Pipeline parallelism: https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html
("Pipeline parallelism ... Supported models implement the SupportsPP interface").
"""

import ast
import glob
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_vllm_pp.py"
NAME = "vllm_pp"
SLICE = os.path.join(knowgen.DATA, NAME + "_slice.txt")
MODELS = "vllm/model_executor/models/"
NEW_MODELS = "vllm/models/"  # models the registry names by a dotted path ("vllm.models.minimax_m3", 0.3x)
# the architectures whose facts --record keeps (the tests' texts name them)
RECORD = ("Llama4ForConditionalGeneration", "LlamaForCausalLM", "Qwen2VLForConditionalGeneration",
          "MllamaForConditionalGeneration", "DeepseekV2ForCausalLM")


def _vt(v):
    return tuple(int(x) for x in re.findall(r"\d+", v))


def facts_of_wheel(path):
    """(release, {arch: (module, class)}, {class: [bases]}, [listed archs]) of one vllm wheel."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta = next((n for n in names if re.match(r"vllm-[^/]+\.dist-info/METADATA$", n)), None)
        # the METADATA's Version, else the wheel's file name (its second field: PEP 427)
        release = re.search(r"^Version:\s*(\S+)", z.read(meta).decode(), re.M).group(1) if meta else \
            os.path.basename(path).split("-")[1]
        registry, classes, listed = {}, {}, []
        for n in sorted(names):
            if not ((n.startswith(MODELS) or n.startswith(NEW_MODELS)) and n.endswith(".py")):
                continue
            try:
                tree = ast.parse(z.read(n).decode("utf-8", "replace"))
            except SyntaxError:
                continue
            # the registry names a module of models/ by its name ('llama'), one elsewhere by its dotted path
            mod = n[len(MODELS):-3].replace("/", ".") if n.startswith(MODELS) else n[:-3].replace("/", ".")
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else None
                             for b in node.bases]
                    classes.setdefault("%s:%s" % (mod, node.name), [b for b in bases if b])
            if mod in ("registry", "__init__"):
                for node in tree.body:
                    if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
                        for k, v in zip(node.value.keys, node.value.values):
                            if isinstance(k, ast.Constant) and isinstance(k.value, str) and \
                                    isinstance(v, ast.Tuple) and len(v.elts) >= 2 and \
                                    all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in v.elts[:2]):
                                registry.setdefault(k.value, (v.elts[0].value, v.elts[1].value))
        if "vllm/config.py" in names:
            m = re.search(r"^_PP_SUPPORTED_MODELS\s*=\s*\[([^\]]{0,20000})\]", z.read("vllm/config.py").decode(), re.M)
            if m:
                listed = re.findall(r'"([A-Za-z0-9_]+)"', m.group(1))
    return release, registry, classes, listed


def supports(registry, classes, listed):
    """The architectures of one release that run with pipeline parallelism."""
    if listed:
        return sorted(a for a in listed if a in registry)
    by_name = {}
    for key, bases in classes.items():
        by_name.setdefault(key.split(":", 1)[1], []).append(bases)

    memo = {}

    def pp(name, depth=0):
        if name == "SupportsPP":
            return True
        if name in memo or depth > 30:
            return memo.get(name, False)
        memo[name] = False
        memo[name] = any(pp(b, depth + 1) for bl in by_name.get(name, ()) for b in bl)
        return memo[name]

    out = []
    for arch, (mod, cls) in registry.items():
        bases = classes.get("%s:%s" % (mod, cls))
        if bases is None:  # a package (vllm.models.minimax_m3): the class in one of its modules
            bases = next((b for k, b in sorted(classes.items()) if k.startswith(mod + ".") and k.endswith(":" + cls)),
                         None)
        if bases is not None and any(pp(b) for b in bases):
            out.append(arch)
    return sorted(out)


def build(per_release, version):
    releases = sorted(per_release, key=_vt)
    archs = {}
    for r in releases:
        registry, classes, listed = per_release[r]
        have = set(supports(registry, classes, listed))
        for a in registry:
            archs.setdefault(a, {"known": [], "pp": []})
            archs[a]["known"].append(r)
            if a in have:
                archs[a]["pp"].append(r)
    table = {}
    for a, d in sorted(archs.items()):
        first_pp = d["pp"][0] if d["pp"] else None
        # the release before the first with pipeline parallelism in which vLLM already knew the architecture
        before = [r for r in d["known"] if first_pp and _vt(r) < _vt(first_pp)]
        table[a] = {"first_known": d["known"][0], "last_known": d["known"][-1], "first_pp": first_pp,
                    "last_without": before[-1] if before else None, "pp_latest": releases[-1] in d["pp"]}
    return {"header": knowgen.header("vllm (https://pypi.org/project/vllm/) wheels: vllm/model_executor/models/ "
                                     "registry and model classes (SupportsPP), vllm/config.py _PP_SUPPORTED_MODELS",
                                     version, GENERATOR,
                                     "per architecture: the first release read that knows it, the first with "
                                     "pipeline parallelism and the last release read without it"),
            "releases": releases, "architectures": table, "sites": []}


def from_wheels(d):
    per, paths = {}, sorted(glob.glob(os.path.join(d, "vllm-*.whl")))
    for p in paths:
        release, registry, classes, listed = facts_of_wheel(p)
        per[release] = (registry, classes, listed)
    return per, "vllm " + ", ".join(sorted(per, key=_vt))


def write_record(path, per, version):
    """The slice: for each release, the registry rows, class rows and list rows of the RECORD architectures (their
    classes and every ancestor class the release's models define)."""
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: per release, the registry rows (arch module class), the class rows\n"
                "# (module:class bases) on the RECORD architectures' class chains and _PP_SUPPORTED_MODELS rows.\n"
                "#! version %s\n" % (GENERATOR, version))
        for r in sorted(per, key=_vt):
            registry, classes, listed = per[r]
            by_name = {}
            for key, bases in classes.items():
                by_name.setdefault(key.split(":", 1)[1], []).append((key, bases))
            f.write("=== %s\n" % r)
            todo, done = [], set()
            for a in RECORD:
                if a in registry:
                    f.write("registry\t%s\t%s\t%s\n" % (a, registry[a][0], registry[a][1]))
                    todo.append(registry[a][1])
                if a in listed:
                    f.write("list\t%s\n" % a)
            while todo:
                name = todo.pop()
                if name in done:
                    continue
                done.add(name)
                for key, bases in by_name.get(name, ()):
                    f.write("class\t%s\t%s\n" % (key, ",".join(bases)))
                    todo.extend(bases)


def from_slice(path):
    per, version, cur = {}, "slice", None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! version "):
                version = line[len("#! version "):]
            elif line.startswith("=== "):
                cur = per.setdefault(line[4:], ({}, {}, []))
            elif cur is not None and line and not line.startswith("#"):
                row = line.split("\t")
                if row[0] == "registry":
                    cur[0][row[1]] = (row[2], row[3])
                elif row[0] == "class":
                    cur[1][row[1]] = [b for b in row[2].split(",") if b]
                elif row[0] == "list":
                    cur[2].append(row[1])
    return per, version


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheels", extra=[
        ("--record", {"action": "store_true", "help": "write the slice (%s)" % SLICE})])
    per, version = from_wheels(a.wheels) if a.wheels else from_slice(a.slice)
    doc = build(per, version)
    if a.wheels and a.record:
        write_record(SLICE, per, version)
    return knowgen.emit(NAME, doc, a.out, what="architectures' sites")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
