#!/usr/bin/env python3
"""eval-p8: plant failures on this machine's real components (no GPU) and keep the output verbatim.

Beds (made before this runs, torn down after; see README.md):
  - single-node Slurm 22.05 at /tmp/heldout-p8/slurm (ports 46817/46818, auth/none), node `vm`
  - two network namespaces p8n1 (10.98.0.11) / p8n2 (10.98.0.12) on bridge p8br0 (two "nodes";
    the UTS hostname stays `vm`, which /etc/hosts maps to 127.0.0.1, as on the real machines)
  - two sshd on 127.0.0.31:2322 / 127.0.0.32:2322 (ssh names node1 / node2 through a private
    ~/.ssh bound in a private mount namespace: ssh/inns.sh)
  - podman 4.3 + runc, image p8img (host python3.11 + libs), p8img-slim (same without libffi)
  - torch 2.13.0+cpu, accelerate, deepspeed in /tmp/heldout-p8/venv; Open MPI 4.1.4; pdsh 2.34
Each case: a bash command run from /tmp/p8run under a wall-clock limit; stdout+stderr together.
The log = "$ <what the user typed>" + the output (cases that paste several parts compose their own).
Usage: plant8.py [name ...]
"""
import json, os, re, subprocess, sys, time, signal, threading

HERE = "/tmp/heldout-p8"
LOGS = os.path.join(HERE, "logs")
RUN = "/tmp/p8run"

PRE = r'''
export SLURM_CONF=/tmp/heldout-p8/slurm/run/slurm.conf
V=/tmp/heldout-p8/venv/bin
P="podman --cgroup-manager=cgroupfs --runtime runc run --rm --ulimit nofile=1024:1024 -v /tmp/heldout-p8/venv/lib/python3.11/site-packages:/opt/venv/site-packages:ro -v /tmp/p8run:/work -e PYTHONPATH=/opt/venv/site-packages -w /work"
INNS=/tmp/heldout-p8/ssh/inns.sh
SSHD=/tmp/heldout-p8/ssh
n1() { nsenter --net=/var/run/netns/p8n1 "$@"; }
n2() { nsenter --net=/var/run/netns/p8n2 "$@"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
jobwait() { for i in $(seq 1 600); do [ -z "$(squeue -h -j $1 2>/dev/null)" ] && return 0; sleep 0.2; done; }
idle() { for i in $(seq 1 300); do [ -z "$(squeue -h 2>/dev/null)" ] && return 0; sleep 0.2; done; }
cd /tmp/p8run
'''

C = []
def case(name, group, display, cmd, timeout=60, note=""):
    C.append(dict(name=name, group=group, display=display, cmd=cmd, timeout=timeout, note=note))

# ------------------------------------------------------------------ (a) Slurm
case("slurm_gres_gpu_not_configured", "slurm", "srun --gres=gpu:1 -n1 python train.py",
     "srun --gres=gpu:1 -n1 $V/python train.py")
case("sbatch_partition_gpu_unknown", "slurm", "sbatch -p gpu -N1 -n2 job.sh",
     "printf '#!/bin/bash\\nsrun python train.py\\n' > job.sh; sbatch -p gpu -N1 -n2 job.sh")
case("sbatch_mem_over_node", "slurm", "sbatch --mem=64G -n2 job.sh",
     "printf '#!/bin/bash\\nsrun python train.py\\n' > job.sh; sbatch --mem=64G -n2 job.sh")
case("salloc_ntasks_per_node_over_cpus", "slurm", "salloc -N1 --ntasks-per-node=8 --cpus-per-task=1",
     "salloc -N1 --ntasks-per-node=8 --cpus-per-task=1 true")
case("sbatch_time_over_partition_max", "slurm", "sbatch -p short --time=02:00:00 job.sh",
     "printf '#!/bin/bash\\nsrun python train.py\\n' > job.sh; sbatch -p short --time=02:00:00 job.sh; echo; echo '$ sinfo'; sinfo")
case("srun_constraint_unknown", "slurm", "srun -N1 -n1 --constraint=a100 python train.py",
     "srun -N1 -n1 --constraint=a100 $V/python train.py")
