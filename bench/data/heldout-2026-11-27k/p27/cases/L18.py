import torch, torch.nn as nn
import lightning as L
from torch.utils.data import TensorDataset

class Reg(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = nn.Linear(8, 1)
    def training_step(self, b, i):
        x, y = b; loss = nn.functional.mse_loss(self.net(x), y); self.log("loss", loss); return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), 0.05)

x = torch.randn(256, 8); y = x.sum(1, keepdim=True)
train_set = TensorDataset(x, y)
L.Trainer(max_epochs=2, accelerator="cpu", devices=1, enable_progress_bar=False).fit(Reg(), train_dataloaders=train_set)
