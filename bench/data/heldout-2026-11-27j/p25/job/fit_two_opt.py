import lightning as L, torch, torch.nn as nn
from lit_common import loaders

class TwoTower(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU())
        self.head = nn.Linear(64, 1)
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.mse_loss(self.head(self.encoder(x)).squeeze(1), y)
        self.log("train_loss", loss)
        return loss
    def configure_optimizers(self):
        enc_opt = torch.optim.AdamW(self.encoder.parameters(), lr=1e-4)
        head_opt = torch.optim.AdamW(self.head.parameters(), lr=1e-3)
        return [enc_opt, head_opt]

if __name__ == "__main__":
    tr, va = loaders()
    L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=2, enable_progress_bar=False).fit(TwoTower(), tr)
