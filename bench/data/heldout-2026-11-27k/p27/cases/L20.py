import torch, torch.nn as nn
import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

class Reg(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = nn.Linear(8, 1)
    def training_step(self, b, i):
        x, y = b; loss = nn.functional.mse_loss(self.net(x), y); self.log("train_loss", loss); return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), 0.05)

x = torch.randn(256, 8); y = x.sum(1, keepdim=True)
ckpt = ModelCheckpoint(dirpath="ckpt", monitor="val_loss", mode="min", save_top_k=2)
L.Trainer(max_epochs=2, accelerator="cpu", devices=1, enable_progress_bar=False, callbacks=[ckpt]).fit(
    Reg(), DataLoader(TensorDataset(x, y), batch_size=32))
