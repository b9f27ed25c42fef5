#!/usr/bin/env python3
"""Coverage of explain/argedit.py's constraint rules over the message sites the generators read from the libraries'
sources (edits19, issue 18).

Every raise / assert site of gpudoctor/data/knowledge/generated/*.json (the format strings tools/gen_*.py extracted
from the pinned wheels and repositories: torch, Lightning, transformers / accelerate / peft / DeepSpeed, the HF
libraries, timm / OmegaConf / Hydra, vLLM, SGLang, Megatron-LM, JAX, the guard tables, Python's standard library)
is classified by argedit.classify into the five kinds of an argument check (allowed values, exclusive, requires,
type, range) or none. One text per library counts once. Prints a Markdown table per library (the libraries with
the most sites first; --all for every one) and the totals; --json writes the counts.

    python tools/arg_constraints.py [--all] [--json OUT] [--examples KIND]
"""

import argparse
import collections
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpudoctor.explain import argedit  # noqa: E402
from gpudoctor.explain.knowledge import read_json, table_name  # noqa: E402

KINDS = ("allowed", "exclusive", "requires", "type", "range")
LEVELS = ("raise", "assert")
# a site's library: the first part of its path, the distributions of one project together
_LIB = {"pytorch_lightning": "lightning", "lightning_fabric": "lightning", "torch_core": "torch"}


def library(where):
    top = where.replace("\\", "/").split("/", 1)[0]
    return _LIB.get(top, top)


def sites(gen_dir):
    """(table, library, text) of every raise / assert site of the generated tables, one text per library."""
    seen = set()
    paths = glob.glob(os.path.join(gen_dir, "*.json")) + glob.glob(os.path.join(gen_dir, "*.json.gz"))
    for path in sorted(paths, key=lambda p: table_name(p) + ".json"):  # (explain's order: knowledge.generated_files)
        try:
            table = read_json(path)
        except (OSError, ValueError):
            continue
        rows = table.get("sites") if isinstance(table, dict) else None
        if not isinstance(rows, list):
            continue
        for s in rows:
            if not isinstance(s, dict) or s.get("level") not in LEVELS or not s.get("text") or not s.get("where"):
                continue
            lib = library(s["where"])
            key = (lib, s["text"])
            if key in seen:
                continue
            seen.add(key)
            yield os.path.basename(path)[:-5], lib, s["text"]


def count(gen_dir):
    per = collections.defaultdict(collections.Counter)
    examples = collections.defaultdict(list)
    for _table, lib, text in sites(gen_dir):
        kind = argedit.classify(text) or "none"
        per[lib][kind] += 1
        per[lib]["sites"] += 1
        if len(examples[kind]) < 40:
            examples[kind].append((lib, text))
    return per, examples


def markdown(per, show_all=False, top=20):
    libs = sorted(per, key=lambda x: -per[x]["sites"])
    rows = ["| library | sites | allowed values | exclusive | requires | type | range | classified | no rule |",
            "|---|---|---|---|---|---|---|---|---|"]
    total = collections.Counter()
    rest = collections.Counter()
    for i, lib in enumerate(libs):
        c = per[lib]
        total.update(c)
        if show_all or i < top:
            cl = sum(c[k] for k in KINDS)
            rows.append("| %s | %d | %s | %d | %d |" % (lib, c["sites"], " | ".join(str(c[k]) for k in KINDS), cl,
                                                        c["none"]))
        else:
            rest.update(c)
    if rest:
        rows.append("| %d others | %d | %s | %d | %d |" % (len(libs) - top, rest["sites"], " | ".join(
            str(rest[k]) for k in KINDS), sum(rest[k] for k in KINDS), rest["none"]))
    rows.append("| all | %d | %s | %d | %d |" % (total["sites"], " | ".join(str(total[k]) for k in KINDS),
                                                 sum(total[k] for k in KINDS), total["none"]))
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default=os.path.join(ROOT, "gpudoctor", "data", "knowledge", "generated"))
    ap.add_argument("--all", action="store_true", help="a row for every library")
    ap.add_argument("--json", help="write the counts here")
    ap.add_argument("--examples", choices=KINDS + ("none",), help="print some texts of one kind")
    args = ap.parse_args(argv)
    per, examples = count(args.dir)
    print(markdown(per, args.all))
    if args.examples:
        for lib, text in examples[args.examples]:
            print("%-14s %s" % (lib, text[:160]))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({lib: dict(c) for lib, c in sorted(per.items())}, fh, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
