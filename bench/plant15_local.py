#!/usr/bin/python3.11
"""eval-p15: plant failures on this machine's real components (no GPU) and keep the output verbatim.

Beds (made before this runs, torn down after; see README.md):
  - multi-node Slurm 22.05 (slurm/up.sh): slurmctld ctl15 (10.115.0.1, ports 49817/49818, auth/none,
    EnforcePartLimits=NO, Epilog=slurm/epilog.sh), slurmd s1,s2 in network namespaces p15n1,p15n2
    (10.115.0.11-12), each in its own mount namespace with a node-local tmpfs on /tmp/p15local; on s2 the
    editable install's source /tmp/heldout-p15/src is hidden (empty tmpfs)
  - sshd node1..node8 on 127.0.0.151-158:2715 and a gateway login-gw 127.0.0.150:2715 (MaxStartups 2:100:2),
    reached through a private ~/.ssh (ssh/inns.sh)
  - podman 4.3 + runc, images p15img (Debian python3.11 + host /usr/bin + libs; the tiny programs in /opt/app),
    p15crlf (ENTRYPOINT script with CRLF line ends), p15py (ENTRYPOINT ["python3"])
  - venv /tmp/heldout-p15/venv (torch CPU through a .pth to the P11 venv's site-packages, mylib installed -e)
Usage: plant15.py [name ...]
"""
import json, os, re, subprocess, sys, time, signal

HERE = "/tmp/heldout-p15"
LOGS = os.path.join(HERE, "logs")
RUN = "/tmp/p15run"

PRE = r'''
export SLURM_CONF=/tmp/heldout-p15/slurm/run/slurm.conf
V=/tmp/heldout-p15/venv/bin
export PATH=$V:/usr/bin:/bin:/usr/sbin:/sbin
SP=/tmp/heldout-p11/venv/lib/python3.11/site-packages
PM="podman --cgroup-manager=cgroupfs --runtime runc"
P="$PM run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 -v $SP:/opt/venv/site-packages:ro"
INNS=/tmp/heldout-p15/ssh/inns.sh
S=/tmp/heldout-p15/ssh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
jobwait() { for i in $(seq 1 600); do [ -z "$(squeue -h -j $1 2>/dev/null)" ] && return 0; sleep 0.2; done; }
cd /tmp/p15run
'''

C = []
def case(name, group, display, cmd, timeout=60):
    C.append(dict(name=name, group=group, display=display, cmd=cmd, timeout=timeout))

# ------------------------------------------------------------------ (a) Slurm
case("sbatch_dos_line_breaks", "slurm", None,
     "printf '#!/bin/bash\\r\\n#SBATCH -N2 --ntasks-per-node=1\\r\\n#SBATCH -t 20\\r\\nexport MASTER_ADDR=10.115.0.11\\r\\nsrun python train_slurm.py\\r\\n' > train_job.sh;"
     " echo '$ sbatch train_job.sh'; sbatch train_job.sh")
case("sbatch_no_shebang", "slurm", None,
     "printf '#SBATCH -N2 --ntasks-per-node=1\\n#SBATCH -t 20\\nexport MASTER_ADDR=10.115.0.11\\nsrun python train_slurm.py\\n' > run.slurm;"
     " echo '$ cat run.slurm'; cat run.slurm; echo '$ sbatch run.slurm'; sbatch run.slurm")
case("srun_mem_and_mem_per_cpu", "slurm", "srun -N1 -n2 --mem=800 --mem-per-cpu=400 python train_slurm.py",
     "srun -N1 -n2 --mem=800 --mem-per-cpu=400 python train_slurm.py", timeout=30)
case("step_more_nodes_than_allocation", "slurm", None,
     "echo '$ salloc -N1 -n2'; salloc -N1 -n2 bash -c 'echo \"salloc: Granted job allocation $SLURM_JOB_ID\" >/dev/null; echo \"\\$ srun -N2 -n2 python train_slurm.py\"; srun -N2 -n2 python train_slurm.py' 2>&1", timeout=40)
case("het_group_in_plain_job", "slurm", None,
     "printf '#!/bin/bash\\n#SBATCH -N1 -n1 -t 5\\nexport MASTER_ADDR=10.115.0.11\\nsrun --het-group=0 python -c \"print(\\\\\"preprocess ok\\\\\")\"\\nsrun --het-group=1 -n2 python train_slurm.py\\n' > het_train.sh;"
     " echo '$ cat het_train.sh'; cat het_train.sh; echo '$ sbatch het_train.sh'; jid=$(sbatch --parsable -o het-%j.out het_train.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat het-$jid.out\"; cat het-$jid.out", timeout=60)
