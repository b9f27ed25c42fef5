import os, json, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
if rank == 0:
    cfg = {"lr": 3e-4, "batch_size": 32, "epochs": 2}
    vocab = {f"tok{i}": i for i in range(1000)}
    payload = [cfg, vocab]
else:
    payload = [None, None]
dist.broadcast_object_list(payload, src=0)
cfg = payload[0]
print(f"[rank {rank}] cfg={cfg}", flush=True)
dist.barrier()
dist.destroy_process_group()
