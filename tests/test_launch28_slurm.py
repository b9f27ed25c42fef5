"""launch28: srun's task count inside an sbatch allocation, against the real Slurm 22.05 (the session's 4-node
`multislurm` fixture, tests/slurmcluster.py: 4 nodes of 2 CPUs). He-Wenhao/ML-LinearSpace's script/submit.sh
(https://github.com/He-Wenhao/ML-LinearSpace/blob/b1485129dd351627157f8ff2420a7da8ea05395f/script/submit.sh, round 8's
measure part) asks `#SBATCH -N 5 --ntasks-per-node=4` and runs `srun --nodes=5 bash torchrun_script.sh`, whose
torchrun has --nnodes=5: the plan counted 5 srun tasks (one a node) where Slurm starts 20, four torchrun agents a node
for a 5-node rendezvous. sbatch exports SLURM_NTASKS when -n or --ntasks-per-node is asked, srun takes it as its -n,
and drops a --ntasks-per-node that does not give it."""

import pytest

from gpudoctor.launch.script import read_script


@pytest.fixture
def ms(multislurm, tmp_path):
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


def _steps(text):
    """The output of a batch script whose steps each run `srun ... hostname` after an `echo S<n>` line: {n: hosts}."""
    out, cur = {}, None
    for ln in text.splitlines():
        if ln.startswith("S") and ln[1:].isdigit():
            cur = int(ln[1:])
            out[cur] = []
        elif cur is not None and ln.strip() and not ln.startswith(("srun:", "NTASKS=")):
            out[cur].append(ln.strip())
    return out


TASKS = '''#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=2
echo "NTASKS=${SLURM_NTASKS-unset}"
echo S1
srun --ntasks-per-node=1 hostname
echo S2
srun --nodes=2 hostname
echo S3
srun -n 2 --ntasks-per-node=1 hostname
echo S4
srun --nodes=2 --ntasks-per-node=3 hostname
'''


