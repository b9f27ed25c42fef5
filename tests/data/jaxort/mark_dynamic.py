import torch, torch.nn as nn

class Head(nn.Module):
    def __init__(self, batch_size):
        super().__init__()
        self.batch_size = batch_size
        self.proj = nn.Linear(8 * 4, 10)
    def forward(self, x):
        h = x * 2.0
        return self.proj(h.reshape(self.batch_size, -1))

model = torch.compile(Head(32), backend="eager")
x = torch.randn(32, 8, 4)
torch._dynamo.mark_dynamic(x, 0)
print(model(x).shape)
