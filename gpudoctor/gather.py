"""Where facts come from: this machine, saved facts files, or (transport.ssh) every
node of a cluster. Everything returns runner.Node objects."""

import json
import math
import os
import shutil
import sys

from gpudoctor.errors import DuplicateKey, InputError, excerpt, missing, read_input, unique_pairs
# gpudoctor.node, not runner (which re-exports it): runner imports the checks' registry and
# fixline (shlex, string, unicodedata), 2-2.5 ms of a `facts` run, which judges nothing
from gpudoctor.node import Node

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


def interpreter_missing(python):
    """Why --python PATH is refused: not there, a folder, or a file that is not executable."""
    if os.path.isdir(python):
        return "--python %s: a folder, not an interpreter (give its bin/python)" % python
    if os.path.exists(python):
        return "--python %s: not executable (chmod +x, or give the interpreter itself)" % python
    return "--python %s: no such interpreter" % python


def local(python=None, options=None):
    from gpudoctor.collector import Context, collect

    if python and not shutil.which(python):
        raise InputError(interpreter_missing(python))
    ctx = Context(python=python or default_python(), options=options)
    doc = collect(ctx)
    return [Node(host=doc["node"] or "localhost", facts=doc)]


MAX_FACTS_BYTES = 64 << 20  # one node's facts are ~20 KB; 64 MiB bounds memory per file
MAX_DEPTH = 32  # the collector's documents nest 6 deep; deeper is not facts (and would recurse)
_MAX_FLOAT = sys.float_info.max
META = ("schema", "node", "collected_at", "collector")


def node_name_problem(name):
    """Why `name` cannot name a node in a report, or None. The rule is the one every host
    name passes (inventory.valid_host: RFC 1123 labels, IP literals, user@, never a leading
    '-'): nothing node-set syntax ("gpu[", ","), a shell, an XML report or a terminal would
    read as something else."""
    from gpudoctor.inventory import valid_host

    if not isinstance(name, str):
        return "the node name is %s, not a string" % excerpt(name)
    if not valid_host(name):
        return "node name %s is not a host name (letters, digits, '-', '.', '_' or an IP address)" % excerpt(name)
    return None


def _shape_fine(doc):
    """True when _shape_problem(doc) finds nothing, told quickly (a fifth of its time on the
    facts of a node): a document of plain JSON types (dict with str keys, list, str, int,
    float, bool, None) walked a level at a time, no element deeper than MAX_DEPTH, all its
    text (keys too) encoded once, joined (a lone surrogate stays one in the join: Python
    strings never pair surrogates). False or None (a problem, or a type it leaves out):
    _shape_problem's own walk says what it is, in its own order."""
    level, texts = [doc], []
    for _ in range(MAX_DEPTH + 1):
        below = []
        for x in level:
            t = type(x)
            if t is dict:
                try:
                    texts.append("".join(x))
                except TypeError:  # a key that is not text
                    return None
                below.extend(x.values())
            elif t is list:
                below.extend(x)
            elif t is str:
                texts.append(x)
            elif t is float:
                if not -_MAX_FLOAT <= x <= _MAX_FLOAT:  # inf, -inf, nan (false for every comparison)
                    return None
            elif not (x is None or t is int or t is bool):
                return None
        level = below
        if not level:
            break
    if level:  # elements at MAX_DEPTH + 1
        return False
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shape_problem(doc):
    """Why the document's shape is unusable, walking it iteratively (no recursion to
    exhaust): nesting deeper than MAX_DEPTH, or a string that is not Unicode text (JSON's
    "\\ud800" decodes to a lone surrogate, which no UTF-8 report or terminal can write)."""
    if _shape_fine(doc):
        return None
    stack = [(doc, 0)]
    while stack:
        x, depth = stack.pop()
        if depth > MAX_DEPTH:
            return "nested deeper than %d levels" % MAX_DEPTH
        if isinstance(x, dict):
            stack.extend((v, depth + 1) for v in x.values())
            stack.extend((k, depth + 1) for k in x)
        elif isinstance(x, list):
            stack.extend((v, depth + 1) for v in x)
        elif isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return "holds a string that is not Unicode text (a lone surrogate escape)"
        elif isinstance(x, float) and not math.isfinite(x):
            # JSON has no such number (RFC 8259 section 6), but Python's json reads 1e999 as inf (and
            # a node's own NaN/Infinity); written back by diff --json or the history, it is invalid JSON
            return "holds a number that is not finite (%r)" % x
    return None


