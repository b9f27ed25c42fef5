import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from model import Net

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    net = Net()
    os.makedirs("ckpt", exist_ok=True)
    if os.path.exists("ckpt/last.pt"):
        net.load_state_dict(torch.load("ckpt/last.pt", map_location="cpu"))
        if rank == 0:
            print("resumed from ckpt/last.pt", flush=True)
    model = DDP(net)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(20):
        x = torch.randn(32, 16); y = torch.randint(0, 4, (32,))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    if rank == 0:
        torch.save({"epoch": 1, "model": net.state_dict(), "optimizer": opt.state_dict()}, "ckpt/last.pt")
        print("saved ckpt/last.pt", flush=True)
    dist.barrier()
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
