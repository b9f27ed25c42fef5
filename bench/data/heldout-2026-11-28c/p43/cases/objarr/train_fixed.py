import os, numpy as np, torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader
from torch.nn.utils.rnn import pad_sequence

class ShardDataset(Dataset):
    def __init__(self, path):
        self.seqs = np.load(path, allow_pickle=True)
    def __len__(self):
        return len(self.seqs)
    def __getitem__(self, i):
        return torch.from_numpy(self.seqs[i])

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = ShardDataset(f"data/shard{rank}.npy")
    loader = DataLoader(ds, batch_size=16, shuffle=True, collate_fn=lambda b: pad_sequence(b, batch_first=True))
    emb = torch.nn.parallel.DistributedDataParallel(torch.nn.Embedding(1000, 32))
    opt = torch.optim.SGD(emb.parameters(), lr=0.1)
    for step, batch in enumerate(loader):
        loss = emb(batch).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
