import os, torch, torch.distributed as dist
from datasets import load_from_disk

DATA = os.environ.get("DATA", "/datasets/reviews")
dist.init_process_group("gloo")
rank = dist.get_rank()
ds = load_from_disk(DATA)
vocab = {w: i + 1 for i, w in enumerate(sorted({w for t in ds["text"] for w in t.split()}))}
def encode(batch):
    ids = [[vocab[w] for w in t.split()][:32] for t in batch["text"]]
    return {"input_ids": [x + [0] * (32 - len(x)) for x in ids]}
ds = ds.map(encode, batched=True, remove_columns=["text"], keep_in_memory=True)
ds.set_format("torch")
ds = ds.shard(num_shards=dist.get_world_size(), index=rank)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.EmbeddingBag(len(vocab) + 1, 16), torch.nn.Linear(16, 2)))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(2):
    for i in range(0, len(ds), 64):
        b = ds[i:i + 64]
        loss = torch.nn.functional.cross_entropy(model(b["input_ids"]), b["label"])
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
