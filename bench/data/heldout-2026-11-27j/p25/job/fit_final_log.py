import lightning as L, torch
from lit_common import loaders, mlp

class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = mlp(); self.seen = 0
    def training_step(self, batch, i):
        x, y = batch
        self.seen += len(x)
        loss = torch.nn.functional.mse_loss(self.net(x).squeeze(1), y)
        self.log("train_loss", loss)
        return loss
    def on_train_end(self):
        self.log("samples_seen", float(self.seen), sync_dist=True)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

if __name__ == "__main__":
    tr, va = loaders()
    L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=2, enable_progress_bar=False).fit(Regressor(), tr)
