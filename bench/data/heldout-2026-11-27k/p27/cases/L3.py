import torch, torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Clf(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        return loss
    def validation_step(self, batch, i):
        x, y = batch
        pred = self.net(x).argmax(1)
        recall = torch.stack([((pred == c) & (y == c)).sum() / (y == c).sum().clamp(min=1) for c in range(3)])
        self.log("val_recall", recall)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), 1e-3)

g = torch.Generator().manual_seed(0)
ds = TensorDataset(torch.randn(256, 16, generator=g), torch.randint(0, 3, (256,), generator=g))
tl = DataLoader(ds, batch_size=32, shuffle=True)
vl = DataLoader(ds, batch_size=64)
L.Trainer(max_epochs=2, accelerator="cpu", devices=1, enable_progress_bar=False).fit(Clf(), tl, vl)
