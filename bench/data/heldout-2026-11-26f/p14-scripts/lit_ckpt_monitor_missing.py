import torch, torch.nn as nn, lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint
from lit_common import loaders

class Classifier(L.LightningModule):
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
        logits = self.net(x)
        self.log("val_loss", nn.functional.cross_entropy(logits, y))
        self.log("val_accuracy", (logits.argmax(1) == y).float().mean())
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

train_dl, val_dl = loaders()
ckpt = ModelCheckpoint(dirpath="checkpoints", monitor="val_acc", mode="max", save_top_k=2)
trainer = L.Trainer(max_epochs=3, accelerator="cpu", devices=1, callbacks=[ckpt], enable_progress_bar=False)
trainer.fit(Classifier(), train_dl, val_dl)
print("best:", ckpt.best_model_path)
