import lightning as L, torch
from lit_common import loaders, mlp

class GANLikeRegressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = mlp()
    def training_step(self, batch, i):
        opt = self.optimizers()
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x).squeeze(1), y)
        opt.zero_grad(); self.manual_backward(loss); opt.step()
        self.log("train_loss", loss, prog_bar=True)
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01, momentum=0.9)

if __name__ == "__main__":
    tr, va = loaders()
    trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=2, gradient_clip_val=1.0, enable_progress_bar=False)
    trainer.fit(GANLikeRegressor(), tr)
