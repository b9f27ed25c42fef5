import torch, torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Reg(L.LightningModule):
    def __init__(self, lr=1e-2):
        super().__init__(); self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    def training_step(self, b, i):
        x, y = b; loss = nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss, sync_dist=True); return loss
    def validation_step(self, b, i):
        x, y = b; self.log("val_loss", nn.functional.mse_loss(self.net(x), y), sync_dist=True)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), self.hparams.lr)

if __name__ == "__main__":
    g = torch.Generator().manual_seed(0); x = torch.randn(512, 8, generator=g); y = x[:, :1] * 2 - x[:, 1:2]
    ds = TensorDataset(x, y)
    t = L.Trainer(max_epochs=3, accelerator="cpu", devices=2, strategy="ddp", enable_progress_bar=False)
    t.fit(Reg(), DataLoader(ds, batch_size=32, shuffle=True), DataLoader(ds, batch_size=64))
    if t.is_global_zero: print("final val_loss", float(t.callback_metrics["val_loss"]))
