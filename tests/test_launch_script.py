"""`gpudoctor plan SCRIPT [ARGS]` (gpudoctor/launch/script.py): launch scripts read without
running them, compared with how bash really expands them (the launchers replaced by stubs
that record their argv, in a private temp dir: nothing is trained or started)."""

import json
import os
import shutil
import stat
import subprocess

import pytest

from conftest import FIXTURES
from gpudoctor.launch.script import MARK, read_script

S = os.path.join(FIXTURES, "launch", "scripts")
STUBS = ("torchrun", "deepspeed", "accelerate", "mpirun", "python", "ipython", "module", "horovodrun")
# srun runs what follows its options once per task (SLURM_PROCID 0 and 1), as a task's own
# process: a `bash -c` string is expanded there again, and only there
SRUN = r'''#!/bin/bash
r=$(printf '%s\037' srun "$@"); printf '%s\036' "$r" >> "$REC"
n=2
while [ $# -gt 0 ]; do case "$1" in -n|--ntasks) n=$2; shift 2;; --ntasks=*) n=${1#*=}; shift;;
  -w|-N|--nodes) shift 2;; -*) shift;; *) break;; esac; done
[ $# -eq 0 ] && exit 0
for t in $(seq 0 $((n - 1))); do SLURM_PROCID=$t SLURM_NODEID=$t "$@"; done
'''
STUB = "#!/bin/sh\nr=$(printf '%s\\037' \"$(basename \"$0\")\" \"$@\"); printf '%s\\036' \"$r\" >> \"$REC\"\n"
SCONTROL = "#!/bin/sh\nprintf 'node1\\nnode2\\n'\n"
ALLOC = {"SLURM_JOB_NODELIST": "node[1-2]", "SLURM_PROCID": "0", "SLURM_NODEID": "0"}


