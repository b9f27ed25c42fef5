import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def load_features(rank):
    # memory-map the shard so we don't hold two copies in RAM
    arr = np.load(f"features/part{rank}.npy", mmap_mode="r")
    x = torch.from_numpy(arr)
    # global standardization: mean/std over all shards
    stats = torch.stack([x.sum(0), (x * x).sum(0), torch.full((x.shape[1],), float(len(x)))])
    dist.all_reduce(stats)
    n = stats[2]
    mean = stats[0] / n
    std = (stats[1] / n - mean ** 2).sqrt()
    x.sub_(mean).div_(std)
    return x


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    x = load_features(rank)
    y = (x[:, 0] > 0).long()
    print(f"[rank {rank}] features {tuple(x.shape)} standardized", flush=True)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(24, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        for i in range(0, len(x), 100):
            loss = torch.nn.functional.cross_entropy(model(x[i:i + 100]), y[i:i + 100])
            opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