case("epilog_failed_node_drained", "slurm", None, ". /tmp/heldout-p15/cases/epilog_failed_node_drained.sh", timeout=60)
case("pending_partition_time_limit", "slurm", None,
     "printf '#!/bin/bash\\n#SBATCH -N2 --ntasks-per-node=1\\n#SBATCH --time=2:00:00\\nexport MASTER_ADDR=10.115.0.11\\nsrun python train_slurm.py\\n' > long_job.sh;"
     " echo '$ sbatch long_job.sh'; jid=$(sbatch --parsable long_job.sh); echo \"Submitted batch job $jid\"; sleep 3; echo '$ squeue -u $USER'; squeue; echo \"\\$ scontrol show job $jid\"; scontrol show job $jid; scancel $jid", timeout=40)
case("array_output_dir_missing", "slurm", None,
     "rm -rf logs; printf '#!/bin/bash\\n#SBATCH -n1 -t 5\\n#SBATCH -o logs/sweep_%%A_%%a.out\\npython -c \"import os; print(\\\\\"trial\\\\\", os.environ[\\\\\"SLURM_ARRAY_TASK_ID\\\\\"], \\\\\"acc 0.91\\\\\")\"\\n' > sweep.sh;"
     " echo '$ cat sweep.sh'; cat sweep.sh; echo '$ sbatch --array=0-3 sweep.sh'; jid=$(sbatch --parsable --array=0-3 sweep.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo '$ ls logs/'; ls logs/; echo \"\\$ scontrol show job ${jid}_2\"; scontrol show job ${jid}_2", timeout=60)
case("signal_usr1_not_trapped", "slurm", None,
     "printf '#!/bin/bash\\n#SBATCH -N1 -n1 -t 1\\n#SBATCH --signal=USR1@50\\nsrun python -u loop.py\\n' > sig_job.sh;"
     " echo '$ cat sig_job.sh'; cat sig_job.sh; echo '$ sbatch sig_job.sh'; jid=$(sbatch --parsable -o sig-%j.out sig_job.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat sig-$jid.out\"; cat sig-$jid.out", timeout=100)
case("editable_install_missing_on_node", "environment", None,
     "echo '(venv) $ MASTER_ADDR=10.115.0.11 GLOO_SOCKET_IFNAME=eth0 srun -N2 --ntasks-per-node=1 -l python train_mylib.py';"
     " MASTER_ADDR=10.115.0.11 GLOO_SOCKET_IFNAME=eth0 srun -N2 --ntasks-per-node=1 -l python train_mylib.py", timeout=60)
case("ckpt_dir_node_local", "environment", None,
     "echo '(venv) $ MASTER_ADDR=10.115.0.11 GLOO_SOCKET_IFNAME=eth0 srun -N2 --ntasks-per-node=1 -l python train_slurm.py --ckpt-dir /tmp/p15local/run1';"
     " MASTER_ADDR=10.115.0.11 GLOO_SOCKET_IFNAME=eth0 srun -N2 --ntasks-per-node=1 -l python train_slurm.py --ckpt-dir /tmp/p15local/run1", timeout=60)
# ------------------------------------------------------------------ (b) Open MPI, ssh/pdsh
case("mpirun_pml_ucx_absent", "launcher", "mpirun -np 2 --mca pml ucx ./mpi_put", "mpirun -np 2 --mca pml ucx ./mpi_put", timeout=30)
case("mpirun_btl_self_only", "launcher", "mpirun -np 2 --mca btl self python mpi_allreduce.py", "mpirun -np 2 --mca btl self python mpi_allreduce.py", timeout=30)
case("mpirun_plm_rsh_agent_rsh", "launcher", "mpirun -np 2 --host node1,node2 --mca plm_rsh_agent rsh ./mpi_put",
     "$INNS mpirun -np 2 --host node1,node2 --mca plm_rsh_agent rsh ./mpi_put", timeout=30)
