"""launch27: `gpudoctor plan SCRIPT` on real launch scripts of public training repositories (round 8,
bench/data/launch_real_scripts27.tsv part fix27; round 7's measure part, bench/data/launch_real_scripts26.tsv part
measure26, is this round's other fix part). Each case is a real script's own lines (cited by URL and commit), read by
gpudoctor/launch/script.py and run by the real bash with the launchers replaced by stubs that record their argv
(nothing is trained or started): every word gpudoctor knows must be the word bash passes."""

import pytest
from test_launch25 import agrees, bash_run

from gpudoctor.launch.script import MARK, read_script

# ------------------------------------------------------------------ nanochat runs/scaling_laws.sh
# https://github.com/karpathy/nanochat/blob/92d63d4e8bb4df75c3b71618f31ddde2378b2bcd/runs/scaling_laws.sh
# lines 1-16, 20-23, 34-38, 44-70 and 76-89 and the two `done`s (the log lines, `source .venv/bin/activate`
# and the statistics read back from the logs left out). A `for` in a followed `for`: the inner loop was not
# followed ('--depth=$d', '$TAG', '$DEVICE_BATCH_SIZE_ARG' "set in a loop"), and bash's 4 x 6 launches were planned
# as 4; with the `continue` under `if run_exists ...` (a grep of a results file, decided at run time) each pass is
# planned with that said.
SCALING = r'''#!/bin/bash

LABEL="jan26"

FLOPS_BUDGETS=(
    1e18
    2.15e18
    4.64e18
    1e19
)
DEPTHS=(10 12 14 16 18 20)

NPROC_PER_NODE="${NPROC_PER_NODE:-8}"
WANDB_RUN="${WANDB_RUN:-scaling_${LABEL}}"
EVAL_TOKENS=$((100 * 524288))  # ~100M tokens for final eval (default is ~10M)

export OMP_NUM_THREADS=1
export NANOCHAT_BASE_DIR="${NANOCHAT_BASE_DIR:-$HOME/.cache/nanochat}"
RESULTS_DIR="$NANOCHAT_BASE_DIR/scaling_laws_results_${LABEL}"
mkdir -p "$RESULTS_DIR"
RESULTS_FILE="$RESULTS_DIR/results.csv"

run_exists() {
    local flops=$1
    local depth=$2
    grep -q "^${flops},${depth}," "$RESULTS_FILE" 2>/dev/null
}

for flops in "${FLOPS_BUDGETS[@]}"; do
    for d in "${DEPTHS[@]}"; do

        # Skip if already completed
        if run_exists "$flops" "$d"; then
            continue
        fi

        # Unique tag for this run
        TAG="scaling_${flops}_d${d}"

        # Reduce --device-batch-size to avoid OOM at larger depths
        if [ $d -ge 28 ]; then
            DEVICE_BATCH_SIZE_ARG="--device-batch-size=8"
        elif [ $d -ge 20 ]; then
            DEVICE_BATCH_SIZE_ARG="--device-batch-size=16"
        else
            DEVICE_BATCH_SIZE_ARG="--device-batch-size=32"
        fi

        torchrun --standalone --nproc_per_node=$NPROC_PER_NODE -m scripts.base_train -- \
            --depth=$d \
            --target-flops=$flops \
            --target-param-data-ratio=-1 \
            --run="${WANDB_RUN}_${TAG}" \
            --model-tag="${TAG}" \
            --eval-tokens=$EVAL_TOKENS \
            --core-metric-every=999999 \
            --core-metric-max-per-task=-1 \
            --sample-every=-1 \
            --save-every=-1 \
            $DEVICE_BATCH_SIZE_ARG \
            2>&1 | tee "$RESULTS_DIR/${TAG}_train.log"
    done
done
'''


def test_nanochat_scaling_laws_nested_for_matches_bash(tmp_path):
    script = tmp_path / "scaling_laws.sh"
    script.write_text(SCALING)
    real = [r for r in bash_run(tmp_path, script) if r[0] == "torchrun"]
    assert len(real) == 24, real  # no results file yet: every flops x depth runs
    rs = read_script(str(script), [], environ={"HOME": str(tmp_path)})
    got = [la.argv for la in rs.launches]
    assert len(got) == 24
    for words, r in zip(got, real):
        assert not any(MARK in w for w in words), words  # every word known ('$d', '$TAG' were unknown)
        assert words == r, (words, r)
    assert [la.plan.world_size() for la in rs.launches] == [8] * 24
    # each pass runs only where run_exists is false: said, with the `continue`'s line on the first pass
    assert any("the loop's `continue` at line 34 does not run" in n for n in rs.notes), rs.notes


