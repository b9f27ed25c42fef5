import torch, torch.nn as nn, lightning as L
from lit_common import loaders

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, on_epoch=True)
        return loss
    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(x), y))
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), 1e-3)

if __name__ == "__main__":
    train_dl, val_dl = loaders()
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=2, strategy="ddp", enable_progress_bar=False)
    trainer.fit(Model(), train_dl, val_dl)
    if trainer.is_global_zero:
        print("finished:", {k: round(v.item(), 4) for k, v in trainer.callback_metrics.items()})
