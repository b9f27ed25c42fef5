import os, json, torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP

class JsonlDataset(Dataset):
    def __init__(self, path):
        with open(path) as f:
            self.lines = f.readlines()
    def __len__(self):
        return len(self.lines)
    def __getitem__(self, i):
        rec = json.loads(self.lines[i])
        return torch.tensor(rec["features"], dtype=torch.float32), torch.tensor(rec["label"])

dist.init_process_group("gloo")
rank = dist.get_rank()
restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", 0))
print(f"[rank {rank}] attempt {restart}", flush=True)
ds = JsonlDataset("data/train.jsonl")
dl = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds, shuffle=False))
model = DDP(nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, (x, y) in enumerate(dl):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