def test_nanochat_scaling_laws_a_done_pass_is_skipped_by_bash_and_said_by_the_plan(tmp_path):
    # the results file says 1e18 x 12 is done: bash skips that pass; the plan cannot read the file (a grep at run
    # time) and plans it, each pass saying it runs only where the `continue` does not
    script = tmp_path / "scaling_laws.sh"
    script.write_text(SCALING)
    res = tmp_path / ".cache" / "nanochat" / "scaling_laws_results_jan26"
    res.mkdir(parents=True)
    (res / "results.csv").write_text("1e18,12,768\n")
    real = [r for r in bash_run(tmp_path, script) if r[0] == "torchrun"]
    assert len(real) == 23 and not any("--depth=12" in r and "--target-flops=1e18" in r for r in real)
    rs = read_script(str(script), [], environ={"HOME": str(tmp_path)})
    assert len(rs.launches) == 24
    for r in real:
        assert any(agrees(la.argv, r) for la in rs.launches), r
    assert sum("runs only where the loop's `continue`" in n for n in rs.notes) >= 1


NESTED_BREAK = r'''#!/bin/bash
for nodes in 1 2; do
  for gpus in 4 8; do
    if [ -f "$HOME/stop" ]; then
      break
    fi
    torchrun --nnodes=$nodes --nproc_per_node=$gpus --rdzv_endpoint=gpu1:29500 train.py --tag n${nodes}g${gpus}
  done
done
'''


def test_nested_for_with_break_decided_at_run_time_matches_bash(tmp_path):
    script = tmp_path / "sweep.sh"
    script.write_text(NESTED_BREAK)
    real = [r for r in bash_run(tmp_path, script) if r[0] == "torchrun"]
    assert len(real) == 4
    rs = read_script(str(script), [], environ={"HOME": str(tmp_path)})
    assert [la.argv for la in rs.launches] == real
    assert [la.plan.world_size() for la in rs.launches] == [4, 8, 8, 16]
    assert any("the loop's `break` at line 5 does not run" in n for n in rs.notes), rs.notes
    # with the stop file bash breaks every inner loop at once: no launch at all; the plan keeps its notes
    (tmp_path / "stop").write_text("")
    assert [r for r in bash_run(tmp_path, script) if r[0] == "torchrun"] == []


def test_nested_for_beyond_the_pass_bound_is_not_followed(tmp_path):
    # 3 x 10 x 10 = 300 passes > MAX_NESTED_PASSES (256): the innermost loop stays unfollowed ($c set in a loop),
    # the plan stays small and says so
    script = tmp_path / "big.sh"
    script.write_text("for a in 1 2 3; do for b in 0 1 2 3 4 5 6 7 8 9; do for c in 0 1 2 3 4 5 6 7 8 9; do\n"
                      "torchrun --nproc_per_node=$a t.py $b $c\ndone; done; done\n")
    rs = read_script(str(script), [])
    assert 0 < len(rs.launches) <= 30
    assert any(MARK in w for la in rs.launches for w in la.argv)


# ------------------------------------------------------------------ slitvinov/deepseek-slurm main.sh (whole file)
# https://github.com/slitvinov/deepseek-slurm/blob/b70623966780a11d8b4f294c8fb83104e4147f34/main.sh
# Two torchrun agents of one 2-node job, both started on this machine in the background. Each line had the finding
# "the node rank is 0 (1) on every node (written in the script)", and, with the default master 127.0.0.1, "the other
# nodes cannot reach it": neither holds where the script itself starts every rank. The real torchrun (torch
# 2.13.0+cpu, --nproc-per-node 1 for cpu, a `wait` added) forms the 2-node job on one host this way: world 2, ranks
# 0 and 1 (docs/benchmarks.md, round 8).
DEEPSEEK_MAIN = """OMP_NUM_THREADS=1
export OMP_NUM_THREADS
torchrun --nnodes 2 --node-rank 0 --nproc-per-node cpu main.py &
torchrun --nnodes 2 --node-rank 1 --nproc-per-node cpu main.py &
"""


def test_deepseek_slurm_main_starts_every_rank_itself_no_finding(tmp_path, gpudoctor_cli):
    script = tmp_path / "main.sh"
    script.write_text(DEEPSEEK_MAIN)
    real = [r for r in bash_run(tmp_path, script) if r[0] == "torchrun"]
    rs = read_script(str(script), [], environ={})
    assert sorted(la.argv for la in rs.launches) == sorted(real) and len(real) == 2
    assert [la.plan.machine_rank for la in rs.launches] == [0, 1]
    assert [la.findings for la in rs.launches] == [[], []]
    assert any(n.startswith("lines 3, 4 start node ranks 0, 1 of one 2-node torchrun job") for n in rs.notes)
    rc, out, err = gpudoctor_cli("plan", str(script))
    assert rc == 0 and "finding" not in out, out


