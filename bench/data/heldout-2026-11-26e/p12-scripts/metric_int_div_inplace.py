import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank, world = dist.get_rank(), dist.get_world_size()
logits = torch.randn(50, 10); labels = torch.randint(0, 10, (50,))
correct = torch.tensor((logits.argmax(1) == labels).sum().item())
total = torch.tensor(labels.numel())
dist.all_reduce(correct); dist.all_reduce(total)
correct /= total
if rank == 0: print(f"val accuracy {correct.item():.3f}")
dist.destroy_process_group()
