import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(rank)
correct = torch.tensor([float((torch.rand(100) > 0.3).sum())])
total = torch.tensor([100.0])
# collect the totals on the logging rank (the last one)
log_rank = world
dist.reduce(correct, dst=log_rank)
dist.reduce(total, dst=log_rank)
if rank == log_rank:
    print(f"val accuracy {correct.item() / total.item():.4f}")
dist.destroy_process_group()
