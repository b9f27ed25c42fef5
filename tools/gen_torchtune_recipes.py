#!/usr/bin/env python3
"""Generate gpudoctor/launch/flags/torchtune_recipes.json: torchtune's built-in recipe registry (`tune ls`), read
from the torchtune package itself, so `plan`'s reading of `tune run RECIPE` (gpudoctor/launch/torchtune.py) is data
taken from torchtune's source, not a hand copy (launch26; round 6 copied it by hand from the git tree).

torchtune/_recipe_registry.py holds `_ALL_RECIPES = [Recipe(name=..., file_path=..., configs=[Config(name=...,
file_path=...), ...], supports_distributed=...), ...]`. It is read statically with ast from the wheel (never
imported: torchtune needs torch): each Recipe's name, supports_distributed and its configs' names. `tune run` refuses
a built-in recipe that does not support distributed training when torchrun options are given
(torchtune/_cli/run.py Run._run_cmd: "Recipe {name} does not support distributed training.Please run without
torchrun commands."); a name that is not a built-in recipe is run as a file of the working directory.

Each recipe records the sources it is in ("in"): the newest PyPI release (0.6.1) and torchtune's main branch
(bd2a0fc, 2026-04-23: three recipes more, dev/grpo_full_finetune_distributed among them, which torchtune's own
recipes/dev/multinode_grpo.sbatch runs); with pip's torchtune a name only on main is not a built-in recipe.

Usage:
    pip download --no-deps --only-binary :all: torchtune==0.6.1 -d /tmp/w
    git show bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1:torchtune/_recipe_registry.py > /tmp/reg.py
    python tools/gen_torchtune_recipes.py --wheel /tmp/w/torchtune-0.6.1-py3-none-any.whl \\
        --file bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1=/tmp/reg.py [-o OUT]

Source: https://pypi.org/project/torchtune/ (BSD-3-Clause, github.com/pytorch/torchtune;
torchtune/_recipe_registry.py, torchtune/_cli/run.py).
"""
import argparse
import ast
import json
import os
import re
import sys
import zipfile

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gpudoctor", "launch", "flags",
                   "torchtune_recipes.json")
REGISTRY = "torchtune/_recipe_registry.py"


def _kw(call, name):
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def recipes(source):
    """{name: {"distributed": bool, "configs": [name, ...]}} of _ALL_RECIPES in the registry's source text."""
    tree = ast.parse(source)
    found = None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "_ALL_RECIPES" for t in targets):
            found = node.value
    if not isinstance(found, ast.List):
        raise SystemExit("no _ALL_RECIPES list in the registry")
    out = {}
    for call in found.elts:
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "Recipe"):
            raise SystemExit("an _ALL_RECIPES element that is not Recipe(...): %s" % ast.unparse(call)[:80])
        name, dist, configs = (_kw(call, k) for k in ("name", "supports_distributed", "configs"))
        name, dist = ast.literal_eval(name), ast.literal_eval(dist)
        if not isinstance(name, str) or not isinstance(dist, bool):
            raise SystemExit("a Recipe whose name or supports_distributed is not a literal")
        cfgs = []
        for c in (configs.elts if isinstance(configs, ast.List) else []):
            v = _kw(c, "name") if isinstance(c, ast.Call) else None
            if v is not None:
                cfgs.append(ast.literal_eval(v))
        out[name] = {"distributed": dist, "configs": cfgs}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel", action="append", default=[], help="a torchtune wheel (its version from the name)")
    ap.add_argument("--file", action="append", default=[], metavar="LABEL=PATH",
                    help="a _recipe_registry.py read as the release or commit LABEL (the git tree: a commit)")
    ap.add_argument("-o", default=OUT)
    a = ap.parse_args(argv)
    sources, tables = [], []
    for w in a.wheel:
        m = re.match(r"torchtune-([^-]+)-", os.path.basename(w))
        label = m.group(1) if m else "?"
        with zipfile.ZipFile(w) as z:
            tables.append((label, recipes(z.read(REGISTRY).decode("utf-8"))))
        sources.append({"label": label, "from": "PyPI wheel %s" % os.path.basename(w),
                        "url": "https://pypi.org/project/torchtune/%s/" % label})
    for f in a.file:
        label, _, path = f.partition("=")
        with open(path, encoding="utf-8") as fh:
            tables.append((label, recipes(fh.read())))
        sources.append({"label": label, "from": "git", "url": "https://github.com/pytorch/torchtune/blob/%s/%s" % (
            label, REGISTRY)})
    if not tables:
        raise SystemExit("give --wheel or --file")
    merged = {}
    for label, t in tables:
        for name, r in t.items():
            m = merged.setdefault(name, {"distributed": r["distributed"], "configs": [], "in": []})
            if m["distributed"] != r["distributed"]:
                raise SystemExit("%s: supports_distributed differs between sources" % name)
            m["configs"] = sorted(set(m["configs"]) | set(r["configs"]))
            m["in"].append(label)
    table = {"source": {"project": "torchtune", "file": REGISTRY, "sources": sources,
                        "version": "+".join(label for label, _ in tables)},
             "recipes": merged}
    with open(a.o, "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")
    print("%s: %d recipes (%d distributed)" % (a.o, len(merged), sum(r["distributed"] for r in merged.values())),
          file=sys.stderr)


if __name__ == "__main__":
    main()