def real_bash(tmp_path, script, args, env_extra):
    """The argv of every stub call when bash runs the script (no launcher is real)."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    for name, text in [(n, STUB) for n in STUBS] + [("srun", SRUN), ("scontrol", SCONTROL)]:
        (stubs / name).write_text(text)
        (stubs / name).chmod(stat.S_IRWXU)
    rec = tmp_path / "rec"
    rec.write_bytes(b"")
    env = {"PATH": "%s:/usr/bin:/bin" % stubs, "REC": str(rec), "HOME": str(tmp_path)}
    env.update(env_extra)
    subprocess.run([bash, os.path.join(S, script)] + list(args), cwd=str(tmp_path), env=env, timeout=30,
                   capture_output=True)
    return [r.split("\x1f")[:-1] for r in rec.read_bytes().decode().split("\x1e") if r]


def agrees(plan_argv, real):
    """Every word gpudoctor knows is the word bash passed; an unknown one is anything (the
    NAME=value words in front are the launcher's environment, not its argv)."""
    import re as _re

    while plan_argv and _re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", plan_argv[0]):
        plan_argv = plan_argv[1:]
    if not plan_argv or not real or os.path.basename(plan_argv[0]) != os.path.basename(real[0]):
        return False
    whole = _re.compile("^" + MARK + r"\d+" + MARK + "$")

    def match(p, r):  # an unquoted unknown alone in its word may be no word or several
        if not p:
            return not r
        if whole.match(p[0]):
            return any(match(p[1:], r[k:]) for k in range(len(r) + 1))
        return bool(r) and (MARK in p[0] or p[0] == r[0]) and match(p[1:], r[1:])

    return match(plan_argv[1:], real[1:])


# script, args, the allocation bash runs it in, and what the plan must say
CASES = [
    ("users_notes_train.sh", ["2", "1"], {}, {"world": 16, "nnodes": 2, "master": "10.98.115.10:6000",
                                             "findings": []}),
    ("megatron_bert_distributed.sh", ["/ckpt", "/data/x"], {}, {"world": 8, "nnodes": 1,
                                                               "master": "localhost:6000", "findings": []}),
    ("pytorch_examples_sbatch_run.sh", [], dict(ALLOC, SLURM_NNODES="4", SLURM_NTASKS="4"),
     {"world": 4, "nnodes": 4, "findings": []}),
    ("lightning_submit.sh", [], dict(ALLOC, SLURM_NNODES="32", SLURM_NTASKS="64"),
     {"world": 64, "nnodes": 32, "findings": []}),
    ("issue19_procid_once.sbatch", [], dict(ALLOC, SLURM_NNODES="2"), {"world": 16, "nnodes": 2,
                                                                      "findings": ["expanded once by the batch shell"]}),
    ("issue19_procid_per_task.sbatch", [], dict(ALLOC, SLURM_NNODES="2"), {"world": 16, "nnodes": 2,
                                                                          "findings": []}),
    ("hardcoded_rank.sh", [], {}, {"world": 16, "nnodes": 2, "master": "localhost:29500",
                                   "findings": ["node rank is 0 on every node", "localhost on a 2-node plan"]}),
    ("koglm_eval_run_cmd.sh", [], {}, {"world": 2, "nnodes": 1, "findings": []}),
    ("deepseek_slurm_sh_c.sh", ["-N", "2"], dict(ALLOC, SLURM_NNODES="2"), {"world": None, "nnodes": None,
                                                                          "findings": []}),
    ("llama_factory_run_ds.sh", ["--lr", "1"], {}, {"world": 16, "nnodes": 2, "master": "10.252.32.12:29500",
                                                   "findings": []}),
    # $SLURM_PROCID expanded once into --node_rank, which c10d does not use (tests/test_plan_rdzv.py)
    ("hpcfund47_c10d_procid.sbatch", [], dict(ALLOC, SLURM_NNODES="2", SLURM_JOB_ID="7"),
     {"world": 8, "nnodes": 2, "master": "$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1) (the "
                                         "first node of the allocation):29500", "findings": []}),
]


@pytest.mark.parametrize("script,args,alloc,want", CASES, ids=[c[0] for c in CASES])
def test_script_plan_agrees_with_real_bash(tmp_path, script, args, alloc, want):
    res = read_script(os.path.join(S, script), args, environ={})
    (la,) = res.launches
    assert la.refused is None and la.plan is not None
    real = real_bash(tmp_path, script, args, alloc)
    launched = [r for r in real if r[0] != "srun" or not any(a in ("bash", "hostname") for a in r)]
    # the launch line bash ran (srun's own record, or the launcher's when srun ran it)
    planned = [os.path.basename(a) if k == 0 else a for k, a in enumerate(la.argv)]
    inner = [a for a in planned if a != "srun"] if planned[0] == "srun" else planned
    assert any(agrees(planned, r) or agrees(inner, r) or agrees(planned[-len(r):], r) for r in launched), (
        planned, real)
    p = la.plan
    assert (p.world_size(), p.nnodes_max) == (want["world"], want["nnodes"])
    if "master" in want:
        assert "%s:%s" % (p.master_addr, p.master_port) == want["master"]
    assert len(la.findings) == len(want["findings"]) and all(
        any(w in f for f in la.findings) for w in want["findings"]), la.findings


def test_procid_in_double_quotes_is_the_same_on_every_task_in_real_bash(tmp_path):
    # the recorded truth behind the finding: double quotes give every task --machine_rank 0,
    # single quotes give each task its own
    def ranks(script):
        real = real_bash(tmp_path, script, [], dict(ALLOC, SLURM_NNODES="2"))
        return [r[r.index("--machine_rank") + 1] for r in real if r[0] == "accelerate"]

    assert ranks("issue19_procid_once.sbatch") == ["0", "0"]
    assert ranks("issue19_procid_per_task.sbatch") == ["0", "1"]


def test_unknowns_are_named_with_where_they_come_from(gpudoctor_cli):
    rc, out, err = gpudoctor_cli("plan", os.path.join(S, "issue19_procid_once.sbatch"))
    assert rc == 1, err  # a finding: exit 1, as `check` (launch27; it was 0)
    # (red team 2026-11-28h, docs/security.md 94.: a command substitution is one sh() word, as the line row shows it)
    assert "unknown      '$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)': the first node of the " \
           "allocation" in out
    assert "known        $SLURM_NNODES = 2: from the allocation (#SBATCH -N 2" in out
    assert "world size     16" in out and "finding      $SLURM_PROCID is expanded once" in out
    rc, out, err = gpudoctor_cli("plan", "--json", "bash", os.path.join(S, "users_notes_train.sh"))
    doc = json.loads(out)
    (la,) = doc["launches"]
    assert doc["schema"] == "gpudoctor.script/1" and la["plan"]["world_size"] == {"min": 1 * 8, "max": 8}
    assert la["plan"]["master"] == {"addr": "10.98.115.10", "port": 6000}


def test_an_argument_not_given_is_unknown_not_empty(tmp_path):
    res = read_script(os.path.join(S, "megatron_bert_distributed.sh"), [], environ={})
    (la,) = res.launches
    assert sorted(u.text for u in la.unknown if not u.given) == ["$1", "$2"]
    assert la.plan.script_args[-4:] == ["--data-path", "$2", "--save", "$1"] and la.plan.world_size() == 8


def test_shell_expansions(tmp_path):
    f = tmp_path / "t.sh"
    f.write_text('A=3\nB=$(( (A + 1) * 2 - 7 / 2 ))\nC="${UNSET_X:-4}"\nD=${C:+yes}\nexport E=$((B%5))\n'
                 'ARR=(x "y z")\nARR+=(w)\nset -- 9 8\nshift\nF=$1\nG=${#ARR[@]}\nH="$(echo $A)"\n'
                 'cat <<EOF\ntorchrun --nnodes 99 t.py\nEOF\n'
                 "if [ -n \"$X\" ]; then A=5; fi\n"
                 "torchrun --nnodes=$B --nproc_per_node=$C t.py $D $E \"${ARR[@]}\" $F $G $H $A\n")
    res = read_script(str(f), [], environ={})
    (la,) = res.launches  # the heredoc's line is text, not a command
    assert la.plan.nnodes_max == 5 and la.plan.nproc_per_node == 4
    assert la.plan.script_args == ["yes", "0", "x", "y z", "w", "8", "3", "3", "$A"]
    assert [u.why for u in la.unknown if u.text == "$A"][0].startswith("set differently in a branch")


def test_never_executes(tmp_path):
    f = tmp_path / "evil.sh"
    flag = tmp_path / "ran"
    f.write_text("touch %s\nX=$(touch %s)\n`touch %s`\ntorchrun --nnodes 1 t.py $X\n" % (flag, flag, flag))
    res = read_script(str(f), [], environ={})
    assert not flag.exists() and res.launches[0].plan.script_args == ["$(touch %s)" % flag]


def test_a_variable_not_exported_is_empty_in_the_tasks_shell(tmp_path):
    real = real_bash(tmp_path, "issue19_not_exported.sbatch", [], dict(ALLOC, SLURM_NNODES="2"))
    acc = [r for r in real if r[0] == "accelerate"][0]
    assert acc[acc.index("--num_processes") + 1] == "--machine_rank"  # bash: NPROC is empty there
    res = read_script(os.path.join(S, "issue19_not_exported.sbatch"), [], environ={})
    (la,) = res.launches
    assert "expected one argument" in la.refused
    assert any("NPROC is set in the script but not exported" in n for n in res.notes)


def test_srun_is_a_launcher_with_its_world_from_the_allocation():
    # srun(1): -N alone starts one task per node; --ntasks-per-node times the nodes; with no
    # count of its own, the allocation's SLURM_NTASKS / SLURM_JOB_NUM_NODES
    from gpudoctor.launch import build_plan

    p = build_plan(launch="srun -N 2 --ntasks-per-node=8 python -u train.py --x 1", environ={})
    assert (p.launcher, p.world_size(), p.nnodes_max, p.nproc_per_node) == ("srun", 16, 2, 8)
    assert (p.script, p.script_args) == ("train.py", ["--x", "1"])
    assert build_plan(launch="srun -N3 python t.py", environ={}).world_size() == 3
    p = build_plan(launch="srun python t.py", environ={"SLURM_NTASKS": "16", "SLURM_JOB_NUM_NODES": "2"})
    assert (p.world_size(), p.nproc_per_node) == (16, 8)
    p = build_plan(launch="srun python t.py", environ={})
    assert p.world_size() is None and any("allocation's task count at run time" in n for n in p.notes)
    assert build_plan(launch="srun -N2 torchrun --nnodes 2 --nproc_per_node 8 t.py", environ={}).launcher == "torchrun"


def test_commands_built_in_strings_and_launchers_chosen_at_run_time(tmp_path):
    # patterns from public launch scripts: `cmd="torchrun ${ARGS[@]} x.py"; $cmd`, `$bin torchrun`
    # with bin set in an if/else, `${@:4}` as the training command, `sh -xeuc '...'` under srun
    f = tmp_path / "p.sh"
    f.write_text('mode=$1\nnnodes=$2\ncmd=${@:3}\nif [[ "$mode" == "slurm" ]]; then\n  bin="srun"\nelse\n'
                 '  bin=""\nfi\nA=(--nproc_per_node 8 --nnodes $nnodes)\nc="torchrun ${A[@]} --master_addr gpu1 $cmd"\n'
                 '$c\n$bin torchrun --nnodes=$nnodes --nproc_per_node=4 $cmd\n'
                 "srun -N 2 sh -xeuc 'torchrun --nnodes $SLURM_NNODES --node-rank $SLURM_NODEID --nproc-per-node 8 m.py'\n")
    res = read_script(str(f), ["slurm", "2", "pre.py", "--x"], environ={})
    one, two, three = res.launches
    assert (one.plan.world_size(), one.plan.script, one.plan.script_args) == (16, "pre.py", ["--x"])
    # the if/else is decided by the known argument: $bin is srun here, empty for "local"
    assert (two.plan.world_size(), two.plan.wrapper) == (8, "srun")
    local = read_script(str(f), ["local", "2", "pre.py"], environ={}).launches[1]
    assert (local.plan.world_size(), local.plan.wrapper, local.argv[0]) == (8, None, "torchrun")
    none = read_script(str(f), [], environ={}).launches[1]  # no argument: bash's test is false
    assert none.argv[0] == "torchrun"
    g = tmp_path / "q.sh"
    g.write_text('if [ "$FROM_ENV" = a ]; then bin=srun; else bin=""; fi\n$bin torchrun --nnodes 1 t.py\n')
    unknown = read_script(str(g), [], environ={})
    assert any("$bin in front of the launcher" in n for n in unknown.notes)  # decided at run time
    assert three.via_shell and three.plan.nproc_per_node == 8 and three.plan.machine_rank is None
    real = real_bash(tmp_path, str(f), ["slurm", "2", "pre.py", "--x"], dict(ALLOC, SLURM_NNODES="2"))
    torchruns = [r for r in real if r[0] == "torchrun"]
    assert torchruns[0] == ["torchrun", "--nproc_per_node", "8", "--nnodes", "2", "--master_addr", "gpu1", "pre.py",
                            "--x"]
    assert agrees([a for a in one.argv], torchruns[0])


def test_check_reads_a_launch_script_too(gpudoctor_cli, tmp_path):
    import json as _json

    facts = os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json")
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--select", "launch.accepted", "--json", "bash",
                                 os.path.join(S, "hardcoded_rank.sh"))
    doc = _json.loads(out)
    msgs = sorted(f["message"] for f in doc["findings"] if f["check"] == "launch.accepted")
    assert rc == 1 and len(msgs) == 2 and "localhost on a 2-node plan" in msgs[0] and "node rank is 0" in msgs[1]
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--select", "launch.accepted", "--json",
                                 os.path.join(S, "issue19_not_exported.sbatch"))
    (f,) = [f for f in _json.loads(out)["findings"] if f["check"] == "launch.accepted"]
    assert rc == 1 and "expected one argument" in f["message"] and "line 9" in f["message"]


