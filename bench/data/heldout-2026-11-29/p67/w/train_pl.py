import argparse, os
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import lightning as L

p = argparse.ArgumentParser()
p.add_argument("--devices", type=int, default=2)
p.add_argument("--num-nodes", type=int, default=1)
p.add_argument("--strategy", default="ddp")
p.add_argument("--precision", default="32-true")
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--aux-head", action="store_true")
a = p.parse_args()

class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
        self.aux = nn.Linear(32, 4) if a.aux_head else None  # auxiliary head, loss added later
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.mse_loss(self.layer(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)

class Data(L.LightningDataModule):
    def setup(self, stage=None):
        g = torch.Generator().manual_seed(0)
        x = torch.randn(512, 16, generator=g)
        self.ds = TensorDataset(x, x.sum(1, keepdim=True))
    def train_dataloader(self):
        return DataLoader(self.ds, batch_size=32)

if __name__ == "__main__":
    L.seed_everything(0)
    t = L.Trainer(accelerator="cpu", devices=a.devices, num_nodes=a.num_nodes, strategy=a.strategy,
                  precision=a.precision, max_epochs=a.epochs, default_root_dir="runs/pl", logger=False)
    t.fit(Net(), datamodule=Data())
    if t.global_rank == 0:
        print("training done")
