#!/usr/bin/env python3
"""Builds explain_heldout_p41.jsonl from the recorded outputs under cases/ (trimming only)."""
import json, re, os
C = "/tmp/heldout-p41/cases"
def rd(name):
    return open(os.path.join(C, name), encoding="utf-8", errors="replace").read()
def norc(t):
    return "\n".join(l for l in t.rstrip("\n").split("\n") if not re.fullmatch(r"rc=\d+", l))
rows = []
def add(id_, category, group, text, family, alts, fix, kws, note, healthy=False):
    rows.append(dict(id="p41-" + id_, url="planted:p41-" + id_, source_repo="planted-cpu-2026-11-28-p41",
                     category=category, text=text.rstrip("\n"), family=family, family_alternatives=alts,
                     fix=fix, fix_keywords=kws, healthy=healthy, group=group, label_note=note))
V = "planted and fix verified by re-running"
add("send_to_own_rank_in_ring", "torch.distributed", "usercode",
    "$ torchrun --standalone --nproc-per-node=2 send_self.py\n" + rd("send_self.out"),
    "torch.distributed_usage", ["torch.usage"],
    "The ring exchange computes the send peer as the rank itself (peer = rank), and dist.send refuses to send to its own rank; send to the next rank, dst=(rank + 1) % world_size (rank 1's 'Connection closed by peer' is only the consequence of rank 0 exiting).",
    ["rank + 1", "itself", "own rank", "next rank"],
    V + ": with peer = (rank + 1) % world both ranks exchanged their buffers and exited 0.")
nproc = "\n".join(l for l in rd("nproc.out").split("\n") if l.strip() != "24")
add("nproc_ulimit_dataloader_cannot_start_thread", "resources", "limits",
    "$ torchrun --standalone --nproc-per-node=2 train_dl.py\n" + nproc,
    "errno.eagain", ["python.threading", "container.oci_ulimit"],
    "The user's max-processes limit (ulimit -u 24, RLIMIT_NPROC counts threads too) is too small for 2 ranks x 4 DataLoader workers plus their queue feeder threads, so thread creation fails with EAGAIN; raise ulimit -u (nproc in limits.conf / the scheduler) or use fewer workers.",
    ["ulimit -u", "max user processes", "RLIMIT_NPROC", "limits.conf", "process limit"],
    V + ": same user and command under ulimit -u 512 trained both epochs and exited 0.")
add("mpi4py_ring_send_past_last_rank", "mpi", "usercode",
    "$ mpirun --allow-run-as-root -np 2 python mpi_rank.py\n" + rd("mpi_rank.out"),
    "mpi.usage", ["mpi.error"],
    "The ring neighbours are computed without wrap-around: the last rank sends to rank+1 == size (MPI_ERR_RANK) and rank 0 receives from -1 (MPI_ANY_SOURCE), so rank 0 waits forever; use dest=(rank + 1) % size and source=(rank - 1) % size.",
    ["% size", "modulo", "wrap around", "wrap-around", "PROC_NULL"],
    V + ": with the modulo neighbours both ranks received their shard and mpirun exited 0 (the failing run hung after the traceback until interrupted).")
add("checkpoint_loaded_while_rank0_still_writing", "torch.distributed", "usercode",
    "$ torchrun --standalone --nproc-per-node=2 resume.py\n" + rd("resume.out"),
    "torch.checkpoint_load", ["torch.ranks_diverge", "torch.distributed_usage"],
    "Rank 1 opens ckpt/last.pt as soon as the file exists, while rank 0's torch.save is still writing it, so it reads a truncated zip; make the other ranks wait with dist.barrier() after rank 0's save (or save to a temp name and rename) before loading.",
    ["barrier", "still being written", "partially written", "rename", "not finished"],
    V + ": replacing the poll-for-file loop by dist.barrier() made both ranks resume from epoch 3, exit 0.")
add("iterable_dataset_with_distributed_sampler", "torch.data", "usercode",
    "$ torchrun --standalone --nproc-per-node=2 stream_train.py\n" + rd("stream.out"),
    "torch.usage", ["torch.no_distributed_sampler", "torch.distributed_usage"],
    "A DataLoader over an IterableDataset takes no sampler, so DistributedSampler is refused; drop the sampler and shard the stream inside __iter__ by rank (e.g. take every world_size-th item starting at get_rank()), or use a map-style Dataset.",
    ["remove&sampler", "drop&sampler", "shard", "get_rank", "map-style"],
    V + ": without the sampler and with per-rank sharding in __iter__ the loop ran, exit 0.")
