"""Where the prolog tier's time goes: one `check --fast --json` in this process, as cli.main
runs it, with the milestones of the parent and of the children that collect its facts on
a GPU node (gpudoctor/early.py: reader, python, collector), on one clock (CLOCK_MONOTONIC is
the same in every process), in ms after the forks.

    python bench/prolog_timeline.py [-n 5]

Each run is a fresh process (python -c ...), as a prolog starts it. Without an NVIDIA driver
(/proc/driver/nvidia/version) there are no children: only the parent's phases.
"""

import argparse
import json
import subprocess
import sys

RUN = r'''
import time, io, contextlib, json, sys
t0 = time.monotonic()
from gpudoctor import early
m = early._mark
m("parent: start")
import gpudoctor.cli as cli; m("parent: import cli")
argv = ["check", "--fast", "--json"]
early.start(argv)
p = cli.build_parser(argv); args = p.parse_args(argv); m("parent: parser")
from gpudoctor.registry import load_checks, select; from gpudoctor.runner import run_checks; m("parent: import registry, runner")
from gpudoctor.commands.common import config_from, gather_nodes, emit
from gpudoctor.commands.check import launch_plan
cfg = config_from(args); cfg.launch = launch_plan(args, cfg); m("parent: config")
reg = load_checks(); checks = select(reg, cfg.select, cfg.ignore); m("parent: check modules")
from gpudoctor import history
store = history.for_command(args, cfg, False, print, strict=True)
nodes = gather_nodes(args, cfg); m("parent: facts gathered")
report = run_checks(nodes, checks, cfg); m("parent: checks")
history.after_run(report, store, checks, print)
with contextlib.redirect_stdout(io.StringIO()):
    emit(report, "json", None, verbose=False)
m("parent: report")
print(json.dumps({"marks": sorted(set(tuple(x) for x in early._marks), key=lambda x: x[1]),
                  "sections": nodes[0].facts["collector"]["section_seconds"]}))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5)
    args = ap.parse_args()
    for _ in range(args.n):
        out = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True).stdout
        try:
            doc = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            print("no timeline:", out[-300:])
            continue
        marks = doc["marks"]
        zero = dict(marks).get("parent: forks", marks[0][1])
        print(" | ".join("%s %.1f" % (name, (t - zero) * 1000) for name, t in marks))
        print("   sections (ms): " + ", ".join("%s %.1f" % (k, v * 1000) for k, v in sorted(doc["sections"].items(),
                                                                                            key=lambda kv: -kv[1])[:6]))


if __name__ == "__main__":
    main()