def test_eval_source_and_a_hostfile_that_is_not_here(tmp_path):
    (tmp_path / "launch").mkdir()
    (tmp_path / "launch" / "config.env").write_text('NUM_NODES=2\nGPUS_PER_NODE=8\nRUN_ARGS="--lr 1"\n')
    f = tmp_path / "run.sh"
    f.write_text('source ./launch/config.env\nexport WORLD_SIZE=$((NUM_NODES * GPUS_PER_NODE + 1))\n'
                 'OPTS="NCCL_DEBUG=INFO"\nrun_cmd="${OPTS} deepspeed --hostfile /nowhere/hostfile --num_nodes '
                 '${NUM_NODES} --num_gpus ${GPUS_PER_NODE} t.py ${RUN_ARGS}"\neval ${run_cmd}\n')
    res = read_script(str(f), [], environ={})
    (la,) = res.launches
    p = la.plan
    assert (p.world_size(), p.nnodes_max, p.script_args, p.env_set) == (16, 2, ["--lr", "1"], {"NCCL_DEBUG": "INFO"})
    assert any("not on this machine" in n for n in p.notes) and any("read ./launch/config.env" in n for n in res.notes)
    assert la.findings == ["the script computes WORLD_SIZE=17 but the launcher starts 16 processes (deepspeed sets "
                           "WORLD_SIZE for its workers itself: the script's own count is wrong somewhere)"]
    g = tmp_path / "ws.sh"  # NUM_GPUS is per node (deepspeed --num_gpus): never compared with the world
    g.write_text("NUM_GPUS=8\nexport WORLD_SIZE=16\nsrun -N 2 --ntasks-per-node 4 python t.py --world-size 16\n"
                 "deepspeed --hostfile /nowhere/hf --num_nodes 2 --num_gpus $NUM_GPUS t.py\n")
    one, two = read_script(str(g), [], environ={}).launches
    assert one.findings == ["the script computes WORLD_SIZE=16 but the launcher starts 8 processes",
                            "the script tells the training script --world-size 16 but the launcher starts 8 processes"]
    assert two.findings == []


