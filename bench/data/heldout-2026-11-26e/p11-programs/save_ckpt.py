import torch, os
model = torch.nn.Sequential(*[torch.nn.Linear(512, 512) for _ in range(8)])
for epoch in range(2):
    print(f"epoch {epoch} done, saving /ckpt/epoch{epoch}.pt", flush=True)
    torch.save({"model": model.state_dict(), "epoch": epoch}, f"/ckpt/epoch{epoch}.pt")
