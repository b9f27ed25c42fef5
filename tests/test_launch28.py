"""launch28: `gpudoctor plan SCRIPT` on real launch scripts of public repositories (round 9,
bench/data/launch_real_scripts28.tsv part fix28; round 8's measure part, bench/data/launch_real_scripts27.tsv part
measure27, is this round's other fix part). Each case is a real script's own lines (cited by URL and commit), read by
gpudoctor/launch/script.py and, where bash can run it, run by the real bash with the launchers replaced by stubs that
record their argv (nothing is trained or started): every word gpudoctor knows must be the word bash passes."""

import subprocess

from test_launch25 import agrees, bash_run

from gpudoctor.launch.script import MARK, read_script

# nsys as the bench's stub has it (bench/launch_real_scripts.py NSYS): record, then run the application after
# `profile`'s options (a short option's parameter after a space, a long one's after `=`; `--force-overwrite true`)
NSYS = r'''#!/usr/bin/env python3
import os, subprocess, sys
with open(os.environ["REC"], "a") as f:
    f.write("\x1f".join(["nsys"] + sys.argv[1:]) + "\x1f\x1e")
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
'''


def _with_nsys(tmp_path):
    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    (stubs / "nsys").write_text(NSYS)
    (stubs / "nsys").chmod(0o700)


# ------------------------------------------------------------------ ViT_clouds run/exec_run_v2.bash
# https://github.com/jamesafranke/ViT_clouds/blob/b5fa83d2c54055e5512b634cacf7a28efc257029/run/exec_run_v2.bash
# lines 1-37 (measure27, round 8's Left): `time $PROFILE $OUTPUT torchrun ...` with PROFILE="nsys profile
# --trace=cuda,nvtx --force-overwrite true": no launch line was planned (a profiler in front of the launcher).
VIT = r'''#!/bin/bash
#SBATCH --time=2:00:00
#SBATCH --job-name=profile-v2
###overnight-0921
#SBATCH --output=%x_%A.out
#SBATCH --error=%x_%A.err
#SBATCH --partition=gpu
#SBATCH --gres=gpu:4


appdir=${HOME}/ViT_clouds/scripts

# change var
prefetch_factor=15 # num workers x prefetch_factor
num_workers=4

# Model Config
epochs=5
batch_size=60 #60 # 30 per gpu is max
mlp_dim=2048
image_size=1024
patch_size=32
datadir="/home/mu7sgetq/workspace/data/processed/patch_${image_size}"


# Execute
PROFILE="nsys profile --trace=cuda,nvtx --force-overwrite true"
OUTPUT="-o nsys-rep-B${batch_size}-MLPdim${mlp_dim}_S${image_size}_prefetch${prefetch_factor}_nworkers${num_workers}_4gpus_amp_wo-tf32"
time $PROFILE $OUTPUT  torchrun --nnodes=1 --nproc_per_node=4 --rdzv_id=100 --rdzv_backend=c10d --rdzv_endpoint=localhost:6000 $appdir/torchrun_test.py \
        --datadir $datadir \
        --image_size $image_size \
        --patch_size ${patch_size} \
        --batch_size ${batch_size} \
        --mlp_dim ${mlp_dim} \
	--prefetch_factor ${prefetch_factor} \
	--num_workers ${num_workers} \
        --epochs ${epochs}
'''


def test_vit_clouds_nsys_profile_in_front_of_torchrun_is_planned_as_bash_runs_it(tmp_path):
    script = tmp_path / "exec_run_v2.bash"
    script.write_text(VIT)
    _with_nsys(tmp_path)
    rec = bash_run(tmp_path, script, env={"HOME": str(tmp_path)})
    assert rec[0][:4] == ["nsys", "profile", "--trace=cuda,nvtx", "--force-overwrite"], rec
    real = [r for r in rec if r[0] == "torchrun"]
    assert len(real) == 1, rec  # nsys ran the application after its options: torchrun
    rs = read_script(str(script), [], environ={"HOME": str(tmp_path)})
    assert len(rs.launches) == 1, rs.notes
    la = rs.launches[0]
    assert la.argv[0] == "torchrun" and sum(MARK in w for w in la.argv) == 1, la.argv  # $HOME: at run time
    assert agrees(la.argv, real[0]), (la.argv, real[0])
    assert la.plan.world_size() == 4 and la.plan.nnodes_max == 1
    assert any("nsys runs the command after its options under the profiler" in n for n in rs.notes), rs.notes


def test_nsys_short_options_take_the_next_word_and_other_subcommands_start_nothing(tmp_path):
    # Nsight Systems' CLI (https://docs.nvidia.com/nsight-systems/UserGuide/index.html): `-t cuda,nvtx -o rep`
    # (a short option's parameter after a space); `nsys stats rep.nsys-rep` starts no application
    script = tmp_path / "p.sh"
    script.write_text("nsys profile -t cuda,nvtx -o rep -f true --stats=true torchrun --nproc_per_node=2 t.py\n"
                      "nsys stats rep.nsys-rep\n")
    _with_nsys(tmp_path)
    real = [r for r in bash_run(tmp_path, script) if r[0] == "torchrun"]
    rs = read_script(str(script), [], environ={})
    assert [la.argv for la in rs.launches] == real == [["torchrun", "--nproc_per_node=2", "t.py"]]
    assert rs.launches[0].plan.world_size() == 2


