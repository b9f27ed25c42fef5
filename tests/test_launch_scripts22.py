"""launch22: `gpudoctor plan SCRIPT` on real launch scripts of public training repositories
(round 3, bench/data/launch_real_scripts22.tsv). Each case is a real script's own lines (cited
by URL and commit), read by gpudoctor/launch/script.py and, where bash semantics matter, run by
bash with the launchers replaced by stubs that record their argv (nothing is trained or
started): every word gpudoctor knows must be the word bash passed."""

import os

import pytest
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


# NVIDIA-NeMo/Megatron-Bridge examples/inference/run_async_text_generation.sh lines 16, 33-54
# https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/067f987df03b8355b03192d88d70f1709fedf51a/examples/inference/run_async_text_generation.sh
# `uv run [OPTIONS] COMMAND` runs COMMAND in the project's environment: no launch line was found
UV_RUN = '''#!/bin/bash
set -euo pipefail
NPROC=1
ARGS=()

while [[ $# -gt 0 ]]; do
    case "$1" in
        --nproc)
            NPROC="$2"
            shift 2
            ;;
        -h|--help)
            usage
            exit 0
            ;;
        *)
            ARGS+=("$1")
            shift
            ;;
    esac
done

uv run --no-sync python -m torch.distributed.run --standalone --nproc_per_node "${NPROC}" \\
    scripts/inference/async_text_generation.py "${ARGS[@]}"
'''


def stub(tmp_path, *names):
    """More argv-recording stubs beside bash_argv's (it keeps what is in tmp_path/bin)."""
    from test_launch_scripts21 import STUB

    (tmp_path / "bin").mkdir(exist_ok=True)
    for name in names:
        (tmp_path / "bin" / name).write_text(STUB)
        (tmp_path / "bin" / name).chmod(0o700)


@pytest.mark.parametrize("uv", ["uv run --no-sync python -m", "uv run --python 3.12 --with x -- python -m",
                                "uv run --extra ssm -m"])
def test_uv_run_in_front_of_the_launcher_is_looked_through(tmp_path, uv):
    p = write(tmp_path, "uv.sh", UV_RUN.replace("uv run --no-sync python -m", uv))
    args = ["--nproc", "4", "--dtype", "bf16", "--prompt", "a b"]
    (la,) = read_script(str(p), args, environ={}).launches
    stub(tmp_path, "uv")
    (real,) = bash_argv(tmp_path, p, args)
    words = uv.split()[:-2] if uv.endswith("python -m") else uv.split()[:-1]
    assert real[:len(words)] == words  # bash passes uv its options; uv runs the words after them
    want = ["python", "-m"] + real[len(words) + (2 if uv.endswith("python -m") else 1):]  # `uv run -m MOD`: python -m
    assert want[2:] == ["torch.distributed.run", "--standalone", "--nproc_per_node", "4",
                        "scripts/inference/async_text_generation.py", "--dtype", "bf16", "--prompt", "a b"]
    assert la.argv_shown == want  # the script's arguments in place
    assert la.plan.world_size() == 4


# jzhang38/TinyLlama sft/script.sh lines 6-9 (and the `env` form of the same line)
# https://github.com/jzhang38/TinyLlama/blob/bf122247c486b6b897050e98cbb7bedae8eeba73/sft/script.sh
TINYLLAMA = '''# V0.1
CUDA_VISIBLE_DEVICES=4,5,6,7 accelerate launch --multi_gpu --num_processes 4 --main_process_port 1234 finetune.py \\
    --model_name_or_path PY007/TinyLlama-1.1B-intermediate-step-240k-503b \\
    --output_dir ./output/503B_FT_lr1e-5_ep5
'''


@pytest.mark.parametrize("prefix", ["CUDA_VISIBLE_DEVICES=4,5,6,7 accelerate", "env CUDA_VISIBLE_DEVICES=4,5,6,7 accelerate"])
def test_json_argv_is_the_launchers_own_and_its_environment_is_apart(tmp_path, prefix):
    # --json's launches[].argv began with CUDA_VISIBLE_DEVICES=4,5,6,7, a word accelerate never receives
    p = write(tmp_path, "script.sh", TINYLLAMA.replace("CUDA_VISIBLE_DEVICES=4,5,6,7 accelerate", prefix))
    res = read_script(str(p), [], environ={})
    (la,) = res.to_json()["launches"]
    (real,) = bash_argv(tmp_path, p)
    assert la["argv"] == real and real[:2] == ["accelerate", "launch"]
    assert la["env"] == ["CUDA_VISIBLE_DEVICES=4,5,6,7"]
    assert la["command"].startswith("CUDA_VISIBLE_DEVICES=4,5,6,7 accelerate launch")  # the line as written
    assert la["plan"]["env"]["set"] == {"CUDA_VISIBLE_DEVICES": "4,5,6,7"}


