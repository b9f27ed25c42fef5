import torch, torch.nn as nn
from einops import rearrange

class PatchEncoder(nn.Module):
    def __init__(self, dim=64, patch=4, img=28):
        super().__init__()
        self.proj = nn.Conv2d(1, dim, patch, patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        n = (img // patch) ** 2
        self.pos = nn.Parameter(torch.zeros(1, n + 1, dim))
        layer = nn.TransformerEncoderLayer(dim, 4, 128, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
    def forward(self, x):
        t = rearrange(self.proj(x), "b c h w -> b (h w) c")
        t = torch.cat([self.cls.expand(t.shape[0], -1, -1), t], 1) + self.pos
        return self.enc(t)

class SegHead(nn.Module):
    def __init__(self, dim=64, grid=7):
        super().__init__()
        self.grid = grid
        self.up = nn.ConvTranspose2d(dim, 2, 4, 4)
    def forward(self, tokens):
        fmap = rearrange(tokens, "b (h w) c -> b c h w", h=self.grid, w=self.grid)
        return self.up(fmap)

enc, head = PatchEncoder(), SegHead()
x = torch.randn(8, 1, 28, 28)
y = torch.randint(0, 2, (8, 28, 28))
opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), 1e-3)
for step in range(3):
    out = head(enc(x))
    loss = nn.functional.cross_entropy(out, y)
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, "loss", round(loss.item(), 4))