@pytest.mark.parametrize("text", [
    # one rank alone, or the same rank twice: every node that runs the script claims it (the finding stays)
    "torchrun --nnodes 2 --node-rank 0 --nproc-per-node 8 --master-addr gpu1 main.py\n",
    "torchrun --nnodes 2 --node-rank 0 --nproc-per-node 8 --master-addr gpu1 main.py &\n"
    "torchrun --nnodes 2 --node-rank 0 --nproc-per-node 8 --master-addr gpu1 main.py &\n",
    # ranks 0 and 1 of jobs with different masters are not one job
    "torchrun --nnodes 2 --node-rank 0 --nproc-per-node 8 --master-addr gpu1 main.py &\n"
    "torchrun --nnodes 2 --node-rank 1 --nproc-per-node 8 --master-addr gpu2 main.py &\n",
])
def test_a_rank_written_for_every_node_keeps_its_finding(tmp_path, text):
    script = tmp_path / "run.sh"
    script.write_text(text)
    rs = read_script(str(script), [], environ={})
    assert all(any(f.startswith("the node rank is ") for f in la.findings) for la in rs.launches)


# ------------------------------------------------------------------ plan's exit code on a finding
# README "Exit codes": 1 = at least one error-level finding. `check` reports a script's findings as launch.accepted
# errors and exits 1; `plan` printed the same `finding` rows and exited 0. Now 1, in text and --json; a refusal stays
# 2, a plan without a finding 0.
LOOPBACK = "#!/bin/bash\ntorchrun --nnodes=2 --node_rank=$1 --nproc_per_node=8 --master_addr=localhost " \
           "--master_port=29500 train.py\n"


def test_plan_exits_1_on_a_finding_as_check_does(tmp_path, gpudoctor_cli):
    script = tmp_path / "lo.sh"
    script.write_text(LOOPBACK)
    rc, out, err = gpudoctor_cli("plan", str(script), "0")
    assert rc == 1 and err == "", err
    assert "  finding      the master address is localhost on a 2-node plan" in out
    rc, out, err = gpudoctor_cli("plan", "--json", str(script), "0")
    assert rc == 1
    import json
    (la,) = json.loads(out)["launches"]
    assert la["findings"] and la["findings"][0].startswith("the master address is localhost")
    rc, out, err = gpudoctor_cli("check", "--launch", "bash %s 0" % script)
    assert rc == 1
    assert any(ln.startswith("FAIL launch.accepted   the master address is localhost on a 2-node plan")
               for ln in out.splitlines()), out


def test_plan_exit_0_without_a_finding_and_2_on_a_refusal(tmp_path, gpudoctor_cli):
    ok = tmp_path / "ok.sh"
    ok.write_text(LOOPBACK.replace("localhost", "gpu1").replace("$1", "$SLURM_NODEID"))
    rc, out, err = gpudoctor_cli("plan", str(ok))
    assert rc == 0 and "finding" not in out, out
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/bin/bash\ntorchrun --nnodes=2 --nproc_per_node=x train.py\n")
    rc, out, err = gpudoctor_cli("plan", str(bad))
    assert rc == 2 and len(err.strip().splitlines()) == 1, err


# ------------------------------------------------------------------ a Kubernetes manifest given to plan
# kubeflow/training-operator manifests/base/runtimes/pretraining/torch_distributed.yaml, lines 1-11 (the runtime's
# head; the container's command is a bash -c block below them)
# https://github.com/kubeflow/training-operator/blob/a55f03a8ccb7798a741ff3c4af502d367ed0f6d2/manifests/base/runtimes/pretraining/torch_distributed.yaml
# It planned "launch lines none found" and exited 0; plan does not read manifests, and now says so (exit 2).
RUNTIME = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
  labels:
    trainer.kubeflow.org/phase: pre-training
spec:
  mlPolicy:
    numNodes: 1
    torch:
      numProcPerNode: auto
