import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
dev = torch.device("cuda")


class Prefetcher:
    """Copies the next batch to the GPU on a side stream while the current one trains."""

    def __init__(self, batches):
        self.it = iter(batches)
        self.stream = torch.cuda.Stream()
        self._preload()

    def _preload(self):
        try:
            x, y = next(self.it)
        except StopIteration:
            self.next = None
            return
        with torch.cuda.stream(self.stream):
            self.next = (x.to(dev, non_blocking=True), y.to(dev, non_blocking=True))

    def __iter__(self):
        return self

    def __next__(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        if self.next is None:
            raise StopIteration
        x, y = self.next
        x.record_stream(torch.cuda.current_stream())
        y.record_stream(torch.cuda.current_stream())
        self._preload()
        return x, y


cpu_batches = [(torch.randn(256, 512).pin_memory(), torch.randint(0, 10, (256,)).pin_memory()) for _ in range(40)]
model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for i, (x, y) in enumerate(Prefetcher(cpu_batches)):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("done")
