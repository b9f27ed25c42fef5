import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lambd):
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.lambd, None


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(100, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU())
        self.label_head = nn.Linear(128, 10)
        self.domain_head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, x, lambd=1.0):
        f = self.features(x)
        rev = GradReverse.apply(f, lambd)
        return self.label_head(f), self.domain_head(rev)


model = DANN().to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
print("domain-adversarial training, source/target batches of 64")
for step in range(1, 101):
    xs = torch.randn(64, 100, device=dev); ys = torch.randint(0, 10, (64,), device=dev)
    xt = torch.randn(64, 100, device=dev) + 0.5
    cls_s, dom_s = model(xs)
    _, dom_t = model(xt)
    dom = torch.cat([dom_s, dom_t])
    dom_y = torch.cat([torch.zeros(64), torch.ones(64)]).long().to(dev)
    loss = F.cross_entropy(cls_s, ys) + F.cross_entropy(dom, dom_y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 25 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
