import os, json, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    model = DDP(torch.nn.Linear(20, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(30):
        x = torch.randn(64, 20); y = torch.randint(0, 3, (64,))
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    # per-class confusion counts for the report
    preds = logits.argmax(1).numpy()
    labels = y.numpy()
    counts = {int(c): int((preds == c).sum()) for c in range(3)}
    if rank == 0:
        with open("metrics.json", "w") as f:
            json.dump({"pred_counts": counts}, f)
        print("wrote metrics.json", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
