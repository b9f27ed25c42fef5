import torch, torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

accelerator = Accelerator(cpu=True)
torch.manual_seed(0)
x = torch.randn(101, 8); y = (x.sum(1) > 0).long()
val_loader = DataLoader(TensorDataset(x, y), batch_size=16)
model = nn.Linear(8, 2)
model, val_loader = accelerator.prepare(model, val_loader)
model.eval()
all_preds, all_labels = [], []
with torch.no_grad():
    for xb, yb in val_loader:
        preds = model(xb).argmax(-1)
        all_preds.append(accelerator.gather(preds)); all_labels.append(accelerator.gather(yb))
preds = torch.cat(all_preds); labels = torch.cat(all_labels)
accelerator.print(f"validation: {len(x)} examples in the set")
accelerator.print(f"evaluated {len(preds)} predictions, accuracy {(preds == labels).float().mean().item():.4f}")
accelerator.end_training()
