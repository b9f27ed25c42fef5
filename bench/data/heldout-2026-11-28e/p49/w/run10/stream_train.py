import itertools
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class TokenStream(IterableDataset):
    """Endless synthetic stream; each (rank, worker) pair reads a disjoint slice."""

    def __init__(self, n_records=8192):
        self.n = n_records

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (info.id, info.num_workers) if info else (0, 1)
        rank, world = dist.get_rank(), dist.get_world_size()
        shard, n_shards = rank * nw + wid, world * nw
        for i in itertools.islice(range(self.n), shard, None, n_shards):
            g = torch.Generator().manual_seed(i)
            yield torch.randint(0, 1000, (16,), generator=g), i


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    loader = DataLoader(TokenStream(), batch_size=64, num_workers=2)
    model = DDP(torch.nn.Sequential(torch.nn.EmbeddingBag(1000, 32, mode="mean"), torch.nn.Linear(32, 2)))
    opt = torch.optim.Adam(model.parameters(), lr=5e-2)
    seen = []
    for step, (tok, idx) in enumerate(loader):
        y = (tok.float().mean(1) < 500).long()
        loss = torch.nn.functional.cross_entropy(model(tok), y)
        opt.zero_grad(); loss.backward(); opt.step()
        seen.append(idx)
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
        if step == 39:
            break
    seen = torch.cat(seen)
    all_seen = [None, None]
    dist.all_gather_object(all_seen, seen.tolist())
    if rank == 0:
        a, b = set(all_seen[0]), set(all_seen[1])
        print(f"rank0 {len(a)} records, rank1 {len(b)} records, overlap {len(a & b)}; last loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
