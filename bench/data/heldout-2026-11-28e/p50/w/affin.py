import os, socket
print(f"task {os.environ['SLURM_PROCID']} on {socket.gethostname()} cpus {sorted(os.sched_getaffinity(0))}", flush=True)
