# labels written after reading each log and before any scoring; no gpudoctor code is run on these texts
import json
SR = "planted-cpu-2026-11-27-p37"
def text(log):
    return open(f"/tmp/heldout-p37/logs/{log}.raw").read().rstrip("\n")
C = []
def add(name, log, category, family, alts, fix, kws, group, note, healthy=False):
    C.append(dict(id=f"p37-{name}", url=f"planted:p37-{name}", source_repo=SR, category=category, text=text(log),
                  family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy, group=group,
                  label_note=note))
add("ce_labels_column_2d", "labels_2d", "torch", "usercode.shape_mismatch", [],
    "The labels are taken as an (N,1) column, but CrossEntropyLoss wants 1-D class indices of shape (N,): squeeze the label column (y.squeeze(1) / y.view(-1)) before the loss.",
    ["squeeze", "view(-1)", "1-D", "shape (N,)"], "usercode",
    "Planted: y = (X[:, :1] > 0).long() keeps the (N,1) shape. Fix verified: the same run with .squeeze(1) trained both epochs and exited 0 (logs/labels_2d_fix.raw; a first fix run also trained both epochs but aborted at exit with 'terminate called without an active exception', a teardown abort unrelated to the labels, see README). rc 1.")
add("ddp_forward_rank0_eval_buffer_broadcast", "eval_ddp_rank0", "torch.distributed", "torch.collective_mismatch", ["gloo.timeout"],
    "Rank 0 evaluates alone through the DDP-wrapped model, whose forward broadcasts the BatchNorm buffers (a collective) while rank 1 already waits in dist.barrier(): evaluate on rank 0 with the unwrapped model.module (or run evaluation on every rank, or broadcast_buffers=False).",
    ["model.module", "unwrap", "broadcast_buffers"], "usercode",
    "Planted: rank-0-only evaluation with model(x) on the DDP wrapper in train mode; DDP _sync_buffers broadcasts on rank 0 only, rank 1 is in barrier, both time out after the 60 s process-group timeout. Fix verified: model.module(x) for the rank-0 evaluation ran both epochs on both ranks (logs/eval_ddp_rank0_fix.raw). rc 1.")
add("dev_shm_read_only_loader", "shm_readonly", "torch.dataloader", "usercode.dataloader_shm", ["container.oci_shm", "errno.permission"],
    "/dev/shm is mounted read-only, so the DataLoader's worker queue cannot create its POSIX semaphore there (EROFS): give the job a writable /dev/shm (remount it read-write, or a writable tmpfs /dev/shm in the container), or use num_workers=0.",
    ["writable", "read-write", "remount", "tmpfs"], "infra",
    "Planted: the run is wrapped in unshare -m with /dev/shm bind-remounted ro (wrap file, not shown in the text, as a container's read-only mount would be). Fix verified: the same command with /dev/shm writable trained (logs/shm_readonly_fix.raw). The run of this text is the second one (the first, logs/shm_readonly.first.raw, showed the mount in the command line). rc 1.")
add("bincount_length_differs_per_rank", "bincount_shape", "torch.distributed", "gloo.size_mismatch", ["torch.collective_mismatch", "gloo.enforce"],
    "torch.bincount returns max(label)+1 entries, and rank 1's shard has no class-4 sample, so the ranks all_reduce tensors of different lengths (8 vs 16 bytes): use torch.bincount(..., minlength=num_classes) so every rank reduces the same length.",
    ["minlength", "same length", "num_classes entries"], "usercode",
    "Planted: even rows have labels 0..4, odd rows 0..3 (DistributedSampler shuffle=False gives rank 1 the odd rows). Fix verified: minlength=5 printed per-class accuracy for 5 classes (logs/bincount_shape_fix.raw). rc 1.")
add("mp_spawn_inside_torchrun", "spawn_under_torchrun", "torchrun", "launcher.same_rank", ["torch.distributed_usage", "slurm.launcher_times_tasks"],
    "The script starts its own ranks with torch.multiprocessing.spawn and is also launched by torchrun with 2 processes, so two independent rank-0/rank-1 pairs (4 processes) meet on torchrun's MASTER_PORT: use one launcher, either `python train.py` (the script spawns the ranks) or torchrun with the worker taking RANK/WORLD_SIZE from the environment and no spawn.",
    ["python train.py", "one launcher", "single launcher", "not both"], "launcher",
    "Planted: mp.spawn(nprocs=2) in __main__ under torchrun --nproc-per-node 2; MASTER_ADDR/PORT setdefault keeps torchrun's 29500 for both pairs. Fix verified: `python train.py` ran both ranks to 'done' (logs/spawn_under_torchrun_fix.raw). rc 1.")
