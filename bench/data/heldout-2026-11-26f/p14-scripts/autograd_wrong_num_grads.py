import torch

class ScaledClamp(torch.autograd.Function):
    """clamp(x * scale, lo, hi) with a straight-through gradient."""
    @staticmethod
    def forward(ctx, x, scale, lo, hi):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return (x * scale).clamp(lo, hi)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * ctx.scale, None

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(20, 40); self.fc2 = torch.nn.Linear(40, 1)
    def forward(self, x):
        return self.fc2(ScaledClamp.apply(self.fc1(x), 0.5, -1.0, 1.0))

net = Net(); opt = torch.optim.SGD(net.parameters(), lr=0.05)
for step in range(5):
    x = torch.randn(16, 20); y = torch.randn(16, 1)
    loss = torch.nn.functional.mse_loss(net(x), y)
    print("step", step, "forward ok, loss", round(loss.item(), 4))
    opt.zero_grad(); loss.backward(); opt.step()
