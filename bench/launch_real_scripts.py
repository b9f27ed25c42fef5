#!/usr/bin/env python3
"""`gpudoctor plan SCRIPT` on real public launch scripts, against bash (launch21, round 2).

Each script of bench/data/launch_real_scripts.tsv is
- planned as a user runs it: `gpudoctor plan SCRIPT [ARGS]` and `gpudoctor plan --json SCRIPT`
  (exit code, a traceback, the time), and read in-process (read_script) from the directory
  bash runs it in;
- run by bash as user nobody in its own network namespace (unshare -n; root needed for
  that), from a private temp directory, with every launcher (torchrun, deepspeed, accelerate,
  mpirun, python, ...) replaced by a stub that records its argv; srun runs what follows its
  options once per task (at most 2; SLURM_PROCID set), sbatch with no script operand runs its
  stdin; nothing is trained or started. The allocation is #SBATCH --nodes/--ntasks-per-node
  (else 2 nodes).
Every word the plan knows must be the word bash passed (an unknown word matches anything,
bench/launch_conformance.py's rule). Per script: launch lines, refused, wrong words, world
size known, no launch line where bash launched one, tracebacks, exit 2/3, time.

The scripts are not kept in the tree. Put them in DIR/fix/NAME and DIR/measure/NAME
(`--fetch` downloads each URL's raw file, where this machine has the network):

    python bench/launch_real_scripts.py --dir /tmp/launch21 --fetch
    python bench/launch_real_scripts.py --dir /tmp/launch21 all
    L21_ROOT=/path/to/an/older/checkout python bench/launch_real_scripts.py --dir D all  # before
    python bench/launch_real_scripts.py --dir D --summary D/results-fix.json ...

SETUP / ARGS below are what bash needs to reach the launch line on a machine that is not the
cluster (a file the script sources, an argument it requires); they change what bash runs
into, never what gpudoctor reads.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("L21_ROOT", os.path.dirname(BENCH))  # the gpudoctor tree measured
sys.path.insert(0, BENCH)  # the bench's word-matching rule
sys.path.insert(0, ROOT)
from gpudoctor.launch.script import read_script  # noqa: E402  (first: the bench puts its own tree on sys.path)
import launch_conformance as lc  # noqa: E402
import gpudoctor  # noqa: E402
assert gpudoctor.__file__.startswith(ROOT), gpudoctor.__file__

HERE = "/tmp/launch21"  # --dir
# srun: record, then run what follows its options once per task (at most 2), as each task
SRUN_STUB = """#!/usr/bin/python3
import os, subprocess, sys
VAL = set(%r)
with open(os.environ["REC"], "a") as f:
    f.write("\\x1f".join(["srun"] + sys.argv[1:]) + "\\x1f\\x1e")
a = sys.argv[1:]
n = N = tpn = None
i = 0
while i < len(a):
    o = a[i]
    if not o.startswith("-") or o == "-":
        break
    name, eq, v = o.partition("=")
    if not eq and len(o) > 2 and o[1] != "-" and o[:2] in VAL:
        name, v, eq = o[:2], o[2:], "="
    if name in VAL and not eq:
        i += 1
        v = a[i] if i < len(a) else ""
    if name in ("-n", "--ntasks"):
        n = int(v)
    if name in ("-N", "--nodes"):
        N = int(v.split("-")[0])
    if name == "--ntasks-per-node":
        tpn = int(v)
    i += 1
cmd = a[i:]
if not cmd:
    sys.exit(0)
if n is None:
    n = N * tpn if N and tpn else (N or int(os.environ.get("SLURM_NTASKS", "2")))
for t in range(min(n, 2)):
    subprocess.run(cmd, env=dict(os.environ, SLURM_PROCID=str(t), SLURM_NODEID=str(t), SLURM_LOCALID="0"))
"""


def srun_stub():
    """srun's options that take a value: gpudoctor's table from `srun --help`, and pyxis's."""
    with open(os.path.join(ROOT, "gpudoctor", "launch", "flags", "srun.json")) as f:
        table = json.load(f)
    val = sorted({fl for o in table["options"] if o["nargs"] == 1 for fl in o["flags"]} | {
        "--container-image", "--container-mounts", "--container-workdir", "--container-name", "--container-save",
        "--container-env"})
    return SRUN_STUB % (val,)
ALLOC = {"SLURM_JOB_NODELIST": "node[1-2]", "SLURM_NODELIST": "node[1-2]", "SLURM_PROCID": "0",
         "SLURM_NODEID": "0", "SLURM_NNODES": "2", "SLURM_JOB_NUM_NODES": "2", "SLURM_NTASKS": "2",
         "SLURM_JOB_ID": "7", "SLURM_JOBID": "7", "SLURM_GPUS_ON_NODE": "8", "SLURM_SUBMIT_DIR": "/tmp",
         "SLURM_JOB_NAME": "job", "SLURM_CPUS_PER_TASK": "8", "SLURM_NTASKS_PER_NODE": "1",
         "SLURM_GPUS_PER_NODE": "8"}
