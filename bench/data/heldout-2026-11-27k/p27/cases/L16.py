import torch, torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Reg(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = nn.Linear(8, 1)
    def training_step(self, b, i):
        x, y = b; loss = nn.functional.mse_loss(self.net(x), y); self.log("loss", loss); return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), 0.05)

if __name__ == "__main__":
    x = torch.randn(256, 8); y = x.sum(1, keepdim=True)
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=2, num_nodes=2, strategy="ddp", enable_progress_bar=False)
    trainer.fit(Reg(), DataLoader(TensorDataset(x, y), batch_size=32))
