import torch, timm
from timm.data import Mixup
from timm.loss import SoftTargetCrossEntropy
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(101, 3, 32, 32); y = torch.randint(0, 10, (101,))
dl = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)
model = timm.create_model("resnet18", num_classes=10, pretrained=False)
mixup = Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1, num_classes=10)
crit = SoftTargetCrossEntropy(); opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(2):
    for i, (xb, yb) in enumerate(dl):
        xb, yb = mixup(xb, yb)
        loss = crit(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.3f}", flush=True)