# bigscience-workshop/bigscience experiments/decoder-only-lm/gpt2_deepspeed.sh lines 1-12: the line
# above the launcher is the old command, commented out, its backslash kept
# https://github.com/bigscience-workshop/bigscience/blob/9e64edec2ad1fb9263bf39ba616a84ff64b4d947/experiments/decoder-only-lm/gpt2_deepspeed.sh
COMMENT_BACKSLASH = '''DATASET=openwebtext
SERIALIZATION_DIR=${ALL_CCFRWORK}/experiments/gpt2_repro
LOGGING_DIR=${ALL_CCFRWORK}/tensorboard/gpt2_repro

export CUDA_VISIBLE_DEVICES=0

#python scripts/run_clm.py \\
deepspeed scripts/run_clm.py \\
    --deepspeed configs/deepspeed/ds_zero2.json \\
    --model_type gpt2 \\
    --tokenizer_name gpt2 \\
    --dataset_name openwebtext --block_size 1024
'''


def test_a_comment_ending_in_a_backslash_does_not_swallow_the_next_line(tmp_path):
    # bash continues no comment line (`# a \\` then `echo hi` prints hi); the plan joined the two and
    # found no launch line (also ColossalAI's applications/ColossalMoE/train.sh, round 2's measured part)
    p = write(tmp_path, "gpt2_deepspeed.sh", COMMENT_BACKSLASH)
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    assert real[:2] == ["deepspeed", "scripts/run_clm.py"] and known(la.argv) == real
    assert la.line == 8


# hpcaitech/ColossalAI applications/ColossalMoE/train.sh lines 1-22 (round 2's measured part: `colossalai run`,
# ColossalAI's own launcher, was not read, and the line was not found)
# https://github.com/hpcaitech/ColossalAI/blob/4f9953be0dca6c0a9a4e07e6b0e1b1ea6ac9cd4a/applications/ColossalMoE/train.sh
COLOSSAL_MOE = '''NUM_GPU=8
MODEL="mistralai/Mixtral-8x7B-v0.1"
SEQ_LENGTH=2048
BATCH_SIZE=1
LR=0.00001

# hybrid
# torchrun --standalone --nproc_per_node $NUM_GPU \\
colossalai run --nproc_per_node $NUM_GPU --hostfile "hostfile" \\
    train.py \\
    --num_epoch 1 \\
    --model_name $MODEL \\
    --plugin "hybrid" \\
    --batch_size $BATCH_SIZE \\
    --lr $LR \\
    --zero_stage 1 \\
    --pp_size 2 \\
    --dp_size 1 \\
    --ep_size 8 \\
'''


@pytest.mark.parametrize("hostfile", [None, "gpu1\ngpu2\n\n", "gpu1\n"])
def test_colossalai_run_is_read_as_colossalai_reads_it(tmp_path, monkeypatch, hostfile):
    # ColossalAI colossalai/cli/launcher/run.py: the hostfile's hosts in order, torchrun on each with
    # --nnodes=len(hosts) --node_rank=i, the first host the master when there are several
    p = write(tmp_path, "train.sh", COLOSSAL_MOE)
    monkeypatch.chdir(tmp_path)
    if hostfile is not None:
        (tmp_path / "hostfile").write_text(hostfile)
    (la,) = read_script(str(p), [], environ={}).launches
    stub(tmp_path, "colossalai")
    (real,) = bash_argv(tmp_path, p)
    assert real[:6] == ["colossalai", "run", "--nproc_per_node", "8", "--hostfile", "hostfile"]
    assert la.argv == real and la.refused is None
    plan = la.plan
    assert plan.launcher == "colossalai" and plan.nproc_per_node == 8 and plan.master_port == 29500
    assert plan.script == "train.py" and plan.script_args[:2] == ["--num_epoch", "1"]
    if hostfile is None:  # read where the job is launched: the node count and the master are unknown here
        assert plan.world_size() is None and plan.master_addr is None
    elif hostfile.count("gpu") == 2:
        assert [n.host for n in plan.nodes] == ["gpu1", "gpu2"] and plan.world_size() == 16
        assert plan.master_addr == "gpu1"
    else:
        assert plan.world_size() == 8 and plan.master_addr == "127.0.0.1"