# uv run [OPTIONS] COMMAND: record, then run COMMAND (uv's CLI reference, https://docs.astral.sh/uv/reference/cli/#uv-run:
# its options end at the command; -m MOD is python -m MOD); round 3 (launch22)
UV_STUB = """#!/usr/bin/python3
import os, subprocess, sys
VAL = set(%r)
with open(os.environ["REC"], "a") as f:
    f.write("\\x1f".join(["uv"] + sys.argv[1:]) + "\\x1f\\x1e")
a = sys.argv[1:]
if a[:1] != ["run"]:
    sys.exit(0)
a, cmd = a[1:], None
while a and a[0].startswith("-") and a[0] != "-":
    o = a.pop(0)
    if o == "--":
        break
    if o in ("-m", "--module") and a:
        a = ["python", "-m"] + a
        break
    if o.split("=")[0] in VAL and "=" not in o and a:
        a.pop(0)
if a:
    sys.exit(subprocess.run(a).returncode)
"""
UV_VALUE = ("--extra", "--no-extra", "--group", "--no-group", "--only-group", "--with", "--with-editable",
            "--with-requirements", "--package", "--env-file", "--index", "--default-index", "--index-url", "-i",
            "--extra-index-url", "--find-links", "-f", "--index-strategy", "--keyring-provider", "--resolution",
            "--prerelease", "--fork-strategy", "--exclude-newer", "--python", "-p", "--python-platform", "--directory",
            "--project", "--config-file", "--cache-dir", "--color", "--allow-insecure-host", "--config-setting", "-C")
# gantry run [OPTIONS] -- COMMAND (allenai/beaker-gantry: COMMAND runs in a Beaker job): record, then run COMMAND
GANTRY = """#!/bin/bash
printf '%s\\037' gantry "$@" >> "$REC"; printf '\\036' >> "$REC"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
[ $# -gt 0 ] && shift && exec "$@"
"""
# nsys profile|launch [OPTIONS] APP: record, then run APP (Nsight Systems' CLI: a short option's parameter follows
# after a space, a long option's after `=`; every profile/launch switch but --help takes one); round 9 (launch28)
NSYS = """#!/usr/bin/python3
import os, subprocess, sys
with open(os.environ["REC"], "a") as f:
    f.write("\\x1f".join(["nsys"] + sys.argv[1:]) + "\\x1f\\x1e")
a = sys.argv[1:]
if a[:1] not in (["profile"], ["launch"]):
    sys.exit(0)
a = a[1:]
while a and a[0].startswith("-") and a[0] != "-":
    o = a.pop(0)
    if o == "--":
        break
    if "=" not in o and o not in ("-h", "--help") and a:
        a.pop(0)
if a:
    sys.exit(subprocess.run(a).returncode)
"""
# shifter [OPTIONS] COMMAND (NERSC's container runtime, https://docs.nersc.gov/development/containers/shifter/how-to-use/:
# `shifter --image=docker:IMAGE COMMAND`): record, then run COMMAND (round 10, launch29: H1Unfold's `srun --mpi=pmi2
# shifter python train.py` ran no python under bash here)
SHIFTER = """#!/usr/bin/python3
import os, subprocess, sys
with open(os.environ["REC"], "a") as f:
    f.write("\\x1f".join(["shifter"] + sys.argv[1:]) + "\\x1f\\x1e")
a = sys.argv[1:]
while a and a[0].startswith("-") and a[0] != "-":
    o = a.pop(0)
    if o == "--":
        break
    if o in ("-i", "--image", "-V", "--volume", "-m", "--module", "-e", "--env", "-w", "--workdir", "--env-file") and a:
        a.pop(0)
if a:
    sys.exit(subprocess.run(a).returncode)
"""
# sbatch with no script operand reads the batch script from its stdin (`sbatch <<EOF`): run it
SBATCH = """#!/bin/bash
printf '%s\\037' sbatch "$@" >> "$REC"; printf '\\036' >> "$REC"
# --wrap CMD: sbatch runs CMD as a `sh` batch script (round 9, launch28)
w=; n=; for a in "$@"; do if [ -n "$n" ]; then w=$a; n=; fi; case "$a" in --wrap=*) w=${a#--wrap=};; --wrap) n=1;; esac; done
[ -n "$w" ] && exec sh -c "$w"
for a in "$@"; do case "$a" in -*) ;; *) exit 0;; esac; done
cat > "$HOME/.batch.sh"; bash "$HOME/.batch.sh"
"""
STUBS = ("torchrun", "deepspeed", "accelerate", "mpirun", "mpiexec", "python", "python3", "python3.6", "ipython", "module",
         "horovodrun", "composer", "ray", "pip", "nvidia-smi", "conda", "apptainer", "singularity",
         "docker", "enroot", "squeue", "sinfo", "git", "wget", "curl", "huggingface-cli", "ssh", "pdsh", "clear", "colossalai", "dcgmi", "tune")
