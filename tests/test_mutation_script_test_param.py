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
    (["[", "-n", "''", "]"], False), (["[", "-z", "''", "]"], True),   # a quoted empty word is a word
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


def plan_of(tmp_path, text, args=(), environ=None):
    f = tmp_path / "t.sh"
    f.write_text(text)
    (la,) = read_script(str(f), list(args), environ=environ or {}).launches
    return la.plan.script_args, [(u.text, u.why, u.here, u.fixed, u.host, u.given) for u in la.unknown]


T = "torchrun --nproc_per_node 2 t.py "
HOSTS = '$(scontrol show hostnames "$SLURM_JOB_NODELIST")'


def test_an_array_of_the_allocations_node_names(tmp_path):
    """NODES=( $(scontrol show hostnames ...) ): its count is the allocation's nodes, its first item the first node."""
    first = (HOSTS + "[0]", "the first node of the allocation", None, None, True, False)
    assert plan_of(tmp_path, "#SBATCH -N 4\nNODES=( %s )\n%s${#NODES[@]} ${NODES[0]} ${NODES} ${#NODES[*]}\n" % (
        HOSTS, T)) == (["4", HOSTS + "[0]", HOSTS + "[0]", "4"], [first])
    assert plan_of(tmp_path, "NODES=( %s )\n%s${#NODES[@]}\n" % (HOSTS, T)) == (["${#NODES[@]}"], [
        ("${#NODES[@]}", "the number of nodes in the allocation at run time", None, None, False, False)])
    # another command's output: any number of words
    assert plan_of(tmp_path, "W=( $(cat f) )\nV=( a $(cat f) )\n%s${#W[@]} ${#V[@]} ${W[0]}\n" % T) == (
        ["${#W[@]}", "${#V[@]}", "$(cat f)"],
        [("$(cat f)", "the output of a command at run time", None, None, False, False),
         ("${#W[@]}", "the number of words a value known at run time splits into at run time", None, None, False,
          False),
         ("${#V[@]}", "the number of words a value known at run time splits into at run time", None, None, False,
          False)])


def test_array_items_past_the_end_and_joined(tmp_path):
    assert plan_of(tmp_path, "ARR=(x 'y z')\nB=\"${ARR[*]}\"; C=${ARR[@]}\n%s${ARR[5]} ${ARR[2]} ${ARR[0]} "
                             "\"${ARR[@]}\" \"$B\" \"$C\" \"${ARR[1]}\"\n" % T) == (
        ["x", "x", "y z", "x y z", "x y z", "y z"], [])


@pytest.mark.parametrize("words, args, want", [
    ("${@:0} ${@:0:1} ${*:2} \"${@:2}\" ${@:1:1} \"${*:2}\"", ["a b", "c", "d"],
     ["S", "a", "b", "c", "d", "S", "c", "d", "c", "d", "a", "b", "c d"]),   # ${@:0} starts with the script's path;
    # "${@:2}" is one word per argument, as "$@" (bash: `set -- 'a b' c d; printf '<%s>' "${@:2}"` prints <c><d>)
    ("${@:-x} \"${*}\" \"${@}\" ${@:+y} ${*:+z} ${#@} ${#*} \"${#@}\"", ["a b", "c"],
     ["a", "b", "c", "a b c", "a b", "c", "y", "z", "2", "2", "2"]),      # ${#@}: the number of arguments
    ("${@:-x} \"${*}\" ${@:+y} ${*:+z} ${#@}", [], ["x", "", "0"]),
])
def test_positional_parameters_as_bash_expands_them(words, args, want, tmp_path):
    got, unknown = plan_of(tmp_path, T + words + "\n", args)
    assert [str(tmp_path / "t.sh") if w == "S" else w for w in want] == got and unknown == []
    script = "set -- %s; for w in %s; do printf '%%s\\n' \"$w\"; done" % (
        " ".join("'%s'" % a for a in args), words.replace("${@:0", "${@:1").replace("${*:0", "${*:1"))
    if "${@:0" not in words:   # (bash -c's $0 is no script path)
        out = subprocess.run([BASH, "-c", script], capture_output=True, text=True, timeout=10).stdout
        assert out.split("\n")[:-1] == got


@pytest.mark.parametrize("pre, want", [
    ("", ["d", "e", "e", "f", "g", "Eg", "h", "i", "h", "i", "j k", "j", "k", "a\nb"]),   # X, E, Y, Z unset
    ("E=\n", ["d", "e", "e", "E", "h", "i", "h", "i", "j k", "j", "k", "a\nb"]),          # E set and empty
])
def test_defaults_with_and_without_the_colon(pre, want, tmp_path):
    """${X-w} / ${X=w} take the word only when X is unset, ${X:-w} / ${X:=w} also when it is empty; = assigns."""
    words = '${X-d} ${X=e} $X ${E-f} ${E=g} E$E ${Y:=h i} $Y "${Z:-j k}" ${Z:-j k} "${Q:-a\nb}"'
    assert plan_of(tmp_path, pre + T + words + "\n") == (want, [])
    out = subprocess.run([BASH, "-c", "%sfor w in %s; do printf '%%s\\0' \"$w\"; done" % (pre.replace("\n", "; "),
                                                                                          words)],
                         capture_output=True, text=True, timeout=10).stdout
    assert out.split("\0")[:-1] == want


