#!/usr/bin/env python3
"""Assemble explain_heldout_p45.jsonl from the recorded outputs in cases/ (texts are real outputs, trimmed only)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SRC = "planted-cpu-2026-11-28-p45"
C = [
 ("slurm_time_90min", "slurm", "scheduler", "slurm.eslurm_invalid_time_value", ["slurm.eslurm_invalid_time_limit", "slurm.error"],
  "sbatch's --time takes minutes or [D-]HH:MM:SS, not a unit suffix such as '90min'; write --time=01:30:00 (or --time=90).",
  ["1:30:00", "hh:mm:ss", "minutes", "01:30"],
  "planted and fix verified by re-running: with --time=01:30:00 the same script was accepted and both ranks on gn1/gn2 finished (case p45-healthy_slurm_two_node_time_hms)."),
 ("healthy_slurm_two_node_time_hms", "slurm", "healthy", "healthy", [], "", [],
  "planted healthy: 2-node Slurm (two slurmd in network namespaces), srun started one gloo rank per node, 3 DDP steps, both ranks 'done'; the 'hostname of the client socket cannot be retrieved' warnings are harmless."),
 ("slurm_threads_per_core_2", "slurm", "scheduler", "slurm.node_config", ["slurm.eslurm_requested_node_config_unavailable", "slurm.eslurm_bad_thread_per_core"],
  "The nodes have ThreadsPerCore=1 (no hyperthreading/SMT), so #SBATCH --threads-per-core=2 can never be satisfied; remove that directive (or use 1) as the script was copied from a hyperthreaded cluster.",
  ["ThreadsPerCore", "hyperthread", "remove&threads-per-core", "threads-per-core=1"],
  "planted and fix verified by re-running: without --threads-per-core the job (cpus-per-task=2) ran on gn1 and gn2 and both ranks finished; scontrol show node gn1 reports ThreadsPerCore=1."),
 ("slurm_cpus_per_task_over_node", "slurm", "scheduler", "slurm.node_config", ["slurm.eslurm_too_many_requested_cpus"],
  "Each node has only 2 CPUs, so one task per node with --cpus-per-task=4 cannot fit on any node; lower --cpus-per-task to at most the node's CPU count (2).",
  ["cpus-per-task=2", "-c 2", "lower&cpus-per-task", "reduce&cpus-per-task"],
  "planted and fix verified by re-running: with --cpus-per-task=2 the job ran on both nodes and both ranks finished."),
 ("mpi_rankfile_slot_beyond_cores", "mpi", "mpi", "mpi.error", ["mpi.slots", "mpi.launch"],
  "The rankfile (written for a 4-core node) binds ranks 2 and 3 to slots 2 and 3, but this host has only 2 cores (0-1); Open MPI's rank_file mapper fails and mpirun exits 1 without a message. Use only existing cores in the rankfile (e.g. slots 0,1,0,1) or start fewer ranks.",
  ["0-1", "2 cores", "two cores", "does not exist", "nonexistent"],
  "planted and fix verified by re-running: the rankfile with slots 0,1,0,1 ran all 4 ranks, allreduce sum 10.0, exit 0 (case p45-healthy_mpi_rankfile_two_cores). The silent exit 1 is Open MPI 4.1.4 (Debian) behaviour here."),
 ("healthy_mpi_rankfile_two_cores", "mpi", "healthy", "healthy", [], "", [],
  "planted healthy: Open MPI rankfile binding 4 ranks to cores 0,1,0,1 on a 2-core host; --report-bindings shows the bindings, allreduce sum 10.0 on every rank, exit 0."),
 ("mpi_npernode1_single_host", "mpi", "mpi", "mpi.slots", ["mpi.error", "mpi.launch"],
  "--npernode 1 allows one process per node, and without a hostfile (or --host) mpirun knows only this one host, so -np 2 cannot be placed; pass the second node (--hostfile / --host node1,node2) or allow 2 processes per node (--npernode 2, or drop --npernode).",
  ["hostfile", "--host", "npernode 2", "drop&npernode", "remove&npernode"],
  "planted and fix verified by re-running: with --npernode 2 on the same host both ranks ran (sum 3.0, exit 0); the 'ppr for this topology' message names the 1:node limit."),
 ("netns_node_wrong_subnet", "network", "network", "rendezvous.connect", ["errno.enetunreach"],
  "node1's eth0 was configured as 10.45.1.2/24, a different subnet from the master 10.45.0.1/24 on the same link, so node1 has no route to the master and every connect fails with 'Network is unreachable'; give node1 an address in 10.45.0.0/24 (e.g. 10.45.0.2/24) or add a route.",
  ["subnet", "10.45.0.2", "netmask", "ip route add", "same network"],
  "planted and fix verified by re-running: two network namespaces joined by a veth pair; after changing node1 to 10.45.0.2/24 both nodes joined the rendezvous, trained and reported params in sync (GLOO_SOCKET_IFNAME=eth0 was set on both because the namespaces share the hostname 'vm' that resolves to 127.0.0.1; rank 1 then aborted at teardown with 'terminate called without an active exception', a separate gloo exit race, after training completed)."),
 ("podman_pids_limit_threads", "container", "container", "container.oci_cgroup", ["python.threading", "errno.eagain", "container.oci_ulimit"],
  "--pids-limit 20 caps the container's tasks (processes and threads, the pids cgroup) at 20; torchrun, two ranks, their DataLoader workers and the threads they start exceed it, so thread creation fails ('can't start new thread'). Raise or remove the limit (e.g. --pids-limit 512, or -1 for none).",
  ["pids.max", "pids cgroup", "pids-limit -1", "pids-limit=-1", "pids-limit 512"],
  "planted and fix verified by re-running: the same podman command with --pids-limit 512 trained both epochs on both ranks, exit 0 (case p45-healthy_podman_pids_limit_512); pids.max inside the container was confirmed to follow --pids-limit."),
 ("healthy_podman_pids_limit_512", "container", "healthy", "healthy", [], "", [],
  "planted healthy: rootful podman (runc, cgroupfs) running torchrun with 2 gloo ranks and 2 DataLoader workers each under --pids-limit 512; 2 epochs, exit 0; the OMP_NUM_THREADS banner is informational."),
 ("pdsh_genders_group_no_db", "ssh", "ssh", "pdsh.error", ["ssh.pdsh"],
  "pdsh -g selects hosts by an attribute in the genders database, and this host has no /etc/genders; list the hosts with -w (e.g. -w gn[1-2]) or create a genders file that gives the nodes the gpu attribute (or point pdsh at one with -F).",
  ["-w ", "-F ", "create&genders", "wcoll"],
  "planted and fix verified by re-running: with a genders file ('gn1 gpu,compute', 'gn2 gpu,compute') passed by -F, pdsh -g gpu expanded to gn1 and gn2 (checked with -R exec); pdsh 2.34 here has the genders misc module."),
 ("slurm_output_tilde", "slurm", "scheduler", "slurm.job_env", ["slurm.error", "slurm.reason.fail_launch"],
  "#SBATCH lines are not read by a shell, so '~' is not expanded: Slurm took ~/runs/... relative to the submit directory (/tmp/heldout-p45/w/~/runs/, which does not exist), so the job failed at launch (JobLaunchFailure) and wrote no output. Use an absolute path in --output/--error (e.g. /tmp/heldout-p45/home/runs/ddp-smoke-%j.out).",
  ["absolute path", "tilde", "not expanded", "$home", "full path"],
  "planted and fix verified by re-running: with absolute --output/--error paths the job ran and ddp-smoke-11.out/.err appeared in ~/runs with both ranks done; scontrol show job shows StdOut under the submit dir's literal '~' directory."),
 ("mpi_btl_tcp_port_range_one", "mpi", "mpi", "mpi.transport", ["mpi.error", "mpi.btl_tcp_if"],
  "The user's ~/.openmpi/mca-params.conf (written for a firewall that opens one port) sets btl_tcp_port_min_v4=46000 and btl_tcp_port_range_v4=1, so only one TCP BTL listening port exists per host; with 2 ranks on the host the second cannot bind, the TCP BTL drops out and MPI_Init aborts (only 'self' left). Make btl_tcp_port_range_v4 at least the number of ranks per node (and open that range in the firewall), or remove these settings.",
  ["port_range", "mca-params.conf", "range_v4", "ranks per node", "widen"],
  "planted and fix verified by re-running: with btl_tcp_port_range_v4 = 8 in the same mca-params.conf both ranks ran (sum 3.0, exit 0); with range 1 and -np 1 (same settings given as OMPI_MCA_ variables) the run also works, so one port serves only one rank per host."),
]
with open(os.path.join(D, "explain_heldout_p45.jsonl"), "w", encoding="utf-8") as f:
    for name, cat, group, fam, alts, fix, kws, note in C:
        text = open(os.path.join(D, "cases", name + ".txt"), encoding="utf-8").read().rstrip("\n")
        healthy = fam == "healthy"
        f.write(json.dumps({"id": "p45-" + name, "url": "planted:p45-" + name, "source_repo": SRC, "category": cat,
                            "text": text, "family": fam, "family_alternatives": alts, "fix": fix, "fix_keywords": kws,
                            "healthy": healthy, "group": group, "label_note": note}, ensure_ascii=False) + "\n")
print(len(C), "cases,", sum(1 for c in C if c[3] == "healthy"), "healthy")
