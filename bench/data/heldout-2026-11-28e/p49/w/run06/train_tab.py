import glob
import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    files = sorted(glob.glob("shards/train_*.csv"))
    mine = files[rank::world]
    arr = np.concatenate([np.loadtxt(f, delimiter=",", dtype=np.float32) for f in mine])
    y = torch.from_numpy(arr[:, 0]).long()
    x = torch.from_numpy(arr[:, 1:])
    print(f"[rank {rank}] {len(mine)} file(s), {len(x)} rows", flush=True)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(3):
        for i in range(0, len(x), 50):
            loss = torch.nn.functional.cross_entropy(model(x[i:i + 50]), y[i:i + 50])
            opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