def test_script_text_escapes_control_characters(gpudoctor_cli, tmp_path):
    f = tmp_path / "esc.sh"
    f.write_text('#!/bin/bash\ntorchrun --nnodes 1 t.py "\x1b[31mred" "\x1b]0;title\x07"\n')
    rc, out, err = gpudoctor_cli("plan", str(f))
    assert rc == 0 and "\x1b" not in out and "\x07" not in out and "\\x1b[31mred" in out


def test_hostile_scripts_are_bounded(tmp_path):
    import threading

    from gpudoctor.errors import InputError

    cases = ["'\n" + "x\n" * 50000, "A=(\n" + "x\n" * 50000, "$(echo " * 300 + ")" * 300 + "\ntorchrun t.py",
             "A=$A$A\n" * 40 + "torchrun --nnodes 1 t.py $A", "X=$((" + "(" * 2000 + "1" + ")" * 2000 + "))\n",
             "A=1\n" * 30000]
    for text in cases:
        f = tmp_path / "h.sh"
        f.write_text(text)
        got = []

        def read():
            try:
                read_script(str(f), [], environ={})
                got.append("read")
            except InputError:
                got.append("refused")  # a bound named (more than 20000 commands), never a crash
            except Exception as exc:  # a crash: shown by the assertion below
                got.append(repr(exc))

        # a deadline on the state "it ended" (pure Python: the thread gives the interpreter back), not a wall-clock
        # bound: unbounded, these texts take forever (2^40 words, 300 nested substitutions); how fast the bounded
        # reader is belongs to a benchmark (suite27: no timed tests)
        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(120)
        assert got and got[0] in ("read", "refused"), (text[:40], got)
    f.write_text("A=$A$A\n" * 40 + "torchrun --nnodes 1 t.py $A\n")
    (la,) = read_script(str(f), [], environ={}).launches
    assert any("longer than" in u.why for u in la.unknown)