add("srun_wait_kills_rank0_final_eval", "slurm", "launcher",
    "$ cat job.sbatch\n" + rd("job.sbatch") + "$ sbatch job.sbatch\nSubmitted batch job 1\n$ cat job-1.out\n" + rd("srun_wait.out"),
    "slurm.error", ["slurm.job_env"],
    "srun --wait=10 terminates the step 10 s after the first task exits; rank 1 finished while rank 0 was still doing its final evaluation and save, so Slurm killed it (137) before final.pt was written. Remove --wait (default 0 = no limit) or keep all ranks alive until rank 0 is done (e.g. a final barrier).",
    ["remove&wait", "drop&wait", "wait=0", "without&wait", "barrier"],
    V + ": the same job with plain srun ran all 8 eval shards, saved final.pt, srun exit code 0 (case p41-healthy_slurm_rank0_long_eval).")
nx = [l for l in rd("runjob.out").split("\n") if not l.startswith("++") and not re.fullmatch(r"rc=\d+", l)]
add("venv_on_noexec_scratch", "environment", "filesystem",
    "\n".join(nx),
    "errno.eacces", ["errno.permission", "code.python_env"],
    "The virtualenv lives on a filesystem mounted noexec (the job scratch tmpfs): its torchrun script cannot be executed (Permission denied) and torch's shared libraries cannot be mmap'ed executable (failed to map segment from shared object); put the venv on a filesystem mounted with exec (or remount the scratch without noexec).",
    ["noexec", "remount", "mounted&exec", "mount option"],
    V + ": the same venv install on the same tmpfs mounted without noexec ran both torchrun and python -m torch.distributed.run, exit 0.")
add("alltoall_output_splits_not_exchanged", "torch.distributed", "usercode",
    rd("moe.out"),
    "torch.distributed_usage", ["torch.collective_mismatch"],
    "output_split_sizes is assumed to be n_tokens/world from every peer, but each rank's input_split_sizes come from its router counts, so the send and receive sizes disagree (gloo alltoallv enforce fail); first exchange the per-peer counts with an all_to_all_single of the split sizes and use the received counts as output_split_sizes.",
    ["exchange", "recv_counts", "receive counts", "counts first", "token counts"],
    V + ": exchanging the counts first made all three dispatch steps run on both ranks, exit 0.")
add("sparse_embedding_grad_allreduce_avg_gloo", "torch.distributed", "usercode",
    rd("rec.out"),
    "torch.distributed_usage", ["torch.usage"],
    "The embedding uses sparse=True, so its gradient is a sparse tensor, and Gloo all-reduces sparse tensors only with SUM; all_reduce with SUM and divide by the world size (or let DistributedDataParallel average the gradients).",
    ["divide", "div_", "world_size", "DistributedDataParallel"],
    V + ": SUM followed by p.grad.div_(world) trained 50 steps on both ranks, exit 0.")
add("healthy_two_node_gloo_static_rdzv", "torch.distributed", "healthy",
    norc(rd("h2node_a.out")) + "\n" + norc(rd("h2node_b.out")),
    "healthy", [], "", [],
    "planted healthy: two network namespaces joined by a veth pair as two nodes, static rendezvous, 4 gloo ranks; both torchrun exited 0 and parameters are identical on all ranks (the 'hostname of the client socket cannot be retrieved' warnings are harmless here).",
    healthy=True)
add("healthy_mpirun_mpi4py_allreduce", "mpi", "healthy",
    rd("mpi_healthy.out"),
    "healthy", [], "", [],
    "planted healthy: Open MPI 4.1.4 + mpi4py, 2 ranks, 300 Allreduce steps, weights agree, mpirun exit 0.",
    healthy=True)
add("healthy_slurm_rank0_long_eval", "slurm", "healthy",
    "$ cat job-2.out\n" + rd("job-2.out"),
    "healthy", [], "", [],
    "planted healthy: Slurm 22.05 job, 2 tasks with gloo DDP; rank 1 exits after training while rank 0 evaluates for about 2 minutes and saves; srun exit code 0.",
    healthy=True)
for r in rows:
    if r["healthy"]:
        r["fix"] = ""; r["fix_keywords"] = []
with open("/tmp/heldout-p41/explain_heldout_p41.jsonl", "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), "rows,", sum(r["healthy"] for r in rows), "healthy")
