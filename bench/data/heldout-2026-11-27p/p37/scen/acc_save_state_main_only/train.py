import torch
from datetime import timedelta
from accelerate import Accelerator
from accelerate.utils import InitProcessGroupKwargs
accelerator = Accelerator(kwargs_handlers=[InitProcessGroupKwargs(timeout=timedelta(seconds=60))])
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.utils.data.TensorDataset(torch.randn(256, 16), torch.randint(0, 4, (256,)))
dl = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True)
model, opt, dl = accelerator.prepare(model, opt, dl)
for epoch in range(2):
    for x, y in dl:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        opt.step()
    accelerator.print(f"epoch {epoch} loss {loss.item():.4f}")
    if accelerator.is_main_process:
        accelerator.save_state(f"ckpt/epoch_{epoch}")
accelerator.wait_for_everyone()
accelerator.print("done")
