import os
import torch
import torch.distributed as dist
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                    torch.nn.ReLU(), torch.nn.Linear(256, 4)))
    opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-3)
    n_local = sum(p.numel() for g in opt.optim.param_groups for p in g["params"])
    print(f"[rank {rank}] optimizer shard holds {n_local} of {sum(p.numel() for p in model.parameters())} params", flush=True)
    for step in range(60):
        x = torch.randn(64, 32); y = (x[:, :4].argmax(1))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 20 == 19:
            print(f"step {step + 1} loss {loss.item():.4f}", flush=True)
    opt.consolidate_state_dict(to=0)
    if rank == 0:
        os.makedirs("ckpt", exist_ok=True)
        torch.save({"model": model.module.state_dict(), "optim": opt.state_dict()}, "ckpt/zero_final.pt")
        print("saved ckpt/zero_final.pt", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
