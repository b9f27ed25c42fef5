"""launch26: `gpudoctor plan SCRIPT` on real launch scripts of public training repositories (round 7,
bench/data/launch_real_scripts26.tsv part fix26; round 6's measure part, bench/data/launch_real_scripts25.tsv part
measure25, is this round's other fix part). Each case is a real script's own lines (cited by URL and commit), read by
gpudoctor/launch/script.py and run by the real bash with the launchers replaced by stubs that record their argv (srun
runs its command as one task, sbatch runs its standard input; nothing is trained or started): every word gpudoctor
knows must be the word bash passes."""

import shutil
import subprocess

import pytest
from test_launch25 import agrees, bash_run

from gpudoctor.launch.script import MARK, printf_value, read_script

# ------------------------------------------------------------------ FastVideo examples/train/run_slurm.sh
# https://github.com/hao-ai-lab/FastVideo/blob/2f3d4074064e4d86f99dc784ebbaa296e6f5925f/examples/train/run_slurm.sh
# lines 28-32, 35-36, 39, 45, 55-59, 79-86 and 102-134 (the W&B, logging and echo lines left out). The job script is
# an unquoted heredoc fed to sbatch; `printf -v CONFIG_SHELL_ARG '%q' "${CONFIG}"` was read as a variable of the
# environment ('$CONFIG_SHELL_ARG' unknown), `if (( ${#EXTRA_ARGS[@]} > 0 ))` was undecided (the arguments' words
# planned as an optional unknown), and the extra arguments, quoted with %q and put into the heredoc as text, were
# read as this shell's words (`a\\` and `b` for the one argument `a b`).
FASTVIDEO = r'''#!/usr/bin/env bash
set -euo pipefail

CONFIG="${1:?Usage: $0 <config.yaml> <num_nodes> [extra flags...]}"
NUM_NODES="${2:?Usage: $0 <config.yaml> <num_nodes> [extra flags...]}"
shift 2

PARTITION="${PARTITION:-main}"
NUM_GPUS="${NUM_GPUS:-8}"
MASTER_PORT="${MASTER_PORT:-29500}"

TOTAL_GPUS=$(( NUM_NODES * NUM_GPUS ))

SBATCH_ARGS=(
    --partition="${PARTITION}"
    --nodes="${NUM_NODES}"
    --ntasks="${NUM_NODES}"
    --ntasks-per-node=1
)

EXTRA_ARGS=("$@")
# Shell-escape values before embedding them in the generated Bash script so
# config paths and override arguments retain their original boundaries.
printf -v CONFIG_SHELL_ARG '%q' "${CONFIG}"
EXTRA_ARGS_SHELL=""
if (( ${#EXTRA_ARGS[@]} > 0 )); then
    printf -v EXTRA_ARGS_SHELL ' %q' "${EXTRA_ARGS[@]}"
fi

sbatch "${SBATCH_ARGS[@]}" <<EOF
#!/bin/bash
set -e -x

export MASTER_PORT=${MASTER_PORT}
nodes=( \$(scontrol show hostnames \$SLURM_JOB_NODELIST) )
export MASTER_ADDR=\${nodes[0]}
launch_training_node() {
    export TRITON_CACHE_DIR="/tmp/triton_cache_\${SLURM_PROCID}"
    exec torchrun \\
        --nnodes "\${SLURM_JOB_NUM_NODES}" \\
        --nproc_per_node ${NUM_GPUS} \\
        --node_rank "\${SLURM_PROCID}" \\
        --rdzv_backend=c10d \\
        --rdzv_endpoint="\${MASTER_ADDR}:\${MASTER_PORT}" \\
        fastvideo/train/entrypoint/train.py \\
        --config ${CONFIG_SHELL_ARG} \\
        --training.distributed.num_gpus ${TOTAL_GPUS}${EXTRA_ARGS_SHELL}
}
export -f launch_training_node
srun bash -c launch_training_node
EOF
'''

