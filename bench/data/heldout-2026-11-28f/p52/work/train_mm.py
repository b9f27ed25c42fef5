import os, time, numpy as np, torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler

class TokenWindows(Dataset):
    def __init__(self, path, seq=512):
        self.data = np.memmap(path, dtype=np.uint16, mode="r")
        self.seq = seq
    def __len__(self):
        return (len(self.data) - 1) // self.seq
    def __getitem__(self, i):
        s = i * self.seq
        x = torch.from_numpy(self.data[s:s + self.seq + 1].astype(np.int64))
        return x[:-1], x[1:]

dist.init_process_group("gloo")
rank = dist.get_rank()
ds = TokenWindows("data/tokens.bin")
sampler = DistributedSampler(ds, shuffle=True, seed=0)
dl = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=2)
if rank == 0:
    print(f"{len(ds)} windows of 512 tokens from data/tokens.bin", flush=True)
emb = torch.nn.Embedding(50000, 32); head = torch.nn.Linear(32, 50000)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(emb, head))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for step, (x, y) in enumerate(dl):
        loss = torch.nn.functional.cross_entropy(model(x[:, :64]).flatten(0, 1), y[:, :64].flatten())
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 20 == 0 and rank == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.3f}", flush=True)
        time.sleep(0.05)
dist.destroy_process_group()