def test_srun_in_an_allocation_with_asked_tasks_runs_them_all_as_slurm_does(ms, tmp_path):
    script = tmp_path / "tasks.sbatch"
    script.write_text(TASKS)
    p = ms.run("sbatch", "--wait", "-o", str(tmp_path / "out.txt"), str(script), timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, (p.stdout, p.stderr)
    text = (tmp_path / "out.txt").read_text()
    assert "NTASKS=4" in text, text  # sbatch exported the job's task count
    assert "can't honor --ntasks-per-node set to 1" in text, text  # Slurm's own warning for step 1
    steps = _steps(text)
    assert {k: len(v) for k, v in steps.items()} == {1: 4, 2: 4, 3: 2, 4: 4}, text
    assert "can't honor --ntasks-per-node set to 3" in text, text  # more a node than the job's tasks give: dropped
    rs = read_script(str(script), [], environ={})
    got = {la.line: la.plan.world_size() for la in rs.launches}
    assert got == {6: len(steps[1]), 8: len(steps[2]), 10: len(steps[3]), 12: len(steps[4])}, got  # was 6: 2, 8: 2
    assert any("it ignores --ntasks-per-node=1" in n for la in rs.launches for n in la.plan.notes)


def test_srun_fewer_nodes_does_not_lower_the_asked_task_count(ms, tmp_path):
    # llama-cookbook's multi_node.slurm form (#SBATCH --ntasks=2 --nodes=2, tests/test_launch23.py) with `srun -N1`:
    # SLURM_NTASKS=2 is srun's -n, so the step is not one task: Slurm refuses it (the job holds one CPU on each
    # node) or runs both tasks on the one node
    script = tmp_path / "n1.sbatch"
    script.write_text("#!/bin/bash\n#SBATCH --ntasks=2\n#SBATCH --nodes=2\necho S1\nsrun -N1 hostname\n")
    p = ms.run("sbatch", "--wait", "-o", str(tmp_path / "out.txt"), str(script), timeout=120, cwd=str(tmp_path))
    text = (tmp_path / "out.txt").read_text()
    hosts = _steps(text)[1]
    assert len(hosts) != 1, text
    assert len(hosts) == 2 or "Unable to create step" in text, text
    (la,) = read_script(str(script), [], environ={}).launches
    assert la.plan.world_size() == 2


def test_sbatch_nodes_alone_exports_no_task_count(ms, tmp_path):
    script = tmp_path / "nodes.sbatch"
    script.write_text("#!/bin/bash\n#SBATCH -N 2\necho \"NTASKS=${SLURM_NTASKS-unset}\"\necho S1\nsrun hostname\n")
    p = ms.run("sbatch", "--wait", "-o", str(tmp_path / "out.txt"), str(script), timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, (p.stdout, p.stderr)
    text = (tmp_path / "out.txt").read_text()
    assert "NTASKS=unset" in text, text
    rs = read_script(str(script), [], environ={})
    assert "SLURM_NTASKS" not in rs.allocation["env"]  # it was exported as 2
    assert [la.plan.world_size() for la in rs.launches] == [len(_steps(text)[1])] == [2]


ML_SUBMIT = '''#!/bin/bash
#SBATCH -A m3706_g
#SBATCH -C gpu
#SBATCH -q regular
#SBATCH -t 24:00:00
#SBATCH -N 5
#SBATCH --ntasks-per-node=4
#SBATCH -c 32
#SBATCH --gpus-per-task=1

module load pytorch/2.1.0-cu12

srun --nodes=5 bash torchrun_script.sh
'''
# https://github.com/He-Wenhao/ML-LinearSpace/blob/b1485129dd351627157f8ff2420a7da8ea05395f/script/torchrun_script.sh
ML_TORCHRUN = '''export MASTER_ADDR=$(scontrol show hostname ${SLURM_NODELIST} | head -n 1)

torchrun --nnodes=5 --nproc_per_node=4 --rdzv_id=100 --rdzv_backend=c10d --rdzv_endpoint=$MASTER_ADDR:29400 train_parallel_2.py
'''


def test_ml_linearspace_submit_twenty_agents_for_a_five_node_rendezvous(tmp_path):
    # the two files as the repository has them side by side (script/); srun --nodes=5 in `-N 5 --ntasks-per-node=4`
    # starts 20 tasks (Slurm, as the test above shows on 2 nodes), each a torchrun agent of a 5-node rendezvous
    (tmp_path / "submit.sh").write_text(ML_SUBMIT)
    (tmp_path / "torchrun_script.sh").write_text(ML_TORCHRUN)
    rs = read_script(str(tmp_path / "submit.sh"), [], environ={})
    (la,) = rs.launches
    assert la.plan.launcher == "torchrun" and la.plan.nnodes_max == 5
    f = [x for x in la.findings if "torchrun agents" in x]
    assert f and "srun starts 20 torchrun agents" in f[0] and "give srun -n 5 --ntasks-per-node=1" in f[0], la.findings


def test_sbatch_wrap_is_read_as_its_batch_script_in_the_job_its_options_ask(ms, tmp_path):
    # aws-samples/aws-parallelcluster-post-install-scripts pyxis/test.sh line 4 runs `sbatch --wrap "srun ..."`; the
    # plan had no launch line there. sbatch(1) --wrap: the string is a `sh` batch script; no -N/-n: one node, one task
    script = tmp_path / "w.sh"
    script.write_text('sbatch --wait -o w1.txt --wrap "srun hostname"\n'
                      'sbatch --wait -o w2.txt -N 2 --wrap "srun hostname"\n'
                      'srun -N 1 hostname\n')
    p = ms.run("bash", str(script), timeout=180, cwd=str(tmp_path))
    assert p.returncode == 0, (p.stdout, p.stderr)
    w1 = [ln for ln in (tmp_path / "w1.txt").read_text().splitlines() if ln.strip()]
    w2 = [ln for ln in (tmp_path / "w2.txt").read_text().splitlines() if ln.strip()]
    assert (len(w1), len(w2)) == (1, 2), (w1, w2)
    rs = read_script(str(script), [], environ={})
    got = [(la.line, la.plan.world_size(), la.plan.nnodes_max) for la in rs.launches]
    assert got == [(1, 1, 1), (2, 2, 2), (3, 1, 1)], got
    assert rs.allocation == {}  # the jobs are the lines' own: the script is no sbatch file