# sbatch: the batch script from standard input, run with the allocation's variables (--nodes=N: N nodes)
SBATCH = """#!/bin/bash
n=1
for a in "$@"; do case "$a" in --nodes=*) n="${a#--nodes=}";; esac; done
SLURM_JOB_NUM_NODES=$n SLURM_JOB_NODELIST=aa exec bash -s
"""
SCONTROL = "#!/bin/bash\necho aa\n"


def fastvideo_real(tmp_path, script, args):
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    for name, text in (("sbatch", SBATCH), ("scontrol", SCONTROL)):
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o700)
    return bash_run(tmp_path, script, args)


@pytest.mark.parametrize("extra", [
    [],
    ["--training.optimizer.learning_rate", "1e-5"],  # the script's own usage example
    ["--training.checkpoint.resume_from_checkpoint", "outputs/my run/checkpoint-1000"],  # a space in a value
    ["--tracker.name", "it's $HOME; `x` (a|b) & c"],  # quotes, a $, a backquote, operators: words, as bash passes
])
def test_fastvideo_printf_v_into_the_heredoc_matches_bash(tmp_path, extra):
    script = tmp_path / "run_slurm.sh"
    script.write_text(FASTVIDEO)
    args = ["examples/train/configs/example.yaml", "2"] + extra
    real = [r for r in fastvideo_real(tmp_path, script, args) if r[0] == "torchrun"]
    assert len(real) == 1, real
    rs = read_script(str(script), args)
    assert len(rs.launches) == 1
    words = rs.launches[0].argv
    assert words[0] == "srun" and "torchrun" in words
    words = words[words.index("torchrun"):]
    assert agrees(words, real[0]), (words, real[0])
    # the config and every extra word are known (they were '$CONFIG_SHELL_ARG' and an optional unknown)
    i = words.index("--config")
    assert words[i + 1] == "examples/train/configs/example.yaml"
    assert words[-len(extra) - 2:] == ["--training.distributed.num_gpus", "16"] + extra


# ------------------------------------------------------------------ printf against bash's own printf
@pytest.mark.parametrize("fmt,args", [
    ("%q", ["examples/train/configs/example.yaml"]),
    (" %q", ["--training.lr", "1e-5", "a b", "x,y", "~h", "a~h", "a#b", "#c", "a=b", "it's", "$HOME", "a@b:c%d+e",
             "(x)", "a|b;c&d", "<in>", "`q`", '"dq"', "back\\slash", "*.y?ml[0]", "{a,b}", "!x", "^c"]),
    ("%q", []), (" %q", []), ("%s-%s\\n", ["a", "b", "c"]), ("%d%%", ["5"]), ("%s", []), ("x%sy", ["1", "2"]),
])
def test_printf_value_is_bash_printf(fmt, args):
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    real = subprocess.run([bash, "-c", 'printf -v X "$@"; printf %s "$X"', "_", fmt] + args, capture_output=True,
                          text=True, timeout=10).stdout
    assert printf_value(fmt, args) == real


# (%x is read since launch29, against bash's printf in tests/test_launch29.py; %e, a float, is not)
@pytest.mark.parametrize("fmt,args", [("%q", ["a\tb"]), ("%99999s", ["a"]), ("%e", ["1"]), ("%d", ["1.5"])])
def test_printf_value_not_followed(fmt, args):
    # bash writes $'a\tb', pads 99,999 blanks, prints hex, refuses 1.5: not read here, the variable stays unknown
    # (a width up to 4,096 is read since launch27: tests/test_launch27.py)
    assert printf_value(fmt, args) is None


def test_printf_v_with_a_value_known_at_run_time_stays_unknown(tmp_path):
    s = tmp_path / "s.sh"
    s.write_text('printf -v C "%q" "$CONFIG_PATH"\ntorchrun --nproc_per_node 2 t.py --config $C\n')
    rs = read_script(str(s))
    w = rs.launches[0].argv
    assert MARK in w[-1]
    assert any("printf -v at line 1" in u.why for u in rs.launches[0].unknown)


