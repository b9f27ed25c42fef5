"""The node-side collector: one JSON facts document per node.

Runs in-process for the local node and is shipped as one script (bundle.py) to remote
nodes and to other interpreters. Stdlib only, Python 3.6+.
"""

import sys
import time

from . import base
from .base import Context, collect_sections, dumps

# Section modules, in collection order. Adding a facts section is one edit: its module
# (with @section functions) here; bundle.py ships the same list to the nodes.
MODULES = ("system", "ssh", "nvidia", "cuda", "python_env", "rdma", "network", "ofed", "nccl_env", "cluster",
           "rendezvous", "watch", "munge")
for _name in MODULES:
    __import__(__name__ + "." + _name)  # importlib.import_module would import importlib (and warnings) on a node

SCHEMA = "gpudoctor.facts/1"
COLLECTOR_VERSION = "1"
META_KEYS = ("schema", "node", "collected_at", "collector")


def collect(ctx=None, only=None, last=()):
    ctx = ctx or Context()
    if only is None and ctx.options.get("only"):  # a follow-up round asks for a few sections (watch)
        only = set(ctx.options["only"])
    t0 = time.time()
    sections, timings = collect_sections(ctx, only=only, last=last)
    # the node's own clock, read once its facts are complete: the gatherer compares it with the window it sent and
    # received them in (collector.gathered, set there; checks/clock.py)
    now = time.time()
    doc = {
        "schema": SCHEMA,
        # the node's name as the controller knows it (hostfile alias); the hostname otherwise
        "node": ctx.options.get("node") or (sections.get("host") or {}).get("hostname") or "",
        "collected_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        "collector": {"version": COLLECTOR_VERSION, "python": "%d.%d.%d" % sys.version_info[:3],
                      "executable": sys.executable, "duration_s": round(now - t0, 4), "clock_s": round(now, 3),
                      "section_seconds": timings},
    }
    doc.update(sections)
    return doc


def sections(doc):
    """The facts sections of a document (everything but the metadata)."""
    return dict((k, v) for k, v in doc.items() if k not in META_KEYS)


def main(argv=None, preset=None):
    """Entry point on a node: ``python3 - [--only a,b] [--python PATH] [--set k=v]`` prints facts.
    ``preset``: options that travel inside the script on stdin rather than on the command
    line (the per-run HMAC key: a command line is visible to every user of the node)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    only, python, options = None, None, dict(preset or {})
    while argv:
        a = argv.pop(0)
        if a == "--only":
            only = set(argv.pop(0).split(","))
        elif a == "--python":
            python = argv.pop(0)
        elif a == "--set":
            k, _, v = argv.pop(0).partition("=")
            options[k] = base.loads(v)
    if only is None and options.get("only"):  # a follow-up fan-out asks for a few sections
        only = set(options["only"])
    if isinstance(options.get("watch"), dict):  # Ctrl-C on the controller ends the window (watch.STOP_SIGNAL)
        from .watch import catch_stop_signal

        catch_stop_signal()
    ctx = Context(python=python, options=options)
    doc = collect(ctx, only=only)
    out = dumps(doc)  # json.dumps(doc, sort_keys=True), without importing json
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
    return 0
