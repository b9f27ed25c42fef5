import torch, torch.nn as nn, lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint
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
        return torch.optim.Adam(self.parameters(), lr=1e-3)

train_dl, val_dl = loaders()
ckpt = ModelCheckpoint(dirpath="checkpoints", monitor="val_loss", save_top_k=1, filename="best-{epoch}-{val_loss:.3f}")
trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, callbacks=[ckpt], enable_progress_bar=False)
trainer.fit(Classifier(), train_dl, val_dl)
print("best checkpoint:", ckpt.best_model_path, "val_loss", round(ckpt.best_model_score.item(), 4))
