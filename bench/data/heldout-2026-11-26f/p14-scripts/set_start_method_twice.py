import torch, torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset

def build_loader():
    mp.set_start_method("spawn")    # safer with threads
    ds = TensorDataset(torch.randn(200, 8), torch.randint(0, 2, (200,)))
    return DataLoader(ds, batch_size=20, num_workers=2)

def evaluate(model, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct / 200

if __name__ == "__main__":
    model = torch.nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = build_loader()
    for x, y in train_loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    print("train epoch done, loss", round(loss.item(), 4))
    val_loader = build_loader()
    print("val acc", evaluate(model, val_loader))