case("srun_mpi_pmix_v3_absent", "slurm", "srun --mpi=pmix_v3 -n2 python train.py",
     "srun --mpi=pmix_v3 -n2 $V/python train.py")
case("srun_prolog_failed_node_drained", "slurm", "srun -N1 -n2 python train.py",
     "touch /tmp/heldout-p8/slurm/fail_prolog; srun -N1 -n2 $V/python train.py; rc=$?; rm -f /tmp/heldout-p8/slurm/fail_prolog;"
     " echo; echo '$ sinfo -R'; sinfo -R; scontrol update nodename=vm state=resume; exit $rc")
case("srun_immediate_node_drained", "slurm", "srun -w vm --immediate=10 -n1 python train.py",
     "scontrol update nodename=vm state=drain reason='xid 79 seen, waiting for RMA'; sleep 1;"
     " srun -w vm --immediate=10 -n1 $V/python train.py; rc=$?; scontrol update nodename=vm state=resume; exit $rc", timeout=40)
case("srun_step_mem_limit_killed", "slurm", "srun -n1 --mem=200M python3 load_data.py",
     "srun -n1 --mem=200M python3 load_data.py")
case("sbatch_export_none_venv", "slurm",
     None,
     "export PATH=/tmp/heldout-p8/venv/bin:$PATH; printf '#!/bin/bash\\n#SBATCH -N1 -n1\\necho \"running on $(hostname)\"\\ntorchrun --nproc-per-node 2 train.py\\n' > job_env.sh;"
     " echo '(venv) $ cat job_env.sh'; cat job_env.sh; echo '(venv) $ sbatch --export=NONE job_env.sh';"
     " jid=$(sbatch --parsable --export=NONE -o slurm-%j.out job_env.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"(venv) \\$ cat slurm-$jid.out\"; cat slurm-$jid.out")
case("srun_torchrun_per_task", "slurm", None,
     "printf '#!/bin/bash\\n#SBATCH -N1 --ntasks-per-node=2\\nexport MASTER_ADDR=$(hostname)\\nsrun torchrun --nnodes 1 --nproc-per-node 2 --master-addr $MASTER_ADDR --master-port 29651 train.py\\n' > job_tr.sh;"
     " echo '$ cat job_tr.sh'; cat job_tr.sh; echo '$ sbatch job_tr.sh';"
     " jid=$(sbatch --parsable -o slurm-%j.out --export=ALL,PATH=/tmp/heldout-p8/venv/bin:/usr/bin:/bin job_tr.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat slurm-$jid.out\"; cat slurm-$jid.out", timeout=120)
case("srun_world_size_from_nnodes", "slurm", "srun -N1 -n2 python train_slurm.py",
     "srun -N1 -n2 $V/python train_slurm.py", timeout=150)
case("srun_rank1_valueerror_gloo", "usercode", "srun -N1 -n2 python bad_parse.py",
     "srun -N1 -n2 $V/python bad_parse.py")

# ------------------------------------------------------------------ (b) launchers / rendezvous
case("two_ranks_both_rank0", "launcher", None,
     "echo '$ MASTER_ADDR=127.0.0.1 MASTER_PORT=29661 WORLD_SIZE=2 RANK=0 python train.py &   # worker A';"
     " echo '$ MASTER_ADDR=127.0.0.1 MASTER_PORT=29661 WORLD_SIZE=2 RANK=0 python train.py     # worker B (copied the line)';"
     " MASTER_ADDR=127.0.0.1 MASTER_PORT=29661 WORLD_SIZE=2 RANK=0 $V/python train.py > a.out 2>&1 & apid=$!;"
     " sleep 4; MASTER_ADDR=127.0.0.1 MASTER_PORT=29661 WORLD_SIZE=2 RANK=0 $V/python train.py 2>&1; rc=$?;"
     " sleep 1; kill $apid; wait $apid; echo '--- worker A so far:'; cat a.out; exit $rc", timeout=60)
case("twonode_master_addr_localhost", "launcher", None,
     "n1 $V/torchrun --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-addr localhost --master-port 29671 --rdzv-conf timeout=25 train.py > n0.out 2>&1 & p0=$!;"
     " n2 $V/torchrun --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr localhost --master-port 29671 --rdzv-conf timeout=25 train.py > n1.out 2>&1; wait $p0;"
     " echo '=== node 0 (10.98.0.11) $ torchrun --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-addr localhost --master-port 29671 train.py'; cat n0.out;"
     " echo; echo '=== node 1 (10.98.0.12) $ torchrun --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr localhost --master-port 29671 train.py'; cat n1.out", timeout=90)
