#!/usr/bin/env python3
"""eval-p11: plant failures on this machine's real components (no GPU) and keep the output verbatim.

Beds (made before this runs by slurm/up.sh and the ssh/podman steps in README.md; torn down after):
  - multi-node Slurm 22.05: slurmctld ctl11 (10.111.0.1, ports 48817/48818, auth/none), slurmd q1..q3 in
    network namespaces p11n1..p11n3 (10.111.0.11-13); q3's slurmd runs in a mount namespace where the venv
    /tmp/heldout-p11/venv is hidden (empty tmpfs): the venv is "not installed" on q3
  - two sshd on 127.0.0.61:2622 / 127.0.0.62:2622 reached as node1/node2 through a private ~/.ssh (ssh/inns.sh)
  - podman 4.3 + runc, image p11img (host python3.11 + libs + /usr/bin)
  - torch 2.13.0+cpu, accelerate 1.15.0, deepspeed 0.19.8 in /tmp/heldout-p11/venv; Open MPI 4.1.4; MPICH hydra 4.0.2; pdsh 2.34
Each case: a bash command run from /tmp/p11run under a wall-clock limit; stdout+stderr together.
The log = "$ <what the user typed>" + the output (cases with several parts compose their own).
Usage: plant11.py [name ...]
"""
import json, os, re, subprocess, sys, time, signal

HERE = "/tmp/heldout-p11"
LOGS = os.path.join(HERE, "logs")
RUN = "/tmp/p11run"

PRE = r'''
export SLURM_CONF=/tmp/heldout-p11/slurm/run/slurm.conf
V=/tmp/heldout-p11/venv/bin
export PATH=$V:/usr/bin:/bin:/usr/sbin:/sbin
P="podman --cgroup-manager=cgroupfs --runtime runc run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 -v /tmp/heldout-p11/venv/lib/python3.11/site-packages:/opt/venv/site-packages:ro -v /tmp/p11run:/work -e PYTHONPATH=/opt/venv/site-packages -w /work"
INNS=/tmp/heldout-p11/ssh/inns.sh
SSHD=/tmp/heldout-p11/ssh
n1() { nsenter --net=/var/run/netns/p11n1 "$@"; }
n2() { nsenter --net=/var/run/netns/p11n2 "$@"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
jobwait() { for i in $(seq 1 300); do [ -z "$(squeue -h -j $1 2>/dev/null)" ] && return 0; sleep 0.2; done; }
idle() { for i in $(seq 1 300); do [ -z "$(squeue -h 2>/dev/null)" ] && return 0; sleep 0.2; done; }
cd /tmp/p11run
'''

C = []
def case(name, group, display, cmd, timeout=60):
    C.append(dict(name=name, group=group, display=display, cmd=cmd, timeout=timeout))

JOB = "printf '#!/bin/bash\\nsrun python train.py\\n' > job.sh; "
# ------------------------------------------------------------------ (a) Slurm, multi-node
case("node_down_mid_step", "slurm", "srun -N2 -n2 -l python -u train_loop.py",
     "( sleep 5; scontrol update nodename=q2 state=down reason='ECC errors, swap DIMM' ) & srun -N2 -n2 -l python -u train_loop.py; rc=$?; wait;"
     " scontrol update nodename=q2 state=resume >/dev/null 2>&1; exit $rc", timeout=60)
case("venv_missing_one_node", "environment", None,
     "echo '(venv) $ MASTER_ADDR=10.111.0.11 srun -N3 -n3 python3 train_slurm.py';"
     " MASTER_ADDR=10.111.0.11 srun -N3 -n3 python3 train_slurm.py", timeout=60)
case("healthy_srun_nnodes_adjusted", "healthy", "GLOO_SOCKET_IFNAME=eth0 MASTER_ADDR=10.111.0.11 srun -N2 -n1 python train_slurm.py",
     "GLOO_SOCKET_IFNAME=eth0 MASTER_ADDR=10.111.0.11 srun -N2 -n1 python train_slurm.py", timeout=40)
case("srun_n_over_nodes_times_per_node", "slurm", "srun -N2 -n6 --ntasks-per-node=2 python train_slurm.py",
     "srun -N2 -n6 --ntasks-per-node=2 python train_slurm.py", timeout=30)
