"""plan SCRIPT's newest readers, asserted against bash 5.2 and coreutils (mutation round 18, docs/mutation.md):
Reader._path_subst / _simple_cmds ($(dirname W), $(basename W S), $(cd W && pwd), $(realpath W), $(readlink -f W) of
a known W), _ends_script (exec / exit that end the script) and _srun_tasks (how many tasks srun starts). Each script
runs under bash with the launchers stubbed (test_launch_scripts21.bash_argv): a word the plan knows must be the word
bash passed, and a word the plan cannot know stays unknown."""

import pytest
from test_launch_scripts21 import bash_argv, known, write

from gpudoctor.launch.script import read_script


def _tree(tmp_path):
    (tmp_path / "w" / "a").mkdir(parents=True)
    (tmp_path / "w" / "f.txt").write_text("x\n")
    (tmp_path / "w" / "fX").write_text("x\n")  # (a name ending in X: rstrip("/") strips nothing else)
    (tmp_path / "w" / "X").mkdir()
    return tmp_path / "w"


def _plan_and_bash(tmp_path, cmd, run=True):
    d = _tree(tmp_path)
    p = write(tmp_path, "p.sh", 'D=%s\ntorchrun --nproc_per_node 2 t.py "$(%s)"\n' % (d, cmd))
    (la,) = read_script(str(p), [], environ={}).launches
    if not run:
        return known(la.argv)[-1], None
    (real,) = bash_argv(tmp_path, p)
    return known(la.argv)[-1], real[-1]


# coreutils: dirname strips trailing slashes, then the last part, then the slashes before it ('/' stays '/', no slash
# is '.'); basename strips trailing slashes and keeps the last part ('/' for '/'), then a suffix unless it is the whole
# name; realpath / readlink -f need every directory on the way, -e the last part too, -m nothing; cd W && pwd is W
# made absolute, . and .. folded
KNOWN = [
    "dirname $D/a/", "dirname $D//a//", "dirname /", "dirname ///", "dirname /x", "dirname x", "dirname x/",
    "dirname -- $D/a", "basename /", "basename ///", "basename $D/a/", "basename x.sh x.sh", "basename $D/x.tar.gz .gz",
    "basename x .sh", "basename -- -x", "basename -- $D/a.sh .sh", "basename $D/a/ a",
    "cd $D; pwd", "cd -- $D && pwd -P", "cd $D/a/.. && pwd", "cd $D > /dev/null && pwd", "cd $D/a/ && pwd -L",
    "realpath $D/a/", "realpath -s $D/a", "realpath -e $D/a", "realpath --canonicalize-existing $D/f.txt",
    "readlink -e $D/f.txt", "readlink -m $D/nope/x/..", "realpath --canonicalize-missing $D/nope/..",
    "realpath -q $D/a", "readlink -f $D/a/../a", "realpath -- $D/a", "realpath $D/nope", "readlink -f $D/a/nope",
    "realpath -L $D/./a//", "realpath -P $D/a/.", "realpath $D/f.txt",
    "basename $D/fX/", "dirname $D/X/y", "realpath -e $D/fX", "realpath --no-symlinks $D/a", "realpath --strip $D/a",
    "realpath --quiet $D/a", "realpath --logical $D/a", "realpath --physical $D/a", "readlink -f --canonicalize $D/a",
]
UNKNOWN = [
    "dirname -z $D", "dirname -z", "basename -a x", "dirname $D $D", "dirname", "basename a b c", "basename -a x y", "basename -s .sh x.sh",
    "dirname ''", "basename ''",
    "cd $D && pwd > /dev/null", "cd $D && pwd -x", "cd $D $D && pwd", "cd -- && pwd", "cd $D && ls",
    "cd $D & pwd", "cd $D; pwd; pwd", "cd $D && cd $D && pwd", "cd && pwd", "cd \"~\" && pwd", "realpath \"~/x\"",
    "readlink -e $D/nope", "realpath -e $D/f.txt/", "realpath $D/f.txt/x", "realpath -- -x",
    "realpath $D/f.txt/", "readlink -f $D/nope/x", "realpath -e $D/nope/..", "realpath > /dev/null $D",
    "readlink -n $D", "realpath $D/a $D/a", "cd $D > && pwd",
    "realpath --canonicalize-existing $D/nope", "realpath ${D:+-e}", "realpath $D/fX/",
]


@pytest.mark.parametrize("cmd", KNOWN)
def test_a_path_command_of_a_known_word_is_what_bash_passes(tmp_path, cmd):
    mine, real = _plan_and_bash(tmp_path, cmd)
    assert mine is not None and mine == real


@pytest.mark.parametrize("cmd", UNKNOWN)
def test_a_path_command_not_read_stays_unknown(tmp_path, cmd):
    mine, _real = _plan_and_bash(tmp_path, cmd, run=False)  # (bash: "" or another value, or a syntax error)
    assert mine is None


