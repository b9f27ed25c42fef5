#!/usr/bin/env python3
"""Assemble explain_heldout_p48.jsonl from the recorded outputs in cases/ (real outputs, untrimmed)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))
SRC = "planted-cpu-2026-11-28-p48"
V = "planted and fix verified by re-running: "
C = [
 ("mpi_oob_if_missing", "mpi", "launcher", "mpi.btl_tcp_if", ["mpi.transport", "mpi.error"],
  "oob_tcp_if_include names an interface (ib0) that does not exist on this host, so mpirun has no network for its out-of-band/control channel; name an interface that exists (check `ip addr`, e.g. eth0 or lo here) or drop the parameter.",
  ["ip addr", "interface&exist", "eth0"],
  V + "the same mpirun with --mca oob_tcp_if_include lo ran both ranks and the allreduce (case healthy_mpirun_oob_lo)."),
 ("healthy_mpirun_oob_lo", "mpi", "healthy", "healthy", [], "", [],
  "planted healthy: Open MPI 4.1.4, 2 ranks with oob restricted to lo, allreduce printed by both ranks, exit 0."),
 ("mpi_hostfile_max_slots_below_slots", "mpi", "launcher", "prrte.hostfile.max_slots_lt", ["mpi.slots", "mpi.error"],
  "The hostfile line gives max_slots (2) smaller than slots (4), which Open MPI rejects as a bad hostfile parameter; make max_slots >= slots (e.g. 'vm slots=2 max_slots=4') or drop max_slots.",
  ["max_slots=4", "at least", "drop max_slots", "remove max_slots"],
  V + "hostfile 'vm slots=2 max_slots=4' ran both ranks (exit 0)."),
 ("podman_add_host_equals", "podman", "container", "container.oci_network", ["container.oci_runtime"],
  "podman's --add-host takes HOST:IP (colon), not HOST=IP; write --add-host node0:10.0.0.1 --add-host node1:10.0.0.2.",
  ["node0:10.0.0.1", "host:ip", "colon"],
  V + "with --add-host node0:10.0.0.1 the container started and getent resolved node0/node1 from its /etc/hosts."),
 ("podman_cap_add_dash", "podman", "container", "container.oci_security", ["container.oci_runtime"],
  "The capability name is misspelled: Linux capabilities use underscores, so it is --cap-add IPC_LOCK (CAP_IPC_LOCK), not IPC-LOCK.",
  ["IPC_LOCK", "underscore"],
  V + "--cap-add IPC_LOCK started the container (CapEff shown, 1 GiB /dev/shm)."),
 ("podman_ipc_host_with_shm_size", "podman", "container", "container.oci_shm", ["container.shm_too_small", "container.oci_runtime"],
  "--shm-size cannot be combined with --ipc=host: with the host IPC namespace the container uses the host's /dev/shm. Drop --shm-size (keep --ipc=host), or drop --ipc=host and keep --shm-size 8g.",
  ["remove&shm-size", "drop&shm-size", "without --shm-size", "either"],
  V + "the same command without --shm-size started and showed the host's /dev/shm (24G)."),
 ("torchrun_log_dir_is_file", "torchrun", "launcher", "torch.distributed_usage", ["torch.usage"],
  "torchrun's --log-dir must be a directory, but train.log is an existing file (left from an earlier tee); pass a directory such as --log-dir logs/run1 (or move the old file away).",
  ["logs/", "folder", "rename", "remove&train.log"],
  V + "--log-dir logs/run1 ran both ranks and torchrun created logs/run1/<run_id>/attempt_0."),
 ("slurm_signal_minutes_suffix", "slurm", "scheduler", "slurm.option_refused", ["slurm.error"],
  "--signal=[B:]SIG[@TIME] takes the lead time in seconds as a plain integer; '5m' is not accepted. Write #SBATCH --signal=B:USR1@300.",
  ["@300", "seconds", "integer"],
  V + "--signal=B:USR1@300 was accepted and the job ran (case healthy_slurm_signal_seconds)."),
 ("healthy_slurm_signal_seconds", "slurm", "healthy", "healthy", [], "", [],
  "planted healthy: sbatch with --signal=B:USR1@300 on a single-node Slurm 22.05, torchrun 2 gloo ranks, 3 steps each, exit 0; the NumPy UserWarning is harmless."),
]
FILES = {"healthy_mpirun_oob_lo": "mpi_oob_if_fixed", "healthy_slurm_signal_seconds": "slurm_signal_seconds"}
with open(os.path.join(D, "explain_heldout_p48.jsonl"), "w", encoding="utf-8") as f:
    for cid, repo, cat, fam, alts, fix, kw, note in C:
        text = open(os.path.join(D, "cases", FILES.get(cid, cid) + ".txt"), encoding="utf-8").read().rstrip("\n") + "\n"
        h = fam == "healthy"
        f.write(json.dumps({"id": "p48-" + cid, "url": "planted:%s/%s" % (SRC, cid), "source_repo": SRC + "/" + repo,
            "category": cat, "text": text, "family": fam, "family_alternatives": alts, "fix": fix, "fix_keywords": kw,
            "healthy": h, "group": "planted-infra", "label_note": note}) + "\n")
print(len(C))
