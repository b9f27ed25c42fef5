import numpy as np, torch
from torchmetrics.classification import BinaryJaccardIndex

rng = np.random.default_rng(0)
masks = (rng.random((16, 64, 64)) > 0.7).astype(np.uint8) * 255   # masks as exported by the labelling tool (PNG 0/255)
np.save("val_masks.npy", masks)

model = torch.nn.Conv2d(3, 1, 3, padding=1)
iou = BinaryJaccardIndex()
imgs = torch.randn(16, 3, 64, 64)
target = torch.from_numpy(np.load("val_masks.npy")).long()
with torch.no_grad():
    for b in range(0, 16, 4):
        probs = torch.sigmoid(model(imgs[b:b+4])).squeeze(1)
        iou.update(probs, target[b:b+4])
print("val IoU", iou.compute().item())
