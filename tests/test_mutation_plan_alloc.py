"""Cases written for the mutants of `#SBATCH` allocation reading (gpudoctor/launch/script.py
allocation, render_script's allocation lines) and `gpudoctor plan`'s script branch
(gpudoctor/commands/plan.py run), docs/mutation.md fourth round. The CLI tests of test_launch_script
and test_plan run `gpudoctor plan` in a subprocess, where mutmut sees no test: these call the
same functions in this process and compare whole answers.

sbatch's options (https://slurm.schedmd.com/sbatch.html): -N/--nodes min[-max] (a range lets
the scheduler pick; max < min is refused, src/common/proc_args.c verify_node_count), -n/--ntasks,
--ntasks-per-node, --gpus-per-node [type:]n, --gres gpu[:type]:n, -G/--gpus [type:]n,
-c/--cpus-per-task; the SLURM_* output variables sbatch sets from them (SLURM_NTASKS only where -n or
--ntasks-per-node was asked: sbatch(1) OUTPUT ENVIRONMENT VARIABLES, and the real Slurm 22.05's `-N 2` job has none,
tests/test_launch28_slurm.py)."""

import json

import pytest

from gpudoctor.errors import InputError
from gpudoctor.launch.script import allocation, read_script, render_script


def _env(**kw):
    return kw


