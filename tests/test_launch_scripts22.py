"""launch22: `gpudoctor plan SCRIPT` on real launch scripts of public training repositories
(round 3, bench/data/launch_real_scripts22.tsv). Each case is a real script's own lines (cited
by URL and commit), read by gpudoctor/launch/script.py and, where bash semantics matter, run by
bash with the launchers replaced by stubs that record their argv (nothing is trained or
started): every word gpudoctor knows must be the word bash passed."""

from test_launch_scripts21 import bash_argv, known, write

from gpudoctor.launch.script import read_script


# NVIDIA/Megatron-LM tests/functional_tests/shell_test_utils/_run_training.sh lines 40-55: a `$'`
# inside a single-quoted word ('Providing $') is a plain quote's end, no ANSI-C quote;
# https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/tests/functional_tests/shell_test_utils/_run_training.sh
# then $'...' words with an escaped quote (review21's fuzz finding: `\\'` inside $'...' ended the
# quote, and everything after it was read as an unclosed quote)
ANSI_Q = r'''#!/bin/bash
MANDATORY_VARS=(
    "TRAINING_SCRIPT_PATH"
)
for mandatory_var in "${MANDATORY_VARS[@]}"; do
    if [[ -z "${!mandatory_var}" ]]; then
        echo 'Providing $'$mandatory_var' is mandatory.'
    fi
done
MSG=$'it\'s a "test"'
torchrun --nproc_per_node 2 train.py --note "$MSG" --tag $'a\'b c' ${X:-$'d\'e'} "$$'x'" $'p\
q'
'''


def test_escaped_quote_inside_ansi_c_quote_does_not_end_it(tmp_path):
    p = write(tmp_path, "ansi.sh", ANSI_Q)
    res = read_script(str(p), [], environ={})
    assert not any("never closed" in n for n in res.notes), res.notes
    (la,) = res.launches
    (real,) = [r for r in bash_argv(tmp_path, p) if r[0] == "torchrun"]
    want = ["torchrun", "--nproc_per_node", "2", "train.py", "--note", 'it\'s a "test"', "--tag", "a'b c", "d'e",
            None, "p\\\nq"]  # bash keeps a backslash-newline inside $'...' as written
    assert real[9] == "%s'x'" % real[9].split("'")[0] and real[9][0].isdigit()  # "$$'x'": the PID, then 'x'
    assert [None if k == 9 else w for k, w in enumerate(real)] == want
    assert known(la.argv) == want  # the PID is known at run time only