case("mpi_init_twice", "launcher", "mpirun -np 1 ./bench_driver", "cp mpi_twice bench_driver; mpirun -np 1 ./bench_driver", timeout=30)
case("pdsh_gateway_maxstartups", "launcher", None,
     "cp $S/config_proxyjump $S/home/.ssh/config; echo '$ grep -A1 \"Host node\\*\" ~/.ssh/config'; grep -A1 'Host node\\*' $S/home/.ssh/config; echo \"\\$ pdsh -R ssh -w node[1-8] 'nproc'\"; $INNS pdsh -R ssh -w 'node[1-8]' 'nproc'; rc=$?; cp $S/config_good $S/home/.ssh/config; exit $rc", timeout=40)
case("ssh_too_many_auth_failures", "launcher", None,
     "cp $S/config_manykeys $S/home/.ssh/config; echo \"\\$ pdsh -R ssh -w node[1-3] 'hostname; nproc'\"; $INNS pdsh -R ssh -w 'node[1-3]' 'hostname; nproc'; rc=$?; cp $S/config_good $S/home/.ssh/config; exit $rc", timeout=40)
case("ssh_user_environment_ignored", "launcher", None,
     "printf 'PATH=/tmp/heldout-p15/venv/bin:/usr/local/bin:/usr/bin:/bin\\nOMP_NUM_THREADS=4\\n' > $S/home/.ssh/environment; echo '$ cat ~/.ssh/environment'; cat $S/home/.ssh/environment;"
     " echo \"\\$ pdsh -R ssh -w node[1-2] 'python -c \\\"import torch; print(torch.__version__)\\\"'\"; $INNS pdsh -R ssh -w 'node[1-2]' 'python -c \"import torch; print(torch.__version__)\"'; rc=$?; rm -f $S/home/.ssh/environment; exit $rc", timeout=40)
# ------------------------------------------------------------------ (c) containers
case("podman_entrypoint_crlf", "environment", "podman run --rm trainer:v3", "$P p15crlf", timeout=60)
case("podman_python_entrypoint_torchrun", "environment", "podman run --rm trainer:py torchrun --nproc-per-node 2 train.py",
     "$P p15py torchrun --nproc-per-node 2 train.py", timeout=60)
case("podman_cdi_gpu_no_spec", "environment", "podman run --rm --device nvidia.com/gpu=all trainer:latest python3 train.py",
     "$P --device nvidia.com/gpu=all p15img python3 train.py", timeout=60)
case("podman_device_nvidia0_absent", "environment", "podman run --rm --device /dev/nvidia0 --device /dev/nvidiactl --device /dev/nvidia-uvm trainer:latest python3 train.py",
     "$P --device /dev/nvidia0 --device /dev/nvidiactl --device /dev/nvidia-uvm p15img python3 train.py", timeout=60)
case("podman_network_none_rendezvous", "environment",
     "podman run --rm --network none trainer:latest torchrun --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr 10.115.0.1 --master-port 29960 train.py",
     "$P --network none p15img python3 -m torch.distributed.run --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr 10.115.0.1 --master-port 29960 train.py", timeout=60)
case("podman_ipc_none_loader", "environment", "podman run --rm --ipc=none trainer:latest python3 loader.py",
     "$P --ipc=none p15img python3 loader.py", timeout=60)
case("podman_userns_auto_no_subuid", "environment", "sudo podman run --rm --userns=auto trainer:latest python3 train.py",
     "$P --userns=auto p15img python3 train.py", timeout=60)
case("podman_volume_owned_by_root", "environment", None,
     "rm -rf ckpt; mkdir -p ckpt; chmod 755 ckpt; echo '$ ls -ld ckpt'; ls -ld ckpt | sed 's/ [A-Z][a-z][a-z] .* ckpt/ ... ckpt/'; echo '$ podman run --rm --user 1000:1000 -v $PWD/ckpt:/ckpt trainer:latest python3 save_ckpt.py';"
     " $P --user 1000:1000 -v /tmp/p15run/ckpt:/ckpt p15img python3 save_ckpt.py", timeout=60)
