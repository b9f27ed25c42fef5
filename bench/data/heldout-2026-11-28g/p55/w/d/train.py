import os, torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler
from tokfast import encode_bytes as read_block

class Blocks(Dataset):
    def __init__(self, n=256): self.raw = bytes(range(256)) * 64; self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i):
        b = read_block(self.raw[i:], 16)
        return torch.tensor(list(b), dtype=torch.float32) / 255.0

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = Blocks()
    dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds))
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(2):
        for x in dl:
            loss = model(x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0: print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
