import torch, torch.nn as nn
PERSIST = __import__("os").environ.get("OLD_MODEL") == "1"   # the model code as it was when the checkpoint was written
class Rotary(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=PERSIST)
    def forward(self, x):
        t = torch.arange(x.shape[1], dtype=torch.float32)
        f = torch.outer(t, self.inv_freq)
        return x * torch.cat([f.cos(), f.sin()], -1)
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.rope = Rotary(d)
        self.ln = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x):
        return x + self.mlp(self.ln(self.rope(x)))
class TinyLM(nn.Module):
    def __init__(self, vocab=500, d=32, n=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = nn.Linear(d, vocab)
    def forward(self, ids):
        x = self.emb(ids)
        for b in self.blocks:
            x = b(x)
        return self.head(x)