# ------------------------------------------------------------------ (( )) as an if condition
@pytest.mark.parametrize("args,want", [(["a"], "no"), (["a", "b", "c"], "yes")])
def test_arith_condition_decides_the_branch(tmp_path, args, want):
    s = tmp_path / "s.sh"
    s.write_text('shift 1\nE=("$@")\nif (( ${#E[@]} > 0 )); then X=yes; else X=no; fi\n'
                 'torchrun --nproc_per_node 2 t.py --y $X\n')
    real = bash_run(tmp_path, s, args)
    assert real[0][-1] == want
    rs = read_script(str(s), args)
    assert rs.launches[0].argv[-1] == want


@pytest.mark.parametrize("expr,want", [("3 < 2", "0"), ("2 == 2", "1"), ("5 != 5", "0"), ("2 >= 2", "1")])
def test_arith_comparison_is_bash(tmp_path, expr, want):
    s = tmp_path / "s.sh"
    s.write_text('N=$(( %s ))\ntorchrun --nproc_per_node 2 t.py --k $N\n' % expr)
    assert bash_run(tmp_path, s)[0][-1] == want
    assert read_script(str(s)).launches[0].argv[-1] == want


def test_arith_chained_comparison_is_not_read_as_python(tmp_path):
    # bash: (3 > 2) > 1 is 1 > 1, 0; Python's chain 3 > 2 > 1 is True
    s = tmp_path / "s.sh"
    s.write_text('N=$(( 3 > 2 > 1 ))\ntorchrun --nproc_per_node 2 t.py --k $N\n')
    assert bash_run(tmp_path, s)[0][-1] == "0"
    assert read_script(str(s)).launches[0].argv[-1] != "1"


# ------------------------------------------------------------------ srun with no command (round 6's Left)
# Luodian/Otter pipeline/benchmarks/public_datasets_suite/run_eval_otter_slurm.sh lines 1-4 and 23-28
# https://github.com/Luodian/Otter/blob/1e7eb9a6fb12ef410082e796c463b99495637b85/pipeline/benchmarks/public_datasets_suite/run_eval_otter_slurm.sh
# (round 6's measure25): line 24 ends with srun's options, its `\` missing; it was refused as "--launch names no
# launcher", naming a flag the user never typed.
OTTER = '''#!/bin/bash
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=2
#SBATCH --gpus-per-task=1

export PYTHONPATH="$PYTHONPATH:Otter"
srun --cpu_bind=v --accel-bind=gn
python -m pipeline.eval.evaluate \\
    --model=otter \\
    --model_path=/data/bli/checkpoints/OTTER-Image-MPT7B \\
    --checkpoint_path="/data/bli/checkpoints/OTTER-Image-MPT7B/final_weights.pt" \\
    --results_file="OTTER_0725_pub_eval_results.json"
'''