case("healthy_hetjob_components", "healthy", None,
     "printf '#!/bin/bash\\n#SBATCH -N1 -n1\\n#SBATCH hetjob\\n#SBATCH -N1 -n2\\nexport MASTER_ADDR=10.111.0.11 GLOO_SOCKET_IFNAME=eth0\\nsrun python train_slurm.py : python train_slurm.py\\n' > het.sh;"
     " echo '$ cat het.sh'; cat het.sh; echo '$ sbatch het.sh'; jid=$(sbatch --parsable -o het-%j.out het.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat het-$jid.out\"; cat het-$jid.out", timeout=90)
case("sbcast_dest_dir_missing", "slurm", None,
     "dd if=/dev/zero of=shard-000.tar bs=1k count=64 2>/dev/null; printf '#!/bin/bash\\n#SBATCH -N2\\nsbcast shard-000.tar /local_scratch/$USER/shard-000.tar\\nsrun python train_shards.py\\n' > bcast.sh;"
     " echo '$ cat bcast.sh'; cat bcast.sh; echo '$ sbatch bcast.sh'; jid=$(USER=alice sbatch --export=ALL,USER=alice --parsable -o bcast-%j.out bcast.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat bcast-$jid.out\"; cat bcast-$jid.out", timeout=60)
case("array_over_max_size", "slurm", "sbatch --array=0-4999 job.sh",
     JOB + "sbatch --array=0-4999 job.sh")
case("dependency_never_satisfied", "slurm", None,
     "printf '#!/bin/bash\\npython -c \"import sys; sys.exit(\\\\\"preprocess: input dir /data/raw is empty\\\\\")\"\\n' > prep.sh; " + JOB +
     " echo '$ sbatch prep.sh'; j1=$(sbatch --parsable -o prep-%j.out prep.sh); echo \"Submitted batch job $j1\"; "
     " echo \"\\$ sbatch --dependency=afterok:$j1 job.sh\"; j2=$(sbatch --parsable --dependency=afterok:$j1 job.sh); echo \"Submitted batch job $j2\"; jobwait $j1; sleep 3;"
     " echo '$ squeue'; squeue; scancel $j2; idle", timeout=60)
case("partition_max_nodes", "slurm", "sbatch -p small -N2 job.sh",
     JOB + "sbatch -p small -N2 job.sh")
case("srun_jobid_gone", "slurm", "srun --jobid=4242 -n2 python train.py",
     "srun --jobid=4242 -n2 python train.py")
case("step_waits_for_busy_cpus", "slurm", None,
     "echo '$ salloc -N1 -n2'; salloc -N1 -n2 bash -c 'echo \"\\$ srun -n2 python -u train_loop.py &\"; srun -n2 python -u train_loop.py > /dev/null 2>&1 & sleep 2;"
     " echo \"\\$ srun -n2 python eval.py\"; timeout -s INT 15 srun -n2 python -c \"print(1)\"; kill %1' 2>&1", timeout=60)
case("srun_node_rank_expanded_once", "slurm", None,
     "printf '#!/bin/bash\\n#SBATCH -N2 --ntasks-per-node=1 --cpus-per-task=2\\nexport GLOO_SOCKET_IFNAME=eth0\\nsrun torchrun --nnodes 2 --node-rank $SLURM_NODEID --nproc-per-node 1 --master-addr 10.111.0.11 --master-port 29831 train.py\\n' > tr2.sh;"
     " echo '$ cat tr2.sh'; cat tr2.sh; echo '$ sbatch tr2.sh'; jid=$(sbatch --parsable -o tr2-%j.out -t 1 tr2.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat tr2-$jid.out\"; cat tr2-$jid.out", timeout=100)

case("srun_nodelist_unknown_node", "slurm", "srun -w q4 -n1 python train.py",
     "srun -w q4 -n1 python train.py", timeout=20)
