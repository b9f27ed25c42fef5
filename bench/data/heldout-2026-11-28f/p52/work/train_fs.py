import torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler

class Synthetic(Dataset):
    def __len__(self):
        return 512
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(16, generator=g), i % 4

if __name__ == "__main__":
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = Synthetic()
    dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds), num_workers=2,
                    multiprocessing_context="forkserver", persistent_workers=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for x, y in dl:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()
