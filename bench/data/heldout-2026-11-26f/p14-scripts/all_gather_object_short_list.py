import datetime, torch, torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(rank)
# each rank scored its share of the validation documents
preds = {f"doc-{rank}-{i}": int(torch.randint(0, 3, ()).item()) for i in range(5)}
print(f"[rank{rank}] scored {len(preds)} docs", flush=True)
all_preds = [None]
dist.all_gather_object(all_preds, preds)
merged = {}
for p in all_preds: merged.update(p)
if rank == 0:
    print("total predictions:", len(merged))
dist.destroy_process_group()
