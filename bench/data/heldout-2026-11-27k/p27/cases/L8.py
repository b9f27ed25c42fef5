import torch, torch.nn as nn, timm

class Net(nn.Module):
    def __init__(self, n_cls=10):
        super().__init__()
        self.backbone = timm.create_model("resnet18", pretrained=False, features_only=True, out_indices=(4,))
        ch = self.backbone.feature_info.channels()[-1]
        self.head = nn.Linear(ch, n_cls)
    def forward(self, x):
        f = self.backbone(x)
        return self.head(f.mean((2, 3)))

net = Net()
x = torch.randn(4, 3, 64, 64); y = torch.randint(0, 10, (4,))
loss = nn.functional.cross_entropy(net(x), y); loss.backward()
print("loss", loss.item())
