import torch, torch.distributed as dist
from datasets import load_dataset

dist.init_process_group("gloo")
rank = dist.get_rank()
ds = load_dataset("json", data_files="/tmp/heldout-p52/shared/data/reviews.jsonl", split="train")
ds = ds.map(lambda ex: {"n_words": len(ex["text"].split())})
ds = ds.shard(num_shards=dist.get_world_size(), index=rank)
x = torch.tensor(ds["n_words"], dtype=torch.float32)
mean = x.mean(); dist.all_reduce(mean); mean /= dist.get_world_size()
if rank == 0:
    print(f"{len(ds)} rows per rank, mean words {mean.item():.2f}", flush=True)
dist.destroy_process_group()
