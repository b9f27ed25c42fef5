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
# https://github.com/allenai/OLMo/blob/59a53e3f68e546330ca5a99ec626e58f9ab96494/scripts/beaker/annealing/launch_annealing_jupiter.sh
# beaker-gantry's `gantry run [OPTIONS] -- ARGS` runs ARGS as the Beaker job
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


# ---------------------------------------------------------------- a secret-looking name is read by its parts
# ymcui/Chinese-LLaMA-Alpaca-2 scripts/training/run_pt.sh lines 3-58
# https://github.com/ymcui/Chinese-LLaMA-Alpaca-2/blob/2a334d1634c857a7f02f885026d02ac4b469479d/scripts/training/run_pt.sh
# `chinese_tokenizer_path` holds TOKEN inside TOKENIZER: the plan wrote the path back as $chinese_tokenizer_path
# (a secret's name) where bash passes the path.
CHINESE_LLAMA = '''lr=2e-4
lora_rank=64
lora_alpha=128
lora_trainable="q_proj,v_proj,k_proj,o_proj,gate_proj,down_proj,up_proj"
modules_to_save="embed_tokens,lm_head"
lora_dropout=0.05

pretrained_model=path/to/hf/llama-2/dir
chinese_tokenizer_path=path/to/chinese-llama-2/tokenizer/dir
dataset_dir=path/to/pt/data/dir
data_cache=temp_data_cache_dir
per_device_train_batch_size=1
gradient_accumulation_steps=8
block_size=512
output_dir=output_dir

deepspeed_config_file=ds_zero2_no_offload.json

torchrun --nnodes 1 --nproc_per_node 1 run_clm_pt_with_peft.py \\
    --deepspeed ${deepspeed_config_file} \\
    --model_name_or_path ${pretrained_model} \\
    --tokenizer_name_or_path ${chinese_tokenizer_path} \\
    --dataset_dir ${dataset_dir} \\
    --data_cache_dir ${data_cache} \\
    --validation_split_percentage 0.001 \\
    --per_device_train_batch_size ${per_device_train_batch_size} \\
    --do_train \\
    --seed $RANDOM \\
    --fp16 \\
    --num_train_epochs 1 \\
    --lr_scheduler_type cosine \\
    --learning_rate ${lr} \\
    --warmup_ratio 0.05 \\
    --weight_decay 0.01 \\
    --logging_strategy steps \\
    --logging_steps 10 \\
    --save_strategy steps \\
    --save_total_limit 3 \\
    --save_steps 200 \\
    --gradient_accumulation_steps ${gradient_accumulation_steps} \\
    --preprocessing_num_workers 8 \\
    --block_size ${block_size} \\
    --output_dir ${output_dir} \\
    --overwrite_output_dir \\
    --ddp_timeout 30000 \\
    --logging_first_step True \\
    --lora_rank ${lora_rank} \\
    --lora_alpha ${lora_alpha} \\
    --trainable ${lora_trainable} \\
    --lora_dropout ${lora_dropout} \\
    --modules_to_save ${modules_to_save} \\
    --torch_dtype float16 \\
    --load_in_kbits 16 \\
    --save_safetensors False \\
    --gradient_checkpointing \\
    --ddp_find_unused_parameters False
'''


def test_a_tokenizers_path_is_no_secret(tmp_path):
    p = write(tmp_path, "run_pt.sh", CHINESE_LLAMA)
    (real,) = [r for r in bash_argv(tmp_path, p) if r[0] == "torchrun"]
    (la,) = read_script(str(p), [], environ={}).launches
    words = known(la.argv)
    assert words[11] == "path/to/chinese-llama-2/tokenizer/dir" == real[11]
    assert [w for w in words if w is not None] == [w for w, x in zip(real, words) if x is not None]
    assert words.count(None) == 1 and real[words.index(None)].isdigit()  # $RANDOM only


