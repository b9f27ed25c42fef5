import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
dev = "cuda"
D, E = 256, 8


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, E, bias=False)
        self.experts = nn.Parameter(torch.randn(E, D, D) * D ** -0.5)
        self.router_entropy = 0.0

    def forward(self, x):
        probs = self.gate(x).softmax(dim=-1)                      # (N, E)
        ent = -(probs * probs.clamp_min(1e-9).log()).sum(-1).mean()
        self.router_entropy = ent.detach()                        # for logging (read outside)
        h = torch.einsum("ne,edk,nd->nk", probs, self.experts, x)
        return x + F.gelu(h)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(64, D)
        self.moe = MoE()
        self.out = nn.Linear(D, 10)

    def forward(self, x):
        return self.out(self.moe(self.inp(x)))


net = Net().to(dev)
model = torch.compile(net, fullgraph=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(1, 61):
    x = torch.randn(512, 64, device=dev)
    y = torch.randint(0, 10, (512,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f} router_entropy {net.moe.router_entropy.item():.4f}")
print("done")
