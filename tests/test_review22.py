"""review22: a review of sessions 21 and 22's commits, with plan SCRIPT's reader fuzzed against real bash.

Each case runs the script through bash with argv-recording stubs (test_launch_scripts21.bash_argv) and through
gpudoctor/launch/script.py: every word the plan states must be the word bash passed (an unknown word may stand for
any)."""

import pytest

from gpudoctor.launch.script import MARK, read_script

LAUNCH = "torchrun --nproc_per_node 2 train.py"


def _both(tmp_path, body, args=()):
    from test_launch_scripts21 import bash_argv

    p = tmp_path / "s.sh"
    p.write_text("#!/bin/bash\n" + body + "\n")
    real = bash_argv(tmp_path, p, args)
    plan = read_script(str(p), list(args), environ={})
    return [r[4:] for r in real], [la.argv[4:] for la in plan.launches]


# The and-or list `A && B || C` (bash(1) Lists: && and || have equal precedence, left to right): the reader took
# the status of `B` from the words command() had left, and an assignment leaves none, so `C` ran as if no guard
# stood before it (`true && A=1 || A=2` planned 2, bash passes 1); and a skipped element was taken to have
# failed, as after `&&` only (`true || A=1 && A=2`: the list so far succeeded, so A=2 runs).
@pytest.mark.parametrize("chain,want", [
    ("true && A=1 || A=2", "1"),
    ("A=0; false && A=1 || A=2 && A=3 || A=4", "3"),
    ("true || A=1 && A=2", "2"),
    ("false || A=1 && A=2", "2"),
    ("[ 1 = 1 ] || A=1 && A=2 || A=3", "2"),
    ("A=0; [ 1 = 2 ] && A=1 || [ 2 = 2 ] && A=5", "5"),
])
def test_an_and_or_list_runs_what_bash_runs(tmp_path, chain, want):
    real, plan = _both(tmp_path, "%s\n%s $A" % (chain, LAUNCH))
    assert real == [[want]]
    assert plan == [[want]], plan


# 64be681 (review21) made a value set after an undecided `&&` / `||` an unknown where the name had another value
# before; a name set there for the first time kept the value as if the test had passed (bash without U: "d")
@pytest.mark.parametrize("guard", ['[ -n "$U" ] && A=1', '[ -z "$U" ] || A=1', '[ -n "$U" ] && true && A=1'])
def test_a_name_first_set_after_an_undecided_test_is_unknown(tmp_path, guard):
    real, plan = _both(tmp_path, '%s\n%s "${A:-d}"' % (guard, LAUNCH))
    assert real == [["d"]]
    ((word,),) = plan
    assert MARK in word, plan


# 23e21c9e split an unquoted ${X:-'a b'} as bash does (only the default's unquoted parts); ${X:+'a b'} and
# ${X+"a b"} (the alternate word) were still split at the blank inside the quotes
def test_the_alternate_word_keeps_its_quoted_blank(tmp_path):
    real, plan = _both(tmp_path, "A=1\n%s ${A:+'g h'} ${A+\"g h\"} ${A:+a\"b c\"d} ${A:+x y}" % LAUNCH)
    assert real == [["g h", "g h", "ab cd", "x", "y"]]
    assert plan == real


# ${C:+word} of a C known only at run time (C="$U") is word or nothing: the plan said word; and an argument
# given as "" is empty (${1:+x} is nothing, ${1:-d} is d): its stand-in was taken as a non-empty value
def test_the_alternate_of_a_run_time_value_is_unknown(tmp_path):
    real, plan = _both(tmp_path, 'C="$U"\n%s ${C:+w} z' % LAUNCH)
    assert real == [["z"]]
    ((first, last),) = plan
    assert MARK in first and last == "z", plan
    real, plan = _both(tmp_path, '%s ${1:+x} ${1:-d} ${2:+y}' % LAUNCH, args=("", "v"))
    assert real == [["d", "y"]]
    assert plan == real


