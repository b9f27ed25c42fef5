import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.scale = 1.0 / math.sqrt(dim // heads)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q.mul_(self.scale)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


model = nn.Sequential(nn.Embedding(1000, 256), *[Block(256, 8) for _ in range(4)], nn.LayerNorm(256), nn.Linear(256, 1000)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
print(f"model: {sum(p.numel() for p in model.parameters())/1e6:.2f}M params on {dev}")

model.eval()
with torch.no_grad():
    x = torch.randint(0, 1000, (4, 64), device=dev)
    print("sanity forward (no_grad):", tuple(model(x).shape))
model.train()

for step in range(1, 101):
    x = torch.randint(0, 1000, (16, 128), device=dev)
    logits = model(x[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 1000), x[:, 1:].reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 25 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
