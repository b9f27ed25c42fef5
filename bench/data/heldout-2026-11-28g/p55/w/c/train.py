import torch, torch.distributed as dist
import fastnorm

class Block(torch.nn.Module):
    def __init__(self, d=32):
        super().__init__(); self.fc = torch.nn.Linear(d, d)
    def forward(self, x):
        return fastnorm.rms_norm(self.fc(x), 1e-6)

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = torch.nn.parallel.DistributedDataParallel(Block())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 21):
        x = torch.randn(64, 32)
        loss = (model(x) - x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 10 == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
