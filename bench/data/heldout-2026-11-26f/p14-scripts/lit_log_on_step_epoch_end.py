import torch, torch.nn as nn, lightning as L
from lit_common import loaders

class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
        self.correct = 0; self.seen = 0
    def training_step(self, batch, i):
        x, y = batch
        logits = self.net(x)
        self.correct += (logits.argmax(1) == y).sum().item(); self.seen += len(y)
        loss = nn.functional.cross_entropy(logits, y)
        self.log("train_loss", loss, on_step=True)
        return loss
    def on_train_epoch_end(self):
        self.log("train_acc", self.correct / self.seen, on_step=True, on_epoch=True, prog_bar=True)
        self.correct = 0; self.seen = 0
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

train_dl, _ = loaders()
trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, enable_progress_bar=False, enable_checkpointing=False)
trainer.fit(Classifier(), train_dl)
