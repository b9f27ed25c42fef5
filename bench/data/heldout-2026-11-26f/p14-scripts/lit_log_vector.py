import torch, torch.nn as nn, lightning as L
from lit_common import loaders

class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss
    def validation_step(self, batch, i):
        x, y = batch
        pred = self.net(x).argmax(1)
        per_class = torch.stack([(pred[y == c] == c).float().mean() for c in range(3)])
        self.log("val_per_class_acc", per_class)
        self.log("val_acc", (pred == y).float().mean(), prog_bar=True)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

train_dl, val_dl = loaders()
trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, enable_progress_bar=False)
trainer.fit(Classifier(), train_dl, val_dl)