# Credential names the libraries and services document (each must stay hidden, whatever the value):
# huggingface_hub's HF_TOKEN / HUGGING_FACE_HUB_TOKEN (huggingface.co/docs/huggingface_hub/package_reference/
# environment_variables), W&B's WANDB_API_KEY (docs.wandb.ai/guides/track/environment-variables), GitHub's
# GITHUB_TOKEN / GH_TOKEN / GH_ENTERPRISE_TOKEN (cli.github.com/manual/gh_help_environment), AWS's
# AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN / AWS_ACCESS_KEY_ID (docs.aws.amazon.com/cli/latest/userguide/
# cli-configure-envvars.html), NGC's NGC_API_KEY / NGC_CLI_API_KEY (docs.ngc.nvidia.com/cli/script.html), OpenAI's
# OPENAI_API_KEY, Anthropic's ANTHROPIC_API_KEY, Comet's COMET_API_KEY, Neptune's NEPTUNE_API_TOKEN, MLflow's
# MLFLOW_TRACKING_PASSWORD / MLFLOW_TRACKING_TOKEN (mlflow.org/docs/latest/auth), ClearML's CLEARML_API_SECRET_KEY,
# Azure's AZURE_CLIENT_SECRET / AZURE_STORAGE_KEY, Slurm's SLURM_JWT (slurm.schedmd.com/jwt.html), PostgreSQL's
# PGPASSWORD (postgresql.org/docs/current/libpq-envars.html), MySQL's MYSQL_PWD (dev.mysql.com/doc/refman/8.0/en/
# environment-variables.html), twine's TWINE_PASSWORD, npm's NPM_TOKEN / NODE_AUTH_TOKEN, Codecov's CODECOV_TOKEN,
# GitLab's CI_JOB_TOKEN, beaker-gantry's BEAKER_TOKEN, Kaggle's KAGGLE_KEY, Sentry's SENTRY_AUTH_TOKEN / SENTRY_DSN,
# a GitHub PAT's customary CR_PAT / GH_PAT, Google's GOOGLE_APPLICATION_CREDENTIALS, Vault's VAULT_TOKEN, rsync's
# RSYNC_PASSWORD; and the shapes scripts write them in: lower case, camelCase, run together, as a flag's value.
CREDENTIAL_NAMES = """HF_TOKEN HUGGING_FACE_HUB_TOKEN HUGGINGFACE_HUB_TOKEN HF_API_TOKEN HUGGINGFACEHUB_API_TOKEN
WANDB_API_KEY GITHUB_TOKEN GH_TOKEN GH_ENTERPRISE_TOKEN GITLAB_TOKEN CI_JOB_TOKEN AWS_SECRET_ACCESS_KEY
AWS_SESSION_TOKEN AWS_ACCESS_KEY_ID NGC_API_KEY NGC_CLI_API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY COHERE_API_KEY
GOOGLE_API_KEY COMET_API_KEY NEPTUNE_API_TOKEN MLFLOW_TRACKING_PASSWORD MLFLOW_TRACKING_TOKEN CLEARML_API_SECRET_KEY
CLEARML_API_ACCESS_KEY AZURE_CLIENT_SECRET AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN SLURM_JWT PGPASSWORD MYSQL_PWD
REDIS_PASSWORD TWINE_PASSWORD NPM_TOKEN NODE_AUTH_TOKEN CODECOV_TOKEN DOCKER_PASSWORD BEAKER_TOKEN KAGGLE_KEY
REPLICATE_API_TOKEN DD_API_KEY SENTRY_AUTH_TOKEN SENTRY_DSN CR_PAT GH_PAT NCCL_IB_PASSWORD UCX_SECRET_TOKEN
R2_SECRET_ACCESS_KEY GOOGLE_APPLICATION_CREDENTIALS VAULT_TOKEN DATABRICKS_TOKEN RSYNC_PASSWORD SSH_PASSPHRASE
hf_token wandb_api_key hub_token api_key apiKey clientSecret accessToken hfToken password passwd db_pass HFTOKEN
APIKEY SECRETKEY AUTHTOKEN OAUTH_TOKEN AUTHORIZATION MY_TOKENIZER_TOKEN TOKENIZER_API_KEY
HF_TOKEN_PATH""".split()


@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
def test_every_credential_name_stays_hidden(tmp_path, name):
    from gpudoctor.collector.system import env_shown, secret_env_name
    from gpudoctor.launch.plan import redact

    secret = "Zq8wpX3vR7kLm2"  # no credential's shape: only the name can hide it
    assert secret_env_name(name)
    assert not env_shown(name) and not env_shown("NCCL_" + name) and redact(name, secret) == "<redacted>"
    p = write(tmp_path, "s.sh", '%s=%s\nP=${%s}\ntorchrun --nproc_per_node 1 t.py --a "$%s" --b "${%s:2}" '
              '--c "${%s#Zq}" --d "${%s^^}" --e "$P" --f "${P:3}"\n%s=%s torchrun --nproc_per_node 1 u.py\n'
              % (name, secret, name, name, name, name, name, name, secret))
    res = read_script(str(p), [], environ={})
    assert len(res.launches) == 2
    import json

    from gpudoctor.launch.script import Script  # noqa: F401  (the JSON is what `plan --json` prints)
    out = json.dumps(res.to_json()) + repr(res.launches) + repr(res.notes) + repr(res.variables)
    assert secret not in out and secret[2:] not in out and secret[:8] not in out and secret.upper() not in out


