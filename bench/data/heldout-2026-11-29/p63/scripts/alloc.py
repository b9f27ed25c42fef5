import torch
x = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device="cuda")
del x
y = torch.randn(8192, 8192, device="cuda") @ torch.randn(8192, 8192, device="cuda")
torch.cuda.synchronize()
print("reserved MiB", torch.cuda.memory_reserved() // 2**20, "allocated MiB", torch.cuda.memory_allocated() // 2**20, flush=True)
