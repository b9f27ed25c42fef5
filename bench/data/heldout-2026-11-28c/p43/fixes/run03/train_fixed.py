import os, torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler
from torch.nn.utils.rnn import pad_sequence

def pad_collate(batch):
    return pad_sequence(batch, batch_first=True, padding_value=0)

class TokenDataset(Dataset):
    def __init__(self, path):
        self.lines = [l.split() for l in open(path)]
        self.vocab = {}
    def __len__(self):
        return len(self.lines)
    def __getitem__(self, i):
        ids = [hash(w) % 5000 for w in self.lines[i]]
        return torch.tensor(ids, dtype=torch.long)

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = TokenDataset("data/train.txt")
    sampler = DistributedSampler(ds, shuffle=True, seed=0)
    loader = DataLoader(ds, batch_size=8, sampler=sampler, num_workers=2, collate_fn=pad_collate)
    emb = torch.nn.Embedding(5000, 32)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(emb))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            loss = model(batch).pow(2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
            if rank == 0 and step % 10 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