add("no_python_wrapper_env_i", "env_clean_wrapper", "torchrun", "rendezvous.env_missing", [],
    "The --no-python wrapper run_rank.sh starts python under `env -i`, which wipes RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT that torchrun set for each worker: drop env -i from the wrapper (or pass those variables through explicitly).",
    ["env -i", "clean environment", "pass through", "pass the variables"], "launcher",
    "Planted: run_rank.sh = exec env -i PATH HOME OMP_NUM_THREADS=1 python train.py (the wrapper's content is not in the text). Fix verified: the wrapper with plain `exec python train.py` trained (logs/env_clean_wrapper_fix.raw). rc 1.")
add("torchrun_ignores_master_addr_env", "master_addr_env_ignored", "torchrun", "launcher.loopback_master", ["rendezvous.connect", "elastic.rendezvous_localhost"],
    "torchrun does not read MASTER_ADDR/MASTER_PORT from the environment; without --master-addr/--master-port node 1 uses the defaults 127.0.0.1:29500 and waits on its own loopback: pass --master-addr traina --master-port 29537 (or PET_MASTER_ADDR/PET_MASTER_PORT).",
    ["--master-addr", "--master_addr", "PET_MASTER_ADDR"], "infra",
    "Planted: two network namespaces (traina 10.37.0.1, trainb 10.37.0.2, own hostnames and /etc/hosts); node 0 ran with --master-addr traina --master-port 29537, node 1 (this text) exported MASTER_ADDR/MASTER_PORT instead. Ended by the harness timeout (SIGINT at 100 s; exit 124). Fix verified: node 1 with --master-addr traina --master-port 29537 trained with node 0 (logs/master_addr_env_ignored_fix.raw).")
add("torchrun_shell_script_as_python", "torchrun_shell_script", "torchrun", "launcher", [],
    "torchrun runs its script argument with the Python interpreter, so the bash script run.sh is parsed as Python (SyntaxError at `set -euo pipefail`): launch it with torchrun --no-python ./run.sh, or give torchrun the Python script itself.",
    ["--no-python", "--no_python", "no-python"], "launcher",
    "Planted: torchrun --nproc-per-node 2 run.sh where run.sh is a bash wrapper. Fix verified: torchrun --nproc-per-node 2 --no-python ./run.sh trained (logs/torchrun_shell_script_fix.raw). rc 1.")
add("numpy2_pickle_to_numpy1_node", "numpy_drift_nodes", "torch.distributed", "python.pickle", ["code.package_too_old", "code.python_env"],
    "The two nodes run different environments: node 0 pickles NumPy arrays with NumPy 2 (module numpy._core) for broadcast_object_list and node 1 has NumPy 1.26, which cannot unpickle them: install the same NumPy (>= 2) on every node (identical environments).",
    ["same numpy", "numpy 2", "numpy>=2", "upgrade numpy", "numpy version"], "infra",
    "Planted: two torchrun agents (c10d rendezvous, one host) from two venvs: node0 torch 2.13.0+cpu / NumPy 2.4.6, node1 torch 2.14.1 / NumPy 1.26.0. Exit 0 is the shell's (the pipes and wait). Fix verified: NumPy 2.4.1 installed in node1's venv, the same command trained (logs/numpy_drift_nodes_fix.raw).")
add("worker_init_np_seed_64bit", "worker_np_seed", "torch.dataloader", "usercode.dataloader_worker_exception", [],
    "torch.initial_seed() in a DataLoader worker is a 64-bit value (base_seed + worker_id) but np.random.seed accepts only 0..2**32-1: seed NumPy with torch.initial_seed() % 2**32 (or use np.random.default_rng(torch.initial_seed())).",
    ["% 2**32", "modulo", "0xffffffff", "default_rng"], "usercode",
    "Planted: worker_init_fn = np.random.seed(torch.initial_seed()). Fix verified: np.random.seed(torch.initial_seed() % 2**32) ran all steps (logs/worker_np_seed_fix.raw). rc 1.")
add("healthy_gloo_reduceop_avg", "avg_gloo", "torch.distributed", "healthy", [],
    "No fix needed: the run completed normally.", [], "healthy",
    "Planted as a suspect (ReduceOp.AVG on gloo); torch 2.13 gloo accepted it and the run finished (rc 0).", healthy=True)
add("healthy_c10d_two_nodes_teardown_noise", "healthy_c10d_two_nodes", "torchrun", "healthy", [],
    "No fix needed: both nodes joined, trained and finished; the node_rank warning and the TCPStore teardown messages are harmless.", [], "healthy",
    "Two network namespaces, c10d rendezvous, rank 0 on traina finished all 5 steps (logs/healthy_c10d_two_nodes.node0.log); node 1 (this text) exit 0.", healthy=True)
add("healthy_mixed_torch_versions_two_agents", "drift_two_venvs", "torchrun", "healthy", [],
    "No fix needed: the run completed normally.", [], "healthy",
    "Two torchrun agents from two venvs (torch 2.13.0+cpu and 2.14.1) met in one c10d rendezvous and trained 5 DDP steps; exit 0.", healthy=True)
with open("/tmp/heldout-p37/explain_heldout_p37.jsonl", "w") as f:
    for c in C: f.write(json.dumps(c) + "\n")
print(len(C), sum(c["healthy"] for c in C))