def test_srun_running_a_script_reads_it_as_each_task(tmp_path):
    (tmp_path / "train.sh").write_text("GPUS=$1\ntorchrun --nnodes $SLURM_NNODES --nproc_per_node $GPUS "
                                       "--node_rank $SLURM_NODEID --master_addr $MASTER_ADDR t.py\n")
    job = tmp_path / "job.sbatch"
    job.write_text("#!/bin/bash\n#SBATCH -N 2\n#SBATCH --ntasks-per-node=1\n"
                   "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)\n"
                   "NOT_EXPORTED=1\nsrun bash %s 4\n" % (tmp_path / "train.sh"))
    res = read_script(str(job), [], environ={})
    (la,) = res.launches
    p = la.plan
    assert (p.launcher, p.wrapper, p.world_size(), p.nproc_per_node) == ("torchrun", "srun", 8, 4)
    assert la.findings == [] and p.machine_rank is None  # $SLURM_NODEID: each task's own
    real = real_bash(tmp_path, str(job), [], dict(ALLOC, SLURM_NNODES="2"))
    ranks = [r[r.index("--node_rank") + 1] for r in real if r[0] == "torchrun"]
    assert ranks == ["0", "1"] and any(agrees(la.argv[1:], r) for r in real if r[0] == "torchrun")


