import csv, os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def load_shard(rank):
    path = os.path.join("data", f"part-{rank:05d}.csv")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    labels = sorted({r["label"] for r in rows})
    label2id = {l: i for i, l in enumerate(labels)}
    x = torch.tensor([[float(r[f"f{i}"]) for i in range(16)] for r in rows])
    y = torch.tensor([label2id[r["label"]] for r in rows])
    return x, y, label2id


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    x, y, label2id = load_shard(rank)
    print(f"[rank {rank}] {len(x)} rows, {len(label2id)} classes", flush=True)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, len(label2id)))
    model = DDP(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(5):
        for i in range(0, len(x), 32):
            loss = torch.nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
            opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