# $B of an array is its first item (bash(1) Arrays: "Referencing an array variable without a subscript is
# equivalent to referencing with a subscript of 0"); the plan passed every item
def test_an_array_named_without_a_subscript_is_its_first_item(tmp_path):
    real, plan = _both(tmp_path, 'B=(x y)\n%s $B "$B" ${U:-$B} "${U:-$B}" ${B:+$B}' % LAUNCH)
    assert real == [["x", "x", "x", "x", "x"]]
    assert plan == real


# dc10a2c decodes $'...' in a default word, but not inside double quotes: bash's shopt extquote (on by default,
# bash(1)) decodes it there too, so "${C:-$'\t'}" is a TAB; the plan passed the five characters $'\t'
def test_ansi_c_quoting_in_a_double_quoted_default_is_decoded(tmp_path):
    real, plan = _both(tmp_path, "B=\"${C:-$'\\t'}\"\n%s \"$B\" \"${C:-a$'\\x41'b}\" \"${C:-\\$'x'}\"" % LAUNCH)
    assert real == [["\t", "aAb", "$'x'"]]
    assert plan == real


# d924365c (bash21) runs a subshell's lines and restores the state at its `)`; a loop inside it was replayed
# with the `)` that ended its `done`, so the subshell was closed twice: exit 3 (IndexError: pop from empty list)
@pytest.mark.parametrize("loop", ["( for A in 1 2; do N=$A; done )", "( while [ $N -lt 3 ]; do N=$((N+1)); done )",
                                  "( cd /tmp; for A in 1 2; do N=$A; done ) && N=$((N+4))"])
def test_a_loop_inside_a_subshell_is_read(tmp_path, loop):
    real, plan = _both(tmp_path, "N=0\n%s\n%s $N" % (loop, LAUNCH))
    assert plan == real, (plan, real)


# A shift (or set --) in a branch decided at run time made the arguments [] so that $1.. are unknown, but $# and "$@"
# were then stated as 0 and nothing, as if every argument had been shifted ('if [ -n "$U" ]; then shift; fi' with
# three arguments: bash passes a b c 3). They are unknown now
@pytest.mark.parametrize("branch", ['if [ -n "$U" ]; then shift; fi', 'if [ -n "$U" ]; then set -- 1 2 3 4; fi',
                                    '[ -n "$U" ] && shift'])
def test_the_arguments_after_a_run_time_shift_are_unknown_not_empty(tmp_path, branch):
    real, plan = _both(tmp_path, '%s\n%s "$@" $# ${@:2} z' % (branch, LAUNCH), args=("a", "b", "c"))
    assert real == [["a", "b", "c", "3", "b", "c", "z"]]
    ((*words, last),) = plan
    assert last == "z" and words and all(MARK in w for w in words), plan
    real, plan = _both(tmp_path, '%s\nset -- q\n%s "$@" $#' % (branch, LAUNCH), args=("a", "b", "c"))
    assert plan == real == [["q", "1"]]  # arguments set again are known again
    # set -- "$@" keeps them unknown; set -- $A of an A known only at run time is zero or more words: $# unknown
    real, plan = _both(tmp_path, '%s\nset -- 1 "$@"\n%s $# z' % (branch, LAUNCH), args=("a", "b", "c"))
    assert real[0][-1] == "z" and MARK in plan[0][0] and plan[0][1:] == ["z"], plan
    real, plan = _both(tmp_path, 'set -- $A 3\n%s $# z' % LAUNCH)
    assert real == [["1", "z"]]
    assert MARK in plan[0][0] and plan[0][1:] == ["z"], plan


# `exec torchrun ...` replaces the shell (bash(1) exec): bash runs nothing after it, but the plan also read the launch
# lines after it (fuzz round 2: `if test "$1" = a; then exec torchrun ...; fi` then another torchrun). An exec that
# surely runs ends the plan's reading; one in a branch decided at run time, a subshell or a pipeline does not
@pytest.mark.parametrize("first,ends", [("exec %s x", True), ('A=1\n[ "$A" = 1 ] && exec %s x', True),
                                        ("( exec %s x )", False),
                                        # the script's own output sent through tee: its shell goes on (b4094b6 ended
                                        # the plan there, the usual first line of a training script)
                                        ("exec > >(tee -a log.txt) 2>&1\n%s x", False),
                                        ("exec 1> >(tee out.txt) 2> >(tee err.txt >&2)\n%s x", False),
                                        ("exec {fd}>log\n%s x", False),
                                        ("exec -a trainer %s x", True),  # (exec's -a NAME was taken as the command)
                                        ("exec >/dev/null 2>&1\n%s x", False)])
