"""Fuzz run, larger than CI's: the properties of tests/test_fuzz.py with N times the
examples and a random seed (CI runs them derandomized, about 20 s), then a summary of what
the run met: crashed checks by check id and error type (each is exit 3 for the user), and
escapes from modules tolerated as known (KNOWN_ESCAPES in the test file).

    python bench/fuzz_bench.py [--scale 20] [--seed N] [-k EXPR]

Exit status: pytest's (0 when every property held). The seed is printed, so a failure can
be replayed with --seed; Hypothesis also prints the failing example and a reproduce blob.
"""

import argparse
import collections
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20, help="examples per property, times CI's (default 20)")
    ap.add_argument("--seed", type=int, default=None, help="Hypothesis seed (default: a random one, printed)")
    ap.add_argument("-k", default=None, help="only properties matching this pytest -k expression")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    with tempfile.TemporaryDirectory() as d:
        crashes = os.path.join(d, "crashes.jsonl")
        env = dict(os.environ, GPUDOCTOR_FUZZ_SCALE=str(args.scale), GPUDOCTOR_FUZZ_RANDOM="1",
                   GPUDOCTOR_FUZZ_CRASHES=crashes)
        cmd = [sys.executable, "-m", "pytest", os.path.join(ROOT, "tests", "test_fuzz.py"), "-q", "-p",
               "no:cacheprovider", "--hypothesis-seed=%d" % seed, "--durations=0"]
        if args.k:
            cmd += ["-k", args.k]
        print("fuzz bench: scale %d, seed %d, python %s, %s, %d CPUs" % (
            args.scale, seed, platform.python_version(), platform.platform(), os.cpu_count() or 0))
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        tail = [l for l in p.stdout.splitlines() if " call " in l or "passed" in l or "failed" in l
                or l.startswith("FAILED") or l.startswith("E ")]
        print("\n".join(tail[-60:]))
        print("wall time: %.1f s, pytest exit %d" % (wall, p.returncode))
        checks, escapes = collections.Counter(), collections.Counter()
        example = {}
        if os.path.exists(crashes):
            with open(crashes) as f:
                for line in f:
                    rec = json.loads(line)
                    if "check" in rec:
                        key = (rec["check"], rec["error"].split(":", 1)[0])
                        checks[key] += 1
                        example.setdefault(key, rec["error"])
                    else:
                        escapes[rec["escape"].split(" ", 1)[0].split("/work/")[-1]] += 1
        print("\ncrashed checks (each is exit 3 for the user; runs counted per check and error type):")
        for (cid, err), n in checks.most_common():
            print("  %4d  %-20s %s" % (n, cid, example[(cid, err)][:100]))
        if not checks:
            print("  none")
        print("known escapes (tolerated, reported to their owner):")
        for where, n in escapes.most_common():
            print("  %4d  %s" % (n, where))
        if not escapes:
            print("  none")
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
