import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"
V, D, H = 5000, 256, 8


def make_batch(bsz, max_len):
    lengths = torch.randint(max_len // 4, max_len + 1, (bsz,))
    tokens = torch.randint(1, V, (bsz, max_len))
    pad = torch.arange(max_len)[None, :] >= lengths[:, None]
    tokens[pad] = 0
    return tokens.to(dev), pad.to(dev)


def build_mask(pad):
    B, T = pad.shape
    causal = torch.ones(T, T, dtype=torch.bool, device=pad.device).tril()
    mask = causal.unsqueeze(0).expand(B, T, T)
    mask = mask & ~pad[:, None, :]     # do not attend to padding
    return mask.unsqueeze(1)          # (B, 1, T, T)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=0)
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, V)

    def forward(self, tokens, mask):
        B, T = tokens.shape
        x = self.emb(tokens)
        q, k, v = self.qkv(x).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(B, T, D))


model = Model().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(1, 61):
    tokens, pad = make_batch(32, 96)
    mask = build_mask(pad)
    logits = model(tokens[:, :-1], mask[:, :, :-1, :-1])
    loss = F.cross_entropy(logits.reshape(-1, V), tokens[:, 1:].reshape(-1), ignore_index=0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
