import json
D = "/tmp/heldout-p39/"
def T(name):
    s = open(D + "cases_" + name + ".txt", encoding="utf-8").read().rstrip("\n") + "\n"
    assert s.count("\n") <= 400, name
    return s
SRC = "planted-local-2026-11-27p39"
cases = [
 dict(name="mpi4py_recv_buffer_float32_vs_float64", f="trunc", cat="mpi", fam="mpi.usage",
      alt=["usercode.dtype_mismatch", "mpi.error"],
      fix="Rank 0 sends 1024 float64 values (8192 bytes) but rank 1 receives into a 1024-element float32 buffer (4096 bytes), so the message does not fit and Recv fails with MPI_ERR_TRUNCATE; allocate the receive buffer with the sender's dtype and size (np.empty(1024, dtype=np.float64)), or convert before sending.",
      kw=["receive buffer", "too small", "same dtype", "larger than"], group="mpi-usercode",
      note="planted: mpi4py Send of float64 vs Recv into float32 over --mca btl tcp,self (Open MPI 4.1.4, mpi4py 3.1.4); fix verified by re-running with a float64 receive buffer (rank 1 got the values, exit 0). Over the default shared-memory BTL the same bug corrupted the heap instead (free(): corrupted unsorted chunks), so the TCP run was recorded."),
 dict(name="mpi4py_allreduce_recvbuf_wrong_shape", f="allred", cat="mpi", fam="mpi.usage",
      alt=["usercode.shape_mismatch", "mpi.error"],
      fix="Allreduce needs send and receive buffers of the same size: grad has 32 elements (4x8) but avg was allocated with only 8; allocate the result like the input (np.zeros_like(grad) / np.zeros((4, 8))) or reduce a matching 8-element array.",
      kw=["same shape", "zeros_like", "same size", "(4, 8)"], group="mpi-usercode",
      note="planted: recv buffer np.zeros(8) for a (4, 8) send buffer; fix verified by re-running with np.zeros((4, 8)) (both ranks printed the averaged norm, exit 0)."),
 dict(name="mpi4py_finalize_called_mid_program", f="finalize", cat="mpi", fam="mpi.usage",
      alt=["mpi.error", "mpi.rank_died"],
      fix="The code calls MPI.Finalize() inside evaluate() and then keeps using MPI (comm.Get_size() -> MPI_Comm_size), which the standard forbids and Open MPI aborts on; drop the explicit MPI.Finalize() (mpi4py finalizes automatically at exit) or call it only as the very last MPI call.",
      kw=["MPI.Finalize", "at exit", "very end", "last MPI call"], group="mpi-usercode",
      note="planted: explicit MPI.Finalize() in a helper followed by comm.Get_size(); fix verified by removing the call (both ranks printed the mean score, exit 0)."),
 dict(name="mpiexec_timeout_env_left_set", f="mpitimeout", cat="mpi", fam="mpi.error",
      alt=["mpi.launch", "errno.timeout"],
      fix="MPIEXEC_TIMEOUT=10 is set in the environment (e.g. exported from a shell rc file or a module), so mpirun aborts the job after 10 s although the 30 iterations need about 15 s; unset MPIEXEC_TIMEOUT (or increase it / drop --timeout).",
      kw=["unset", "bashrc", "increase", "larger"], group="mpi-launch",
      note="planted: MPIEXEC_TIMEOUT=10 exported in the shell, not on the command line; fix verified by unsetting it (30/30 iterations, 'simulation finished', exit 0)."),
 dict(name="os_environ_master_port_int", f="envint", cat="user-code", fam="code.exception",
      alt=["torch.distributed_usage", "rendezvous.env_missing"],
      fix="os.environ values must be strings, and the worker assigns the int 37330 to MASTER_PORT; write os.environ['MASTER_PORT'] = '37330' (or str(port)).",
      kw=["str(", "string", "'37330'", "\"37330\""], group="launcher-env",
      note="planted: mp.spawn worker sets os.environ['MASTER_PORT'] = 37330; fix verified by quoting it (all_reduce ran on both ranks, exit 0)."),
 dict(name="torchrun_stdout_piped_to_head", f="pipe", cat="launcher", fam="errno.epipe",
      alt=["code.exception", "launcher"],
      fix="The output is piped into `head -n 20`, which exits after 20 lines and closes the pipe, so the ranks' next print raises BrokenPipeError (EPIPE/SIGPIPE) and torchrun tears the job down; redirect the output to a log file (torchrun ... > train.log 2>&1) and inspect it with head/less/tail -f instead.",
      kw=["SIGPIPE", "redirect", "log file", "closes the pipe"], group="launcher-shell",
      note="planted: `torchrun ... train.py | head -n 20` on a 3000-step DDP loop that prints every step; fix verified by writing to train.log and running head on the file (3000 steps on both ranks, exit 0)."),
 dict(name="sbatch_background_srun_without_wait", f="nowait", cat="slurm", fam="slurm.eslurmd_credential_revoked",
      alt=["slurm.eslurm_already_done", "slurm.step_wait", "slurm.error"],
      fix="The batch script starts both sruns in the background (&) and then ends without `wait`; when the batch script exits the job is complete, its credential is revoked and the steps are killed or refused. Add `wait` at the end of the script so the job lives until the background steps finish.",
      kw=["wait", "background", "script exits", "script ends"], group="slurm-script",
      note="planted on real Slurm 22.05 (single node): two backgrounded srun --exact steps and no wait; fix verified by appending `wait` (both runs printed their final loss)."),
 dict(name="worker_affinity_core_ids_from_bigger_node", f="affinity", cat="user-code", fam="usercode.dataloader_worker_exception",
      alt=["errno.einval", "code.exception"],
      fix="worker_init_fn pins each DataLoader worker to a core computed for 64-core nodes (LOCAL_RANK * 8 + 1 + worker_id), but this machine has only 2 CPUs, so os.sched_setaffinity gets a core that does not exist (EINVAL); derive the cores from os.sched_getaffinity(0) / os.cpu_count() (or drop the pinning).",
      kw=["sched_getaffinity", "cpu_count", "available cores", "only 2"], group="resources",
      note="planted: hard-coded CORES_PER_RANK=8 pinning on a 2-CPU host; fix verified by choosing cores modulo sorted(os.sched_getaffinity(0)) (both ranks finished the epoch, exit 0)."),
 dict(name="rpc_worker_names_from_local_rank", f="rpcname2", cat="user-code", fam="torch.distributed_usage",
      alt=["code.exception", "launcher.same_rank"],
      fix="The RPC worker names are built from LOCAL_RANK, which repeats on every node, so node 0's local rank 1 and node 1's local rank 1 both call themselves trainer1; RPC names must be unique across the job: build them from the global RANK (e.g. f'trainer{rank}').",
      kw=["global rank", "RANK instead", "trainer{rank}", "node rank"], group="torch-rpc",
      note="planted: two torchrun agents (--nnodes 2, node-rank 0/1, 2 procs each) on one host; fix verified by naming workers from RANK (trainer1..3 all received the weights, exit 0)."),
 dict(name="healthy_accelerate_fp16_cpu_two_procs", f="h_accfp16", cat="healthy", fam="healthy", alt=[], fix="", kw=[],
      group="healthy", note="healthy: accelerate launch --num_processes 2 on CPU with Accelerator(mixed_precision='fp16'); the defaults warning is informational; 2 epochs finished, exit 0."),
 dict(name="healthy_mpirun_oversubscribe_not_bound", f="h_mpi", cat="healthy", fam="healthy", alt=[], fix="", kw=[],
      group="healthy", note="healthy: mpirun --oversubscribe --report-bindings with 3 ranks on 2 CPUs; 'not bound' is expected when oversubscribed; the allreduce mean matches the expected value, exit 0."),
 dict(name="healthy_slurm_second_step_waits_for_cpus", f="h_slurmsteps", cat="healthy", fam="healthy", alt=[], fix="", kw=[],
      group="healthy", note="healthy: two backgrounded 2-task srun steps in a 2-CPU job, with wait; the second step waits ('step creation temporarily disabled') until the first ends, then both evaluations finish."),
]
with open(D + "explain_heldout_p39.jsonl", "w", encoding="utf-8") as out:
    for c in cases:
        h = c["fam"] == "healthy"
        row = dict(id="p39-" + c["name"], url="planted:p39-" + c["name"], source_repo=SRC, category=c["cat"],
                   text=T(c["f"]), family=c["fam"], family_alternatives=c["alt"], fix=c["fix"],
                   fix_keywords=c["kw"], healthy=h, group=c["group"], label_note=c["note"])
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
print(len(cases))
