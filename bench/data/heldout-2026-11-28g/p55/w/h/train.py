import torch, torch.distributed as dist

class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(32, 64); self.b = torch.nn.Linear(64, 32)
    def forward(self, x):
        return self.b(torch.nn.functional.gelu(self.a(x)))

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = torch.nn.parallel.DistributedDataParallel(MLP())
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(1, 11):
        x = torch.randn(16, 32)
        loss = (cmodel(x) - x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 5 == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
