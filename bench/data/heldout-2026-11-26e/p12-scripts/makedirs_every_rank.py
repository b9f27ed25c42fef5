import os, datetime, time, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
run_dir = os.path.join("runs", "exp-" + time.strftime("%Y%m%d-%H%M"))
dist.barrier()
if not os.path.exists(run_dir):
    time.sleep(0.2)
    os.makedirs(run_dir)
with open(os.path.join(run_dir, f"log_rank{rank}.txt"), "w") as f:
    f.write("start\n")
print(f"[rank{rank}] logging to {run_dir}", flush=True)
dist.destroy_process_group()
