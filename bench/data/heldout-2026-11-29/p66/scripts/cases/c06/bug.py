import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

torch.manual_seed(0)
dev = "cuda"
B, T, H, Dh = 8, 1024, 16, 64
C = H * Dh


class CausalAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(C, 3 * C, bias=False)
        self.proj = nn.Linear(C, C, bias=False)
        self.register_buffer("causal", torch.ones(T, T, dtype=torch.bool).tril(), persistent=False)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, H, Dh).permute(2, 0, 3, 1, 4)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):   # make sure we get the fast kernel
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=self.causal[:t, :t])
        return self.proj(y.transpose(1, 2).reshape(b, t, C))


model = nn.Sequential(*[CausalAttention() for _ in range(4)]).to(dev, torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
print(f"bf16 attention stack, seq {T}, heads {H}x{Dh}, {torch.cuda.get_device_name()}")
for step in range(1, 41):
    x = torch.randn(B, T, C, device=dev, dtype=torch.bfloat16)
    loss = model(x).float().pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.5f}")
print("done")