# names whose secret word is inside a word of its own: shown as bash passes them (a tokenizer, an author, a count)
@pytest.mark.parametrize("name, value", [
    ("chinese_tokenizer_path", "path/to/tok"), ("TOKENIZERS_PARALLELISM", "false"), ("tokenizer_name", "gpt2x"),
    ("TOKENIZER", "meta-llama/Llama-2-7b-hf"), ("DETOKENIZER_DIR", "/data/detok"), ("AUTHOR", "someone"),
    ("NUM_KEYPOINTS", "17x17x"), ("MAX_NEW_TOKENS", "128000"), ("LR_DECAY_TOKENS", "260000000000"),
    ("keyboard_layout", "us-intl"), ("PATH_TO_DATA", "/data/x"), ("ROOT_PWD", "/work/repo"),
    ("MYSQL_PWD", "s3cr3t-pw")])
def test_a_word_that_only_contains_a_secret_word_is_shown(tmp_path, name, value):
    from gpudoctor.collector.system import secret_env_name

    p = write(tmp_path, "s.sh", "%s=%s\ntorchrun --nproc_per_node 1 t.py --a $%s\n" % (name, value, name))
    (la,) = read_script(str(p), [], environ={}).launches
    if name == "MYSQL_PWD":  # a PWD part is MySQL's password (dev.mysql.com: MYSQL_PWD), but of a directory's path
        assert secret_env_name(name) and la.argv[-1] == "$" + name
        return
    assert not secret_env_name(name, count=value.isdigit(), path=value.startswith("/"))
    assert la.argv[-1] == value


CREDENTIAL_VALUES = [
    "hf_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f",  # a Hugging Face user access token
    "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5",  # a GitHub classic PAT
    "github_pat_" + "11ABCDEFG0aB3dE5gH7jK9_mN1pQ3sT5vW7yZ9bC1dE3f",
    "AKIA" + "IOSFODNN7EXAMPLE",  # AWS's documented example access key id
    "sk-" + "proj-aB3dE5gH7jK9mN1pQ3sT5vW7yZ9",
    "glpat-" + "aB3dE5gH7jK9mN1pQ3sT5",
    "xoxb-" + "1234567890-aB3dE5gH7jK9",
    "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.aB3dE5gH7jK9mN1pQ3sT5vW7yZ9",  # a JWT
]


@pytest.mark.parametrize("value", CREDENTIAL_VALUES)
@pytest.mark.parametrize("name", ["chinese_tokenizer_path", "MODEL", "TOKENIZER"])
def test_a_credentials_shape_stays_hidden_whatever_its_name(tmp_path, name, value):
    import json

    p = write(tmp_path, "s.sh", '%s=%s\ntorchrun --nproc_per_node 1 t.py --a $%s --b "${%s:3}" --lit %s\n'
              'NCCL_SOCKET_IFNAME=%s torchrun --nproc_per_node 1 u.py\n' % (name, value, name, name, value, value))
    res = read_script(str(p), [], environ={})
    out = json.dumps(res.to_json()) + repr(res.launches) + repr(res.notes) + repr(res.variables)
    assert value not in out and value[6:] not in out
    assert res.launches[0].argv[-5] == res.launches[0].argv[-1] == "$" + name  # written back as its name
    lit = write(tmp_path, "lit.sh", "torchrun --nproc_per_node 1 t.py --hub_token %s\n" % value)
    (la,) = read_script(str(lit), [], environ={}).launches  # typed as it is: no name to write back
    assert la.argv[-1] == "<redacted>" and value not in json.dumps(la.plan.to_json()) + repr(la)
    from gpudoctor.collector.system import env_value

    assert env_value("NCCL_SOCKET_IFNAME", value, "k").startswith("hmac:")  # an allow-listed name too


def test_a_urls_password_stays_hidden(tmp_path):
    p = write(tmp_path, "s.sh", "DATABASE_URL=postgres://me:hunter2pw@db:5432/x\n"
              "torchrun --nproc_per_node 1 t.py --db $DATABASE_URL --u https://u:pw12345@h/x\n")
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.argv[-3:] == ["$DATABASE_URL", "--u", "https://u:<redacted>@h/x"]
    assert "hunter2pw" not in repr(la) and "pw12345" not in repr(la)


def test_the_collectors_shapes_are_explains():
    # one list of shapes (explain/redact.py), written again in the stdlib-only collector (collector/system.py)
    from gpudoctor.collector.system import CREDENTIAL_RE, credential_shape
    from gpudoctor.explain import redact

    assert CREDENTIAL_RE.startswith(redact._SHAPES.pattern)
    assert all(credential_shape(v) and redact._SHAPES.search(v) for v in CREDENTIAL_VALUES)
    assert not any(credential_shape(v) for v in ("/home/desk-01/task-sk-1", "https://hf-mirror.com", "hf_transfer",
                                                  "/usr/local/cuda/bin:/usr/bin", "docker://nvcr.io/nvidia/x:24.01"))
