import datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank, world = dist.get_rank(), dist.get_world_size()
preds = [f"sample-{rank}-{i}" for i in range(3)]
gathered = [None] * world
dist.gather_object(preds, gathered, dst=0)
if rank == 0:
    print("all predictions:", sum(gathered, []))
dist.destroy_process_group()