def test_sbatch_command_line_overrides_the_headers(tmp_path):
    from gpudoctor.launch.script import script_command

    job = tmp_path / "job.sbatch"
    job.write_text("#!/bin/bash\n#SBATCH -N 2\n#SBATCH --gpus-per-node=4\n#SBATCH --ntasks-per-node=1\n"
                   "srun torchrun --nnodes $SLURM_NNODES --nproc_per_node 8 t.py\n")
    path, args, opts = script_command(["sbatch", "-N", "4", "--gpus-per-node=8", str(job), "x"])
    assert (path, args, opts) == (str(job), ["x"], ["-N", "4", "--gpus-per-node=8"])
    (la,) = read_script(path, args, environ={}, sbatch_options=opts).launches
    # torchrun's default master 127.0.0.1 on several nodes is a finding too
    assert la.plan.world_size() == 32 and [f[:50] for f in la.findings] == [
        "the master address is 127.0.0.1 on a 4-node plan: "]
    (la,) = read_script(str(job), [], environ={}).launches  # the headers alone: 4 GPUs per node
    assert la.plan.world_size() == 16 and la.findings[-1] == (
        "8 processes per node but the allocation gives 4 GPUs per node (#SBATCH -N 2 --gpus-per-node=4 "
        "--ntasks-per-node=1)")


def test_launch_option_takes_a_script_too(gpudoctor_cli):
    rc, out, err = gpudoctor_cli("plan", "--json", "--launch", "bash %s 2 1" % os.path.join(S, "users_notes_train.sh"))
    (la,) = json.loads(out)["launches"]
    assert rc == 0 and la["plan"]["world_size"] == {"min": 16, "max": 16}
    rc, out, err = gpudoctor_cli("plan", "--launch", "./not-here.sh")
    assert rc == 2 and "cannot read script './not-here.sh'" in err


def test_if_elif_else_decided_by_known_values(tmp_path):
    f = tmp_path / "b.sh"
    f.write_text('MODE=$1\nif [ "$MODE" == "big" ]; then\n  N=4\nelif [[ $MODE == sm* ]]; then\n  N=2\n'
                 'else\n  N=1\nfi\nif [ -z "$2" ]; then P=8; else P=$2; fi\n'
                 'if [ "$UNSET_IN_TEST" = x ]; then Q=1; fi\n'
                 'torchrun --nnodes $N --nproc_per_node $P t.py\n')
    for args, want in ((["big"], (4, 32)), (["small", "4"], (2, 8)), (["other"], (1, 8)), ([], (1, 8))):
        (la,) = read_script(str(f), args, environ={}).launches
        assert (la.plan.nnodes_max, la.plan.world_size()) == want, args
        real = real_bash(tmp_path, str(f), args, {})
        assert agrees(la.argv, real[0]), (args, la.argv, real)
    # a test on a value known only at run time leaves both branches possible
    g = tmp_path / "u.sh"
    g.write_text('N=1\nif [ "$SLURM_NNODES" -gt 1 ]; then N=$SLURM_NNODES; fi\ntorchrun --nnodes $N t.py\n')
    (la,) = read_script(str(g), [], environ={}).launches
    assert la.plan.nnodes_max is None and any("set differently in a branch" in u.why for u in la.unknown)