@pytest.mark.parametrize("opts,want", [
    (["-N", "4"], {"nodes": 4, "tasks": 4, "env": _env(SLURM_NNODES=4, SLURM_JOB_NUM_NODES=4)}),
    (["-N4"], {"nodes": 4, "tasks": 4, "env": _env(SLURM_NNODES=4, SLURM_JOB_NUM_NODES=4)}),
    (["--nodes", "3-3"], {"nodes": 3, "tasks": 3, "env": _env(SLURM_NNODES=3, SLURM_JOB_NUM_NODES=3)}),
    # a range: the scheduler picks the count, so no count and no variables from it
    (["--nodes=2-4"], {"nodes_range": "2-4", "env": {}}),
    (["-N", "2-1"], {"nodes_range": "2-1", "env": {},
                     "refused": "sbatch refuses -N 2-1: Maximum node count 1 is less than minimum node count 2"}),
    (["-N", "10-9"], {"nodes_range": "10-9", "env": {},
                      "refused": "sbatch refuses -N 10-9: Maximum node count 9 is less than minimum node count 10"}),
    # the last -N counts: a count after a range or a refused range replaces them, and the other way round
    (["-N", "3", "--nodes=2-4"], {"nodes_range": "2-4", "env": {}}),
    (["-N", "2-1", "-N", "3"], {"nodes": 3, "tasks": 3, "env": _env(SLURM_NNODES=3, SLURM_JOB_NUM_NODES=3)}),
    (["--nodes=2-4", "-N", "2-1"], {"nodes_range": "2-1", "env": {},
                                    "refused": "sbatch refuses -N 2-1: Maximum node count 1 is less than minimum "
                                               "node count 2"}),
    # at most 9 digits (a count no int overflow or bigger-than-any-cluster value comes from); no value at the end
    (["-N", "1234567890"], {"env": {}}),
    (["-N", "123456789"], {"nodes": 123456789, "tasks": 123456789,
                           "env": _env(SLURM_NNODES=123456789, SLURM_JOB_NUM_NODES=123456789)}),
    (["-N", "2-1234567890"], {"env": {}}),
    (["-N", "x2"], {"env": {}}), (["-N", "2-"], {"env": {}}), (["-N"], {"env": {}}),
    (["-N", "2", "--ntasks-per-node", "4"], {"nodes": 2, "ntasks_per_node": 4, "tasks": 8,
                                             "env": _env(SLURM_NNODES=2, SLURM_JOB_NUM_NODES=2, SLURM_NTASKS_PER_NODE=4,
                                                         SLURM_NTASKS=8, SLURM_NPROCS=8)}),
    (["-n", "8", "-N", "2"], {"ntasks": 8, "nodes": 2, "tasks": 8,
                              "env": _env(SLURM_NNODES=2, SLURM_JOB_NUM_NODES=2, SLURM_NTASKS=8, SLURM_NPROCS=8)}),
    (["--ntasks=8"], {"ntasks": 8, "tasks": 8, "env": _env(SLURM_NTASKS=8, SLURM_NPROCS=8)}),
    (["-n8"], {"ntasks": 8, "tasks": 8, "env": _env(SLURM_NTASKS=8, SLURM_NPROCS=8)}),
    (["--ntasks", "x"], {"env": {}}),
    (["--ntasks", "8"], {"ntasks": 8, "tasks": 8, "env": _env(SLURM_NTASKS=8, SLURM_NPROCS=8)}),
    (["--ntasks-per-node=4"], {"ntasks_per_node": 4, "env": _env(SLURM_NTASKS_PER_NODE=4)}),
    (["--gpus-per-node=a100:4"], {"gpus_per_node": 4, "env": _env(SLURM_GPUS_ON_NODE=4, SLURM_GPUS_PER_NODE=4)}),
    (["--gpus-per-node", "4"], {"gpus_per_node": 4, "env": _env(SLURM_GPUS_ON_NODE=4, SLURM_GPUS_PER_NODE=4)}),
    (["--gpus-per-node=a:b:4"], {"env": {}}),
    (["--gres", "gpu:a100:2,shard:1"], {"gpus_per_node": 2, "env": _env(SLURM_GPUS_ON_NODE=2, SLURM_GPUS_PER_NODE=2)}),
    (["--gres=shard:1,gpu:4(S:0)"], {"gpus_per_node": 4, "env": _env(SLURM_GPUS_ON_NODE=4, SLURM_GPUS_PER_NODE=4)}),
    (["--gres=mps:4"], {"env": {}}),
    (["-c", "8"], {"cpus_per_task": 8, "env": _env(SLURM_CPUS_PER_TASK=8)}),
    (["-c8"], {"cpus_per_task": 8, "env": _env(SLURM_CPUS_PER_TASK=8)}),
    (["--cpus-per-task=x"], {"env": {}}),
    (["--cpus-per-task", "6"], {"cpus_per_task": 6, "env": _env(SLURM_CPUS_PER_TASK=6)}),
    (["--cpus-per-task=6"], {"cpus_per_task": 6, "env": _env(SLURM_CPUS_PER_TASK=6)}),
    (["--gpus", "8"], {"gpus_total": 8, "env": {}}),
    # -G spread over the nodes when it divides evenly (sbatch places them itself otherwise)
    (["-N", "2", "-G", "16"], {"nodes": 2, "gpus_total": 16, "tasks": 2, "gpus_per_node": 8,
                               "env": _env(SLURM_NNODES=2, SLURM_JOB_NUM_NODES=2,
                                           SLURM_GPUS_ON_NODE=8, SLURM_GPUS_PER_NODE=8)}),
    (["-N", "4", "--gpus=h100:6"], {"nodes": 4, "gpus_total": 6, "tasks": 4,
                                    "env": _env(SLURM_NNODES=4, SLURM_JOB_NUM_NODES=4)}),
    (["-N", "2", "-G", "16", "--gpus-per-node=4"], {"nodes": 2, "gpus_total": 16, "gpus_per_node": 4, "tasks": 2,
                                                    "env": _env(SLURM_NNODES=2, SLURM_JOB_NUM_NODES=2, SLURM_GPUS_ON_NODE=4,
                                                                SLURM_GPUS_PER_NODE=4)}),
    (["-G", "8"], {"gpus_total": 8, "env": {}}),
    # an option that takes a value consumes it, read or not
    (["--gpus-per-task", "-N", "-N", "2"], {"nodes": 2, "tasks": 2,
                                            "env": _env(SLURM_NNODES=2, SLURM_JOB_NUM_NODES=2)}),
    (["--exclusive", "-N", "2", "--ntasks-per-node", "0"], {"nodes": 2, "ntasks_per_node": 0,
                                                            "env": _env(SLURM_NNODES=2, SLURM_JOB_NUM_NODES=2)}),
])
def test_allocation_of_sbatch_options(opts, want):
    got = allocation(list(opts))
    assert got == want
    assert all(type(v) is int for v in got["env"].values())  # counts, never 8.0


def _script(tmp_path, body):
    path = tmp_path / "job.sbatch"
    path.write_text("#!/bin/bash\n" + body)
    return str(path)


NONE_FOUND = ("launch lines   none found (torchrun, python -m torch.distributed.*, deepspeed, accelerate launch, "
              "mpirun/mpiexec, horovodrun, srun)\n")