def facts_problem(doc):
    """Why a decoded document is not one node's facts, or None. The transports can use it on
    what a node sent back, the same rule as for facts files."""
    if not isinstance(doc, dict) or doc.get("schema") != FACTS_SCHEMA:
        if isinstance(doc, dict) and "schema" not in doc:  # a DeepSpeed config, a results file: said so, not 'nothing'
            return "not a gpudoctor facts file (it has no schema key; facts have %r)" % FACTS_SCHEMA
        if not isinstance(doc, dict):
            return "not a gpudoctor facts file (a JSON %s, not an object with schema %r)" % (
                {"list": "array", "str": "string", "int": "number", "float": "number", "bool": "true/false",
                 "NoneType": "null"}.get(type(doc).__name__, type(doc).__name__), FACTS_SCHEMA)
        return "not a gpudoctor facts file (schema %s, expected %r)" % (excerpt(doc.get("schema")), FACTS_SCHEMA)
    why = _shape_problem(doc)
    if why:
        return why
    if "node" in doc and doc["node"] is not None:
        why = node_name_problem(doc["node"])
        if why:
            return why
    sections = [k for k in doc if k not in META]
    if not sections:
        return "holds no section (a facts document has system, gpu, network, ...)"
    for key in sections:
        sec = doc[key]
        if not isinstance(sec, dict) or sec.get("status") not in ("ok", "unsupported", "error"):
            return "section %s has no valid status" % excerpt(key)
    return None


def validate_facts(doc, where):
    why = facts_problem(doc)
    if why:
        if why.startswith("not a gpudoctor facts"):
            raise InputError("%s is %s" % (where, why))
        raise InputError("%s: %s" % (where, why))
    return doc


def _node_record_problem(doc):
    """A saved gpudoctor.node/1 record (a node that could not be checked)."""
    why = node_name_problem(doc.get("host"))
    if why:
        return why
    for key in ("error", "error_kind"):
        if doc.get(key) is not None and not isinstance(doc.get(key), str):
            return "%s is %s, not text" % (key, excerpt(doc.get(key)))
    return None


def _no_constant(name):
    # Python's json reads NaN and Infinity, which are not JSON (RFC 8259 section 6) and
    # compare false with every threshold; no collector writes them
    raise ValueError("%s is not a JSON number" % name)


def _bounded_int(text):
    # every count the collector writes fits in 64 bits; a 4,000-digit integer is not a fact
    if len(text.lstrip("-")) > 40:
        raise ValueError("an integer of %d digits" % len(text))
    return int(text)


def _node_map(doc):
    """What `gpudoctor facts --hosts ...` prints without -o: {host: facts, or {error,
    error_kind} for a node that could not be checked}; None for anything else."""
    if not isinstance(doc, dict) or "schema" in doc or not doc or not all(isinstance(v, dict) for v in doc.values()):
        return None
    if not any(v.get("schema") == FACTS_SCHEMA for v in doc.values()):
        return None
    return doc


def read_facts_file(path, node_map=False):
    """One node's facts (or a gpudoctor.node/1 record) from a file; with ``node_map`` also the
    {host: facts} document of several nodes, returned as {"nodes": {host: facts or None ...}}."""
    data = read_input(path, "facts", limit=MAX_FACTS_BYTES)
    if not data.strip():  # a `facts -o FILE` cut short, a redirect that failed: 'Expecting value: line 1 column 1'
        raise InputError("%s is empty (%s): it holds no facts (a `gpudoctor facts > FILE` that failed leaves one); "
                         "save them with gpudoctor facts -o FILE" % (
                             path, "0 bytes" if not data else "%d bytes of blank space" % len(data)))
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_int=_bounded_int,
                         object_pairs_hook=unique_pairs)
    except DuplicateKey as exc:
        raise InputError("%s: %s (RFC 8259 section 4: names should be unique; readers differ on which counts)"
                         % (path, exc))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError("%s is not valid JSON: %s" % (path, excerpt(exc, 120)))
    except RecursionError:  # [[[[... 100,000 deep: the decoder recurses per level
        raise InputError("%s: nested deeper than %d levels" % (path, MAX_DEPTH))
    if isinstance(doc, dict) and doc.get("schema") == "gpudoctor.node/1":  # a saved node result
        why = _node_record_problem(doc)
        if why:
            raise InputError("%s: %s" % (path, why))
        return doc
    if node_map and _node_map(doc) is not None:
        return {"nodes": doc}
    return validate_facts(doc, path)