case("twonode_gloo_hostname_loopback", "environment", None,
     "n1 timeout -k 5 -s INT 50 env MASTER_ADDR=10.98.0.11 MASTER_PORT=29681 WORLD_SIZE=2 RANK=0 $V/python train.py > n0.out 2>&1 & p0=$!;"
     " n2 timeout -k 5 -s INT 45 env MASTER_ADDR=10.98.0.11 MASTER_PORT=29681 WORLD_SIZE=2 RANK=1 $V/python train.py > n1.out 2>&1; wait $p0;"
     " echo '=== node 0 (10.98.0.11) $ MASTER_ADDR=10.98.0.11 MASTER_PORT=29681 WORLD_SIZE=2 RANK=0 python train.py'; cat n0.out;"
     " echo; echo '=== node 1 (10.98.0.12) $ MASTER_ADDR=10.98.0.11 MASTER_PORT=29681 WORLD_SIZE=2 RANK=1 python train.py'; cat n1.out", timeout=120)
case("accelerate_same_machine_rank", "launcher", None,
     "cat > acc_multi_node.yaml <<'EOF'\n# This config template is for a multi-node setup. This assumes DDP, but can be interop'd with the other configs in this folder\n# Generally it's recommended to look at the SLURM config template for a more robust multi-node setup\ndistributed_type: MULTI_GPU\n# We need to specify the current machine's rank\nmachine_rank: 0\n# We then need to specify the IP address and port of the main process\nmain_process_ip: '10.98.0.11'\nmain_process_port: 29691\n# We need to specify the number of machines\nnum_machines: 2\n# We need to specify the *total* number of processes\nnum_processes: 4\n# And then we need to specify how rdvz comms will be handled \nrdzv_backend: static # or c10d\n# If the compute nodes are on the same network (cloud will more than likely be false)\nsame_network: true\nEOF\n"
     " echo '$ cat acc_multi_node.yaml   # same file copied to both machines'; cat acc_multi_node.yaml;"
     " n1 env GLOO_SOCKET_IFNAME=eth0 timeout -k 5 -s INT 45 $V/accelerate launch --config_file acc_multi_node.yaml train.py > n0.out 2>&1 & p0=$!;"
     " n2 env GLOO_SOCKET_IFNAME=eth0 timeout -k 5 -s INT 45 $V/accelerate launch --config_file acc_multi_node.yaml train.py > n1.out 2>&1; wait $p0;"
     " echo; echo '=== machine A (10.98.0.11) $ accelerate launch --config_file acc_multi_node.yaml train.py'; cat n0.out;"
     " echo; echo '=== machine B (10.98.0.12) $ accelerate launch --config_file acc_multi_node.yaml train.py'; cat n1.out", timeout=100)
case("torchrun_rdzv_endpoint_sshd_port", "launcher",
     "torchrun --nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.31:2322 train.py",
     "$V/torchrun --nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.31:2322 --rdzv-conf join_timeout=20,read_timeout=20 train.py", timeout=60)
case("mpirun_host_ssh_refused", "launcher", "mpirun -np 2 --host 127.0.0.41,127.0.0.42 python mpi_train.py",
     "mpirun -np 2 --host 127.0.0.41,127.0.0.42 $V/python mpi_train.py", timeout=40)
case("mpirun_host_key_unknown", "launcher", "mpirun -np 2 --host node1,node2 python mpi_train.py",
     ": > $SSHD/home/.ssh/known_hosts; $INNS mpirun --mca plm_rsh_args '-o BatchMode=yes' -np 2 --host node1,node2 $V/python mpi_train.py; rc=$?;"
     " cp $SSHD/known_hosts_good $SSHD/home/.ssh/known_hosts; exit $rc", timeout=40)