@pytest.mark.parametrize("line, refusal", [
    ("colossalai run train.py", "--nproc_per_node did not receive any value"),
    ("colossalai run --nproc_per_node 4 train.sh", "invalid Python file 'train.sh'"),
    ("colossalai run --nproc_per_node 4 -m pkg.py", "invalid Python module 'pkg.py'"),
    ("colossalai run --nproc_per_node x train.py", "'x' is not a valid integer"),
])
def test_colossalai_run_refuses_what_colossalai_refuses(line, refusal):
    from gpudoctor.launch import Refused, parse_launch

    with pytest.raises(Refused, match=refusal):
        parse_launch(line)


def test_colossalai_run_options_may_follow_the_script_and_unknown_ones_are_the_scripts():
    from gpudoctor.launch import parse_launch

    # click: options anywhere until `--` (interspersed), an unknown one is an argument of the script
    plan = parse_launch("colossalai run -H a,b,c train.py --plugin zero2 --nproc_per_node 2 --extra_launch_args "
                        "max_restarts=1,master_port=30000 -- --master_addr x")
    assert [n.host for n in plan.nodes] == ["a", "b", "c"] and plan.world_size() == 6
    assert plan.master_addr == "a" and plan.master_port == 30000
    assert plan.script == "train.py" and plan.script_args == ["--plugin", "zero2", "--master_addr", "x"]
    plan = parse_launch("colossalai run --nproc_per_node 2 -m pkg.train --lr 1")
    assert plan.script == "-m pkg.train" and plan.script_args == ["--lr", "1"]


# microsoft/Megatron-DeepSpeed examples_deepspeed/compression/ds_pretrain_gpt_125M_dense_kd.sh lines 88-90,
# 107-108, 200-207, 320-322 (round 3's fix22 part)
# https://github.com/microsoft/Megatron-DeepSpeed/blob/f4157bea69f3df8c6cb66f2ebcda66ba03d1288e/examples_deepspeed/compression/ds_pretrain_gpt_125M_dense_kd.sh
TOKEN_COUNTS = '''TRAIN_TOKENS=300000000000
WARMUP_TOKENS=375000000
LR_DECAY_TOKENS=260000000000
MP_SIZE=1
megatron_options=" \\
        --override-opt_param-scheduler \\
        --tensor-model-parallel-size ${MP_SIZE} \\
        --lr-decay-tokens ${LR_DECAY_TOKENS} \\
        --lr-warmup-tokens ${WARMUP_TOKENS} \\
        --train-tokens ${TRAIN_TOKENS}"
run_cmd="deepspeed pretrain_gpt.py ${megatron_options} --hf-token ${HF_TOKEN} --api ${API_TOKENS}"
echo ${run_cmd}
eval ${run_cmd}
'''


def test_a_count_of_tokens_is_no_secret_but_a_token_still_is(tmp_path):
    # LR_DECAY_TOKENS=260000000000 has TOKEN in its name: the plan wrote $LR_DECAY_TOKENS where bash passes
    # 260000000000. HF_TOKEN (a number or not) and a *_TOKENS name holding no number stay hidden.
    text = "HF_TOKEN=12345678\nAPI_TOKENS=tok_abcdefgh\n" + TOKEN_COUNTS
    p = write(tmp_path, "kd.sh", text)
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    assert real[real.index("--lr-decay-tokens") + 1] == "260000000000"
    want = [w for w in real]
    want[real.index("--hf-token") + 1] = "$HF_TOKEN"
    want[real.index("--api") + 1] = "$API_TOKENS"
    assert la.argv == want
    assert "12345678" not in la.shown and "tok_abcdefgh" not in la.shown


# modelscope/ms-swift examples/train/multi-node/accelerate/train_node1.sh lines 1-5, and the config it names
# (examples/train/multi-node/accelerate/multi_node.yaml, relative to the repository's root)
# https://github.com/modelscope/ms-swift/blob/3602360a562313afbf2ef6065fdf61f271a2c5b9/examples/train/multi-node/accelerate/train_node1.sh
SWIFT_NODE1 = '''CUDA_VISIBLE_DEVICES=0,1,2,3 \\
accelerate launch --config_file ./examples/train/multi-node/accelerate/multi_node.yaml --machine_rank 0 \\
    swift/cli/sft.py \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --tuner_type lora
'''
SWIFT_YAML = '''compute_environment: LOCAL_MACHINE
deepspeed_config:
    deepspeed_multinode_launcher: standard
    gradient_accumulation_steps: 16
    offload_optimizer_device: none
    offload_param_device: none
    zero3_init_flag: false
    zero_stage: 3
distributed_type: DEEPSPEED
main_process_ip: 'xxx.xxx.xxx.xxx'
main_process_port: 29500
main_training_function: main
mixed_precision: bf16
num_machines: 2
num_processes: 8  # world size
rdzv_backend: static
use_cpu: false
'''


