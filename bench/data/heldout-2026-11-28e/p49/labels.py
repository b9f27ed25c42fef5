#!/usr/bin/env python3
"""Print only the `id` and `family` values found in gpudoctor/data/knowledge/**/*.toml|json (nothing else)."""
import glob, json, os, sys
try:
    import tomllib
except ImportError:
    tomllib = None
ROOT = "/work/main/gpudoctor/data/knowledge"
vals = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("id", "family") and isinstance(v, str):
                vals.add(v)
            else:
                walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
for p in glob.glob(os.path.join(ROOT, "**", "*"), recursive=True):
    try:
        if p.endswith(".toml"):
            walk(tomllib.load(open(p, "rb")))
        elif p.endswith(".json"):
            walk(json.load(open(p)))
    except Exception:
        pass
for v in sorted(vals):
    print(v)
