import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
dev = "cuda"
V = 2000


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 256)
        self.out = nn.Linear(256, V)

    def forward(self, x):
        h = self.emb(x)
        h = h + torch.cumsum(h, dim=1) / torch.arange(1, x.shape[1] + 1, device=x.device)[None, :, None]
        return self.out(torch.tanh(h))


model = torch.compile(LM().to(dev))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(1, 31):
    T = int(torch.randint(32, 257, (1,)))           # bucketed variable-length batches
    x = torch.randint(0, V, (16, T + 1), device=dev)
    logits = model(x[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, V), x[:, 1:].reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"step {step} seq_len {T} loss {loss.item():.4f}")
print("done")