def test_and_or_guards(tmp_path):
    f = tmp_path / "g.sh"
    f.write_text('NN=1\n[ -n "$1" ] && NN=$1\n[ -n "$2" ] || GP=8\n[ "$1" = 4 ] && [ -z "$2" ] && GP=16\n'
                 'mkdir -p logs && torchrun --nnodes $NN --nproc_per_node $GP t.py\n')
    for args, want in (([], (1, 8)), (["4"], (4, 64)), (["2", "3"], (2, None))):
        (la,) = read_script(str(f), args, environ={}).launches
        assert (la.plan.nnodes_max, la.plan.world_size()) == want, args
        if want[1] is not None:
            assert agrees(la.argv, real_bash(tmp_path, str(f), args, {})[0])


def test_case_decided_by_known_values_and_loops_left_to_run_time(tmp_path):
    f = tmp_path / "c.sh"
    f.write_text('MODE=${1:-small}\ncase "$MODE" in\n  big|large)\n    NN=4\n    ;;\n  small) NN=2 ;;\n'
                 '  *) NN=1 ;;\nesac\nwhile [[ $# -gt 0 ]]; do\n  case $1 in\n    --gpus) GP=$2; shift 2;;\n'
                 '    *) shift;;\n  esac\ndone\nGP=${GP:-8}\ntorchrun --nnodes $NN --nproc_per_node $GP t.py\n')
    # the argument-parsing loop runs as bash runs it: its test has known values each pass
    for args, want in (([], (2, 16)), (["large"], (4, 32)), (["x"], (1, 8)), (["small", "--gpus", "4"], (2, 8)),
                       (["x", "--gpus", "2", "--other", "5"], (1, 2))):
        (la,) = read_script(str(f), args, environ={}).launches
        assert (la.plan.nnodes_max, la.plan.world_size()) == want, args
        real = real_bash(tmp_path, str(f), args, {})
        assert la.unknown == [] or all(u.given for u in la.unknown)
        assert agrees(la.argv, real[0]), (args, real)
    # a loop whose test is known only at run time: what it sets is unknown
    g = tmp_path / "w.sh"
    g.write_text('while [ -n "$FROM_ENV" ]; do N=4; shift; done\ntorchrun --nnodes ${N:-1} t.py\n')
    (la,) = read_script(str(g), [], environ={}).launches
    assert [u.why for u in la.unknown] == ["set in a loop (line 1)"]


def test_loop_break_and_a_test_that_stays_true(tmp_path):
    f = tmp_path / "b.sh"
    f.write_text("set -- a b c\nwhile [ $# -gt 0 ]; do case $1 in b) break;; esac; N=$1; shift; done\n"
                 "torchrun --nnodes ${#N} --nproc_per_node $# t.py\n")
    (la,) = read_script(str(f), [], environ={}).launches
    assert agrees(la.argv, real_bash(tmp_path, str(f), [], {})[0]) and la.plan.world_size() == 2
    g = tmp_path / "inf.sh"
    g.write_text("while [ 1 -eq 1 ]; do X=1; done\ntorchrun --nnodes $X t.py\n")
    res = read_script(str(g), [], environ={})
    assert res.launches[0].plan.nnodes_max == 1 and any("loop stopped after 64 passes" in n for n in res.notes)


def test_a_rank_with_a_default_is_the_nodes_own_not_hard_coded(tmp_path):
    f = tmp_path / "r.sh"
    f.write_text("NODE_RANK=${NODE_RANK:-0}\ntorchrun --nnodes 2 --nproc_per_node 8 --node_rank $NODE_RANK "
                 "--master_addr gpu1 t.py\n")
    (la,) = read_script(str(f), [], environ={}).launches
    assert la.findings == [] and la.plan.machine_rank == 0  # planned with the default
    f.write_text("NODE_RANK=0\ntorchrun --nnodes 2 --nproc_per_node 8 --node_rank $NODE_RANK --master_addr gpu1 t.py\n")
    (la,) = read_script(str(f), [], environ={}).launches
    assert len(la.findings) == 1 and "node rank is 0 on every node" in la.findings[0]