case("deepspeed_private_key_mode", "launcher", None,
     "printf 'node1 slots=1\\nnode2 slots=1\\n' > hostfile; echo '$ cat hostfile'; cat hostfile; chmod 644 $SSHD/home/.ssh/id_ed25519;"
     " echo '$ deepspeed --hostfile hostfile ds_train.py'; $INNS $V/deepspeed --hostfile hostfile ds_train.py; rc=$?;"
     " echo '$ ssh -o PasswordAuthentication=no node1 hostname'; $INNS ssh -o PasswordAuthentication=no -o BatchMode=yes node1 hostname; chmod 600 $SSHD/home/.ssh/id_ed25519; exit $rc", timeout=60)
case("deepspeed_pdsh_not_installed", "launcher", None,
     "printf 'node1 slots=1\\nnode2 slots=1\\n' > hostfile; mkdir -p nopdsh; for b in ssh python3 hostname bash env; do ln -sf $(command -v $b) nopdsh/$b; done;"
     " echo '$ deepspeed --hostfile hostfile ds_train.py'; $INNS env PATH=$V:/tmp/p8run/nopdsh $V/deepspeed --hostfile hostfile ds_train.py", timeout=60)
case("deepspeed_env_file_bad_line", "launcher", None,
     "printf 'node1 slots=1\\nnode2 slots=1\\n' > hostfile; mkdir -p dsenv; cd dsenv; cp ../ds_train.py ../hostfile .;"
     " printf 'NCCL_DEBUG=INFO\\n# cluster settings\\nGLOO_SOCKET_IFNAME=eth0\\nexport PYTHONPATH /shared/src\\n' > .deepspeed_env;"
     " echo '$ cat .deepspeed_env'; cat .deepspeed_env; echo '$ deepspeed --hostfile hostfile ds_train.py'; $INNS $V/deepspeed --hostfile hostfile ds_train.py", timeout=60)

case("srun_taskprolog_failed", "slurm", "srun -N1 -n2 python train.py",
     "touch /tmp/heldout-p8/slurm/fail_taskprolog; srun -N1 -n2 $V/python train.py; rc=$?; rm -f /tmp/heldout-p8/slurm/fail_taskprolog; exit $rc")
case("pdsh_ssh_config_perms", "launcher", "pdsh -R ssh -w node[1-2] nvidia-smi -L",
     "chmod 666 $SSHD/home/.ssh/config; $INNS pdsh -R ssh -w node[1-2] nvidia-smi -L; rc=$?; chmod 600 $SSHD/home/.ssh/config; exit $rc")
case("torchrun_restarts_truncated_ckpt", "usercode", "torchrun --nproc-per-node 2 --max-restarts 2 resume_train.py",
     "$V/torchrun --nproc-per-node 2 --max-restarts 2 --master-port 29741 resume_train.py", timeout=120)

# ------------------------------------------------------------------ (c) containers and OS
case("podman_shm_sharedmemory_bus_error", "environment",
     "podman run --rm -v $PWD:/work -w /work trainer:latest bash run_shm.sh",
     "$P --ulimit nproc=1024:1024 p8img bash run_shm.sh")
case("podman_readonly_root_filestore", "environment",
     "podman run --rm --read-only --read-only-tmpfs=false -v $PWD:/work -w /work trainer:latest python3 ro_store.py",
     "$P --ulimit nproc=1024:1024 --read-only --read-only-tmpfs=false p8img python3 ro_store.py")
case("podman_image_missing_libffi", "environment",
     "podman run --rm -v $PWD:/work -w /work trainer:slim python3 train.py",
     "$P --ulimit nproc=1024:1024 -e MASTER_ADDR=127.0.0.1 -e MASTER_PORT=29700 -e RANK=0 -e WORLD_SIZE=1 p8img-slim python3 train.py")
case("podman_compile_no_cxx", "environment",
     "podman run --rm -v $PWD:/work -w /work trainer:latest python3 compile_step.py",
     "$P --ulimit nproc=1024:1024 p8img python3 compile_step.py", timeout=120)
case("podman_uid_no_home_accelerate_config", "environment",
     "podman run --rm --user 4242 -v $PWD:/work -w /work trainer:latest python3 -m accelerate.commands.accelerate_cli config default",
     "$P --ulimit nproc=1024:1024 --user 4242 p8img python3 -m accelerate.commands.accelerate_cli config default", timeout=90)
