import os, time, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(24)])
ddp = torch.nn.parallel.DistributedDataParallel(model)
ckpt = "ckpt/last.pt"
os.makedirs("ckpt", exist_ok=True)
# ... training epoch omitted ...
if rank == 0:
    torch.save({"epoch": 3, "model": model.state_dict()}, ckpt)
    print("rank 0: saved", ckpt, flush=True)
# every rank reloads the latest checkpoint to start the next stage
while not os.path.exists(ckpt):
    time.sleep(0.01)
state = torch.load(ckpt, map_location="cpu")
model.load_state_dict(state["model"])
print(f"rank {rank}: resumed from epoch {state['epoch']}", flush=True)
dist.destroy_process_group()
