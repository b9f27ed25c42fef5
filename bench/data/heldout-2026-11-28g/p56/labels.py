#!/usr/bin/env python3
"""Print only the `id` and `family` values found in gpudoctor/data/knowledge/ (toml and json), one per line."""
import json, os, sys, tomllib
ROOT = "/work/main/gpudoctor/data/knowledge"
out = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("id", "family") and isinstance(v, str):
                out.add(v)
            else:
                walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
for d, _, fs in os.walk(ROOT):
    for f in fs:
        p = os.path.join(d, f)
        try:
            if f.endswith(".toml"):
                walk(tomllib.load(open(p, "rb")))
            elif f.endswith(".json"):
                walk(json.load(open(p)))
        except Exception:
            pass
for v in sorted(out):
    print(v)