case("podman_nproc_limit_threads", "environment",
     "podman run --rm --user 4242 --ulimit nproc=12:12 -v $PWD:/work -w /work trainer:latest python3 threads_train.py",
     "$P --ulimit nproc=12:12 --user 4242 p8img python3 threads_train.py", timeout=90)

# ------------------------------------------------------------------ (d) healthy
case("healthy_srun_queued_ntasks_warning", "healthy", None,
     "jid=$(sbatch --parsable -n2 -o /dev/null --wrap 'sleep 5'); sleep 1;"
     " echo '$ srun -N1 -n2 --ntasks-per-node=4 python train.py'; srun -N1 -n2 --ntasks-per-node=4 env MASTER_ADDR=127.0.0.1 MASTER_PORT=29711 $V/python -c \"import os; os.environ['RANK']=os.environ['SLURM_PROCID']; os.environ['WORLD_SIZE']=os.environ['SLURM_NTASKS']; import runpy; runpy.run_path('train.py', run_name='__main__')\"", timeout=90)
case("healthy_gloo_client_retry_late_server", "healthy", None,
     "echo '$ TORCH_CPP_LOG_LEVEL=INFO MASTER_ADDR=127.0.0.1 MASTER_PORT=29721 WORLD_SIZE=2 RANK=1 python late_rank.py &  # node B first'; echo '$ TORCH_CPP_LOG_LEVEL=INFO MASTER_ADDR=127.0.0.1 MASTER_PORT=29721 WORLD_SIZE=2 RANK=0 python late_rank.py';"
     " TORCH_CPP_LOG_LEVEL=INFO MASTER_ADDR=127.0.0.1 MASTER_PORT=29721 WORLD_SIZE=2 RANK=0 $V/python late_rank.py > r0.out 2>&1 & p0=$!;"
     " TORCH_CPP_LOG_LEVEL=INFO MASTER_ADDR=127.0.0.1 MASTER_PORT=29721 WORLD_SIZE=2 RANK=1 $V/python late_rank.py 2>&1; wait $p0; cat r0.out", timeout=60)
case("healthy_mpirun_btl_verbose", "healthy", "mpirun -np 2 --mca btl_base_verbose 30 python3 mpi_hello.py",
     "mpirun -np 2 --mca btl_base_verbose 30 python3 mpi_hello.py", timeout=40)
case("healthy_pdsh_accept_new_hostkeys", "healthy", "pdsh -R ssh -w node[1-2] 'nproc; df -h /dev/shm | tail -1'",
     ": > $SSHD/home/.ssh/known_hosts; $INNS env PDSH_SSH_ARGS_APPEND='-o StrictHostKeyChecking=accept-new' pdsh -R ssh -w node[1-2] 'nproc; df -h /dev/shm | tail -1'; rc=$?; cp $SSHD/known_hosts_good $SSHD/home/.ssh/known_hosts; exit $rc")
case("podman_no_hosts_torchrun_hostname", "environment",
     "podman run --rm --hostname trainer-7 --no-hosts -v $PWD:/work -w /work trainer:latest torchrun --nproc-per-node 2 train.py",
     "$P --ulimit nproc=1024:1024 --hostname trainer-7 --no-hosts p8img python3 -m torch.distributed.run --nproc-per-node 2 train.py", timeout=120)
case("healthy_container_no_hosts_gloo_fallback", "healthy",
     "podman run --rm --hostname trainer-7 --no-hosts -v $PWD:/work -w /work trainer:latest python3 spawn_gloo.py",
     "$P --ulimit nproc=1024:1024 --hostname trainer-7 --no-hosts p8img python3 spawn_gloo.py", timeout=90)
case("healthy_dataloader_workers_warning", "healthy", "python loader_train.py",
     "$V/python loader_train.py", timeout=90)
case("healthy_sbatch_torchrun_one_task", "healthy", None,
     "printf '#!/bin/bash\\n#SBATCH -N1 --ntasks-per-node=1 --cpus-per-task=2\\nexport MASTER_ADDR=$(hostname)\\nsrun torchrun --nnodes 1 --nproc-per-node 2 --master-addr $MASTER_ADDR --master-port 29731 train.py\\n' > job_ok.sh;"
     " echo '$ cat job_ok.sh'; cat job_ok.sh; echo '$ sbatch job_ok.sh';"
     " jid=$(sbatch --parsable -o slurm-%j.out --export=ALL,PATH=/tmp/heldout-p8/venv/bin:/usr/bin:/bin job_ok.sh); echo \"Submitted batch job $jid\"; jobwait $jid;"
     " echo \"\\$ cat slurm-$jid.out\"; cat slurm-$jid.out", timeout=120)

