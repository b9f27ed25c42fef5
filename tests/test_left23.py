"""left23: three leftovers of `gpudoctor plan` seen on round 4's measure-only scripts (bench/data/
launch_real_scripts23.tsv, part measure23; /tmp is not cited: each script below by URL and commit). Each case is a
real script's own lines, read by gpudoctor/launch/script.py and run by bash with the launchers replaced by stubs
that record their argv (nothing is trained or started)."""

import shlex

import pytest
from test_launch_scripts21 import bash_argv, known, write
from test_launch_scripts22 import stub

from gpudoctor.launch.script import read_script

# ---------------------------------------------------------------- a syntax error inside a loop body
# OpenBMB/MiniCPM-V eval_mm/vlmevalkit/scripts/run_inference.sh lines 14-35 (lines 1-8's exports left out)
# https://github.com/OpenBMB/MiniCPM-V/blob/0dbb566de090067266abb76e702fb289f09934c5/eval_mm/vlmevalkit/scripts/run_inference.sh
# `[[ "$DATASET" == *"MMBench_TEST"*]]` has no blank before `]]`: bash parses the whole for loop before it runs any
# of it, meets the error on line 29 and stops; neither torchrun of lines 25-26 runs. The plan listed both with no
# finding (only the lines after the error had one).
MINICPM = '''# model to be used
# Example: MODELNAME=MiniCPM-o-2_6
MODELNAME=$1
# datasets to be tested
# Example: DATALIST=MMMU_DEV_VAL
DATALIST=$2

# run on multi gpus with torchrun command
# remember to run twice, the first run may fail
for DATASET in $DATALIST; do
    echo "Starting inference with model $MODELNAME on dataset $DATASET"
    torchrun --master_port 29500 --nproc_per_node=8 run.py --data $DATASET --model $MODELNAME --mode infer --reuse
    torchrun --master_port 29501 --nproc_per_node=8 run.py --data $DATASET --model $MODELNAME --mode infer --reuse

    # for benchmarks which require gpt for scoring, you need to specify OPENAI_API_BASE and OPENAI_API_KEY in .env file
    if [[ "$DATASET" == *"MMBench_TEST"*]]; then
        echo "Skipping evaluation for dataset $DATASET"
    else
        echo "Starting evaluation with model $MODELNAME on datasets $DATASET"
        python run.py --data $DATASET --model $MODELNAME --nproc 16 --verbose
    fi
done
'''


def _stopped(la):
    return any("syntax error" in f for f in la.findings)


def test_a_syntax_error_in_a_loop_body_stops_bash_before_the_loop(tmp_path):
    p = write(tmp_path, "run_inference.sh", MINICPM)
    args = ["MiniCPM-o-2_6", "MMMU_DEV_VAL"]
    assert bash_argv(tmp_path, p, args) == []  # bash runs nothing of the loop
    res = read_script(str(p), args, environ={})
    assert [la.line for la in res.launches] == [12, 13]
    for la in res.launches:
        assert _stopped(la), la.findings
        assert "in the command that starts at line 10" in la.findings[0]
        assert la.plan.script_findings == la.findings
    assert any("line 16: bash stops the script here with a syntax error" in n for n in res.notes)


def test_the_same_loop_without_the_error_keeps_its_launch_lines(tmp_path):
    p = write(tmp_path, "run_inference.sh", MINICPM.replace('*"MMBench_TEST"*]]', '*"MMBench_TEST"* ]]'))
    args = ["MiniCPM-o-2_6", "MMMU_DEV_VAL"]
    real = [r for r in bash_argv(tmp_path, p, args) if r[0] == "torchrun"]
    res = read_script(str(p), args, environ={})
    assert [la.shown.split() for la in res.launches] == real  # the arguments given: the words bash passed
    assert not any(la.findings for la in res.launches)


