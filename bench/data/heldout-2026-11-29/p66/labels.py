#!/usr/bin/env python3
"""Print only the id / family values of gpudoctor/data/knowledge/**/*.toml|json (nothing else of their text)."""
import glob, json, os, tomllib
K = "/work/main/gpudoctor/data/knowledge"
vals = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("id", "family") and isinstance(v, str):
                vals.add(v)
            else:
                walk(v)
    elif isinstance(o, list):
        for x in o:
            walk(x)
for p in glob.glob(os.path.join(K, "**", "*"), recursive=True):
    try:
        if p.endswith(".toml"):
            walk(tomllib.load(open(p, "rb")))
        elif p.endswith(".json"):
            walk(json.load(open(p)))
    except Exception:
        pass
print("\n".join(sorted(vals)))