# ------------------------------------------------------------------ (e) told in words (the text gets the user's words in build_set.py)
case("words_pending_drained", "words", None,
     "scontrol update nodename=vm state=drain reason='bad DIMM, replace'; printf '#!/bin/bash\\n#SBATCH -N1 -n2\\nsrun python train.py\\n' > job_w.sh;"
     " echo '$ sbatch job_w.sh'; jid=$(sbatch --parsable job_w.sh); echo \"Submitted batch job $jid\"; sleep 3; echo '$ squeue -u $USER'; squeue; echo '$ sinfo'; sinfo -s;"
     " scancel $jid; scontrol update nodename=vm state=resume; idle", timeout=40)
case("words_mpirun_every_rank_zero", "words", "mpirun -np 2 python mpi_train.py",
     "mpirun -np 2 $V/python mpi_train.py", timeout=40)
case("words_sbatch_oom_stdout_only", "words", None,
     "printf '#!/bin/bash\\n#SBATCH -n1 --mem=200M\\n#SBATCH -o train-%%j.out\\n#SBATCH -e train-%%j.err\\npython3 load_data.py\\n' > job_mem.sh;"
     " echo '$ sbatch job_mem.sh'; jid=$(sbatch --parsable job_mem.sh); echo \"Submitted batch job $jid\"; jobwait $jid; echo \"\\$ cat train-$jid.out\"; cat train-$jid.out; cat train-$jid.err > train-last.err", timeout=60)

# long case, run in the background while the others run
LONG = ["srun_step_time_limit"]
case("srun_step_time_limit", "slurm", "srun -n1 -t 1 python3 -u loop.py",
     "srun -n1 -t 1 python3 -u loop.py", timeout=180)


def killed_to_ctrl_c(text):
    """A "node" stopped by the harness's timeout -k shows up as bash's job report on the harness
    shell ("environment: line 7:  1885 Killed  nsenter ..."); the user would have pressed Ctrl-C
    there, so the report becomes "^C" (also applied once to accelerate_same_machine_rank.log of run4)."""
    return re.sub(r"(?m)^environment: line \d+: +\d+ Killed +nsenter --net=\S+ \"\$@\"$", "^C", text)


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
    text = killed_to_ctrl_c(text)
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
    want = set(sys.argv[1:])
    mpath = os.path.join(LOGS, "manifest.json")
    results = json.load(open(mpath)) if os.path.exists(mpath) else {}
    todo = [c for c in C if not want or c["name"] in want]
    long = [c for c in todo if c["name"] in LONG]
    short = [c for c in todo if c["name"] not in LONG]
    slurm_short = [c for c in short if c["group"] in ("slurm",) or "srun" in c["cmd"] or "sbatch" in c["cmd"] or "scontrol" in c["cmd"]]
    other = [c for c in short if c not in slurm_short]
    for c in slurm_short:
        run_case(c, results)
        # a step whose srun was killed at the time limit keeps its job: cancel it before the next case
        subprocess.run(PRE + "scancel --user=root; idle", shell=True, executable="/bin/bash")
    threads = [threading.Thread(target=run_case, args=(c, results)) for c in long]
    for t in threads:
        t.start()
    for c in other:
        run_case(c, results)
    for t in threads:
        t.join()
    results["_machine"] = dict(
        uname=os.uname().release, hostname=os.uname().nodename,
        versions=subprocess.run("srun --version; mpirun --version | head -1; pdsh -V 2>&1 | head -1; podman --version; runc --version | head -1; "
                                "/tmp/heldout-p8/venv/bin/python -c 'import torch,accelerate,deepspeed,sys;print(sys.version.split()[0], torch.__version__, accelerate.__version__, deepspeed.__version__)' 2>/dev/null; ssh -V 2>&1",
                                shell=True, capture_output=True, text=True).stdout)
    json.dump(results, open(mpath, "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
