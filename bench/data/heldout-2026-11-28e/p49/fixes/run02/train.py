import argparse
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Utterances(Dataset):
    def __init__(self, n=512):
        g = torch.Generator().manual_seed(0)
        self.lengths = torch.randint(5, 40, (n,), generator=g).tolist()

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        L = self.lengths[i]
        return torch.randn(L, 20), i % 4


def pad_collate(batch):
    xs, ys = zip(*batch)
    x = torch.nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_value=0.0)
    return x, torch.tensor(ys)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()

    ds = Utterances()
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=args.workers,
                        collate_fn=pad_collate, multiprocessing_context="spawn")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.GRU(20, 32, batch_first=True))
    head = torch.nn.Linear(32, 4)
    opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=1e-3)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            out, _ = model(x)
            loss = torch.nn.functional.cross_entropy(head(out[:, -1]), y)
            opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
