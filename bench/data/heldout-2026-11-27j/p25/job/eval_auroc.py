import torch
from torchmetrics.classification import BinaryAUROC
# validation targets come from the annotation tool; ambiguous items were given 0.5
torch.manual_seed(0)
target = torch.tensor([1., 0., 1., 1., 0., 0.5, 1., 0., 0., 1., 0.5, 0.])
scores = torch.rand(12)
auroc = BinaryAUROC()
auroc.update(scores, target)
print("val AUROC", auroc.compute().item())
