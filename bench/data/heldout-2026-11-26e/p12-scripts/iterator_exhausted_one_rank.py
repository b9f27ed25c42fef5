import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=12))
rank, world = dist.get_rank(), dist.get_world_size()
files = [f"shard-{i:03d}.bin" for i in range(7)]
my_files = files[rank::world]          # rank 0: 4 shards, rank 1: 3 shards
def batches():
    for f in my_files:
        for _ in range(2):
            yield torch.randn(8, 4), torch.randn(8, 1)
model = DDP(nn.Linear(4, 1)); opt = torch.optim.AdamW(model.parameters())
it = batches()
steps = 8
for step in range(steps):
    x, y = next(it)
    loss = nn.functional.mse_loss(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
