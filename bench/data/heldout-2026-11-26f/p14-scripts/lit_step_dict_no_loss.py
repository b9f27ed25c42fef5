import torch, torch.nn as nn, lightning as L
from lit_common import loaders

class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 3))
    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        train_loss = nn.functional.cross_entropy(logits, y)
        acc = (logits.argmax(1) == y).float().mean()
        return {"train_loss": train_loss, "train_acc": acc}
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)

train_dl, _ = loaders()
trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False)
trainer.fit(Regressor(), train_dl)