@pytest.mark.parametrize("config_here", [False, True])
def test_an_accelerate_config_not_here_leaves_what_it_sets_unknown(tmp_path, monkeypatch, config_here):
    # planned away from the repository's root, the config is absent: the plan said nnodes 1, master
    # 127.0.0.1, precision no (accelerate's defaults without a config), where the config says 2 machines
    p = write(tmp_path, "train_node1.sh", SWIFT_NODE1)
    monkeypatch.chdir(tmp_path)
    if config_here:
        cfg = tmp_path / "examples/train/multi-node/accelerate/multi_node.yaml"
        cfg.parent.mkdir(parents=True)
        cfg.write_text(SWIFT_YAML)
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    assert la.argv == ["CUDA_VISIBLE_DEVICES=0,1,2,3"] + real
    plan = la.plan
    if config_here:
        assert (plan.nnodes_max, plan.world_size(), plan.precision) == (2, 8, "bf16")
    else:
        assert (plan.nnodes_max, plan.world_size(), plan.master_addr, plan.precision) == (None, None, None, None)
        assert plan.script == "swift/cli/sft.py" and plan.script_args[:2] == ["--model", "Qwen/Qwen2.5-7B-Instruct"]


# InternLM/xtuner examples/v1/scripts/run_sft.sh lines 11-13, 36-45 (round 3's fix22 part): the script's own
# directory by `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`, a path from it
# https://github.com/InternLM/xtuner/blob/b934f462095c1e750229de35367c50ae36caa786/examples/v1/scripts/run_sft.sh
XTUNER = '''SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/../../.." && pwd)"
CONFIG_PATH="${1:-${REPO_ROOT}/examples/v1/config/sft_qwen3p5.py}"

torchrun \\
  --nproc-per-node="${NPROC_PER_NODE:-8}" \\
  --tee 3 \\
  -m xtuner.v1.train.cli.sft \\
  --config "${CONFIG_PATH}" --name "$(basename "$0" .sh)" --top $(dirname "$(dirname "$0")")
'''


@pytest.mark.parametrize("sbatch", [False, True])
def test_the_scripts_own_directory_from_dirname_and_cd_pwd(tmp_path, sbatch):
    d = tmp_path / "xtuner" / "examples" / "v1" / "scripts"
    d.mkdir(parents=True)
    text = ("#SBATCH -N 1\n" if sbatch else "") + XTUNER
    p = write(d, "run_sft.sh", text)
    res = read_script(str(p), [], environ={})
    (la,) = res.launches
    (real,) = bash_argv(tmp_path, p)
    assert real[real.index("--config") + 1] == str(tmp_path / "xtuner" / "examples/v1/config/sft_qwen3p5.py")
    if not sbatch:  # bash ran the file where it is: $0 is its path
        assert la.argv_shown == real
        assert real[-3:] == ["run_sft", "--top", str(tmp_path / "xtuner" / "examples" / "v1")]
    else:  # under sbatch, $0 is slurmd's copy of the script (its spool directory): what depends on it is unknown
        mine = known(la.argv)
        assert mine[:7] == real[:7] and mine[7:] == [None, "--name", None, "--top", None]


