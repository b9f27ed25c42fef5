"""launch25: `gpudoctor plan SCRIPT` on real launch scripts of public training repositories
(round 6, bench/data/launch_real_scripts25.tsv; this round's fix part is round 5's measure part,
bench/data/launch_real_scripts24.tsv part measure24, and fix25). Each case is a real script's own
lines (cited by URL and commit), read by gpudoctor/launch/script.py and run by bash with the
launchers replaced by stubs that record their argv (srun runs its command as one task; nothing is
trained or started): every word gpudoctor knows must be the word bash passes."""

import re
import shutil
import subprocess

import pytest
from test_launch_scripts21 import STUB, write

from gpudoctor.errors import InputError
from gpudoctor.launch import build_plan
from gpudoctor.launch.script import MARK, read_script

# srun: record its argv, then run what follows its options as one task (SLURM_PROCID=0)
SRUN = """#!/bin/bash
r=$(printf '%s\\037' srun "$@"); printf '%s\\036' "$r" >> "$REC"
while [ $# -gt 0 ]; do case "$1" in --*=*) shift;; -w|-n|-N|-p|--jobid|--nodes|--ntasks) shift 2;; -*) shift;;
*) break;; esac; done
[ $# -gt 0 ] && SLURM_PROCID=0 exec "$@"
"""