# per-script arguments and extra environment (what a user would pass)
ARGS = {
    "alignment_handbook__recipes_launch.slurm": ["--model", "zephyr-7b-beta", "--task", "sft", "--config", "full",
                                                  "--accelerator", "zero3"],
    "verl__examples_sft_gsm8k_run_gemma_2b.sh": ["4", "/tmp/save"],
    "verl__examples_sft_gsm8k_run_qwen_05_sp2.sh": ["4", "/tmp/save"],
    "awsome_distributed_training__3.test_cases_pytorch_deepspeed_examples_megatron_deepspeed_finetune_hf_llama_scripts_finetune_llama.sbatch": ["finetune"],
    "Megatron_LM__examples_gptoss_02_train.sh": ["--checkpoint-path", "ckpt"],
    "Megatron_LM__examples_inference_run_inference_server.sh": ["--hf-token", "hf_x", "--hf-home", "hfh", "--checkpoint", "ckpt"],
    # round 4 (launch23): what the scripts' own usage asks for
    "InternEvo__ci_scripts_data_tokenizer_chinese.sh": ["job"],
    "InternEvo__ci_scripts_train_slurm_train.sh": ["job"],
    "InternEvo__ci_scripts_train_torchrun.sh": ["job"],
    "MiniCPM-V__eval_mm_vlmevalkit_scripts_run_inference.sh": ["MiniCPM-o-2_6", "MMMU_DEV_VAL"],
    "OLMo__scripts_augusta_peteish13-seed-anneal.sh": ["leader", "0", "42"],
    "OLMo__scripts_beaker_peteish_peteish7-anneal.sh": ["leader", "2", "0"],
    # round 5 (launch24): the READMEs' and the scripts' own usage lines
    "Pai-Megatron-Patch__examples_llama3_run_pretrain_megatron_llama.sh": (
        "dsw ../../ 8B 1 8 1e-5 1e-6 128 128 256 bf16 4 1 sel true false false false 100000 "
        "/mnt/llama3-datasets/wudao_llama3bpe_content_document /mnt/llama3-ckpts/Meta-Llama-3-8B-to-megatron-tp4-pp1 "
        "100000000 10000 output_megatron_llama3").split(),  # relative: bash as nobody cannot mkdir /mnt
    "Pai-Megatron-Patch__examples_deepseek_run_evaluate_megatron_deepseek.sh": (
        "dsw /workspace/Pai-Megatron-Patch 7B 1 80 80 0 bf16 2 1 sel true true true false "
        "/mnt/deepseek-datasets/alpaca_data.json /mnt/deepseek-ckpts/Llama-2-7b-hf-to-mg-tp2-pp1/").split(),
    "GLM__scripts_ds_finetune_superglue.sh": ["config_tasks/model_blocklm_10B.sh", "config_tasks/task_copa.sh"],
    "GLM__scripts_finetune_blank.sh": ["config_tasks/model_blocklm_large.sh", "config_tasks/seq_blank.sh"],
    # round 6 (launch25): the scripts' own usage line (`run_gemma_2b.sh <nproc_per_node> <save_path>`, as verl's)
    **{"TinyZero__examples_sft_gsm8k_run_%s.sh" % m: ["4", "/tmp/save"]
       for m in ("deepseek_6b7", "gemma_2b", "gemma_7b")},
    # round 7 (launch26): the script's own usage line (`run_slurm.sh <config.yaml> <num_nodes>`, its first example)
    "FastVideo__examples_train_run_slurm.sh": ["examples/train/configs/example.yaml", "2"],
    # round 8 (launch27): the README's own line (`GPUS_PER_NODE=8 ./tools/run_dist_slurm.sh <partition> deformable_detr
    # 16 configs/r50_deformable_detr.sh`, its 2-node example; 8 is the script's default)
    "Deformable-DETR__tools_run_dist_slurm.sh": ["p", "deformable_detr", "16", "configs/r50_deformable_detr.sh"],
    # round 10 (launch29): what the repository's own multinode.sh passes it over ssh (`$SCRIPT $1 ${#NODES[*]} $rank
    # ${NODES[0]} $PBS_NODEFILE`), its first node's
    "vision___multinode.sh": ["configs/cfg.yaml", "2", "0", "node1", "nodefile"],
}
# round 5 (launch24): files of the scripts' own repositories that they source or run, fetched into DIR/extra24
EXTRA24 = {
    "GLM__config_tasks_%s" % f: "https://github.com/THUDM/GLM/blob/4f61ed7237a3b0187f4d62062429348276a78c84/"
                                 "config_tasks/%s" % f
    for f in ("model_blocklm_10B.sh", "task_copa.sh", "model_blocklm_large.sh", "seq_blank.sh")}
EXTRA24["InternVideo__InternVideo2_multi_modality_torchrun.sh"] = (
    "https://github.com/OpenGVLab/InternVideo/blob/3965eef16e2dadd0ea6c8d0cc29c8a3039df52e3/"
    "InternVideo2/multi_modality/torchrun.sh")
# round 6 (launch25): the same for round 5's measure part, fixed on this round
EXTRA25 = {"training__retired_benchmarks_stable_diffusion_run_and_time.sh": (
    "https://github.com/mlcommons/training/blob/aa344c7fb900e82ed19fb94aebfed50c63ab2204/retired_benchmarks/"
    "stable_diffusion/run_and_time.sh")}
# round 7 (launch26): the same for round 6's measure part, fixed on this round: Ask-Anything's video_chat2 slurm
# scripts run `srun ... bash torchrun.sh ...` from video_chat2/ (its README), the repository's torchrun.sh
EXTRA26 = {"Ask-Anything__video_chat2_torchrun.sh": (
    "https://github.com/OpenGVLab/Ask-Anything/blob/4dd8210b030374bb0c510a57dfbe916f70d3ef71/video_chat2/torchrun.sh")}
# round 8 (launch27): Deformable-DETR's run_dist_slurm.sh runs the config script its README names in each srun task
EXTRA27 = {"Deformable-DETR__configs_r50_deformable_detr.sh": (
    "https://github.com/fundamentalvision/Deformable-DETR/blob/11169a60c33333af00a4849f1808023eba96a931/"
    "configs/r50_deformable_detr.sh")}
