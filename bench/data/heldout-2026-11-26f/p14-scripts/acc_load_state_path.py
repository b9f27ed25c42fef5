import os, torch, torch.nn as nn
from accelerate import Accelerator
from accelerate.utils import ProjectConfiguration
from torch.utils.data import DataLoader, TensorDataset

cfg = ProjectConfiguration(project_dir="outputs", automatic_checkpoint_naming=True, total_limit=3)
accelerator = Accelerator(cpu=True, project_config=cfg)
model = nn.Linear(12, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(64, 12), torch.randint(0, 2, (64,))), batch_size=16)
model, opt, loader = accelerator.prepare(model, opt, loader)
resume = os.environ.get("RESUME_FROM")
if resume:
    accelerator.print(f"resuming from {resume}")
    accelerator.load_state(resume)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y); accelerator.backward(loss); opt.step(); opt.zero_grad()
    accelerator.save_state()
    accelerator.print(f"epoch {epoch} loss {loss.item():.4f}; saved state")