def test_a_rank_default_is_planned_but_the_node_sets_it(tmp_path):
    assert plan_of(tmp_path, T + "${NODE_RANK:-0} ${MY_RANK:-1}\n") == (["0", "1"], [
        ("${NODE_RANK:-0}", "the environment at run time, else 0", None, "0", False, True),
        ("${MY_RANK:-1}", "the environment at run time, else 1", None, "1", False, True)])


def test_a_default_where_this_shell_sets_the_name(tmp_path):
    shown = "set (value not shown: not an allow-listed name)"
    assert plan_of(tmp_path, T + "${X:-d} ${X:+w} ${Y-e}\n", environ={"X": "1", "Y": "2"}) == (
        ["${X:-d}", "${X:+w}", "${Y-e}"], [
            ("${X:-d}", "the environment at run time, else 'd'", shown, None, False, False),
            ("${X:+w}", "set only if X is in the environment", None, None, False, False),
            ("${Y-e}", "the environment at run time, else 'e'", shown, None, False, False)])


def test_a_part_of_a_secret_looking_value_is_not_shown(tmp_path):
    hidden = "a part of a secret-looking value (not shown)"
    assert plan_of(tmp_path, "HF_TOKEN=abcdef123\nX=$HF_TOKEN\nMAX_TOKENS=4096\nN=abcdef\n"
                             "%s${HF_TOKEN:3} ${X:2} ${MAX_TOKENS:1} ${N:2:2}\n" % T) == (
        ["${HF_TOKEN:3}", "${X:2}", "096", "cd"], [
            ("${HF_TOKEN:3}", hidden, None, None, False, False), ("${X:2}", hidden, None, None, False, False)])
    # a TOKENS name holding a whole number is a count of tokens (left23's rule, collector/system.py
    # secret_env_name), shown; the same name holding anything else stays hidden
    assert plan_of(tmp_path, "MAX_TOKENS=x4096\n%s${MAX_TOKENS:1}\n" % T) == (
        ["${MAX_TOKENS:1}"], [("${MAX_TOKENS:1}", hidden, None, None, False, False)])


def test_an_alternate_word_of_a_value_known_only_at_run_time(tmp_path):
    assert plan_of(tmp_path, 'C="$U"\nD="a$U"\n%s${C:+w} ${D:+w} ${C+x} ${Q+y}\n' % T) == (
        ["${C:+w}", "w", "x", "${Q+y}"], [
            ("${C:+w}", "the word if C is not empty at run time, else nothing", None, None, False, False),
            ("${Q+y}", "set only if Q is in the environment", None, None, False, False)])


@pytest.mark.parametrize("pre, words, args", [
    ("", "${3-d} ${2-d} ${3:-e} ${2:+f} ${3:+g}", ["a", "b"]),        # an argument not given is unset
    ("", '${1:-d} "<${1:+w}>" "<${1-d}>" ${1+w} x', [""]),             # one given as "" is set and empty
    # quotes inside a double-quoted word stay; ${V:?no} of a set V is V
    ("E=\nF=\nV=v\n", "${E:=g} $E \"${Z:-'j k'}\" \"${V:+'a b'}\" ${V:+'a b'} \"${F:-'j k'}\" ${V:?no}", []),
])
def test_forms_on_given_and_empty_values_as_bash(pre, words, args, tmp_path):
    got, unknown = plan_of(tmp_path, pre + T + words + "\n", args)
    out = subprocess.run([BASH, "-c", "%sset -- %s; for w in %s; do printf '%%s\\0' \"$w\"; done" % (
        pre.replace("\n", "; "), " ".join("'%s'" % a for a in args), words)], capture_output=True, text=True,
        timeout=10).stdout
    assert got == out.split("\0")[:-1]
    assert [u[:2] for u in unknown if not u[5]] == []


def test_a_default_this_shell_overrides_is_shown_cut(tmp_path):
    word = "abcdefghij" * 4
    assert plan_of(tmp_path, T + "${X:-%s}\n" % word, environ={"X": "1"})[1] == [
        ("${X:-%s}" % word, "the environment at run time, else 'abcdefghijabcdefghijabcdefghij'... (40 characters)",
         "set (value not shown: not an allow-listed name)", None, False, False)]
