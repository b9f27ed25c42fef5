"""plan SCRIPT's `Reader.test` and `Reader.param`, the parts mutation round 17 found unasserted (docs/mutation.md):
each case states the reader's whole answer, and where the answer is a decision (True / False) real bash makes the
same one on the same words (bash(1) CONDITIONAL EXPRESSIONS, `test`, `[[`: https://www.gnu.org/software/bash/manual/
bash.html#Bash-Conditional-Expressions; Shell Parameter Expansion:
https://www.gnu.org/software/bash/manual/bash.html#Shell-Parameter-Expansion).
"""

import shutil
import subprocess

import pytest

from gpudoctor.launch.script import Reader, read_script

BASH = shutil.which("bash")
ARGS = ["a", "b"]
VARS = {"X": "abc", "E": "", "N": "3", "M": "12", "S": "a  b", "D": "-n"}


def reader():
    r = Reader("t.sh", list(ARGS), environ={})
    r.vars.update(VARS)
    return r


def bash_says(words, tmp_path):
    """What bash's own test builtin / [[ ]] decides on the same words, in an empty folder (an unquoted a* globs)."""
    setup = "".join("%s=%s; " % (k, "'%s'" % v) for k, v in VARS.items())
    script = "set -- %s; %s%s" % (" ".join(ARGS), setup, " ".join(words))
    rc = subprocess.run([BASH, "--norc", "--noprofile", "-c", script], cwd=str(tmp_path), env={"PATH": "/usr/bin:/bin"},
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10).returncode
    return {0: True, 1: False}.get(rc, "error %d" % rc)


DECIDED = [
    (["[", "-n", '"$X"', "]"], True), (["[", "-z", '"$X"', "]"], False), (["[", "-z", "$E", "]"], True),
    (["[", "-n", '"$E"', "]"], False),
    (["!", "[", "-z", "$E", "]"], False),            # a `!` before the command negates its status
    (["!", "[", "-n", '"$E"', "]"], True),
    # [ and test are commands: an unquoted word that expands to nothing is no word, so `[ -n $E ]` is `[ -n ]`
    (["[", "-n", "$E", "]"], True), (["!", "[", "-n", "$E", "]"], False), (["[", "-n", "$3", "]"], True),
    (["[", "-n", "$E$E", "]"], True), (["[", "-n", "x$E", "]"], True),
    (["[", "!", "-z", '"$E"', "]"], False),          # a `!` inside negates the expression
    (["[", "!", "-n", '"$E"', "]"], True),
    (["!", "[", "!", "-n", '"$E"', "]"], False),     # both
    (["test", "-n", '"$X"'], True), (["test", "$N", "-lt", "4"], True), (["test", '"$X"'], True),
    (["[", "x", "]"], True), (["[", '""', "]"], False), (["[", '"$E"', "]"], False),   # one word: non-empty
    (["[", "-n", "]"], True),                        # `-n` alone is one non-empty word
    (["[", '"$D"', "]"], True),                      # so is a value that reads `-n`
    (["[[", "$X", "==", "a*", "]]"], True),          # [[ ]]: an unquoted right side is a pattern
    (["[[", "$X", "==", '"a*"', "]]"], False),       # quoted, a string
    (["[[", "$X", "==", "'a*'", "]]"], False),
    (["[[", "$X", "!=", "a*", "]]"], False), (["[[", "$X", "!=", '"a*"', "]]"], True),
    (["[[", "$X", "=", "abc", "]]"], True),
    (["[", "$X", "=", "a*", "]"], False),            # [ ]: always a string comparison
    (["[", "$X", "==", "abc", "]"], True), (["[", "$X", "!=", "abc", "]"], False), (["[", "$X", "!=", "ab", "]"], True),
    (["[[", "$S", "==", '"a  b"', "]]"], True),      # no word splitting inside [[ ]]
    (["[[", '"$@"', "==", '"a b"', "]]"], True),     # "$@" joined by one blank
    (["[", "$N", "-eq", "3", "]"], True), (["[", "$N", "-eq", "4", "]"], False),
    (["[", "$N", "-ne", "3", "]"], False), (["[", "$N", "-ne", "4", "]"], True),
    (["[", "$N", "-lt", "3", "]"], False), (["[", "$N", "-lt", "4", "]"], True),
    (["[", "$N", "-le", "3", "]"], True), (["[", "$N", "-le", "2", "]"], False),
    (["[", "$N", "-gt", "3", "]"], False), (["[", "$N", "-gt", "2", "]"], True),
    (["[", "$N", "-ge", "3", "]"], True), (["[", "$N", "-ge", "4", "]"], False),
    (["[", "$M", "-gt", "9", "]"], True),            # numbers, not strings: "12" < "9" as text
    (["[", "-3", "-lt", "$N", "]"], True), (["[", "$N", "-eq", "-3", "]"], False),
    (["[", "-z", '"$3"', "]"], True),                # an argument not given is empty to test
    (["[", "-n", '"$2"', "]"], True),
]


@pytest.mark.parametrize("words, decided", DECIDED)
def test_test_decides_as_bash_does(words, decided, tmp_path):
    assert reader().test(words) is decided
    assert bash_says(words, tmp_path) is decided


UNDECIDED = [
    ["[", "-n", '"$U"', "]"],                        # a value the environment sets at run time
    ["[", "$U", "=", "x", "]"], ["[[", "$X", "==", "$U", "]]"],
    ["echo", "x"], ["if"], [], ["!"],                # no test command
    ["[", "-n", "x"], ["[[", "x", "]"], ["[", "]]"],  # [ without its ]
    ["[", "a", "b", "]"],                            # two words, the first no unary operator (bash: error)
    ["[", "a", "-a", "b", "-o", "c", "]"],           # more than three words: not read
    ["[", "$X", "-eq", "3", "]"], ["[", "3", "-eq", "$X", "]"],   # -eq on a word that is no integer
    ["[", "1234567890123456789", "-gt", "1", "]"],   # over 18 digits: not read
    ["[", "$X", "-xx", "b", "]"],                    # an operator not read
    ["[", "$X", "<", "b", "]"],
    ["[", "$E", "=", "x", "]"],                      # `[ = x ]` (bash: error)
    ["[", "-n", "$S", "]"],                          # `[ -n a b ]`: split, three words (bash: error)
]


@pytest.mark.parametrize("words", UNDECIDED)
def test_test_leaves_what_it_cannot_decide(words):
    assert reader().test(words) is None


def plan(tmp_path, text, args=()):
    f = tmp_path / "t.sh"
    f.write_text(text)
    (la,) = read_script(str(f), list(args), environ={}).launches
    return la.plan.script_args, [(u.text, u.why) for u in la.unknown]


def test_a_test_decides_the_branch_the_plan_takes(tmp_path):
    text = ('A=1\nif [ "$X" != "" ]; then A=2; fi\nif ! [ -z "$1" ]; then B=3; else B=4; fi\n'
            'if [[ "$1" == a* ]]; then C=5; else C=6; fi\n'
            'torchrun --nproc_per_node 2 t.py $A $B $C\n')
    assert plan(tmp_path, "X=\n" + text, ["ab"]) == (["1", "3", "5"], [])
    assert plan(tmp_path, "X=y\n" + text, ["b"]) == (["2", "3", "6"], [])
