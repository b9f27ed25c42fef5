"""bash21: lines where `gpudoctor plan SCRIPT` stated a value bash never passes (review21's
fuzzing against real bash). Each case runs the same lines through bash with argv-recording
launcher stubs and compares every word the plan knows."""

from gpudoctor.launch.script import read_script

from test_launch_scripts21 import bash_argv, known, write


def both(tmp_path, text):
    p = write(tmp_path, "s.sh", text)
    mine = [known(la.argv) for la in read_script(str(p), [], environ={}).launches]
    return mine, bash_argv(tmp_path, p)


def test_time_p_in_front_of_the_launcher(tmp_path):
    # bash's `time` keyword takes -p: no launch line was found
    mine, real = both(tmp_path, "time -p torchrun --nproc_per_node 2 train.py\n")
    assert real == [["torchrun", "--nproc_per_node", "2", "train.py"]]
    assert mine == real


def test_declare_i_assigns_arithmetic(tmp_path):
    # the plan read `declare -i N=1+1` as '1+1'
    mine, real = both(tmp_path, 'declare -i N=1+1\ndeclare -i M="2*3"\nM+=1\n'
                                "torchrun --nnodes $N --nproc_per_node $M train.py\n")
    assert real == [["torchrun", "--nnodes", "2", "--nproc_per_node", "7", "train.py"]]
    assert mine == real


def test_local_ends_with_the_function(tmp_path):
    # `local N=3` in a function leaked N=3 to the lines after the call
    mine, real = both(tmp_path, "N=2\nf() { local N=3; local J=9; declare G=1; declare -g H=4; }\nf\n"
                                "torchrun --nproc_per_node $N train.py ${J:-none} ${G:-none} $H\n")
    assert real == [["torchrun", "--nproc_per_node", "2", "train.py", "none", "none", "4"]]
    assert mine == real


def test_subshell_and_pipeline_element_end_there(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # $(pwd) with no cd is where the plan runs, as bash's is
    # `( cd /tmp; N=3 )` and `echo x | N=5` carried their cd and assignments to the lines after them
    mine, real = both(tmp_path, "N=2\nM=1\n(cd /tmp; N=3)\n( N=4 )\necho x | N=5\necho y | M=6 | cat\n"
                                "(\n  cd /\n  M=8\n)\nf() { :; }\nif [[ ( -n x ) ]]; then K=1; fi\n"
                                "torchrun --nproc_per_node $N $(pwd)/train.py $M $K\n")
    assert real == [["torchrun", "--nproc_per_node", "2", str(tmp_path) + "/train.py", "1", "1"]]
    assert mine == real


def test_quotes_in_an_unquoted_default_keep_one_word(tmp_path):
    # ${X:-'a b'} unquoted was split into 'a', 'b'; bash splits only the default's unquoted parts
    mine, real = both(tmp_path, "torchrun --nproc_per_node 2 t.py ${X:-'a b'} ${X:-a\"b c\"d} ${X:-'p q' r} "
                                "x${X:-\"\"}y ${X:-plain words} ${Y:=\"u v\"}\n")
    assert real == [["torchrun", "--nproc_per_node", "2", "t.py", "a b", "ab cd", "p q", "r", "xy", "plain", "words",
                     "u", "v"]]
    assert mine == real


def test_ansi_c_quote_is_decoded(tmp_path):
    # ${X:-$'a\tb'} was '$a\tb' in the plan; bash passes a TAB
    mine, real = both(tmp_path, "torchrun --nproc_per_node 2 t.py ${X:-$'a\\tb'} $'x\\ny' $'\\x41\\101\\z' a$'b c'd\n")
    assert real == [["torchrun", "--nproc_per_node", "2", "t.py", "a\tb", "x\ny", "AA\\z", "ab cd"]]
    assert mine == real
