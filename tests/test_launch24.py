"""launch24: `gpudoctor plan SCRIPT` on real launch scripts of public training repositories
(round 5, bench/data/launch_real_scripts24.tsv, part fix24). Each case is a real script's own lines
(cited by URL and commit), read by gpudoctor/launch/script.py and run by bash with the launchers
replaced by stubs that record their argv (nothing is trained or started): every word gpudoctor
shows must be the word bash passes."""

import shutil
import subprocess

import pytest
from test_launch_scripts21 import bash_argv, write
from test_launch_scripts22 import stub

from gpudoctor.launch.script import read_script


def bash_word(word, env=None, args=()):
    """What bash makes of a word the plan shows (pasted inside double quotes, as the plan quotes it)."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    p = subprocess.run([bash, "-c", 'date() { echo D; }; printf %%s "%s"' % word, "bash"] + list(args),
                       env=dict(env or {}, PATH="/usr/bin:/bin"), capture_output=True, text=True, timeout=30)
    return p.stdout


# THUDM/GLM scripts/ds_finetune_superglue.sh lines 1-17 and 19-45 (`mkdir logs` left out)
# https://github.com/THUDM/GLM/blob/4f61ed7237a3b0187f4d62062429348276a78c84/scripts/ds_finetune_superglue.sh
# With the README's model and task files not here, EXPERIMENT_NAME=${EXPERIMENT_NAME}_${DATESTR} was shown
# `$EXPERIMENT_NAME_$(date +"%m-%d-%H-%M")`: pasted, bash reads the variable EXPERIMENT_NAME_ (empty), not
# EXPERIMENT_NAME followed by `_`.
GLM = '''DATA_ROOT=/dataset/fd5061f6/tuteng/BlockLM/data
CHECKPOINT_PATH=/dataset/fd5061f6/english_data/checkpoints
SAVE_PATH=/dataset/fd5061f6/tuteng/BlockLM/finetune_checkpoints
DATESTR=$(date +"%m-%d-%H-%M")

source $1    # Model
source $2    # Task

NUM_WORKERS=1
NUM_GPUS_PER_WORKER=8
MP_SIZE=1
MASTER_PORT=$(shuf -n 1 -i 10000-65535)

OPTIONS_NCCL="NCCL_DEBUG=info NCCL_IB_DISABLE=0 NCCL_NET_GDR_LEVEL=2"
DISTRIBUTED_ARGS="${OPTIONS_NCCL} deepspeed --master_port $MASTER_PORT --num_nodes ${NUM_WORKERS} --num_gpus ${NUM_GPUS_PER_WORKER}"

EXPERIMENT_NAME=${EXPERIMENT_NAME}_${DATESTR}
run_cmd="${DISTRIBUTED_ARGS} finetune_glm.py \\
       --deepspeed \\
       --deepspeed_config config_tasks/config_blocklm_10B.json \\
       --finetune \\
       --cloze-eval \\
       --experiment-name ${EXPERIMENT_NAME} \\
       --task ${TASK_NAME} \\
       --data-dir ${DATA_PATH} \\
       --save ${CHECKPOINT_PATH} \\
       --seq-length ${MAX_SEQ_LEN} \\
       --checkpoint-activations \\
       --eval-batch-size 16 \\
       --save-epoch 100000 \\
       --num-workers 1 \\
       --no-load-optim \\
       --no-load-lr-scheduler \\
       $MODEL_ARGS \\
       $TRAIN_ARGS \\
       $COMMON_ARGS \\
       --pattern-id 0 \\
       --fp16 \\
       --model-parallel-size ${MP_SIZE} \\
       --epochs ${XXLARGE_EPOCH} \\
       --overwrite \\
       2>&1 | tee logs/log-${EXPERIMENT_NAME}.txt"

echo ${run_cmd}
eval ${run_cmd}
'''


def test_a_variable_followed_by_a_name_character_is_shown_in_braces(tmp_path):
    p = write(tmp_path, "ds_finetune_superglue.sh", GLM)
    (la,) = read_script(str(p), [], environ={}).launches
    shown = la.argv_shown[la.argv_shown.index("--experiment-name") + 1]
    assert shown == '${EXPERIMENT_NAME}_$(date +"%m-%d-%H-%M")'
    assert "'${EXPERIMENT_NAME}_$(date" in la.shown
    # bash, the user's EXPERIMENT_NAME in the environment, `date` printing D: the script passes exp_D, and so
    # does the shown word pasted (`$EXPERIMENT_NAME_$(date ...)` gives D alone)
    stub(tmp_path, "date")
    (tmp_path / "bin" / "date").write_text("#!/bin/sh\necho D\n")
    (real,) = [r for r in bash_argv(tmp_path, p, env={"EXPERIMENT_NAME": "exp"}) if r[0] == "deepspeed"]
    assert real[real.index("--experiment-name") + 1] == "exp_D"
    assert bash_word(shown.replace('"', '\\"'), env={"EXPERIMENT_NAME": "exp"}) == "exp_D"


# alibaba/Pai-Megatron-Patch examples/llama3/run_pretrain_megatron_llama.sh lines 25-47 (the positional
# parameters past 9) and the words of megatron_options that use them (lines 107-170, shortened)
# https://github.com/alibaba/Pai-Megatron-Patch/blob/a098ca5ad1d6da7bc2cd8cbb2a5b4bb3d06bfb34/examples/llama3/run_pretrain_megatron_llama.sh
# Planned without its 24 arguments, ${13} was shown `$13`, which bash reads as ${1}3.
PAI = '''MODEL_SIZE=$3
BATCH_SIZE=$4
GLOBAL_BATCH_SIZE=$5
LR=$6
MIN_LR=$7
SEQ_LEN=$8
PAD_LEN=$9
EXTRA_VOCAB_SIZE=${10}
PR=${11}
TP=${12}
PP=${13}
AC=${14}
DO=${15}
FL=${16}
SP=${17}
TE=${18}
SAVE_INTERVAL=${19}
DATASET_PATH=${20}
PRETRAIN_CHECKPOINT_PATH=${21}
TRAIN_TOKENS=${22}
WARMUP_TOKENS=${23}
OUTPUT_BASEPATH=${24}
megatron_options="  \\
        --save-interval ${SAVE_INTERVAL} \\
        --tensor-model-parallel-size ${TP} \\
        --pipeline-model-parallel-size ${PP} \\
        --extra-vocab-size ${EXTRA_VOCAB_SIZE} \\
        --micro-batch-size ${BATCH_SIZE}"
run_cmd="torchrun --nproc_per_node 8 ../llama2/pretrain_megatron_llama.py
 ${megatron_options}"
eval ${run_cmd}
'''


def test_a_positional_parameter_past_9_is_shown_in_braces(tmp_path):
    p = write(tmp_path, "run_pretrain_megatron_llama.sh", PAI)
    (la,) = read_script(str(p), [], environ={}).launches
    words = dict(zip(la.argv_shown, la.argv_shown[1:]))
    assert [words[o] for o in ("--save-interval", "--tensor-model-parallel-size", "--pipeline-model-parallel-size",
                               "--extra-vocab-size", "--micro-batch-size")] == ["${19}", "${12}", "${13}", "${10}",
                                                                                "$4"]
    args = [chr(ord("A") + i) for i in range(24)]  # A B C ... X
    (real,) = [r for r in bash_argv(tmp_path, p, args=args) if r[0] == "torchrun"]
    got = dict(zip(real, real[1:]))
    for o in ("--save-interval", "--tensor-model-parallel-size", "--pipeline-model-parallel-size",
              "--extra-vocab-size", "--micro-batch-size"):
        assert bash_word(words[o], args=args) == got[o], o  # `$13` would be A3, bash passed M
    # with the arguments given the words are the arguments themselves
    (la2,) = read_script(str(p), args, environ={}).launches
    assert la2.argv_shown == real


@pytest.mark.parametrize("word,env", [("$NAME-a", {"NAME": "n"}), ("$NAME.x", {"NAME": "n"}), ("$1/x", {}),
                                      ("${NAME}x", {"NAME": "n"})])
def test_a_variable_bash_reads_whole_keeps_its_spelling(tmp_path, word, env):
    p = write(tmp_path, "t.sh", 'torchrun --nproc_per_node 2 t.py --v %s\n' % word)
    (la,) = read_script(str(p), [], environ={}).launches
    shown = la.argv_shown[-1]
    assert shown == word
    (real,) = [r for r in bash_argv(tmp_path, p, args=["one"], env=env) if r[0] == "torchrun"]
    assert bash_word(shown, env=env, args=["one"]) == real[-1]


# OpenGVLab/InternVideo InternVideo2/multi_modality/scripts/pretraining/clip/L14/run.sh lines 10-29 and its
# torchrun.sh (the repository's InternVideo2/multi_modality/torchrun.sh, `torchrun --rdzv_endpoint=... $@`)
# https://github.com/OpenGVLab/InternVideo/blob/3965eef16e2dadd0ea6c8d0cc29c8a3039df52e3/InternVideo2/multi_modality/scripts/pretraining/clip/L14/run.sh
# https://github.com/OpenGVLab/InternVideo/blob/3965eef16e2dadd0ea6c8d0cc29c8a3039df52e3/InternVideo2/multi_modality/torchrun.sh
# Where torchrun.sh is not beside the script (run.sh is run from the repository's root, three folders up), the
# plan gave world 2 (srun's tasks); each task runs torchrun with --nproc_per_node=8: 16 workers.
INTERNVIDEO2 = '''JOB_NAME='L14'
OUTPUT_DIR="$(dirname $0)/$JOB_NAME"
LOG_DIR="./logs/${JOB_NAME}"
PARTITION='video'
NNODE=2
NUM_GPUS=8
NUM_CPU=128

srun -p ${PARTITION} \\
    -n${NNODE} \\
    --gres=gpu:${NUM_GPUS} \\
    --ntasks-per-node=1 \\
    --cpus-per-task=${NUM_CPU} \\
    bash torchrun.sh \\
    --nnodes=${NNODE} \\
    --nproc_per_node=${NUM_GPUS} \\
    --rdzv_backend=c10d \\
    tasks_clip/pretrain.py \\
    $(dirname $0)/config.py \\
    output_dir ${OUTPUT_DIR}
'''
TORCHRUN_SH = '''#!/bin/bash
MASTER_NODE=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
ALL_NODES=$(scontrol show hostnames "$SLURM_JOB_NODELIST")
MASTER_PORT=$((10660 + $RANDOM % 10))

echo "All nodes used:"
echo ${ALL_NODES}
echo "Master node:"
echo ${MASTER_NODE}
echo "Args:"
echo $@

torchrun --rdzv_endpoint=${MASTER_NODE}:10069 $@
'''
# InternVideo1/Pretrain/ViCLIP/exp/exp_pretrain_ViCLIP/zs_anet/run_our_230522_resized.sh lines 10-38 (its
# torchrun.sh is not in the repository): `srun -n1 ... torchrun.sh --nproc_per_node=2 ...` was world 1
# https://github.com/OpenGVLab/InternVideo/blob/3965eef16e2dadd0ea6c8d0cc29c8a3039df52e3/InternVideo1/Pretrain/ViCLIP/exp/exp_pretrain_ViCLIP/zs_anet/run_our_230522_resized.sh
INTERNVIDEO1 = '''JOB_NAME='our_230522_resized'
OUTPUT_DIR="$(dirname $0)/$JOB_NAME"
PARTITION='video3'
NNODE=1
NUM_GPUS=2
NUM_CPU=16

srun -p ${PARTITION} \\
    --job-name=${JOB_NAME} \\
    -n${NNODE} \\
    --gres=gpu:${NUM_GPUS} \\
    --ntasks-per-node=1 \\
    --cpus-per-task=${NUM_CPU} \\
    torchrun.sh \\
    --nnodes=${NNODE} \\
    --nproc_per_node=${NUM_GPUS} \\
    --rdzv_backend=c10d \\
    tasks/retrieval.py \\
    $(dirname $0)/config.py \\
    wandb.enable False \\
    output_dir ${OUTPUT_DIR}
'''


def test_srun_running_a_shell_script_not_here_has_no_world(tmp_path):
    p = write(tmp_path, "run.sh", INTERNVIDEO2)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.plan.world_size() is None
    assert any("each of srun's 2 tasks runs torchrun.sh, which is not read here" in n for n in la.plan.notes)
    # bash: srun (a recorder here) is handed bash torchrun.sh and the words the plan shows
    (real,) = [r for r in bash_argv(tmp_path, p) if r[0] == "srun"]
    assert la.argv == real
    # the real torchrun.sh beside it: read as each task's shell, the world is known and is torchrun's
    write(tmp_path, "torchrun.sh", TORCHRUN_SH)
    (la,) = read_script(str(p), [], environ={}).launches
    assert (la.plan.launcher, la.plan.nnodes_max, la.plan.nproc_per_node, la.plan.world_size()) == (
        "torchrun", 2, 8, 16)
    (tmp_path / "v1").mkdir()
    p1 = write(tmp_path / "v1", "run1.sh", INTERNVIDEO1)
    (la,) = read_script(str(p1), [], environ={}).launches
    assert la.plan.world_size() is None
    assert any("srun's one task runs torchrun.sh" in n for n in la.plan.notes)


@pytest.mark.parametrize("line,world", [("srun -n 4 python train.py", 4), ("srun -n 3 bash -c 'python t.py'", 3),
                                        ("srun -n 2 python -m pkg.train", 2), ("srun -N 2 bash -x run.sh", None),
                                        ("srun -n 2 sh ./run.sh --x", None), ("srun -n 2 ./train.bash", None)])
def test_srun_world_by_its_program(tmp_path, line, world):
    p = write(tmp_path, "s.sh", line + "\n")
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.plan.world_size() == world


# script23's leftover (found in the mutation round of session 23, docs/mutation.md): a process substitution
# `<(list)` / `>(list)` was read as a redirection followed by the list's words as the command's own, so
# `exec 3< <(echo hi) torchrun a.py` planned no a.py (its words were 'hi torchrun a.py') and b.py after it, and
# `--f <(echo a)` passed `a` where bash passes /dev/fd/63 (bash(1) Process Substitution)
@pytest.mark.parametrize("text,n", [
    ("exec 3< <(echo hi) torchrun --nproc_per_node 2 a.py\ntorchrun --nproc_per_node 2 b.py\n", 1),
    ("torchrun --nproc_per_node 2 c.py --f <(echo a) --g >(cat) --h=<(printf '%s' ')') z\n", 1),
    ("while read l; do :; done < <(printf 'x\\n')\ntorchrun --nproc_per_node 2 d.py --x <(sort <(echo b)) y\n", 1),
    ("exec > >(tee -a log) 2>&1\ntorchrun --nproc_per_node 2 e.py\n", 1),
    ("torchrun --nproc_per_node 2 f.py \"<(q)\" x\\<\\(y\\) '>(z)'\n", 1),  # quoted: no substitution
])
def test_a_process_substitution_is_one_word_bash_passes_as_a_path(tmp_path, text, n):
    p = write(tmp_path, "p.sh", text)
    las = read_script(str(p), [], environ={}).launches
    real = [r for r in bash_argv(tmp_path, p) if r[0] == "torchrun"]
    assert len(las) == len(real) == n
    for la, r in zip(las, real):
        assert len(la.argv) == len(r)
        for w, b in zip(la.argv, r):
            if "\x00" in w:  # unknown: the path bash gave the pipe
                assert b.startswith("/dev/fd/") or "/dev/fd/" in b, b
                assert any(u.why.startswith("a pipe") for u in la.unknown)
            else:
                assert w == b


# MPICH's machinefile mixing `host:N` and plain `host` lines, named by -machinefile / -hostfile to `mpiexec`
# (a name Open MPI and MPICH share). Measured here: Open MPI 4.1.4's mpirun (--do-not-launch --display-map) takes
# `h2:1` as a node name and stops on it ("the regex parser has detected the presence of an illegal character in
# the following node name"); MPICH 4.0.2's Hydra (Debian's mpich package, `mpiexec.hydra -launcher manual -v`,
# its "Proxy information") places the ranks below. The plan read such a file as Open MPI's (hosts 'h1:3', 'h2:1'
# of one slot each); a file of `host:N` lines only was already Hydra's.
@pytest.mark.parametrize("lines,args,hydra", [
    ("h1:3\nh2:1\nh3\n", ["-machinefile", "hf", "-n", "2"], {"h1": 2}),
    ("h1:2\nh2:4\nh3\n", ["-machinefile", "hf", "-n", "8"], {"h1": 3, "h2": 4, "h3": 1}),
    ("h1:4\nh2:2\nh3\nh4:1\n", ["-hostfile", "hf"], {"h1": 4, "h2": 2, "h3": 1, "h4": 1}),
    ("h1:4\nh2:3\nh3\n", ["-machinefile", "hf", "-n", "10"], {"h1": 6, "h2": 3, "h3": 1}),
    ("h1\nh2:4\n", ["-machinefile", "hf", "-np", "4"], {"h1": 1, "h2": 3}),
    ("h1:2\nh2:2\n", ["-f", "hf", "-ppn", "1", "-n", "3"], {"h1": 2, "h2": 1}),  # already Hydra's: a control
])
def test_an_mpich_machinefile_with_host_n_lines_is_read_as_hydra_reads_it(tmp_path, monkeypatch, lines, args, hydra):
    import shlex

    from gpudoctor.launch import parse_launch

    (tmp_path / "hf").write_text(lines)
    monkeypatch.chdir(tmp_path)
    plan = parse_launch(" ".join(shlex.quote(a) for a in ["mpiexec"] + args + ["python", "t.py"]), environ={})
    assert {n.host: n.procs for n in plan.nodes if n.procs} == hydra
    assert plan.world_size() == sum(hydra.values())


# Hydra's MPMD sections (MPICH's mpiexec(1): `mpiexec -n 1 ./master : -n 19 ./slave`). Measured with MPICH 4.0.2's
# Hydra as above: a section without -n runs on every slot of the host list (it was refused: "section 2 of the MPMD
# line gives no -n"), and where the first section has no -n the placement still starts from the first host for
# the whole world (it was planned as the first section alone: h1 3, h2 1, world 4 of 6).
@pytest.mark.parametrize("args,hydra", [
    (["-f", "m", "-n", "1", "python", "a.py", ":", "python", "b.py"], {"h1": 3, "h2": 2, "h3": 2}),
    (["-f", "m", "-n", "1", "python", "a.py", ":", "-n", "2", "python", "b.py", ":", "python", "c.py"],
     {"h1": 4, "h2": 3, "h3": 2}),
    (["-hosts", "h1:3,h2", "python", "a.py", ":", "-n", "2", "python", "b.py"], {"h1": 5, "h2": 1}),
    (["-hosts", "h1:3,h2", "-ppn", "2", "-n", "1", "python", "a.py", ":", "python", "b.py"], {"h1": 3, "h2": 2}),
    (["-f", "m", "-n", "4", "python", "a.py", ":", "-n", "4", "python", "b.py"], {"h1": 4, "h2": 2, "h3": 2}),
])
def test_hydra_mpmd_sections_are_placed_as_hydra_places_them(tmp_path, monkeypatch, args, hydra):
    import shlex

    from gpudoctor.launch import parse_launch

    (tmp_path / "m").write_text("h1:2\nh2:2\nh3:2\n")
    monkeypatch.chdir(tmp_path)
    plan = parse_launch(" ".join(shlex.quote(a) for a in ["mpiexec.hydra"] + args), environ={})
    assert {n.host: n.procs for n in plan.nodes if n.procs} == hydra
    assert plan.world_size() == sum(hydra.values())


def test_hydra_mpmd_section_without_n_and_no_host_list_has_no_world(tmp_path, monkeypatch):
    from gpudoctor.launch import parse_launch

    monkeypatch.chdir(tmp_path)
    plan = parse_launch("mpiexec.hydra -n 1 python a.py : python b.py", environ={})
    assert plan.world_size() is None
    assert any("section 2 without -n takes every core of the machine" in n for n in plan.notes)
