import torch
from utils.metrics import macro_f1
preds = torch.tensor([0, 1, 1, 2]); labels = torch.tensor([0, 1, 2, 2])
print("macro F1", macro_f1(preds, labels))
