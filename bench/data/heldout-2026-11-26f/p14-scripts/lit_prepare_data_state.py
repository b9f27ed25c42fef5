import os, torch, torch.nn as nn, lightning as L
from torch.utils.data import DataLoader, TensorDataset, random_split

class CsvDataModule(L.LightningDataModule):
    def __init__(self, path="data/features.pt", batch_size=32):
        super().__init__()
        self.path, self.batch_size = path, batch_size
    def prepare_data(self):
        # download / preprocess once, then split
        if not os.path.exists(self.path):
            g = torch.Generator().manual_seed(0)
            x = torch.randn(400, 16, generator=g); y = (x[:, 0] > 0).long()
            os.makedirs("data", exist_ok=True); torch.save((x, y), self.path)
        x, y = torch.load(self.path)
        self.train_ds, self.val_ds = random_split(TensorDataset(x, y), [320, 80], generator=torch.Generator().manual_seed(1))
    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=self.batch_size, shuffle=True)
    def val_dataloader(self):
        return DataLoader(self.val_ds, batch_size=self.batch_size)

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y); self.log("train_loss", loss); return loss
    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(x), y), sync_dist=True)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), 1e-3)

if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=2, strategy="ddp", enable_progress_bar=False)
    trainer.fit(Model(), datamodule=CsvDataModule())
