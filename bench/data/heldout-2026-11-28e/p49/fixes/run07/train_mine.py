import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Pairs(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(0)
        self.x = [torch.randn(32, generator=g) for _ in range(n)]
        self.y = [int(v.sum() > 0) for v in self.x]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def add_hard_examples(self, xs, ys):
        self.x.extend(xs)
        self.y.extend(ys)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = Pairs(1024)
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=2, persistent_workers=True)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(4):
        sampler.set_epoch(epoch)
        hard_x, hard_y = [], []
        for x, y in loader:
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            opt.zero_grad(); loss.backward(); opt.step()
            wrong = (logits.argmax(1) != y).nonzero().flatten()
            hard_x += [x[i] for i in wrong]; hard_y += [int(y[i]) for i in wrong]
        # hard-example mining: re-add misclassified samples for the next epoch
        n_hard = torch.tensor(len(hard_x)); dist.all_reduce(n_hard, op=dist.ReduceOp.MIN)
        ds.add_hard_examples(hard_x[:int(n_hard)], hard_y[:int(n_hard)])
        # the sampler and the workers' dataset copies were built for the old size: rebuild both
        sampler = DistributedSampler(ds)
        loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=2, persistent_workers=True)
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f} dataset size {len(ds)}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