# round 9 (launch28): the files of the scripts' own repositories they run or read where they are (the sbatch file's
# `srun ./accelerate.sh`, the submit scripts' `srun bash torchrun_script.sh` (round 8's measure part, fixed on this
# round), the hostfile and the task script beside swift-work's slurm-layouts scripts)
EXTRA28 = {
    "Cesga2023Courses__pytorch_dist_accelerate_accelerate.sh": (
        "https://github.com/diegoandradecanosa/Cesga2023Courses/blob/31481bfb6a1d667559381b846648ec2779608b5c/"
        "pytorch_dist/accelerate/accelerate.sh"),
    "ML-LinearSpace__demo_train_multinodes_torchrun_script.sh": (
        "https://github.com/He-Wenhao/ML-LinearSpace/blob/b1485129dd351627157f8ff2420a7da8ea05395f/"
        "demo/train_multinodes/torchrun_script.sh"),
    **{"swift-work__slurm-layouts_%s" % f: (
        "https://github.com/swift-lang/swift-work/blob/3634a4cce58a0a269c1f8286815b51e7e5aea4cd/slurm-layouts/%s" % f)
       for f in ("hostfile-ompi-02.txt", "task-pmi.sh", "task-pmix.sh")},
}
# what the script needs on the machine before bash can reach its launch line: files made in
# the working directory (the script's own cwd), the environment a user's login gives
SIX = {"six_ALL_CCFRWORK": "W", "six_CCFRWORK": "W", "six_ALL_CCFRSCRATCH": "W", "six_CCFRSCRATCH": "W"}
SETUP = {
    "alignment_handbook__recipes_launch.slurm": dict(files=[".bashrc", ".cargo/env", "handbook/bin/activate"],
                                                      ),
    "Megatron_Bridge__examples_models_deepseek_v4_slurm_pretrain.sh": dict(env=dict(
        CONTAINER_IMAGE="img", RECIPE_NAME="deepseek_v4_flash_pretrain_muon_config"),
        # the template's empty value (bash exits 1); a login shell (-l) here resets PATH to the system's, without the stubs
        subst=[('CONTAINER_IMAGE=""', 'CONTAINER_IMAGE="img"'), ("bash -lc", "bash -c")]),
    "xtuner__examples_v1_scripts_run_sft.sh": dict(env=dict(QWEN3_5_MOE_PATH="m", ALPACA_PATH="a"),
                                                   subst=[("ulimit -n 65536", "true")]),  # not permitted as nobody
    "nanotron__examples_mamba_run_multinode.sh": dict(subst=[("source /etc/profile.d/modules.sh", "true"),
                                                             ("source ${CONDA_PATH}/bin/activate", "true")]),
    "TransformerEngine__examples_pytorch_ep_run_test_ep.sh": dict(env=dict(NUM_GPUS="8")),
    "DeepSpeedExamples__benchmarks_deepcompile_run.sh": dict(files=[".local/bin/accelerate"]),
    "Megatron_LM__examples_gptoss_02_train.sh": dict(files=["ckpt/x", "pretrain_gpt.py"]),
    "Megatron_LM__examples_multimodal_pretrain_mistral_clip.sh": dict(env=dict(WORKSPACE="W", LOAD_NAME="m")),
    "awsome_distributed_training__3.test_cases_megatron_megatron-lm_slurm_llama2_pretrain-llama2.sbatch": dict(
        files=["megatron-training.sqsh"]),
    "awsome_distributed_training__3.test_cases_megatron_megatron-lm_slurm_llama3_pretrain-llama3-8b.sbatch": dict(
        files=["megatron-training.sqsh"]),
    "awsome_distributed_training__3.test_cases_pytorch_deepspeed_examples_megatron_deepspeed_finetune_hf_llama_scripts_finetune_llama.sbatch": dict(
        files=["configs/x"], subst=[("/fsx/hostfile", "./hostfile")]),
    "ml_engineering__orchestration_slurm_example.slurm": dict(subst=[("source /path/to/start-xxx-user", "true")]),
    "awsome_distributed_training__3.test_cases_pytorch_deepspeed_gpt_slurm_pretrain_gpt_103b.sbatch": dict(
        subst=[("/fsx/hostfile_", "./hostfile_"), ("&& cd ${MEGATRON_DS_PATH} &&", "&& { cd ${MEGATRON_DS_PATH} || :; } &&")]),
    "awsome_distributed_training__3.test_cases_pytorch_ddp_slurm_1.venv-train.sbatch": dict(files=["pt/bin/torchrun"]),
    "bigscience__experiments_gpt2-meg-ds-3d_meg_ds_3d_gpt2_perf_n16.slurm": dict(
        env=SIX, files=["start-prod", "start-user", "stas/code/megatron-jeffra/x"]),
    "Megatron_LM__examples_llama_train_llama3_8b_h100_fp8.sh": dict(files=["pretrain_gpt.py"]),
    "bigscience__jz_slurm_meg-gpt2-multi-node.slurm": dict(env=SIX, files=["start-prod", "start-user", "code/megatron-lm/x"]),
    "bigscience__jz_slurm_hf-ds-gpt2-multi-node.slurm": dict(env=SIX, files=["start-prod", "start-user", "code/transformers/x"]),
    # round 4 (launch23)
    **{n: dict(env=dict(GITHUB_WORKSPACE="W", CLEAN_PATH="W", SLURM_PARTITION="p", DATA_VOLUME="W"),
               files=["ci_scripts/common/variables.sh", "ci_scripts/common/basic_func.sh"])
       for n in ("InternEvo__ci_scripts_data_tokenizer_chinese.sh", "InternEvo__ci_scripts_train_slurm_train.sh",
                 "InternEvo__ci_scripts_train_torchrun.sh")},
    **{n: dict(copy=[("fix23/OLMo-core__src_scripts_lambda_entrypoint.sh", "src/scripts/lambda/entrypoint.sh")],
               files=["src/scripts/lambda/healthchecks.sh"], env=dict(SLURM_NNODES="2"))
       for n in ("OLMo-core__src_scripts_lambda_slurm-baseline-ladder-tune-lr.sbatch",
                 "OLMo-core__src_scripts_lambda_slurm-test-job.sbatch")},
    "NeMo-Aligner__tests_functional_kd.sh": dict(env=dict(PRETRAINED_CHECKPOINT_NEMO_FILE="m.nemo")),
    "NeMo-Aligner__tests_functional_rm.sh": dict(env=dict(PRETRAINED_CHECKPOINT_NEMO_FILE="m.nemo")),
    # the nvidia-smi stub prints no GPU: the unit tests want two
    "NeMo-Aligner__tests_run_mpi_unit.sh": dict(subst=[("$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)",
                                                        "2")]),
    # it clones the repository into a fresh directory and makes a venv there (pip and git are stubs here)
    "trlx__scripts_benchmark.sh": dict(subst=[(". venv/bin/activate", "true")]),
    # set -u, set -e: what a Beaker job's environment gives (https://beaker-docs.apps.allenai.org/)
    "OLMo__scripts_augusta_peteish13-seed-anneal.sh": dict(env=dict(LD_LIBRARY_PATH="", GANTRY_TASK_NAME="t",
                                                                    BEAKER_REPLICA_COUNT="2", AWS_CONFIG="c",
                                                                    AWS_CREDENTIALS="c"),
                                                           subst=[("SAVE_FOLDER=/data/", "SAVE_FOLDER=./data/")]),
    "OLMo__scripts_beaker_peteish_peteish7-anneal.sh": dict(env=dict(AWS_CONFIG="c", AWS_CREDENTIALS="c",
                                                                     GANTRY_TASK_NAME="t")),
    "OLMo__scripts_beaker_annealing_launch_annealing_jupiter.sh": dict(files=["scripts/beaker/warm_hf_cache.sh"]),
    "bigscience__experiments_bandwidth_all_reduce_bench-a100-n4.slurm": dict(
        env=SIX, files=["code/tr11-176B-ml/bigscience/train/tr11-176B-ml/start-tr11-176B-ml"]),
    # round 5 (launch24): what the README's `cd examples/llama3` gives; the files the scripts source or run
    "Pai-Megatron-Patch__examples_llama3_run_pretrain_megatron_llama.sh": dict(env=dict(CURRENT_DIR="/w/examples/llama3")),
    **{n: dict(copy=[("extra24/GLM__config_tasks_%s" % f, "config_tasks/%s" % f) for f in fs])
       for n, fs in (("GLM__scripts_ds_finetune_superglue.sh", ("model_blocklm_10B.sh", "task_copa.sh")),
                     ("GLM__scripts_finetune_blank.sh", ("model_blocklm_large.sh", "seq_blank.sh")))},
    "InternVideo__InternVideo2_multi_modality_scripts_pretraining_clip_L14_run.sh": dict(
        copy=[("extra24/InternVideo__InternVideo2_multi_modality_torchrun.sh", "torchrun.sh")]),
    # round 6 (launch25): round 5's measure part, now fixed on: stable_diffusion's srun.sh runs run_and_time.sh (the
    # repository's, beside it) in each task; smollm's template needs its login files, configs and data shards (set -e)
    **{n: dict(copy=[("extra26/Ask-Anything__video_chat2_torchrun.sh", "torchrun.sh")]) for n in (
        "Ask-Anything__video_chat2_scripts_videochat_mistral_slurm_run_7b_stage4_hd.sh",
        "Ask-Anything__video_chat2_scripts_videochat_vicuna_slurm_run_7b_stage1.sh")},
    "training__retired_benchmarks_stable_diffusion_scripts_slurm_srun.sh": dict(
        copy=[("extra25/training__retired_benchmarks_stable_diffusion_run_and_time.sh", "run_and_time.sh")]),
    "smollm__vision_experiments_pretraining_vloom_slurm_scripts_templates_with_launcher_train.slurm": dict(
        env=dict(cnw_ALL_CCFRWORK="W", cnw_ALL_CCFRSCRATCH="W", TRAINING_CONFIGS_DIR="W", WORKING_DIR="W",
                 RUN_NAME="r", CONDA_ENV_NAME="m4"),
        files=["start-m4-user", "config.yaml", "accelerate_config.yaml"] + [
            "general_pmd/image/%s/%s/0/dataset.arrow" % (sub, split) for sub, split in [(x, "train") for x in (
                "coco", "conceptual_12m", "conceptual_captions", "localized_narratives__ADE20k",
                "localized_narratives__coco", "localized_narratives__flickr30k", "localized_narratives__openimages",
                "red_caps", "visual_genome", "wit", "yfcc100m")] + [("coco", "validation")]]),
    # round 8 (launch27): the config script the README's line names, where the README runs it (the repository's root)
    "Deformable-DETR__tools_run_dist_slurm.sh": dict(
        copy=[("extra27/Deformable-DETR__configs_r50_deformable_detr.sh", "configs/r50_deformable_detr.sh")]),
    # round 9 (launch28): the sibling files above, where the scripts run them; a log directory the script's
    # redirection writes into (bash runs nothing when `> logs/x.log` cannot be opened)
    "Cesga2023Courses__pytorch_dist_accelerate_accelerate.sbatch": dict(
        copy=[("extra28/Cesga2023Courses__pytorch_dist_accelerate_accelerate.sh", "accelerate.sh")]),
    "ML-LinearSpace__script_submit.sh": dict(
        copy=[("measure27/ML-LinearSpace__script_torchrun_script.sh", "torchrun_script.sh")]),
    "ML-LinearSpace__demo_train_multinodes_submit.sh": dict(
        copy=[("extra28/ML-LinearSpace__demo_train_multinodes_torchrun_script.sh",
               "demo/train_multinodes/torchrun_script.sh")]),
    "swift-work__slurm-layouts_launch-ompi-03.sh": dict(
        copy=[("extra28/swift-work__slurm-layouts_hostfile-ompi-02.txt", "hostfile-ompi-02.txt"),
              ("extra28/swift-work__slurm-layouts_task-pmix.sh", "task-pmix.sh")]),
    "swift-work__slurm-layouts_launch-srun.sh": dict(
        copy=[("extra28/swift-work__slurm-layouts_task-pmi.sh", "task-pmi.sh")]),
    "Qwen3-0.6b_pretrain__scripts_run_deepspeed.sh": dict(files=["logs/.keep"]),
    # round 10 (launch29), round 9's measure part: the Open MPI of an AWS Deep Learning AMI by its path (bash here has
    # none: the stub instead, its words unchanged); the host file craco's script wants named in the environment
    **{n: dict(subst=[("/opt/amazon/openmpi/bin/mpirun", "mpirun")]) for n in (
        "horovod-examples__run.sh", "horovod-examples__tensorflow2_run_syn.sh",
        "horovod-examples__tensorflow_run_mnist.sh")},
    "craco-python__scripts_mpicardcap.sh": dict(env=dict(HOSTFILE="hostfile")),
    # round 6 (launch25): bash as nobody cannot make /cognitive_comp/... (set -e): the mkdir and the config file
    # the script writes there go nowhere, its words unchanged
    "Fengshenbang-LM__fengshen_examples_pretrain_t5_pretrain_randeng_t5_char_700M.sh": dict(
        subst=[("  mkdir ${ROOT_DIR}", "  true"), ("cat <<EOT > $config_json", "cat <<EOT > /dev/null")]),
}