# deepspeedai/DeepSpeedExamples applications/DeepSpeed-VisualChat/training/training_scripts/run_7b.sh lines 17-30
# (round 2's fix part: the output directory was an unknown), and stas00/ml-engineering
# insights/when-to-upgrade-gpus/install.sh line 80 (`${id//\//--}`, round 3's fix22 part)
# https://github.com/deepspeedai/DeepSpeedExamples/blob/45b4b7156c8794a3452a5a7d03dbd8d797068569/applications/DeepSpeed-VisualChat/training/training_scripts/run_7b.sh
# https://github.com/stas00/ml-engineering/blob/744d01e18b79512572f64a6bbd8b5f4a725203a7/insights/when-to-upgrade-gpus/install.sh
VISUALCHAT = '''EPOCH=6
lr=1e-3
DATA="llava llava_dial otter_mimicit_cgd otter_mimicit_sd otter_mimicit_sn otter_mimicit_tvc otter_mimicit_vst llava_otter_blend sparkles_dialogue"
DATA_SAMPLE="all"
IMAGE_PER_SAMPLE="3 2 1 1 1 1 1 1 1"

DATA_CONCATE="${DATA// /_}"
DATA_SAMPLE_CONCATE="${DATA_SAMPLE// /_}"
IMAGE_CONCATE="${IMAGE_PER_SAMPLE// /_}"

OUTPUT_Base=./output/

OUTPUT_Dir=Epoch${EPOCH}_LR${lr}_data_${DATA_CONCATE}_${DATA_SAMPLE_CONCATE}_${IMAGE_CONCATE}

OUTPUT=${OUTPUT_Base}${OUTPUT_Dir}
id=meta-llama/Llama-2-7b-hf
MODEL=facebook/opt-1.3b
deepspeed main.py --output_dir $OUTPUT --hub "models--${id//\\//--}" --log "${MODEL##*/}" ${HF_TOKEN//x/y}
'''


def test_pattern_expansions_of_known_values_are_computed_as_bash_does(tmp_path):
    p = write(tmp_path, "run_7b.sh", "HF_TOKEN=hf_xsecretx\n" + VISUALCHAT)
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    assert real[3] == ("./output/Epoch6_LR1e-3_data_llava_llava_dial_otter_mimicit_cgd_otter_mimicit_sd_otter_mimicit_sn_"
                       "otter_mimicit_tvc_otter_mimicit_vst_llava_otter_blend_sparkles_dialogue_all_3_2_1_1_1_1_1_1_1")
    assert real[4:8] == ["--hub", "models--meta-llama--Llama-2-7b-hf", "--log", "opt-1.3b"]
    mine = known(la.argv)
    assert mine[:8] == real[:8]
    assert mine[8:] == [None] and "secret" not in la.shown  # a part of a secret-looking value is never shown


PATTERN_VALUES = ["abc", "a b  c", "meta-llama/Llama-2-7b-hf", "/a/b/c.tar.gz", "xx:yy:zz", "", "aaa", "x/y/"]
PATTERN_OPS = ["#*/", "##*/", "%/*", "%%/*", "#a", "##a*", "%.*", "%%.*", "// /_", "/ /_", "//a/X", "/#a/X", "/%c/X",
               "//\\\\//--", "//*/r", "/*/r", "//?/r", "//[ab]/", "//[!a]/Q", "%%[[:space:]]*", "#[[:space:]]", "^^", ",,",
               "^", ",", "//'a b'/Z", "#*:", "##*:", "%:*", "%%:*", "//x/", "/#/X", "/%/X", "//:/ ", "//.//"]


@pytest.mark.parametrize("value", PATTERN_VALUES)
def test_pattern_expansions_match_bash(tmp_path, value):
    # every op on one value in one script: "${V<op>}" as a torchrun argument, bash's argv against the plan's
    lines = "".join('"${V%s}" ' % op for op in PATTERN_OPS)
    p = write(tmp_path, "pat.sh", "V='%s'\ntorchrun --nproc_per_node 2 t.py %s\n" % (value, lines))
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    assert len(real) == 4 + len(PATTERN_OPS)
    assert la.argv == real


# microsoft/Megatron-DeepSpeed examples/curriculum_learning/pretrain_gpt_cl.sh lines 6-17 (round 3's fix22 part):
# bash's integer constants have no `_`: $(($LR_DECAY_SAMPLES*$SEQLEN)) fails ("value too great for base") and
# LR_DECAY_TOKENS stays unset; the plan said "arithmetic on a value known at run time"
# https://github.com/microsoft/Megatron-DeepSpeed/blob/f4157bea69f3df8c6cb66f2ebcda66ba03d1288e/examples/curriculum_learning/pretrain_gpt_cl.sh
CL_ARITH = '''TARGET_GLOBAL_BATCH_SIZE=512
TRAIN_SAMPLES=146_484_375
LR=1.0e-4
MIN_LR=1.0e-5
LR_DECAY_SAMPLES=126_953_125
LR_WARMUP_SAMPLES=183_105
SEQLEN=1024
TRAIN_TOKENS=10_000_000_000
LR_DECAY_TOKENS=$(($LR_DECAY_SAMPLES*$SEQLEN))
deepspeed ../../pretrain_gpt.py --lr-decay-tokens ${LR_DECAY_TOKENS} --lr-warmup-samples ${LR_WARMUP_SAMPLES} \\
    --a $((010+1)) --b $((0x1F)) --c $((2#101)) --d $((10#08)) --e $((36#z)) --f $((-7/2))
'''