# exec CMD replaces the shell: nothing after it runs; `exec` with redirections only, or in a subshell / pipeline
# element, does not end the script; `exit` where the script's own values decide every enclosing test ends it, `exit`
# with two arguments does not (bash: "exit: too many arguments", and goes on)
ENDS = [
    ("exec torchrun --nproc_per_node 2 a.py\n", ["a.py"]),
    ("then_exec", ["a.py"]),
    ("exec > log.txt 2>&1\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("exec {fd}>log.txt\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("true | exec torchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("( exec torchrun --nproc_per_node 2 a.py )\n", ["a.py", "b.py"]),
    ("X=1\nif [ \"$X\" = 1 ]; then exit 0; fi\ntorchrun --nproc_per_node 2 a.py\n", []),
    ("X=1\nif [ \"$X\" = 2 ]; then exit 0; fi\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("X=1\n[ \"$X\" = 1 ] && exit 3\ntorchrun --nproc_per_node 2 a.py\n", []),
    ("X=1\n[ \"$X\" = 1 ] || exit 3\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("X=1\ncase $X in 1) exit 0;; esac\ntorchrun --nproc_per_node 2 a.py\n", []),
    ("exit 1 2\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("{ exit 0; }\ntorchrun --nproc_per_node 2 a.py\n", []),
    ("true | exit 0\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("( exit 0 )\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("for i in 1; do exec torchrun --nproc_per_node 2 a.py; done\n", ["a.py"]),
    ("{ exec torchrun --nproc_per_node 2 a.py; }\n", ["a.py"]),
    ("! exec torchrun --nproc_per_node 2 a.py\n", ["a.py"]),
    ("X=1\nif [ \"$X\" = 1 ]\nthen\nexec torchrun --nproc_per_node 2 a.py\nfi\n", ["a.py"]),
    ("X=1\nif [ \"$X\" = 2 ]; then :; else exit 0; fi\ntorchrun --nproc_per_node 2 a.py\n", []),
    ("X=1\nif [ \"$X\" = 1 ]; then\n  exit 0\nfi\ntorchrun --nproc_per_node 2 a.py\n", []),
    ("{ exit 0 1; }\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("exit\ntorchrun --nproc_per_node 2 a.py\n", []),
    ("exec env A=1 torchrun --nproc_per_node 2 a.py\n", ["a.py"]),
    ("exec -a name torchrun --nproc_per_node 2 a.py\n", ["a.py"]),
    ("exec\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
    ("exec >log.txt\ntorchrun --nproc_per_node 2 a.py\n", ["a.py", "b.py"]),
]


@pytest.mark.parametrize("head, runs", ENDS, ids=[str(i) for i in range(len(ENDS))])
def test_exec_and_exit_end_the_plan_where_bash_ends(tmp_path, head, runs):
    if head == "then_exec":
        head = "X=1\nif [ \"$X\" = 1 ]; then exec torchrun --nproc_per_node 2 a.py; fi\n"
    p = write(tmp_path, "e.sh", "#!/bin/bash\n" + head + "torchrun --nproc_per_node 2 b.py\n")
    ran = [r[-1] for r in bash_argv(tmp_path, p) if r[0] == "torchrun"]
    assert ran == runs
    planned = [la.argv[-1] for la in read_script(str(p), [], environ={}).launches]
    assert planned == runs


# srun(1): -n / --ntasks tasks; -N / --nodes times --ntasks-per-node (one a node without it); --ntasks-per-node alone
# on the allocation's nodes; neither: the job's own tasks (#SBATCH --ntasks). A range or a value known at run time:
# not known, no finding. torchrun without --nnodes takes at most 1 node (its default 1:1). launch28: #SBATCH --ntasks
# exports SLURM_NTASKS, which srun takes as its -n, so without srun's own -n the job's 2 tasks run whatever -N or
# --ntasks-per-node says (Slurm drops a --ntasks-per-node that does not give them: the real Slurm 22.05,
# tests/test_launch28_slurm.py).
JOB = '''#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks=%s
#SBATCH --gpus-per-node=4
srun %s torchrun --nproc_per_node 4 --rdzv_backend c10d --rdzv_endpoint host1:29500 train.py
'''
AGENTS = [("2", "", 2), ("2", "-n 3", 3), ("2", "--ntasks=3", 3), ("2", "-n3", 3), ("2", "--ntasks 5", 5),
          ("2", "-N 2 --ntasks-per-node=2", 2), ("2", "--nodes=2", 2), ("2", "-N2", 2), ("2", "--ntasks-per-node=3", 2),
          ("2", "--mpi=pmix -n 3", 3), ("2", "-w host1 -n 3", 3), ("2", "-N 1", 2), ("2", "-n 1", None),
          ("2", "-N 1-2", None), ("2", "-n $(nproc)", None), ("1", "", None), ("4", "", 4),
          ("2", "-n 3 -N 2", 3)]


@pytest.mark.parametrize("tasks, opts, agents", AGENTS, ids=["%s|%s" % (a[0], a[1]) for a in AGENTS])
def test_the_number_of_torchrun_agents_srun_starts(tmp_path, tasks, opts, agents):
    p = write(tmp_path, "job.sh", JOB % (tasks, opts))
    (la,) = read_script(str(p), [], environ={}).launches
    found = [f for f in la.findings if "torchrun agents" in f]
    if agents is None:
        assert found == []
    else:
        (f,) = found
        assert f.startswith("srun starts %d torchrun agents (one per task) for a rendezvous of at most 1 node "
                            "(torchrun's default --nnodes 1:1)" % agents), f


# ${V/pattern/string}: the pattern ends at the first / outside quotes, escapes and $(...) / ${...} / `...`
# (bash(1) Parameter Expansion); a / inside any of them is the pattern's. (_unquoted_index)
SLASH_OPS = ['//$(echo /)/_', '//${U:-/}/_', '//`echo /`/_', '//\\//_', "//'/'/_", '//"/"/_', '//${W}/_',
             '//$(echo a)/_', '//"$(echo /)"/_', '//${U:-a/b}/_', "//'a/b'/_", '//"a/b"/_', '//a\\/b/_',
             '/"${U:-/}"/-', '//`echo a`b/_', '//$((1))/_', '//$(echo ")")/_', '//$(echo "a/b")/_']


@pytest.mark.parametrize("quoted", [True, False])
def test_where_a_pattern_ends_is_where_bash_ends_it(tmp_path, quoted):
    q = '"' if quoted else ""
    words = "".join("%s${V%s}%s " % (q, op, q) for op in SLASH_OPS)
    p = write(tmp_path, "q.sh", "V='a/b/c a1b'\nW=/\ntorchrun --nproc_per_node 2 t.py %s\n" % words)
    res = read_script(str(p), [], environ={})
    assert not res.notes, res.notes
    (la,) = res.launches
    (real,) = bash_argv(tmp_path, p)
    assert len(real) == 4 + len(SLASH_OPS) * (1 if quoted else 2)
    assert la.argv == real


def test_torchrun_without_srun_or_without_the_job_s_nodes(tmp_path):
    # no srun: one agent, whatever the job's tasks; --ntasks-per-node alone with no #SBATCH --nodes: not known
    p = write(tmp_path, "job.sh", (JOB % ("2", "")).replace("srun  ", ""))
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.argv[0] == "torchrun" and not [f for f in la.findings if "torchrun agents" in f]
    p = write(tmp_path, "job2.sh", (JOB % ("2", "--ntasks-per-node=3")).replace("#SBATCH --nodes=2\n", "").replace(
        "#SBATCH --ntasks=2\n", ""))
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.argv[0] == "srun" and not [f for f in la.findings if "torchrun agents" in f]


SPOOLED = '''#!/bin/bash
#SBATCH --nodes=1
D=$(cd "$(dirname "$0")" && pwd)
torchrun --nproc_per_node 2 $D/t.py "$(dirname $0)" "$(realpath $0)" "$(basename $0 .sh)" "$(readlink -f $0)"
'''


def test_a_path_made_from_an_sbatch_file_s_0_is_slurmd_s_spool_directory(tmp_path):
    # under sbatch, $0 is slurmd's copy of the script (SlurmdSpoolDir/job<ID>/slurm_script): each form is unknown,
    # with that reason; the same script run with bash where it is: every word known, bash's
    p = write(tmp_path, "job.sh", SPOOLED)
    (la,) = read_script(str(p), [], environ={}).launches
    why = "a path in slurmd's spool directory (from $0 of an sbatch file), not this file's directory"
    assert [(u.text, u.why) for u in la.unknown] == [
        ('$(cd "$(dirname "$0")" && pwd)', why), ("$(dirname $0)", why), ("$(realpath $0)", why),
        ("$(basename $0 .sh)", why), ("$(readlink -f $0)", why)]
    q = write(tmp_path, "run.sh", SPOOLED.replace("#SBATCH", "# SBATCH"))
    (la,) = read_script(str(q), [], environ={}).launches
    (real,) = bash_argv(tmp_path, q)
    assert la.argv == real and real[-4:] == [str(tmp_path), str(q), "run", str(q)]


def test_a_relative_operand_is_read_from_the_directory_the_script_changed_to(tmp_path):
    d = _tree(tmp_path)
    p = write(tmp_path, "rel.sh", 'cd %s\ntorchrun --nproc_per_node 2 t.py "$(realpath a)" "$(cd a && pwd)" '
                                  '"$(readlink -f ./a/../f.txt)" "$(realpath -e X/../fX)"\n' % d)
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    assert la.argv == real and real[-4:] == [str(d / "a"), str(d / "a"), str(d / "f.txt"), str(d / "fX")]