# ------------------------------------------------------------------ Horovod-Pytorch-Elastic-ResNet50 run.sh
# https://github.com/henryqin1997/Horovod-Pytorch-Elastic-ResNet50/blob/d57ecaf7a6c2ea3d104fb78b54c04bd0f646e997/run.sh
# (fix28): `horovodrun -np 8 --min-np 4 --max-np 8 --host-discovery-script discover_hosts.sh ...` was planned on
# "this machine, localhost slots 8, nnodes 1". horovod/runner/launch.py _run defaults the hosts to localhost:NP
# only with neither -H nor a discovery script; _run_elastic takes them from the script at run time
# (https://github.com/horovod/horovod/blob/2626dc87a3a8eb8fb7d2216198ce45bce0f9e65a/horovod/runner/launch.py#L806).
HOROVOD_ELASTIC = '''#!/usr/bin/env bash
horovodrun -np 8 --min-np 4 --max-np 8 --host-discovery-script ./discover_hosts.sh \\
python3 train_resnet_imagenet.py \\
--train-dir /workspace/data/ILSVRC2012/train \\
--val-dir /workspace/data/ILSVRC2012/validation
'''


def test_horovod_elastic_discovery_script_hosts_are_not_this_machine(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(HOROVOD_ELASTIC)
    real = bash_run(tmp_path, script, progs=("horovodrun",))
    rs = read_script(str(script), [], environ={})
    la = rs.launches[0]
    assert la.argv == real[0]
    p = la.plan
    assert p.nodes == [] and p.nnodes_min is None and p.nnodes_max is None  # was localhost, 1 node
    assert (p.world_min, p.world_max) == (4, 8)
    assert any("hosts come from ./discover_hosts.sh at run time" in n for n in p.notes), p.notes


def test_horovod_elastic_bounds_follow_horovod(tmp_path):
    # min_num_proc = --min-np or -np (_run_elastic); no --max-np: no upper bound ("at least"); --slots-per-host
    # gives the processes per host
    script = tmp_path / "h.sh"
    script.write_text("horovodrun -np 4 --host-discovery-script ./d.sh python t.py\n"
                      "horovodrun --min-np 2 --max-np 16 --slots-per-host 4 --host-discovery-script ./d.sh "
                      "python t.py\n")
    a, b = [la.plan for la in read_script(str(script), [], environ={}).launches]
    assert (a.world_min, a.world_max, a.nproc_per_node) == (4, None, None)
    assert (b.world_min, b.world_max, b.nproc_per_node) == (2, 16, 4)
    out = subprocess.run(["python3", "-m", "gpudoctor", "plan", str(script)], capture_output=True, text=True,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    assert "world size     at least 4" in out.stdout and "world size     2 to 16" in out.stdout, out.stdout


# ------------------------------------------------------------------ aws-parallelcluster-post-install-scripts pyxis/test.sh
# https://github.com/aws-samples/aws-parallelcluster-post-install-scripts/blob/66337fc41a05facf3d7bb732c80b4366c56b83c5/pyxis/test.sh
# (fix28, whole file): line 4's `sbatch --wrap "srun --container-image=alpine ..."` was no launch line. The bash
# stub of sbatch runs the --wrap string with sh, as the batch script would (bench/launch_real_scripts.py SBATCH).
PYXIS = '''srun grep PRETTY /etc/os-release
srun --container-image=alpine grep PRETTY /etc/os-release
sbatch --container-image=alpine --wrap "grep PRETTY /etc/os-release"
sbatch --wrap "srun --container-image=alpine grep PRETTY /etc/os-release"
srun --container-image=nvidia/cuda:11.6.2-base-ubuntu20.04 nvidia-smi'''
SBATCH_WRAP = '''#!/bin/bash
r=$(printf '%s\\037' sbatch "$@"); printf '%s\\036' "$r" >> "$REC"
w=; n=; for a in "$@"; do if [ -n "$n" ]; then w=$a; n=; fi; case "$a" in --wrap=*) w=${a#--wrap=};; --wrap) n=1;; esac; done
[ -n "$w" ] && exec sh -c "$w"
'''


def test_pyxis_sbatch_wrap_srun_is_planned_in_its_own_one_node_job(tmp_path):
    script = tmp_path / "test.sh"
    script.write_text(PYXIS)
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "sbatch").write_text(SBATCH_WRAP)
    (stubs / "sbatch").chmod(0o700)
    rec = bash_run(tmp_path, script, progs=("grep", "nvidia-smi"))
    sruns = [r for r in rec if r[0] == "srun"]
    assert len(sruns) == 4, rec  # lines 1, 2, 5 and the one the wrapped batch script runs
    rs = read_script(str(script), [], environ={})
    assert [la.line for la in rs.launches] == [1, 2, 4, 5]
    for la in rs.launches:
        assert any(la.argv == r for r in sruns), (la.argv, sruns)
    wrapped = rs.launches[2]
    assert (wrapped.plan.world_size(), wrapped.plan.nnodes_max) == (1, 1)  # sbatch's one node, one task
    # the other lines run outside any job: no allocation of the wrap's leaks into them
    assert [la.plan.world_size() for la in (rs.launches[0], rs.launches[1], rs.launches[3])] == [None] * 3
    assert rs.allocation == {}
    assert any("sbatch --wrap runs its command string as the batch script" in n for n in rs.notes)


def test_sbatch_wrap_torchrun_on_two_nodes_is_the_batch_shell_once(tmp_path):
    # `sbatch -N 2 --wrap "torchrun --nnodes=2 ..."`: the batch script runs on the first node only (sbatch(1)),
    # as an sbatch file's own line would: the same finding
    script = tmp_path / "w.sh"
    script.write_text('sbatch -N 2 --wrap "torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d '
                      '--rdzv_endpoint=node1:29500 train.py"\n')
    (la,) = read_script(str(script), [], environ={}).launches
    assert la.plan.world_size() == 16
    assert any("the batch shell runs this line once, on the first node of the 2-node allocation" in f
               for f in la.findings), la.findings


# ------------------------------------------------------------------ swift-work slurm-layouts/launch-srun.sh
# https://github.com/swift-lang/swift-work/blob/3634a4cce58a0a269c1f8286815b51e7e5aea4cd/slurm-layouts/launch-srun.sh
# and the task-pmi.sh beside it (same commit; fix28): with the task script here, srun's line was read through it,
# found no launcher, and gave no launch line at all; srun is the launcher of its 4 tasks, each running the script.
LAUNCH_SRUN = '''#!/bin/bash

srun -n 4 --ntasks-per-node 3 ./task-pmi.sh
# srun -n 2 --ntasks-per-node 1 ./task.sh -n 2 --ntasks-per-node 2 ./task.sh
'''
TASK_PMI = '''#!/bin/sh

echo $PMI_RANK $(hostname) $$ $*
sleep 1
# printenv
'''


def test_srun_task_script_read_here_that_starts_no_launcher_is_srun_s_own_launch(tmp_path):
    (tmp_path / "launch-srun.sh").write_text(LAUNCH_SRUN)
    (tmp_path / "task-pmi.sh").write_text(TASK_PMI.replace("sleep 1", "true"))
    (tmp_path / "task-pmi.sh").chmod(0o755)
    real = [r for r in bash_run(tmp_path, tmp_path / "launch-srun.sh") if r[0] == "srun"]
    rs = read_script(str(tmp_path / "launch-srun.sh"), [], environ={})
    (la,) = rs.launches
    assert la.argv == real[0] == ["srun", "-n", "4", "--ntasks-per-node", "3", "./task-pmi.sh"]
    assert la.plan.launcher == "srun" and la.plan.world_size() == 4 and la.plan.nnodes_max == 2
    assert any("read here: it starts no launcher, so the world is srun's task count" in n for n in la.plan.notes)
    # not here: the script is not read, and the world stays unknown (launch24's rule)
    (tmp_path / "task-pmi.sh").unlink()
    (lb,) = read_script(str(tmp_path / "launch-srun.sh"), [], environ={}).launches
    assert lb.plan.world_size() is None


def test_horovod_min_np_with_fewer_than_two_fixed_hosts_is_refused_as_horovod_does(tmp_path):
    # --min-np makes the job elastic (_is_elastic); without a discovery script _run_elastic takes -H (or the
    # hostfile, or localhost:NP) and raises "Cannot run in fault tolerance mode with fewer than 2 hosts."
    # (https://github.com/horovod/horovod/blob/2626dc87a3a8eb8fb7d2216198ce45bce0f9e65a/horovod/runner/launch.py#L694)
    script = tmp_path / "h.sh"
    script.write_text("horovodrun -np 4 --min-np 2 -H localhost:4 python t.py\n"
                      "horovodrun -np 4 --min-np 2 python t.py\n"
                      "horovodrun -np 4 --min-np 2 -H a:2,b:2 python t.py\n"
                      "horovodrun -np 4 -H localhost:4 python t.py\n")
    a, b, c, d = read_script(str(script), [], environ={}).launches
    for la in (a, b):
        assert la.refused and "Cannot run in fault tolerance mode with fewer than 2 hosts" in la.refused, la.refused
    assert not c.refused and (c.plan.world_min, c.plan.world_max, c.plan.nnodes_max) == (2, 4, 2)
    assert not d.refused and d.plan.world_size() == 4  # not elastic: one host is fine
