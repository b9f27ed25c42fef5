import os, torch, torch.distributed as dist
import torch.multiprocessing as mp

def worker(rank, world_size):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "37330"
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    t = torch.ones(2) * rank
    dist.all_reduce(t)
    print(rank, t)
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
