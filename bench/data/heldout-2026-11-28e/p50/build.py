#!/usr/bin/env python3
"""Assemble explain_heldout_p50.jsonl from the recorded outputs in cases/ (real outputs, untrimmed)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SRC = "planted-cpu-2026-11-28-p50"
V = "planted and fix verified by re-running: "
C = [
 ("slurm_cpu_bind_map_outside", "slurm", "scheduler", "slurm.eslurmd_cpu_bind_error", ["slurm.option_refused", "slurm.node_config"],
  "--cpu-bind=map_cpu:0,4 names CPU 4, which is outside the job step's allocation (this node has CPUs 0-1), so slurmstepd refuses the bind; give CPU ids inside the allocation (map_cpu:0,1) or let Slurm bind with --cpu-bind=cores.",
  ["map_cpu:0,1", "cpu-bind=cores", "inside the allocation", "lscpu"],
  V + "srun --ntasks=2 --cpu-bind=verbose,cores bound task 0 to CPU 0 and task 1 to CPU 1 and both ran; map_cpu:0,1 also ran (Slurm 22.05, TaskPlugin=task/affinity)."),
 ("slurm_task_prolog_relative", "slurm", "scheduler", "slurm.prolog", ["slurm.job_env", "slurm.option_refused"],
  "srun --task-prolog needs a fully qualified (absolute) path to an executable; 'task_prolog.sh' is relative, so slurmstepd refuses to run it and every task exits 1. Pass --task-prolog=$SLURM_SUBMIT_DIR/task_prolog.sh (chmod +x).",
  ["absolute", "$SLURM_SUBMIT_DIR", "full path", "$PWD"],
  V + "with --task-prolog=$SLURM_SUBMIT_DIR/task_prolog.sh both tasks ran and saw the exported GLOO_SOCKET_IFNAME/OMP_NUM_THREADS (case healthy_slurm_task_prolog_abs)."),
 ("slurm_srun_relative_beyond_alloc", "slurm", "scheduler", "slurm.option_refused", ["slurm.one_node_used", "slurm.node_config"],
  "srun --relative=1 asks for the job's second node, but the job only has one node (no --nodes=2 was requested), so the second step is refused and only the first runs. Request two nodes (#SBATCH --nodes=2 --ntasks-per-node=1) or drop --relative=1 to run both steps on the one node.",
  ["--nodes=2", "-N 2", "-N2", "one node"],
  V + "without --relative=1 both steps ran on the single node (tasks on CPU 0 and CPU 1); the two-node variant was not run (single-node Slurm here)."),
 ("pdsh_u_command_timeout", "pdsh", "launcher", "pdsh.error", ["ssh.pdsh", "pdsh.option_refused"],
  "pdsh -u N is a remote command timeout: pdsh kills the ssh after 30 s, cutting the training run off mid-way (the remote torchrun keeps running orphaned). Drop -u (or set it longer than the run); the connect timeout is -t.",
  ["drop -u", "remove -u", "without -u", "connect timeout", "-t "],
  V + "the same pdsh command with -t 10 and no -u ran all 30 steps on both ranks and exited 0 (case healthy_pdsh_torchrun_no_u). After the failing run the remote torchrun and its 2 ranks were still running (seen in ps) and finished on their own."),
 ("mpi_vader_backing_dir_missing", "openmpi", "launcher", "mpi.transport", ["mpi.error"],
  "btl_vader_backing_directory points at /local/scratch, which does not exist on this node, so the shared-memory BTL cannot create its segment files and only 'self' is left; point it at an existing writable directory (mkdir it first) or drop the parameter to use the default /dev/shm.",
  ["mkdir", "exist", "/dev/shm", "drop&backing_directory", "remove&backing_directory"],
  V + "after mkdir -p of the backing directory the same mpirun ran both ranks and the allreduce (exit 0). The failing output varies run to run (show_help race); the recorded run shows the 'could be created' lines and the 'unable to reach each other' help."),
 ("mpi_tcp_if_include_and_exclude", "openmpi", "launcher", "mpi.btl_tcp_if", ["prrte.oob-tcp.include_exclude", "mpi.transport"],
  "btl_tcp_if_include and btl_tcp_if_exclude are mutually exclusive; with both set the TCP BTL drops out and the ranks cannot reach each other. Set only one of them (keep btl_tcp_if_include and drop btl_tcp_if_exclude).",
  ["only one", "drop&exclude", "remove&exclude", "just one", "not both"],
  V + "with only --mca btl_tcp_if_include lo the same mpirun (btl self,tcp) ran both ranks and the allreduce (exit 0). Several failing runs did not print the 'mutually-exclusive' help (show_help race); the recorded one does."),
 ("podman_uts_host_hostname", "podman", "container", "container.oci_network", ["container.oci_runtime"],
  "--hostname cannot be set together with --uts=host: the container shares the host's UTS namespace and hence its hostname. Drop --hostname and use the host's name (e.g. MASTER_ADDR=$(hostname)), or drop --uts=host if the container must be called node0.",
  ["drop&--hostname", "remove&--hostname", "without --hostname", "$(hostname)", "drop&--uts"],
  V + "the same podman run without --hostname (MASTER_ADDR=$(hostname)) started, printed the host name and resolved it."),
 ("torchrun_nproc_zero_from_nvidia_smi", "torchrun", "launcher", "torch.distributed_usage", ["torch.usage"],
  "$(nvidia-smi -L | wc -l) evaluated to 0 on this node (no nvidia-smi / no visible GPU), so torchrun got --nproc-per-node=0 and the WorkerSpec check (local world size must be > 0) raised a bare AssertionError. Pass a positive process count (e.g. --nproc-per-node=2 here) or fix GPU visibility first.",
  ["zero", "positive", "nproc-per-node=2", "0 gpus", "no gpus"],
  V + "--nproc-per-node=2 ran both ranks for 3 steps (exit 0)."),
 ("healthy_pdsh_torchrun_no_u", "pdsh", "healthy", "healthy", [], "", [],
  "planted healthy: pdsh -R ssh -t 10 to a node (own sshd), torchrun 2 gloo ranks, 30 steps each, exit 0; the OMP_NUM_THREADS banner is normal."),
 ("healthy_slurm_task_prolog_abs", "slurm", "healthy", "healthy", [], "", [],
  "planted healthy: sbatch with srun --task-prolog=$SLURM_SUBMIT_DIR/task_prolog.sh on single-node Slurm 22.05; both tasks print the variables exported by the task prolog."),
]
FILES = {"healthy_pdsh_torchrun_no_u": "pdsh_no_u_fixed", "healthy_slurm_task_prolog_abs": "slurm_task_prolog_fixed"}
with open(os.path.join(D, "explain_heldout_p50.jsonl"), "w", encoding="utf-8") as f:
    for cid, repo, cat, fam, alts, fix, kw, note in C:
        text = open(os.path.join(D, "cases", FILES.get(cid, cid) + ".txt"), encoding="utf-8").read().rstrip("\n") + "\n"
        h = fam == "healthy"
        f.write(json.dumps({"id": "p50-" + cid, "url": "planted:%s/%s" % (SRC, cid), "source_repo": SRC + "/" + repo,
            "category": cat, "text": text, "family": fam, "family_alternatives": alts, "fix": fix, "fix_keywords": kw,
            "healthy": h, "group": "planted-infra", "label_note": note}) + "\n")
print(len(C))
