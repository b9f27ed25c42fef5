#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/launcher_messages.json: the errors the DeepSpeed and
accelerate launchers raise or log (`raise SomeError("...")`, `logger.error(...)`, `logger.warning(...)`
with a message, f-strings and %-formats included) in their launcher modules, each with a bounded
matcher and the knowledge family from the RULES table below.

Usage:
    pip download --no-deps deepspeed accelerate -d /tmp/pyl   (unpack the sdist / wheel)
    python tools/gen_launcher_messages.py --deepspeed /tmp/pyl/ds/deepspeed-X --accelerate /tmp/pyl/acc [-o OUT]
    python tools/gen_launcher_messages.py --slice tools/data/launcher_messages_slice.txt -o OUT   (the test)

Sources: deepspeed (https://pypi.org/project/deepspeed/) deepspeed/launcher/*.py and accelerate
(https://pypi.org/project/accelerate/) accelerate/commands/launch.py, accelerate/utils/launch.py.
Messages are read with Python's ast (never executed). A slice holds files, each after `=== path`.
"""

import argparse
import ast
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_launcher_messages.py"
FILES = {
    "deepspeed": ["deepspeed/launcher/runner.py", "deepspeed/launcher/launch.py", "deepspeed/launcher/multinode_runner.py",
                  "deepspeed/launcher/launcher_helper.py"],
    "accelerate": ["accelerate/commands/launch.py", "accelerate/utils/launch.py"],
}
# (rule, knowledge entry, {field: regex}); fields: where, text, level (raise | error | warning)
RULES = [
    ("ds-env", "deepspeed.remote_env", {"where": r"deepspeed", "text": r"deepspeed_env|environment"}),
    ("ds-ssh", "ssh.pdsh", {"where": r"deepspeed", "text": r"pdsh|ssh|passwordless"}),
    ("ds-hostfile", "deepspeed.launcher", {"where": r"deepspeed", "text": r"hostfile|slot|include|exclude|num_gpus|"
                                                                          r"num_nodes|resource|GPU"}),
    ("ds-rank-exit", "cascade.child_failed", {"where": r"deepspeed", "text": r"exits with return code"}),
    ("ds-other", "launcher.deepspeed_error", {"where": r"deepspeed", "level": r"raise|error"}),
    ("acc-port", "rendezvous.address_in_use", {"where": r"accelerate", "text": r"port .*(?:in use|already|utilizing)"}),
    ("acc", "launcher.accelerate_error", {"where": r"accelerate", "level": r"raise|error"}),
]


def _fmt(node):
    """A message expression as a printf format (None when it holds no literal text)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("%", "%%")
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            out.append(v.value.replace("%", "%%") if isinstance(v, ast.Constant) else "%s")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _fmt(node.left), _fmt(node.right)
        return (a if a is not None else "%s") + (b if b is not None else "%s") if (a or b) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
            and isinstance(node.left.value, str):
        return node.left.value  # already a %-format
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return re.sub(r"\{[^{}]*\}", "%s", node.func.value.value.replace("%", "%%"))
    return None


def sites_of(path, src):
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        level, arg = None, None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            level, arg = "raise", node.exc.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("error", "warning", "critical") and node.args and \
                isinstance(node.func.value, ast.Name) and node.func.value.id in ("logger", "logging"):
            level, arg = ("warning" if node.func.attr == "warning" else "error"), node.args[0]
        if level is None:
            continue
        fmt = _fmt(arg)
        if fmt:
            yield level, "%s:%d" % (path, node.lineno), " ".join(fmt.split())


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        for level, where, fmt in sorted(sites_of(path, src), key=lambda s: int(s[1].rsplit(":", 1)[1])):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "launcher.%s" % re.sub(r"[^a-z0-9]+", "_", where.lower()).strip("_"), "where": where,
                    "level": level, "text": fmt}
            if rx is None or len("".join(literal.split())) < 12:
                site.update({"re": None, "family": None, "rule": "no literal anchor of 12+ characters"})
            elif level == "warning":
                site.update({"re": rx, "family": None, "rule": "a warning, not an error"})
            else:
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                site.update({"re": rx, "family": family, "rule": rule})
            sites.append(site)
    return {"header": knowgen.header("deepspeed (https://pypi.org/project/deepspeed/) and accelerate "
                                     "(https://pypi.org/project/accelerate/) launcher modules", version, GENERATOR),
            "sites": sites}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deepspeed", help="the unpacked deepspeed sdist (the folder that holds deepspeed/)")
    ap.add_argument("--accelerate", help="the unpacked accelerate wheel (the folder that holds accelerate/)")
    ap.add_argument("--version", default="")
    ap.add_argument("--slice")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    files = []
    if a.slice:
        files, version = knowgen.read_slice(a.slice)
    elif a.deepspeed and a.accelerate:
        for root, names in ((a.deepspeed, FILES["deepspeed"]), (a.accelerate, FILES["accelerate"])):
            for n in names:
                with open(os.path.join(root, n)) as f:
                    files.append((n, f.read()))
        version = a.version
    else:
        ap.error("give --deepspeed and --accelerate, or --slice")
    doc = build(files, version)
    return knowgen.report(knowgen.write("launcher_messages", doc, a.out), doc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
