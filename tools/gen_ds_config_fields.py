#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ds_config_fields.json: the keys each section of a DeepSpeed config
accepts, read from DeepSpeed's own pydantic models (lead31, issue 18: "name the fix").

DeepSpeed checks its JSON config with pydantic models: every section class derives from DeepSpeedConfigModel
(deepspeed/runtime/config_utils.py), whose model_config has extra="forbid" and populate_by_name=True, so a key that is
neither a field's name nor its alias stops deepspeed.initialize with pydantic's

    pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig
    overlap_com
      Extra inputs are not permitted [type=extra_forbidden, input_value=True, input_type=bool]

(https://docs.pydantic.dev/latest/errors/validation_errors/#extra_forbidden). explain (gpudoctor/explain/dsconfig.py
ds_field) looks the class up here and names the closest key it accepts. Read statically with ast (never imported),
per class whose bases reach DeepSpeedConfigModel (in any module of the package): each annotated attribute of the
class body and of its config bases (a field), a `Field(..., alias="x")` alias, and a deprecated field's replacement
(`Field(..., json_schema_extra={"deprecated": True, "new_param": "y"})`, DeepSpeedConfigModel's own convention).

Usage:
    python tools/gen_ds_config_fields.py --src VENV/lib/python3.11/site-packages/deepspeed [-o OUT]
    python tools/gen_ds_config_fields.py --dist deepspeed-0.19.8.tar.gz [-o OUT]   (pip download --no-deps)

Source: the PyPI release named in the header (https://pypi.org/project/deepspeed/).
"""

import argparse
import ast
import json
import os
import re
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ds_config_fields.py"
NAME = "ds_config_fields"
BASE = "DeepSpeedConfigModel"
_VERSION = re.compile(r"""^version\s*=\s*['"]([\w.+-]{1,40})['"]""", re.M)


def sources_of_dir(root):
    """[(path relative to the package, text)] of the package's .py files, and its version."""
    out, version = [], None
    for d, _dirs, files in os.walk(root):
        for n in sorted(files):
            p = os.path.join(d, n)
            rel = os.path.relpath(p, os.path.dirname(root))
            if n.endswith(".py"):
                with open(p, encoding="utf-8", errors="replace") as f:
                    out.append((rel, f.read()))
            if n in ("git_version_info_installed.py", "version.txt") and version is None:
                with open(p, encoding="utf-8", errors="replace") as f:
                    t = f.read()
                m = _VERSION.search(t)
                version = m.group(1) if m else (t.strip() if n == "version.txt" else None)
    return sorted(out), version


def sources_of_dist(path):
    """The same from an sdist (deepspeed-X.tar.gz: deepspeed-X/deepspeed/**.py, deepspeed-X/version.txt)."""
    out, version = [], None
    with tarfile.open(path) as t:
        for m in t.getmembers():
            parts = m.name.split("/")
            if not m.isfile():
                continue
            if len(parts) >= 3 and parts[1] == "deepspeed" and m.name.endswith(".py"):
                out.append(("/".join(parts[1:]), t.extractfile(m).read().decode("utf-8", "replace")))
            elif len(parts) == 2 and parts[1] == "version.txt":
                version = t.extractfile(m).read().decode().strip()
    return sorted(out), version


def _const(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _field_info(value):
    """(alias, new_param) of a `Field(...)` call, else (None, None)."""
    if not (isinstance(value, ast.Call) and knowgen.ast_name(value.func) == "Field"):
        return None, None
    alias = new = None
    for kw in value.keywords:
        if kw.arg == "alias":
            alias = _const(kw.value)
        elif kw.arg == "json_schema_extra" and isinstance(kw.value, ast.Dict):
            extra = {_const(k): v for k, v in zip(kw.value.keys, kw.value.values) if k is not None}
            if isinstance(extra.get("deprecated"), ast.Constant) and extra["deprecated"].value is True:
                new = _const(extra.get("new_param")) if extra.get("new_param") is not None else None
                new = new or ""
    return alias, new


def read_classes(sources):
    """{class: {"bases": [...], "fields": {name: alias or None}, "deprecated": {name: new}, "file": path}} of every
    class of the package (before the hierarchy is resolved)."""
    classes = {}
    for path, text in sources:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            fields, deprecated, types = {}, {}, {}
            for st in node.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) \
                        and not st.target.id.startswith("_") and st.target.id != "model_config":
                    alias, new = _field_info(st.value)
                    fields[st.target.id] = alias
                    if new is not None:
                        deprecated[st.target.id] = new
                    # the names in its annotation (Optional[DeepSpeedZeroOffloadOptimizerConfig]): a nested section
                    types[st.target.id] = sorted(filter(None, map(knowgen.ast_name, ast.walk(st.annotation))))
            classes.setdefault(node.name, {"bases": [b for b in map(knowgen.ast_name, node.bases) if b],
                                           "fields": fields, "deprecated": deprecated, "types": types, "file": path})
    return classes


def config_models(classes):
    """The classes whose bases reach BASE, each with the fields of its config bases too: {class: record}."""
    def reaches(name, seen=()):
        if name == BASE:
            return True
        c = classes.get(name)
        return bool(c) and name not in seen and any(reaches(b, seen + (name,)) for b in c["bases"])

    def merged(name, seen=()):
        c = classes[name]
        fields, dep, types = {}, {}, {}
        for b in c["bases"]:
            if b != BASE and b in classes and b not in seen and reaches(b):
                f, d, t = merged(b, seen + (name,))
                fields.update(f)
                dep.update(d)
                types.update(t)
        fields.update(c["fields"])
        dep.update(c["deprecated"])
        types.update(c["types"])
        return fields, dep, types

    out = {}
    for name in sorted(classes):
        if name == BASE or not reaches(name):
            continue
        fields, dep, types = merged(name)
        keys = sorted(set(fields) | {a for a in fields.values() if a})
        nested = {}
        for f, names in sorted(types.items()):
            models = [n for n in names if n != BASE and n in classes and reaches(n)]
            if len(models) == 1:  # a section of its own (one model: Optional[X], X)
                nested[f] = models[0]
                if fields.get(f):
                    nested[fields[f]] = models[0]
        out[name] = {"file": classes[name]["file"], "keys": keys,
                     "aliases": {f: a for f, a in sorted(fields.items()) if a},
                     "deprecated": dict(sorted(dep.items())), "nested": nested}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--src", help="the deepspeed package directory (site-packages/deepspeed)")
    g.add_argument("--dist", help="deepspeed's sdist (pip download --no-deps deepspeed==X)")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    sources, version = sources_of_dir(a.src) if a.src else sources_of_dist(a.dist)
    models = config_models(read_classes(sources))
    doc = {"header": knowgen.header("the PyPI release (https://pypi.org/project/deepspeed/): deepspeed %s"
                                    % (version or "?"), "%d config models of deepspeed %s" % (len(models), version),
                                    GENERATOR, "the keys each DeepSpeed config model accepts (fields and aliases, "
                                    "extra='forbid'), and deprecated fields' replacements, read with ast"),
           "sites": [],  # (no matcher of its own: explain/dsconfig.py ds_field reads the table)
           "deepspeed": version, "models": models}
    path = a.out or knowgen.out_path(NAME)
    with knowgen.open_write(path) as f:
        json.dump(doc, f, indent=0, sort_keys=True)
        f.write("\n")
    print("%s: %d config models, %d keys (deepspeed %s)" % (path, len(models),
                                                             sum(len(m["keys"]) for m in models.values()), version))
    return 0


if __name__ == "__main__":
    sys.exit(main())
