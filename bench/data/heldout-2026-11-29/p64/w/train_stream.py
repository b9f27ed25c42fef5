# DDP training over a streamed shard list; each rank shuffles its shards with its own RNG and records
# where it is (shard cursor + RNG state) in a small JSON sidecar next to the checkpoint, for exact resume.
import argparse, json, os, random, torch, torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--resume", default="")
a = p.parse_args()
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
shards = [f"shard-{i:05d}" for i in range(rank, 400, world)]
rng = random.Random(1234 + rank)
cursor, start = 0, 0
if a.resume:
    ck = torch.load(f"{a.resume}/model.pt", map_location="cpu")
    net.load_state_dict(ck["model"]); opt.load_state_dict(ck["optim"]); start = ck["step"]
    with open(f"{a.resume}/data_state_rank{rank}.json") as f:
        ds = json.load(f)
    cursor = ds["cursor"]
    state = ds["rng_state"]
    if os.environ.get("FIX") == "1":
        state = (state[0], tuple(state[1]), state[2])
    rng.setstate(state)
    print(f"[rank {rank}] resumed step {start}, shard cursor {cursor}")
order = shards[:]
rng.shuffle(order)
for step in range(start, a.steps):
    shard = order[cursor % len(order)]; cursor += 1
    g = torch.Generator().manual_seed(hash(shard) % (2**31))
    x = torch.randn(32, 32, generator=g); y = torch.randint(0, 4, (32,), generator=g)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if (step + 1) % 10 == 0:
        d = f"ckpt_stream/step{step+1}"
        os.makedirs(d, exist_ok=True)
        if rank == 0:
            torch.save({"model": net.state_dict(), "optim": opt.state_dict(), "step": step + 1}, f"{d}/model.pt")
        with open(f"{d}/data_state_rank{rank}.json", "w") as f:
            json.dump({"cursor": cursor, "rng_state": rng.getstate()}, f)
        dist.barrier()
        if rank == 0:
            print(f"step {step+1} loss {loss.item():.4f} saved {d}")
dist.destroy_process_group()
