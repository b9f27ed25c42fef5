import torch
print("loading dataset into memory ...", flush=True)
chunks = []
for i in range(40):
    chunks.append(torch.ones(64 * 1024 * 1024 // 4))
    print(f"  loaded shard {i} ({(i+1)*64} MiB)", flush=True)
print("done")