def bash_run(tmp_path, script, args=(), env=None, progs=("torchrun", "python", "deepspeed", "accelerate", "tune")):
    """Every stub call bash makes running the script (srun runs its command): [argv, ...]."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    for name in progs:
        (stubs / name).write_text(STUB)
        (stubs / name).chmod(0o700)
    (stubs / "srun").write_text(SRUN)
    (stubs / "srun").chmod(0o700)
    rec = tmp_path / "rec"
    rec.write_bytes(b"")
    e = {"PATH": "%s:/usr/bin:/bin" % stubs, "REC": str(rec), "HOME": str(tmp_path)}
    e.update(env or {})
    subprocess.run([bash, str(script)] + list(args), cwd=str(tmp_path), env=e, timeout=30, capture_output=True)
    return [r.split("\x1f")[:-1] for r in rec.read_bytes().decode().split("\x1e") if r]


def agrees(plan_words, real):
    """The bench's rule (bench/launch_conformance.py): a known word is the word bash passed; a word that is
    wholly unknown stands for any number of words, one with an unknown part for one word."""
    whole = re.compile("^" + MARK + r"\d+" + MARK + "$")
    if not plan_words:
        return not real
    w = plan_words[0]
    if whole.match(w):
        return any(agrees(plan_words[1:], real[k:]) for k in range(len(real) + 1))
    return bool(real) and (MARK in w or w == real[0]) and agrees(plan_words[1:], real[1:])


# ------------------------------------------------------------------ torchtune's `tune run`
# pytorch/torchtune recipes/full_finetune_multinode.slurm lines 9-14 and 39-45
# https://github.com/pytorch/torchtune/blob/bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1/recipes/full_finetune_multinode.slurm
# `tune run` was not read: srun's 2 tasks with the world unknown. torchtune/_cli/run.py (same commit) parses
# torchrun's own flags and runs torch.distributed.run with them: 2 nodes x 8 = 16 workers.
TUNE = '''#!/bin/bash
#SBATCH --job-name=torchtune-multi-node
#SBATCH --ntasks=2
#SBATCH --nodes=2
#SBATCH --gpus-per-task=8
#SBATCH --cpus-per-task=96
#SBATCH --partition=train

SHARED_FS=/mnt/slurm # <-- Replace w/ your filesystem
CHECKPOINT_DIR="$SHARED_FS/Llama-3.3-70B-Instruct"
OUTPUT_DIR="$SHARED_FS/Llama3.3-70B-fft-output"

# Adjust sbatch --ntasks and sbatch --nodes above and --nnodes below to your specific node count
srun tune run --nnodes 2 --nproc_per_node 8 --rdzv_id 101 --rdzv_backend c10d --rdzv_endpoint "$head_node_ip:29500" \\
    full_finetune_distributed --config llama3_3/70B_full_multinode checkpoint_dir=$CHECKPOINT_DIR output_dir=$OUTPUT_DIR
'''


def test_tune_run_is_torchrun_with_its_options(tmp_path):
    p = write(tmp_path, "full_finetune_multinode.slurm", TUNE)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.refused is None
    assert la.plan.launcher == "torchrun" and la.plan.wrapper == "srun"
    assert (la.plan.nnodes_max, la.plan.nproc_per_node, la.plan.world_size()) == (2, 8, 16)
    assert la.plan.script == "full_finetune_distributed"
    assert la.plan.script_args[:2] == ["--config", "llama3_3/70B_full_multinode"]
    (real,) = [r for r in bash_run(tmp_path, p) if r[0] == "tune"]
    assert agrees(la.argv[1:], real)  # srun's task runs `tune run ...` with the words the plan shows
    assert real[-2:] == ["checkpoint_dir=/mnt/slurm/Llama-3.3-70B-Instruct",
                         "output_dir=/mnt/slurm/Llama3.3-70B-fft-output"]


@pytest.mark.parametrize("line,world,nnodes,note", [
    # torchtune's own examples (run.py's epilog): no torchrun option is the single-device path (runpy)
    ("tune run lora_finetune_single_device --config llama2/7B_lora_single_device", 1, 1, "in this process"),
    ("tune run --nproc_per_node 4 full_finetune_distributed --config llama2/7B_full_finetune_distributed", 4, 1,
     "standalone"),
    ("tune run --nnodes 2 --nproc_per_node 8 --rdzv_endpoint h1:29500 lora_finetune_distributed --config c", 16, 2,
     "tune run starts torchrun"),
])
def test_tune_run_world(line, world, nnodes, note):
    plan = build_plan(launch=line, environ={})
    assert (plan.world_max, plan.nnodes_max) == (world, nnodes)
    assert any(note in n for n in plan.notes)


def test_tune_run_standalone_without_an_endpoint():
    # _run_distributed: `if not args.rdzv_endpoint: args.standalone = True`
    plan = build_plan(launch="tune run --nproc_per_node 2 full_finetune_distributed --config c", environ={})
    assert plan.rdzv_backend == "c10d" and plan.rdzv_endpoint == "localhost:0"


def test_tune_run_custom_recipe_is_a_module():
    # _convert_to_dotpath: a recipe that is not built in runs as a module of the working directory
    plan = build_plan(launch="tune run --nproc_per_node 2 recipes/my_recipe.py --config c.yaml", environ={})
    assert plan.script == "-m recipes.my_recipe" and plan.world_max == 2


@pytest.mark.parametrize("line,msg", [
    ("tune run --nproc_per_node 8 full_finetune_distributed", "The '--config' argument is required."),
    ("tune run --nproc_per_node 8 lora_finetune_single_device --config c",
     "Recipe lora_finetune_single_device does not support distributed training"),
])
def test_tune_run_refusals(line, msg):
    with pytest.raises(InputError) as e:
        build_plan(launch=line, environ={})
    assert msg in str(e.value) and "tune run would refuse this" in str(e.value)


# ------------------------------------------------------------------ a shell script in srun's bash -c string
# mlcommons/training retired_benchmarks/stable_diffusion/scripts/slurm/srun.sh lines 1-10 and 42-53 (the
# argument loop, lines 12-40, left out: it runs with no arguments), and run_and_time.sh beside it
# https://github.com/mlcommons/training/blob/aa344c7fb900e82ed19fb94aebfed50c63ab2204/retired_benchmarks/stable_diffusion/scripts/slurm/srun.sh
# https://github.com/mlcommons/training/blob/aa344c7fb900e82ed19fb94aebfed50c63ab2204/retired_benchmarks/stable_diffusion/run_and_time.sh
# No launch line was planned (a script inside a bash -c string); bash runs run_and_time.sh in each of the 64 tasks,
# and it runs `python main.py ...` (after a `python -c` that logs an mllog event).
SD_SRUN = '''#!/usr/bin/env bash

: "${NUM_NODES:=8}"
: "${GPUS_PER_NODE:=8}"
: "${CONFIG:=./configs/train_512_latents.yaml}"
: "${WORKDIR:=/workdir}"
: "${RESULTS_MNT:=/results}"
: "${MOUNTS:=}"
: "${CONTAINER_IMAGE:=mlperf_sd:22.12-py3}"
: "${CHECKPOINT:=/checkpoints/sd/512-base-ema.ckpt}"

srun \\
    --container-image="${CONTAINER_IMAGE}" \\
    --container-mounts="${MOUNTS}" \\
    --container-workdir="${WORKDIR}" \\
    --ntasks-per-node="${GPUS_PER_NODE}" \\
    --nodes="${NUM_NODES}" \\
    bash -c  "./run_and_time.sh \\
                --num-nodes ${NUM_NODES} \\
                --gpus-per-node ${GPUS_PER_NODE} \\
                --checkpoint ${CHECKPOINT} \\
                --results-dir ${RESULTS_MNT}  \\
                --config ${CONFIG}"
'''
# run_and_time.sh lines 17-64, comments left out
SD_RUN = '''#!/bin/bash
: "${NUM_NODES:=1}"
: "${GPUS_PER_NODE:=8}"
: "${CHECKPOINT:=/checkpoints/sd/512-base-ema.ckpt}"
: "${RESULTS_DIR:=}"
: "${CONFIG:=./configs/train_01x08x08.yaml}"

while [ "$1" != "" ]; do
    case $1 in
        --num-nodes )           shift
                                NUM_NODES=$1
                                ;;
        --gpus-per-node )       shift
                                GPUS_PER_NODE=$1
                                ;;
        --checkpoint )          shift
                                CHECKPOINT=$1
                                ;;
        --results-dir )         shift
                                RESULTS_DIR=$1
                                ;;
        --config )              shift
                                CONFIG=$1
                                ;;
    esac
    shift
done

set -e

export HF_DATASETS_OFFLINE=1
export TRANSFORMERS_OFFLINE=1
export DIFFUSERS_OFFLINE=1
export HF_HOME=/hf_home

start=$(date +%s)
start_fmt=$(date +%Y-%m-%d\\ %r)
echo "STARTING TIMING RUN AT $start_fmt"

python -c "
from mlperf_logging.mllog import constants
from mlperf_logging_utils import mllogger
mllogger.event(key=constants.CACHE_CLEAR, value=True)"

python main.py \\
    lightning.trainer.num_nodes=${NUM_NODES} \\
    lightning.trainer.devices=${GPUS_PER_NODE} \\
    -m train \\
    --ckpt ${CHECKPOINT} \\
    --logdir ${RESULTS_DIR}  \\
    -b ${CONFIG}
'''


def test_srun_bash_c_running_a_script_here_reads_it(tmp_path):
    p = write(tmp_path, "srun.sh", SD_SRUN)
    inner = write(tmp_path, "run_and_time.sh", SD_RUN)
    inner.chmod(0o755)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.refused is None
    k = la.argv.index("python")
    assert la.argv[0] == "srun" and la.argv[k:k + 2] == ["python", "main.py"]
    assert (la.plan.nnodes_max, la.plan.world_size()) == (8, 64)  # 8 nodes x 8 tasks, each one process
    runs = [r for r in bash_run(tmp_path, p) if r[0] == "python"]
    assert [r[1] for r in runs] == ["-c", "main.py"]  # the task's shell: the mllog event, then the job
    k = la.argv_shown.index("python")  # (the same place in argv_shown)
    assert la.argv_shown[k:] == runs[1]  # (the task script's arguments are known: argv_shown has their values)


def test_srun_bash_c_running_a_script_not_here_has_no_world(tmp_path):
    p = write(tmp_path, "srun.sh", SD_SRUN)
    (la,) = read_script(str(p), [], environ={}).launches  # there was no launch line
    assert la.refused is None and la.plan.world_size() is None and la.plan.nnodes_max == 8
    assert any("each of srun's 64 tasks runs run_and_time.sh, which is not read here" in n for n in la.plan.notes)
    (real,) = [r for r in bash_run(tmp_path, p) if r[0] == "srun"]
    assert real[-2] == "-c" and real[-1].split()[:3] == ["./run_and_time.sh", "--num-nodes", "8"]
    assert la.argv[-11:] == real[-1].split()  # the words the task's shell passes the script


def test_srun_bash_script_here_running_python_is_srun_launching_it(tmp_path):
    # the same pair with srun.sh's `bash -c "./run_and_time.sh ..."` written `bash ./run_and_time.sh ...` (round
    # 5's left list: `srun bash inner.sh` whose inner.sh runs plain python gave no launch line)
    text = SD_SRUN.replace('bash -c  "./run_and_time.sh', "bash ./run_and_time.sh").replace('${CONFIG}"', "${CONFIG}")
    p = write(tmp_path, "srun.sh", text)
    write(tmp_path, "run_and_time.sh", SD_RUN)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.refused is None and la.plan.world_size() == 64
    runs = [r for r in bash_run(tmp_path, p) if r[0] == "python"]
    assert la.argv_shown[la.argv_shown.index("python"):] == runs[1] and runs[1][1] == "main.py"


# ------------------------------------------------------------------ words appended in an undecided `if`
# huggingface/smollm vision/experiments/pretraining/vloom/slurm_scripts_templates/with_launcher/train.slurm
# lines 101-133 (`pip freeze` left out)
# https://github.com/huggingface/smollm/blob/a041759883ec7152d18fb985ea49be641a0bceef/vision/experiments/pretraining/vloom/slurm_scripts_templates/with_launcher/train.slurm
# The `if` on $GRAD_ACC (the environment's) appends to LAUNCHER and PROGRAM: both became wholly unknown, so
# did CMD, and no launch line was planned.
SMOL = '''NUM_GPUS=$((NUM_GPUS_PER_NODE*SLURM_NNODES))

export LAUNCHER="accelerate launch \\
    --config_file $ACCELERATE_CONFIG_FILE \\
    --main_process_ip $MASTER_ADDR \\
    --main_process_port $MASTER_PORT \\
    --machine_rank \\$SLURM_PROCID \\
    --num_machines $SLURM_NNODES \\
    --num_processes $NUM_GPUS \\
    --deepspeed_config_file $DEEPSPEED_CONFIG_FILE \\
    "

# Note: it is important to escape `$SLURM_PROCID` since we want the srun on each node to evaluate this variable

export PROGRAM="m4/training/main.py \\
        --config $CONFIG_FILE \\
        --training_datasets_paths ${all_train_shards[@]} \\
        --validation_datasets_paths ${all_validation_shards[@]} \\
        --job_id $SLURM_JOB_ID \\
        --jz_job_time_sec $JZ_JOB_TILE_SEC \\
        --save_dir ${SAVE_DIR} \\
    "

if [ ! -z "$GRAD_ACC" ]
then
    PROGRAM="${PROGRAM} --grad_acc_size ${GRAD_ACC}"
    LAUNCHER="${LAUNCHER} --gradient_accumulation_steps ${GRAD_ACC}"
fi


export CMD="$LAUNCHER $PROGRAM"

srun --jobid $SLURM_JOBID bash -c "$CMD" 2>&1 | tee -a $SAVE_DIR/logs/main_log.txt
'''
HEAD = '''NUM_GPUS_PER_NODE=8
ACCELERATE_CONFIG_FILE=acc.yaml
DEEPSPEED_CONFIG_FILE=ds.json
CONFIG_FILE=config.yaml
MASTER_ADDR=node1
MASTER_PORT=6000
SAVE_DIR=save
JZ_JOB_TILE_SEC=71100
'''


@pytest.mark.parametrize("grad_acc", [None, "4"])
def test_words_appended_in_an_undecided_if_keep_the_rest_known(tmp_path, grad_acc):
    p = write(tmp_path, "train.slurm", HEAD + SMOL)
    (tmp_path / "save" / "logs").mkdir(parents=True)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.refused is None and la.plan.launcher == "accelerate"
    opt = [u for u in la.unknown if u.optional]
    assert sorted(u.text for u in opt) == ["[--grad_acc_size $GRAD_ACC]", "[--gradient_accumulation_steps $GRAD_ACC]"]
    assert la.plan.script == "m4/training/main.py"  # the appended words are not taken for the script
    env = {"SLURM_NNODES": "2", "SLURM_JOB_ID": "7", "SLURM_JOBID": "7"}
    if grad_acc:
        env["GRAD_ACC"] = grad_acc
    (real,) = [r for r in bash_run(tmp_path, p, env=env) if r[0] == "accelerate"]
    k = la.argv.index("accelerate")
    assert agrees(la.argv[k:], real)
    assert ("--gradient_accumulation_steps" in real) == bool(grad_acc)


# ------------------------------------------------------------------ a `<...>` placeholder bash reads as a redirection
# THUDM/GLM-130B scripts/evaluate_multiple_node.sh lines 3-6, 8-10, 14-28 (`source` of the model config left out)
# https://github.com/THUDM/GLM-130B/blob/212215c54f8a9da2deed51455868305235664370/scripts/evaluate_multiple_node.sh
# eval reads `--hostfile <your hostfile> .../evaluate.py`: `<your` is input from a file 'your' (none: bash runs
# nothing, "your: No such file or directory"); the plan refused the line for deepspeed's argparse instead.
GLM130 = '''#!/bin/bash
NUM_WORKERS=16
NUM_GPUS_PER_WORKER=8
HOST_FILE_PATH="<your hostfile>"
OPTIONS_NCCL="NCCL_IB_DISABLE=0 NCCL_NET_GDR_LEVEL=2 CUDA_LAUNCH_BLOCKING=0"

script_path=$(realpath $0)
script_dir=$(dirname $script_path)
main_dir=$(dirname $script_dir)

DATA_PATH="<your evaluation dataset base directory>"

ARGS="${main_dir}/evaluate.py \\
       --mode inference \\
       --data-path $DATA_PATH \\
       --task $* \\
       $MODEL_ARGS"

TIMESTAMP=$(date +'%Y.%m.%d-%H:%M:%S')
EXP_NAME=${TIMESTAMP}

mkdir -p logs

run_cmd="${OPTIONS_NCCL} deepspeed --num_nodes ${NUM_WORKERS} --num_gpus ${NUM_GPUS_PER_WORKER} --hostfile ${HOST_FILE_PATH} ${ARGS}"
eval ${run_cmd} 2>&1 | tee logs/${EXP_NAME}.log
'''


def test_a_placeholder_read_as_a_redirection_runs_nothing(tmp_path):
    (tmp_path / "scripts").mkdir()
    p = write(tmp_path / "scripts", "evaluate_multiple_node.sh", GLM130)
    (la,) = read_script(str(p), ["copa"], environ={}).launches
    assert la.refused.startswith("bash would not run it: the redirection <your reads the file your")
    assert not [r for r in bash_run(tmp_path, p, ["copa"]) if r[0] == "deepspeed"]  # bash ran no deepspeed
    # with a file named 'your' beside the script, bash there would run it (and the plan reads the line)
    (tmp_path / "scripts" / "your").write_text("")
    (la,) = read_script(str(p), ["copa"], environ={}).launches
    assert la.blocked is None


def test_a_path_redirection_is_not_judged(tmp_path):
    # `< /data/input.txt`: a path may be there on the cluster; only a plain word is a placeholder
    p = write(tmp_path, "r.sh", "torchrun --nproc_per_node 2 train.py < /data/in.txt\n")
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.refused is None and la.plan.world_size() == 2


# ------------------------------------------------------------------ a template's values left empty
# OpenGVLab/LLaMA-Adapter llama_adapter_v2_chat65b/scripts/srun_chat_llama65b_bias_scale_norm.sh (whole)
# https://github.com/OpenGVLab/LLaMA-Adapter/blob/521a09da84f70f6913d54b7421afa24010319e47/llama_adapter_v2_chat65b/scripts/srun_chat_llama65b_bias_scale_norm.sh
# Its three values are left empty to fill in: `-n ${n_gpus} --ntasks-per-node ${n_gpus}` reaches srun as
# `-n --ntasks-per-node`. The refusal was srun's alone; it now names the empty values and their lines.
LLAMA_ADAPTER = '''#!/usr/bin/env sh

# slurm partition name.
partition=
# total number of GPUs to use.
n_gpus=
# directory containing LLaMA backbone weights downloaded from facebook.
llama_model_path=


srun -p "${partition}" --gres=gpu:${n_gpus} -n ${n_gpus} --ntasks-per-node ${n_gpus} --unbuffered \\
  python -u chat_demo.py \\
    --model_name Llama65B_bias_scale_norm_tuning \\
    --model_path checkpoints/chat_llama65b_bias_scale_norm_tuning_v1.pth \\
    --llama_model_path "${llama_model_path}" 
'''


def test_a_refusal_names_the_template_values_left_empty(tmp_path):
    p = write(tmp_path, "srun_chat.sh", LLAMA_ADAPTER)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.refused == ("srun: --ntasks='--ntasks-per-node' is not a whole number (the script sets partition "
                          "(line 4), n_gpus (line 6), llama_model_path (line 8) to nothing: a template's values to "
                          "fill in)")
    (real,) = [r for r in bash_run(tmp_path, p, progs=()) if r[0] == "srun"]
    assert real[:7] == ["srun", "-p", "", "--gres=gpu:", "-n", "--ntasks-per-node", "--unbuffered"]
    srun = shutil.which("srun")
    if srun:  # Slurm's own srun refuses it while reading its options (any slurm.conf: it contacts nothing first)
        conf = tmp_path / "slurm.conf"
        conf.write_text("ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n")
        out = subprocess.run([srun] + real[1:], env={"SLURM_CONF": str(conf), "PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, timeout=30)
        assert 'Invalid numeric value "--ntasks-per-node" for --ntasks' in out.stderr


def test_a_value_set_empty_then_filled_is_not_named(tmp_path):
    p = write(tmp_path, "s.sh", "N=\nN=4\nsrun -n ${N} --nodes=x python t.py\n")
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.refused and "to nothing" not in la.refused


# ------------------------------------------------------------------ exec in the first pass of `while true`
# round 5's left list (exec inside a while loop was left conservative: the plan listed the lines after it). bash(1):
# `while true` runs its body at least once, and `exec CMD` replaces the shell, so nothing after it runs.
@pytest.mark.parametrize("loop,ends", [
    ("while true; do\n  exec torchrun --nproc_per_node 2 a.py\ndone\n", True),
    ("while :; do\n  exec torchrun --nproc_per_node 2 a.py\ndone\n", True),
    ("until false; do\n  exec torchrun --nproc_per_node 2 a.py\ndone\n", True),
    # a break before it, or a test bash decides at run time: the exec need not run (the line after may)
    ("while true; do\n  [ -f stop ] && break\n  exec torchrun --nproc_per_node 2 a.py\ndone\n", False),
    ('while [ -n "$X" ]; do\n  exec torchrun --nproc_per_node 2 a.py\ndone\n', False),
    ('while true; do\n  if [ -n "$X" ]; then exec torchrun --nproc_per_node 2 a.py; fi\ndone\n', False),
])
def test_exec_in_the_first_pass_of_while_true_ends_the_script(tmp_path, loop, ends):
    p = write(tmp_path, "loop.sh", loop + "torchrun --nproc_per_node 4 b.py\n")
    las = read_script(str(p), [], environ={}).launches
    assert [la.argv[-1] for la in las] == (["a.py"] if ends else ["a.py", "b.py"])
    if ends:  # bash: the exec'd torchrun, and never b.py
        assert [r[-1] for r in bash_run(tmp_path, p)] == ["a.py"]
        assert not any("runs only where a loop" in n for n in read_script(str(p), [], environ={}).notes)


# ------------------------------------------------------------------ Open MPI MPMD: a host named by several contexts' -H
# round 5's left list asked for Open MPI's MPMD contexts compared with real Open MPI 4.1.4 (--display-map
# --do-not-launch maps them and starts nothing). A host that several contexts' -H name has the slots of the last one;
# the plan took the largest (world 4 where mpirun refuses the first line, bb 3 where mpirun gives bb 1 and aa 2).
MPMD_H = [
    ("-H aa:2,bb:2 -np 2 x : -H bb -np 2 y", None),  # "There are not enough slots available in the system"
    ("-H aa:2,bb:2 -np 2 x : -H bb -np 1 y", {"aa": 2, "bb": 1}),
    ("-H bb:3 -np 1 x : -H bb:1,aa:2 -np 2 y", {"bb": 1, "aa": 2}),
    ("-H bb:1 -np 1 x : -H bb:3,aa:2 -np 2 y", {"bb": 3}),
    ("-H aa:2,bb:1 -np 2 x : -H bb:3 -np 3 y", {"aa": 2, "bb": 3}),
]


@pytest.mark.parametrize("line,want", MPMD_H)
def test_openmpi_mpmd_host_slots_from_the_last_h(line, want):
    if want is None:
        with pytest.raises(InputError) as e:
            build_plan(launch="mpirun " + line, environ={})
        assert "not enough slots" in str(e.value)
    else:
        plan = build_plan(launch="mpirun " + line, environ={})
        assert {n.host: n.procs for n in plan.nodes if n.procs} == want


@pytest.mark.skipif(not shutil.which("mpirun") or "Open MPI" not in subprocess.run(
    ["mpirun", "--version"], capture_output=True, text=True).stdout, reason="no Open MPI mpirun here")
@pytest.mark.parametrize("line,want", MPMD_H)
def test_openmpi_mpmd_host_slots_against_mpirun(line, want):
    import shlex

    p = subprocess.run(["mpirun", "--allow-run-as-root", "--bind-to", "none", "--display-map", "--do-not-launch"] +
                       shlex.split(line), capture_output=True, text=True, timeout=60)
    got = re.findall(r"Data for node: (\S+)\s+Num slots: \d+\s+Max slots: \d+\s+Num procs: (\d+)", p.stdout + p.stderr)
    if want is None:
        assert "There are not enough slots available" in p.stdout + p.stderr and not got
    else:
        assert {h: int(c) for h, c in got} == want