def test_bash_integer_constants_and_their_errors(tmp_path):
    p = write(tmp_path, "pretrain_gpt_cl.sh", CL_ARITH)
    (la,) = read_script(str(p), [], environ={}).launches
    (real,) = bash_argv(tmp_path, p)
    # bash: the failed assignment leaves LR_DECAY_TOKENS unset, so --lr-decay-tokens is followed by nothing
    assert real == ["deepspeed", "../../pretrain_gpt.py", "--lr-decay-tokens", "--lr-warmup-samples", "183_105",
                    "--a", "9", "--b", "31", "--c", "5", "--d", "8", "--e", "35", "--f", "-3"]
    mine = known(la.argv)
    assert mine[:3] == real[:3] and mine[3] is None and mine[4:] == real[3:]
    (u,) = [u for u in la.unknown if "LR_DECAY_SAMPLES" in u.text]
    assert "an error to bash" in u.why and "value too great for base" in u.why


# awslabs/awsome-distributed-training 3.test_cases/pytorch/torchtitan/slurm/1.llama_3_8b_torchtitan.sh lines 4-7,
# 35-62 (round 3's fix22 part): submitted with sbatch, $0 is slurmd's copy of the script in its spool directory,
# so the default config path points there
# https://github.com/awslabs/awsome-distributed-training/blob/0edaf1526bc47185ce5f827100416f99bd7b69e1/3.test_cases/pytorch/torchtitan/slurm/1.llama_3_8b_torchtitan.sh
TORCHTITAN = '''#!/bin/bash
#SBATCH --nodes=4 # number of nodes to use  # can also run with 1 node
#SBATCH --job-name=torchtitan #name of your job
#SBATCH --exclusive # job has exclusive use of the resource, no sharing
GPUS_PER_NODE=8
declare -a TORCHRUN_ARGS=(
    --nproc_per_node=$GPUS_PER_NODE
    --nnodes=$SLURM_JOB_NUM_NODES
    --rdzv_backend=c10d
    --rdzv_endpoint=$(hostname)
)
export TORCHRUN=./pt_torchtitan/bin/torchrun
export TRAIN_SCRIPT=./torchtitan/torchtitan/train.py
CONFIG_FILE=${CONFIG_FILE:-"$(dirname "$0")/configs/llama3_8b.toml"}
srun  ${AUTO_RESUME} -l ${TORCHRUN} "${TORCHRUN_ARGS[@]}" $TRAIN_SCRIPT  --job.config_file ${CONFIG_FILE}
'''


def test_a_path_from_dollar_zero_in_an_sbatch_file_is_slurmds_spool_directory(tmp_path):
    repo = tmp_path / "repo"
    (repo / "configs").mkdir(parents=True)
    (repo / "configs" / "llama3_8b.toml").write_text("")
    p = write(repo, "1.llama_3_8b_torchtitan.sh", TORCHTITAN)
    # slurmd runs a copy of the batch script: SlurmdSpoolDir/job<ID>/slurm_script (here under tmp_path)
    spool = tmp_path / "spool" / "job7"
    spool.mkdir(parents=True)
    (spool / "slurm_script").write_text(TORCHTITAN)
    (real,) = bash_argv(tmp_path, spool / "slurm_script", env={"SLURM_JOB_NUM_NODES": "4"})
    cfg = real[real.index("--job.config_file") + 1]
    assert cfg == str(spool / "configs" / "llama3_8b.toml") and not os.path.exists(cfg)
    (la,) = read_script(str(p), [], environ={}).launches
    assert known(la.argv)[-1] is None  # not repo/configs/llama3_8b.toml, which the plan said before
    assert any(f.startswith('$(dirname "$0") is slurmd' + "'s spool directory in an sbatch file") for f in la.findings)
    # run with bash where it is, the same line reads the file beside it: no finding
    plain = write(repo, "run.sh", TORCHTITAN.replace("#SBATCH", "# SBATCH"))
    (la,) = read_script(str(plain), [], environ={}).launches
    assert la.argv[-1] == str(repo / "configs" / "llama3_8b.toml") and not any("spool" in f for f in la.findings)
