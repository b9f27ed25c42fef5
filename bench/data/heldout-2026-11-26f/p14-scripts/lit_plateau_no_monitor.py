import torch, torch.nn as nn, lightning as L
from lit_common import loaders

class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y); self.log("train_loss", loss); return loss
    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(x), y))
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=3e-3)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch"}}

train_dl, val_dl = loaders()
trainer = L.Trainer(max_epochs=5, accelerator="cpu", devices=1, enable_progress_bar=False)
trainer.fit(Classifier(), train_dl, val_dl)
