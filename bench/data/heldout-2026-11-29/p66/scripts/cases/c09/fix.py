import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
dev = "cuda"
model = nn.Sequential(*[nn.Linear(1024, 1024) for _ in range(6)], nn.Linear(1024, 10)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(1e-3))
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=50)


@torch.compile(fullgraph=False)
def opt_step():
    opt.step()


for step in range(1, 61):
    x = torch.randn(256, 1024, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt_step()
    sched.step()
    opt.zero_grad(set_to_none=True)
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")
print("done")