def test_render_script_shows_the_allocation_its_range_and_its_refusal(tmp_path):
    path = _script(tmp_path, "#SBATCH -N 2-4\n#SBATCH --gres=gpu:4\necho hi\n")
    assert render_script(read_script(path, [], environ={})) == (
        "script         %s\nallocation     #SBATCH -N 2-4 --gres=gpu:4: nodes 2-4, tasks ?, GPUs per node 4\n%s"
        % (path, NONE_FOUND))
    path = _script(tmp_path, "#SBATCH -N 2\n#SBATCH --ntasks-per-node=4\necho hi\n")
    assert render_script(read_script(path, ["a", "b"], environ={})) == (
        "script         %s a b\nallocation     #SBATCH -N 2 --ntasks-per-node=4: nodes 2, tasks 8, GPUs per node ?\n%s"
        % (path, NONE_FOUND))
    path = _script(tmp_path, "#SBATCH -N 2-1\necho hi\n")
    assert render_script(read_script(path, [], environ={})) == (
        "script         %s\nallocation     #SBATCH -N 2-1: nodes 2-1, tasks ?, GPUs per node ?\n"
        "  refused      sbatch refuses -N 2-1: Maximum node count 1 is less than minimum node count 2\n%s"
        % (path, NONE_FOUND))
    path = _script(tmp_path, "#SBATCH --exclusive\necho hi\n")
    assert render_script(read_script(path, [], environ={})) == (
        "script         %s\nallocation     #SBATCH --exclusive: nodes ?, tasks ?, GPUs per node ?\n%s"
        % (path, NONE_FOUND))
    path = _script(tmp_path, "echo hi\n")
    assert render_script(read_script(path, [], environ={})) == "script         %s\n%s" % (path, NONE_FOUND)


def _plan(argv):
    from gpudoctor import cli
    from gpudoctor.commands import plan

    args = cli.build_parser(argv).parse_args(argv)
    return plan.run(args)


def test_plan_of_a_script_prints_it_and_refuses_a_reversed_node_range(tmp_path, capsys):
    path = _script(tmp_path, "#SBATCH -N 2-4\necho hi\n")
    assert _plan(["plan", path]) == 0
    out = capsys.readouterr().out
    assert out.startswith("script         %s\nallocation     #SBATCH -N 2-4: nodes 2-4," % path), out
    assert _plan(["plan", "--json", path]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["allocation"]["nodes_range"] == "2-4" and "refused" not in doc["allocation"], doc["allocation"]
    path = _script(tmp_path, "#SBATCH -N 2-1\necho hi\n")
    with pytest.raises(InputError) as exc:
        _plan(["plan", path])
    assert str(exc.value) == "sbatch refuses -N 2-1: Maximum node count 1 is less than minimum node count 2"
    assert "  refused      sbatch refuses -N 2-1" in capsys.readouterr().out  # printed before the refusal
    with pytest.raises(InputError) as exc:
        _plan(["plan", "--json", path])
    assert json.loads(capsys.readouterr().out)["allocation"]["refused"] == str(exc.value)
    # a refused launch line names its line
    path = _script(tmp_path, "#SBATCH -N 2\ntorchrun --nnodes\n")
    with pytest.raises(InputError) as exc:
        _plan(["plan", path])
    assert str(exc.value).startswith("line 3: ") and "expected one argument" in str(exc.value), str(exc.value)


def test_plan_of_a_script_with_its_arguments_and_sbatchs_own_options(tmp_path, capsys):
    path = _script(tmp_path, "#SBATCH -N 2-4\necho hi\n")
    # sbatch's command-line options come after the script's #SBATCH lines and override them (sbatch(1))
    assert _plan(["plan", "sbatch", "-N", "3", path, "x"]) == 0
    assert capsys.readouterr().out.startswith(
        "script         %s x\nallocation     #SBATCH -N 2-4; sbatch -N 3: nodes 3, tasks 3, GPUs per node ?\n" % path)
    assert _plan(["plan", "--json", path, "a", "b"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('{\n  "schema": "gpudoctor.script/1",\n') and out.endswith("}\n")
    assert json.loads(out)["args"] == ["a", "b"]


def test_render_script_shows_each_launch_line_its_refusal_unknowns_findings_and_plan(tmp_path):
    from gpudoctor.launch.plan import render_text

    path = _script(tmp_path, "#SBATCH -N 2\ntorchrun --nnodes\ntorchrun --nnodes=$NN --nproc_per_node=4 train.py\n")
    res = read_script(path, [], environ={})
    refused, la = res.launches
    assert refused.refused and la.findings and not res.notes
    want = ["script         %s" % path, "allocation     #SBATCH -N 2: nodes 2, tasks 2, GPUs per node ?", "",
            "line 3         torchrun --nnodes",
            "  refused      torchrun would refuse this: argparse: argument --nnodes: expected one argument", "",
            "line 4         torchrun '--nnodes=$NN' --nproc_per_node=4 train.py",
            "  unknown      $NN: the environment at run time"]
    want += ["  finding      %s" % f for f in la.findings]
    want += ["  " + x for x in render_text(la.plan).rstrip("\n").split("\n")]
    assert render_script(res) == "\n".join(want) + "\n"
    assert len(want) > 12 and want[-1].startswith("  ") and not want[-1].startswith("   ")
    res.notes.append("a note")
    assert render_script(res).endswith("\nnote           a note\n")