def test_srun_with_no_command_is_srun_s_refusal(tmp_path):
    p = tmp_path / "run_eval_otter_slurm.sh"
    p.write_text(OTTER)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.line == 7
    assert la.refused.startswith("srun would refuse this: no command after its options")
    assert "--launch" not in la.refused and "names no launcher" not in la.refused
    # bash runs srun with its two options alone, then python on its own line
    real = bash_run(tmp_path, p, progs=("python",))
    assert real[0] == ["srun", "--cpu_bind=v", "--accel-bind=gn"]
    assert real[1][:3] == ["python", "-m", "pipeline.eval.evaluate"]
    srun = shutil.which("srun")
    if srun:  # Slurm's own srun, reading its options only (it contacts nothing first)
        conf = tmp_path / "slurm.conf"
        conf.write_text("ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n")
        out = subprocess.run([srun] + real[0][1:], env={"SLURM_CONF": str(conf), "PATH": "/usr/bin:/bin"},
                             capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        assert out.returncode == 1 and "srun: fatal: No command given to execute." in out.stderr


@pytest.mark.parametrize("line", ["srun -N 2 python t.py", "srun --nodes=2 -n 4 torchrun --nproc_per_node 2 t.py",
                                  "srun -p $PART python t.py"])
def test_srun_with_a_command_is_not_refused_so(tmp_path, line):
    p = tmp_path / "s.sh"
    p.write_text(line + "\n")
    for la in read_script(str(p), [], environ={}).launches:
        assert not (la.refused or "").startswith("srun would refuse this: no command")


# ------------------------------------------------------------------ torchtune's own `tune run` tests, ported
# tests/torchtune/_cli/test_run.py (TestTuneRunCommand) of pytorch/torchtune at bd2a0fc (BSD-3-Clause):
# https://github.com/pytorch/torchtune/blob/bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1/tests/torchtune/_cli/test_run.py
# torchtune's tests mock Run._run_distributed / Run._run_single_device and check which one runs, or the message and
# SystemExit 2 of a refusal; here the same command lines are planned: distributed = torchrun with tune run's
# options, single device = one process, a refusal = the same words.
@pytest.mark.parametrize("line,distributed", [
    # test_run_calls_distributed_run_for_distributed_recipe
    ("tune run --nproc_per_node 4 full_finetune_distributed --config llama2/7B_full", True),
    # test_run_calls_single_device_run_for_single_device_recipe
    ("tune run full_finetune_single_device --config llama2/7B_full_single_device", False),
    # test_run_succeeds_with_local_recipe_file_and_default_config
    ("tune run my_custom_recipe.py --config llama2/7B_full", False),
    # test_run_calls_local_file_run_for_local_file_recipe
    ("tune run my_custom_recipe.py --config custom_config.yaml", False),
])
def test_torchtune_cli_run_paths(line, distributed):
    from gpudoctor.launch import build_plan

    plan = build_plan(launch=line, environ={})
    if distributed:
        assert plan.launcher == "torchrun" and plan.world_max == 4
    else:
        assert plan.launcher == "tune run" and plan.world_max == 1
        assert any("runs the recipe in this process" in n for n in plan.notes)
    if "my_custom_recipe" in line:
        assert plan.script == "-m my_custom_recipe"


@pytest.mark.parametrize("line,msg", [
    # test_run_fails_when_called_with_distributed_args_for_single_device_recipe
    ("tune run --nproc_per_node 4 full_finetune_single_device --config llama2/7B_full_single_device",
     "does not support distributed training"),
    # test_run_fails_when_config_not_passed_in
    ("tune run full_finetune_single_device batch_size=3", "The '--config' argument is required"),
])
def test_torchtune_cli_run_refusals(line, msg):
    from gpudoctor.errors import InputError
    from gpudoctor.launch import build_plan

    with pytest.raises(InputError) as e:
        build_plan(launch=line, environ={})
    assert msg in str(e.value)


# ------------------------------------------------------------------ the recipe table, generated from torchtune
def test_torchtune_recipe_table_is_generated_from_the_registry(tmp_path):
    """tools/gen_torchtune_recipes.py reads _ALL_RECIPES statically; the table in the tree is its output (the
    registry's own text at bd2a0fc for the main-branch rows: a Recipe with configs and supports_distributed)."""
    import json
    import os
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tools"))
    import gen_torchtune_recipes as gen

    src = ('from dataclasses import dataclass\n_ALL_RECIPES = [\n    Recipe(\n        name="a_distributed",\n'
           '        file_path="a.py",\n        configs=[Config(name="m/1B", file_path="m/1B.yaml")],\n'
           '        supports_distributed=True,\n    ),\n    Recipe(name="b_single", file_path="b.py", configs=[],'
           ' supports_distributed=False),\n]\n')
    assert gen.recipes(src) == {"a_distributed": {"distributed": True, "configs": ["m/1B"]},
                                "b_single": {"distributed": False, "configs": []}}
    (tmp_path / "r.py").write_text(src)
    gen.main(["--file", "abc=%s" % (tmp_path / "r.py"), "-o", str(tmp_path / "t.json")])
    t = json.loads((tmp_path / "t.json").read_text())
    assert t["recipes"]["b_single"] == {"distributed": False, "configs": [], "in": ["abc"]}
    with open(os.path.join(root, "gpudoctor", "launch", "flags", "torchtune_recipes.json")) as f:
        shipped = json.load(f)
    assert shipped["source"]["sources"][0]["label"] == "0.6.1"
    r = shipped["recipes"]
    assert r["full_finetune_distributed"]["distributed"] and not r["full_finetune_single_device"]["distributed"]
    assert "llama2/7B_full" in r["full_finetune_distributed"]["configs"]
    assert r["dev/grpo_full_finetune_distributed"]["in"] == ["bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1"]


def test_a_main_branch_recipe_says_so():
    from gpudoctor.launch import build_plan

    plan = build_plan(launch="tune run --nnodes 1 --nproc_per_node 2 dev/grpo_full_finetune_distributed --config c",
                      environ={})
    assert any("not in its newest release 0.6.1" in n for n in plan.notes)
    plan = build_plan(launch="tune run --nproc_per_node 2 full_finetune_distributed --config c", environ={})
    assert not any("newest release" in n for n in plan.notes)


# ------------------------------------------------------------------ $[expr], bash's old arithmetic expansion
# DAMO-NLP-SG/VideoLLaMA2 scripts/vllava/finetune.sh lines 4-5 and 24-27 (the environment test of lines 11-14 left
# out: WORLD_SIZE and NPROC_PER_NODE from the arguments), then its torchrun's --gradient_accumulation_steps
# https://github.com/DAMO-NLP-SG/VideoLLaMA2/blob/c0bb03abf6b8a6b9a8dccac006fb4db5d4d9e414/scripts/vllava/finetune.sh
# `$[...]` was read as `$` then a glob: GRADIENT_ACCUMULATION_STEPS 'the environment at run time'.
VLLAMA = '''#!/bin/bash
WORLD_SIZE=${1:-1}
NPROC_PER_NODE=${2:-8}
GLOBAL_BATCH_SIZE=128
LOCAL_BATCH_SIZE=4
GRADIENT_ACCUMULATION_STEPS=$[$GLOBAL_BATCH_SIZE/($WORLD_SIZE*$NPROC_PER_NODE*$LOCAL_BATCH_SIZE)]
torchrun --nnodes $WORLD_SIZE --nproc_per_node $NPROC_PER_NODE videollama2/train.py \\
    --gradient_accumulation_steps $GRADIENT_ACCUMULATION_STEPS --h "$[NPROC_PER_NODE + 1]"
'''


@pytest.mark.parametrize("args,want", [([], ["4", "9"]), (["2", "4"], ["4", "5"]), (["1", "2"], ["16", "3"])])
def test_old_arithmetic_expansion_is_bash(tmp_path, args, want):
    p = tmp_path / "finetune.sh"
    p.write_text(VLLAMA)
    (real,) = bash_run(tmp_path, p, args)
    assert [real[-3], real[-1]] == want
    (la,) = read_script(str(p), args, environ={}).launches
    assert [la.argv[-3], la.argv[-1]] == want and agrees(la.argv, real)


def test_old_arithmetic_on_a_run_time_value_is_arithmetic(tmp_path):
    p = tmp_path / "s.sh"
    p.write_text('G=$[128/($WORLD_SIZE*8)]\ntorchrun --nproc_per_node 2 t.py --g $G\n')
    (la,) = read_script(str(p), [], environ={}).launches
    (u,) = [u for u in la.unknown if "arithmetic" in u.why]
    assert "environment" not in u.why


# ------------------------------------------------------------------ Open MPI MPMD under -npernode (round 6's Left)
# Open MPI 4.1.4's ppr mapper (orte/mca/rmaps/ppr), measured with the real `mpirun --display-map --do-not-launch`
# over made-up -H hosts (it maps and starts nothing): 90 random two- and three-context lines agreed with the rule the
# plan now reads (launch26; they were refused as not read). Host -> processes, or the refusal's words.
MPMD_PPR = [
    ("-H aa:2,bb:2 -np 2 -npernode 2 x : -np 2 y", {"aa": 2, "bb": 2}),  # round 6's observation
    ("-H aa:4,bb:4 -np 3 -npernode 3 x : -np 1 y : -np 1 z", {"aa": 4, "bb": 1}),
    ("-H aa:4,bb:3 -np 1 -npernode 3 x : -npernode 1 y", {"aa": 2, "bb": 1}),  # the last -npernode, for all
    ("-H aa:4,bb:4,cc:2 -np 2 -npernode 1 x : -npernode 2 y", {"aa": 4, "bb": 2, "cc": 2}),
    ("-H aa:1,bb:3,cc:2 -np 1 -npernode 2 x : -np 2 -npernode 2 y", {"aa": 1, "bb": 2}),
    ("-H aa:2,bb:4 -np 1 x : -npernode 2 y", "not enough slots"),  # round 6's unpinned case
    ("-H aa:4,bb:2 -np 4 -npernode 2 x : -np 3 y", "more processes than the ppr"),
    ("-H aa:4,bb:1 -np 2 x : -npernode 1 y", "more processes than the ppr"),
    ("-H aa:2,bb:2 -np 4 -npernode 1 x : -np 1 -npernode 2 y : z", "already filled"),
]


@pytest.mark.parametrize("line,want", MPMD_PPR)
def test_openmpi_mpmd_npernode(line, want):
    from gpudoctor.errors import InputError
    from gpudoctor.launch import build_plan

    line = "mpirun " + " ".join("python %s.py" % w if w in ("x", "y", "z") else w for w in line.split())
    if isinstance(want, str):
        with pytest.raises(InputError) as e:
            build_plan(launch=line, environ={})
        assert want in str(e.value)
    else:
        plan = build_plan(launch=line, environ={})
        assert {n.host: n.procs for n in plan.nodes if n.procs} == want
        assert any("applies the line's last -npernode" in n for n in plan.notes)


@pytest.mark.skipif(not shutil.which("mpirun") or "Open MPI" not in subprocess.run(
    ["mpirun", "--version"], capture_output=True, text=True).stdout, reason="no Open MPI mpirun here")
@pytest.mark.parametrize("line,want", MPMD_PPR)
def test_openmpi_mpmd_npernode_against_mpirun(line, want):
    import re
    import shlex

    p = subprocess.run(["mpirun", "--allow-run-as-root", "--bind-to", "none", "--display-map", "--do-not-launch"] +
                       shlex.split(line), capture_output=True, text=True, timeout=60)
    got = re.findall(r"Data for node: (\S+)\s+Num slots: \d+\s+Max slots: \d+\s+Num procs: (\d+)", p.stdout + p.stderr)
    if isinstance(want, str):
        assert not got and want in p.stdout + p.stderr
    else:
        assert {h: int(c) for h, c in got} == want


@pytest.mark.parametrize("line", [
    "mpirun -H aa:2,bb:2 -np 2 -npernode 2 x : -H bb:2 -np 2 y",  # a later context's own -H: not read
    "mpirun -H aa:2,bb:2 --oversubscribe -np 2 -npernode 2 x : -np 2 y",
    "mpirun -H aa:2,bb:2 -np 2 --map-by ppr:1:node x : -np 2 y",
])
def test_openmpi_mpmd_npernode_not_read(line):
    from gpudoctor.errors import InputError
    from gpudoctor.launch import build_plan

    with pytest.raises(InputError) as e:
        build_plan(launch=line, environ={})
    assert "not read by gpudoctor" in str(e.value)


@pytest.mark.parametrize("argv,starts", [
    (["plan", "--launch", "srun -N 2 --ntasks-per-node 1"], "gpudoctor: error: --launch names no launcher: srun with no command"),
    (["plan", "srun", "-N", "2"], "gpudoctor: error: the launch line names no launcher: srun with no command"),
])
def test_launch_line_of_srun_alone(argv, starts):
    import sys

    p = subprocess.run([sys.executable, "-m", "gpudoctor"] + argv, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.startswith(starts) and "No command given to execute" in p.stderr
    assert len(p.stderr.strip().split("\n")) == 1