def test_a_launch_line_after_exec_never_runs(tmp_path, first, ends):
    real, plan = _both(tmp_path, "%s\n%s y" % (first % LAUNCH, LAUNCH))
    assert real[0] == ["x"] and len(real) == (1 if ends else 2), real
    assert plan == real, plan


# a `case` decided only at run time: a name first set in one of its branches is that value or unset (as _if_done
# does for an if, and _guard_done for && / ||); the plan took the first branch's value (B unset: bash passes 3 1)
def test_a_name_first_set_in_a_case_decided_at_run_time_is_unknown(tmp_path):
    real, plan = _both(tmp_path, 'case "$B" in 1|2) B+=x ;; x*) cd /tmp ;; *) A=1 ;; esac\n%s ${B:-3} ${A:-4}' % LAUNCH)
    assert real == [["3", "1"]]
    assert len(plan[0]) == 2 and all(MARK in w for w in plan[0]), plan
    real, plan = _both(tmp_path, 'X=a\ncase "$X" in a) N=1 ;; *) N=2 ;; esac\n%s $N' % LAUNCH)
    assert plan == real == [["1"]]  # decided: the branch taken


# the status an and-or list takes from a command that is no test: `false` was taken to succeed (`false || A=3` left A
# unset), and the `!` before a command or test was dropped with the keywords (`! [ -z "$A" ] && B=2` skipped B=2)
@pytest.mark.parametrize("chain,want", [("false || A=3", "3"), ("{ false || A=3; } && A+=1", "31"),
                                        ('A=1; ! [ -z "$A" ] && A=2', "2"), ("A=0; ! false && A=3", "3"),
                                        ("A=0; ! true || A=2", "2")])
def test_false_and_a_bang_decide_an_and_or_list_as_in_bash(tmp_path, chain, want):
    real, plan = _both(tmp_path, "%s\n%s $A" % (chain, LAUNCH))
    assert real == [[want]]
    assert plan == real, plan


# explain's redaction read a flag's name up to its first '.': LightningCLI / jsonargparse's dotted flags
# ('--trainer.logger.init_args.api_key X') kept the key in clear in the quoted launch line
@pytest.mark.parametrize("line", ["python main.py fit --trainer.logger.init_args.api_key=%s --model.lr 0.1",
                                  "python main.py fit --trainer.logger.init_args.api_key %s --trainer.max_epochs 3",
                                  "train.py --wandb.api_key '%s'"])
def test_a_dotted_flags_secret_is_redacted(line):
    from gpudoctor.explain.redact import redact

    key = "0123456789abcdefABCDEF99"
    out = redact(line % key)
    assert key not in out and "REDACTED" in out, out
    assert redact("torchrun -m torch.distributed.run --nproc_per_node 2 --model.lr 0.1 x.py") == \
        "torchrun -m torch.distributed.run --nproc_per_node 2 --model.lr 0.1 x.py"


# a one-word name with ':' is a secret's key only at its line's start ('a token: huggingface-cli login' is prose); a
# dotted name ('cfg.wandb.api_key: X' after a rank prefix, an OmegaConf dump's key) is no prose: it was kept in clear
def test_a_dotted_keys_secret_after_a_prefix_is_redacted():
    from gpudoctor.explain.redact import redact

    key = "uLIx7jhR41rlc8bPUZ9"
    for line in ("[rank0]: cfg.wandb.api_key: %s", "INFO: db.password:%s"):
        assert key not in redact(line % key) and "REDACTED" in redact(line % key)
    assert redact("a token: huggingface-cli login") == "a token: huggingface-cli login"