case("sbatch_chdir_missing_on_nodes", "slurm", None,
     "printf '#!/bin/bash\\n#SBATCH -N1 -n1\\npython train.py --out ckpt/\\n' > job_cd.sh; echo '$ sbatch --chdir=/scratch/alice/run1 -o /tmp/p11run/run1-%j.out job_cd.sh';"
     " jid=$(sbatch --parsable --chdir=/scratch/alice/run1 -o /tmp/p11run/run1-%j.out /tmp/p11run/job_cd.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat run1-$jid.out\"; cat run1-$jid.out", timeout=40)
# ------------------------------------------------------------------ (b) launchers
case("mpirun_bind_overload", "launcher", "mpirun -np 4 --bind-to core python mpi_allreduce.py",
     "mpirun -np 4 --oversubscribe --bind-to core python mpi_allreduce.py", timeout=30)
case("mpirun_map_by_gpu", "launcher", "mpirun -np 2 --map-by ppr:1:gpu python mpi_allreduce.py",
     "mpirun -np 2 --map-by ppr:1:gpu python mpi_allreduce.py", timeout=30)
case("mpirun_btl_tcp_if_include_wrong", "launcher", "mpirun -np 2 --mca btl self,tcp --mca btl_tcp_if_include ib0 python mpi_allreduce.py",
     "mpirun -np 2 --mca btl self,tcp --mca btl_tcp_if_include ib0 python mpi_allreduce.py", timeout=30)
case("hydra_host_unresolvable", "launcher", "mpiexec.hydra -n 2 -hosts gpu-node-07,gpu-node-08 python mpi_hello.py",
     "$INNS mpiexec.hydra -n 2 -hosts gpu-node-07,gpu-node-08 python mpi_hello.py", timeout=30)
case("pdsh_host_key_changed", "launcher", "pdsh -R ssh -w node[1-2] 'hostname; nproc'",
     "cp $SSHD/known_hosts_changed $SSHD/home/.ssh/known_hosts; $INNS pdsh -R ssh -w node[1-2] 'hostname; nproc'; rc=$?; cp $SSHD/known_hosts_good $SSHD/home/.ssh/known_hosts; exit $rc", timeout=30)
case("nccl_backend_on_cpu_node", "usercode", "torchrun --nproc-per-node 2 nccl_cpu.py",
     "torchrun --nproc-per-node 2 --master-port 29841 nccl_cpu.py", timeout=60)
case("torch_other_python_version", "environment", None,
     "echo '$ export PYTHONPATH=/tmp/heldout-p11/venv/lib/python3.11/site-packages'; echo '$ python3.12 train.py'; PYTHONPATH=/tmp/heldout-p11/venv/lib/python3.11/site-packages /root/.pyenv/versions/3.12.1/bin/python3.12 train.py", timeout=30)
case("accelerate_multi_cpu_no_mpirun_config", "launcher", None,
     "cat > cpu_config.yaml <<'EOF'\ncompute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_CPU\ndowncast_bf16: 'no'\nmachine_rank: 0\nmain_process_ip: 127.0.0.1\nmain_process_port: 29851\nmain_training_function: main\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 2\nrdzv_backend: static\nsame_network: true\ntpu_env: []\ntpu_use_cluster: false\ntpu_use_sudo: false\nuse_cpu: true\nEOF\n"
     " echo '$ cat cpu_config.yaml'; cat cpu_config.yaml; echo '$ accelerate launch --config_file cpu_config.yaml train.py'; timeout -s INT 45 accelerate launch --config_file cpu_config.yaml train.py", timeout=60)
case("pdsh_publickey_denied", "launcher", "pdsh -R ssh -w node[1-3] 'hostname; nproc'",
     "$INNS pdsh -R ssh -w node[1-3] 'hostname; nproc'", timeout=30)
case("deepspeed_launcher_mvapich_absent", "launcher", None,
     "printf 'node1 slots=1\\nnode2 slots=1\\n' > hostfile; echo '$ deepspeed --launcher mvapich --hostfile hostfile ds_train.py'; $INNS deepspeed --launcher mvapich --hostfile hostfile ds_train.py", timeout=60)
