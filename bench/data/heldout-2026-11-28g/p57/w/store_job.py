import os, datetime, torch, torch.distributed as dist
rank = int(os.environ["RANK"]); ws = int(os.environ["WORLD_SIZE"])
addr = os.environ["MASTER_ADDR"]; port = int(os.environ["MASTER_PORT"])
# the coordinator (last rank) hosts the key-value store
store = dist.TCPStore(addr, port, ws, is_master=(rank == ws - 1),
                      timeout=datetime.timedelta(seconds=30))
dist.init_process_group("gloo", store=store, rank=rank, world_size=ws)
t = torch.ones(4) * (rank + 1)
dist.all_reduce(t)
print(f"rank {rank}: all_reduce -> {t.tolist()}", flush=True)
dist.destroy_process_group()
