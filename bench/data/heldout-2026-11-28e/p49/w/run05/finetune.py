import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

INIT = os.environ.get("INIT_CKPT", "pretrained/encoder_v1.pt")


def build():
    enc = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128))
    # memory-map the weights so every local rank shares the page cache instead of a private copy
    ckpt = torch.load(INIT, map_location="cpu", mmap=True, weights_only=True)
    enc.load_state_dict(ckpt["encoder"])
    return torch.nn.Sequential(enc, torch.nn.Linear(128, 2))


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    model = DDP(build())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(30):
        x = torch.randn(32, 128); y = (x[:, 0] > 0).long()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
