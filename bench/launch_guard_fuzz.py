#!/usr/bin/env python3
"""A differential fuzz of `plan SCRIPT`'s reading of && / || guards, groups, if, case, exit and `$(cat <<EOF)`
against bash (launch23). Random scripts of known values (no environment, no arguments) end in one torchrun line;
bash runs each with argv-recording stubs (tests/test_launch_scripts21.py's bash_argv). A failure is the plan ending
before a launch bash reaches, or a known word bash did not pass; the plan listing a launch after an exit it leaves
undecided (`if true` is not decided) is not one.

    python bench/launch_guard_fuzz.py SEED N      # e.g. 1 400; prints the first failures and "bad K of N"
    ROOT=/path/to/another/checkout python bench/launch_guard_fuzz.py 1 400

Measured in launch23 (docs/benchmarks.md, round 4): bae6bf7 24 and 16 of 400 (seeds 1, 2); f9f083f 15 and 11;
06daf86 0 of 1,600 (seeds 1-4).
"""
import os
import pathlib
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "tests"))
sys.path.insert(0, os.environ.get("ROOT", HERE))
from test_launch_scripts21 import bash_argv, known  # noqa: E402

from gpudoctor.launch.script import read_script  # noqa: E402

R = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
VARS = ["A", "B", "C", "D"]


def val():
    return R.choice(["", "x", "y", "1", "a b"])


def test():
    v = R.choice(VARS)
    return R.choice(['[ -z "$%s" ]' % v, '[ -n "$%s" ]' % v, '[ "$%s" = x ]' % v, '[[ "$%s" == y ]]' % v, "true",
                     "false", '! [ -z "$%s" ]' % v])


def simple(depth=0):
    k = R.randrange(9 if depth < 2 else 5)
    v = R.choice(VARS)
    if k == 0:
        return '%s="%s"' % (v, val())
    if k == 1:
        return "%s=$(cat <<EOF\n$%s-%s\nEOF\n)" % (v, R.choice(VARS), val())
    if k == 2:
        return "exit %d" % R.randrange(2)
    if k == 3:
        return 'echo "$%s" >/dev/null' % v
    if k == 4:
        return "%s=$(echo $%s)z" % (v, R.choice(VARS))
    if k == 5:
        return "%s %s { %s; %s; }" % (test(), R.choice(["&&", "||"]), simple(depth + 1), simple(depth + 1))
    if k == 6:
        return "if %s; then %s; else %s; fi" % (test(), simple(depth + 1), simple(depth + 1))
    if k == 7:
        return "%s %s %s" % (test(), R.choice(["&&", "||"]), simple(depth + 1))
    return 'case "$%s" in x) %s;; *) %s;; esac' % (v, simple(depth + 1), simple(depth + 1))


def main():
    n, bad = int(sys.argv[2]) if len(sys.argv) > 2 else 200, 0
    for _ in range(n):
        lines = ['%s="%s"' % (v, val()) for v in VARS] + [simple() for _ in range(R.randrange(1, 6))]
        lines.append('torchrun --nproc_per_node 2 t.py "$A" "$B" "$C" "$D"')
        text = "\n".join(lines) + "\n"
        with tempfile.TemporaryDirectory() as d:
            d = pathlib.Path(d)
            p = d / "f.sh"
            p.write_text(text)
            res = read_script(str(p), [], environ={})
            real = [r for r in bash_argv(d, p) if r[0] == "torchrun"]
            mine = [known(la.argv) for la in res.launches]
            ok = not real or (len(real) == 1 and len(mine) == 1 and len(mine[0]) == len(real[0]) and all(
                m is None or m == w for m, w in zip(mine[0], real[0])))
            if not ok:
                bad += 1
                if bad <= 5:
                    print("----\n%sbash: %s\nplan: %s\nnotes: %s" % (text, real, mine, res.notes))
    print("bad", bad, "of", n)


if __name__ == "__main__":
    main()
