import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.GELU(), torch.nn.Linear(256, 128))
    def forward(self, x):
        return self.layers(x)

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    enc = Encoder()
    sd = torch.load("checkpoints/pretrained_encoder.pt", map_location="cpu")
    enc.load_state_dict(sd)
    model = DDP(enc)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(20):
        x = torch.randn(16, 128)
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