# userwalk22's b18a5bf gives each node a verdict beside the nodes a launch finding names; a node the plan gives no
# process count passed launch.counts ('4 GPUs; the plan names no process count'): nothing was judged there, so n/a
def test_a_node_without_a_planned_process_count_is_na_not_pass():
    import test_mutation_launch_nccl as t

    facts = t.nodes(("a", 4), ("b", 4))
    got = t.result(t.run_check("launch.counts", facts, t.cfg(t.hosts_plan("mpirun", [("a", 8, 8), ("b", None, None)],
                                                                            "-H"))))
    assert got["outcomes"]["a"][0] == "fail"
    assert got["outcomes"]["b"] == ["na", "the plan names no process count for this node (4 GPUs)"], got


# d924365c keeps a subshell's cd and assignments to itself only where its `(` starts the command: after `then`, `do`
# or `else` on the same line the `(` was read as a function definition `do ( ... )`, and inside `{ ... }` (or after
# an `else` of a branch not taken) as no subshell: N=5 and the cd leaked past the `)`
@pytest.mark.parametrize("line", ["for A in 1; do ( N=5; cd /tmp ); done", "if [ $N = 1 ]; then ( N=5; cd /tmp ); fi",
                                  "if [ $N = 2 ]; then :; else ( N=5; cd /tmp ); fi", "{ ( N=5; cd /tmp ); } && true"])
def test_a_subshell_after_a_keyword_keeps_its_state_to_itself(tmp_path, line):
    real, plan = _both(tmp_path, "N=1\n%s\n%s $N $(pwd)" % (line, LAUNCH))
    assert real == [["1", str(tmp_path)]]
    assert plan[0][0] == "1" and plan[0][1] != "/tmp", plan


# `{ f() { ...; }; f 1 2; }` and `then g() { ...; }`: a function defined after `{` / `then` on its line was no
# function (the `(` after its name came with a keyword before it in the command): the call left B unknown
@pytest.mark.parametrize("body,want", [('{ f() { B="$@"; }; f 1 2; } && true', ["1", "2"]),
                                       ("if [ 1 = 1 ]; then g() { B=7; }; fi; g", ["7"])])
def test_a_function_defined_after_a_keyword_is_one(tmp_path, body, want):
    real, plan = _both(tmp_path, "%s\n%s $B" % (body, LAUNCH))
    assert real == [want]
    assert plan == real, plan


# after a shift in a branch decided at run time, $1 was "argument 1, not given here", which a test reads as empty:
# 'if test "$1" = a; then torchrun ...; fi' was decided false and its launch line left out (bash with 'a b c': run)
def test_a_launch_under_a_test_of_an_argument_after_a_run_time_shift_is_kept(tmp_path):
    real, plan = _both(tmp_path, 'if [ -n "$U" ]; then shift; fi\nif test "$1" = a; then %s x; fi' % LAUNCH,
                       args=("a", "b", "c"))
    assert real == [["x"]]
    assert plan == real, plan


# mutation round 17 found it: `if A && B; then` took the then-branch by A's test alone (the `if` frame took its
# condition's first command); bash runs the branch by the status of the list's last command that ran
@pytest.mark.parametrize("a", ["", "1"])
@pytest.mark.parametrize("b", ["", "1"])
@pytest.mark.parametrize("op", ["&&", "||"])
def test_an_if_whose_condition_is_an_and_or_list_takes_bashs_branch(tmp_path, a, b, op):
    body = ('A=%s\nB=%s\nif [ -n "$A" ] %s [ -n "$B" ]; then\n  %s then\nelif ! [ -z "$A" ] || false; then\n'
            '  %s elif\nelse\n  %s else\nfi' % (a, b, op, LAUNCH, LAUNCH, LAUNCH))
    real, plan = _both(tmp_path, body)
    assert len(real) == 1
    assert plan == real, (plan, real)


def test_an_and_or_condition_decided_at_run_time_keeps_both_branches(tmp_path):
    # B is the job's, unknown here: the then-branch may or may not run, so both launch lines stay in the plan
    p = tmp_path / "s.sh"
    p.write_text('A=1\nif [ -n "$A" ] && [ -n "$SLURM_JOB_ID" ]; then\n  %s then\nelse\n  %s else\nfi\n'
                 % (LAUNCH, LAUNCH))
    plan = read_script(str(p), [], environ={})
    assert sorted(la.argv[4:] for la in plan.launches) == [["else"], ["then"]]