"""


@pytest.mark.parametrize("text,kind", [
    (RUNTIME, "ClusterTrainingRuntime"),
    ("# a comment\n---\nkind: PyTorchJob\napiVersion: kubeflow.org/v1\nmetadata:\n  name: x\n", "PyTorchJob"),
])
def test_a_kubernetes_manifest_is_refused_with_what_to_give(tmp_path, gpudoctor_cli, text, kind):
    f = tmp_path / "job.yaml"
    f.write_text(text)
    rc, out, err = gpudoctor_cli("plan", str(f))
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, (out, err)
    assert "is a Kubernetes manifest (kind: %s), not a shell script" % kind in err and "--launch" in err


@pytest.mark.parametrize("text", [
    # SkyPilot's task YAML has no apiVersion: read as before (its `run: |` lines are bash's)
    "resources:\n  accelerators: A100:8\nnum_nodes: 2\nrun: |\n  torchrun --nnodes=2 --nproc_per_node=8 train.py\n",
    # a script that merely mentions the words
    "#!/bin/bash\n# apiVersion: v1\nkind=PyTorchJob\ntorchrun --nproc_per_node=8 train.py\n",
    "#!/bin/bash\ntorchrun --nproc_per_node=8 train.py\napiVersion: v1\nkind: Job\n",
])
def test_not_a_manifest_is_read_as_before(tmp_path, text):
    f = tmp_path / "x.sh"
    f.write_text(text)
    rs = read_script(str(f), [], environ={})
    assert len(rs.launches) == 1 and rs.launches[0].plan.world_size() == (16 if "--nnodes=2" in text else 8)


# ------------------------------------------------------------------ printf widths, flags and precisions
# round 7's Left: `printf -v VAR '%-12s'` / `'%05d'` / `'%.3s'` left VAR unknown. C's printf rules as bash applies them
# (bash(1) printf; a precision drops %d's `0` flag, precision 0 writes no digit for 0), each against bash's own printf.
# Measured once here on 1,500 random formats of these conversions (/tmp/launch27/pffuzz.py): 377 read, all equal to
# bash's, the others not followed (a non-number for %d, `0` on a string).
@pytest.mark.parametrize("fmt,args", [
    ("%5s|", ["a"]), ("%-5s|", ["ab"]), ("%.2s|", ["abcdef"]), ("%8.3s|", ["abcdef"]), ("%05d", ["42"]),
    ("%-6d|", ["-7"]), ("%+d %+d", ["3", "-3"]), ("% d", ["5"]), ("%.3d", ["7"]), ("%08.3d|", ["7"]),
    ("%3d", ["12345"]), ("%.s|", ["x"]), ("%10q|", ["a b"]), ("%-10q|", ["it's"]), ("node%02d,", ["1", "2", "10"]),
    ("%s:%-4d;", ["a", "1", "b", "22"]), ("%3.0d|%+.0d|%-3.d|", ["0", "0", "0"]),
])
def test_printf_width_flags_precision_are_bash_printf(fmt, args):
    import shutil
    import subprocess

    from gpudoctor.launch.script import printf_value

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    real = subprocess.run([bash, "-c", 'printf -v X "$@"; printf %s "$X"', "_", fmt] + args, capture_output=True,
                          text=True, timeout=10).stdout
    assert printf_value(fmt, args) == real


@pytest.mark.parametrize("fmt,args", [("%0s", ["a"]), ("%99999s", ["a"]), ("%d", ["9223372036854775808"])])
def test_printf_forms_not_followed(fmt, args):
    from gpudoctor.launch.script import printf_value

    assert printf_value(fmt, args) is None  # `0` on a string, a width past 4,096, past bash's 64 bits


def test_printf_v_width_in_a_script_matches_bash(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text('#!/bin/bash\nprintf -v NODE "gpu%02d" "$1"\nprintf -v TAG "%-6s|" run\n'
                      'torchrun --nnodes=2 --nproc_per_node=8 --master_addr=$NODE --master_port=29500 t.py "$TAG"\n')
    real = [r for r in bash_run(tmp_path, script, ["3"]) if r[0] == "torchrun"]
    rs = read_script(str(script), ["3"], environ={})
    assert [la.argv for la in rs.launches] == real and "--master_addr=gpu03" in real[0]


def test_printf_wide_fields_over_many_arguments_stay_bounded(tmp_path):
    from gpudoctor.launch.script import printf_value

    # 400 MB had it been written: it stops past MAX_PRINTF_TEXT (1 MiB) and is not followed
    assert printf_value("%4096s", ["a"] * 100000) is None
    assert printf_value("%4096s", ["a"] * 200) == (" " * 4095 + "a") * 200  # 800 KiB: read
    script = tmp_path / "wide.sh"
    script.write_text("#!/bin/bash\nprintf -v X '%%4096s' %s\ntorchrun --nproc_per_node=8 t.py \"$X\"\n" % (
        "a " * 50000))
    rs = read_script(str(script), [], environ={})
    assert len(rs.launches) == 1 and rs.launches[0].plan.world_size() == 8