# ------------------------------------------------------------------ (c) containers and OS
case("podman_bind_source_missing", "environment",
     "podman run --rm -v /scratch/datasets/imagenet:/data:ro -v $PWD:/work -w /work trainer:latest python3 train.py",
     "$P -v /scratch/datasets/imagenet:/data:ro p11img python3 train.py")
case("podman_keep_id_rootful", "environment",
     "podman run --rm --userns=keep-id -v $PWD:/work -w /work trainer:latest python3 train.py",
     "$P --userns=keep-id p11img python3 train.py")
case("podman_rootless_no_newuidmap", "environment",
     "podman run --rm trainer:latest python3 -c 'import torch'",
     "cd /tmp && runuser -u p11user -- env HOME=/home/p11user XDG_RUNTIME_DIR=/tmp/p11user-run podman --cgroup-manager=cgroupfs --runtime runc run --rm p11img python3 -c 'import torch'", timeout=60)
case("podman_no_usable_tmp", "environment",
     "podman run --rm --read-only --read-only-tmpfs=false -v $PWD:/work:ro -w /work trainer:latest python3 tmp_store.py",
     "podman --cgroup-manager=cgroupfs --runtime runc run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 -v /tmp/heldout-p11/venv/lib/python3.11/site-packages:/opt/venv/site-packages:ro -v /tmp/p11run:/work:ro -e PYTHONPATH=/opt/venv/site-packages -w /work --read-only --read-only-tmpfs=false p11img python3 tmp_store.py", timeout=60)
case("podman_ckpt_tmpfs_full", "environment",
     "podman run --rm --mount type=tmpfs,destination=/ckpt,tmpfs-size=8m -v $PWD:/work -w /work trainer:latest python3 save_ckpt.py",
     "$P --mount type=tmpfs,destination=/ckpt,tmpfs-size=8m p11img python3 save_ckpt.py", timeout=60)

# ------------------------------------------------------------------ (d) healthy
case("healthy_srun_two_nodes_verbose", "healthy", "GLOO_SOCKET_IFNAME=eth0 MASTER_ADDR=10.111.0.11 srun -v -N2 -n4 -l python train_slurm.py",
     "GLOO_SOCKET_IFNAME=eth0 MASTER_ADDR=10.111.0.11 srun -v -N2 -n4 -l python train_slurm.py", timeout=60)
case("healthy_array_throttled", "healthy", None,
     "printf '#!/bin/bash\\n#SBATCH -n1\\necho \"task $SLURM_ARRAY_TASK_ID on $(hostname)\"\\nsleep 2\\n' > arr.sh; echo '$ sbatch --array=0-5%2 arr.sh';"
     " jid=$(sbatch --parsable --array=0-5%2 -o arr-%A_%a.out arr.sh); echo \"Submitted batch job $jid\"; sleep 1; echo '$ squeue'; squeue; jobwait $jid;"
     " echo \"\\$ cat arr-${jid}_*.out\"; cat arr-${jid}_*.out", timeout=60)
case("healthy_dependency_afterok", "healthy", None,
     "printf '#!/bin/bash\\necho preprocessing done\\nsleep 3\\n' > prep_ok.sh; " + "printf '#!/bin/bash\\n#SBATCH -N2 -n2\\nexport MASTER_ADDR=10.111.0.11 GLOO_SOCKET_IFNAME=eth0\\nsrun python train_slurm.py\\n' > job2.sh;"
     " echo '$ sbatch prep_ok.sh'; j1=$(sbatch --parsable -o prep-%j.out prep_ok.sh); echo \"Submitted batch job $j1\";"
     " echo \"\\$ sbatch --dependency=afterok:$j1 job2.sh\"; j2=$(sbatch --parsable -o train-%j.out --dependency=afterok:$j1 job2.sh); echo \"Submitted batch job $j2\"; sleep 1; echo '$ squeue'; squeue; jobwait $j2;"
     " echo \"\\$ cat train-$j2.out\"; cat train-$j2.out", timeout=90)
case("hydra_unknown_option", "launcher", "mpiexec.hydra -n 2 -l -print-rank-map python mpi_hello.py",
     "mpiexec.hydra -n 2 -l -print-rank-map python mpi_hello.py", timeout=30)
