import torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
stage = torch.nn.Linear(16, 16)          # this rank's pipeline stage
x = torch.randn(8, 16)
loss = stage(x).pow(2).mean().detach()
# the last pipeline stage holds the real loss; share it with every rank for logging
dist.broadcast(loss, src=world)
print(f"rank {rank}: loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