def test_functions_run_when_called_with_their_arguments(tmp_path):
    f = tmp_path / "fn.sh"
    f.write_text('#!/bin/bash\nlaunch() {\n  local nn=$1\n  torchrun --nnodes $nn --nproc_per_node $2 '
                 '--master_addr gpu1 train.py\n}\nfunction unused {\n  echo never\n}\nlaunch 2 8\nlaunch 1 4\n')
    res = read_script(str(f), [], environ={})
    assert [la.plan.world_size() for la in res.launches] == [16, 4] and res.notes == []
    real = [r for r in real_bash(tmp_path, str(f), [], {}) if r[0] == "torchrun"]
    assert all(agrees(la.argv, r) for la, r in zip(res.launches, real)) and len(real) == 2
    g = tmp_path / "dispatch.sh"  # "$@" names the function; not called: read once on its own
    g.write_text('run() { torchrun --nnodes 2 --nproc_per_node 8 --master_addr gpu1 t.py; }\n"$@"\n')
    assert [la.plan.world_size() for la in read_script(str(g), ["run"], environ={}).launches] == [16]
    res = read_script(str(g), [], environ={})
    assert [la.plan.world_size() for la in res.launches] == [16] and "function run is not called" in res.notes[0]


def test_for_loops_over_known_words(tmp_path):
    f = tmp_path / "for.sh"
    f.write_text("N=0\nfor h in a b c; do N=$((N+1)); done\nfor g in 4 8 16; do G=$g; [ $g = 8 ] && break; done\n"
                 "torchrun --nnodes $N --nproc_per_node $G --master_addr x t.py\n"
                 "for i in $(seq 3); do M=$i; done\ntorchrun --nnodes $M t.py\n")
    one, two = read_script(str(f), [], environ={}).launches
    real = [r for r in real_bash(tmp_path, str(f), [], {}) if r[0] == "torchrun"]
    assert one.plan.world_size() == 24 and agrees(one.argv, real[0])
    assert [u.why for u in two.unknown] == ["set in a loop (line 5)"]  # $(seq 3): not followed


def test_an_unquoted_numeric_main_process_ip_is_an_address(tmp_path):
    # accelerate's examples/config_yaml_templates/multi_node.yaml has main_process_ip: '1234'; unquoted,
    # YAML reads a number: `gpudoctor plan` ended in AttributeError (exit 3) on the script reader's
    # loopback test
    cfg = tmp_path / "multi_node.yaml"
    cfg.write_text("distributed_type: MULTI_GPU\nmachine_rank: 0\nmain_process_ip: 1234\nmain_process_port: 9999\n"
                   "num_machines: 2\nnum_processes: 8\n")
    sh = tmp_path / "train.sh"
    sh.write_text("#!/bin/bash\naccelerate launch --config_file %s train.py\n" % cfg)
    res = read_script(str(sh))
    assert res.launches[0].plan.master_addr == "1234" and not res.launches[0].findings


def test_sbatch_node_range_is_shown_and_a_reversed_one_refused(tmp_path, gpudoctor_cli):
    # sbatch(1) -N min-max; Slurm's verify_node_count() refuses max < min with this message
    # (https://github.com/SchedMD/slurm/blob/master/src/common/proc_args.c)
    job = tmp_path / "job.sbatch"
    job.write_text("#!/bin/bash\n#SBATCH -N 2-4\nsrun true\n")
    res = read_script(str(job), [], environ={})
    assert res.allocation["nodes_range"] == "2-4" and "nodes" not in res.allocation
    rc, out, err = gpudoctor_cli("plan", str(job))
    assert rc == 0 and "nodes 2-4," in out and "None" not in out
    job.write_text("#!/bin/bash\n#SBATCH -N 2-1\nsrun true\n")
    rc, out, err = gpudoctor_cli("plan", str(job))
    assert rc == 2 and err.strip().endswith(
        "sbatch refuses -N 2-1: Maximum node count 1 is less than minimum node count 2") and "\n" not in err.strip()
    assert "refused      sbatch refuses -N 2-1" in out


def test_sbatch_glued_gpu_count_is_read(tmp_path):
    # sbatch(1) short options take their value glued as well: -G8 is --gpus=8 (getopt_long)
    job = tmp_path / "job.sbatch"
    job.write_text("#!/bin/bash\n#SBATCH -N2\n#SBATCH -G16\nsrun true\n")
    a = read_script(str(job), [], environ={}).allocation
    assert a["gpus_total"] == 16 and a["gpus_per_node"] == 8 and a["nodes"] == 2
