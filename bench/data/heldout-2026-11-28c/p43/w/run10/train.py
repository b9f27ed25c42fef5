import os, numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    feats = torch.from_numpy(np.load(f"data/feat_{rank:05d}.npy"))
    print(f"[rank {rank}] loaded {tuple(feats.shape)} features", flush=True)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(20):
        idx = torch.randint(0, feats.shape[0], (64,))
        x = feats[idx]
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} recon loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