def real(path, args, alloc, setup=None, d=None):
    d = d or tempfile.mkdtemp(prefix="l21-")
    os.chmod(d, 0o777)
    os.mkdir(os.path.join(d, "bin"))
    for name, text in [(n, lc._STUB) for n in STUBS] + \
            [("srun", srun_stub()), ("sbatch", SBATCH), ("gantry", GANTRY), ("nsys", NSYS), ("shifter", SHIFTER), ("uv", UV_STUB % (sorted(UV_VALUE),)), ("scontrol", "#!/bin/sh\nprintf 'node1\\nnode2\\n'\n")]:
        with open(os.path.join(d, "bin", name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(d, "bin", name), 0o755)
    os.chmod(os.path.join(d, "bin"), 0o755)
    rec = os.path.join(d, "rec")
    open(rec, "w").close()
    os.chmod(rec, 0o666)
    work = os.path.join(d, "w")
    os.mkdir(work)
    os.chmod(work, 0o777)
    text = open(path, errors="surrogateescape").read()
    for a, b in (setup or {}).get("subst", []):  # only where bash cannot write (a path on the cluster)
        text = text.replace(a, b)
    with open(os.path.join(work, os.path.basename(path)), "w", errors="surrogateescape") as f:
        f.write(text)
    env = dict(alloc, PATH="%s/bin:/usr/bin:/bin" % d, REC=rec, HOME=work, USER="nobody", TERM="dumb")
    setup = setup or {}
    for k, v in setup.get("env", {}).items():
        env[k] = work if v == "W" else v
    for fn in setup.get("files", []):
        fp = os.path.join(work, fn)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        with open(fp, "w") as f:
            f.write(lc._STUB if "/bin/" in fn else "")
        os.chmod(fp, 0o755)
    for src, fn in setup.get("copy", []):  # another script of the same set, where the script runs it (round 4)
        fp = os.path.join(work, fn)
        os.makedirs(os.path.dirname(fp), exist_ok=True)
        shutil.copyfile(os.path.join(HERE, src), fp)
        os.chmod(fp, 0o755)
    subprocess.run(["chown", "-R", "65534:65534", work])
    # a directory on the cluster (cd /gpfs/...): bash goes on where it is, as if it were there
    with open(os.path.join(d, "bashenv"), "w") as f:
        f.write('cd() { builtin cd "$@" 2>/dev/null || true; }\n')
        # a launch line put in the background (`nohup accelerate launch ... &` as the script's last line): its stub
        # records before bash exits (round 9, launch28: Qwen3-0.6b_pretrain's run_deepspeed.sh, recorded or not)
        f.write("trap wait EXIT\n")
    os.chmod(os.path.join(d, "bashenv"), 0o644)
    env["BASH_ENV"] = os.path.join(d, "bashenv")
    cmd = ["unshare", "-n", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
           "timeout", "20", "bash", os.path.join(work, os.path.basename(path))] + list(args)
    p = subprocess.run(cmd, cwd=work, env=env, capture_output=True)
    with open(rec, "rb") as f:
        out = [r.split("\x1f")[:-1] for r in f.read().decode(errors="replace").split("\x1e") if r]
    global LAST_ERR
    LAST_ERR = [l for l in p.stderr.decode(errors="replace").splitlines() if not l.startswith("+")][-3:]
    return out, p.returncode


LAUNCHERS = {"torchrun", "deepspeed", "accelerate", "mpirun", "mpiexec", "horovodrun", "srun"}


def is_launch(r):
    if not r:
        return False
    if r[0] in ("torchrun", "deepspeed", "accelerate", "mpirun", "mpiexec", "horovodrun"):
        return True
    if r[0] == "colossalai" and r[1:2] == ["run"]:  # ColossalAI's launcher (torchrun under it)
        return True
    if r[0] in ("python", "python3") and ("-m" in r[1:3]) and any(
            x in ("torch.distributed.run", "torch.distributed.launch", "deepspeed.launcher.runner")
            for x in r[1:4]):
        return True
    return False


def alloc_for(path):
    """The allocation bash runs an sbatch file in: its #SBATCH --nodes / --ntasks-per-node."""
    a = dict(ALLOC)
    text = open(path, errors="replace").read()
    m = re.search(r"^#SBATCH\s+(?:--nodes[= ]|-N\s*)(\d+)", text, re.M)
    if m:
        a["SLURM_NNODES"] = a["SLURM_JOB_NUM_NODES"] = m.group(1)
        a["SLURM_JOB_NODELIST"] = a["SLURM_NODELIST"] = "node[1-%s]" % m.group(1)
    m2 = re.search(r"^#SBATCH\s+--ntasks-per-node[= ](\d+)", text, re.M)
    a["SLURM_NTASKS_PER_NODE"] = m2.group(1) if m2 else "1"
    a["SLURM_NTASKS"] = str(int(a["SLURM_NNODES"]) * int(a["SLURM_NTASKS_PER_NODE"]))
    return a


def agrees(argv, real):
    """bench's rule, and also: the program's own argv from any launcher or python word of the
    plan's line (srun [opts] python ...: the task's `python ...` record)."""
    if lc._script_agrees(argv, real):
        return True
    from gpudoctor.launch.script import MARK
    whole = re.compile("^" + MARK + r"\d+" + MARK + "$")

    def match(p, r):
        if not p:
            return not r
        if whole.match(p[0]):
            return any(match(p[1:], r[k:]) for k in range(len(r) + 1))
        return bool(r) and (MARK in p[0] or p[0] == r[0]) and match(p[1:], r[1:])

    words = [os.path.basename(a) for a in argv]
    for r in real:
        # a launcher inside another program's record: `ssh [opts] HOST srun ...` (the ssh stub records the remote
        # command as its words; the plan reads them as the remote shell's line): round 9 (launch28)
        if r and r[0] in ("ssh", "pdsh") and words and words[0] in LAUNCHERS:
            remote = " ".join(r[1:]).split()  # the remote shell splits the command string ssh joins
            if any(remote[k] == words[0] and match(argv[1:], remote[k + 1:]) for k in range(len(remote))):
                return True
        for off in range(1, len(argv)):
            if r and words[off] == r[0] and (r[0] in LAUNCHERS or r[0].startswith("python")) and \
                    match(argv[off + 1:], r[1:]):
                return True
    return False


def run_one(path, args):
    t0 = time.time()
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "plan", path] + args,
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    t_text = time.time() - t0
    t0 = time.time()
    pj = subprocess.run([sys.executable, "-m", "gpudoctor", "plan", "--json", path] + args,
                        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    t_json = time.time() - t0
    try:
        js = json.loads(pj.stdout)
    except Exception:
        js = None
    d = tempfile.mkdtemp(prefix="l21-")
    rl, brc = real(path, args, alloc_for(path), SETUP.get(os.path.basename(path)), d)
    # gpudoctor reads the script from the directory bash ran it in, with the same HOME (the
    # values it takes "from this shell": $(pwd), ~)
    old, oldhome = os.getcwd(), os.environ.get("HOME")
    os.chdir(os.path.join(d, "w"))
    os.environ["HOME"] = os.path.join(d, "w")
    # ... and at the path bash ran it from ($0, ${BASH_SOURCE[0]}), the file as published (SETUP's changes were
    # bash's only)
    here = os.path.join(d, "w", os.path.basename(path))
    shutil.copyfile(path, here)
    try:
        res = read_script(here, args, environ={})
    finally:
        os.chdir(old)
        os.environ["HOME"] = oldhome
        shutil.rmtree(d, ignore_errors=True)
    rows = []
    for la in res.launches:
        ok = agrees(la.argv, rl)
        world = None if la.refused else la.plan.world_size()
        diff = None
        if not ok:
            words = [w for w in la.argv if w != "srun"]
            best = None
            for r in rl:
                if not r:
                    continue
                for off in range(len(words)):
                    if os.path.basename(words[off]) == r[0]:
                        k = 0
                        while k < min(len(r), len(words) - off) and (
                                "\x00" in words[off + k] or words[off + k] == r[k] or k == 0):
                            k += 1
                        if best is None or k > best[0]:
                            best = (k, words[off + k:off + k + 2], r[k:k + 2])
            diff = best
        rows.append(dict(line=la.line, diff=diff, shown=la.shown[:160], refused=la.refused, agrees=ok, world=world,
                         nnodes=None if la.refused else la.plan.nnodes_max,
                         findings=[getattr(f, "check_id", None) or str(f)[:80] for f in la.findings]))
    real_launches = [r for r in rl if is_launch(r)]
    return dict(script=os.path.relpath(path, HERE), args=args, rc_text=p.returncode, rc_json=pj.returncode,
                t_text=round(t_text, 2), t_json=round(t_json, 2), json_ok=js is not None,
                traceback="Traceback" in p.stderr or "Traceback" in pj.stderr,
                err=(p.stderr.strip().splitlines() or [""])[-1][:300], bash_rc=brc, bash_err=LAST_ERR,
                real=[" ".join(r)[:300] for r in rl][:8], n_real_launch=len(real_launches),
                launches=rows, text=p.stdout[-3000:])


def summary(path):
    rs = json.load(open(path))
    lines = [la for r in rs for la in r.get("launches", [])]
    ts = [r["t_text"] for r in rs if "t_text" in r]
    return dict(scripts=len(rs), scripts_all_right=sum(1 for r in rs if r.get("launches") and all(
        not la["refused"] and la["agrees"] for la in r["launches"])), launch_lines=len(lines),
        refused=sum(1 for la in lines if la["refused"]),
        wrong_words=sum(1 for la in lines if not la["refused"] and not la["agrees"]),
        world_known=sum(1 for la in lines if la["world"] is not None),
        no_launch_found=sum(1 for r in rs if not r.get("launches")),
        missed=sum(1 for r in rs if not r.get("launches") and r.get("n_real_launch")),
        tracebacks=sum(1 for r in rs if r.get("traceback")),
        exit3=sum(1 for r in rs if 3 in (r.get("rc_text"), r.get("rc_json"))),
        exit2=sum(1 for r in rs if r.get("rc_text") == 2), json_invalid=sum(1 for r in rs if not r.get("json_ok")),
        t_median=round(statistics.median(ts), 2) if ts else None, t_max=max(ts) if ts else None)


def fetch(d):
    import urllib.request

    for line in [l for t in ("launch_real_scripts.tsv", "launch_real_scripts22.tsv",
                                             "launch_real_scripts23.tsv", "launch_real_scripts24.tsv",
                                             "launch_real_scripts25.tsv", "launch_real_scripts26.tsv",
                                             "launch_real_scripts27.tsv", "launch_real_scripts28.tsv",
                                             "launch_real_scripts29.tsv")
                 for l in open(os.path.join(BENCH, "data", t))]:
        if line.startswith("#") or not line.strip():
            continue
        part, name, url = line.rstrip("\n").split("\t")
        raw = url.replace("https://github.com/", "https://raw.githubusercontent.com/").replace("/blob/", "/", 1)
        os.makedirs(os.path.join(d, part), exist_ok=True)
        with urllib.request.urlopen(raw, timeout=30) as r, open(os.path.join(d, part, name), "wb") as f:
            f.write(r.read())
    for sub, extra in (("extra24", EXTRA24), ("extra25", EXTRA25), ("extra26", EXTRA26), ("extra27", EXTRA27),
                        ("extra28", EXTRA28)):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
        for name, url in extra.items():
            raw = url.replace("https://github.com/", "https://raw.githubusercontent.com/").replace("/blob/", "/", 1)
            with urllib.request.urlopen(raw, timeout=30) as r, open(os.path.join(d, sub, name), "wb") as f:
                f.write(r.read())


def main():
    global HERE
    ap = argparse.ArgumentParser()
    ap.add_argument("part", nargs="?", help="fix, measure, measure2, fix22, measure22 (a folder under --dir), all "
                                            "(round 2's three), all22 (round 3's two) or all23 (round 4's two)")
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--dir", default=HERE)
    ap.add_argument("--fetch", action="store_true")
    ap.add_argument("--summary", nargs="+")
    a = ap.parse_args()
    HERE = a.dir
    if a.fetch:
        return fetch(a.dir)
    if a.summary:
        for p in a.summary:
            print(p, json.dumps(summary(p)))
        return
    part, filt = a.part, a.filter
    parts = {"all": ["fix", "measure", "measure2"], "all22": ["fix22", "measure22"],
             "all23": ["fix23", "measure23"], "all24": ["fix24", "measure24"],
             "all25": ["fix25", "measure25"], "all26": ["fix26", "measure26"],
             "all27": ["fix27", "measure27"], "all28": ["fix28", "measure28"],
             "all29": ["fix29", "measure29"]}.get(part, [part])
    out = []
    for pt in parts:
        for name in sorted(os.listdir(os.path.join(HERE, pt))):
            if filt not in name:
                continue
            path = os.path.join(HERE, pt, name)
            args = ARGS.get(name, [])
            if name.startswith("bigscience__") and name not in SETUP:
                SETUP[name] = dict(env=SIX, files=["start-prod", "start-user"])
            try:
                r = run_one(path, args)
            except Exception as e:  # the harness's own failure
                r = dict(script=name, error=repr(e))
            out.append(r)
            if "error" in r:
                print("HARNESS-ERROR", name, r["error"])
                continue
            print("== %s rc=%s/%s t=%.2fs tb=%s bash_rc=%s real_launch=%d %s" % (
                r["script"], r["rc_text"], r["rc_json"], r["t_text"], r["traceback"], r["bash_rc"],
                r["n_real_launch"], r["err"] if r["rc_text"] not in (0, 1) else ""))
            if r["bash_rc"]:
                print("   bash stderr:", r["bash_err"])
            for la in r["launches"]:
                print("   line %s agrees=%s refused=%s world=%s nnodes=%s | %s" % (
                    la["line"], la["agrees"], la["refused"], la["world"], la["nnodes"], la["shown"][:100]))
                if la["diff"]:
                    print("      DIFF at word %d: mine %r real %r" % tuple(la["diff"]))
            if any(not la["agrees"] for la in r["launches"]) or "-v" in sys.argv:
                for x in r["real"][:4]:
                    print("      real:", x[:260])
            if not r["launches"]:
                print("   NO LAUNCH; real:", r["real"][:3])
    tag = os.environ.get("L21_TAG", "")
    with open(os.path.join(HERE, "results-%s%s%s.json" % (part, "-" + filt if filt else "", tag)), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