case("healthy_hydra_two_ranks", "healthy", "mpiexec.hydra -n 2 -l python mpi_hello.py",
     "mpiexec.hydra -n 2 -l python mpi_hello.py", timeout=30)
case("healthy_podman_torchrun_shm1g", "healthy",
     "podman run --rm --shm-size=1g -v $PWD:/work -w /work trainer:latest torchrun --nproc-per-node 2 train.py",
     "$P --shm-size=1g p11img python3 -m torch.distributed.run --nproc-per-node 2 train.py", timeout=90)

# ------------------------------------------------------------------ (e) words (text gets the user's words in build_set.py)
case("words_podman_memory_limit", "words",
     "podman run --rm --memory 300m -v $PWD:/work -w /work trainer:latest python3 grow.py; echo exit=$?",
     "$P --memory 300m --memory-swap 300m p11img python3 grow.py; echo exit=$?", timeout=60)
case("words_standalone_two_nodes", "words", None,
     "n1 torchrun --standalone --nproc-per-node 2 train.py > n0.out 2>&1 & p0=$!; n2 torchrun --standalone --nproc-per-node 2 train.py > n1.out 2>&1; wait $p0;"
     " echo '=== node A $ torchrun --standalone --nproc-per-node 2 train.py'; cat n0.out; echo; echo '=== node B $ torchrun --standalone --nproc-per-node 2 train.py'; cat n1.out", timeout=90)
case("words_array_throttle_one", "words", None,
     "printf '#!/bin/bash\\n#SBATCH -n1\\npython sweep.py --trial $SLURM_ARRAY_TASK_ID\\n' > sweep.sh; echo '$ sbatch --array=0-7%1 sweep.sh';"
     " jid=$(sbatch --parsable --array=0-7%1 -o /dev/null sweep.sh); echo \"Submitted batch job $jid\"; sleep 3; echo '$ squeue -u $USER'; squeue; echo '$ sinfo'; sinfo; scancel $jid; idle", timeout=40)


def run_case(c, results):
    t0 = time.time()
    p = subprocess.Popen(["bash", "-c", PRE + c["cmd"]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         cwd=RUN, start_new_session=True)
    timed_out = False
    try:
        out, _ = p.communicate(timeout=c["timeout"])
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
    dt = time.time() - t0
    text = out.decode("utf-8", "replace")
    if c["display"]:
        text = "$ " + c["display"] + "\n" + text
    with open(os.path.join(LOGS, c["name"] + ".log"), "w") as f:
        f.write(text)
    results[c["name"]] = dict(group=c["group"], display=c["display"], cmd=c["cmd"],
                              exit=None if timed_out else p.returncode, timed_out=timed_out,
                              seconds=round(dt, 1), lines=text.count("\n"),
                              started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)))
    print(f"{c['name']}: rc={p.returncode} t={dt:.1f}s lines={text.count(chr(10))}", flush=True)


def main():
    os.makedirs(LOGS, exist_ok=True)
    want = sys.argv[1:]
    mpath = os.path.join(LOGS, os.environ.get("P11_MANIFEST", "manifest.json"))
    results = json.load(open(mpath)) if os.path.exists(mpath) else {}
    todo = [c for c in C if not want or c["name"] in want]
    for c in todo:
        run_case(c, results)
        if not os.environ.get("P11_NO_SCANCEL"):
            subprocess.run(PRE + "scancel --user=root 2>/dev/null; idle", shell=True, executable="/bin/bash")
        json.dump(results, open(mpath, "w"), indent=1, sort_keys=True)
    results["_machine"] = dict(
        uname=os.uname().release, hostname=os.uname().nodename,
        versions=subprocess.run("srun --version; mpirun --version | head -1; mpiexec.hydra --version | grep Version; pdsh -V 2>&1 | head -1; podman --version; runc --version | head -1; "
                                "/tmp/heldout-p11/venv/bin/python -c 'import torch,accelerate,deepspeed,sys;print(sys.version.split()[0], torch.__version__, accelerate.__version__, deepspeed.__version__)' 2>/dev/null; ssh -V 2>&1",
                                shell=True, capture_output=True, text=True).stdout)
    json.dump(results, open(mpath, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
