"""Where facts come from: this machine, saved facts files, or (transport.ssh) every
node of a cluster. Everything returns runner.Node objects."""

import json
import os
import shutil
import sys

from gpudoctor.errors import InputError, read_input
from gpudoctor.runner import Node

FACTS_SCHEMA = "gpudoctor.facts/1"


def default_python():
    """The job's interpreter when --python is not given: python3 on PATH, when it is not
    the interpreter gpudoctor itself runs in (whose facts we read in-process)."""
    found = shutil.which("python3")
    if not found:
        return None
    if os.path.realpath(found) == os.path.realpath(sys.executable):
        return None
    return found


def local(python=None, options=None):
    from gpudoctor.collector import Context, collect

    if python and not shutil.which(python):
        raise InputError("--python %s: no such interpreter" % python)
    ctx = Context(python=python or default_python(), options=options)
    doc = collect(ctx)
    return [Node(host=doc["node"] or "localhost", facts=doc)]


def validate_facts(doc, where):
    if not isinstance(doc, dict) or doc.get("schema") != FACTS_SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise InputError("%s is not a gpudoctor facts file (schema %r, expected %r)" % (where, got, FACTS_SCHEMA))
    for key, sec in doc.items():
        if key not in ("schema", "node", "collected_at", "collector") and (
                not isinstance(sec, dict) or sec.get("status") not in ("ok", "unsupported", "error")):
            raise InputError("%s: section %r has no valid status" % (where, key))
    return doc


def read_facts_file(path):
    data = read_input(path, "facts")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError("%s is not valid JSON: %s" % (path, exc))
    if isinstance(doc, dict) and doc.get("schema") == "gpudoctor.node/1":  # a saved node result
        return doc
    return validate_facts(doc, path)


def from_facts(path):
    """A facts file, or a folder of them (as `gpudoctor facts --hosts ... -o DIR` writes)."""
    if os.path.isdir(path):
        files = sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".json"))
        if not files:
            raise InputError("%s holds no *.json facts files" % path)
    elif os.path.exists(path):
        files = [path]
    else:
        raise InputError("--facts %s: no such file or directory" % path)
    nodes = []
    for f in files:
        doc = read_facts_file(f)
        if doc.get("schema") == "gpudoctor.node/1":  # an unreachable node, recorded as such
            nodes.append(Node(host=doc["host"], error=doc.get("error"), error_kind=doc.get("error_kind")))
            continue
        host = doc.get("node") or os.path.splitext(os.path.basename(f))[0]
        nodes.append(Node(host=host, facts=doc))
    seen = set()
    for n in nodes:
        if n.host in seen:
            raise InputError("two facts files describe node %s" % n.host)
        seen.add(n.host)
    return nodes


def save(nodes, out_dir):
    """One file per node: its facts, or a gpudoctor.node/1 record of why it failed."""
    os.makedirs(out_dir, exist_ok=True)
    for n in nodes:
        doc = n.facts if n.reachable else {"schema": "gpudoctor.node/1", "host": n.host, "error": n.error,
                                           "error_kind": n.error_kind}
        with open(os.path.join(out_dir, "%s.json" % n.host.replace("/", "_")), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
