import torch
from torch.utils.data import IterableDataset, DataLoader
class LineStream(IterableDataset):
    def __init__(self, path): self.path = path
    def __iter__(self):
        with open(self.path) as f:
            for line in f:
                yield int(line.split(",")[0])
if __name__ == "__main__":
    dl = DataLoader(LineStream("data/ids.csv"), batch_size=10, num_workers=2)
    seen = []
    for step, ids in enumerate(dl):
        seen += ids.tolist()
        print(f"step {step} batch ids {ids.tolist()[:4]}...")
    print(f"epoch finished: {step + 1} steps, {len(seen)} samples")
