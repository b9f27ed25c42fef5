import torch

class SoftThreshold(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lam):
        ctx.save_for_backward(x, lam)
        return torch.sign(x) * torch.clamp(x.abs() - lam, min=0)
    @staticmethod
    def backward(ctx, g):
        x, lam = ctx.saved_tensors
        return g * (x.abs() > lam).to(g.dtype), None

w = torch.randn(32, 16, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    x = torch.randn(8, 32)
    out = SoftThreshold.apply(x @ w, 0.1)
    loss = out.pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, "loss", loss.item())
