import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
val_loss = torch.tensor([0.5 + rank])
dist.all_reduce(val_loss, op=dist.ReduceOp.AVG)
if rank == 0: print("mean val loss", val_loss.item())
dist.destroy_process_group()
