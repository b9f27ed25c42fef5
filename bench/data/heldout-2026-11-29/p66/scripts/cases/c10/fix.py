import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
dev = "cuda"


class Discriminator(nn.Module):
    def __init__(self, width=512, depth=6):
        super().__init__()
        self.inp = nn.Linear(784, width)
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.LeakyReLU(0.2)) for _ in range(depth))
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = h + checkpoint(blk, h, use_reentrant=False)   # save activation memory
        return self.out(h)


D = Discriminator().to(dev)
opt = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.99))
gamma = 10.0
for step in range(1, 101):
    real = (torch.rand(256, 784, device=dev) * 2 - 1).requires_grad_(True)
    fake = torch.rand(256, 784, device=dev) * 2 - 1
    d_real, d_fake = D(real), D(fake)
    loss = F.softplus(d_fake).mean() + F.softplus(-d_real).mean()
    # R1 gradient penalty on real samples
    grad_real, = torch.autograd.grad(d_real.sum(), real, create_graph=True)
    r1 = grad_real.pow(2).sum(dim=1).mean()
    loss = loss + gamma / 2 * r1
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 25 == 0:
        print(f"step {step} loss {loss.item():.4f} r1 {r1.item():.4f}")
print("done")