# Small scripts shaped like the one above, each run by bash: the launch lines bash ran are exactly those the plan
# lists without a syntax-error finding. A launch line before the command that holds the error runs; one inside it
# (a loop, an if, a function's definition, a `&&` list over two lines, a call of a function defined before) never
# does. On the tree before this change every case but `func` listed a line bash never ran.
T = "torchrun --nproc_per_node 1 %s.py"
STOP_CASES = {
    "loop": "%s\nfor D in $1; do\n  %s\n  if [[ \"$D\" == *\"X\"*]]; then\n    echo\n  fi\ndone\n%s\n" % (
        T % "t0", T % "t1", T % "t2"),
    "func": "f() {\n  %s\n  [[ a == *b*]]\n}\n%s\nf\n" % (T % "t1", T % "t0"),
    "andand": "%s\n%s &&\n  [[ a == *b*]]\n" % (T % "t0", T % "t1"),
    "heredoc": "cat <<EOF\ndone\nEOF\nfor i in 1; do\n %s\n [[ a == *b*]]\ndone\n" % (T % "t1"),
    "call": "g() { %s; }\nfor i in 1; do\n g\n [[ a == *b*]]\ndone\n" % (T % "t1"),
    "nested": "for i in 1; do\n %s\n while true; do\n  %s\n  [[ a == *b*]]\n  break\n done\ndone\n" % (
        T % "t0", T % "t1"),
    "if": "if true; then\n %s\nfi\nif true; then\n %s\n x=$((\nfi\n" % (T % "t1", T % "t2"),
    "fi_missing": "%s\nif true; then\n %s\n" % (T % "t0", T % "t1"),
}


@pytest.mark.parametrize("name", sorted(STOP_CASES))
def test_launch_lines_bash_never_reaches_after_a_syntax_error(tmp_path, name):
    p = write(tmp_path, name + ".sh", STOP_CASES[name])
    ran = sorted(r[3] for r in bash_argv(tmp_path, p, ["a"]) if r[0] == "torchrun")
    res = read_script(str(p), ["a"], environ={})
    assert res.launches
    assert sorted(la.argv[3] for la in res.launches if not _stopped(la)) == ran


# ---------------------------------------------------------------- gantry run ... -- CMD
# allenai/OLMo scripts/beaker/annealing/launch_annealing_jupiter.sh (whole file)
# https://github.com/allenai/OLMo/blob/main/scripts/beaker/annealing/launch_annealing_jupiter.sh (as frozen in
# bench/data/launch_real_scripts23.tsv). beaker-gantry's `gantry run [OPTIONS] -- ARGS` runs ARGS as the Beaker job
# (gantry/commands/run.py, https://github.com/allenai/beaker-gantry/blob/722fb76d87f4981ce24a9cca07bfd52852716919/
# gantry/commands/run.py: "[ARGS]... are required and must all come after '--'"); the plan found no launch line.
OLMO = r'''#!/usr/bin/env bash
# Kicks off anneal runs on the Jupiter cluster.

set -ex

CONFIG_NAME=$1
NUM_NODES=$2
CLUSTER=$3
PRIORITY=$4

CONFIG_DIR=configs/annealing
CONFIG_PATH=${CONFIG_DIR}/${CONFIG_NAME}.yaml

gantry run \
  --preemptible \
  --allow-dirty \
  --workspace ai2/davidw-oe-annealing \
  --task-name ${CONFIG_NAME} \
  --description ${CONFIG_NAME} \
  --priority $PRIORITY \
  --beaker-image shanea/olmo-torch2.2-weka-gantry \
  --cluster $CLUSTER \
  --gpus 8 \
  --replicas "${NUM_NODES}" \
  --leader-selection \
  --propagate-failure \
  --synchronized-start-timeout "30m" \
  --host-networking \
  --budget ai2/oe-training \
  --no-nfs \
  --env LOG_FILTER_TYPE=local_rank0_only \
  --env OMP_NUM_THREADS=8 \
  --env OLMO_TASK=model \
  --env-secret AWS_ACCESS_KEY_ID=AWS_ACCESS_KEY_ID \
  --env-secret AWS_SECRET_ACCESS_KEY=AWS_SECRET_ACCESS_KEY \
  --env-secret R2_ACCESS_KEY_ID=R2_ACCESS_KEY_ID \
  --env-secret R2_SECRET_ACCESS_KEY=R2_SECRET_ACCESS_KEY \
  --env-secret R2_ENDPOINT_URL=R2_ENDPOINT_URL \
  --env-secret WEKA_ENDPOINT_URL=WEKA_ENDPOINT_URL \
  --env-secret WANDB_API_KEY=WANDB_API_KEY \
  --shared-memory 10GiB \
  --venv base \
  --yes \
  -- /bin/bash -c "source scripts/beaker/warm_hf_cache.sh && torchrun --nnodes ${NUM_NODES}:${NUM_NODES} --nproc-per-node 8 --rdzv_id=101 --rdzv_backend=c10d --rdzv_endpoint=\$BEAKER_LEADER_REPLICA_HOSTNAME:29400 scripts/train.py ${CONFIG_PATH} --model.flash_attention=true --fsdp.wrapping_strategy=by_block_and_size --fsdp.sharding_strategy=SHARD_GRAD_OP --activation_checkpointing=fine_grained --fused_loss=true --device_train_microbatch_size=2 --global_train_batch_size=1024 --gen1_gc_interval=8 --save_num_checkpoints_to_keep=2"
'''

