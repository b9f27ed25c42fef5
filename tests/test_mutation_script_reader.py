"""plan SCRIPT's shell reader, the parts mutation round 16 found unasserted (docs/mutation.md): which shell reads
its commands from standard input and with which arguments (bash(1) INVOCATION:
https://www.gnu.org/software/bash/manual/bash.html#Invoking-Bash), the here-document words of a line (bash(1)
Here Documents), and ${...} expansions (bash(1) Shell Parameter Expansion): each case states the whole result.
"""

import pytest

from gpudoctor.launch.script import _heredoc_words, _stdin_shell_args, read_script


@pytest.mark.parametrize("argv, args", [
    (["bash"], []),                                   # no -c, no file: commands from stdin
    (["bash", "-s", "a", "b"], ["a", "b"]),           # -s: the rest are the positional parameters
    (["bash", "-l", "-s", "x"], ["x"]),
    (["bash", "-ls", "x"], ["x"]),                    # -s among grouped flags
    (["bash", "-s", "--", "x"], ["x"]),               # '--' ends the options
    (["sh", "-s", "--"], []),
    (["bash", "--"], []),
    (["bash", "--", "x"], None),                      # x is a script file
    (["bash", "script.sh", "a"], None),
    (["bash", "--verbose", "x"], None),               # a long option's letters are no flags
    (["bash", "--norc", "-s", "a"], ["a"]),
    (["bash", "--noprofile"], []),
    (["bash", "-c", "cmd"], None), (["bash", "-xc", "c"], None), (["bash", "-c"], None),
    (["bash", "--rcfile", "f"], None), (["bash", "--init-file", "f"], None), (["bash", "--rcfile"], None),
    (["bash", "--init-file"], None), (["bash", "--", "-s"], None),   # after '--', -s is a script file's name
])
def test_stdin_shell_args(argv, args):
    assert _stdin_shell_args(argv) == args


@pytest.mark.parametrize("line, words", [
    ("cat <<EOF", [("EOF", False)]), ("cat << EOF", [("EOF", False)]), ("cat <<-EOF >out", [("EOF", True)]),
    ("cat <<'E O' x", [("'E O'", False)]), ("a <<<x", []), ("a << >x", []),   # a here-string; no word after <<
    ("cat <<EOF <<-B", [("EOF", False), ("B", True)]), ("echo '<<EOF'", []),
])
def test_heredoc_words(line, words):
    assert _heredoc_words(line) == words


def plan(tmp_path, text, args=()):
    f = tmp_path / "t.sh"
    f.write_text(text)
    (la,) = read_script(str(f), list(args), environ={}).launches
    return la.plan.script_args, [(u.text, u.why) for u in la.unknown]


def test_expansions_not_read_are_named(tmp_path):
    assert plan(tmp_path, "torchrun --nproc_per_node 2 t.py ${!X} ${X/a/b}\n") == (
        ["${!X}", "${X/a/b}"], [("${!X}", "an expansion gpudoctor does not read"),
                                ("${X/a/b}", "an expansion gpudoctor does not read (pattern or substring)")])


def test_positional_parameters(tmp_path):
    args, unknown = plan(tmp_path, 'torchrun --nproc_per_node 2 t.py "$@" $* "$*" ${@:2}\n', ["a", "b c"])
    assert args == ["a", "b c", "a", "b", "c", "a b c", "b", "c"] and unknown == []
    assert plan(tmp_path, 'torchrun --nproc_per_node 2 t.py "$@" "${*}"\n') == ([""], [])  # none given


def test_slurm_variables_are_set_at_run_time_so_their_default_is_not_taken(tmp_path):
    assert plan(tmp_path, "torchrun --nproc_per_node 2 t.py ${SLURM_ARRAY_TASK_ID:-0} ${MY_X:-1} ${SLURM_PROCID:-5}\n") \
        == (["$SLURM_ARRAY_TASK_ID", "1", "$SLURM_PROCID"],
            [("$SLURM_ARRAY_TASK_ID", "the Slurm allocation at run time"),
             ("$SLURM_PROCID", "each task's own rank (set by its launcher)")])


def test_array_items(tmp_path):
    assert plan(tmp_path, 'ARR=(x "y z")\ntorchrun --nproc_per_node 2 t.py ${ARR[@]} "${ARR[*]}" ${ARR[1]} ${ARR} '
                          '${#ARR[@]}\n') == (["x", "y", "z", "x y z", "y", "z", "x", "2"], [])


@pytest.mark.parametrize("text, opts", [
    # sbatch(1): "sbatch will stop processing further #SBATCH directives once the first non-comment non-whitespace
    # line has been reached in the script"
    ("#!/bin/bash\n#SBATCH -N 2\n#SBATCH --gres=gpu:8 # comment\n\n# note\n#SBATCH --ntasks-per-node=8\nsrun x\n"
     "#SBATCH -t 1\n", ["-N", "2", "--gres=gpu:8", "--ntasks-per-node=8"]),
    ('#SBATCH --job-name="a b\n#SBATCH -N 2', ["-N", "2"]),   # a directive whose quote is not closed: left out
    ("#SBATCH -J a#b # note x", ["-J", "a#b"]), ("", []), ("#SBATCH --x 'a b'", ["--x", "a b"]),
    ("echo\n#SBATCH -N 2", []), ("#SBATCH -J a # b # c", ["-J", "a"]),   # the first ' #' starts the comment
])
def test_sbatch_headers(text, opts):
    from gpudoctor.launch.script import sbatch_headers

    assert sbatch_headers(text) == opts


def test_parameter_expansion_forms(tmp_path):
    """bash(1) Shell Parameter Expansion: length, offset[:length], the :- - := :+ forms on set, empty and unset names;
    an unset one that the run-time environment may set stays unknown."""
    assert plan(tmp_path, "V=abcdef\nE=\ntorchrun --nproc_per_node 2 t.py ${#V} ${V:2} ${V:1:3} ${E:-d} ${E-d} ${U:=x} "
                          "$U ${V:+y} ${E:+y}\n") == (["6", "cdef", "bcd", "d", "x", "x", "y"], [])
    args, unknown = plan(tmp_path, "torchrun --nproc_per_node 2 t.py ${#X} ${X:1} ${3} ${10:-z} ${#1}\n",
                         ["a", "bb", "c"])
    assert args == ["${#X}", "${X:1}", "c", "z", "1"]
    assert unknown == [("${#X}", "the length of a value known at run time"),
                       ("${X:1}", "a part of a value known at run time"), ("$3", "argument 3 of the script")]
    assert plan(tmp_path, "torchrun --nproc_per_node 2 t.py ${X:?no} ${H:-$(hostname)}\n") == (
        ["$X", "$(hostname)"], [("$X", "the environment at run time"), ("$(hostname)", "this node's name at run time")])