def from_facts(path, what="--facts"):
    """A facts file, or a folder of them (as `gpudoctor facts --hosts ... -o DIR` writes). ``what``: how the
    user gave the path, for the one-line error (`diff`'s BEFORE and AFTER are no --facts option)."""
    try:
        if os.path.isdir(path):
            files = sorted(os.path.join(path, n) for n in os.listdir(path) if n.endswith(".json"))
            if not files:
                raise InputError("%s holds no *.json facts files" % path)
            from gpudoctor.inventory import MAX_NODES

            if len(files) > MAX_NODES:  # each may be 64 MiB: refused before any is read
                raise InputError("%s holds %d facts files, more than %d nodes" % (excerpt(path), len(files), MAX_NODES))
        elif os.path.exists(path):
            files = [path]
        else:
            raise InputError("%s %s: %s" % (what, path, missing(path)))
    except OSError as exc:  # a folder we may not list
        raise InputError("cannot read facts %s: %s" % (path, exc.strerror or exc))
    except ValueError as exc:  # a path with a NUL byte
        raise InputError("%s %s: %s" % (what, excerpt(path), exc))
    nodes = []
    for f in files:
        try:
            doc = read_facts_file(f, node_map=True)
        except InputError as exc:
            if f == path or "not a gpudoctor facts file" not in str(exc):
                raise
            # a folder's other JSON (ds_config.json beside the facts): every *.json of a facts folder is read
            raise InputError("%s; every *.json file of the folder %s is read as a node's facts: move it out, or "
                             "name the facts files' own folder" % (exc, excerpt(path, 200)))
        if "schema" not in doc and "nodes" in doc:  # `facts --hosts ... > all.json`: every node in one file
            from gpudoctor.inventory import MAX_NODES

            if len(doc["nodes"]) > MAX_NODES:
                raise InputError("%s describes %d nodes, more than %d" % (excerpt(f), len(doc["nodes"]), MAX_NODES))
            for host, one in doc["nodes"].items():
                why = node_name_problem(host)
                if why:
                    raise InputError("%s: node %s: %s" % (f, excerpt(host), why))
                if set(one) <= {"error", "error_kind"}:  # a node that could not be checked
                    _record = {"host": host, "error": one.get("error"), "error_kind": one.get("error_kind")}
                    why = _node_record_problem(_record)
                    if why:
                        raise InputError("%s: node %s: %s" % (f, host, why))
                    nodes.append(Node(host=host, error=_record["error"], error_kind=_record["error_kind"]))
                    continue
                validate_facts(one, "%s (node %s)" % (f, host))
                nodes.append(Node(host=one.get("node") or host, facts=one))
            continue
        if doc.get("schema") == "gpudoctor.node/1":  # an unreachable node, recorded as such
            nodes.append(Node(host=doc["host"], error=doc.get("error"), error_kind=doc.get("error_kind")))
            continue
        host = doc.get("node") or os.path.splitext(os.path.basename(f))[0]
        why = node_name_problem(host)
        if why:  # the file name stands in for a missing node name: it must be a host name too
            raise InputError("%s: %s (set \"node\" in the file, or rename it)" % (f, why))
        nodes.append(Node(host=host, facts=doc))
    seen = set()
    for n in nodes:
        if n.host in seen:
            raise InputError("two facts files describe node %s" % n.host)
        seen.add(n.host)
    return nodes


def check_save_target(out_dir):
    """Before a run gathers what save() will write: a path that is a file (or a refused symlink) is an input error
    now, not after `watch --seconds 600` sampled for ten minutes (userwalk24)."""
    from gpudoctor.report.atomic import check_folder

    check_folder(out_dir)
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise InputError("cannot write facts to %s: it exists and is not a folder" % out_dir)


def save(nodes, out_dir):
    """One file per node: its facts, or a gpudoctor.node/1 record of why it failed. Each
    file is written atomically (a reader never sees half of one); a folder that cannot be
    made or written (a file, read-only, not permitted, a full disk) is an input error.
    -> the names of the folder's other *.json files (an earlier run's nodes), which a later
    `check --facts DIR` reads beside these: the caller says so."""
    from gpudoctor.jsonout import dumps_facts
    from gpudoctor.report.atomic import check_folder, write_atomic

    check_folder(out_dir)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except FileExistsError:
        raise InputError("cannot write facts to %s: it exists and is not a folder" % out_dir)
    except OSError as exc:
        raise InputError("cannot write facts to %s: %s" % (out_dir, exc.strerror or exc))
    except ValueError as exc:
        raise InputError("cannot write facts to %s: %s" % (excerpt(out_dir), exc))
    written = set()
    for n in nodes:
        doc = n.facts if n.reachable else {"schema": "gpudoctor.node/1", "host": n.host, "error": n.error,
                                           "error_kind": n.error_kind}
        name = n.host.replace("/", "_").lstrip(".") or "_"
        write_atomic(os.path.join(out_dir, "%s.json" % name), dumps_facts(doc) + "\n")
        written.add("%s.json" % name)
    try:
        names = os.listdir(out_dir)
    except OSError:
        return []
    return sorted(n for n in names if n.endswith(".json") and n not in written and not n.startswith(".")
                  and os.path.isfile(os.path.join(out_dir, n)))


def others_line(others, out_dir, reader):
    """The warning for save()'s other files: `facts --hosts hf -o DIR` into a folder of an earlier run left that
    run's nodes there, and `check --facts DIR` judged them with this run's (a node since taken out of the hostfile,
    renamed, or of another cluster) without a word (userwalk23)."""
    shown = ", ".join(excerpt(n, 60) for n in others[:6]) + (" and %d more" % (len(others) - 6) if len(others) > 6
                                                              else "")
    it = "it" if len(others) == 1 else "them"
    return ("gpudoctor: warning: %s/ also holds %d file%s this run did not write (%s): %s %s/ reads %s too; remove "
            "%s, or save to a new folder" % (out_dir.rstrip("/"), len(others), "" if len(others) == 1 else "s",
                                             shown, reader, out_dir.rstrip("/"), it, it))
