import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=12))
rank, world = dist.get_rank(), dist.get_world_size()
print(f"[rank{rank}] init done, world {world}", flush=True)
if rank == 0:
    # logging group for the main process only
    log_group = dist.new_group(ranks=[0])
    t = torch.ones(1); dist.all_reduce(t, group=log_group)
    print("log group ready", flush=True)
dist.barrier()
print(f"[rank{rank}] training...", flush=True)
dist.destroy_process_group()
