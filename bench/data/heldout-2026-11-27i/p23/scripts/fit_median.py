import torch
from torch.utils.data import DataLoader, TensorDataset
import lightning as L


class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x).squeeze(-1), y)
        self.log("train_loss", loss, reduce_fx="median")
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x).squeeze(-1), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


if __name__ == "__main__":
    ds = TensorDataset(torch.randn(256, 16), torch.randn(256))
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=1,
                        enable_progress_bar=False, enable_checkpointing=False, logger=False)
    trainer.fit(Regressor(), DataLoader(ds, batch_size=32), DataLoader(ds, batch_size=64))
