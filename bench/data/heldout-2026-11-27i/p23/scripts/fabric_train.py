import torch
import lightning as L

fabric = L.Fabric(accelerator="cpu", devices=2, strategy="ddp")
fabric.launch()
model = torch.nn.Linear(16, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
model = fabric.setup_module(model)
for step in range(3):
    x, y = torch.randn(32, 16), torch.randn(32, 1)
    loss = torch.nn.functional.mse_loss(model(x), y)
    fabric.backward(loss)
    optimizer.step()
    optimizer.zero_grad()
fabric.print("done", loss.item())
