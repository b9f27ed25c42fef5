import datetime, numpy as np, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
scores = np.random.rand(100)
if rank == 0:
    f1 = torch.tensor([scores.mean()], dtype=torch.float32)
else:
    f1 = torch.from_numpy(np.array([scores.mean()]))  # float64
dist.all_reduce(f1)
print(f"[rank{rank}] f1 sum {f1.item():.4f}")
dist.destroy_process_group()
