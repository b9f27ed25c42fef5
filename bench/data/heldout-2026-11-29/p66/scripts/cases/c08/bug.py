import math
import numpy as np
import scipy.special
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"
DIM = 64


class Ive(torch.autograd.Function):
    """Exponentially scaled modified Bessel function of the first kind, ive(v, z), via scipy."""

    @staticmethod
    def forward(ctx, v, z):
        ctx.v = v
        ctx.save_for_backward(z)
        out = scipy.special.ive(v, z.detach().cpu().numpy())
        return torch.from_numpy(out).to(z.device, z.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        z, = ctx.saved_tensors
        v = ctx.v
        zn = z.detach().cpu().numpy().astype(np.float64)
        gn = grad_output.detach().cpu().numpy()
        dz = scipy.special.ive(v - 1, zn) - scipy.special.ive(v, zn) * (v + zn) / zn
        return None, torch.from_numpy(gn * dz)


def vmf_nll(mu, kappa, x):
    v = DIM / 2 - 1
    log_c = v * kappa.log() - (DIM / 2) * math.log(2 * math.pi) - (Ive.apply(v, kappa).log() + kappa)
    return -(log_c + kappa * (mu * x).sum(-1)).mean()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, DIM + 1))

    def forward(self, x):
        h = self.body(x)
        mu = F.normalize(h[:, :DIM], dim=-1)
        kappa = F.softplus(h[:, DIM]) + 20.0
        return mu, kappa


enc = Encoder().to(dev)
opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
target = F.normalize(torch.randn(DIM, device=dev), dim=0)
for step in range(1, 101):
    x = torch.randn(256, 128, device=dev)
    obs = F.normalize(target + 0.3 * torch.randn(256, DIM, device=dev), dim=-1)
    mu, kappa = enc(x)
    loss = vmf_nll(mu, kappa, obs)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 25 == 0:
        print(f"step {step} nll {loss.item():.3f} mean kappa {kappa.mean().item():.2f}")
print("done")