case("healthy_pending_resources", "healthy", None,
     "printf '#!/bin/bash\\n#SBATCH -N2 --ntasks-per-node=2 -t 5\\nexport MASTER_ADDR=10.115.0.11 GLOO_SOCKET_IFNAME=eth0\\nsrun python train_slurm.py\\n' > j4.sh;"
     " echo '$ sbatch j4.sh'; j1=$(sbatch --parsable -o a-%j.out --wrap 'sleep 6' -N2 --ntasks-per-node=2 -J preprocess); j2=$(sbatch --parsable -o j4-%j.out j4.sh); echo \"Submitted batch job $j2\"; sleep 1;"
     " echo '$ squeue'; squeue; jobwait $j2; echo '$ squeue'; squeue; echo \"\\$ cat j4-$j2.out\"; cat j4-$j2.out", timeout=90)
case("healthy_signal_trapped", "healthy", None,
     "printf '#!/bin/bash\\n#SBATCH -N1 -n1 -t 1\\n#SBATCH --signal=B:USR1@50\\nckpt() { echo \"caught SIGUSR1: saving checkpoint\"; kill -TERM $PID; wait $PID; echo \"checkpoint saved, exiting\"; exit 0; }\\ntrap ckpt USR1\\npython -u loop.py &\\nPID=$!\\nwait $PID\\n' > trap_job.sh;"
     " echo '$ cat trap_job.sh'; cat trap_job.sh; echo '$ sbatch trap_job.sh'; jid=$(sbatch --parsable -o trap-%j.out trap_job.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat trap-$jid.out\"; cat trap-$jid.out", timeout=100)
case("mpirun_osc_win_create_tcp", "launcher", "mpirun -np 2 --host node1,node2 ./mpi_put",
     "$INNS mpirun -np 2 --host node1,node2 ./mpi_put", timeout=40)
case("healthy_mpirun_two_hosts", "healthy", "mpirun -np 2 --host node1,node2 python3 mpi_allreduce.py",
     "$INNS mpirun -np 2 --host node1,node2 python3 mpi_allreduce.py", timeout=40)
case("healthy_podman_shm_loader", "healthy", "podman run --rm --shm-size=256m trainer:latest python3 loader.py",
     "$P --shm-size=256m p15img python3 loader.py", timeout=90)
# ------------------------------------------------------------------ (e) words
case("words_array_task_id_unused", "words", None, ". /tmp/heldout-p15/cases/words_array_task_id_unused.sh", timeout=60)
case("hosts_stale_ip_master", "environment", None, ". /tmp/heldout-p15/cases/hosts_stale_ip_master.sh", timeout=40)
case("words_array_shared_output", "words", None, ". /tmp/heldout-p15/cases/words_array_shared_output.sh", timeout=60)
case("words_stale_handle_hang", "words", None, ". /tmp/heldout-p15/cases/words_stale_handle_hang.sh", timeout=90)
case("healthy_pdsh_gateway_fanout2", "healthy", None, ". /tmp/heldout-p15/cases/healthy_pdsh_gateway_fanout2.sh", timeout=60)
case("healthy_other_node_drained", "healthy", None, ". /tmp/heldout-p15/cases/healthy_other_node_drained.sh", timeout=60)
case("pam_slurm_adopt_no_job", "slurm", None, ". /tmp/heldout-p15/cases/pam_slurm_adopt_no_job.sh", timeout=60)
case("healthy_pam_slurm_adopt_job", "healthy", None, ". /tmp/heldout-p15/cases/healthy_pam_slurm_adopt_job.sh", timeout=60)

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
    mpath = os.path.join(LOGS, os.environ.get("P15_MANIFEST", "manifest.json"))
    results = json.load(open(mpath)) if os.path.exists(mpath) else {}
    todo = [c for c in C if not want or c["name"] in want]
    for c in todo:
        run_case(c, results)
        if os.environ.get("P15_SCANCEL"):
            subprocess.run(PRE + "scancel --user=root 2>/dev/null; idle", shell=True, executable="/bin/bash")
        json.dump(results, open(mpath, "w"), indent=1, sort_keys=True)
    results["_machine"] = dict(
        uname=os.uname().release, hostname=os.uname().nodename,
        versions=subprocess.run("srun --version; mpirun --version | head -1; mpiexec.hydra --version | grep Version; pdsh -V 2>&1 | head -1; podman --version; runc --version | head -1; "
                                "/tmp/heldout-p15/venv/bin/python -c 'import torch,accelerate,deepspeed,sys;print(sys.version.split()[0], torch.__version__, accelerate.__version__, deepspeed.__version__)' 2>/dev/null; ssh -V 2>&1",
                                shell=True, capture_output=True, text=True).stdout)
    json.dump(results, open(mpath, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
