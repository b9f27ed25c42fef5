import lightning as L, torch
from lit_common import loaders, mlp

class Regressor(L.LightningModule):
    def __init__(self, lr=1e-3, metrics_path="metrics.tsv"):
        super().__init__()
        self.net = mlp(); self.lr = lr
        self.metrics_file = open(metrics_path, "a")   # per-step loss, appended as TSV
    def training_step(self, batch, i):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x).squeeze(1), y)
        self.metrics_file.write(f"{self.global_step}\t{loss.item():.5f}\n")
        self.log("train_loss", loss)
        return loss
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

if __name__ == "__main__":
    tr, va = loaders()
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp_spawn", max_epochs=2, enable_progress_bar=False)
    trainer.fit(Regressor(), tr)
