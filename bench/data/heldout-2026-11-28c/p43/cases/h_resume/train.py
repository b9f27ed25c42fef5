import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import TensorDataset, DataLoader, DistributedSampler

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    sampler = DistributedSampler(ds, shuffle=True, seed=0)
    loader = DataLoader(ds, batch_size=32, sampler=sampler)
    net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    start_epoch = 0
    if os.path.exists("ckpt/last.pt"):
        ckpt = torch.load("ckpt/last.pt", map_location="cpu")
        res = net.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
        if rank == 0:
            print(f"loading ckpt/last.pt: {res}", flush=True)
            print(f"resuming at epoch {start_epoch}", flush=True)
    model = DDP(net)
    for epoch in range(start_epoch, start_epoch + 2):
        sampler.set_epoch(epoch)
        tot = 0.0
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item()
        if rank == 0:
            print(f"epoch {epoch} mean loss {tot / len(loader):.4f}", flush=True)
            os.makedirs("ckpt", exist_ok=True)
            torch.save({"epoch": epoch, "model": net.state_dict(), "optimizer": opt.state_dict()}, "ckpt/last.pt")
        dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
