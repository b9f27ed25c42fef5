import lightning as L, torch
from torch.utils.data import DataLoader, TensorDataset, random_split
from lit_common import mlp

class TableDataModule(L.LightningDataModule):
    def __init__(self, batch_size=32):
        super().__init__(); self.batch_size = batch_size
    def setup(self, stage):
        g = torch.Generator().manual_seed(0)
        X = torch.randn(512, 16, generator=g); y = X.sum(1)
        full = TensorDataset(X, y)
        if stage == "fit":
            self.train_set, self.val_set = random_split(full, [448, 64], generator=g)
        if stage == "test":
            self.test_set = full
    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)
    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size)

class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = mlp()
    def training_step(self, b, i):
        loss = torch.nn.functional.mse_loss(self.net(b[0]).squeeze(1), b[1]); self.log("train_loss", loss); return loss
    def validation_step(self, b, i):
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(b[0]).squeeze(1), b[1]))
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

if __name__ == "__main__":
    L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=2, enable_progress_bar=False).fit(Regressor(), datamodule=TableDataModule())
