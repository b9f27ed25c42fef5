"""plan SCRIPT's bash reader against bash 5.2 (script23; the defects mutation round 18 found, docs/mutation.md):
an unquoted operand of dirname / basename / cd / realpath that word-splits is more than one operand to bash; `cd W`
fails where W is missing or a file (`&& pwd` prints nothing, `; pwd` the old directory); `exec CMD` in the else of
an if the script's values decide, and `exec 2>log CMD` (a redirection before the command), end the script. Each
script runs under bash with the launchers stubbed (test_launch_scripts21.bash_argv) beside the plan."""

import pytest
from test_launch_scripts21 import bash_argv, known, write

from gpudoctor.launch.script import read_script


def _plan_and_bash(tmp_path, cmd):
    d = tmp_path / "w"
    (d / "a").mkdir(parents=True)
    (d / "x y").mkdir()
    (d / "f.txt").write_text("x\n")
    p = write(tmp_path, "p.sh", 'D=%s\nV="$D/x y/z.sh"\nW="$D/x y"\ntorchrun --nproc_per_node 2 t.py "$(%s)"\n'
              % (d, cmd))
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    return known(la.argv)[-1], real[-1], d


# unquoted $V / $W hold a blank: bash splits them (dirname gets two operands, basename a name and a suffix, cd "too
# many arguments", realpath two paths), so the plan must not compute the unsplit value
SPLIT = ["dirname $V", "basename $V", "cd $W && pwd", "cd $W; pwd", "realpath $W", "readlink -f $W",
         "realpath -m $V"]
# the same operand quoted is one operand: the plan computes what bash prints
ONE = [('dirname "$V"', "x y"), ('basename "$V"', "z.sh"), ('cd "$W" && pwd', "x y"), ('realpath "$W"', "x y"),
       ('readlink -f "$W"', "x y"), ("dirname $D/a/b", "a"), ("cd $D/a && pwd", "a")]
# cd W where W is missing or a file: `&&` prints nothing, `;` the directory the shell was in
CD_FAILS = ["cd $D/nope && pwd", "cd $D/nope; pwd", "cd $D/f.txt && pwd", "cd $D/f.txt; pwd", "cd $D/a/nope/.. && pwd"]


@pytest.mark.parametrize("cmd", SPLIT)
def test_an_unquoted_operand_that_splits_is_not_computed(tmp_path, cmd):
    mine, real, d = _plan_and_bash(tmp_path, cmd)
    assert mine is None
    unsplit = {"dirname": str(d / "x y"), "basename": "z.sh"}.get(cmd.split()[0], str(d / "x y"))
    assert real != unsplit  # (bash did split it: the unsplit value would have been a wrong plan)


@pytest.mark.parametrize("cmd, last", ONE)
def test_one_field_operand_is_what_bash_passes(tmp_path, cmd, last):
    mine, real, _d = _plan_and_bash(tmp_path, cmd)
    assert mine is not None and mine == real
    assert mine.rpartition("/")[2] == last


@pytest.mark.parametrize("cmd", CD_FAILS)
def test_cd_to_a_missing_directory_or_a_file_is_not_its_path(tmp_path, cmd):
    mine, real, d = _plan_and_bash(tmp_path, cmd)
    assert mine is None
    assert real in ("", str(tmp_path))  # bash: nothing (&&), or the old directory (;)


ENDS = [
    # an else taken by the script's own values: bash execs and runs nothing after
    ('X=1\nif [ "$X" = 2 ]; then :; else exec torchrun --nproc_per_node 2 a.py; fi\n', ["a.py"]),
    ('X=1\nif [ "$X" = 2 ]\nthen\n:\nelse\nexec torchrun --nproc_per_node 2 a.py\nfi\n', ["a.py"]),
    # the else not taken, or decided only at run time: the script goes on
    ('X=1\nif [ "$X" = 1 ]; then :; else exec torchrun --nproc_per_node 2 a.py; fi\n', ["b.py"]),
    ('if [ -n "$1" ]; then :; else exec torchrun --nproc_per_node 2 a.py; fi\n', None),
    # redirections before the command: still `exec CMD`
    ("exec 2>log.txt torchrun --nproc_per_node 2 a.py\n", ["a.py"]),
    ("exec >log.txt 2>&1 torchrun --nproc_per_node 2 a.py\n", ["a.py"]),
    # redirections alone (also with a process substitution): the shell goes on
    ("exec 2>log.txt\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("exec > >(tee -a log.txt) 2>&1\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
]


@pytest.mark.parametrize("head, runs", ENDS, ids=[str(i) for i in range(len(ENDS))])
def test_exec_ends_the_plan_where_bash_ends(tmp_path, head, runs):
    p = write(tmp_path, "e.sh", "#!/bin/bash\n" + head + "torchrun --nproc_per_node 2 b.py\n")
    ran = [r[-1] for r in bash_argv(tmp_path, p) if r[0] == "torchrun"]
    planned = [la.argv[-1] for la in read_script(str(p), [], environ={}).launches]
    if runs is None:  # decided by an argument the plan was not given: bash (no argument) execs a.py; the plan keeps both
        assert ran == ["a.py"] and planned == ["a.py", "b.py"]
    else:
        assert ran == runs and planned == runs