# gantry as the bench stubs it: record, then run the command after `--` (a Beaker job runs it)
GANTRY = """#!/bin/sh
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
[ $# -gt 0 ] || exit 2
shift
exec "$@"
"""


def test_gantry_run_plans_the_command_after_the_double_dash(tmp_path):
    p = write(tmp_path, "launch_annealing_jupiter.sh", OLMO)
    (tmp_path / "scripts" / "beaker").mkdir(parents=True)
    (tmp_path / "scripts" / "beaker" / "warm_hf_cache.sh").write_text(":\n")
    stub(tmp_path)
    (tmp_path / "bin" / "gantry").write_text(GANTRY)
    (tmp_path / "bin" / "gantry").chmod(0o700)
    args = ["olmo-anneal", "2", "ai2/jupiter", "high"]
    (real,) = [r for r in bash_argv(tmp_path, p, args, env={"BEAKER_LEADER_REPLICA_HOSTNAME": "leader0"})
               if r[0] == "torchrun"]
    res = read_script(str(p), args, environ={})
    (la,) = res.launches
    assert la.argv[:3] == ["LOG_FILTER_TYPE=local_rank0_only", "OMP_NUM_THREADS=8", "OLMO_TASK=model"]
    words = shlex.split(la.shown)[3:]  # the arguments given, as bash expanded them
    assert words[:7] == real[:7] and words[8:] == real[8:]  # every word bash passed
    # but the Beaker job's own variable, unknown here
    assert words[7] == "--rdzv_endpoint=$BEAKER_LEADER_REPLICA_HOSTNAME:29400" != real[7]
    assert real[7] == "--rdzv_endpoint=leader0:29400" and known(la.argv)[10] is None
    assert la.plan.world_size() == 16 and la.plan.nnodes_max == 2
    assert la.plan.env_set["OMP_NUM_THREADS"] == "8"
    assert any("gantry run submits the command after `--`" in n for n in res.notes)


@pytest.mark.parametrize("line, want", [
    ("gantry run --gpus 8 --env NCCL_DEBUG=INFO -- torchrun --nproc_per_node 8 t.py",
     ["NCCL_DEBUG=INFO", "torchrun", "--nproc_per_node", "8", "t.py"]),
    ("gantry run --yes --env=A=1 -- python -m torch.distributed.run --nproc_per_node 2 t.py",
     ["A=1", "python", "-m", "torch.distributed.run", "--nproc_per_node", "2", "t.py"]),
    # gantry refuses ARGS that do not come after `--` ("[ARGS]... are required and must all come after '--'")
    ("gantry run --gpus 8 torchrun --nproc_per_node 8 t.py", None),
])
def test_gantry_run_forms(tmp_path, line, want):
    p = write(tmp_path, "g.sh", line + "\n")
    res = read_script(str(p), [], environ={})
    if want is None:
        assert res.launches == []
    else:
        (la,) = res.launches
        assert la.argv == want


def test_the_beaker_jobs_shell_sees_none_of_the_scripts_variables(tmp_path):
    # the job runs on another machine: a variable the script set (exported or not) is the job's environment's there
    p = write(tmp_path, "g.sh", "export N=4\ngantry run -- bash -c 'torchrun --nproc_per_node $N t.py'\n"
              "torchrun --nproc_per_node $N u.py\n")
    res = read_script(str(p), [], environ={})
    a, b = res.launches
    assert known(a.argv) == ["torchrun", "--nproc_per_node", None, "t.py"]
    assert b.argv == ["torchrun", "--nproc_per_node", "4", "u.py"]  # the script's own shell goes on as it was
